//! Encoding: drawing a coded packet's coefficient vector.
//!
//! A source (COTAG's gateway) that holds the n packets of a generation sends, for each coded
//! packet, a vector g drawn uniformly from GF(2⁸)ⁿ \ {0}; the packet's payload would be Σᵢ gᵢ·sᵢ
//! over the source payloads sᵢ ([`super::payload::encode`]). The zero vector is left out because
//! it carries nothing; the other 256ⁿ − 1 vectors are equally likely (random linear network coding,
//! Ho et al. 2006: coefficients independent and uniform over the field).
//!
//! The draws are a fixed sequence of the component's stream: `next_u64` once per 8 coefficients,
//! its bytes in little-endian order (g₀ is the low byte of the first word), the unused bytes of
//! the last word discarded; if the whole vector came out zero (probability 256⁻ⁿ), it is drawn
//! again the same way.

use crate::sim::Rng;

/// Fills `coefficients` (n ≥ 1 bytes) with a vector drawn uniformly from the nonzero vectors of
/// GF(2⁸)ⁿ, by the sequence of draws the module documents. Panics on an empty slice.
pub fn draw_coefficients(rng: &mut Rng, coefficients: &mut [u8]) {
    assert!(!coefficients.is_empty(), "a coefficient vector has at least one entry");
    loop {
        for chunk in coefficients.chunks_mut(8) {
            let word = rng.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        if coefficients.iter().any(|&c| c != 0) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(seed: u64, n: usize, count: usize) -> Vec<Vec<u8>> {
        let mut rng = Rng::for_component(seed, "node/gw/coding");
        (0..count)
            .map(|_| {
                let mut v = vec![0u8; n];
                draw_coefficients(&mut rng, &mut v);
                v
            })
            .collect()
    }

    #[test]
    fn test_draws_follow_the_documented_word_sequence() {
        let mut words = Rng::for_component(3, "node/gw/coding");
        let first = words.next_u64().to_le_bytes();
        let second = words.next_u64().to_le_bytes();
        let third = words.next_u64().to_le_bytes();
        let mut expected = first.to_vec();
        expected.extend_from_slice(&second[..3]);
        let vectors = draws(3, 11, 2);
        assert_eq!(vectors[0], expected, "8 bytes of the first word, 3 of the second");
        assert_eq!(vectors[1][..8], third, "the next vector starts on a fresh word");
    }

    #[test]
    fn test_draws_are_deterministic_per_seed() {
        assert_eq!(draws(7, 40, 50), draws(7, 40, 50));
        assert_ne!(draws(7, 40, 50), draws(8, 40, 50));
    }

    #[test]
    fn test_draws_are_never_zero_and_uniform_over_nonzero_vectors() {
        // n = 1: the word's low byte is 0 once in 256 draws, and the vector must be redrawn.
        let singles = draws(5, 1, 256_000);
        let mut counts = [0u32; 256];
        singles.iter().for_each(|v| counts[v[0] as usize] += 1);
        assert_eq!(counts[0], 0, "a zero vector was drawn");
        // 1004 expected per nonzero value, standard deviation about 32: allow 5 of them.
        for (value, &count) in counts.iter().enumerate().skip(1) {
            assert!((845..=1163).contains(&count), "value {value} drawn {count} times");
        }
        // n = 37: the bytes are uniform over the field (1012 expected per value, σ ≈ 32).
        let mut counts = [0u32; 256];
        draws(6, 37, 7_000).iter().flatten().for_each(|&c| counts[c as usize] += 1);
        for (value, &count) in counts.iter().enumerate() {
            assert!((852..=1172).contains(&count), "value {value} drawn {count} times of 259 000");
        }
    }

    #[test]
    #[should_panic(expected = "at least one entry")]
    fn test_empty_vector_panics() {
        draw_coefficients(&mut Rng::for_component(1, "c"), &mut []);
    }
}
