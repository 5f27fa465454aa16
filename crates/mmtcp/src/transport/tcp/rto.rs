//! Round-trip estimation and the retransmission timeout, RFC 6298.
//!
//!   first sample R:  SRTT = R, RTTVAR = R/2                          (2.2)
//!   later samples:   RTTVAR = (1 − β)·RTTVAR + β·|SRTT − R'|, β = 1/4  (2.3)
//!                    SRTT   = (1 − α)·SRTT + α·R',              α = 1/8
//!   RTO = max(min_rto, SRTT + max(G, K·RTTVAR)), K = 4                (2.2–2.4)
//!   on expiry RTO doubles, up to max_rto                              (5.5)
//!
//! G, the clock granularity, is 1 ms (a Linux jiffy at HZ=1000). Before the first sample the RTO
//! is `initial_rto` (1 s, §2.1). Samples are never taken from retransmitted segments (Karn's
//! algorithm, §3); that rule is the sender's, which chooses what to sample. Deviation: Linux
//! computes RTO ≈ SRTT + max(RTTVAR, min_rto), which is longer on short paths; we follow the RFC.

use crate::sim::Duration;

/// RFC 6298 §4 clock granularity G.
const CLOCK_GRANULARITY: Duration = Duration::from_millis(1);

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Duration>,
    rttvar: Duration,
    min_rtt: Option<Duration>,
    latest: Option<Duration>,
    /// RTO before back-off.
    base_rto: Duration,
    /// Number of consecutive doublings (§5.5).
    backoff: u32,
    min_rto: Duration,
    max_rto: Duration,
}

impl RttEstimator {
    pub fn new(initial_rto: Duration, min_rto: Duration, max_rto: Duration) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Duration::ZERO,
            min_rtt: None,
            latest: None,
            base_rto: initial_rto,
            backoff: 0,
            min_rto,
            max_rto,
        }
    }

    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }

    pub fn rttvar(&self) -> Duration {
        self.rttvar
    }

    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }

    pub fn latest(&self) -> Option<Duration> {
        self.latest
    }

    /// Feeds one valid (non-ambiguous) measurement.
    pub fn on_sample(&mut self, r: Duration) {
        self.latest = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Duration(r.0 / 2);
            }
            Some(srtt) => {
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = Duration((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Duration((7 * srtt.0 + r.0) / 8));
            }
        }
        let srtt = self.srtt.expect("set above");
        let var_term = self.rttvar.saturating_mul(4).max(CLOCK_GRANULARITY);
        self.base_rto = (srtt + var_term).max(self.min_rto).min(self.max_rto);
    }

    /// The current timeout, with back-off applied.
    pub fn rto(&self) -> Duration {
        let factor = 1u64.checked_shl(self.backoff).unwrap_or(u64::MAX);
        self.base_rto.saturating_mul(factor).min(self.max_rto)
    }

    /// Doubles the timeout after an expiry (§5.5).
    pub fn back_off(&mut self) {
        if self.rto() < self.max_rto {
            self.backoff += 1;
        }
    }

    /// Forgets the back-off once the connection makes progress again (new data acknowledged).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(Duration::from_secs(1), Duration::from_millis(200), Duration::from_secs(60))
    }

    #[test]
    fn test_initial_rto_before_any_sample() {
        assert_eq!(est().rto(), Duration::from_secs(1));
    }

    #[test]
    fn test_first_sample_sets_srtt_and_half_rttvar() {
        let mut e = est();
        e.on_sample(Duration::from_millis(100));
        assert_eq!(e.srtt(), Some(Duration::from_millis(100)));
        assert_eq!(e.rttvar(), Duration::from_millis(50));
        // 100 + 4·50 = 300 ms, above the 200 ms floor.
        assert_eq!(e.rto(), Duration::from_millis(300));
    }

    #[test]
    fn test_smoothing_follows_the_rfc_gains() {
        let mut e = est();
        e.on_sample(Duration::from_millis(100));
        e.on_sample(Duration::from_millis(200));
        // RTTVAR = 3/4·50 + 1/4·|100 − 200| = 62.5; SRTT = 7/8·100 + 1/8·200 = 112.5
        assert_eq!(e.rttvar(), Duration::from_micros(62_500));
        assert_eq!(e.srtt(), Some(Duration::from_micros(112_500)));
        assert_eq!(e.rto(), Duration::from_micros(362_500));
        assert_eq!(e.min_rtt(), Some(Duration::from_millis(100)));
    }

    #[test]
    fn test_min_rto_floor() {
        let mut e = est();
        for _ in 0..50 {
            e.on_sample(Duration::from_millis(10));
        }
        assert_eq!(e.rto(), Duration::from_millis(200));
    }

    #[test]
    fn test_backoff_doubles_and_caps() {
        let mut e = est();
        e.on_sample(Duration::from_millis(100));
        e.back_off();
        assert_eq!(e.rto(), Duration::from_millis(600));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), Duration::from_secs(60));
        e.reset_backoff();
        assert_eq!(e.rto(), Duration::from_millis(300));
    }
}
