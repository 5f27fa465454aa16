//! A burst's metrics (Wu et al. §5.2–5.3): what a set of flows delivered together during a window
//! of the run — the short-term throughput the paper plots with its 5th–95th percentile spread
//! (Figs. 13–15, 17), and the time the flows took to deliver a given amount from the window's
//! start (Fig. 16, "the latency of transmitting 5 Gb").
//!
//! The meter reads the flows' cumulative delivered bytes at every time-series row, so its
//! resolution is `metrics.interval`: the window must start and end on rows, the short-term
//! samples are the rows' intervals inside the window, and the time to the target is interpolated
//! linearly inside the interval where the flows crossed it.

use crate::sim::{Duration, SimTime};
use serde::Serialize;

/// The window and the target, checked (`[metrics.burst]`).
#[derive(Clone, Debug)]
pub struct BurstSpec {
    pub start: SimTime,
    pub end: SimTime,
    /// Bytes whose delivery time is measured from `start`.
    pub target: Option<u64>,
}

/// The meter: fed the flows' delivered bytes, in total, at every row.
#[derive(Clone, Debug)]
pub struct BurstMeter {
    spec: BurstSpec,
    interval: Duration,
    /// Delivered bytes at the window's start (`None` before it).
    base: Option<u64>,
    last_total: u64,
    last_time: SimTime,
    /// Bytes delivered in the window, once it has ended.
    in_window: Option<u64>,
    /// Throughput of each row interval inside the window, bit/s.
    samples: Vec<f64>,
    reached_at: Option<SimTime>,
}

impl BurstMeter {
    /// `interval` is the time series' row interval; `spec.start` and `spec.end` are rows.
    pub fn new(spec: BurstSpec, interval: Duration) -> BurstMeter {
        let rows = ((spec.end.0 - spec.start.0) / interval.as_picos()) as usize;
        let base = (spec.start == SimTime::ZERO).then_some(0);
        BurstMeter {
            spec,
            interval,
            base,
            last_total: 0,
            last_time: SimTime::ZERO,
            in_window: None,
            samples: Vec::with_capacity(rows),
            reached_at: None,
        }
    }

    /// The flows had delivered `total` bytes by the row at `now`.
    pub fn observe(&mut self, now: SimTime, total: u64) {
        if now == self.spec.start {
            self.base = Some(total);
        }
        if let Some(base) = self.base {
            if now > self.spec.start && now <= self.spec.end {
                let bits = (total - self.last_total) as f64 * 8.0;
                self.samples.push(bits / self.interval.as_secs_f64());
            }
            if now == self.spec.end {
                self.in_window = Some(total - base);
            }
            if let Some(target) = self.spec.target.filter(|_| self.reached_at.is_none()) {
                if total - base >= target {
                    self.reached_at = Some(self.crossing(target, base, now, total));
                }
            }
        }
        self.last_total = total;
        self.last_time = now;
    }

    /// When the delivered bytes, linear between the last row and `now`, reached `base + target`.
    fn crossing(&self, target: u64, base: u64, now: SimTime, total: u64) -> SimTime {
        let before = self.last_total.saturating_sub(base);
        if before >= target || now == self.last_time {
            return now;
        }
        let fraction = (target - before) as f64 / (total - base - before) as f64;
        let span = (now.0 - self.last_time.0) as f64;
        SimTime(self.last_time.0 + (fraction * span).round() as u64)
    }

    pub fn summary(&self) -> BurstSummary {
        let mut sorted = self.samples.clone();
        sorted.sort_by(f64::total_cmp);
        let rank = |p: f64| -> Option<f64> {
            // Nearest rank: the smallest sample with at least p of them at or below it.
            let n = sorted.len();
            (n > 0).then(|| sorted[((p * n as f64).ceil() as usize).clamp(1, n) - 1])
        };
        let length = (self.spec.end.0 - self.spec.start.0) as f64 / 1e12;
        BurstSummary {
            start_seconds: self.spec.start.as_secs_f64(),
            length_seconds: length,
            bytes_delivered: self.in_window,
            throughput_bps: self.in_window.map(|b| b as f64 * 8.0 / length),
            short_term_bps: ShortTerm {
                samples: sorted.len(),
                mean: (!sorted.is_empty()).then(|| sorted.iter().sum::<f64>() / sorted.len() as f64),
                p5: rank(0.05),
                p50: rank(0.5),
                p95: rank(0.95),
                min: sorted.first().copied(),
                max: sorted.last().copied(),
            },
            target_bytes: self.spec.target,
            time_to_target_seconds: self.reached_at.map(|t| (t.0 - self.spec.start.0) as f64 / 1e12),
        }
    }
}

/// `summary.json`'s `burst`.
#[derive(Clone, Debug, Serialize)]
pub struct BurstSummary {
    pub start_seconds: f64,
    pub length_seconds: f64,
    /// Bytes the flows delivered in the window (`None`: the run ended before it did).
    pub bytes_delivered: Option<u64>,
    pub throughput_bps: Option<f64>,
    pub short_term_bps: ShortTerm,
    pub target_bytes: Option<u64>,
    /// From the window's start until the flows together had delivered `target_bytes` (`None`:
    /// no target, or not reached by the end of the run).
    pub time_to_target_seconds: Option<f64>,
}

/// The row intervals' throughputs inside the window.
#[derive(Clone, Debug, Serialize)]
pub struct ShortTerm {
    pub samples: usize,
    pub mean: Option<f64>,
    pub p5: Option<f64>,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime(x * 1_000_000_000)
    }

    fn meter(start: u64, end: u64, target: Option<u64>) -> BurstMeter {
        BurstMeter::new(BurstSpec { start: ms(start), end: ms(end), target }, Duration::from_millis(10))
    }

    #[test]
    fn test_window_counts_only_its_own_rows_and_bytes() {
        let mut m = meter(20, 50, None);
        // 1000 bytes per 10 ms before the window, 2000 inside, 5000 after.
        let mut total = 0;
        for (t, add) in [(10, 1000), (20, 1000), (30, 2000), (40, 2000), (50, 2000), (60, 5000)] {
            total += add;
            m.observe(ms(t), total);
        }
        let s = m.summary();
        assert_eq!(s.bytes_delivered, Some(6000));
        assert_eq!(s.throughput_bps, Some(6000.0 * 8.0 / 0.03));
        assert_eq!(s.short_term_bps.samples, 3);
        assert_eq!(s.short_term_bps.max, Some(2000.0 * 8.0 / 0.01), "the 60 ms row is outside");
        assert_eq!(s.time_to_target_seconds, None);
    }

    #[test]
    fn test_time_to_target_interpolates_inside_the_crossing_interval() {
        let mut m = meter(0, 100, Some(2500));
        for (t, total) in [(10, 1000), (20, 2000), (30, 4000), (40, 6000)] {
            m.observe(ms(t), total);
        }
        // 2000 at 20 ms, 4000 at 30 ms: 2500 a quarter of the way, at 22.5 ms.
        assert_eq!(m.summary().time_to_target_seconds, Some(0.0225));
    }

    #[test]
    fn test_target_counts_from_the_window_start_not_the_run_start() {
        let mut m = meter(20, 100, Some(1000));
        for (t, total) in [(10, 5000), (20, 5000), (30, 5500), (40, 6000)] {
            m.observe(ms(t), total);
        }
        let s = m.summary();
        assert_eq!(s.time_to_target_seconds, Some(0.02), "1000 bytes after 20 ms, at 40 ms");
        assert_eq!(s.bytes_delivered, None, "the run ended before the window did");
    }

    #[test]
    fn test_percentiles_are_nearest_rank_over_the_windows_rows() {
        let mut m = meter(0, 200, None);
        let mut total = 0;
        for t in 1..=20 {
            total += t * 100;
            m.observe(ms(t * 10), total);
        }
        let st = m.summary().short_term_bps;
        let bps = |bytes: u64| bytes as f64 * 8.0 / 0.01;
        assert_eq!(st.samples, 20);
        assert_eq!((st.p5, st.p50, st.p95), (Some(bps(100)), Some(bps(1000)), Some(bps(1900))));
        let mean = st.mean.expect("20 samples");
        assert!((mean - bps(1050)).abs() < 1e-6 * bps(1050), "{mean}");
    }
}
