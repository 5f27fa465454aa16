//! Round robin (Linux MP-TCP v0.90 `mptcp_rr.c` with its defaults `num_segments = 1` and
//! `cwnd_limited = 1`): one chunk per turn to each subflow with room, in subflow order, with no
//! regard for RTTs.

use super::data_sender::{Chunk, DataSender};
use super::scheduler::{assign, backups_allowed, SchedView, Scheduler};
use crate::sim::SimTime;

/// One chunk per subflow per turn.
#[derive(Clone, Debug, Default)]
pub struct RoundRobin {
    /// The subflow whose turn is next.
    next: usize,
}

impl Scheduler for RoundRobin {
    fn fill(
        &mut self,
        _now: SimTime,
        subflows: &mut [SchedView],
        data: &mut DataSender,
        out: &mut Vec<(usize, Chunk)>,
    ) {
        let backups = backups_allowed(subflows);
        let n = subflows.len();
        loop {
            let turn = (0..n).map(|k| (self.next + k) % n).find(|&i| {
                subflows[i].has_room() && (backups || !subflows[i].backup) && data.has_data_for(i as u8)
            });
            let Some(i) = turn else { return };
            let chunk = data.next_chunk(i as u8, subflows[i].mss).expect("it has data for i");
            assign(subflows, i, chunk, out);
            self.next = (i + 1) % n;
        }
    }
}
