//! Random linear network coding over GF(2⁸): encoding, recoding at relays, and decoding with
//! exact rank — the coding of COTAG (Wu et al., §4: gateway, two access points, device).
//!
//! Model (Li, Yeung, Cai, "Linear network coding", IEEE Trans. IT 49(2), 2003 — the paper's
//! ref. [32]; Ho et al., "A random linear network coding approach to multicast", IEEE Trans. IT
//! 52(10), 2006; Chou, Wu, Jain, "Practical network coding", Allerton 2003, for generations and
//! coefficient headers):
//!
//! - a generation (COTAG's cohort of a flow) is n source packets s₁…sₙ;
//! - a coded packet carries a coefficient vector g ∈ GF(2⁸)ⁿ and the payload y = Σᵢ gᵢ·sᵢ; the
//!   source draws g uniformly from the nonzero vectors ([`encoder`]);
//! - a relay holding coded packets with vectors g⁽¹⁾…g⁽ᵐ⁾ sends Σₖ wₖ·g⁽ᵏ⁾ with random weights w,
//!   which is again a coefficient vector over the sources ([`recoder`]);
//! - a receiver holding vectors that span a space of dimension r (the rank) recovers the
//!   sources exactly when r = n ([`decoder`]). n uniform random vectors have full rank with
//!   probability Πᵢ₌₁ⁿ (1 − 256⁻ⁱ) ≈ 0.996.
//!
//! In the simulator only the coefficient vectors travel (a packet's side data in the arena):
//! payload bytes change no throughput or latency result, decodability does, and the rank of the
//! vectors is exactly decodability — including dependence that erasures and recoding introduce,
//! which counting packets would miss. [`payload`] runs the same arithmetic on real bytes, for
//! tests and for users. Randomness comes only from the component's [`crate::sim::Rng`], in a
//! documented sequence. The field, the operations and the measured speed:
//! docs/models/network-coding.md.

pub mod decoder;
pub mod encoder;
pub mod gf256;
pub mod payload;
pub mod recoder;

pub use decoder::RankDecoder;
pub use encoder::draw_coefficients;
pub use payload::PayloadDecoder;
pub use recoder::Recoder;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;
    use proptest::prelude::*;

    /// The rank of `vectors`, by textbook Gaussian elimination on a copy: find a row with a
    /// nonzero entry in the column, swap it up, clear the column in every other row.
    fn reference_rank(vectors: &[Vec<u8>]) -> usize {
        let mut m: Vec<Vec<u8>> = vectors.to_vec();
        let columns = m.first().map_or(0, Vec::len);
        let mut rank = 0;
        for col in 0..columns {
            let Some(found) = (rank..m.len()).find(|&r| m[r][col] != 0) else {
                continue;
            };
            m.swap(rank, found);
            let pivot_inverse = gf256::inv(m[rank][col]);
            for x in m[rank].iter_mut() {
                *x = gf256::mul(*x, pivot_inverse);
            }
            let pivot_row = m[rank].clone();
            for (r, row) in m.iter_mut().enumerate() {
                if r != rank && row[col] != 0 {
                    let factor = row[col];
                    for (x, &p) in row.iter_mut().zip(&pivot_row) {
                        *x ^= gf256::mul(factor, p);
                    }
                }
            }
            rank += 1;
        }
        rank
    }

    #[test]
    fn test_reference_rank_of_small_known_matrices() {
        assert_eq!(reference_rank(&[]), 0);
        assert_eq!(reference_rank(&[vec![0, 0], vec![0, 0]]), 0);
        assert_eq!(reference_rank(&[vec![1, 2], vec![2, 4]]), 1, "(2, 4) = 2·(1, 2)");
        assert_eq!(reference_rank(&[vec![1, 2], vec![2, 4 ^ 1]]), 2);
        assert_eq!(reference_rank(&[vec![0, 1, 1], vec![1, 0, 1], vec![1, 1, 0]]), 2, "rows sum to 0");
    }

    /// What a node does at one step of the random network below.
    #[derive(Clone, Debug)]
    enum Step {
        /// The gateway sends a fresh coded packet to access point `ap` (0 or 1), or loses it.
        Encode { ap: usize, erased: bool },
        /// Access point `ap` forwards a copy of the packet it holds at `index` (mod its count).
        Forward { ap: usize, index: usize, erased: bool },
        /// Access point `ap` sends a recoding of everything it holds.
        Recode { ap: usize, erased: bool },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0..2usize, prop::bool::weighted(0.3)).prop_map(|(ap, erased)| Step::Encode { ap, erased }),
            (0..2usize, any::<usize>(), prop::bool::weighted(0.3))
                .prop_map(|(ap, index, erased)| Step::Forward { ap, index, erased }),
            (0..2usize, prop::bool::weighted(0.3)).prop_map(|(ap, erased)| Step::Recode { ap, erased }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// COTAG's network with random erasures and recodings: a gateway encodes n sources
        /// towards two access points, which forward copies and send recodings of what they hold
        /// to one device. After every packet the device's rank equals a naive elimination of
        /// everything it received, "innovative" means the rank rose, and the rank never exceeds
        /// what reached the access points.
        #[test]
        fn test_rank_after_erasures_and_recodings_matches_reference(
            seed in any::<u64>(),
            n in 1usize..33,
            steps in prop::collection::vec(step(), 0..120),
        ) {
            let mut gateway = Rng::for_component(seed, "node/gw/coding");
            let mut ap_rng =
                [Rng::for_component(seed, "node/ap1/coding"), Rng::for_component(seed, "node/ap2/coding")];
            let mut recoder = Recoder::new();
            let mut held: [Vec<Vec<u8>>; 2] = [Vec::new(), Vec::new()];
            // The received vectors that raised the reference rank: they span all received.
            let mut spanning: Vec<Vec<u8>> = Vec::new();
            let mut device = RankDecoder::new(n);
            for step in steps {
                let (packet, erased) = match step {
                    Step::Encode { ap, erased } => {
                        let mut v = vec![0; n];
                        draw_coefficients(&mut gateway, &mut v);
                        if !erased {
                            held[ap].push(v);
                        }
                        continue;
                    }
                    Step::Forward { ap, index, erased } => {
                        if held[ap].is_empty() {
                            continue;
                        }
                        (held[ap][index % held[ap].len()].clone(), erased)
                    }
                    Step::Recode { ap, erased } => {
                        if held[ap].is_empty() {
                            continue;
                        }
                        let v = recoder.recode(&mut ap_rng[ap], held[ap].iter().map(Vec::as_slice)).to_vec();
                        (v, erased)
                    }
                };
                if erased {
                    continue;
                }
                let innovative = device.insert(&packet);
                let before = spanning.len();
                spanning.push(packet);
                let expected = reference_rank(&spanning);
                if expected == before {
                    spanning.pop();
                }
                prop_assert_eq!(device.rank(), expected);
                prop_assert_eq!(innovative, expected > before);
                prop_assert_eq!(device.is_complete(), expected == n);
            }
            let at_aps: Vec<Vec<u8>> = held.concat();
            prop_assert!(device.rank() <= reference_rank(&at_aps));
        }
    }
}
