//! A windowed maximum (or minimum) in constant space: Kathleen Nichols' three-sample tracker, the
//! algorithm of Linux's lib/win_minmax.c, which BBR uses for its bottleneck-bandwidth filter.
//!
//! The filter remembers the best, second-best and third-best samples of the window, with the
//! invariant that each is at least as recent as the one before it and at least as good as every
//! sample that arrived after it. A new best erases the other two (everything older is dominated).
//! As the window slides, the best expires and the second takes its place; to keep the three
//! spread over the window, a second choice is taken from the latest sample once a quarter of the
//! window has passed since the best, and a third once half has passed.
//!
//! ```text
//! new sample v at time t (window W):
//!   v ≥ best, or the third choice is older than W  →  best = second = third = (t, v)
//!   else v ≥ second                                →  second = third = (t, v)
//!   else v ≥ third                                 →  third = (t, v)
//!   then, with dt = t − time(best):
//!   dt > W                    →  best = second, second = third, third = (t, v)   (twice if need be)
//!   second is best, dt > W/4  →  second = third = (t, v)
//!   third is second, dt > W/2 →  third = (t, v)
//! ```
//!
//! The result is not always the exact windowed maximum: it is the best of the samples that
//! arrived at or after the remembered best, which is itself inside the window. A sample that
//! fell between two of the three choices and was beaten by neither is forgotten, so after the
//! best expires the filter may under-report until a better sample arrives (Linux: "almost always
//! delivers the same" answer as a filter that stores the whole window).
//!
//! Deviation from lib/win_minmax.c: times are `u64` and never wrap (Linux uses wrapping `u32`
//! arithmetic); a sample older than the newest one is a caller error.

/// Which extreme the filter tracks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extremum {
    Max,
    Min,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sample {
    /// When the sample was taken, in the caller's unit (BBR: packet-timed round trips).
    t: u64,
    v: u64,
}

/// A windowed max or min filter over `(time, value)` samples with non-decreasing times.
#[derive(Clone, Debug)]
pub struct WindowedFilter {
    extremum: Extremum,
    /// Window length, in the unit of the sample times.
    window: u64,
    /// Best, second-best and third-best choices; times are non-decreasing along the array.
    choices: [Sample; 3],
}

impl WindowedFilter {
    /// A filter holding the single sample `(t, v)` as all three choices.
    pub fn new(extremum: Extremum, window: u64, t: u64, v: u64) -> Self {
        let s = Sample { t, v };
        WindowedFilter { extremum, window, choices: [s; 3] }
    }

    /// Forgets every sample and starts again from `(t, v)`.
    pub fn reset(&mut self, t: u64, v: u64) {
        self.choices = [Sample { t, v }; 3];
    }

    /// The current estimate.
    pub fn get(&self) -> u64 {
        self.choices[0].v
    }

    /// Time of the sample the estimate comes from.
    pub fn best_time(&self) -> u64 {
        self.choices[0].t
    }

    /// `a` is at least as good as `b` for this filter's extremum.
    fn at_least_as_good(&self, a: u64, b: u64) -> bool {
        match self.extremum {
            Extremum::Max => a >= b,
            Extremum::Min => a <= b,
        }
    }

    /// Adds the sample `(t, v)` and returns the new estimate.
    pub fn update(&mut self, t: u64, v: u64) -> u64 {
        debug_assert!(t >= self.choices[2].t, "sample at {t} older than {}", self.choices[2].t);
        let s = Sample { t, v };
        if self.at_least_as_good(v, self.choices[0].v) || t - self.choices[2].t > self.window {
            // A new best dominates everything older; or the whole remembered window has expired.
            self.reset(t, v);
            return v;
        }
        if self.at_least_as_good(v, self.choices[1].v) {
            self.choices[1] = s;
            self.choices[2] = s;
        } else if self.at_least_as_good(v, self.choices[2].v) {
            self.choices[2] = s;
        }
        self.slide(s);
        self.choices[0].v
    }

    /// Ages the three choices against the newest sample `s` (already offered to them).
    fn slide(&mut self, s: Sample) {
        let since_best = s.t - self.choices[0].t;
        if since_best > self.window {
            // The best left the window: promote the others. The second may have expired too
            // (the third has not: `update` resets the filter when it has).
            self.choices = [self.choices[1], self.choices[2], s];
            if s.t - self.choices[0].t > self.window {
                self.choices = [self.choices[1], self.choices[2], s];
            }
        } else if self.choices[1].t == self.choices[0].t && since_best > self.window / 4 {
            // A quarter of the window without a second choice: take one from the second quarter.
            self.choices[1] = s;
            self.choices[2] = s;
        } else if self.choices[2].t == self.choices[1].t && since_best > self.window / 2 {
            // Half the window without a third choice: take one from the second half.
            self.choices[2] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::Rng;

    /// Brute-force reference: every sample with its time.
    struct Reference {
        samples: Vec<(u64, u64)>,
    }

    impl Reference {
        /// Best value among samples with time in [from, to], if any.
        fn best(&self, extremum: Extremum, from: u64, to: u64) -> Option<u64> {
            let values = self.samples.iter().filter(|&&(t, _)| (from..=to).contains(&t)).map(|&(_, v)| v);
            match extremum {
                Extremum::Max => values.max(),
                Extremum::Min => values.min(),
            }
        }
    }

    /// Random walks with several samples per time unit and random jumps, checked after every
    /// sample against the stored window:
    /// - the estimate is the value of a sample taken at `best_time()`, inside the window
    ///   (time ≥ now − W, as Linux's `dt > win` expiry keeps samples exactly W old);
    /// - it is never better than the true windowed extreme;
    /// - it is at least as good as every sample taken after `best_time()` (nothing newer and
    ///   better is forgotten), and as every sample of the current time unit;
    /// - and it equals the true windowed extreme on most samples (Linux: "almost always").
    fn check_against_brute_force(extremum: Extremum, seed: u64) {
        let mut rng = Rng::for_component(seed, "minmax");
        let window = 10;
        let better = |a: u64, b: u64| match extremum {
            Extremum::Max => a > b,
            Extremum::Min => a < b,
        };
        let mut value = 1000u64;
        let mut t = 0u64;
        let mut filter = WindowedFilter::new(extremum, window, t, value);
        let mut reference = Reference { samples: vec![(t, value)] };
        let (mut exact, mut total) = (0u32, 0u32);
        for _ in 0..5000 {
            t += rng.below(3); // 0, 1 or 2 time units between samples
            value = match rng.below(20) {
                0 => rng.below(2000),                                   // a jump anywhere
                _ => (value + rng.below(41)).saturating_sub(20).max(1), // a step of ±20
            };
            let estimate = filter.update(t, value);
            reference.samples.push((t, value));

            let from = t.saturating_sub(window);
            let truth = reference.best(extremum, from, t).expect("the new sample is in the window");
            let best_t = filter.best_time();
            assert!(best_t >= from && best_t <= t, "best from time {best_t}, window [{from}, {t}]");
            assert!(
                reference.samples.iter().any(|&(st, sv)| st == best_t && sv == estimate),
                "estimate {estimate} at time {best_t} is not a sample"
            );
            assert!(!better(estimate, truth), "estimate {estimate} better than the window's {truth}");
            if let Some(newer) = reference.best(extremum, best_t + 1, t) {
                assert!(!better(newer, estimate), "forgot {newer}, newer than the estimate {estimate}");
            }
            let this_unit = reference.best(extremum, t, t).unwrap();
            assert!(!better(this_unit, estimate), "forgot {this_unit} of the current time");
            total += 1;
            exact += u32::from(estimate == truth);
        }
        // Measured: 91–94 % over these seeds and both extremes.
        assert!(exact * 100 >= 85 * total, "exact on {exact} of {total} samples");
    }

    #[test]
    fn test_windowed_max_random_sequences_against_brute_force() {
        for seed in 0..20 {
            check_against_brute_force(Extremum::Max, seed);
        }
    }

    #[test]
    fn test_windowed_min_random_sequences_against_brute_force() {
        for seed in 0..20 {
            check_against_brute_force(Extremum::Min, seed);
        }
    }

    #[test]
    fn test_windowed_max_expires_after_window() {
        // 100 at t = 0, then 50s: the 100 is kept through t = 10 (exactly one window old) and
        // replaced at t = 11 by the second choice, which was taken once a quarter had passed.
        let mut f = WindowedFilter::new(Extremum::Max, 10, 0, 100);
        for t in 1..=10 {
            assert_eq!(f.update(t, 50 + t), 100, "t = {t}");
        }
        // Second choice: the first sample more than W/4 after the best (t = 3, value 53), then
        // raised by every larger one (t = 10, value 60).
        assert_eq!(f.update(11, 40), 60);
        assert_eq!(f.best_time(), 10);
    }

    #[test]
    fn test_windowed_max_decreasing_sequence_keeps_spread_choices() {
        // v(t) = 1000 − t, W = 10: the case the quarter and half rules exist for. By hand: the
        // second choice is taken at t = 3 (> W/4 after the best), the third at t = 6 (> W/2);
        // at t = 11 the best (t = 0) expires and the second (997) takes over, at t = 14 the
        // third (994), at t = 17 the third taken at t = 11 (989). The window's true maximum is
        // v(t − 10); the filter lags it by up to 4 here. Without the quarter rule the filter
        // would fall to the newest sample at t = 11, without the half rule to 989 at t = 14.
        let mut f = WindowedFilter::new(Extremum::Max, 10, 0, 1000);
        let mut estimates = Vec::new();
        for t in 1..=17 {
            let estimate = f.update(t, 1000 - t);
            if t >= 11 {
                estimates.push(estimate);
            }
        }
        assert_eq!(estimates, [997, 997, 997, 994, 994, 994, 989]);
    }

    #[test]
    fn test_windowed_max_new_max_resets() {
        let mut f = WindowedFilter::new(Extremum::Max, 10, 0, 100);
        f.update(5, 80);
        assert_eq!(f.update(6, 100), 100);
        assert_eq!(f.best_time(), 6, "an equal value is the newer best");
        // Everything older is forgotten: at t = 17 the only candidates are from t ≥ 6.
        assert_eq!(f.update(17, 1), 1);
    }
}
