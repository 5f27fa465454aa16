//! The codec over real bytes, for tests and for users who want the payloads: it runs the
//! simulator's coefficient arithmetic on payloads too, which shows that the bookkeeping of
//! coefficient vectors is the real code.
//!
//! A generation is n source payloads s₁…sₙ of equal length L (pad shorter packets; a real
//! system carries the length inside the coded bytes). Encoding with coefficients g gives
//! y = Σᵢ gᵢ·sᵢ ([`encode`]); a relay recodes payloads with its [`super::Recoder::weights`] through
//! [`super::gf256::linear_combination`]. The decoder runs the rank decoder's elimination on rows
//! g ‖ y, so it accepts and rejects exactly the vectors [`super::RankDecoder`] does, and at full
//! rank back-substitution turns the coefficient part into the identity: the row with pivot j then
//! carries sⱼ.

use super::decoder::Echelon;
use super::gf256;

/// Writes the coded payload Σᵢ coefficients[i]·sources[i] into `coded`. Panics unless there is
/// one source per coefficient, each as long as `coded`.
pub fn encode<'a>(coefficients: &[u8], sources: impl IntoIterator<Item = &'a [u8]>, coded: &mut [u8]) {
    gf256::linear_combination(coefficients, sources, coded);
}

/// Collects coded payloads of one generation and recovers the sources at full rank.
#[derive(Clone, Debug)]
pub struct PayloadDecoder {
    basis: Echelon,
    /// True once the basis has been reduced to the identity.
    solved: bool,
}

impl PayloadDecoder {
    /// A decoder for `n` sources of `payload_len` bytes each.
    pub fn new(n: usize, payload_len: usize) -> PayloadDecoder {
        PayloadDecoder { basis: Echelon::new(n, n + payload_len), solved: false }
    }

    /// Adds a coded packet; true if it was innovative. Panics on lengths other than the
    /// decoder's.
    pub fn insert(&mut self, coefficients: &[u8], payload: &[u8]) -> bool {
        self.basis.insert(coefficients, payload)
    }

    pub fn rank(&self) -> usize {
        self.basis.rank()
    }

    pub fn is_complete(&self) -> bool {
        self.basis.rank() == self.basis.n()
    }

    /// The n source payloads in source order, or `None` below full rank. The first call at full
    /// rank solves the system (about n²·(n + L)/2 byte operations).
    pub fn decode(&mut self) -> Option<Vec<&[u8]>> {
        if !self.is_complete() {
            return None;
        }
        if !self.solved {
            self.basis.reduce_to_identity();
            self.solved = true;
        }
        let basis = &self.basis;
        Some((0..basis.n()).map(|j| basis.carried(basis.pivot_row(j).expect("full rank"))).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::decoder::RankDecoder;
    use crate::coding::encoder::draw_coefficients;
    use crate::coding::recoder::Recoder;
    use crate::sim::Rng;
    use proptest::prelude::*;

    /// A coded packet: its coefficient vector and payload.
    #[derive(Clone, Debug)]
    struct Coded {
        coefficients: Vec<u8>,
        payload: Vec<u8>,
    }

    fn random_bytes(rng: &mut Rng, len: usize) -> Vec<u8> {
        (0..len).map(|_| rng.next_u64() as u8).collect()
    }

    fn encode_one(rng: &mut Rng, sources: &[Vec<u8>]) -> Coded {
        let mut coefficients = vec![0; sources.len()];
        draw_coefficients(rng, &mut coefficients);
        let mut payload = vec![0; sources[0].len()];
        encode(&coefficients, sources.iter().map(Vec::as_slice), &mut payload);
        Coded { coefficients, payload }
    }

    fn recode(recoder: &mut Recoder, rng: &mut Rng, held: &[Coded]) -> Coded {
        let coefficients = recoder.recode(rng, held.iter().map(|c| c.coefficients.as_slice())).to_vec();
        let mut payload = vec![0; held[0].payload.len()];
        gf256::linear_combination(recoder.weights(), held.iter().map(|c| c.payload.as_slice()), &mut payload);
        Coded { coefficients, payload }
    }

    #[test]
    fn test_payloads_round_trip_through_a_recoding_relay() {
        let mut rng = Rng::for_component(1, "test/payload");
        let (n, len) = (20, 1200);
        let sources: Vec<Vec<u8>> = (0..n).map(|_| random_bytes(&mut rng, len)).collect();
        // The gateway sends 30 coded packets; the relay gets those not erased (1 in 3 is) and
        // sends 25 recodings of what it holds so far.
        let sent: Vec<Coded> = (0..30).map(|_| encode_one(&mut rng, &sources)).collect();
        let held: Vec<Coded> = sent.into_iter().filter(|_| !rng.bernoulli(1.0 / 3.0)).collect();
        assert!(held.len() >= n, "the test needs the relay to hold n packets");
        let mut recoder = Recoder::new();
        let mut decoder = PayloadDecoder::new(n, len);
        for k in 0..25 {
            let upto = (k + 1).min(held.len());
            let packet = recode(&mut recoder, &mut rng, &held[..upto]);
            decoder.insert(&packet.coefficients, &packet.payload);
        }
        let decoded = decoder.decode().expect("25 recodings of ≥ 20 held packets reach rank 20");
        assert_eq!(decoded.len(), n);
        for (j, source) in sources.iter().enumerate() {
            assert_eq!(decoded[j], source.as_slice(), "source {j}");
        }
    }

    #[test]
    fn test_decode_is_none_below_full_rank_and_stable_after() {
        let mut rng = Rng::for_component(2, "test/payload");
        let sources: Vec<Vec<u8>> = (0..3).map(|_| random_bytes(&mut rng, 5)).collect();
        let mut decoder = PayloadDecoder::new(3, 5);
        let a = encode_one(&mut rng, &sources);
        decoder.insert(&a.coefficients, &a.payload);
        assert!(!decoder.insert(&a.coefficients, &a.payload), "a repeat");
        assert_eq!(decoder.decode(), None);
        while !decoder.is_complete() {
            let c = encode_one(&mut rng, &sources);
            decoder.insert(&c.coefficients, &c.payload);
        }
        let first: Vec<Vec<u8>> = decoder.decode().unwrap().iter().map(|s| s.to_vec()).collect();
        assert_eq!(first, sources);
        let c = encode_one(&mut rng, &sources);
        assert!(!decoder.insert(&c.coefficients, &c.payload));
        assert_eq!(decoder.decode().unwrap(), first.iter().map(Vec::as_slice).collect::<Vec<_>>());
    }

    #[test]
    fn test_systematic_packets_decode_to_themselves() {
        // Unit coefficient vectors in reverse order: the payloads are the sources themselves.
        let sources = [vec![1u8, 2], vec![3, 4], vec![5, 6]];
        let mut decoder = PayloadDecoder::new(3, 2);
        for j in (0..3).rev() {
            let mut unit = [0u8; 3];
            unit[j] = 1;
            assert!(decoder.insert(&unit, &sources[j]));
        }
        assert_eq!(decoder.decode().unwrap(), [[1, 2], [3, 4], [5, 6]]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Random generation sizes, erasures and recodings: the payload decoder's rank is the
        /// rank decoder's on the same vectors, and at full rank the bytes come back.
        #[test]
        fn test_payload_decoder_agrees_with_rank_decoder_and_recovers_bytes(
            seed in any::<u64>(),
            n in 1usize..24,
            len in 0usize..70,
            erasure in 0.0f64..0.6,
            extra in 0usize..12,
        ) {
            let mut rng = Rng::for_component(seed, "test/payload");
            let sources: Vec<Vec<u8>> = (0..n).map(|_| random_bytes(&mut rng, len)).collect();
            let mut recoder = Recoder::new();
            let mut held = Vec::new();
            let mut payloads = PayloadDecoder::new(n, len);
            let mut ranks = RankDecoder::new(n);
            for _ in 0..n + extra {
                if !rng.bernoulli(erasure) {
                    held.push(encode_one(&mut rng, &sources));
                }
                if held.is_empty() || rng.bernoulli(erasure) {
                    continue;
                }
                let packet = recode(&mut recoder, &mut rng, &held);
                let innovative = payloads.insert(&packet.coefficients, &packet.payload);
                prop_assert_eq!(innovative, ranks.insert(&packet.coefficients));
                prop_assert_eq!(payloads.rank(), ranks.rank());
            }
            if let Some(decoded) = payloads.decode() {
                for (j, source) in sources.iter().enumerate() {
                    prop_assert_eq!(decoded[j], source.as_slice(), "source {}", j);
                }
            } else {
                prop_assert!(!ranks.is_complete());
            }
        }
    }
}
