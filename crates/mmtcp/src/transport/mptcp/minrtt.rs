//! Lowest-RTT-first (Linux MP-TCP v0.90's default scheduler, `get_available_subflow` in
//! `mptcp_sched.c`): each chunk goes to the usable subflow with room and the lowest smoothed
//! RTT, so the fastest subflow fills its window first.

use super::data_sender::{Chunk, DataSender};
use super::scheduler::{assign, backups_allowed, SchedView, Scheduler};
use crate::sim::{Duration, SimTime};

/// Lowest smoothed RTT first.
#[derive(Clone, Debug, Default)]
pub struct MinRtt;

impl Scheduler for MinRtt {
    fn fill(
        &mut self,
        _now: SimTime,
        subflows: &mut [SchedView],
        data: &mut DataSender,
        out: &mut Vec<(usize, Chunk)>,
    ) {
        let backups = backups_allowed(subflows);
        loop {
            let best = (0..subflows.len())
                .filter(|&i| subflows[i].has_room() && (backups || !subflows[i].backup))
                .min_by_key(|&i| (subflows[i].srtt.unwrap_or(Duration::ZERO), i));
            let Some(i) = best else { return };
            let Some(chunk) = data.next_chunk(i as u8, subflows[i].mss) else { return };
            assign(subflows, i, chunk, out);
        }
    }
}
