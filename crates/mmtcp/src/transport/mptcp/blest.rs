//! BLEST, blocking estimation (Ferlin, Alay, Mehani, Boreli, "BLEST: Blocking Estimation-based
//! MPTCP Scheduler for Heterogeneous Networks", IFIP Networking 2016), as Linux MP-TCP v0.95
//! runs it (`mptcp_blest.c`, `blest_get_available_subflow`): lowest RTT first, except that when
//! the fastest subflow f is full and the rule would send on a slower subflow s, the segment
//! waits for f if, during the time s takes to acknowledge it, f could send more than the
//! connection's window would have left:
//!
//! ```text
//!   linger_s = max(srtt_s, lo_s + (hi_s − lo_s)·(pipe_s + MSS)/cwnd_s)   (hi_s once pipe_s + MSS ≥ cwnd_s)
//!   n        = ⌊linger_s / ((lo_f + hi_f)/2)⌋ + 1                        round trips of f meanwhile
//!   X        = cwnd_f·(2ⁿ − 1), n ≤ 16                                   f in its initial slow start
//!            = n·(max(cwnd_f, ssthresh_f + MSS) + MSS·⌊(n − 1)/2⌋)       otherwise (Reno's growth)
//!   wait  ⇔  λ·X > W − (unacked_s + MSS)
//! ```
//!
//! lo and hi are the smallest and largest SRTT the subflow has had, pipe its bytes in flight,
//! unacked what it holds unacknowledged, sent or not. W is the connection's send window counted
//! from the DATA_ACK: the code assumes that f's bytes in flight are acknowledged within linger_s
//! and only s's keep their place (the paper's |M| − MSS_s·(inflight_s + 1)). X assumes Reno's
//! window growth whatever the subflow's controller, as the code does; a subflow whose
//! slow-start threshold was never set counts as in its initial slow start.
//!
//! λ starts at 1.2. When s would be chosen and at least lo_s has passed since λ last moved, it
//! moves by +0.04 if since then the connection's window held back a segment from a subflow with
//! room, or a full send buffer left nothing to send, and by −0.01 otherwise; it stays within
//! [1.0, 1.3]. Those two are the moments Linux enters its opportunistic retransmission of the
//! segment at the head of the window (`mptcp_blest_rcv_buf_optimization`), whose entry sets the
//! flag λ reads — that is the "meta-level retransmission" of the paper; the retransmission and
//! the halving of slower subflows' windows that follow are not modelled here (the default
//! scheduler's are, in [`super::minrtt`]).
//!
//! Deviations: windows and flight in bytes, not segments; the segment is one MSS (Linux: the
//! head of the connection's queue); W is the right edge of the connection's window minus the
//! DATA_ACK, the edge never moving back ([`DataSender`]); f is the fastest subflow the
//! scheduler may use — usable, and a backup only when backups are allowed — where Linux takes
//! any established subflow, one recovering from a timeout or a backup included, and could wait
//! for a subflow it will not send on.

use super::data_sender::{Chunk, DataSender};
use super::scheduler::{assign, backups_allowed, SchedView, Scheduler};
use crate::sim::{Duration, SimTime};

/// λ in thousandths: initial value and bounds (`lambda`, `min_lambda`, `max_lambda`), and its
/// steps (`dyn_lambda_bad` after the window held data back, `dyn_lambda_good` otherwise).
const LAMBDA_INITIAL: u64 = 1200;
const LAMBDA_MIN: u64 = 1000;
const LAMBDA_MAX: u64 = 1300;
const LAMBDA_UP: u64 = 40;
const LAMBDA_DOWN: u64 = 10;

/// Slow-start round trips the estimate counts at most (2¹⁶ − 1 windows).
const MAX_SLOW_START_ROUNDS: u64 = 16;

/// Lowest RTT first, holding back what would block the fastest subflow.
#[derive(Clone, Debug)]
pub struct Blest {
    /// Per subflow, the smallest and largest SRTT seen.
    srtt_range: Vec<Option<(Duration, Duration)>>,
    /// λ, thousandths.
    lambda: u64,
    /// When λ last moved, or the connection started.
    lambda_moved_at: Option<SimTime>,
    /// The window or the send buffer held data back since λ last moved.
    held_back: bool,
}

impl Default for Blest {
    fn default() -> Self {
        Blest { srtt_range: Vec::new(), lambda: LAMBDA_INITIAL, lambda_moved_at: None, held_back: false }
    }
}

/// The subflow lowest RTT first picks (usable, with room) and the fastest subflow, with room or
/// not, both among those the backup rule lets carry data; `None` when no subflow has room.
pub(super) fn chosen_and_fastest(subflows: &[SchedView], backups: bool) -> Option<(usize, usize)> {
    let allowed = |i: &usize| subflows[*i].usable && (backups || !subflows[*i].backup);
    let rtt = |i: &usize| (subflows[*i].srtt.unwrap_or(Duration::ZERO), *i);
    let chosen = (0..subflows.len()).filter(allowed).filter(|&i| subflows[i].has_room()).min_by_key(rtt)?;
    let fastest = (0..subflows.len()).filter(allowed).min_by_key(rtt)?;
    Some((chosen, fastest))
}

impl Blest {
    /// The smallest and largest SRTT of subflow `i`, `s` (its SRTT while none was recorded).
    fn range(&self, s: &SchedView, i: usize) -> (Duration, Duration) {
        let srtt = s.srtt.unwrap_or(Duration::ZERO);
        self.srtt_range[i].unwrap_or((srtt, srtt))
    }

    /// Moves λ if the slow subflow's smallest SRTT has passed since it last moved.
    fn adapt_lambda(&mut self, now: SimTime, slow_rtt: Duration) {
        if self.lambda_moved_at.is_some_and(|t| now.saturating_since(t) < slow_rtt) {
            return;
        }
        self.lambda = if self.held_back { self.lambda + LAMBDA_UP } else { self.lambda - LAMBDA_DOWN }
            .clamp(LAMBDA_MIN, LAMBDA_MAX);
        self.held_back = false;
        self.lambda_moved_at = Some(now);
    }

    /// Whether the next segment should wait for `fast` rather than go on `slow`.
    fn waits(
        &mut self,
        now: SimTime,
        subflows: &[SchedView],
        data: &DataSender,
        fast: usize,
        slow: usize,
    ) -> bool {
        let (f, s) = (&subflows[fast], &subflows[slow]);
        self.adapt_lambda(now, self.range(s, slow).0);
        let linger = linger_time(s, self.range(s, slow));
        let fast_bytes = bytes_during(f, self.range(f, fast), linger).saturating_mul(self.lambda) / 1000;
        let window = data.window_free() + data.next_new() - data.data_una();
        fast_bytes > window.saturating_sub(s.unacked + u64::from(s.mss))
    }
}

/// How long `slow` takes to acknowledge a segment sent now: from its smallest SRTT when empty to
/// its largest when its window is full, never below its SRTT.
fn linger_time(slow: &SchedView, (lo, hi): (Duration, Duration)) -> Duration {
    let flight = slow.in_flight + u64::from(slow.mss);
    let estimate = if flight >= slow.cwnd {
        hi
    } else {
        let slope = u128::from((hi - lo).as_picos()) * u128::from(flight) / u128::from(slow.cwnd);
        lo + Duration::from_picos(slope as u64)
    };
    estimate.max(slow.srtt.unwrap_or(Duration::ZERO))
}

/// Bytes `fast` (whose SRTT has ranged over `lo ..= hi`) sends during `time` if its window grows
/// as Reno's: doubling each round trip in its initial slow start, one MSS per round trip after.
fn bytes_during(fast: &SchedView, (lo, hi): (Duration, Duration), time: Duration) -> u64 {
    let avg = (lo.as_picos() / 2 + hi.as_picos() / 2).max(1);
    let rounds = time.as_picos() / avg + 1;
    let mss = u64::from(fast.mss);
    if fast.ssthresh == u64::MAX {
        let rounds = rounds.min(MAX_SLOW_START_ROUNDS);
        fast.cwnd.saturating_mul((1 << rounds) - 1)
    } else {
        let cwnd = fast.cwnd.max(fast.ssthresh.saturating_add(mss));
        cwnd.saturating_add(mss.saturating_mul((rounds - 1) / 2)).saturating_mul(rounds)
    }
}

impl Scheduler for Blest {
    fn fill(
        &mut self,
        now: SimTime,
        subflows: &mut [SchedView],
        data: &mut DataSender,
        out: &mut Vec<(usize, Chunk)>,
    ) {
        // λ's clock starts with the connection (Linux: when its first subflow is set up).
        self.lambda_moved_at.get_or_insert(now);
        self.srtt_range.resize(subflows.len(), None);
        for (range, s) in self.srtt_range.iter_mut().zip(subflows.iter()) {
            if let Some(srtt) = s.srtt {
                *range = Some(range.map_or((srtt, srtt), |(lo, hi)| (lo.min(srtt), hi.max(srtt))));
            }
        }
        let backups = backups_allowed(subflows);
        loop {
            let Some((i, fast)) = chosen_and_fastest(subflows, backups) else { return };
            if data.unsent() == 0 && !data.has_data_for(i as u8) {
                self.held_back |= data.buffer_space() == 0;
                return;
            }
            if i != fast && self.waits(now, subflows, data, fast, i) {
                return;
            }
            let Some(chunk) = data.next_chunk(i as u8, subflows[i].mss) else {
                // Data waits beyond the connection's window.
                self.held_back = true;
                return;
            };
            assign(subflows, i, chunk, out);
            subflows[i].in_flight += u64::from(chunk.len);
            subflows[i].unacked += u64::from(chunk.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;
    const SEG: u64 = MSS as u64;

    /// A subflow with an empty window of `segments`, in congestion avoidance (ssthresh 5
    /// segments).
    fn view(segments: u64, srtt_ms: u64) -> SchedView {
        SchedView { ssthresh: 5 * SEG, ..SchedView::for_test(MSS, segments, segments, srtt_ms) }
    }

    /// A connection with plenty written and `window` bytes of receive window.
    fn data(window: u64) -> DataSender {
        let mut d = DataSender::new(1 << 30, window);
        d.write(1 << 24);
        d
    }

    /// Chunks handed to each subflow at `ms`.
    fn run(s: &mut Blest, ms: u64, views: &mut [SchedView], d: &mut DataSender) -> Vec<usize> {
        let mut out = Vec::new();
        s.fill(SimTime::ZERO + Duration::from_millis(ms), views, d, &mut out);
        let mut count = vec![0; views.len()];
        for (i, _) in out {
            count[i] += 1;
        }
        count
    }

    // Fast: 10 ms, 10 segments, in congestion avoidance; slow: 100 ms. Once the fast window is
    // full, the slow subflow lingers 100 ms = 10 fast round trips, so n = 11 and
    // X = 11·(10 + ⌊10/2⌋) segments = 165 000 bytes, λ·X = 198 000: the slow subflow may send
    // while W − (its unacked bytes + one segment) ≥ 198 000.
    #[test]
    fn test_blest_waits_for_the_fast_subflow_when_the_window_is_small() {
        let views = || [view(10, 10), view(10, 100)];
        assert_eq!(run(&mut Blest::default(), 0, &mut views(), &mut data(150_000)), [10, 0], "149 000 left");
        assert_eq!(run(&mut Blest::default(), 0, &mut views(), &mut data(300_000)), [10, 10], "290 000 left");
        // Each segment the slow subflow takes keeps its place: at W = 205 000 it may hold 7.
        assert_eq!(run(&mut Blest::default(), 0, &mut views(), &mut data(205_000)), [10, 7]);
    }

    #[test]
    fn test_blest_expects_a_fast_subflow_in_slow_start_to_double_its_window() {
        // n = 11 round trips of doubling from 10 segments: 10·(2¹¹ − 1) segments, 24.6 MB with λ.
        let mut views = [SchedView { ssthresh: u64::MAX, ..view(10, 10) }, view(10, 100)];
        assert_eq!(run(&mut Blest::default(), 0, &mut views, &mut data(20_000_000)), [10, 0]);
        let mut views = [SchedView { ssthresh: u64::MAX, ..view(10, 10) }, view(10, 100)];
        assert_eq!(run(&mut Blest::default(), 0, &mut views, &mut data(30_000_000)), [10, 10]);
    }

    #[test]
    fn test_blest_linger_time_grows_with_the_slow_subflow_flight() {
        let ms = Duration::from_millis;
        let range = (ms(100), ms(200));
        let slow = SchedView { in_flight: 4 * SEG, srtt: Some(ms(100)), ..view(10, 100) };
        assert_eq!(linger_time(&slow, range), ms(150), "5 of 10 segments with the new one");
        let full = SchedView { in_flight: 9 * SEG, ..slow };
        assert_eq!(linger_time(&full, range), ms(200), "the window full: the largest SRTT");
        let empty = SchedView { in_flight: 0, srtt: Some(ms(180)), ..slow };
        assert_eq!(linger_time(&empty, range), ms(180), "never below the SRTT");
        // The fast subflow's round trip is the mean of its extremes.
        let fast = view(10, 10);
        assert_eq!(bytes_during(&fast, (ms(5), ms(15)), ms(100)), 165 * SEG);
        assert_eq!(bytes_during(&fast, (ms(5), ms(15)), ms(99)), 140 * SEG, "n = 10: 10·(10 + 4)");
    }

    #[test]
    fn test_blest_lambda_moves_once_per_slow_rtt_within_its_bounds() {
        let mut s = Blest::default();
        // The window is closed: with the fast subflow's room the window holds data back, with
        // only the slow subflow's the scheduler waits, which is where λ moves.
        let mut d = data(0);
        let held = |s: &mut Blest, d: &mut DataSender, ms| {
            assert_eq!(run(s, ms, &mut [view(10, 10), view(10, 100)], d), [0, 0]);
        };
        let waited = |s: &mut Blest, d: &mut DataSender, ms| {
            assert_eq!(run(s, ms, &mut [SchedView { room: 0, ..view(10, 10) }, view(10, 100)], d), [0, 0]);
        };
        held(&mut s, &mut d, 0);
        waited(&mut s, &mut d, 50);
        assert_eq!(s.lambda, 1200, "less than the slow subflow's 100 ms since the start");
        waited(&mut s, &mut d, 100);
        assert_eq!(s.lambda, 1240, "held back: up 0.04");
        for (ms, lambda) in [(200, 1280), (300, 1300), (400, 1300)] {
            held(&mut s, &mut d, ms - 50);
            waited(&mut s, &mut d, ms);
            assert_eq!(s.lambda, lambda, "at {ms} ms");
        }
        waited(&mut s, &mut d, 500);
        assert_eq!(s.lambda, 1290, "nothing held back: down 0.01");
        waited(&mut s, &mut d, 599);
        assert_eq!(s.lambda, 1290, "within 100 ms of the last move");
        for k in 0..40 {
            waited(&mut s, &mut d, 600 + 100 * k);
        }
        assert_eq!(s.lambda, 1000);
    }

    #[test]
    fn test_blest_waits_only_for_a_subflow_it_may_use() {
        // A 20 KB window, far below λ·X: a usable fast subflow would be waited for.
        let fast = SchedView { room: 0, ..view(10, 10) };
        assert_eq!(run(&mut Blest::default(), 0, &mut [fast, view(10, 100)], &mut data(20_000)), [0, 0]);
        let down = SchedView { usable: false, ..fast };
        assert_eq!(run(&mut Blest::default(), 0, &mut [down, view(10, 100)], &mut data(20_000)), [0, 10]);
        let backup = SchedView { backup: true, ..fast };
        assert_eq!(run(&mut Blest::default(), 0, &mut [backup, view(10, 100)], &mut data(20_000)), [0, 10]);
        assert_eq!(chosen_and_fastest(&[backup, view(10, 100)], false), Some((1, 1)));
        assert_eq!(chosen_and_fastest(&[fast, SchedView { usable: false, ..view(10, 100) }], true), None);
    }
}
