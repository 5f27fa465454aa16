//! Long-term ("LT") bandwidth sampling: BBR's detector of token-bucket policers (the `lt_*`
//! state of tcp_bbr.c, `bbr_lt_bw_sampling` and `bbr_lt_bw_interval_done`).
//!
//! A policer lets a burst through, then drops whatever exceeds its token rate. BBR's max filter
//! would keep the burst's rate and keep losing packets, so the sampler watches the average
//! delivery rate over intervals of 4–16 round trips that start and end with a loss:
//!
//! ```text
//! idle ── first loss ──► sampling an interval (delivered, lost and time counted from its start)
//!   at a lossy ACK after ≥ 4 rounds, if lost/delivered ≥ 50/256 (≈ 20 %):
//!     rate = delivered / elapsed whole milliseconds
//!     no previous interval rate, or rates differ by > 1/8 and > 4 kbit/s
//!        → remember this rate, start the next interval
//!     otherwise (two consistent lossy intervals: policed)
//!        → lt_bw = mean of the two rates; BBR uses it instead of the max filter, pacing gain 1
//!   an application-limited sample, or > 16 rounds without a verdict → back to idle
//! using lt_bw: after 48 rounds counted in PROBE_BW → back to idle; BBR restarts gain cycling
//! ```
//!
//! Rates are bytes per second (Linux: packets per µs, scaled by 2^24). As in Linux, interval
//! times are whole milliseconds of the time of the latest delivery, and the 4 kbit/s tolerance
//! is compared after the 1 % pacing margin (Linux passes the difference through
//! `bbr_rate_bytes_per_sec`, which applies it).

use super::{PACING_MARGIN_PERCENT, UNIT};
use crate::sim::SimTime;

/// The shortest sampling interval, in round trips (tcp_bbr.c `bbr_lt_intvl_min_rtts`).
const LT_INTERVAL_MIN_ROUNDS: u32 = 4;
/// An interval longer than this many rounds is abandoned (tcp_bbr.c: 4 × `bbr_lt_intvl_min_rtts`).
const LT_INTERVAL_MAX_ROUNDS: u32 = 4 * LT_INTERVAL_MIN_ROUNDS;
/// An interval is lossy, and may be policed, when lost/delivered ≥ this / 256, ≈ 20 %
/// (tcp_bbr.c `bbr_lt_loss_thresh`).
const LT_LOSS_THRESH: u64 = 50;
/// Two interval rates are consistent when they differ by at most this / 256 = 1/8 of the earlier
/// one (tcp_bbr.c `bbr_lt_bw_ratio`)…
const LT_BW_RATIO: u64 = UNIT as u64 / 8;
/// …or by at most 4 kbit/s, here in bytes per second (tcp_bbr.c `bbr_lt_bw_diff`).
const LT_BW_DIFF_BYTES_PER_SEC: u64 = 4000 / 8;
/// Rounds (counted in PROBE_BW) for which a policed rate is used before sampling restarts
/// (tcp_bbr.c `bbr_lt_bw_max_rtts`).
const LT_BW_MAX_ROUNDS: u32 = 48;

/// Picoseconds in a millisecond, for the whole-millisecond interval clock.
const PS_PER_MS: u64 = 1_000_000_000;

/// What one ACK tells the sampler.
#[derive(Clone, Copy, Debug)]
pub(super) struct LtInput {
    /// This ACK starts a new packet-timed round trip.
    pub round_start: bool,
    /// BBR is in PROBE_BW (only those rounds age a policed rate).
    pub in_probe_bw: bool,
    /// The ACK marked data lost.
    pub losses: bool,
    /// The ACK's rate sample is application-limited.
    pub app_limited: bool,
    /// The connection's delivered and lost totals, bytes.
    pub delivered: u64,
    pub lost: u64,
    /// Time of the latest delivery.
    pub delivered_at: SimTime,
}

/// What BBR must do after the sampler has seen an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LtVerdict {
    Nothing,
    /// Two consistent lossy intervals: BBR now uses the long-term rate (and pacing gain 1).
    Policed,
    /// The policed rate has been used long enough: BBR restarts PROBE_BW gain cycling.
    Expired,
}

/// The long-term sampler's state.
#[derive(Clone, Debug)]
pub(super) struct LongTermBw {
    /// An interval is being sampled (a loss has started one).
    sampling: bool,
    /// Rounds in the current interval, or rounds in PROBE_BW while the policed rate is in use.
    rounds: u32,
    /// BBR uses `bw` instead of its max filter.
    use_bw: bool,
    /// The previous interval's rate, or the policed rate while `use_bw`; bytes/s, 0 = none.
    bw: u64,
    /// Delivered and lost totals, and the delivery time in whole milliseconds, at the start of
    /// the current interval.
    start_delivered: u64,
    start_lost: u64,
    start_ms: u64,
}

impl LongTermBw {
    pub fn new() -> Self {
        LongTermBw {
            sampling: false,
            rounds: 0,
            use_bw: false,
            bw: 0,
            start_delivered: 0,
            start_lost: 0,
            start_ms: 0,
        }
    }

    /// The policed rate, bytes/s, while BBR should use it.
    pub fn policed_bw(&self) -> Option<u64> {
        self.use_bw.then_some(self.bw)
    }

    /// Forgets everything (tcp_bbr.c `bbr_reset_lt_bw_sampling`).
    pub fn reset(&mut self, delivered: u64, lost: u64, delivered_at: SimTime) {
        self.bw = 0;
        self.use_bw = false;
        self.sampling = false;
        self.start_interval(delivered, lost, delivered_at);
    }

    fn start_interval(&mut self, delivered: u64, lost: u64, delivered_at: SimTime) {
        self.start_delivered = delivered;
        self.start_lost = lost;
        self.start_ms = delivered_at.0 / PS_PER_MS;
        self.rounds = 0;
    }

    /// One ACK with a valid rate sample (or the pseudo-sample of a retransmission timeout).
    pub fn on_sample(&mut self, s: &LtInput) -> LtVerdict {
        if self.use_bw {
            if s.in_probe_bw && s.round_start {
                self.rounds += 1;
                if self.rounds >= LT_BW_MAX_ROUNDS {
                    self.reset(s.delivered, s.lost, s.delivered_at);
                    return LtVerdict::Expired;
                }
            }
            return LtVerdict::Nothing;
        }

        // Start at a loss: by then the policer has spent its burst allowance, so the interval
        // measures its token rate rather than the burst.
        if !self.sampling {
            if !s.losses {
                return LtVerdict::Nothing;
            }
            self.start_interval(s.delivered, s.lost, s.delivered_at);
            self.sampling = true;
        }
        // Running out of data would make the interval under-estimate the allowed rate.
        if s.app_limited {
            self.reset(s.delivered, s.lost, s.delivered_at);
            return LtVerdict::Nothing;
        }
        if s.round_start {
            self.rounds += 1;
        }
        if self.rounds < LT_INTERVAL_MIN_ROUNDS {
            return LtVerdict::Nothing;
        }
        if self.rounds > LT_INTERVAL_MAX_ROUNDS {
            self.reset(s.delivered, s.lost, s.delivered_at);
            return LtVerdict::Nothing;
        }
        // End at a loss too, once the policer's tokens are surely exhausted.
        if !s.losses {
            return LtVerdict::Nothing;
        }
        let lost = s.lost - self.start_lost;
        let delivered = s.delivered - self.start_delivered;
        if delivered == 0 || lost * u64::from(UNIT) < LT_LOSS_THRESH * delivered {
            return LtVerdict::Nothing;
        }
        let elapsed_ms = (s.delivered_at.0 / PS_PER_MS).saturating_sub(self.start_ms);
        if elapsed_ms < 1 {
            return LtVerdict::Nothing;
        }
        let bw = delivered.saturating_mul(1000) / elapsed_ms;
        self.interval_done(bw, s)
    }

    /// An interval measured `bw` bytes/s (tcp_bbr.c `bbr_lt_bw_interval_done`).
    fn interval_done(&mut self, bw: u64, s: &LtInput) -> LtVerdict {
        if self.bw != 0 {
            let diff = bw.abs_diff(self.bw);
            let diff_after_margin =
                diff / 100 * (100 - PACING_MARGIN_PERCENT) + diff % 100 * (100 - PACING_MARGIN_PERCENT) / 100;
            if diff * u64::from(UNIT) <= LT_BW_RATIO * self.bw
                || diff_after_margin <= LT_BW_DIFF_BYTES_PER_SEC
            {
                self.bw = (bw + self.bw) / 2;
                self.use_bw = true;
                self.rounds = 0;
                return LtVerdict::Policed;
            }
        }
        self.bw = bw;
        self.start_interval(s.delivered, s.lost, s.delivered_at);
        LtVerdict::Nothing
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Duration;

    const MSS: u64 = 1000;
    const RTT: Duration = Duration::from_millis(10);

    /// A flow through a policer: each round trip delivers `per_round` bytes and loses
    /// `lost_per_round`, reported by ACKs of one segment; losses are reported on the last ACK
    /// of each round.
    struct Policed {
        lt: LongTermBw,
        now: SimTime,
        delivered: u64,
        lost: u64,
    }

    impl Policed {
        fn new() -> Self {
            Policed { lt: LongTermBw::new(), now: SimTime::ZERO + RTT, delivered: 0, lost: 0 }
        }

        /// One round; returns the verdicts other than `Nothing`.
        fn round(&mut self, per_round: u64, lost_per_round: u64, in_probe_bw: bool) -> Vec<LtVerdict> {
            let acks = per_round / MSS;
            let start = self.now;
            let mut verdicts = Vec::new();
            for i in 1..=acks {
                self.now = start + Duration::from_picos(RTT.as_picos() * i / acks);
                self.delivered += MSS;
                let losses = i == acks && lost_per_round > 0;
                if losses {
                    self.lost += lost_per_round;
                }
                let verdict = self.lt.on_sample(&LtInput {
                    round_start: i == 1,
                    in_probe_bw,
                    losses,
                    app_limited: false,
                    delivered: self.delivered,
                    lost: self.lost,
                    delivered_at: self.now,
                });
                if verdict != LtVerdict::Nothing {
                    verdicts.push(verdict);
                }
            }
            verdicts
        }
    }

    #[test]
    fn test_long_term_two_consistent_lossy_intervals_policed() {
        // 100 kB per 10 ms round (10 MB/s) with 21 % loss, then 110 kB per round (11 MB/s, 10 %
        // faster: within 1/8). Sampling starts at the first loss (end of round 1); the first
        // interval closes at the lossy end of its 4th round (round 5), the second 4 rounds
        // later, and the two agree: policed at their mean, 10.5 MB/s.
        let policed_flow = |rounds: usize| {
            let mut flow = Policed::new();
            let mut verdicts = Vec::new();
            for round in 1..=rounds {
                verdicts.extend(if round <= 5 {
                    flow.round(100_000, 21_000, true)
                } else {
                    flow.round(110_000, 23_100, true)
                });
            }
            (flow, verdicts)
        };
        let (early, verdicts) = policed_flow(8);
        assert!(verdicts.is_empty(), "policed a round early: {verdicts:?}");
        assert_eq!(early.lt.policed_bw(), None);
        let (mut flow, verdicts) = policed_flow(9);
        assert_eq!(verdicts, vec![LtVerdict::Policed]);
        assert_eq!(flow.lt.policed_bw(), Some(10_500_000));

        // 48 rounds in PROBE_BW later, the policed rate is dropped; rounds outside PROBE_BW
        // do not count.
        for _ in 0..10 {
            assert!(flow.round(100_000, 0, false).is_empty());
        }
        for _ in 0..47 {
            assert!(flow.round(100_000, 0, true).is_empty());
        }
        assert_eq!(flow.round(100_000, 0, true), vec![LtVerdict::Expired]);
        assert_eq!(flow.lt.policed_bw(), None);
    }

    #[test]
    fn test_long_term_low_loss_or_inconsistent_rates_not_policed() {
        // 19 % loss is below the 50/256 (19.5 %) threshold.
        let mut flow = Policed::new();
        for _ in 0..20 {
            assert!(flow.round(100_000, 19_000, true).is_empty());
        }
        // 21 % loss, but the second interval is 30 % faster than the first: not consistent,
        // and the third (at the second's rate) then agrees with the second.
        let mut flow = Policed::new();
        let mut verdicts = Vec::new();
        for _ in 0..5 {
            verdicts.extend(flow.round(100_000, 21_000, true));
        }
        for _ in 0..4 {
            verdicts.extend(flow.round(130_000, 27_300, true));
        }
        assert!(verdicts.is_empty(), "{verdicts:?}");
        for _ in 0..4 {
            verdicts.extend(flow.round(130_000, 27_300, true));
        }
        assert_eq!(verdicts, vec![LtVerdict::Policed]);
        assert_eq!(flow.lt.policed_bw(), Some(13_000_000));
    }

    #[test]
    fn test_long_term_interval_abandoned_after_16_rounds_or_app_limited() {
        // Lossy start, then no loss: the interval never closes and is abandoned after 16 rounds;
        // the next loss starts a fresh one.
        let mut flow = Policed::new();
        flow.round(100_000, 25_000, true);
        assert!(flow.lt.sampling);
        for _ in 0..16 {
            flow.round(100_000, 0, true);
        }
        assert!(flow.lt.sampling, "16 rounds are still a valid interval");
        flow.round(100_000, 0, true);
        assert!(!flow.lt.sampling);

        let mut lt = LongTermBw::new();
        let input = LtInput {
            round_start: true,
            in_probe_bw: true,
            losses: true,
            app_limited: true,
            delivered: 1,
            lost: 1,
            delivered_at: SimTime::ZERO,
        };
        lt.on_sample(&input);
        assert!(!lt.sampling, "an app-limited sample resets sampling");
    }
}
