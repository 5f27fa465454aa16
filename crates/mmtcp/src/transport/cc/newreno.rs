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
//!
//! **ns-3's counting** ([`Counting::Ns3Acks`], the `ns3` profile): ns-3's `TcpNewReno`
//! (`tcp-congestion-ops.cc`, unchanged from ns-3.25 to ns-3.44) grows per ACK, not per byte:
//!
//! ```text
//! segs = whole segments this ACK newly acknowledged (TcpSocketBase keeps the bytes of partial
//!        segments and adds a segment once they reach SMSS)
//! slow start            cwnd < ssthresh    if segs ≥ 1: cwnd += SMSS, segs −= 1
//!                                          (one SMSS per ACK however many segments it covers)
//! congestion avoidance  cwnd ≥ ssthresh    if segs ≥ 1: cwnd += max(1, ⌊SMSS² / cwnd⌋) bytes
//! ```
//!
//! With delayed ACKs (ns-3's `DelAckCount` = 2) slow start grows 1.5× per RTT and congestion
//! avoidance about half a segment per RTT — less still where ⌊SMSS²/cwnd⌋ truncates — where
//! byte counting gives 2× and one segment. The slow-start increment is not capped at ssthresh.
//! The RFC 7661 check above is kept (ns-3's `TcpNewReno` has none: it grows an
//! application-limited window).

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

/// How NewReno counts what an ACK acknowledged when it grows the window (module header).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Counting {
    /// RFC 3465 byte counting: slow start adds min(acked, 2·SMSS), congestion avoidance one
    /// SMSS per cwnd of acknowledged bytes.
    #[default]
    Bytes,
    /// ns-3's `TcpNewReno`: one SMSS per ACK in slow start, max(1, ⌊SMSS²/cwnd⌋) bytes per ACK
    /// in congestion avoidance, for any ACK that covers at least one whole segment.
    Ns3Acks,
}

/// NewReno (RFC 5681 + RFC 3465 byte counting, or ns-3's per-ACK counting). See the module
/// header for the model.
#[derive(Clone, Debug)]
pub struct NewReno {
    /// Sender maximum segment size (SMSS), bytes.
    mss_bytes: u64,
    counting: Counting,
    /// `Counting::Ns3Acks`: acknowledged bytes not yet counted as a whole segment (ns-3's
    /// `TcpSocketBase::m_bytesAckedNotProcessed`), below one SMSS.
    partial_bytes: u64,
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
        Self::with_counting(mss, initial_window_bytes, Counting::Bytes)
    }

    /// A controller in slow start that counts ACKs as `counting` says.
    pub fn with_counting(mss: u32, initial_window_bytes: u64, counting: Counting) -> Self {
        debug_assert!(mss > 0, "zero MSS");
        NewReno {
            mss_bytes: u64::from(mss),
            counting,
            partial_bytes: 0,
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

    /// ns-3's `TcpSocketBase::ProcessAck` (whole segments acknowledged, partial ones carried)
    /// and `TcpNewReno::IncreaseWindow` (`SlowStart`, then `CongestionAvoidance` with the
    /// segments left).
    fn on_ack_ns3(&mut self, acked_bytes: u64) {
        let bytes = acked_bytes + self.partial_bytes;
        let mut segments = bytes / self.mss_bytes;
        self.partial_bytes = bytes % self.mss_bytes;
        if segments == 0 {
            return;
        }
        if self.cwnd_bytes < self.ssthresh_bytes {
            self.cwnd_bytes += self.mss_bytes;
            segments -= 1;
        }
        if self.cwnd_bytes >= self.ssthresh_bytes && segments > 0 {
            // ⌊SMSS² / cwnd⌋ bytes, at least one (ns-3 truncates a double to uint32_t).
            self.cwnd_bytes += (self.mss_bytes * self.mss_bytes / self.cwnd_bytes).max(1);
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
        if self.counting == Counting::Ns3Acks {
            self.on_ack_ns3(ack.acked_bytes);
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

    fn counting_reno(counting: Counting, initial_segments: u64) -> NewReno {
        NewReno::with_counting(MSS as u32, initial_segments * MSS, counting)
    }

    fn reno(initial_segments: u64) -> NewReno {
        counting_reno(Counting::Bytes, initial_segments)
    }

    /// A NewReno counting as `counting`, already in congestion avoidance at `segments` (a
    /// congestion event at twice that flight; cwnd = ssthresh = `segments`).
    fn counting_reno_in_ca(counting: Counting, segments: u64) -> NewReno {
        let mut cc = counting_reno(counting, 2 * segments);
        cc.on_congestion_event(SimTime::ZERO, 2 * segments * MSS);
        cc.on_recovery_exit(SimTime::ZERO);
        cc
    }

    fn reno_in_ca(segments: u64) -> NewReno {
        counting_reno_in_ca(Counting::Bytes, segments)
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

    // ---- ns-3's per-ACK counting (`ns3` profile) ----------------------------------------------

    fn ns3_reno(initial_segments: u64) -> NewReno {
        counting_reno(Counting::Ns3Acks, initial_segments)
    }

    fn ns3_reno_in_ca(segments: u64) -> NewReno {
        counting_reno_in_ca(Counting::Ns3Acks, segments)
    }

    #[test]
    fn test_ns3_slow_start_adds_one_mss_per_ack_whatever_it_covers() {
        // TcpNewReno::SlowStart: an ACK of 1, 2 or 5 segments opens one segment.
        let mut cc = ns3_reno(10);
        for (i, segments) in [1, 2, 5].into_iter().enumerate() {
            cc.on_ack(&ack(SimTime::ZERO, segments * MSS, true));
            assert_eq!(cc.cwnd(), (11 + i as u64) * MSS, "ACK of {segments} segments");
        }
    }

    #[test]
    fn test_ns3_slow_start_grows_one_and_a_half_per_rtt_with_delayed_acks() {
        // 10 segments = 5 ACKs → 15; 15 segments = 7 ACKs of 2 and one of 1 → 23. Byte counting
        // would give 20 and 40.
        let mut cc = ns3_reno(10);
        let mut clock = AckClock::new(SimTime::ZERO, RTT, MSS, 2);
        clock.rounds(&mut cc, 1);
        assert_eq!(cc.cwnd(), 15 * MSS);
        clock.rounds(&mut cc, 1);
        assert_eq!(cc.cwnd(), 23 * MSS);
    }

    #[test]
    fn test_ns3_congestion_avoidance_adds_mss_squared_over_cwnd_per_ack() {
        // 50 segments: ⌊1000² / 50000⌋ = 20 bytes per ACK, for an ACK of 1 or of 2 segments.
        let mut cc = ns3_reno_in_ca(50);
        cc.on_ack(&ack(SimTime::ZERO, MSS, true));
        assert_eq!(cc.cwnd(), 50_020);
        cc.on_ack(&ack(SimTime::ZERO, 2 * MSS, true));
        assert_eq!(cc.cwnd(), 50_039, "⌊1000² / 50020⌋ = 19");
        // Above SMSS² bytes the increment is floored at one byte.
        let mut big = ns3_reno_in_ca(1_001);
        big.on_ack(&ack(SimTime::ZERO, MSS, true));
        assert_eq!(big.cwnd(), 1_001_001);
    }

    #[test]
    fn test_ns3_congestion_avoidance_grows_half_a_segment_per_rtt_with_delayed_acks() {
        // One ACK per segment: about one SMSS per RTT, as byte counting; one per two segments:
        // about half (the truncation of SMSS²/cwnd takes a little more).
        for (segments_per_ack, low, high) in [(1, 0.9, 1.0), (2, 0.44, 0.5)] {
            let mut cc = ns3_reno_in_ca(50);
            let mut clock = AckClock::new(SimTime::ZERO, RTT, MSS, segments_per_ack);
            clock.rounds(&mut cc, 100);
            let per_rtt = (cc.cwnd() - 50 * MSS) as f64 / MSS as f64 / 100.0;
            assert!(
                (low..=high).contains(&per_rtt),
                "{segments_per_ack} segments per ACK: {per_rtt:.3} segments per RTT"
            );
        }
    }

    #[test]
    fn test_ns3_partial_segments_add_up_to_one_ack_of_growth() {
        // TcpSocketBase keeps the bytes of partial segments: two ACKs of half a segment count as
        // one segment, on the second.
        let mut cc = ns3_reno_in_ca(50);
        cc.on_ack(&ack(SimTime::ZERO, MSS / 2, true));
        assert_eq!(cc.cwnd(), 50 * MSS);
        cc.on_ack(&ack(SimTime::ZERO, MSS / 2, true));
        assert_eq!(cc.cwnd(), 50_020);
    }

    #[test]
    fn test_ns3_slow_start_increment_is_not_capped_at_ssthresh() {
        let mut cc = ns3_reno(10);
        cc.on_rto(SimTime::ZERO, 9 * MSS, false); // ssthresh 4500 bytes, cwnd 1 segment
        for _ in 0..3 {
            cc.on_ack(&ack(SimTime::ZERO, MSS, true));
        }
        assert_eq!(cc.cwnd(), 4 * MSS);
        // The next ACK adds a whole segment, past ssthresh; an ACK of two segments that crosses
        // it also gives its second segment to congestion avoidance.
        cc.on_ack(&ack(SimTime::ZERO, MSS, true));
        assert_eq!(cc.cwnd(), 5 * MSS);
        let mut crossing = ns3_reno(10);
        crossing.on_rto(SimTime::ZERO, 9 * MSS, false);
        crossing.set_window(4 * MSS, 4500);
        crossing.on_ack(&ack(SimTime::ZERO, 2 * MSS, true));
        assert_eq!(crossing.cwnd(), 5 * MSS + MSS * MSS / (5 * MSS));
    }

    #[test]
    fn test_ns3_counting_keeps_the_rfc_7661_check() {
        let mut cc = ns3_reno(10);
        cc.on_ack(&ack(SimTime::ZERO, 2 * MSS, false));
        assert_eq!(cc.cwnd(), 10 * MSS);
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
