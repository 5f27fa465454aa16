//! Recoding at a relay: a random linear combination of the coded packets it holds.
//!
//! A relay (a COTAG access point) holding m coded packets of a generation, with coefficient
//! vectors g⁽¹⁾…g⁽ᵐ⁾ over the n sources, sends g' = Σₖ wₖ·g⁽ᵏ⁾ with weights w drawn uniformly from
//! GF(2⁸)ᵐ \ {0}, by the same sequence of draws as the encoder's
//! ([`super::encoder::draw_coefficients`] with m entries). Since each held payload is Σᵢ g⁽ᵏ⁾ᵢ·sᵢ,
//! the recoded payload Σₖ wₖ·y⁽ᵏ⁾ equals Σᵢ g'ᵢ·sᵢ: g' is again the packet's coefficient vector
//! over the sources, and the relay never decodes (Ho et al. 2006; Chou, Wu, Jain 2003).
//!
//! The relay recodes what it holds, dependent or not: g' can be dependent on what the receiver
//! already has, or zero when the held vectors are dependent, and the receiver's exact rank counts
//! that. To recode payloads the same way, apply [`Recoder::weights`] to them with
//! [`super::gf256::linear_combination`].

use super::encoder::draw_coefficients;
use super::gf256;
use crate::sim::Rng;

/// Draws recoding weights and forms the combination, in buffers reused from call to call.
#[derive(Clone, Debug, Default)]
pub struct Recoder {
    weights: Vec<u8>,
    combination: Vec<u8>,
}

impl Recoder {
    pub fn new() -> Recoder {
        Recoder::default()
    }

    /// A random linear combination of the held coefficient vectors (m ≥ 1 of them, all of
    /// length n), valid until the next call. Panics if none is held or the lengths differ.
    pub fn recode<'a, I>(&mut self, rng: &mut Rng, held: I) -> &[u8]
    where
        I: IntoIterator<Item = &'a [u8]>,
        I::IntoIter: ExactSizeIterator,
    {
        let held = held.into_iter();
        assert!(held.len() > 0, "recoding needs at least one held vector");
        self.weights.resize(held.len(), 0);
        draw_coefficients(rng, &mut self.weights);
        self.combination.clear();
        for (k, vector) in held.enumerate() {
            if k == 0 {
                self.combination.resize(vector.len(), 0);
            }
            gf256::mul_add_slice(&mut self.combination, self.weights[k], vector);
        }
        &self.combination
    }

    /// The weights of the last [`Recoder::recode`], one per held vector in the order given.
    pub fn weights(&self) -> &[u8] {
        &self.weights
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::decoder::RankDecoder;

    #[test]
    fn test_recoded_vector_is_the_weighted_sum_of_the_held_ones() {
        let held: [&[u8]; 3] = [&[1, 0, 0, 4], &[0, 1, 0, 4], &[0, 0, 1, 4]];
        let mut rng = Rng::for_component(1, "node/ap1/coding");
        let mut recoder = Recoder::new();
        let out = recoder.recode(&mut rng, held).to_vec();
        let w = recoder.weights().to_vec();
        assert_eq!(w.len(), 3);
        assert_eq!(out, [w[0], w[1], w[2], gf256::mul(4, w[0] ^ w[1] ^ w[2])]);
        let mut same = Rng::for_component(1, "node/ap1/coding");
        let mut expected = [0u8; 3];
        draw_coefficients(&mut same, &mut expected);
        assert_eq!(w, expected, "the weights are the encoder's draws");
    }

    #[test]
    fn test_recoding_keeps_within_the_span_of_the_held_vectors() {
        // A relay holding 3 independent vectors of 8 sources emits combinations that never add
        // rank beyond 3, but 3 of them almost surely reach rank 3 again.
        let mut rng = Rng::for_component(2, "node/ap1/coding");
        let mut held = vec![vec![0u8; 8]; 3];
        held.iter_mut().for_each(|v| draw_coefficients(&mut rng, v));
        let mut recoder = Recoder::new();
        let mut d = RankDecoder::new(8);
        for _ in 0..40 {
            d.insert(recoder.recode(&mut rng, held.iter().map(Vec::as_slice)));
        }
        assert_eq!(d.rank(), 3);
        held.iter().for_each(|v| assert!(!d.insert(v), "a held vector was not in the span"));
    }

    #[test]
    fn test_recoding_one_vector_scales_it() {
        let mut rng = Rng::for_component(3, "node/ap2/coding");
        let mut recoder = Recoder::new();
        let held: [&[u8]; 1] = [&[7, 0, 9]];
        for _ in 0..300 {
            let out = recoder.recode(&mut rng, held).to_vec();
            let w = recoder.weights()[0];
            assert_ne!(w, 0, "an all-zero weight draw");
            assert_eq!(out, [gf256::mul(w, 7), 0, gf256::mul(w, 9)]);
        }
    }

    #[test]
    #[should_panic(expected = "at least one held vector")]
    fn test_recoding_nothing_panics() {
        Recoder::new().recode(&mut Rng::for_component(1, "c"), std::iter::empty::<&[u8]>());
    }

    #[test]
    #[should_panic(expected = "different lengths")]
    fn test_held_vectors_of_different_lengths_panic() {
        let held: [&[u8]; 2] = [&[1, 2], &[1, 2, 3]];
        Recoder::new().recode(&mut Rng::for_component(1, "c"), held);
    }
}
