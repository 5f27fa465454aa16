//! Receive-buffer autotuning (`receive_buffer = "auto"`), as the Linux 3.18 kernel under the
//! MP-TCP v0.90 release runs it, and the receiver's RTT estimate it paces itself by.
//!
//! The model (Linux 3.18, `net/ipv4/tcp_input.c`; the rule is the same from 3.14 to 4.18):
//!
//! ```text
//!   buffer B      bytes of memory (sk_rcvbuf): payload plus its per-segment overhead
//!   capacity      the payload the buffer holds, B · 2^-adv_win_scale = B/2 (tcp_win_from_space,
//!                 tcp_adv_win_scale = 1 since Linux 3.6); the window advertised is
//!                 capacity − bytes held, data beyond rcv_nxt + capacity is dropped
//!   every read, once a receiver RTT has passed since the period began (tcp_rcv_space_adjust):
//!     copied  = bytes read in the period
//!     if copied > space:                        space: what the last growing period read
//!       rcvwin = 2·copied + 16·MSS              room for a loss round, and a cushion
//!       rcvwin ·= 2    if copied ≥ 1.5·space    the sender may be in slow start
//!       rcvwin ·= 1.5  if copied ≥ 1.25·space
//!       B = max(B, min(⌊rcvwin/MSS⌋ · rcvmem, B_max))      rcvmem: memory of one segment
//!       space = copied
//!     the next period begins now
//! ```
//!
//! With the buffer's overhead equal to what `tcp_adv_win_scale` sets aside (rcvmem = 2·MSS, the
//! least `tcp_rcv_space_adjust`'s loop allows), the capacity after a growth is `rcvwin` itself:
//! a bulk receiver ends with a window near 2 × (bytes read per RTT) + 16 segments, and a buffer
//! twice that, up to B_max (`receive_buffer_max`, `tcp_rmem[2]`: 6 MiB from Linux 3.6 to 6.15,
//! 32 MiB from 6.16) — so a window of at most 3 MiB with the 2015 defaults. The buffer starts at
//! `receive_buffer_initial` (`tcp_rmem[1]`: 87380 B up to 2018, 131072 B after commit
//! a337531b942b) and the first period's `space` is the first window the receiver offers,
//! `TCP_DEFAULT_INIT_RCVWND` = 10 segments (`tcp_select_initial_window`, fewer above a 1460-byte
//! MSS).
//!
//! An MP-TCP connection (v0.90, `mptcp_init_buffer_space`, `mptcp_check_rtt`) tunes one buffer,
//! the connection's: it starts at the first subflow's initial buffer, each subflow that joins
//! adds its own (up to B_max), and a period lasts the largest receiver RTT among the subflows —
//! so the buffer follows the connection's rate × the slowest path's RTT.
//!
//! The receiver's RTT (`rcv_rtt_est`): without timestamps, Linux times how long one advertised
//! window of data takes to arrive (`tcp_rcv_rtt_measure`, Dynamic Right-Sizing), and a sample
//! replaces the estimate unless it is eight times larger. With timestamps it also smooths
//! now − TSecr (`tcp_rcv_rtt_measure_ts`, gain 1/8) for every full-sized segment, which dominates.
//!
//! Simplified model:
//! - the application reads in-order data at once, so "copied" is what has been delivered in
//!   order, and a period is timed from the reads of delivered data;
//! - with timestamps, the estimate is the sender's smoothed RTT: mmtcp's data segments carry no
//!   TSecr (their second time is the first transmission), and now − TSecr measures the same
//!   round trip the sender's samples do (they differ by the receiver's delayed-ACK wait and the
//!   sender's own wait, both small for a bulk flow). Without timestamps the window rule runs as
//!   Linux's;
//! - a segment's memory is exactly what `tcp_adv_win_scale` reserves (Linux's `truesize` of a
//!   1448-byte segment is about 1.6 × its payload, so Linux's window is a few % larger);
//! - `rcv_ssthresh` (the receive window's own slow start, `tcp_grow_window`: +2 segments per
//!   segment received from a first window of 10) is not modelled: it outgrows any sender's slow
//!   start, so it never limits a bulk flow after the first round trip;
//! - newer kernels (4.19+) scale the growth by the rate's increase instead of the 1.5/2 steps,
//!   and 6.x replaces the fixed half by `scaling_ratio`, the measured payload/truesize ratio.

use crate::sim::{Duration, SimTime};
use crate::units::Bytes;

/// `tcp_rmem[2]` of Linux 3.6–6.15 (`receive_buffer_max`'s default): 6 MiB, so a 3 MiB window.
pub const DEFAULT_MAX: Bytes = Bytes(6 << 20);
/// `tcp_rmem[1]` of Linux up to 2018 (`receive_buffer_initial`'s default).
pub const DEFAULT_INITIAL: Bytes = Bytes(87_380);
/// `tcp_adv_win_scale` of Linux 3.6–6.5: the window is 1 − 2⁻¹ of the buffer.
pub const ADV_WIN_SCALE: u32 = 1;
/// `TCP_DEFAULT_INIT_RCVWND`: the first window, in segments of at most 1460 bytes.
const INIT_RCVWND_SEGMENTS: u64 = 10;
/// The cushion `tcp_rcv_space_adjust` adds to twice what was read, in segments.
const CUSHION_SEGMENTS: u64 = 16;

/// The payload a buffer of `space` bytes of memory holds (`tcp_win_from_space`).
pub fn win_from_space(space: u64) -> u64 {
    space - (space >> ADV_WIN_SCALE)
}

/// The buffer that holds `window` bytes of payload (the inverse of [`win_from_space`]).
pub fn space_from_win(window: u64) -> u64 {
    window << ADV_WIN_SCALE
}

/// What autotuning needs to know of its flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AutotuneConfig {
    /// The buffer it starts with, bytes of memory (`tcp_rmem[1]`).
    pub initial: u64,
    /// The most it grows to (`tcp_rmem[2]`).
    pub max: u64,
    /// The segment size (advmss), bytes.
    pub mss: u64,
}

/// The buffer and the measurement of what the application read (Linux's `sk_rcvbuf` and
/// `rcvq_space`).
#[derive(Clone, Debug)]
pub struct RcvSpace {
    cfg: AutotuneConfig,
    /// `sk_rcvbuf`, bytes of memory.
    buffer: u64,
    /// `rcvq_space.space`: bytes read in the last period that grew the buffer.
    space: u64,
    /// `rcvq_space.seq` and `.time`: where and when the current period began; `None` before the
    /// connection is established.
    since: Option<(u64, SimTime)>,
    /// Periods that grew the buffer.
    pub growths: u64,
}

impl RcvSpace {
    pub fn new(cfg: AutotuneConfig) -> Self {
        RcvSpace { cfg, buffer: cfg.initial.min(cfg.max), space: 0, since: None, growths: 0 }
    }

    /// The buffer, bytes of memory.
    pub fn buffer(&self) -> u64 {
        self.buffer
    }

    /// The most the buffer grows to, bytes of memory.
    pub fn max(&self) -> u64 {
        self.cfg.max
    }

    /// The payload the buffer holds: the largest window.
    pub fn capacity(&self) -> u64 {
        win_from_space(self.buffer)
    }

    /// The first window the receiver offers (`tcp_select_initial_window`): 10 segments (14600/MSS
    /// above a 1460-byte MSS, at least 2), within the buffer.
    fn first_window(&self) -> u64 {
        let mss = self.cfg.mss;
        let segments =
            if mss > 1460 { (1460 * INIT_RCVWND_SEGMENTS / mss).max(2) } else { INIT_RCVWND_SEGMENTS };
        (segments * mss).min(self.capacity())
    }

    /// The connection is established at `now` with everything below `seq` read
    /// (`tcp_init_buffer_space`): the first period begins. Later calls do nothing.
    pub fn start(&mut self, now: SimTime, seq: u64) {
        if self.since.is_none() {
            self.space = self.first_window();
            self.since = Some((seq, now));
        }
    }

    /// Another MP-TCP subflow joined (v0.90 `mptcp_init_buffer_space`): the connection's buffer
    /// grows by a subflow's initial buffer, up to the maximum.
    pub fn add_subflow(&mut self) {
        self.buffer = (self.buffer + self.cfg.initial).min(self.cfg.max).max(self.buffer);
    }

    /// The application has read everything below `copied` at `now` (`tcp_rcv_space_adjust`);
    /// `rtt` is the receiver's RTT estimate (none yet: no period ends). True when the buffer grew.
    pub fn adjust(&mut self, now: SimTime, copied: u64, rtt: Option<Duration>) -> bool {
        let Some((seq, began)) = self.since else { return false };
        let Some(rtt) = rtt else { return false };
        if now.saturating_since(began) < rtt {
            return false;
        }
        let read = copied - seq;
        let mut grew = false;
        if read > self.space {
            let mss = self.cfg.mss;
            let mut rcvwin = 2 * read + CUSHION_SEGMENTS * mss;
            // The rate rose by half or by a quarter in one period: the sender may be doubling
            // its window (slow start), and the ACK now sent is for the next period.
            if read >= self.space + self.space / 2 {
                rcvwin *= 2;
            } else if read >= self.space + self.space / 4 {
                rcvwin += rcvwin / 2;
            }
            let rcvmem = space_from_win(mss);
            let buffer = (rcvwin / mss * rcvmem).min(self.cfg.max);
            if buffer > self.buffer {
                self.buffer = buffer;
                self.growths += 1;
                grew = true;
            }
            self.space = read;
        }
        self.since = Some((copied, now));
        grew
    }
}

/// The receiver's estimate of the round trip (`rcv_rtt_est`).
#[derive(Clone, Debug)]
pub struct RcvRtt {
    /// Timestamps are on: the sender's smoothed RTT stands for the timestamp-based estimate.
    timestamps: bool,
    /// The sender's RTT has been given: the window rule stands down. Where nobody gives it (a
    /// split proxy's receiving half), the window rule runs, as without timestamps.
    from_sender: bool,
    rtt: Option<Duration>,
    /// `rcv_rtt_est.seq` and `.time`: the window being timed ends when `rcv_nxt` reaches the
    /// sequence number; it began at the time.
    window: Option<(u64, SimTime)>,
}

impl RcvRtt {
    pub fn new(timestamps: bool) -> Self {
        RcvRtt { timestamps, from_sender: false, rtt: None, window: None }
    }

    pub fn get(&self) -> Option<Duration> {
        self.rtt
    }

    /// With timestamps, the estimate now − TSecr smooths: the sender's smoothed RTT stands for it
    /// (see the module's simplified model).
    pub fn from_sender(&mut self, srtt: Option<Duration>) {
        if self.timestamps && srtt.is_some() {
            self.rtt = srtt;
            self.from_sender = true;
        }
    }

    /// In-order data up to `rcv_nxt` arrived at `now`, with `window` the window last advertised
    /// (`tcp_rcv_rtt_measure`; stands down once the sender's RTT is given): a window's worth of
    /// data arrived since the timing began → a sample, which replaces the estimate unless eight
    /// times larger (Linux 3.18 `tcp_rcv_rtt_update` with `win_dep`); then the next window is
    /// timed.
    pub fn on_in_order(&mut self, now: SimTime, rcv_nxt: u64, window: u64) {
        if self.from_sender {
            return;
        }
        if let Some((end, began)) = self.window {
            if rcv_nxt < end {
                return;
            }
            let sample = now.saturating_since(began).max(Duration(1));
            if self.rtt.is_none_or(|rtt| sample < rtt.saturating_mul(8)) {
                self.rtt = Some(sample);
            }
        }
        self.window = Some((rcv_nxt + window, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn at_ms(ms: u64) -> SimTime {
        SimTime::ZERO + Duration::from_millis(ms)
    }

    fn space(initial: u64, max: u64) -> RcvSpace {
        RcvSpace::new(AutotuneConfig { initial, max, mss: MSS })
    }

    // --- the buffer ---

    #[test]
    fn test_window_is_half_the_buffer() {
        assert_eq!(win_from_space(87_380), 43_690);
        assert_eq!(space_from_win(43_690), 87_380);
        assert_eq!(space(100_000, 1 << 20).capacity(), 50_000);
    }

    #[test]
    fn test_first_period_begins_at_establishment_with_ten_segments() {
        let mut s = space(100_000, 1 << 20);
        // Not established: nothing is measured.
        assert!(!s.adjust(at_ms(100), 50_000, Some(Duration::from_millis(10))));
        s.start(at_ms(0), 0);
        assert_eq!(s.space, 10 * MSS);
        let mut big = RcvSpace::new(AutotuneConfig { initial: 100_000, max: 1 << 20, mss: 9000 });
        big.start(at_ms(0), 0);
        assert_eq!(big.space, 18_000, "14600/9000 = 1 segment, raised to the least, 2");
        let mut tiny = space(4000, 1 << 20);
        tiny.start(at_ms(0), 0);
        assert_eq!(tiny.space, 2000, "the first window lies within the buffer");
    }

    #[test]
    fn test_no_period_ends_before_a_receiver_rtt() {
        let mut s = space(100_000, 1 << 20);
        s.start(at_ms(0), 0);
        let rtt = Some(Duration::from_millis(10));
        assert!(!s.adjust(at_ms(9), 40_000, rtt), "9 ms < 10 ms");
        assert!(!s.adjust(at_ms(20), 40_000, None), "no RTT estimate yet");
        assert_eq!(s.buffer(), 100_000);
        assert!(s.adjust(at_ms(10), 40_000, rtt));
    }

    #[test]
    fn test_growth_known_answers() {
        let rtt = Some(Duration::from_millis(10));
        // Read 4x the first space (10 000): rate up by more than half → rcvwin doubled:
        // 2 · (2 · 40 000 + 16 000) = 192 000; buffer 192 segments × 2000 = 384 000.
        let mut s = space(100_000, 1 << 20);
        s.start(at_ms(0), 0);
        assert!(s.adjust(at_ms(10), 40_000, rtt));
        assert_eq!((s.buffer(), s.capacity(), s.space), (384_000, 192_000, 40_000));
        // Next period reads 55 000 = 1.375 × 40 000: rcvwin · 1.5 = 1.5 · 126 000 = 189 000;
        // 189 segments × 2000 = 378 000 < 384 000: no growth, but space follows.
        assert!(!s.adjust(at_ms(20), 95_000, rtt));
        assert_eq!((s.buffer(), s.space), (384_000, 55_000));
        // Next reads 60 000 < 1.25 × 55 000: rcvwin = 136 000, 272 000 < 384 000.
        assert!(!s.adjust(at_ms(30), 155_000, rtt));
        // Reading no more than space changes nothing but the period.
        assert!(!s.adjust(at_ms(40), 155_000 + 50_000, rtt));
        assert_eq!(s.space, 60_000);
        assert_eq!(s.since, Some((205_000, at_ms(40))));
    }

    #[test]
    fn test_growth_stops_at_the_maximum() {
        let rtt = Some(Duration::from_millis(10));
        let mut s = space(100_000, 300_000);
        s.start(at_ms(0), 0);
        let mut copied = 0;
        for k in 1..20 {
            copied += 1_000_000;
            s.adjust(at_ms(10 * k), copied, rtt);
            assert!(s.buffer() <= 300_000);
        }
        assert_eq!(s.buffer(), 300_000);
        // A maximum below the initial buffer caps it from the start.
        assert_eq!(space(100_000, 60_000).buffer(), 60_000);
    }

    #[test]
    fn test_a_joining_subflow_adds_an_initial_buffer_up_to_the_maximum() {
        let mut s = space(100_000, 250_000);
        s.add_subflow();
        assert_eq!(s.buffer(), 200_000);
        s.add_subflow();
        assert_eq!(s.buffer(), 250_000);
    }

    // --- the receiver's RTT ---

    #[test]
    fn test_rtt_with_timestamps_is_the_senders() {
        let mut r = RcvRtt::new(true);
        r.from_sender(None);
        r.on_in_order(at_ms(0), 0, 10_000);
        r.on_in_order(at_ms(50), 10_000, 10_000);
        assert_eq!(r.get(), Some(Duration::from_millis(50)), "no sender sample yet: the window rule");
        r.from_sender(Some(Duration::from_millis(30)));
        assert_eq!(r.get(), Some(Duration::from_millis(30)));
        r.on_in_order(at_ms(60), 20_000, 10_000);
        r.on_in_order(at_ms(70), 30_000, 10_000);
        assert_eq!(r.get(), Some(Duration::from_millis(30)), "then the window rule stands down");
        r.from_sender(None);
        assert_eq!(r.get(), Some(Duration::from_millis(30)), "a sender without a sample keeps it");
    }

    #[test]
    fn test_rtt_without_timestamps_times_a_window() {
        let mut r = RcvRtt::new(false);
        r.from_sender(Some(Duration::from_millis(30)));
        assert_eq!(r.get(), None, "no timestamps: the sender's estimate is not seen");
        r.on_in_order(at_ms(0), 1000, 10_000); // times bytes up to 11 000
        r.on_in_order(at_ms(5), 6000, 10_000);
        assert_eq!(r.get(), None);
        r.on_in_order(at_ms(20), 11_000, 20_000); // 20 ms; next: up to 31 000
        assert_eq!(r.get(), Some(Duration::from_millis(20)));
        r.on_in_order(at_ms(200), 31_000, 20_000); // 180 ms > 8 × 20: kept
        assert_eq!(r.get(), Some(Duration::from_millis(20)));
        r.on_in_order(at_ms(250), 51_000, 20_000); // 50 ms < 160 ms: taken
        assert_eq!(r.get(), Some(Duration::from_millis(50)));
    }
}
