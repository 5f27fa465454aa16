//! NewReno congestion control: RFC 5681 §3.1 with RFC 3465 byte counting.
//!
//! The model, with every window in bytes and SMSS = `mss`:
//!
//! ```text
//! slow start            cwnd < ssthresh    per ACK:  cwnd += min(acked, L),  L = 2·SMSS    (RFC 3465 §2.2)
//! congestion avoidance  cwnd >= ssthresh   per ACK:  bytes_acked += acked;
//!                                          when bytes_acked >= cwnd:
//!                                              bytes_acked -= cwnd, cwnd += SMSS          (RFC 3465 §2.1)
//! congestion event      ssthresh = max(FlightSize / 2, 2·SMSS), cwnd = ssthresh           (RFC 5681 eq. 4)
//! timeout               ssthresh = max(FlightSize / 2, 2·SMSS), cwnd = 1·SMSS             (RFC 5681 §3.1)
//! ```
//!
//! ```text
//!             ack (cwnd reaches ssthresh)
//!   ┌────────────┐ ─────────────────────────► ┌──────────────────────┐
//!   │ slow start │                            │ congestion avoidance │
//!   └────────────┘ ◄───────────────────────── └──────────────────────┘
//!         ▲                 RTO                  │ congestion event
//!         │ RTO                                  ▼ (sender runs fast recovery,
//!         └──────────────────────────────  RFC 6582; no on_ack until it ends)
//! ```
//!
//! Fast recovery itself (RFC 6582 window inflation, the RFC 6675 pipe) is the sender's: this
//! controller sets `cwnd = ssthresh` on entry, which is the post-recovery window of RFC 6582
//! §3.2 step 3 option 2 ("Set cwnd to ssthresh"), so leaving recovery only clears the byte
//! counter.
//!
//! No window growth happens on an ACK that says the sender was not cwnd-limited (RFC 7661 §4.3:
//! the window must not grow past what the flow has validated). Deviations: none known; the
//! slow-start increment is capped at ssthresh, and the bytes of the crossing ACK beyond it feed
//! congestion avoidance (RFC 5681 leaves either choice open when cwnd reaches ssthresh).

use super::{AckSample, CongestionControl};
use crate::sim::SimTime;

/// RFC 3465 §2.2 limit L on the slow-start increase per ACK, in segments. L = 2·SMSS lets a
/// delayed ACK covering two segments count in full (slow start still doubles per RTT with RFC
/// 1122 delayed ACKs) while capping the burst a stretch ACK can release.
const ABC_LIMIT_SEGMENTS: u64 = 2;

/// Smallest ssthresh after a congestion event, in segments: RFC 5681 eq. (4), so that fast
/// retransmit can still be triggered by duplicate ACKs after the reduction.
const MIN_SSTHRESH_SEGMENTS: u64 = 2;

/// RFC 5681 §3.1 slow start with RFC 3465 appropriate byte counting (L = 2·SMSS), shared by
/// every loss-based controller here. All quantities are bytes.
///
/// Returns the new cwnd, capped at `ssthresh_bytes`, and the acknowledged bytes left over once
/// the cap was reached (zero while cwnd stays below ssthresh). The caller feeds the leftover to
/// its congestion-avoidance rule, so one ACK that crosses ssthresh does not lose its tail.
pub(super) fn slow_start(
    cwnd_bytes: u64,
    ssthresh_bytes: u64,
    acked_bytes: u64,
    mss_bytes: u64,
) -> (u64, u64) {
    debug_assert!(cwnd_bytes < ssthresh_bytes, "slow start above ssthresh");
    let increase_bytes = acked_bytes.min(ABC_LIMIT_SEGMENTS * mss_bytes);
    let room_bytes = ssthresh_bytes - cwnd_bytes;
    if increase_bytes < room_bytes {
        (cwnd_bytes + increase_bytes, 0)
    } else {
        (ssthresh_bytes, acked_bytes - room_bytes)
    }
}

/// RFC 5681 eq. (4) with a FlightSize in bytes: max(FlightSize / 2, 2·SMSS).
pub(super) fn half_flight_ssthresh(in_flight_bytes: u64, mss_bytes: u64) -> u64 {
    (in_flight_bytes / 2).max(MIN_SSTHRESH_SEGMENTS * mss_bytes)
}

/// NewReno (RFC 5681 + RFC 3465 byte counting). See the module header for the model.
#[derive(Clone, Debug)]
pub struct NewReno {
    /// Sender maximum segment size (SMSS), bytes.
    mss_bytes: u64,
    /// Congestion window, bytes.
    cwnd_bytes: u64,
    /// Slow-start threshold, bytes; `u64::MAX` until the first congestion event.
    ssthresh_bytes: u64,
    /// RFC 3465 §2.1 `bytes_acked`: bytes acknowledged in congestion avoidance since cwnd last
    /// grew by one SMSS.
    ca_acked_bytes: u64,
}

impl NewReno {
    /// A controller in slow start with `initial_window_bytes` (RFC 6928: 10 segments is usual).
    pub fn new(mss: u32, initial_window_bytes: u64) -> Self {
        debug_assert!(mss > 0, "zero MSS");
        NewReno {
            mss_bytes: u64::from(mss),
            cwnd_bytes: initial_window_bytes,
            ssthresh_bytes: u64::MAX,
            ca_acked_bytes: 0,
        }
    }

    /// RFC 3465 §2.1 byte counting: one SMSS per cwnd's worth of acknowledged bytes.
    fn congestion_avoidance(&mut self, acked_bytes: u64) {
        self.ca_acked_bytes += acked_bytes;
        if self.ca_acked_bytes >= self.cwnd_bytes {
            self.ca_acked_bytes -= self.cwnd_bytes;
            self.cwnd_bytes += self.mss_bytes;
        }
    }
}

impl CongestionControl for NewReno {
    fn cwnd(&self) -> u64 {
        self.cwnd_bytes
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh_bytes
    }

    fn on_ack(&mut self, ack: &AckSample) {
        // RFC 7661 §4.3: a flow that did not use its window has not validated a larger one.
        if !ack.cwnd_limited {
            return;
        }
        let mut acked_bytes = ack.acked_bytes;
        if self.cwnd_bytes < self.ssthresh_bytes {
            let (cwnd_bytes, leftover_bytes) =
                slow_start(self.cwnd_bytes, self.ssthresh_bytes, acked_bytes, self.mss_bytes);
            self.cwnd_bytes = cwnd_bytes;
            acked_bytes = leftover_bytes;
        }
        if acked_bytes > 0 {
            self.congestion_avoidance(acked_bytes);
        }
    }

    fn on_congestion_event(&mut self, _now: SimTime, in_flight: u64) {
        // RFC 5681 eq. (4), and RFC 6582 §3.2 step 3 option 2: cwnd = ssthresh.
        self.ssthresh_bytes = half_flight_ssthresh(in_flight, self.mss_bytes);
        self.cwnd_bytes = self.ssthresh_bytes;
        self.ca_acked_bytes = 0;
    }

    fn on_rto(&mut self, _now: SimTime, in_flight: u64, already_reduced: bool) {
        // RFC 5681 §3.1: ssthresh by eq. (4), cwnd = loss window (LW) = 1 SMSS.
        if !already_reduced {
            self.ssthresh_bytes = half_flight_ssthresh(in_flight, self.mss_bytes);
        }
        self.cwnd_bytes = self.mss_bytes;
        self.ca_acked_bytes = 0;
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        // cwnd already equals ssthresh (set on entry); start byte counting afresh.
        self.ca_acked_bytes = 0;
    }

    fn set_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd_bytes = cwnd;
        self.ssthresh_bytes = ssthresh;
    }
}

/// A deterministic ACK clock for controller tests, shared with `cubic.rs`: one flow, fixed RTT,
/// no queueing, no losses unless the test injects them.
#[cfg(test)]
pub(super) mod ack_clock {
    use super::super::{AckSample, CongestionControl};
    use crate::sim::{Duration, SimTime};

    /// Drives a controller one round trip at a time. A round acknowledges exactly the cwnd bytes
    /// that were in flight when it began (what the previous round's ACKs released), as ACKs of
    /// `segments_per_ack` segments each (2 = RFC 1122 delayed ACKs) spaced evenly over the RTT,
    /// the last ACK — possibly partial — at the end of the round.
    pub(in super::super) struct AckClock {
        /// Time of the last ACK delivered (the end of the last round).
        pub now: SimTime,
        pub rtt: Duration,
        pub mss_bytes: u64,
        pub segments_per_ack: u64,
        /// Reported in every ACK of the following rounds.
        pub cwnd_limited: bool,
        /// Bytes acknowledged so far (SND.UNA).
        pub una: u64,
    }

    impl AckClock {
        pub fn new(now: SimTime, rtt: Duration, mss_bytes: u64, segments_per_ack: u64) -> Self {
            AckClock { now, rtt, mss_bytes, segments_per_ack, cwnd_limited: true, una: 0 }
        }

        /// One round trip; `observe` sees the controller after each ACK, with the ACK's time.
        pub fn round_observed<C: CongestionControl>(&mut self, cc: &mut C, observe: impl FnMut(SimTime, &C)) {
            self.round_with(cc, |_| {}, observe);
        }

        /// One round trip of an MP-TCP subflow: `before` runs just before each ACK is handed to
        /// the controller (where the connection calls `couple`).
        pub fn round_coupled<C: CongestionControl>(&mut self, cc: &mut C, before: impl FnMut(&mut C)) {
            self.round_with(cc, before, |_, _| {});
        }

        fn round_with<C: CongestionControl>(
            &mut self,
            cc: &mut C,
            mut before: impl FnMut(&mut C),
            mut observe: impl FnMut(SimTime, &C),
        ) {
            let start = self.now;
            let flight_bytes = cc.cwnd();
            let ack_bytes = self.mss_bytes * self.segments_per_ack;
            let acks = flight_bytes.div_ceil(ack_bytes);
            let nxt = self.una + flight_bytes;
            for i in 1..=acks {
                let now = start + Duration::from_picos(self.rtt.as_picos() * i / acks);
                let acked_bytes = ack_bytes.min(flight_bytes - (i - 1) * ack_bytes);
                self.una += acked_bytes;
                before(cc);
                cc.on_ack(&AckSample {
                    now,
                    acked_bytes,
                    srtt: Some(self.rtt),
                    min_rtt: Some(self.rtt),
                    rtt: Some(self.rtt),
                    una: self.una,
                    nxt,
                    cwnd_limited: self.cwnd_limited,
                    ..AckSample::default()
                });
                observe(now, cc);
            }
            self.now = start + self.rtt;
        }

        /// `n` round trips.
        pub fn rounds<C: CongestionControl>(&mut self, cc: &mut C, n: u32) {
            for _ in 0..n {
                self.round_observed(cc, |_, _| {});
            }
        }

        /// Time passes with nothing acknowledged (fast recovery, or an idle sender).
        pub fn wait(&mut self, d: Duration) {
            self.now += d;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ack_clock::AckClock;
    use super::*;
    use crate::sim::Duration;

    const MSS: u64 = 1000;
    const RTT: Duration = Duration::from_millis(20);

    fn reno(initial_segments: u64) -> NewReno {
        NewReno::new(MSS as u32, initial_segments * MSS)
    }

    /// A NewReno already in congestion avoidance at `segments` (a congestion event at twice that
    /// flight; cwnd = ssthresh = `segments`).
    fn reno_in_ca(segments: u64) -> NewReno {
        let mut cc = reno(2 * segments);
        cc.on_congestion_event(SimTime::ZERO, 2 * segments * MSS);
        cc.on_recovery_exit(SimTime::ZERO);
        cc
    }

    // ---- slow start ---------------------------------------------------------------------------

    #[test]
    fn test_slow_start_ack_doubles_per_rtt() {
        let mut cc = reno(10);
        let mut clock = AckClock::new(SimTime::ZERO, RTT, MSS, 1);
        for round in 0..6 {
            assert_eq!(cc.cwnd(), (10 << round) * MSS, "round {round}");
            clock.rounds(&mut cc, 1);
        }
        assert_eq!(cc.ssthresh(), u64::MAX);
    }

    #[test]
    fn test_slow_start_delayed_ack_doubles_per_rtt() {
        // L = 2·SMSS: an ACK for two segments opens two segments (RFC 3465 §2.2).
        let mut cc = reno(10);
        let mut clock = AckClock::new(SimTime::ZERO, RTT, MSS, 2);
        clock.rounds(&mut cc, 3);
        assert_eq!(cc.cwnd(), 80 * MSS);
    }

    #[test]
    fn test_slow_start_stretch_ack_limited_to_two_mss() {
        let mut cc = reno(10);
        cc.on_ack(&ack(SimTime::ZERO, 5 * MSS, true));
        assert_eq!(cc.cwnd(), 12 * MSS);
    }

    #[test]
    fn test_slow_start_ack_stops_at_ssthresh() {
        let mut cc = reno(10);
        cc.on_rto(SimTime::ZERO, 9 * MSS, false); // ssthresh 4.5 segments, cwnd 1 segment
        assert_eq!(cc.ssthresh(), 4500);
        let mut clock = AckClock::new(SimTime::ZERO, RTT, MSS, 1);
        clock.rounds(&mut cc, 2); // 1 → 2 → 4 segments
        assert_eq!(cc.cwnd(), 4 * MSS);
        // Next ACK would add 1000 bytes; cwnd stops at ssthresh and the other 500 bytes are
        // counted by congestion avoidance.
        cc.on_ack(&ack(clock.now, MSS, true));
        assert_eq!(cc.cwnd(), 4500);
        assert_eq!(cc.ca_acked_bytes, 500);
    }

    #[test]
    fn test_slow_start_app_limited_no_growth() {
        let mut cc = reno(10);
        let mut clock = AckClock::new(SimTime::ZERO, RTT, MSS, 1);
        clock.cwnd_limited = false;
        clock.rounds(&mut cc, 5);
        assert_eq!(cc.cwnd(), 10 * MSS);
    }

    // ---- congestion avoidance -----------------------------------------------------------------

    #[test]
    fn test_congestion_avoidance_ack_adds_one_mss_per_rtt() {
        for segments_per_ack in [1, 2] {
            let mut cc = reno_in_ca(50);
            let mut clock = AckClock::new(SimTime::ZERO, RTT, MSS, segments_per_ack);
            for round in 0..200 {
                assert_eq!(cc.cwnd(), (50 + round) * MSS, "delack {segments_per_ack}");
                clock.rounds(&mut cc, 1);
            }
        }
    }

    #[test]
    fn test_congestion_avoidance_ack_unaligned_window_one_mss_per_rtt() {
        // A window that is not a whole number of segments still grows one SMSS per cwnd bytes.
        let mut cc = reno(100);
        cc.on_congestion_event(SimTime::ZERO, 101_001); // ssthresh = cwnd = 50_500 bytes
        assert_eq!(cc.cwnd(), 50_500);
        let mut clock = AckClock::new(SimTime::ZERO, RTT, MSS, 1);
        clock.rounds(&mut cc, 100);
        assert_eq!(cc.cwnd(), 50_500 + 100 * MSS);
    }

    #[test]
    fn test_congestion_avoidance_app_limited_no_growth() {
        let mut cc = reno_in_ca(50);
        let mut clock = AckClock::new(SimTime::ZERO, RTT, MSS, 1);
        clock.cwnd_limited = false;
        clock.rounds(&mut cc, 10);
        assert_eq!(cc.cwnd(), 50 * MSS);
        // Bytes acknowledged while not cwnd-limited do not count towards the next increase.
        assert_eq!(cc.ca_acked_bytes, 0);
    }

    #[test]
    fn test_congestion_avoidance_loss_halves_flight() {
        let mut cc = reno_in_ca(50);
        cc.on_congestion_event(SimTime::ZERO, 40 * MSS);
        assert_eq!(cc.ssthresh(), 20 * MSS);
        assert_eq!(cc.cwnd(), 20 * MSS);
    }

    #[test]
    fn test_congestion_avoidance_loss_small_flight_floor_two_mss() {
        let mut cc = reno_in_ca(50);
        cc.on_congestion_event(SimTime::ZERO, 3 * MSS);
        assert_eq!(cc.ssthresh(), 2 * MSS);
        assert_eq!(cc.cwnd(), 2 * MSS);
    }

    // ---- fast recovery ------------------------------------------------------------------------

    #[test]
    fn test_recovery_exit_restarts_byte_counting() {
        let mut cc = reno_in_ca(50);
        let mut clock = AckClock::new(SimTime::ZERO, RTT, MSS, 1);
        for _ in 0..30 {
            cc.on_ack(&ack(clock.now, MSS, true));
        }
        assert_eq!(cc.ca_acked_bytes, 30 * MSS);
        cc.on_congestion_event(clock.now, 60 * MSS);
        clock.wait(RTT);
        cc.on_recovery_exit(clock.now);
        assert_eq!(cc.cwnd(), 30 * MSS);
        assert_eq!(cc.ca_acked_bytes, 0);
        clock.rounds(&mut cc, 1);
        assert_eq!(cc.cwnd(), 31 * MSS);
    }

    // ---- retransmission timeout ---------------------------------------------------------------

    #[test]
    fn test_congestion_avoidance_rto_one_mss_then_slow_start_to_half_flight() {
        let mut cc = reno_in_ca(100);
        cc.on_rto(SimTime::ZERO, 60 * MSS, false);
        assert_eq!(cc.cwnd(), MSS);
        assert_eq!(cc.ssthresh(), 30 * MSS);
        let mut clock = AckClock::new(SimTime::ZERO, RTT, MSS, 1);
        for expected in [2, 4, 8, 16, 30, 31, 32] {
            clock.rounds(&mut cc, 1);
            assert_eq!(cc.cwnd(), expected * MSS);
        }
    }

    #[test]
    fn test_recovery_rto_keeps_the_recovery_ssthresh() {
        let mut cc = reno_in_ca(100);
        cc.on_congestion_event(SimTime::ZERO, 100 * MSS);
        assert_eq!(cc.ssthresh(), 50 * MSS);
        // A timeout during that recovery, with a FlightSize swollen to 400 segments by data sent
        // while the first hole stayed open: ssthresh stays at the recovery's 50 segments.
        cc.on_rto(SimTime::ZERO, 400 * MSS, true);
        assert_eq!(cc.ssthresh(), 50 * MSS);
        assert_eq!(cc.cwnd(), MSS);
    }

    fn ack(now: SimTime, acked_bytes: u64, cwnd_limited: bool) -> AckSample {
        AckSample {
            now,
            acked_bytes,
            srtt: Some(RTT),
            min_rtt: Some(RTT),
            cwnd_limited,
            ..AckSample::default()
        }
    }
}
