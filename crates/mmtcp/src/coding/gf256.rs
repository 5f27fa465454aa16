//! The field GF(2⁸) = GF(2)[x] / (x⁸ + x⁴ + x³ + x² + 1): bytes with XOR as addition and the
//! product of polynomials modulo the primitive polynomial 0x11D as multiplication.
//!
//! A byte b₇…b₀ is the polynomial Σ bⱼ·xʲ. The polynomial is primitive, so α = x (the byte 2)
//! generates the multiplicative group: every nonzero a is αᵏ for one k in 0..255. Products come
//! from a 256 × 256 table (64 KiB) computed at compile time from the powers of α; an inverse from
//! a 256-byte table.
//!
//! The slice operations carry the codec's cost. `dst[i] ^= c·src[i]` uses that multiplication by
//! a constant c is linear over GF(2): c·x = ⊕ⱼ xⱼ·(c·αʲ) for the bits xⱼ of x. With the eight
//! bytes c·αʲ read once per call, a product is eight mask-and-XOR steps on whole bytes, which
//! the compiler turns into 16-byte vector code with only the baseline x86-64 instructions (SSE2)
//! and no `unsafe`; the last `len mod 16` bytes use c's row of the table. On rows of 128 bytes
//! and more that is about 1.6 times as fast as one table lookup per byte, and no slower on rows of
//! 32 (the comparison is in docs/models/network-coding.md). On x86-64 processors with AVX2,
//! `mul_add_slice` instead uses the split-nibble method of Plank, Greenan and Miller ("Screaming
//! fast Galois field arithmetic using Intel SIMD instructions", FAST 2013): c·x = c·(x & 0x0F) ⊕
//! c·(x & 0xF0), each half looked up in a 16-entry table with one byte shuffle over 32 bytes at a
//! time. It needs runtime feature detection and `unsafe` for the unaligned loads and stores (the
//! [`avx2`] module, each block with its justification); the products are the same bytes either
//! way, so results do not depend on the machine (tests compare both paths on every c).

/// The primitive polynomial x⁸ + x⁴ + x³ + x² + 1 (also Reed–Solomon's in QR codes and RAID-6).
pub const POLYNOMIAL: u16 = 0x11D;

/// Order of the multiplicative group: 2⁸ − 1 nonzero elements.
const GROUP_ORDER: usize = 255;

/// αᵏ for k in 0..510: twice the period, so exp[log a + log b] needs no reduction modulo 255.
const EXP: [u8; 2 * GROUP_ORDER] = exp_table();
/// log_α(a) for a ≠ 0; LOG[0] is unused (0 is no power of α).
const LOG: [u8; 256] = log_table();
/// PRODUCT[a][b] = a·b.
static PRODUCT: [[u8; 256]; 256] = product_table();
/// INVERSE[a]·a = 1 for a ≠ 0; INVERSE[0] is unused.
static INVERSE: [u8; 256] = inverse_table();

const fn exp_table() -> [u8; 2 * GROUP_ORDER] {
    let mut table = [0u8; 2 * GROUP_ORDER];
    let mut power: u16 = 1;
    let mut k = 0;
    while k < 2 * GROUP_ORDER {
        table[k] = power as u8;
        // Multiply by α = x: shift, then reduce x⁸ by the polynomial.
        power <<= 1;
        if power & 0x100 != 0 {
            power ^= POLYNOMIAL;
        }
        k += 1;
    }
    table
}

const fn log_table() -> [u8; 256] {
    let exp = exp_table();
    let mut table = [0u8; 256];
    let mut k = 0;
    while k < GROUP_ORDER {
        table[exp[k] as usize] = k as u8;
        k += 1;
    }
    table
}

const fn product_table() -> [[u8; 256]; 256] {
    let mut table = [[0u8; 256]; 256];
    let mut a = 1;
    while a < 256 {
        let mut b = 1;
        while b < 256 {
            table[a][b] = EXP[LOG[a] as usize + LOG[b] as usize];
            b += 1;
        }
        a += 1;
    }
    table
}

const fn inverse_table() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut a = 1;
    while a < 256 {
        // α^(255 − k) · α^k = α^255 = 1.
        table[a] = EXP[GROUP_ORDER - LOG[a] as usize];
        a += 1;
    }
    table
}

/// a·b.
#[inline]
pub fn mul(a: u8, b: u8) -> u8 {
    PRODUCT[a as usize][b as usize]
}

/// The inverse of a nonzero `a`. Panics on 0, which has none.
#[inline]
pub fn inv(a: u8) -> u8 {
    assert!(a != 0, "0 has no inverse in GF(2^8)");
    INVERSE[a as usize]
}

/// a / b for a nonzero `b`. Panics on b = 0.
#[inline]
pub fn div(a: u8, b: u8) -> u8 {
    mul(a, inv(b))
}

/// Bytes handled by one pass of the vectorised loops: one SSE2 register.
const CHUNK_BYTES: usize = 16;

/// c·αʲ for j = 0..8: the images of the bits of x under multiplication by c.
#[inline]
fn images_of_bits(c: u8) -> [u8; 8] {
    let row = &PRODUCT[c as usize];
    [row[1], row[2], row[4], row[8], row[16], row[32], row[64], row[128]]
}

/// c·x as ⊕ⱼ xⱼ·(c·αʲ), branch-free so that a loop over bytes vectorises.
#[inline(always)]
fn mul_by_bits(x: u8, images: &[u8; 8]) -> u8 {
    let mut product = 0;
    for (j, &image) in images.iter().enumerate() {
        // Bit j of x moved to the sign bit, then spread over the byte: 0x00 or 0xFF.
        let mask = (((x << (7 - j)) as i8) >> 7) as u8;
        product ^= mask & image;
    }
    product
}

/// dst[i] ^= c·src[i]: adds c times `src` to `dst`. Panics if the lengths differ.
pub fn mul_add_slice(dst: &mut [u8], c: u8, src: &[u8]) {
    assert_eq!(dst.len(), src.len(), "mul_add_slice over slices of different lengths");
    #[cfg(target_arch = "x86_64")]
    if c > 1 && dst.len() >= avx2::CHUNK && avx2::available() {
        let done = avx2::mul_add(dst, c, src);
        mul_add_portable(&mut dst[done..], c, &src[done..]);
        return;
    }
    mul_add_portable(dst, c, src);
}

/// [`mul_add_slice`] with the baseline instructions only.
fn mul_add_portable(dst: &mut [u8], c: u8, src: &[u8]) {
    match c {
        0 => {}
        1 => dst.iter_mut().zip(src).for_each(|(d, s)| *d ^= s),
        _ => {
            let images = images_of_bits(c);
            let mut dst_chunks = dst.chunks_exact_mut(CHUNK_BYTES);
            let mut src_chunks = src.chunks_exact(CHUNK_BYTES);
            for (d, s) in (&mut dst_chunks).zip(&mut src_chunks) {
                d.iter_mut().zip(s).for_each(|(d, &s)| *d ^= mul_by_bits(s, &images));
            }
            let row = &PRODUCT[c as usize];
            for (d, &s) in dst_chunks.into_remainder().iter_mut().zip(src_chunks.remainder()) {
                *d ^= row[s as usize];
            }
        }
    }
}

/// The split-nibble kernel on AVX2 (see the module header).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use core::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_loadu_si256, _mm256_set1_epi8, _mm256_shuffle_epi8,
        _mm256_srli_epi64, _mm256_storeu_si256, _mm256_xor_si256,
    };
    use std::sync::OnceLock;

    /// Bytes per step: one 256-bit register.
    pub(super) const CHUNK: usize = 32;

    /// NIBBLES[c] = (c·x for x in 0..16, c·(x << 4) for x in 0..16), each repeated for both
    /// 128-bit lanes (the shuffle looks up within a lane).
    static NIBBLES: [[[u8; CHUNK]; 2]; 256] = nibble_tables();

    const fn nibble_tables() -> [[[u8; CHUNK]; 2]; 256] {
        let product = super::product_table();
        let mut tables = [[[0u8; CHUNK]; 2]; 256];
        let mut c = 0;
        while c < 256 {
            let mut x = 0;
            while x < 16 {
                tables[c][0][x] = product[c][x];
                tables[c][0][x + 16] = product[c][x];
                tables[c][1][x] = product[c][x << 4];
                tables[c][1][x + 16] = product[c][x << 4];
                x += 1;
            }
            c += 1;
        }
        tables
    }

    /// Whether this processor has AVX2 (asked once).
    pub(super) fn available() -> bool {
        static HAS: OnceLock<bool> = OnceLock::new();
        *HAS.get_or_init(|| std::arch::is_x86_feature_detected!("avx2"))
    }

    /// dst[i] ^= c·src[i] over the whole 32-byte chunks; returns how many bytes it did. Call only
    /// where [`available`] holds.
    pub(super) fn mul_add(dst: &mut [u8], c: u8, src: &[u8]) -> usize {
        assert!(available(), "the AVX2 kernel needs AVX2");
        // SAFETY: the processor has AVX2 (asserted above), the only requirement of `kernel`.
        unsafe { kernel(dst, c, src) }
    }

    #[target_feature(enable = "avx2")]
    fn kernel(dst: &mut [u8], c: u8, src: &[u8]) -> usize {
        let [low, high] = &NIBBLES[c as usize];
        // SAFETY: each load reads 32 bytes from a 32-byte array.
        let (low, high) =
            unsafe { (_mm256_loadu_si256(low.as_ptr().cast()), _mm256_loadu_si256(high.as_ptr().cast())) };
        let mask = _mm256_set1_epi8(0x0F);
        let mut done = 0;
        for (d, s) in dst.chunks_exact_mut(CHUNK).zip(src.chunks_exact(CHUNK)) {
            // SAFETY: `s` and `d` are 32-byte chunks; unaligned loads and stores are allowed.
            let (x, acc): (__m256i, __m256i) =
                unsafe { (_mm256_loadu_si256(s.as_ptr().cast()), _mm256_loadu_si256(d.as_ptr().cast())) };
            let lo = _mm256_shuffle_epi8(low, _mm256_and_si256(x, mask));
            let hi = _mm256_shuffle_epi8(high, _mm256_and_si256(_mm256_srli_epi64::<4>(x), mask));
            let sum = _mm256_xor_si256(acc, _mm256_xor_si256(lo, hi));
            // SAFETY: as the loads above.
            unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), sum) };
            done += CHUNK;
        }
        done
    }
}

/// dst[i] = c·dst[i].
pub fn scale_slice(dst: &mut [u8], c: u8) {
    match c {
        0 => dst.fill(0),
        1 => {}
        _ => {
            let images = images_of_bits(c);
            let mut chunks = dst.chunks_exact_mut(CHUNK_BYTES);
            for d in &mut chunks {
                d.iter_mut().for_each(|d| *d = mul_by_bits(*d, &images));
            }
            let row = &PRODUCT[c as usize];
            chunks.into_remainder().iter_mut().for_each(|d| *d = row[*d as usize]);
        }
    }
}

/// out = Σᵢ weights[i]·rows[i]: the linear combination of equal-length `rows` (as many as there
/// are weights) with the given weights. Panics if a row's length differs from `out`'s or the
/// counts differ.
pub fn linear_combination<'a>(weights: &[u8], rows: impl IntoIterator<Item = &'a [u8]>, out: &mut [u8]) {
    out.fill(0);
    let mut count = 0;
    for (&w, row) in weights.iter().zip(rows) {
        mul_add_slice(out, w, row);
        count += 1;
    }
    assert_eq!(count, weights.len(), "fewer rows than weights");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// a·b computed the long way: carry-less multiplication, then reduction by the polynomial —
    /// independent of the tables.
    fn reference_mul(a: u8, b: u8) -> u8 {
        let mut product: u16 = 0;
        for j in 0..8 {
            if b >> j & 1 == 1 {
                product ^= (a as u16) << j;
            }
        }
        for bit in (8..16).rev() {
            if product >> bit & 1 == 1 {
                product ^= POLYNOMIAL << (bit - 8);
            }
        }
        product as u8
    }

    #[test]
    fn test_product_table_matches_long_multiplication() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                assert_eq!(mul(a, b), reference_mul(a, b), "{a}·{b}");
            }
        }
    }

    #[test]
    fn test_known_products_of_polynomial_0x11d() {
        // x·x⁷ = x⁸ = x⁴ + x³ + x² + 1.
        assert_eq!(mul(2, 128), 0x1D);
        assert_eq!(mul(128, 2), 0x1D);
        // The published log table of this field (QR codes, ISO/IEC 18004): α²⁵ = 3, α⁵⁰ = 5,
        // α¹⁹⁸ = 7, and α⁸..α¹⁵ = 29, 58, 116, 232, 205, 135, 19, 38.
        assert_eq!((LOG[3], LOG[5], LOG[7]), (25, 50, 198));
        assert_eq!(EXP[8..16], [29, 58, 116, 232, 205, 135, 19, 38]);
        assert_eq!(mul(3, 3), 5, "(x + 1)² = x² + 1");
        assert_eq!(mul(0x80, 0x80), EXP[14], "α⁷·α⁷ = α¹⁴");
    }

    #[test]
    fn test_alpha_generates_all_255_nonzero_elements() {
        let mut seen = [false; 256];
        for &power in &EXP[..GROUP_ORDER] {
            assert!(!seen[power as usize], "α has order below 255: {power} repeats");
            seen[power as usize] = true;
        }
        assert!(!seen[0] && seen[1..].iter().all(|&s| s));
        assert_eq!(EXP[GROUP_ORDER], 1, "α²⁵⁵ = 1");
    }

    #[test]
    fn test_field_axioms_hold_for_all_elements() {
        for a in 0..=255u8 {
            assert_eq!(mul(a, 1), a, "1 is the identity");
            assert_eq!(mul(a, 0), 0);
            for b in 0..=255u8 {
                let ab = mul(a, b);
                assert_eq!(ab, mul(b, a), "commutativity at {a}, {b}");
                assert_eq!(ab == 0, a == 0 || b == 0, "no zero divisors: {a}·{b} = {ab}");
                for c in 0..=255u8 {
                    assert_eq!(mul(ab, c), mul(a, mul(b, c)), "associativity at {a}, {b}, {c}");
                    assert_eq!(mul(a, b ^ c), ab ^ mul(a, c), "distributivity at {a}, {b}, {c}");
                }
            }
        }
    }

    #[test]
    fn test_every_nonzero_element_has_one_inverse() {
        for a in 1..=255u8 {
            let inverses: Vec<u8> = (0..=255u8).filter(|&b| mul(a, b) == 1).collect();
            assert_eq!(inverses, [inv(a)], "the inverses of {a}");
            for b in 0..=255u8 {
                assert_eq!(mul(div(b, a), a), b, "({b}/{a})·{a}");
            }
        }
        assert_eq!(inv(1), 1);
        assert_eq!(inv(2), 0x8E, "x·(x⁷ + x³ + x² + x) = x⁸ + x⁴ + x³ + x² = 1");
    }

    #[test]
    #[should_panic(expected = "0 has no inverse")]
    fn test_inverse_of_zero_panics() {
        inv(0);
    }

    /// Lengths that cover an empty slice, tails alone, whole chunks and chunks with tails, at
    /// offsets that misalign the chunks.
    const LENGTHS: [usize; 9] = [0, 1, 7, 15, 16, 17, 31, 48, 300];

    #[test]
    fn test_slice_operations_agree_with_scalar_products() {
        let src: Vec<u8> = (0..320).map(|i| (i * 37 + 11) as u8).collect();
        let before: Vec<u8> = (0..320).map(|i| (i * 91 + 3) as u8).collect();
        for c in 0..=255u8 {
            for len in LENGTHS {
                for offset in [0, 5] {
                    let (s, d) = (&src[offset..offset + len], &before[..len]);
                    let mut dst = d.to_vec();
                    mul_add_slice(&mut dst, c, s);
                    let expected: Vec<u8> = d.iter().zip(s).map(|(&d, &s)| d ^ mul(c, s)).collect();
                    assert_eq!(dst, expected, "mul_add_slice c = {c}, len {len}, offset {offset}");

                    let mut scaled = s.to_vec();
                    scale_slice(&mut scaled, c);
                    let expected: Vec<u8> = s.iter().map(|&s| mul(c, s)).collect();
                    assert_eq!(scaled, expected, "scale_slice c = {c}, len {len}, offset {offset}");
                }
            }
        }
    }

    #[test]
    fn test_portable_and_avx2_paths_give_the_same_bytes() {
        let src: Vec<u8> = (0..300).map(|i| (i * 37 + 11) as u8).collect();
        let before: Vec<u8> = (0..300).map(|i| (i * 91 + 3) as u8).collect();
        for c in 0..=255u8 {
            for len in [32, 33, 64, 95, 300] {
                let mut portable = before[..len].to_vec();
                mul_add_portable(&mut portable, c, &src[..len]);
                let expected: Vec<u8> =
                    before[..len].iter().zip(&src).map(|(&d, &s)| d ^ reference_mul(c, s)).collect();
                assert_eq!(portable, expected, "portable, c = {c}, len {len}");
                #[cfg(target_arch = "x86_64")]
                if avx2::available() {
                    let mut vector = before[..len].to_vec();
                    let done = avx2::mul_add(&mut vector, c, &src[..len]);
                    assert_eq!(done, len / 32 * 32);
                    assert_eq!(vector[..done], expected[..done], "AVX2, c = {c}, len {len}");
                }
            }
        }
    }

    #[test]
    fn test_every_byte_value_goes_through_the_vector_path() {
        // 256 bytes = 16 whole chunks holding every value: no product left to the table tail.
        let src: Vec<u8> = (0..=255u8).collect();
        for c in 0..=255u8 {
            let mut dst = vec![0u8; 256];
            mul_add_slice(&mut dst, c, &src);
            assert!(dst.iter().zip(&src).all(|(&d, &s)| d == reference_mul(c, s)), "c = {c}");
        }
    }

    #[test]
    fn test_linear_combination_sums_weighted_rows() {
        let rows: [&[u8]; 3] = [&[1, 0, 5], &[0, 1, 7], &[2, 2, 2]];
        let mut out = [9u8; 3];
        linear_combination(&[3, 4, 0], rows, &mut out);
        assert_eq!(out, [3, 4, mul(3, 5) ^ mul(4, 7)], "the row weighted 0 adds nothing");
        linear_combination(&[], std::iter::empty(), &mut out);
        assert_eq!(out, [0, 0, 0], "no rows: the zero vector");
    }

    #[test]
    #[should_panic(expected = "fewer rows than weights")]
    fn test_linear_combination_with_missing_rows_panics() {
        let rows: [&[u8]; 1] = [&[1, 2]];
        linear_combination(&[1, 1], rows, &mut [0, 0]);
    }
}
