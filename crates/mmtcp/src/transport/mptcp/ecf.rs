//! ECF, earliest completion first (Lim, Nahum, Towsley, Gibbens, "ECF: An MPTCP Path Scheduler
//! to Manage Heterogeneous Paths", CoNEXT 2017), as Linux MP-TCP v0.96 runs it (`mptcp_ecf.c`,
//! `ecf_get_available_subflow`): lowest RTT first, except that when the fastest subflow f is
//! full and the rule would send on a slower subflow s, with k bytes waiting to be sent, windows
//! w_f, w_s (bytes) and SRTTs rtt_f ≤ rtt_s:
//!
//! ```text
//!   δ = max(2·rttvar_f, 2·rttvar_s)
//!   A:  rtt_f·(max(k, w_f) + w_f) < w_f·(rtt_s + δ)·(1 + β·waiting),  β = 1/4
//!   B:  rtt_s·max(k, w_s) ≥ w_s·(2·rtt_f + δ)
//!   A and B      ⇒ wait for f,    waiting := 1
//!   A and not B  ⇒ send on s      (waiting unchanged)
//!   not A        ⇒ send on s,     waiting := 0
//! ```
//!
//! A: f alone would deliver all k — max(k, w_f)/w_f windows of one round trip each, plus one
//! round trip for its window to free — before s would deliver the segment (rtt_s + δ); the
//! hysteresis bit `waiting` widens that margin by β once the scheduler has chosen to wait, so
//! that the choice does not flip at every segment. B: s would need at least two of f's round
//! trips plus δ to carry k, so waiting for f costs nothing. k is the connection's data never sent on any subflow ([`DataSender::unsent`]); it
//! counts at least one window of the subflow considered, as the code's max(k, w) does.
//!
//! Units: Linux's δ is `rttvar_us >> 1`, where `rttvar_us` is its RTO variance term, 4·mdev, so
//! δ = 2·mdev; the scheduler sees RFC 6298's RTTVAR, which is that mdev, hence the factor 2.
//! Deviations: Linux's `rttvar_us` is also floored at the minimum RTO (`tcp_rtt_estimator`), so
//! its δ never falls below 100 ms with the default 200 ms floor; ours has no floor, which the
//! paper's δ (the paths' RTT deviation) does not have either. Linux reads k from the memory
//! queued at the connection minus the subflows' queues (skb overheads included); windows are
//! bytes here, Linux's segments times the slow subflow's MSS. f is the fastest subflow the
//! scheduler may use — usable, and a backup only when backups are allowed — where Linux takes
//! any established subflow, one recovering from a timeout or a backup included.

use super::blest::chosen_and_fastest;
use super::data_sender::{Chunk, DataSender};
use super::scheduler::{assign, backups_allowed, SchedView, Scheduler};
use crate::sim::SimTime;

/// β = 1/R (`mptcp_ecf_r_beta`).
const BETA_INVERSE: u128 = 4;

/// Lowest RTT first, waiting for the fastest subflow when it would finish first.
#[derive(Clone, Debug, Default)]
pub struct Ecf {
    /// The last decision was to wait for the fastest subflow (Linux `switching_margin`).
    waiting: bool,
}

impl Ecf {
    /// Whether, with `k` bytes waiting, the next segment should wait for `f` rather than go on
    /// `s`.
    fn waits(&mut self, f: &SchedView, s: &SchedView, k: u64) -> bool {
        let picos = |s: &SchedView| u128::from(s.srtt.map_or(0, |d| d.as_picos()));
        let (rtt_f, rtt_s) = (picos(f), picos(s));
        let delta = 2 * u128::from(f.rttvar.max(s.rttvar).as_picos());
        let (k, w_f, w_s) = (u128::from(k), u128::from(f.cwnd), u128::from(s.cwnd));
        let lhs = rtt_f * (k.max(w_f) + w_f);
        let rhs = w_f * (rtt_s + delta);
        if BETA_INVERSE * lhs >= BETA_INVERSE * rhs + u128::from(self.waiting) * rhs {
            self.waiting = false;
            return false;
        }
        if rtt_s * k.max(w_s) >= w_s * (2 * rtt_f + delta) {
            self.waiting = true;
            return true;
        }
        false
    }
}

impl Scheduler for Ecf {
    fn fill(
        &mut self,
        _now: SimTime,
        subflows: &mut [SchedView],
        data: &mut DataSender,
        out: &mut Vec<(usize, Chunk)>,
    ) {
        let backups = backups_allowed(subflows);
        loop {
            let Some((i, fast)) = chosen_and_fastest(subflows, backups) else { return };
            if data.unsent() == 0 && !data.has_data_for(i as u8) {
                return;
            }
            if i != fast && self.waits(&subflows[fast], &subflows[i], data.unsent()) {
                return;
            }
            let Some(chunk) = data.next_chunk(i as u8, subflows[i].mss) else { return };
            assign(subflows, i, chunk, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Duration;

    const MSS: u32 = 1000;
    const SEG: u64 = MSS as u64;

    fn view(segments: u64, srtt_ms: u64) -> SchedView {
        SchedView::for_test(MSS, segments, segments, srtt_ms)
    }

    /// Chunks handed to each subflow with `k` bytes written and an open window.
    fn run(s: &mut Ecf, views: &mut [SchedView], k: u64) -> Vec<usize> {
        let mut d = DataSender::new(1 << 30, 1 << 30);
        d.write(k);
        let mut out = Vec::new();
        s.fill(SimTime::ZERO, views, &mut d, &mut out);
        let mut count = vec![0; views.len()];
        for (i, _) in out {
            count[i] += 1;
        }
        count
    }

    /// The fast subflow (10 ms, 10 segments) with its window full.
    fn full_fast() -> SchedView {
        SchedView { room: 0, ..view(10, 10) }
    }

    // Fast: 10 ms, w_f = 10 000 bytes; slow: 100 ms. A holds while
    // 10·(k + 10 000) < 10 000·100, that is k < 90 000 (k ≥ w_f); with waiting = 1, while
    // 4·10·(k + 10 000) < 5·10 000·100, k < 115 000. B holds for any k ≥ 200 bytes here.
    #[test]
    fn test_ecf_waits_when_the_fast_subflow_would_finish_first() {
        // 10 segments go on the fast subflow, then the slow one sends while k ≥ 90 000: from
        // k = 100 000 to 90 000, 11 segments; at k = 89 000 the scheduler waits.
        let mut s = Ecf::default();
        assert_eq!(run(&mut s, &mut [view(10, 10), view(20, 100)], 110_000), [10, 11]);
        assert!(s.waiting);
        let mut s = Ecf::default();
        assert_eq!(run(&mut s, &mut [view(10, 10), view(20, 100)], 1_000_000), [10, 20], "plenty waits");
        assert!(!s.waiting);
    }

    #[test]
    fn test_ecf_hysteresis_keeps_waiting_until_the_margin_is_passed() {
        let slow = || SchedView { room: SEG, ..view(20, 100) };
        assert_eq!(run(&mut Ecf::default(), &mut [full_fast(), slow()], 100_000), [0, 1], "k ≥ 90 000");
        let mut s = Ecf::default();
        assert_eq!(run(&mut s, &mut [full_fast(), slow()], 5_000), [0, 0], "little data: wait");
        assert_eq!(run(&mut s, &mut [full_fast(), slow()], 100_000), [0, 0], "k < 115 000 while waiting");
        assert_eq!(run(&mut s, &mut [full_fast(), slow()], 115_000), [0, 1], "past the margin");
        assert!(!s.waiting);
        assert_eq!(run(&mut s, &mut [full_fast(), slow()], 100_000), [0, 1], "the margin is gone");
    }

    #[test]
    fn test_ecf_does_not_wait_for_a_fast_subflow_barely_faster() {
        // Slow: 25 ms with RTTVAR 5 ms, so δ = 10 ms; k = 5 000 ≤ both windows.
        // A: 10·(10 000 + 10 000) < 10 000·(25 + 10); B: 25·10 000 ≥ 10 000·(2·10 + 10) fails.
        let slow = SchedView { rttvar: Duration::from_millis(5), ..view(10, 25) };
        let mut s = Ecf { waiting: true };
        assert_eq!(run(&mut s, &mut [full_fast(), slow], 5_000), [0, 5]);
        assert!(s.waiting, "A holds: the bit stays");
        // With RTTVAR 2.5 ms (δ = 5 ms), B holds: 25·10 000 ≥ 10 000·25.
        let slow = SchedView { rttvar: Duration::from_micros(2500), ..slow };
        assert_eq!(run(&mut Ecf::default(), &mut [full_fast(), slow], 5_000), [0, 0]);
    }

    #[test]
    fn test_ecf_sends_on_the_slow_subflow_when_the_fast_one_is_not_usable() {
        let down = SchedView { usable: false, ..full_fast() };
        assert_eq!(run(&mut Ecf::default(), &mut [down, view(10, 100)], 5_000), [0, 5]);
        let backup = SchedView { backup: true, ..full_fast() };
        assert_eq!(run(&mut Ecf::default(), &mut [backup, view(10, 100)], 5_000), [0, 5]);
        assert_eq!(run(&mut Ecf::default(), &mut [full_fast(), view(10, 100)], 5_000), [0, 0]);
    }
}
