//! Decoding: incremental Gaussian elimination with exact rank.
//!
//! The receiver of a generation of n source packets keeps the coefficient vectors it has
//! received as a basis in row echelon form: each row has a pivot column holding 1, zeros before
//! it, and no two rows share a pivot. An arriving vector v is reduced in one pass over the
//! columns, left to right: at a column j where v is nonzero and some row has its pivot,
//! v ← v + v_j·row (subtraction is addition in characteristic 2), which clears v_j and changes
//! only columns after j. The first nonzero column without a pivot makes v innovative: scaled so
//! that column holds 1, it joins the basis there, and the pass stops (the rows after it in
//! column order have zeros in that column, so the basis stays in echelon form). If no such
//! column exists, v has become zero: it lies in the span of what was received and is not
//! counted. The rank is the number of rows; the sources can be recovered exactly when it is n.
//!
//! Cost per arriving vector: Σ (n − j) byte multiply-adds over the pivot columns j where v is
//! nonzero before the first free column — r·n − r²/2 at rank r for random vectors, whose pivots
//! are the first r columns (n³/3 over a generation) — and O(1) once the rank is n. Rows live in
//! one vector reused across generations ([`RankDecoder::reset`]), so nothing is allocated per
//! vector after the first generation of the largest size.
//!
//! The same elimination carries a payload along with each row ([`super::payload`]): rows are
//! `width` bytes, the first n are coefficients (the only pivot candidates), the rest ride along.

use super::gf256;

/// Marks a column without a pivot row.
const NO_ROW: u32 = u32::MAX;

/// A basis in row echelon form over the first `n` columns of `width`-byte rows.
#[derive(Clone, Debug)]
pub(super) struct Echelon {
    /// Coefficient columns: the pivot candidates.
    n: usize,
    /// Bytes per row: the n coefficients, then the bytes carried along.
    width: usize,
    /// The basis, `width` bytes per row, in arrival order.
    rows: Vec<u8>,
    /// Column → the row whose pivot it is, or NO_ROW.
    pivot_row: Vec<u32>,
    rank: usize,
    /// The vector being reduced.
    scratch: Vec<u8>,
}

impl Echelon {
    pub(super) fn new(n: usize, width: usize) -> Echelon {
        let mut echelon =
            Echelon { n: 0, width: 0, rows: Vec::new(), pivot_row: Vec::new(), rank: 0, scratch: Vec::new() };
        echelon.reset(n, width);
        echelon
    }

    /// Empties the basis for a generation of `n` sources and rows of `width` ≥ n bytes, keeping
    /// the buffers.
    pub(super) fn reset(&mut self, n: usize, width: usize) {
        assert!(width >= n, "rows of {width} bytes cannot hold {n} coefficients");
        self.n = n;
        self.width = width;
        self.rows.clear();
        self.pivot_row.clear();
        self.pivot_row.resize(n, NO_ROW);
        self.rank = 0;
    }

    pub(super) fn n(&self) -> usize {
        self.n
    }

    pub(super) fn rank(&self) -> usize {
        self.rank
    }

    /// Reduces the row `coefficients ‖ carried` against the basis and adds it if it is
    /// innovative; returns whether it was. Panics if the lengths do not match the basis.
    pub(super) fn insert(&mut self, coefficients: &[u8], carried: &[u8]) -> bool {
        assert_eq!(coefficients.len(), self.n, "a coefficient vector of the wrong length");
        assert_eq!(carried.len(), self.width - self.n, "a payload of the wrong length");
        if self.rank == self.n {
            return false;
        }
        let w = self.width;
        self.scratch.clear();
        self.scratch.extend_from_slice(coefficients);
        self.scratch.extend_from_slice(carried);
        for col in 0..self.n {
            let c = self.scratch[col];
            if c == 0 {
                continue;
            }
            let row = self.pivot_row[col];
            if row == NO_ROW {
                gf256::scale_slice(&mut self.scratch[col..], gf256::inv(c));
                if self.rows.capacity() < self.n * w {
                    // One allocation for the whole generation instead of doubling steps.
                    self.rows.reserve_exact(self.n * w - self.rows.len());
                }
                self.rows.extend_from_slice(&self.scratch);
                self.pivot_row[col] = self.rank as u32;
                self.rank += 1;
                return true;
            }
            let start = row as usize * w;
            gf256::mul_add_slice(&mut self.scratch[col..], c, &self.rows[start + col..start + w]);
        }
        false
    }

    /// Turns a full-rank basis into the identity on the coefficient columns (back-substitution),
    /// so that the row with pivot j is the unit vector e_j and carries source j. Panics below
    /// full rank.
    pub(super) fn reduce_to_identity(&mut self) {
        assert_eq!(self.rank, self.n, "back-substitution needs full rank");
        let w = self.width;
        for col in (0..self.n).rev() {
            let pivot = self.pivot_row[col] as usize;
            for earlier in 0..col {
                let target = self.pivot_row[earlier] as usize;
                let c = self.rows[target * w + col];
                if c != 0 {
                    let (dst, src) = row_pair(&mut self.rows, w, target, pivot);
                    gf256::mul_add_slice(&mut dst[col..], c, &src[col..]);
                }
            }
        }
    }

    /// What row `row` carries after its n coefficients.
    pub(super) fn carried(&self, row: usize) -> &[u8] {
        &self.rows[row * self.width + self.n..(row + 1) * self.width]
    }

    /// The row whose pivot is column `col`, if any.
    pub(super) fn pivot_row(&self, col: usize) -> Option<usize> {
        let row = self.pivot_row[col];
        (row != NO_ROW).then_some(row as usize)
    }

    #[cfg(test)]
    fn rows_capacity(&self) -> usize {
        self.rows.capacity()
    }
}

/// Row `dst` for writing and row `src` for reading, of `width`-byte rows; dst ≠ src.
fn row_pair(rows: &mut [u8], width: usize, dst: usize, src: usize) -> (&mut [u8], &[u8]) {
    if dst < src {
        let (head, tail) = rows.split_at_mut(src * width);
        (&mut head[dst * width..(dst + 1) * width], &tail[..width])
    } else {
        let (head, tail) = rows.split_at_mut(dst * width);
        (&mut tail[..width], &head[src * width..(src + 1) * width])
    }
}

/// The receiver of one generation: counts the rank of the coefficient vectors received.
///
/// ```
/// use mmtcp::coding::RankDecoder;
/// let mut decoder = RankDecoder::new(2);
/// assert!(decoder.insert(&[1, 2]));
/// assert!(!decoder.insert(&[2, 4]), "2·(1, 2): dependent");
/// assert!(decoder.insert(&[0, 1]));
/// assert!(decoder.is_complete());
/// ```
#[derive(Clone, Debug)]
pub struct RankDecoder {
    basis: Echelon,
}

impl RankDecoder {
    /// A decoder for a generation of `n` source packets.
    pub fn new(n: usize) -> RankDecoder {
        RankDecoder { basis: Echelon::new(n, n) }
    }

    /// Starts a new generation of `n` sources; the buffers are kept, so a decoder reused for
    /// generations of at most the largest n seen allocates nothing.
    pub fn reset(&mut self, n: usize) {
        self.basis.reset(n, n);
    }

    /// Adds a received coefficient vector (n bytes); true if it was innovative (raised the
    /// rank). Once the rank is n this returns false at once. Panics on a vector of another
    /// length.
    pub fn insert(&mut self, coefficients: &[u8]) -> bool {
        self.basis.insert(coefficients, &[])
    }

    /// Linearly independent vectors received so far.
    pub fn rank(&self) -> usize {
        self.basis.rank()
    }

    /// The generation's number of source packets, n.
    pub fn source_count(&self) -> usize {
        self.basis.n()
    }

    /// True when the rank is n: the sources can be recovered.
    pub fn is_complete(&self) -> bool {
        self.basis.rank() == self.basis.n()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::encoder::draw_coefficients;
    use crate::sim::Rng;

    fn unit(n: usize, j: usize) -> Vec<u8> {
        let mut v = vec![0; n];
        v[j] = 1;
        v
    }

    fn random_vectors(rng: &mut Rng, n: usize, count: usize) -> Vec<Vec<u8>> {
        (0..count)
            .map(|_| {
                let mut v = vec![0; n];
                draw_coefficients(rng, &mut v);
                v
            })
            .collect()
    }

    /// Σ weights[i]·vectors[i].
    fn combination(weights: &[u8], vectors: &[Vec<u8>]) -> Vec<u8> {
        let mut out = vec![0; vectors[0].len()];
        gf256::linear_combination(weights, vectors.iter().map(Vec::as_slice), &mut out);
        out
    }

    #[test]
    fn test_rank_counts_only_innovative_vectors() {
        let mut d = RankDecoder::new(4);
        assert!(d.insert(&unit(4, 2)));
        assert!(d.insert(&[0, 3, 7, 0]));
        assert_eq!(d.rank(), 2);
        assert!(!d.insert(&[0, 3, 7 ^ 5, 0]), "(0, 3, 7, 0) + 5·e₂");
        assert!(!d.insert(&[0, 0, 9, 0]), "a multiple of an earlier vector");
        assert!(!d.insert(&[0, 0, 0, 0]), "the zero vector");
        assert!(!d.insert(&[0, 3, 7, 0]), "a repeat");
        assert_eq!(d.rank(), 2);
        assert!(d.insert(&[1, 1, 1, 1]));
        assert!(!d.is_complete());
        assert!(d.insert(&[0, 0, 0, 5]));
        assert!(d.is_complete());
        assert_eq!((d.rank(), d.source_count()), (4, 4));
    }

    #[test]
    fn test_combinations_of_received_vectors_are_never_counted() {
        let mut rng = Rng::for_component(1, "test/decoder");
        for n in [1, 2, 5, 16, 40] {
            let received = random_vectors(&mut rng, n, n.saturating_sub(2).max(1));
            let mut d = RankDecoder::new(n);
            for v in &received {
                d.insert(v);
            }
            let rank = d.rank();
            for _ in 0..50 {
                let mut weights = vec![0; received.len()];
                draw_coefficients(&mut rng, &mut weights);
                assert!(!d.insert(&combination(&weights, &received)), "n {n}: a combination counted");
            }
            assert_eq!(d.rank(), rank, "n {n}");
        }
    }

    #[test]
    fn test_a_new_direction_is_innovative_in_every_column() {
        // Vectors with a zero in column `free` span nothing outside that hyperplane: a
        // combination of them is dependent, the same plus c·e_free (c ≠ 0) is innovative.
        let mut rng = Rng::for_component(2, "test/decoder");
        let n = 9;
        for free in 0..n {
            let mut received = random_vectors(&mut rng, n, n - 1);
            received.iter_mut().for_each(|v| v[free] = 0);
            let mut d = RankDecoder::new(n);
            received.iter().for_each(|v| {
                d.insert(v);
            });
            let mut weights = vec![0; n - 1];
            draw_coefficients(&mut rng, &mut weights);
            let mut v = combination(&weights, &received);
            assert!(!d.insert(&v), "column {free}: a combination counted");
            v[free] = 1 + rng.below(255) as u8;
            assert!(d.insert(&v), "column {free}: a new direction not counted");
        }
    }

    #[test]
    fn test_full_rank_then_every_vector_is_ignored() {
        let mut rng = Rng::for_component(3, "test/decoder");
        let mut d = RankDecoder::new(6);
        for j in 0..6 {
            assert!(d.insert(&unit(6, 5 - j)));
        }
        assert!(d.is_complete());
        for v in random_vectors(&mut rng, 6, 20) {
            assert!(!d.insert(&v));
        }
        assert_eq!(d.rank(), 6);
    }

    #[test]
    fn test_random_vectors_reach_full_rank_with_probability_0_996() {
        // P(n uniform vectors over GF(256) are independent) = Π_{i=1..n} (1 − 256⁻ⁱ) → 0.99608;
        // leaving out the zero vector changes it by less than 10⁻¹⁰ for n = 12. A decoder that
        // counted packets would reach 1, one that lost rank would fall below.
        let mut rng = Rng::for_component(4, "test/decoder");
        let (n, cohorts) = (12, 40_000);
        let mut d = RankDecoder::new(n);
        let mut v = vec![0; n];
        let mut full = 0;
        for _ in 0..cohorts {
            d.reset(n);
            for _ in 0..n {
                draw_coefficients(&mut rng, &mut v);
                d.insert(&v);
            }
            assert!(d.rank() >= n - 2, "rank {} after {n} random vectors", d.rank());
            full += usize::from(d.is_complete());
        }
        let p = 0.996_078_491;
        let expected_failures = (1.0 - p) * cohorts as f64; // 157
        let sigma = (expected_failures * p).sqrt(); // 12.5
        let failures = (cohorts - full) as f64;
        assert!(
            (failures - expected_failures).abs() < 5.0 * sigma,
            "{failures} of {cohorts} cohorts short of full rank, expected {expected_failures:.0}"
        );
    }

    #[test]
    fn test_reset_forgets_the_basis_and_keeps_the_buffer() {
        let mut rng = Rng::for_component(5, "test/decoder");
        let vectors = random_vectors(&mut rng, 30, 30);
        let mut d = RankDecoder::new(30);
        vectors.iter().for_each(|v| {
            d.insert(v);
        });
        let capacity = d.basis.rows_capacity();
        assert_eq!(capacity, 30 * 30, "one allocation of the whole generation");
        d.reset(20);
        assert_eq!((d.rank(), d.source_count()), (0, 20));
        assert!(d.insert(&vectors[0][..20]), "the old rows are gone");
        d.reset(30);
        assert!(vectors.iter().take(5).all(|v| d.insert(v)));
        assert_eq!(d.basis.rows_capacity(), capacity);
    }

    #[test]
    #[should_panic(expected = "wrong length")]
    fn test_vector_of_the_wrong_length_panics() {
        RankDecoder::new(4).insert(&[1, 2, 3]);
    }

    /// Wall time per inserted vector for generations of 32, 128 and 256 sources (not a timing
    /// assertion): `cargo test -p mmtcp --release --lib coding::decoder -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn bench_ns_per_vector() {
        use std::hint::black_box;
        use std::time::Instant;
        let mut rng = Rng::for_component(6, "bench/decoder");
        for n in [32, 128, 256] {
            let cohorts = (4_000_000 / (n * n)).max(4);
            let vectors = random_vectors(&mut rng, n, n + 4);
            let mut d = RankDecoder::new(n);
            // Best of five: the machine is shared.
            let (mut filling, mut dependent, mut after) = (f64::MAX, f64::MAX, f64::MAX);
            for _ in 0..5 {
                let start = Instant::now();
                for _ in 0..cohorts {
                    d.reset(n);
                    for v in &vectors[..n] {
                        black_box(d.insert(black_box(v)));
                    }
                }
                filling = filling.min(start.elapsed().as_nanos() as f64 / (cohorts * n) as f64);
                // A vector in the span of n − 1 rows: reduced over every column, then discarded.
                d.reset(n);
                vectors[..n - 1].iter().for_each(|v| {
                    d.insert(v);
                });
                let repeat = combination(&vectors[n - 1][..n - 1], &vectors[..n - 1]);
                let start = Instant::now();
                for _ in 0..cohorts * 16 {
                    black_box(d.insert(black_box(&repeat)));
                }
                dependent = dependent.min(start.elapsed().as_nanos() as f64 / (cohorts * 16) as f64);
                d.insert(&vectors[n]);
                let start = Instant::now();
                for _ in 0..cohorts * 1000 {
                    black_box(d.insert(black_box(&vectors[n + 1])));
                }
                after = after.min(start.elapsed().as_nanos() as f64 / (cohorts * 1000) as f64);
            }
            println!(
                "n = {n:3}: {filling:8.0} ns per vector while filling a generation, \
                 {dependent:8.0} ns per dependent vector at rank n − 1, {after:5.1} ns after full rank"
            );
        }
        let mut dst = vec![0u8; 256];
        let src: Vec<u8> = (0..=255u8).collect();
        let start = Instant::now();
        for i in 0..1_000_000u32 {
            gf256::mul_add_slice(black_box(&mut dst), (i % 255 + 1) as u8, black_box(&src));
        }
        println!("mul_add_slice: {:.3} ns per byte", start.elapsed().as_nanos() as f64 / 256e6);
    }
}
