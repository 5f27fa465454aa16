//! MuSher (Saha, Aggarwal, Pathak, Koutsonikolas, Widmer, "MuSher: An Agile Multipath-TCP
//! Scheduler for Dual-Band 802.11ad/ac Wireless LANs", MobiCom 2019; kernel code in
//! swetanksaha/mptcp-musher, `mptcp_musher.c`, `mptcp_ratio.c`): a ratio scheduler for a
//! connection of exactly two subflows, whose ratio a hill-climbing search tunes to the split that
//! delivers the most.
//!
//! Ratio (stated): data goes in rounds of 100 segments, R on subflow 0 (the first listed in
//! `transport.subflows`, the paper's 802.11ad path) and 100 − R on subflow 1, with strict quotas:
//! a subflow that has sent its share of the round waits for the other to send its own, even with
//! room in its window; a round ends when both have sent their shares. Deviation: within a round
//! the subflow furthest behind its share goes next; `mptcp_ratio.c` sends each share as one
//! burst, and a subflow partway through its share without window room holds the other back too.
//! A new R starts a new round (the code applies it at the next round). `mptcp_ratio.c` gives R
//! to the first subflow of its own list; we give it to the first listed in the scenario.
//!
//! Throughput (stated): the connection's rate over windows of 100 ms, 200 ms while searching;
//! ours counts bytes acknowledged on both subflows, the code the interfaces' transmitted bytes,
//! which a transport-level scheduler does not see. State machine, one [`Phase`] at a time:
//!
//! ```text
//!   Start ──slow start over──▶ Search ──done──▶ Baseline ──5 windows──▶ Monitor
//!                                ▲                                        │
//!                                └── 3 windows off baseline (or 5 drained), ≥ 3 s since the last
//! ```
//!
//! - Baseline (stated): the mean rate of 5 windows.
//! - Monitor: a window deviates when its rate is more than 20 % off the baseline (the threshold
//!   and its being relative are guessed: the sources do not give one); 3 deviating
//!   windows in a row start a search, never while a subflow is in slow start (cwnd < ssthresh)
//!   and never within 3 s of the last search (stated). So do 5 windows in a row whose bytes held
//!   unacknowledged by the subflows (the code's write_seq − snd_una), read when the window
//!   closes (the code averages them over its calls), are more than 75 000 bytes below their
//!   baseline (stated).
//! - Search (stated): measure R, then step R by 5 (bounds 5–95) towards more throughput, up
//!   first, down if the first step up does not gain; continue while each step gains more than
//!   5 Mbit/s; then the same with half a step (2, integer halving; guessed) around the best R;
//!   the best R measured is kept.
//!
//! Blockage (stated: a blocked subflow is excluded; on recovery its failure flag is cleared):
//! a subflow that is not usable (recovering from a timeout) or is a backup while the other may
//! be used is blocked: the other takes the whole round until it is back, then the ratio
//! resumes. A blockage aborts a search (the best R so far is kept) and restarts the baseline.
//! Guessed: detection is the subflow's retransmission timeout (the sources do not state the
//! detection delay, and a transport-level scheduler has no link-level detector); the initial R
//! is 50 (rather than one from link rates, which the scheduler does not see) and the first
//! search runs as soon as slow start ends.
//!
//! Recovery probe (stated in the code, a block commented out in the authors' later `mptcp_ratio.c`,
//! kept in the multipath-tcp/mptcp repository: when the interface is up again and the subflow is
//! marked failed, the mark is cleared, cwnd undone, ssthresh restored if it was larger, the state
//! set to fast recovery and a segment sent at once with `tcp_write_wakeup`, instead of waiting out
//! the backed-off timer; the paper's text on it was not available to us, its abstract reports
//! recovery after a disruption up to 8x faster in a WLAN). The scheduler sees no interface, so the
//! link-up is learnt by probing ([`Musher::recover`]): a subflow in loss recovery after a timeout
//! has its first unacknowledged segment sent again at once, past its window and without touching
//! its timer, once per smoothed RTT ([`SchedView::probe`]); when its acknowledged bytes grow, or it
//! leaves loss recovery on its own, its window before the timeout (cwnd and ssthresh when last seen
//! open) returns, never smaller than the current one, and if still in loss recovery it goes on in
//! fast recovery, so that new data may follow its retransmissions ([`SchedView::undo_timeout`]).
//! Guessed: probing once per SRTT (at least 1 ms; once per 100 ms window without an RTT sample) —
//! the answer to a probe cannot come sooner, and the code probes once, on the link-layer's word;
//! probes go at the first scheduling round after the interval (the scheduler has no timer), so they
//! need the other subflow's ACKs to clock them; every timeout counts as a blockage, so the cut of a
//! timeout from congestion is undone too once an answer comes. Left out: re-injection of a blocked
//! subflow's data before its timeout (with the timeout as detector, it re-injects at detection).

use super::data_sender::{Chunk, DataSender};
use super::scheduler::{assign, backups_allowed, SchedView, Scheduler};
use crate::sim::{Duration, SimTime, PS_PER_SEC};

/// Segments per round (`num_segments` = 100 in the code).
const ROUND: u32 = 100;
/// The search's coarse step in R, segments per round (paper and code).
const STEP: u32 = 5;
/// Fine-tuning step: half the coarse one, rounded down as integer code would.
const FINE_STEP: u32 = STEP / 2;
/// Bounds on R (paper and code): each subflow keeps at least 5 % so that its rate can still be
/// measured.
const R_MIN: u32 = 5;
const R_MAX: u32 = ROUND - R_MIN;
/// Initial R: an even split (guessed; the code derives it from the PHY rates).
const R_START: u32 = ROUND / 2;
/// Sampling windows (`regular_interval`, `search_interval` in the code): longer while
/// searching, so that a step's rate is measured once the windows have settled.
const WINDOW: Duration = Duration::from_millis(100);
const SEARCH_WINDOW: Duration = Duration::from_millis(200);
/// Windows averaged into the baseline (stated).
const BASELINE_WINDOWS: u32 = 5;
/// Deviating windows in a row that start a search (stated): one odd window is noise.
const TRIGGER_WINDOWS: u32 = 3;
/// Minimum time between searches (stated): a search costs throughput while it probes.
const SEARCH_GAP: Duration = Duration::from_secs(3);
/// A step is kept only if it gains more than this (stated), above measurement noise.
const MIN_GAIN_BPS: u64 = 5_000_000;
/// A window deviates when its rate is this far from the baseline, percent (guessed).
const TRIGGER_PERCENT: u64 = 20;
/// The second trigger (stated): the bytes the subflows hold unacknowledged this far below their
/// baseline for this many windows in a row — the paths drain faster than the split feeds them.
const DRAIN_BYTES: u64 = 75_000;
const DRAIN_WINDOWS: u32 = 5;
/// A baseline about to be measured.
const FRESH: Phase = Phase::Baseline { windows: 0, sum_bps: 0, sum_buffered: 0 };
/// The recovery probe: a subflow that timed out is probed once per smoothed RTT (its path's
/// answer cannot come sooner; guessed, the authors' code probes once, when the link-layer says
/// the link is up), never more often than this, and once per sampling window without an RTT.
const PROBE_MIN_INTERVAL: Duration = Duration::from_millis(1);

/// Where the scheduler is in its measure–search cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for slow start to end before the first search.
    Start,
    /// Averaging `windows` windows: the sums of their rates and of the bytes buffered at their
    /// ends.
    Baseline {
        windows: u32,
        sum_bps: u64,
        sum_buffered: u64,
    },
    /// Watching the rate and the bytes buffered against their baselines; `deviations` windows
    /// in a row with the rate off it, `drained` with the bytes buffered far below it.
    Monitor {
        baseline_bps: u64,
        baseline_buffered: u64,
        deviations: u32,
        drained: u32,
    },
    Search(Search),
}

/// What a sampling window measured: the connection's rate, and the bytes its subflows held
/// unacknowledged (sent or not) when it closed.
#[derive(Clone, Copy, Debug)]
struct Window {
    bps: u64,
    buffered: u64,
}

/// A hill-climbing search on R.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Search {
    /// The best R measured and its rate (`None` while the starting R is being measured).
    best_r: u32,
    best_bps: Option<u64>,
    /// Direction of the current steps, and their size.
    up: bool,
    step: u32,
    /// A step of this size has gained; the direction was reversed once.
    climbed: bool,
    turned: bool,
}

/// A subflow that timed out, as the recovery probe follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TimedOut {
    /// Its window before the timeout (cwnd, ssthresh): the last seen while it was open.
    window: (u64, u64),
    /// Bytes acknowledged on it when it timed out: more means its path delivers again.
    acked: u64,
    /// When it was last probed (at first, when the timeout was seen: the timer has just resent).
    probed: SimTime,
}

/// Strict R : 100 − R rounds with a throughput-driven search on R.
#[derive(Clone, Debug)]
pub struct Musher {
    /// Segments of each round for subflow 0.
    r: u32,
    phase: Phase,
    /// Segments sent on each subflow in the current round.
    sent: [u32; 2],
    /// Start of the current sampling window and the bytes acknowledged then.
    window: Option<(SimTime, u64)>,
    last_search: Option<SimTime>,
    /// Each subflow's window (cwnd, ssthresh) when last seen usable and open: what a timeout's
    /// undo restores.
    open_window: [Option<(u64, u64)>; 2],
    /// The subflows in loss recovery after a timeout, while the probe follows them.
    timed_out: [Option<TimedOut>; 2],
}

impl Default for Musher {
    fn default() -> Self {
        Musher {
            r: R_START,
            phase: Phase::Start,
            sent: [0; 2],
            window: None,
            last_search: None,
            open_window: [None; 2],
            timed_out: [None; 2],
        }
    }
}

impl Musher {
    /// Each subflow's share of a round, given which of them can be used.
    fn quota(&self, available: [bool; 2]) -> [u32; 2] {
        match available {
            [true, true] => [self.r, ROUND - self.r],
            [true, false] => [ROUND, 0],
            [false, true] => [0, ROUND],
            [false, false] => [0, 0],
        }
    }

    fn set_r(&mut self, r: u32) {
        self.r = r;
        self.sent = [0; 2];
    }

    /// Closes the sampling window if it has run its length, and feeds its rate to the phase.
    fn sample(&mut self, now: SimTime, subflows: &[SchedView], available: [bool; 2]) {
        let acked: u64 = subflows.iter().map(|s| s.acked).sum();
        let Some((start, acked_then)) = self.window else {
            self.window = Some((now, acked));
            return;
        };
        let length = if matches!(self.phase, Phase::Search(_)) { SEARCH_WINDOW } else { WINDOW };
        let elapsed = now.saturating_since(start);
        if elapsed < length {
            return;
        }
        self.window = Some((now, acked));
        let bits = u128::from(acked.saturating_sub(acked_then)) * 8;
        let bps = (bits * u128::from(PS_PER_SEC) / u128::from(elapsed.as_picos())) as u64;
        let buffered = subflows.iter().map(|s| s.unacked).sum();
        let slow_start = subflows.iter().zip(available).any(|(s, a)| a && s.cwnd < s.ssthresh);
        self.on_window(now, Window { bps, buffered }, slow_start, available != [true, true]);
    }

    /// A window closed, while a subflow is in slow start or one is blocked.
    fn on_window(&mut self, now: SimTime, w: Window, slow_start: bool, blocked: bool) {
        if let Phase::Search(s) = self.phase {
            if blocked {
                self.set_r(s.best_r);
                self.last_search = Some(now);
                self.phase = FRESH;
            } else {
                self.phase = self.search_step(now, s, w.bps);
            }
            return;
        }
        if blocked || slow_start {
            if self.phase != Phase::Start {
                self.phase = FRESH;
            }
            return;
        }
        self.phase = match self.phase {
            Phase::Start => self.start_search(),
            Phase::Baseline { windows, sum_bps, sum_buffered } => {
                let (sum_bps, sum_buffered) = (sum_bps + w.bps, sum_buffered + w.buffered);
                if windows + 1 == BASELINE_WINDOWS {
                    let n = u64::from(BASELINE_WINDOWS);
                    Phase::Monitor {
                        baseline_bps: sum_bps / n,
                        baseline_buffered: sum_buffered / n,
                        deviations: 0,
                        drained: 0,
                    }
                } else {
                    Phase::Baseline { windows: windows + 1, sum_bps, sum_buffered }
                }
            }
            Phase::Monitor { baseline_bps, baseline_buffered, deviations, drained } => {
                let off = w.bps.abs_diff(baseline_bps) * 100 > baseline_bps * TRIGGER_PERCENT;
                let deviations = if off { deviations + 1 } else { 0 };
                let low = w.buffered.saturating_add(DRAIN_BYTES) < baseline_buffered;
                let drained = if low { drained + 1 } else { 0 };
                let rested = self.last_search.is_none_or(|t| now.saturating_since(t) >= SEARCH_GAP);
                if (deviations >= TRIGGER_WINDOWS || drained >= DRAIN_WINDOWS) && rested {
                    self.start_search()
                } else {
                    Phase::Monitor { baseline_bps, baseline_buffered, deviations, drained }
                }
            }
            Phase::Search(_) => unreachable!("handled above"),
        };
    }

    /// The recovery probe, before the round. A subflow that timed out (established, so not
    /// usable only because it is in loss recovery: its state is not open) is probed — its first
    /// unacknowledged segment sent again at once — every [`Self::probe_interval`]; once its
    /// acknowledged bytes grow, its path is back and its window before the timeout returns
    /// ([`SchedView::undo_timeout`]), with fast recovery instead of loss recovery. A subflow
    /// that leaves loss recovery on its own first (the timer's retransmission was answered
    /// before a probe's) gets its window back all the same.
    fn recover(&mut self, now: SimTime, subflows: &mut [SchedView]) {
        for (i, s) in subflows.iter_mut().enumerate() {
            if s.usable {
                match self.timed_out[i].take() {
                    Some(t) => s.undo_timeout = Some(t.window),
                    None if s.open => self.open_window[i] = Some((s.cwnd, s.ssthresh)),
                    None => {}
                }
                continue;
            }
            if s.open {
                continue; // not established yet
            }
            let window = self.open_window[i].unwrap_or((s.cwnd, s.ssthresh));
            let t = self.timed_out[i].get_or_insert(TimedOut { window, acked: s.acked, probed: now });
            if s.acked > t.acked {
                s.undo_timeout = Some(t.window);
                self.timed_out[i] = None;
            } else if now.saturating_since(t.probed) >= Self::probe_interval(s) {
                s.probe = true;
                t.probed = now;
            }
        }
    }

    /// How often a subflow that timed out is probed: once per smoothed RTT, at least
    /// [`PROBE_MIN_INTERVAL`]; a sampling window without an RTT sample.
    fn probe_interval(s: &SchedView) -> Duration {
        s.srtt.unwrap_or(WINDOW).max(PROBE_MIN_INTERVAL)
    }

    /// A search that first measures the current R.
    fn start_search(&self) -> Phase {
        Phase::Search(Search {
            best_r: self.r,
            best_bps: None,
            up: true,
            step: STEP,
            climbed: false,
            turned: false,
        })
    }

    /// The search has measured `bps` at the current R: moves R to the next candidate, or ends.
    fn search_step(&mut self, now: SimTime, mut s: Search, bps: u64) -> Phase {
        let mut gained = match s.best_bps {
            None => true,
            Some(best) => {
                let gain = bps > best.saturating_add(MIN_GAIN_BPS);
                s.climbed |= gain;
                gain
            }
        };
        if gained {
            s.best_r = self.r;
            s.best_bps = Some(bps);
        }
        loop {
            if !gained {
                if !s.climbed && !s.turned {
                    s.turned = true;
                    s.up = !s.up;
                } else if s.step == STEP {
                    s = Search { up: true, step: FINE_STEP, climbed: false, turned: false, ..s };
                } else {
                    self.set_r(s.best_r);
                    self.last_search = Some(now);
                    return FRESH;
                }
            }
            let next = if s.up { s.best_r + s.step } else { s.best_r.saturating_sub(s.step) };
            if (R_MIN..=R_MAX).contains(&next) {
                self.set_r(next);
                return Phase::Search(s);
            }
            gained = false;
        }
    }
}

impl Scheduler for Musher {
    fn fill(
        &mut self,
        now: SimTime,
        subflows: &mut [SchedView],
        data: &mut DataSender,
        out: &mut Vec<(usize, Chunk)>,
    ) {
        assert_eq!(subflows.len(), 2, "the scenario builder refuses musher without two subflows");
        self.recover(now, subflows);
        let backups = backups_allowed(subflows);
        let available = [0, 1].map(|i| subflows[i].usable && (backups || !subflows[i].backup));
        self.sample(now, subflows, available);
        if available != [true, true] {
            self.sent = [0; 2];
        }
        let quota = self.quota(available);
        if quota == [0, 0] {
            return;
        }
        loop {
            if self.sent[0] >= quota[0] && self.sent[1] >= quota[1] {
                self.sent = [0; 2];
            }
            let ready = [0, 1]
                .map(|i| self.sent[i] < quota[i] && subflows[i].has_room() && data.has_data_for(i as u8));
            // Both ready: the one furthest behind its share, sent[i] / quota[i] the smallest.
            let i = match ready {
                [true, true] if self.sent[0] * quota[1] <= self.sent[1] * quota[0] => 0,
                [true, true] | [false, true] => 1,
                [true, false] => 0,
                [false, false] => return,
            };
            let chunk = data.next_chunk(i as u8, subflows[i].mss).expect("it has data for i");
            assign(subflows, i, chunk, out);
            // With one subflow blocked the other sends without a quota: no round is counted.
            if available == [true, true] {
                self.sent[i] += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    /// A subflow with `room` segments free, past slow start, with `acked` bytes acknowledged.
    fn view(room: u64, acked: u64) -> SchedView {
        SchedView { ssthresh: 0, acked, ..SchedView::for_test(MSS, room.max(1), room, 10) }
    }

    fn data(segments: u64) -> DataSender {
        let mut d = DataSender::new(1 << 30, 1 << 30);
        d.write(segments * u64::from(MSS));
        d
    }

    /// Segments handed to each subflow.
    fn count(s: &mut Musher, views: &mut [SchedView; 2], d: &mut DataSender) -> [u32; 2] {
        let mut out = Vec::new();
        s.fill(SimTime::ZERO, views, d, &mut out);
        let mut n = [0; 2];
        for (i, _) in out {
            n[i] += 1;
        }
        n
    }

    fn with_r(r: u32) -> Musher {
        Musher { r, ..Musher::default() }
    }

    // ---- ratio --------------------------------------------------------------------------------

    #[test]
    fn test_ratio_splits_each_round_r_to_100_minus_r() {
        let mut d = data(300);
        assert_eq!(count(&mut with_r(50), &mut [view(300, 0), view(300, 0)], &mut data(100)), [50, 50]);
        let mut s = with_r(70);
        assert_eq!(count(&mut s, &mut [view(300, 0), view(300, 0)], &mut data(100)), [70, 30]);
        assert_eq!(count(&mut s, &mut [view(300, 0), view(300, 0)], &mut d), [210, 90], "three rounds");
    }

    #[test]
    fn test_ratio_quota_is_strict() {
        let mut s = with_r(70);
        let mut d = data(1000);
        assert_eq!(count(&mut s, &mut [view(100, 0), view(0, 0)], &mut d), [70, 0], "0 waits for 1");
        assert_eq!(count(&mut s, &mut [view(100, 0), view(0, 0)], &mut d), [0, 0], "still waiting");
        // 1 sends its 30, the round closes and 0 may take 70 of the next one.
        assert_eq!(count(&mut s, &mut [view(100, 0), view(30, 0)], &mut d), [70, 30]);
    }

    #[test]
    fn test_ratio_blocked_subflow_share_goes_to_the_other_until_recovery() {
        let mut s = with_r(70);
        let mut d = data(1000);
        let down = SchedView { usable: false, ..view(300, 0) };
        assert_eq!(count(&mut s, &mut [view(150, 0), down], &mut d), [150, 0]);
        let down = SchedView { usable: false, ..view(300, 0) };
        assert_eq!(count(&mut s, &mut [down, view(150, 0)], &mut d), [0, 150]);
        let recovered = count(&mut s, &mut [view(300, 0), view(300, 0)], &mut data(100));
        assert_eq!(recovered, [70, 30], "a fresh round at the ratio");
        let backup = SchedView { backup: true, ..view(300, 0) };
        assert_eq!(count(&mut s, &mut [view(150, 0), backup], &mut d), [150, 0], "a backup waits");
    }

    // ---- recovery probe -----------------------------------------------------------------------

    const SEG: u64 = MSS as u64;

    /// A subflow in loss recovery after a timeout (one segment of window) with `acked` bytes
    /// acknowledged.
    fn timed_out(acked: u64) -> SchedView {
        SchedView { usable: false, open: false, cwnd: SEG, ssthresh: 5 * SEG, ..view(0, acked) }
    }

    /// One scheduling round at `t_ms`; the views as the scheduler left them.
    fn round(s: &mut Musher, t_ms: u64, mut views: [SchedView; 2]) -> [SchedView; 2] {
        let now = SimTime::ZERO + Duration::from_millis(t_ms);
        s.fill(now, &mut views, &mut data(1000), &mut Vec::new());
        views
    }

    #[test]
    fn test_a_timed_out_subflow_is_probed_once_per_srtt_until_its_path_answers() {
        let mut s = Musher::default();
        let open = SchedView { cwnd: 50 * SEG, ssthresh: 40 * SEG, ..view(10, 7000) };
        assert!(!round(&mut s, 0, [open, view(10, 0)])[0].probe);
        // It timed out at 100 ms (the timer has just resent); SRTT 10 ms: a probe at the first
        // round 10 ms after the last.
        let probes: Vec<u64> = (100..=135)
            .step_by(5)
            .filter(|&t| round(&mut s, t, [timed_out(7000), view(10, 0)])[0].probe)
            .collect();
        assert_eq!(probes, vec![110, 120, 130]);
        // Its acknowledged bytes grow: the path is back; no probe, the window before the
        // timeout returns, once.
        let back = round(&mut s, 140, [timed_out(8000), view(10, 0)]);
        assert_eq!((back[0].probe, back[0].undo_timeout), (false, Some((50 * SEG, 40 * SEG))));
        let recovering = SchedView { open: false, ..view(10, 9000) };
        assert_eq!(round(&mut s, 141, [recovering, view(10, 0)])[0].undo_timeout, None);
        // The other subflow, never timed out, was neither probed nor given a window.
        assert!(!back[1].probe && back[1].undo_timeout.is_none());
    }

    #[test]
    fn test_the_window_restored_is_the_last_open_one_even_after_recovery_on_its_own() {
        let mut s = Musher::default();
        // Joining (not established: not usable, state open): never probed.
        let joining = SchedView { usable: false, ..view(0, 0) };
        assert!((0..=100).step_by(50).all(|t| !round(&mut s, t, [view(10, 0), joining])[1].probe));
        // Open at 50 segments, then fast recovery halves the window, then a timeout.
        let open = SchedView { cwnd: 50 * SEG, ssthresh: u64::MAX, ..view(10, 1000) };
        round(&mut s, 200, [view(10, 0), open]);
        let halved = SchedView { open: false, cwnd: 25 * SEG, ssthresh: 25 * SEG, ..view(10, 2000) };
        round(&mut s, 210, [view(10, 0), halved]);
        round(&mut s, 220, [view(10, 0), timed_out(3000)]);
        // The timer's own retransmission is answered and the subflow leaves loss recovery
        // before a round sees it in it: the open window returns all the same, once.
        let on_its_own = SchedView { cwnd: 2 * SEG, ssthresh: 12 * SEG, ..view(1, 9000) };
        assert_eq!(round(&mut s, 225, [view(10, 0), on_its_own])[1].undo_timeout, Some((50 * SEG, u64::MAX)));
        assert_eq!(round(&mut s, 226, [view(10, 0), on_its_own])[1].undo_timeout, None);
    }

    // ---- search -------------------------------------------------------------------------------

    /// Drives `s` in 100 ms steps for `steps` steps, the connection delivering `rate(t, R)`
    /// Mbit/s; `slow_start` puts the subflows in slow start. Returns the time reached.
    fn drive(
        s: &mut Musher,
        t: &mut SimTime,
        acked: &mut u64,
        steps: u32,
        slow_start: bool,
        rate: impl Fn(SimTime, u32) -> u64,
    ) {
        for _ in 0..steps {
            let mut views = [view(0, *acked), view(0, 0)];
            if slow_start {
                views.iter_mut().for_each(|v| v.ssthresh = u64::MAX);
            }
            s.fill(*t, &mut views, &mut data(0), &mut Vec::new());
            *acked += rate(*t, s.r) * 1_000_000 / 8 / 10;
            *t += WINDOW;
        }
    }

    /// Throughput peaking at R = `peak`, 4 Mbit/s less per unit of R away from it.
    fn peaked(peak: u32) -> impl Fn(SimTime, u32) -> u64 {
        move |_, r| 400 - 4 * u64::from(r.abs_diff(peak))
    }

    #[test]
    fn test_search_climbs_to_the_best_ratio() {
        for peak in [70, 20, 53] {
            let (mut s, mut t, mut acked) = (Musher::default(), SimTime::ZERO, 0);
            drive(&mut s, &mut t, &mut acked, 2, false, peaked(peak));
            assert!(matches!(s.phase, Phase::Search(_)), "slow start is over: the first search runs");
            drive(&mut s, &mut t, &mut acked, 60, false, peaked(peak));
            assert!(matches!(s.phase, Phase::Monitor { .. }), "peak {peak}: the search is over");
            // Peak 53: 55 gains 4 Mbit/s over 50, not enough, and 45 loses, so the coarse
            // steps stop at 50; the fine ones reach 52 and stop (54 gains nothing).
            let want = if peak == 53 { 52 } else { peak };
            assert_eq!(s.r, want, "peak {peak}");
        }
    }

    #[test]
    fn test_search_not_during_slow_start_nor_within_3_s_of_the_last() {
        let (mut s, mut t, mut acked) = (Musher::default(), SimTime::ZERO, 0);
        let varying = |t: SimTime, r: u32| 100 + (t.0 / WINDOW.0 % 2) * 300 + u64::from(r);
        drive(&mut s, &mut t, &mut acked, 50, true, varying);
        assert_eq!((s.phase, s.r), (Phase::Start, R_START), "slow start holds the first search");
        while s.last_search.is_none() {
            drive(&mut s, &mut t, &mut acked, 1, false, peaked(70));
        }
        let done = s.last_search.expect("the first search ran");
        assert_eq!(s.r, 70);
        drive(&mut s, &mut t, &mut acked, BASELINE_WINDOWS, false, peaked(70));
        assert!(matches!(s.phase, Phase::Monitor { baseline_bps: 400_000_000, .. }));
        // The rate halves then: 3 deviating windows, but the search waits for 3 s.
        let halved = |_: SimTime, r: u32| (400 - 4 * u64::from(r.abs_diff(70))) / 2;
        while t < done + SEARCH_GAP {
            assert!(!matches!(s.phase, Phase::Search(_)), "searching {} after the last", t.0 - done.0);
            drive(&mut s, &mut t, &mut acked, 1, false, halved);
        }
        drive(&mut s, &mut t, &mut acked, 2, false, halved);
        assert!(matches!(s.phase, Phase::Search(_)), "3 s on, the deviation starts a search");
        drive(&mut s, &mut t, &mut acked, 1, false, halved);
        assert_eq!(s.r, 75, "R = 70 measured, 75 tried");
        // A search aborted by a blockage keeps its best R and restarts the baseline.
        let down = SchedView { usable: false, ..view(0, acked) };
        s.fill(t + SEARCH_WINDOW, &mut [view(0, acked), down], &mut data(0), &mut Vec::new());
        assert_eq!((s.phase, s.r), (FRESH, 70));
    }

    #[test]
    fn test_monitor_ignores_a_steady_rate() {
        let (mut s, mut t, mut acked) = (Musher::default(), SimTime::ZERO, 0);
        drive(&mut s, &mut t, &mut acked, 60, false, peaked(70));
        let done = s.last_search.expect("the first search ran");
        drive(&mut s, &mut t, &mut acked, 100, false, peaked(70));
        assert_eq!(s.last_search, Some(done), "no search without a deviation");
        assert!(
            matches!(s.phase, Phase::Monitor { baseline_bps, deviations: 0, .. } if baseline_bps == 400_000_000)
        );
    }

    #[test]
    fn test_monitor_searches_when_the_buffered_bytes_drain() {
        let mut s = Musher { phase: FRESH, last_search: Some(SimTime::ZERO), ..Musher::default() };
        let mut t = SimTime::ZERO + SEARCH_GAP;
        let mut step = |s: &mut Musher, buffered| {
            s.on_window(t, Window { bps: 400_000_000, buffered }, false, false);
            t += WINDOW;
        };
        for _ in 0..BASELINE_WINDOWS {
            step(&mut s, 200_000);
        }
        // 75 000 bytes below the baseline is not enough; 75 001 is, after 5 windows in a row.
        for _ in 0..10 {
            step(&mut s, 125_000);
        }
        for _ in 0..DRAIN_WINDOWS - 1 {
            step(&mut s, 124_999);
        }
        assert!(matches!(s.phase, Phase::Monitor { drained: 4, .. }), "{:?}", s.phase);
        step(&mut s, 124_999);
        assert!(matches!(s.phase, Phase::Search(_)), "5 drained windows start a search");
    }
}
