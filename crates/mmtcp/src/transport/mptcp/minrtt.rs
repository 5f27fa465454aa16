//! Lowest-RTT-first, Linux MP-TCP v0.90's default scheduler (`mptcp_sched.c`).
//!
//! Each chunk goes to the usable subflow with room and the lowest smoothed RTT
//! (`get_available_subflow`), so the fastest subflow fills its window first.
//!
//! When the connection's receive window blocks new data, or the application is held back by a
//! full send buffer with everything sent (`mptcp_rcv_buf_optimization`), the subflow that would
//! send next — the lowest-RTT one with room, f — looks at the oldest chunk not yet DATA_ACKed,
//! the one the receiver waits for, and at the first subflow s that carried it:
//!
//! - *penalisation*: if rtt_f < rtt_s and s is in congestion state Open, s's window is halved
//!   (`cwnd_s := max(cwnd_s / 2, 1 segment)`, and, unless s is in slow start, `ssthresh_s :=
//!   max(ssthresh_s / 2, 2 segments)`), at most once per rtt_f for each f;
//! - *opportunistic retransmission*: if f has not carried that chunk, and s's window is at most
//!   4 segments or rtt_s > 4·rtt_f, f sends the chunk again.
//!
//! Linux penalises only when the chunk's window test fails or the send buffer is full; both are
//! the triggers here. Its per-subflow timer of the last penalisation starts when the subflow is
//! created; here at the first scheduling round the subflow takes part in.

use super::data_sender::{Chunk, DataSender};
use super::scheduler::{assign, backups_allowed, SchedView, Scheduler};
use crate::sim::{Duration, SimTime};

/// Opportunistic retransmission when the subflow that carried the head has a window of at most
/// this many segments (`mptcp_rcv_buf_optimization`).
const SMALL_WINDOW_SEGMENTS: u64 = 4;
/// ... or an RTT more than this many times the sending subflow's.
const SLOW_RTT_FACTOR: u64 = 4;

/// Lowest smoothed RTT first, with the default scheduler's penalisation and opportunistic
/// retransmission.
#[derive(Clone, Debug, Default)]
pub struct MinRtt {
    /// Per subflow, when it last penalised another.
    last_penalty: Vec<SimTime>,
}

fn srtt(v: &SchedView) -> Duration {
    v.srtt.unwrap_or(Duration::ZERO)
}

/// The usable subflow with room and the lowest smoothed RTT (ties: the lowest index).
fn fastest_with_room(subflows: &[SchedView], backups: bool) -> Option<usize> {
    (0..subflows.len())
        .filter(|&i| subflows[i].has_room() && (backups || !subflows[i].backup))
        .min_by_key(|&i| (srtt(&subflows[i]), i))
}

impl Scheduler for MinRtt {
    fn fill(
        &mut self,
        now: SimTime,
        subflows: &mut [SchedView],
        data: &mut DataSender,
        out: &mut Vec<(usize, Chunk)>,
    ) {
        self.last_penalty.resize(subflows.len(), now);
        let backups = backups_allowed(subflows);
        // A chunk waiting for re-injection goes to the fastest subflow that has not carried it
        // (Linux prefers such "unused" subflows), new data to the fastest.
        loop {
            let takers = (0..subflows.len()).filter(|&i| data.has_data_for(i as u8));
            let Some(f) = takers
                .filter(|&i| subflows[i].has_room() && (backups || !subflows[i].backup))
                .min_by_key(|&i| (srtt(&subflows[i]), i))
            else {
                break;
            };
            let chunk = data.next_chunk(f as u8, subflows[f].mss).expect("it has data for f");
            assign(subflows, f, chunk, out);
        }
        let Some(f) = fastest_with_room(subflows, backups) else { return };
        if subflows.len() < 2 || !(data.window_blocked(subflows[f].mss) || data.send_buffer_limited()) {
            return;
        }
        let Some(head) = data.head() else { return };
        let Some(s) = (0..subflows.len()).find(|&s| s != f && head.carried_by & (1u64 << s) != 0) else {
            return;
        };
        let (rtt_f, rtt_s) = (srtt(&subflows[f]), srtt(&subflows[s]));
        if now.saturating_since(self.last_penalty[f]) >= rtt_f && rtt_f < rtt_s && subflows[s].open {
            subflows[s].penalise = true;
            self.last_penalty[f] = now;
        }
        let small = subflows[s].cwnd <= SMALL_WINDOW_SEGMENTS * u64::from(subflows[s].mss);
        if small || rtt_s > rtt_f.saturating_mul(SLOW_RTT_FACTOR) {
            if let Some(chunk) = data.retransmit_head(f as u8) {
                assign(subflows, f, chunk, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn view(cwnd_segments: u64, room_segments: u64, srtt_ms: u64) -> SchedView {
        SchedView::for_test(MSS, cwnd_segments, room_segments, srtt_ms)
    }

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + Duration::from_millis(ms)
    }

    /// A connection whose 10-chunk window is full: chunk 0 on the slow subflow 1, 1..10 on the
    /// fast subflow 0, which now has room again.
    fn blocked() -> DataSender {
        let mut data = DataSender::new(1 << 30, 10 * u64::from(MSS));
        data.write(100 * u64::from(MSS));
        data.next_chunk(1, MSS);
        while data.next_chunk(0, MSS).is_some() {}
        data
    }

    fn fill(
        s: &mut MinRtt,
        now: SimTime,
        views: &mut [SchedView],
        data: &mut DataSender,
    ) -> Vec<(usize, u64)> {
        let mut out = Vec::new();
        s.fill(now, views, data, &mut out);
        out.into_iter().map(|(i, c)| (i, c.dsn / u64::from(MSS))).collect()
    }

    #[test]
    fn test_fills_the_fastest_window_first() {
        let mut data = DataSender::new(1 << 30, 1 << 30);
        data.write(10 * u64::from(MSS));
        let mut views = [view(2, 2, 50), view(3, 3, 10)];
        let got = fill(&mut MinRtt::default(), at(0), &mut views, &mut data);
        assert_eq!(got, vec![(1, 0), (1, 1), (1, 2), (0, 3), (0, 4)]);
    }

    #[test]
    fn test_reinjected_data_goes_to_the_fastest_subflow_that_has_not_carried_it() {
        let mut data = DataSender::new(1 << 30, 1 << 30);
        data.write(2 * u64::from(MSS));
        data.next_chunk(0, MSS);
        data.next_chunk(0, MSS);
        data.queue_reinjection(0, [(0, MSS as u16), (u64::from(MSS), MSS as u16)].into_iter());
        let mut views = [view(10, 10, 10), view(10, 10, 50), view(10, 10, 30)];
        let got = fill(&mut MinRtt::default(), at(0), &mut views, &mut data);
        assert_eq!(got, vec![(2, 0), (2, 1)], "not on subflow 0, which timed out with it");
    }

    #[test]
    fn test_a_blocked_window_penalises_the_slow_subflow_and_resends_its_chunk() {
        let mut s = MinRtt::default();
        let mut views = [view(20, 5, 10), view(20, 0, 100)];
        // The first round only starts the penalisation clock.
        assert_eq!(fill(&mut s, at(0), &mut views, &mut blocked()), vec![(0, 0)]);
        assert!(!views[1].penalise, "within an RTT of the start");
        let mut views = [view(20, 5, 10), view(20, 0, 100)];
        let mut data = blocked();
        assert_eq!(fill(&mut s, at(10), &mut views, &mut data), vec![(0, 0)], "rtt 100 > 4 · 10");
        assert!(views[1].penalise);
        // Once per RTT of the fast subflow, and the chunk goes once on it.
        let mut views = [view(20, 4, 10), view(20, 0, 100)];
        assert_eq!(fill(&mut s, at(15), &mut views, &mut data), vec![]);
        assert!(!views[1].penalise);
    }

    #[test]
    fn test_no_opportunistic_retransmission_to_a_subflow_of_similar_rtt() {
        let mut s = MinRtt::default();
        let mut views = [view(20, 5, 10), view(20, 0, 30)];
        assert_eq!(fill(&mut s, at(50), &mut views, &mut blocked()), vec![], "30 ms ≤ 4 · 10 ms");
        // ... unless its window is tiny.
        let mut views = [view(20, 5, 10), view(4, 0, 30)];
        assert_eq!(fill(&mut s, at(50), &mut views, &mut blocked()), vec![(0, 0)]);
    }

    #[test]
    fn test_no_penalty_for_a_subflow_already_recovering_or_faster() {
        let mut s = MinRtt::default();
        let mut views = [view(20, 5, 10), SchedView { open: false, ..view(20, 0, 100) }];
        fill(&mut s, at(50), &mut views, &mut blocked());
        assert!(!views[1].penalise, "in recovery");
        let mut views = [view(20, 5, 10), view(20, 0, 5)];
        views[1].room = 0;
        fill(&mut s, at(100), &mut views, &mut blocked());
        assert!(!views[1].penalise, "the blocking subflow is the faster one");
    }
}
