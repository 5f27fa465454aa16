//! A log-bucketed histogram for latencies: bounded memory, O(1) record, bounded relative error.
//!
//! Values are non-negative integers (picoseconds here). Values below 2^SUB_BITS get a bucket
//! each; above, each power-of-two range [2^e, 2^(e+1)) is split into 2^SUB_BITS equal buckets —
//! the layout of HdrHistogram (Tene) with a fixed significand. With SUB_BITS = 7 a bucket spans
//! at most 1/128 of its lower bound, so a quantile is reported within 0.8 % of a value that was
//! recorded: enough for p99.999 over 10^7 samples, where the sample quantile's own noise is
//! larger. Quantiles report the bucket's midpoint; the mean is exact (a 128-bit sum).
//!
//! Memory follows use: an empty histogram holds no buckets, and a used one only the window of
//! power-of-two ranges its samples fell in (whole ranges of 2^SUB_BITS buckets, grown when a
//! sample falls outside). Latencies of 1 ms to 1 s span 10 ranges: 10 KiB, against 58 KiB for
//! every bucket — which matters with a histogram or two per flow and 10^4 flows.

const SUB_BITS: u32 = 7;
const SUB_COUNT: usize = 1 << SUB_BITS;
/// Exponent ranges above the linear region: values up to 2^64.
const RANGES: usize = 64 - SUB_BITS as usize;
const BUCKETS: usize = SUB_COUNT * (RANGES + 1);

#[derive(Clone, Debug)]
pub struct LogHistogram {
    /// Counts of buckets `first..first + counts.len()`; empty until the first sample.
    counts: Vec<u64>,
    /// The bucket `counts[0]` counts, a multiple of SUB_COUNT.
    first: usize,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for LogHistogram {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn bucket_of(value: u64) -> usize {
    if value < SUB_COUNT as u64 {
        return value as usize;
    }
    let msb = 63 - value.leading_zeros(); // ≥ SUB_BITS
    let shift = msb - SUB_BITS;
    let sub = (value >> shift) as usize - SUB_COUNT; // top SUB_BITS bits below the msb
    (shift as usize + 1) * SUB_COUNT + sub
}

/// Inclusive lower and exclusive upper bound of a bucket (as u128: the top bucket ends at 2^64).
fn bucket_bounds(index: usize) -> (u128, u128) {
    if index < SUB_COUNT {
        return (index as u128, index as u128 + 1);
    }
    let shift = (index / SUB_COUNT - 1) as u32;
    let sub = (index % SUB_COUNT) as u128;
    let low = (SUB_COUNT as u128 + sub) << shift;
    (low, low + (1u128 << shift))
}

impl LogHistogram {
    pub fn new() -> Self {
        LogHistogram { counts: Vec::new(), first: 0, count: 0, sum: 0, min: u64::MAX, max: 0 }
    }

    /// Makes the window of counted buckets include bucket `index` (whole ranges).
    fn cover(&mut self, index: usize) {
        debug_assert!(index < BUCKETS);
        let range_start = index - index % SUB_COUNT;
        if self.counts.is_empty() {
            self.first = range_start;
            self.counts.resize(SUB_COUNT, 0);
        } else if index < self.first {
            let grow = self.first - range_start;
            self.counts.splice(0..0, std::iter::repeat_n(0, grow));
            self.first = range_start;
        } else if index >= self.first + self.counts.len() {
            self.counts.resize(range_start + SUB_COUNT - self.first, 0);
        }
    }

    #[inline]
    pub fn record(&mut self, value: u64) {
        let index = bucket_of(value);
        if index < self.first || index >= self.first + self.counts.len() {
            self.cover(index);
        }
        self.counts[index - self.first] += 1;
        self.count += 1;
        self.sum += value as u128;
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / self.count as f64)
    }

    pub fn min(&self) -> Option<u64> {
        (self.count > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max)
    }

    /// The value below which a fraction `q` of the samples lie (nearest-rank), as the midpoint
    /// of its bucket clamped to the observed [min, max]. `None` when empty.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let q = q.clamp(0.0, 1.0);
        // Nearest-rank: the smallest value with at least ceil(q·n) samples at or below it.
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (low, high) = bucket_bounds(self.first + i);
                let mid = (low + (high - 1)) as f64 / 2.0;
                return Some(mid.clamp(self.min as f64, self.max as f64));
            }
        }
        unreachable!("rank {rank} exceeds the count {}", self.count)
    }

    pub fn merge(&mut self, other: &LogHistogram) {
        if let (Some(_), Some(last)) = (other.counts.first(), other.counts.len().checked_sub(1)) {
            self.cover(other.first);
            self.cover(other.first + last);
            for (i, &c) in other.counts.iter().enumerate() {
                self.counts[other.first + i - self.first] += c;
            }
        }
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn empty_histogram_has_no_statistics() {
        let h = LogHistogram::new();
        assert_eq!(h.count(), 0);
        assert_eq!(h.mean(), None);
        assert_eq!(h.quantile(0.5), None);
    }

    #[test]
    fn memory_covers_only_the_ranges_used() {
        let mut h = LogHistogram::new();
        assert_eq!(h.counts.capacity(), 0, "no buckets before the first sample");
        h.record(5_000_000_000); // 5 ms in ps: one range of 128 buckets
        assert_eq!(h.counts.len(), SUB_COUNT);
        h.record(1_000_000_000); // 1 ms (in [2^29, 2^30) ps): three ranges below [2^32, 2^33)
        h.record(40_000_000_000); // 40 ms (in [2^35, 2^36) ps): three ranges above
        assert_eq!(h.counts.len(), 7 * SUB_COUNT);
        let (low, high) = (h.quantile(0.0).unwrap(), h.quantile(1.0).unwrap());
        assert!((low - 1e9).abs() / 1e9 < 0.008 && (high - 4e10).abs() / 4e10 < 0.008, "{low} {high}");
        assert_eq!(h.count(), 3);
        h.record(3_000_000_000);
        assert_eq!(h.counts.len(), 7 * SUB_COUNT, "inside the window: no growth");
    }

    #[test]
    fn small_values_are_exact() {
        let mut h = LogHistogram::new();
        for v in 0..100 {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), Some(49.0));
        assert_eq!(h.quantile(1.0), Some(99.0));
        assert_eq!(h.quantile(0.0), Some(0.0));
        assert_eq!(h.mean(), Some(49.5));
    }

    #[test]
    fn buckets_tile_the_value_range() {
        // Every bucket starts where the previous one ended, and values map into their bucket.
        let mut prev_high = 0u128;
        for i in 0..BUCKETS {
            let (low, high) = bucket_bounds(i);
            assert_eq!(low, prev_high, "bucket {i}");
            assert!(high > low);
            prev_high = high;
        }
        assert_eq!(prev_high, 1u128 << 64);
        for v in [0u64, 1, 127, 128, 129, 255, 256, 1 << 40, u64::MAX] {
            let (low, high) = bucket_bounds(bucket_of(v));
            assert!(low <= v as u128 && (v as u128) < high, "{v}");
        }
    }

    #[test]
    fn tail_quantiles_of_a_million_samples() {
        // Latencies 1..=10^6 µs, uniformly: p99.999 is 999_990 µs.
        let mut h = LogHistogram::new();
        for v in 1..=1_000_000u64 {
            h.record(v * 1_000_000); // µs in ps
        }
        for (q, exact) in [(0.5, 500_000.0), (0.99, 990_000.0), (0.99999, 999_990.0)] {
            let got = h.quantile(q).unwrap() / 1e6;
            assert!((got - exact).abs() / exact < 0.008, "q={q}: {got} vs {exact}");
        }
    }

    proptest! {
        /// Any quantile lies within the bucket's relative width of the exact nearest-rank value.
        #[test]
        fn quantile_relative_error_is_bounded(mut values in proptest::collection::vec(0u64..1u64 << 50, 1..500), q in 0.0f64..=1.0) {
            let mut h = LogHistogram::new();
            for &v in &values { h.record(v); }
            values.sort_unstable();
            let rank = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len());
            let exact = values[rank - 1] as f64;
            let got = h.quantile(q).unwrap();
            prop_assert!((got - exact).abs() <= exact / SUB_COUNT as f64 + 0.5, "got {} exact {}", got, exact);
        }

        #[test]
        fn merge_equals_recording_everything(a in proptest::collection::vec(0u64..1u64 << 40, 0..100), b in proptest::collection::vec(0u64..1u64 << 40, 0..100)) {
            let mut ha = LogHistogram::new();
            let mut hb = LogHistogram::new();
            let mut all = LogHistogram::new();
            for &v in &a { ha.record(v); all.record(v); }
            for &v in &b { hb.record(v); all.record(v); }
            ha.merge(&hb);
            prop_assert_eq!(ha.count(), all.count());
            prop_assert_eq!(ha.mean(), all.mean());
            prop_assert_eq!(ha.quantile(0.9), all.quantile(0.9));
        }
    }
}
