//! HyStart: leaving slow start before the first loss, when the path's queue starts to fill.
//!
//! Three variants, chosen by the TCP profile:
//!
//! - **Linux** (`net/ipv4/tcp_cubic.c`, v5.7 and later; on by default). Once cwnd ≥ 16 segments,
//!   in each round (a round ends when SND.UNA passes the SND.NXT of its start) two detectors run:
//!   - *ACK train*: ACKs arriving within 2 ms of each other form a train; when the train has
//!     lasted longer than half of (delay_min + ack_delay) since the round began, the window
//!     already covers the path's BDP. ack_delay = min(1 ms, 4 × 64 KiB / pacing rate) allows for
//!     GSO bursts; the pacing rate is Linux's slow-start one, 2·cwnd/SRTT.
//!   - *Delay*: the smallest RTT of the round's first 8 samples, compared on each later sample,
//!     exceeds delay_min + clamp(delay_min / 8, 4 ms, 16 ms).
//!
//!   Either sets ssthresh = cwnd: congestion avoidance from the next ACK. delay_min is the
//!   smallest RTT sample since the connection began or the last timeout; a timeout re-arms
//!   HyStart for the slow start after it.
//! - **ns-3** (`TcpCubic`, ns-3.33 and later, ported from an earlier Linux): the ACK train fires
//!   when it has lasted delay_min (not half of it); the round's RTT is the minimum of its first
//!   8 samples only, and the delay test fires when it exceeds delay_min + clamp(delay_min, 4 ms,
//!   1000 ms) (`HystartDelayThresh` is applied to delay_min itself, not to delay_min / 8: the RTT
//!   must double).
//! - **RFC 9406 HyStart++**: per round, the minimum RTT of the round (after at least 8 samples)
//!   is compared with the previous round's; a rise of at least clamp(last / 8, 4 ms, 16 ms)
//!   enters Conservative Slow Start (CSS), which grows the window at a quarter of slow start's
//!   rate. If the RTT falls back below the minimum that triggered CSS, slow start resumes; after
//!   5 rounds of CSS, congestion avoidance begins (ssthresh = cwnd). HyStart++ runs only in the
//!   first slow start (§4.3: after a loss ssthresh is known).
//!
//! Simplifications: Linux ignores delay samples in the first second of a congestion-avoidance
//! epoch when updating delay_min; HyStart only matters in slow start, which follows no such
//! epoch except after a timeout, so that rule is not modelled.

use crate::sim::{Duration, SimTime};

/// Which HyStart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyStartKind {
    Linux,
    Ns3,
    /// RFC 9406.
    PlusPlus,
}

/// Linux and ns-3: HyStart runs once cwnd reaches this many segments (`hystart_low_window`).
const LOW_WINDOW_SEGMENTS: u64 = 16;
/// ACKs closer than this continue a train (`hystart_ack_delta_us`, ns-3 `HyStartAckDelta`).
const ACK_DELTA: Duration = Duration::from_millis(2);
/// RTT samples per round before the delay test (`HYSTART_MIN_SAMPLES`, RFC 9406 N_RTT_SAMPLE).
const MIN_SAMPLES: u32 = 8;
/// Bounds of the delay threshold (`HYSTART_DELAY_MIN/MAX`, RFC 9406 MIN/MAX_RTT_THRESH).
const DELAY_THRESH_MIN: Duration = Duration::from_millis(4);
const DELAY_THRESH_MAX: Duration = Duration::from_millis(16);
/// ns-3's `HyStartDelayMax` default.
const NS3_DELAY_THRESH_MAX: Duration = Duration::from_millis(1000);
/// The delay threshold is the base RTT over this (Linux `>> 3`, RFC 9406 MIN_RTT_DIVISOR).
const DELAY_DIVISOR: u64 = 8;
/// Linux: the GSO burst the ACK-train threshold allows for (GSO_LEGACY_MAX_SIZE), and its cap.
const GSO_BYTES: u64 = 65_536;
const ACK_DELAY_MAX: Duration = Duration::from_millis(1);
/// RFC 9406: CSS grows at 1/CSS_GROWTH_DIVISOR of slow start, for CSS_ROUNDS rounds.
const CSS_GROWTH_DIVISOR: u64 = 4;
const CSS_ROUNDS: u32 = 5;

/// What the controller should do after an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Keep growing as now.
    Continue,
    /// Leave slow start: ssthresh = cwnd.
    Exit,
}

/// What one ACK tells HyStart.
#[derive(Clone, Copy, Debug)]
pub struct HyStartAck {
    pub now: SimTime,
    /// The RTT sample this ACK gave, if any.
    pub rtt: Option<Duration>,
    pub srtt: Option<Duration>,
    /// SND.UNA after the ACK and SND.NXT, for counting rounds.
    pub una: u64,
    pub nxt: u64,
    pub cwnd: u64,
    pub mss: u64,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    kind: HyStartKind,
    /// Off for the rest of the connection (HyStart++ after the first slow start).
    done: bool,
    /// Linux / ns-3: this slow start has been left.
    found: bool,
    /// The round ends when SND.UNA passes this.
    round_end: u64,
    /// Whether a round has begun (before the first, no round is under way).
    in_round: bool,
    round_start: SimTime,
    last_ack: SimTime,
    /// Smallest RTT of this round's samples so far, and their count.
    round_min: Option<Duration>,
    samples: u32,
    /// Smallest RTT of the connection (Linux `delay_min`).
    delay_min: Option<Duration>,
    /// RFC 9406: the previous round's minimum.
    last_round_min: Option<Duration>,
    /// RFC 9406: in CSS, the RTT that triggered it and the rounds spent.
    css: Option<(Duration, u32)>,
}

impl HyStart {
    pub fn new(kind: HyStartKind) -> HyStart {
        HyStart {
            kind,
            done: false,
            found: false,
            round_end: 0,
            in_round: false,
            round_start: SimTime::ZERO,
            last_ack: SimTime::ZERO,
            round_min: None,
            samples: 0,
            delay_min: None,
            last_round_min: None,
            css: None,
        }
    }

    /// Slow start's growth is divided by this (4 in HyStart++'s CSS, else 1).
    pub fn growth_divisor(&self) -> u64 {
        if self.css.is_some() {
            CSS_GROWTH_DIVISOR
        } else {
            1
        }
    }

    /// Whether HyStart++ is in Conservative Slow Start.
    pub fn in_css(&self) -> bool {
        self.css.is_some()
    }

    /// A congestion event ended slow start: HyStart++ is done (RFC 9406 §4.2, loss in SS or
    /// CSS), and a CSS in progress ends.
    pub fn on_loss(&mut self) {
        self.css = None;
        if self.kind == HyStartKind::PlusPlus {
            self.done = true;
        }
    }

    /// A timeout: Linux and ns-3 re-arm HyStart for the slow start that follows and forget
    /// delay_min (`bictcp_reset` zeroes it with the rest of CUBIC's state on TCP_CA_Loss), so
    /// the RTT of the queue an outage left behind becomes the new baseline instead of reading
    /// as a rise; HyStart++ stays off.
    pub fn on_timeout(&mut self) {
        self.on_loss();
        self.found = false;
        self.in_round = false;
        self.delay_min = None;
    }

    /// One ACK in slow start (cwnd < ssthresh).
    pub fn on_ack(&mut self, ack: &HyStartAck) -> Verdict {
        if let Some(rtt) = ack.rtt {
            self.delay_min = Some(self.delay_min.map_or(rtt, |m| m.min(rtt)));
        }
        if self.done {
            return Verdict::Continue;
        }
        match self.kind {
            HyStartKind::Linux | HyStartKind::Ns3 => self.classic(ack),
            HyStartKind::PlusPlus => self.plus_plus(ack),
        }
    }

    fn new_round_if_due(&mut self, ack: &HyStartAck) -> bool {
        if self.in_round && ack.una <= self.round_end {
            return false;
        }
        self.in_round = true;
        self.round_end = ack.nxt;
        self.round_start = ack.now;
        self.last_ack = ack.now;
        self.round_min = None;
        self.samples = 0;
        true
    }

    fn classic(&mut self, ack: &HyStartAck) -> Verdict {
        let (Some(rtt), Some(delay_min)) = (ack.rtt, self.delay_min) else {
            return Verdict::Continue;
        };
        if self.found || ack.cwnd < LOW_WINDOW_SEGMENTS * ack.mss {
            return Verdict::Continue;
        }
        self.new_round_if_due(ack);
        // The ACK train.
        if ack.now - self.last_ack <= ACK_DELTA {
            self.last_ack = ack.now;
            let threshold = match self.kind {
                HyStartKind::Linux => (delay_min + self.linux_ack_delay(ack)) / 2,
                _ => delay_min,
            };
            if ack.now - self.round_start > threshold {
                self.found = true;
            }
        }
        // The delay increase. Linux keeps the round's minimum over all its samples; ns-3 over the
        // first MIN_SAMPLES only.
        if self.kind == HyStartKind::Linux || self.samples < MIN_SAMPLES {
            self.round_min = Some(self.round_min.map_or(rtt, |m| m.min(rtt)));
        }
        if self.samples < MIN_SAMPLES {
            self.samples += 1;
        } else {
            let threshold = match self.kind {
                HyStartKind::Linux => (delay_min / DELAY_DIVISOR).clamp(DELAY_THRESH_MIN, DELAY_THRESH_MAX),
                _ => delay_min.clamp(DELAY_THRESH_MIN, NS3_DELAY_THRESH_MAX),
            };
            if self.round_min.is_some_and(|m| m > delay_min + threshold) {
                self.found = true;
            }
        }
        if self.found {
            Verdict::Exit
        } else {
            Verdict::Continue
        }
    }

    /// Linux `hystart_ack_delay`: how long a GSO burst of 4 × 64 KiB takes at the pacing rate.
    fn linux_ack_delay(&self, ack: &HyStartAck) -> Duration {
        let Some(srtt) = ack.srtt.filter(|s| *s > Duration::ZERO) else {
            return Duration::ZERO;
        };
        // Slow-start pacing rate 2·cwnd/SRTT: 4·GSO bytes take 4·GSO·SRTT / (2·cwnd).
        let picos = u128::from(4 * GSO_BYTES) * u128::from(srtt.as_picos()) / u128::from(2 * ack.cwnd.max(1));
        Duration::from_picos(picos.min(u128::from(u64::MAX)) as u64).min(ACK_DELAY_MAX)
    }

    fn plus_plus(&mut self, ack: &HyStartAck) -> Verdict {
        let previous_round_min = self.round_min;
        if self.new_round_if_due(ack) {
            self.last_round_min = previous_round_min;
            if let Some((baseline, rounds)) = self.css {
                if rounds + 1 >= CSS_ROUNDS {
                    self.css = None;
                    self.done = true;
                    return Verdict::Exit;
                }
                self.css = Some((baseline, rounds + 1));
            }
        }
        let Some(rtt) = ack.rtt else { return Verdict::Continue };
        let round_min = self.round_min.map_or(rtt, |m| m.min(rtt));
        self.round_min = Some(round_min);
        self.samples += 1;
        if self.samples < MIN_SAMPLES {
            return Verdict::Continue;
        }
        match self.css {
            None => {
                if let Some(last) = self.last_round_min {
                    let threshold = (last / DELAY_DIVISOR).clamp(DELAY_THRESH_MIN, DELAY_THRESH_MAX);
                    if round_min >= last + threshold {
                        self.css = Some((round_min, 0));
                    }
                }
            }
            Some((baseline, _)) => {
                if round_min < baseline {
                    self.css = None;
                }
            }
        }
        Verdict::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// Feeds HyStart one round of `acks` ACKs, `spacing` apart from `start`, each with RTT
    /// `rtt`, at cwnd `cwnd_segments`; rounds are 100 bytes of sequence space apart. Returns the
    /// index of the ACK that ended slow start, if one did.
    struct Driver {
        h: HyStart,
        round: u64,
        now: SimTime,
    }

    impl Driver {
        fn new(kind: HyStartKind) -> Driver {
            Driver { h: HyStart::new(kind), round: 0, now: SimTime::ZERO }
        }

        fn round(&mut self, acks: u64, spacing: Duration, rtt: Duration, cwnd_segments: u64) -> Option<u64> {
            self.round += 1;
            let mut exited = None;
            for i in 0..acks {
                let una = (self.round - 1) * 100 + 1 + i * 99 / acks.max(1);
                let ack = HyStartAck {
                    now: self.now,
                    rtt: Some(rtt),
                    srtt: Some(rtt),
                    una,
                    nxt: self.round * 100,
                    cwnd: cwnd_segments * MSS,
                    mss: MSS,
                };
                if self.h.on_ack(&ack) == Verdict::Exit && exited.is_none() {
                    exited = Some(i);
                }
                self.now += spacing;
            }
            exited
        }
    }

    fn ms(x: f64) -> Duration {
        Duration::from_secs_f64(x / 1e3)
    }

    #[test]
    fn test_linux_delay_exit_needs_a_rise_above_the_threshold() {
        // delay_min 20 ms: threshold clamp(20/8, 4, 16) = 4 ms. ACKs 3 ms apart: no ACK train.
        let mut d = Driver::new(HyStartKind::Linux);
        assert_eq!(d.round(12, ms(3.0), ms(20.0), 20), None);
        assert_eq!(d.round(12, ms(3.0), ms(23.9), 20), None, "a rise of 3.9 ms is within the threshold");
        // The delay test runs from the 9th sample of a round on.
        assert_eq!(d.round(12, ms(3.0), ms(24.1), 20), Some(8));
    }

    #[test]
    fn test_linux_never_exits_without_an_rtt_rise_or_ack_train() {
        let mut d = Driver::new(HyStartKind::Linux);
        for _ in 0..50 {
            assert_eq!(d.round(20, ms(3.0), ms(20.0), 64), None);
        }
    }

    #[test]
    fn test_delay_threshold_is_an_eighth_of_the_base_rtt_within_4_and_16_ms() {
        for (base, below, above) in [(100.0, 112.4, 112.6), (200.0, 215.9, 216.1), (10.0, 13.9, 14.1)] {
            let mut d = Driver::new(HyStartKind::Linux);
            d.round(12, ms(3.0), ms(base), 20);
            assert_eq!(d.round(12, ms(3.0), ms(below), 20), None, "base {base} ms, {below} ms");
            assert!(d.round(12, ms(3.0), ms(above), 20).is_some(), "base {base} ms, {above} ms");
        }
    }

    #[test]
    fn test_ns3_delay_exit_needs_the_rtt_to_double() {
        // ns-3's threshold is clamp(delay_min, 4 ms, 1 s): from 20 ms, a round at 39.9 ms stays
        // in slow start (Linux would have left at 24 ms) and one at 40.1 ms leaves it.
        let mut d = Driver::new(HyStartKind::Ns3);
        d.round(12, ms(3.0), ms(20.0), 20);
        assert_eq!(d.round(12, ms(3.0), ms(39.9), 20), None);
        assert_eq!(d.round(12, ms(3.0), ms(40.1), 20), Some(8));
    }

    #[test]
    fn test_ack_train_exit_after_half_the_minimum_rtt_on_linux_and_all_of_it_on_ns3() {
        // ACKs 1 ms apart, constant 20 ms RTT. Linux: threshold (20 + 1)/2 = 10.5 ms (the GSO
        // allowance is capped at 1 ms), so the ACK 11 ms into the round ends slow start.
        let mut d = Driver::new(HyStartKind::Linux);
        assert_eq!(d.round(30, ms(1.0), ms(20.0), 20), Some(11));
        // ns-3: the train must last the whole 20 ms.
        let mut d = Driver::new(HyStartKind::Ns3);
        assert_eq!(d.round(30, ms(1.0), ms(20.0), 20), Some(21));
        // ACKs 3 ms apart do not form a train.
        let mut d = Driver::new(HyStartKind::Linux);
        assert_eq!(d.round(30, ms(3.0), ms(20.0), 20), None);
    }

    #[test]
    fn test_classic_hystart_waits_for_16_segments_and_rearms_after_a_timeout() {
        let mut d = Driver::new(HyStartKind::Linux);
        d.round(12, ms(3.0), ms(20.0), 15);
        assert_eq!(d.round(12, ms(3.0), ms(40.0), 15), None, "below the low window");
        assert!(d.round(12, ms(3.0), ms(40.0), 16).is_some());
        assert_eq!(d.round(12, ms(3.0), ms(40.0), 16), None, "reported once");
        d.h.on_timeout();
        // Re-armed, with delay_min forgotten: the slow start after an outage starts with the
        // queue's RTT (40 ms), which is its new baseline, not a rise over the old 20 ms.
        assert_eq!(d.round(12, ms(3.0), ms(40.0), 16), None, "re-armed, new baseline");
        assert!(d.round(12, ms(3.0), ms(46.0), 16).is_some(), "a rise over the new baseline");
    }

    #[test]
    fn test_hystart_plus_plus_css_then_congestion_avoidance() {
        let mut d = Driver::new(HyStartKind::PlusPlus);
        d.round(10, ms(3.0), ms(20.0), 4);
        // RttThresh = clamp(20/8, 4, 16) = 4 ms: 23.9 ms stays in slow start, 24 ms enters CSS.
        d.round(10, ms(3.0), ms(23.9), 4);
        assert!(!d.h.in_css());
        // (The previous round's minimum is now 23.9 ms: compare with it.)
        d.round(10, ms(3.0), ms(27.9), 4);
        assert!(d.h.in_css(), "27.9 ≥ 23.9 + 4");
        assert_eq!(d.h.growth_divisor(), 4);
        // The RTT falls below the minimum that triggered CSS: back to slow start.
        d.round(10, ms(3.0), ms(20.0), 4);
        assert!(!d.h.in_css());
        assert_eq!(d.h.growth_divisor(), 1);
        d.round(10, ms(3.0), ms(30.0), 4);
        assert!(d.h.in_css());
        // Four more rounds complete CSS_ROUNDS = 5: the fifth round's first ACK ends slow start.
        for _ in 0..4 {
            assert_eq!(d.round(10, ms(3.0), ms(30.0), 4), None);
        }
        assert_eq!(d.round(10, ms(3.0), ms(30.0), 4), Some(0));
        assert!(!d.h.in_css());
    }

    #[test]
    fn test_hystart_plus_plus_is_off_after_a_loss() {
        let mut d = Driver::new(HyStartKind::PlusPlus);
        d.round(10, ms(3.0), ms(20.0), 4);
        d.h.on_loss();
        d.round(10, ms(3.0), ms(40.0), 4);
        assert!(!d.h.in_css(), "only the first slow start (RFC 9406 §4.3)");
    }
}
