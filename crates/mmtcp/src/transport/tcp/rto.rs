//! Round-trip estimation and the retransmission timeout: RFC 6298, or Linux's variant.
//!
//! RFC 6298 (`RtoRule::Rfc6298`):
//!
//! ```text
//!   first sample R:  SRTT = R, RTTVAR = R/2                          (2.2)
//!   later samples:   RTTVAR = (1 − β)·RTTVAR + β·|SRTT − R'|, β = 1/4  (2.3)
//!                    SRTT   = (1 − α)·SRTT + α·R',              α = 1/8
//!   RTO = max(min_rto, SRTT + max(G, K·RTTVAR)), K = 4                (2.2–2.4)
//! ```
//!
//! G, the clock granularity, is 1 ms (a Linux jiffy at HZ=1000).
//!
//! Linux (`RtoRule::Linux`, net/ipv4/tcp_input.c `tcp_rtt_estimator` and `__tcp_set_rto`): SRTT
//! and the mean deviation `mdev` are smoothed with the same gains, except that a sample *below*
//! SRTT whose error exceeds mdev moves mdev with gain 1/32 instead of 1/4 (so a falling RTT does
//! not inflate the timeout). The timeout's variance term is `rttvar`, which follows the largest
//! 4·mdev of the current round trip (`mdev_max`, floored at min_rto): it rises at once, and once
//! per round trip (when SND.UNA passes the SND.NXT of the round's start) falls a quarter of the
//! way toward that round's maximum. RTO = SRTT + rttvar, so it is never below SRTT + min_rto —
//! Linux's floor is added to the RTT, where RFC 6298's is a floor on the sum.
//!
//! Both: before the first sample the RTO is `initial_rto` (1 s, RFC 6298 §2.1); on expiry the RTO
//! doubles up to `max_rto` (§5.5). Which samples are valid (Karn's algorithm, §3; timestamps,
//! RFC 7323 §4) is the sender's choice.

use super::config::RtoRule;
use crate::sim::Duration;

/// RFC 6298 §4 clock granularity G.
const CLOCK_GRANULARITY: Duration = Duration::from_millis(1);

#[derive(Clone, Debug)]
pub struct RttEstimator {
    rule: RtoRule,
    srtt: Option<Duration>,
    /// RFC 6298 RTTVAR; Linux's mdev (the smoothed mean deviation, not multiplied by 4).
    rttvar: Duration,
    /// Linux: the largest 4·mdev of this round trip, at least min_rto.
    mdev_max: Duration,
    /// Linux: the variance term of the RTO.
    linux_rttvar: Duration,
    /// Linux: the round trip ends when SND.UNA passes this (`rtt_seq`).
    round_end: u64,
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
    pub fn new(rule: RtoRule, initial_rto: Duration, min_rto: Duration, max_rto: Duration) -> Self {
        RttEstimator {
            rule,
            srtt: None,
            rttvar: Duration::ZERO,
            mdev_max: Duration::ZERO,
            linux_rttvar: Duration::ZERO,
            round_end: 0,
            min_rtt: None,
            latest: None,
            base_rto: initial_rto.min(max_rto),
            backoff: 0,
            min_rto,
            max_rto,
        }
    }

    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }

    /// RFC 6298's RTTVAR (Linux: mdev).
    pub fn rttvar(&self) -> Duration {
        self.rttvar
    }

    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }

    pub fn latest(&self) -> Option<Duration> {
        self.latest
    }

    /// Feeds one valid measurement `r`, taken on an ACK that moved SND.UNA to `una` while
    /// SND.NXT was `nxt` (Linux's per-round-trip decay of the variance term uses both).
    pub fn on_sample(&mut self, r: Duration, una: u64, nxt: u64) {
        self.latest = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        match self.rule {
            RtoRule::Rfc6298 => self.rfc6298_sample(r),
            RtoRule::Linux => self.linux_sample(r, una, nxt),
        }
    }

    fn rfc6298_sample(&mut self, r: Duration) {
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

    fn linux_sample(&mut self, r: Duration, una: u64, nxt: u64) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Duration(r.0 / 2);
                self.mdev_max = self.rttvar.saturating_mul(4).max(self.min_rto);
                self.linux_rttvar = self.mdev_max;
                self.round_end = nxt;
            }
            Some(srtt) => {
                let below = r < srtt;
                let err = srtt.0.abs_diff(r.0);
                self.srtt = Some(Duration(srtt.0 - srtt.0 / 8 + r.0 / 8));
                // mdev += (|err| − mdev)/4, or /32 when the RTT fell by more than mdev.
                if err >= self.rttvar.0 {
                    let step = (err - self.rttvar.0) / if below { 32 } else { 4 };
                    self.rttvar = Duration(self.rttvar.0 + step);
                } else {
                    self.rttvar = Duration(self.rttvar.0 - (self.rttvar.0 - err) / 4);
                }
                let four_mdev = self.rttvar.saturating_mul(4);
                if four_mdev > self.mdev_max {
                    self.mdev_max = four_mdev;
                    self.linux_rttvar = self.linux_rttvar.max(four_mdev);
                }
                if una > self.round_end {
                    if self.mdev_max < self.linux_rttvar {
                        self.linux_rttvar = self.linux_rttvar - (self.linux_rttvar - self.mdev_max) / 4;
                    }
                    self.round_end = nxt;
                    self.mdev_max = self.min_rto;
                }
            }
        }
        let srtt = self.srtt.expect("set above");
        self.base_rto = (srtt + self.linux_rttvar).min(self.max_rto);
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
        estimator(RtoRule::Rfc6298)
    }

    fn estimator(rule: RtoRule) -> RttEstimator {
        RttEstimator::new(rule, Duration::from_secs(1), Duration::from_millis(200), Duration::from_secs(60))
    }

    #[test]
    fn test_initial_rto_before_any_sample() {
        assert_eq!(est().rto(), Duration::from_secs(1));
    }

    #[test]
    fn test_first_sample_sets_srtt_and_half_rttvar() {
        let mut e = est();
        e.on_sample(Duration::from_millis(100), 0, 0);
        assert_eq!(e.srtt(), Some(Duration::from_millis(100)));
        assert_eq!(e.rttvar(), Duration::from_millis(50));
        // 100 + 4·50 = 300 ms, above the 200 ms floor.
        assert_eq!(e.rto(), Duration::from_millis(300));
    }

    #[test]
    fn test_smoothing_follows_the_rfc_gains() {
        let mut e = est();
        e.on_sample(Duration::from_millis(100), 0, 0);
        e.on_sample(Duration::from_millis(200), 0, 0);
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
            e.on_sample(Duration::from_millis(10), 0, 0);
        }
        assert_eq!(e.rto(), Duration::from_millis(200));
    }

    #[test]
    fn test_backoff_doubles_and_caps() {
        let mut e = est();
        e.on_sample(Duration::from_millis(100), 0, 0);
        e.back_off();
        assert_eq!(e.rto(), Duration::from_millis(600));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), Duration::from_secs(60));
        e.reset_backoff();
        assert_eq!(e.rto(), Duration::from_millis(300));
    }

    #[test]
    fn test_linux_first_sample_is_srtt_plus_the_larger_of_2r_and_min_rto() {
        let mut e = estimator(RtoRule::Linux);
        e.on_sample(Duration::from_millis(20), 0, 10);
        // rttvar = max(4·R/2, 200 ms) = 200 ms: RTO = 20 + 200 ms (RFC 6298 would give 200 ms).
        assert_eq!(e.rto(), Duration::from_millis(220));
        let mut e = estimator(RtoRule::Linux);
        e.on_sample(Duration::from_millis(300), 0, 10);
        // 300 + max(600, 200) = 900 ms, as RFC 6298's 3·R.
        assert_eq!(e.rto(), Duration::from_millis(900));
    }

    #[test]
    fn test_linux_rtt_drop_moves_mdev_with_gain_one_32nd() {
        let mut e = estimator(RtoRule::Linux);
        e.on_sample(Duration::from_millis(100), 0, 10);
        // mdev = 50 ms. A sample of 20 ms: error 80 ms, above mdev, below SRTT:
        // mdev += (80 − 50)/32 (RFC 6298 would move it by (80 − 50)/4).
        e.on_sample(Duration::from_millis(20), 0, 10);
        assert_eq!(e.rttvar(), Duration::from_picos(50_000_000_000 + 30_000_000_000 / 32));
        assert_eq!(e.srtt(), Some(Duration::from_millis(90)));
        // A rise of the same size moves it by a quarter.
        let mut e = estimator(RtoRule::Linux);
        e.on_sample(Duration::from_millis(100), 0, 10);
        e.on_sample(Duration::from_millis(180), 0, 10);
        assert_eq!(e.rttvar(), Duration::from_micros(57_500));
    }

    #[test]
    fn test_linux_variance_term_decays_once_per_round_trip() {
        let mut e = estimator(RtoRule::Linux);
        e.on_sample(Duration::from_millis(100), 0, 10);
        e.on_sample(Duration::from_millis(300), 5, 10);
        // mdev = 50 + (200 − 50)/4 = 87.5 ms; rttvar = 4·mdev = 350 ms, still in round one.
        let srtt = Duration::from_micros(125_000);
        assert_eq!(e.srtt(), Some(srtt));
        assert_eq!(e.rto(), srtt + Duration::from_millis(350));
        // Steady samples within the round do not lower it ...
        e.on_sample(srtt, 10, 20);
        assert_eq!(e.rto(), srtt + Duration::from_millis(350));
        // ... the first sample after SND.UNA passes the round's end moves it a quarter of the way
        // toward the round's largest 4·mdev: for round one that is the 350 ms itself,
        e.on_sample(srtt, 11, 30);
        assert_eq!(e.rto(), srtt + Duration::from_millis(350));
        // and for round two, whose deviations stayed small, the 200 ms floor.
        e.on_sample(srtt, 31, 40);
        let rttvar =
            Duration::from_millis(350) - (Duration::from_millis(350) - Duration::from_millis(200)) / 4;
        assert_eq!(e.rto(), srtt + rttvar);
    }

    proptest::proptest! {
        #[test]
        fn linux_rto_is_never_below_srtt_plus_min_rto(samples in proptest::collection::vec(1u64..2_000, 1..200)) {
            let mut e = estimator(RtoRule::Linux);
            for (i, ms) in samples.iter().enumerate() {
                let i = i as u64;
                e.on_sample(Duration::from_millis(*ms), 10 * i, 10 * i + 20);
                let srtt = e.srtt().unwrap();
                proptest::prop_assert!(e.rto() >= (srtt + Duration::from_millis(200)).min(Duration::from_secs(60)));
            }
        }

        #[test]
        fn rfc6298_rto_is_never_below_min_rto(samples in proptest::collection::vec(1u64..2_000, 1..200)) {
            let mut e = est();
            for ms in samples {
                e.on_sample(Duration::from_millis(ms), 0, 0);
                proptest::prop_assert!(e.rto() >= Duration::from_millis(200));
            }
        }
    }
}
