//! Redundant (Linux MP-TCP v0.94 `mptcp_redundant.c`): every subflow with room sends every
//! chunk, each from its own position in the data sequence space, skipping what the DATA_ACK has
//! covered; data first sent by a faster subflow is repeated by the slower ones. A subflow's
//! timeout re-injects nothing: the other subflows carry its data already.

use super::data_sender::{Chunk, DataSender};
use super::scheduler::{assign, backups_allowed, SchedView, Scheduler};
use crate::sim::SimTime;

/// Every chunk on every subflow.
#[derive(Clone, Debug, Default)]
pub struct Redundant {
    /// Per subflow, the next data sequence number it sends.
    next: Vec<u64>,
}

impl Scheduler for Redundant {
    fn fill(
        &mut self,
        _now: SimTime,
        subflows: &mut [SchedView],
        data: &mut DataSender,
        out: &mut Vec<(usize, Chunk)>,
    ) {
        self.next.resize(subflows.len(), 0);
        let backups = backups_allowed(subflows);
        // Chunk by chunk across the subflows, so that new data goes out first on the subflow
        // that has room first rather than all on the lowest-numbered one.
        loop {
            let mut sent = false;
            for i in 0..subflows.len() {
                if !subflows[i].has_room() || (subflows[i].backup && !backups) {
                    continue;
                }
                if let Some(chunk) = data.chunk_from(i as u8, self.next[i], subflows[i].mss) {
                    self.next[i] = chunk.dsn + u64::from(chunk.len);
                    assign(subflows, i, chunk, out);
                    sent = true;
                }
            }
            if !sent {
                return;
            }
        }
    }

    fn reinjects(&self) -> bool {
        false
    }
}
