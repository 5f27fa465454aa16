//! The source packets of each cohort, from the gateway that coded them to the device that
//! decodes them.
//!
//! A real coded packet carries Σᵢ gᵢ·sᵢ over its sources' bytes, headers included, so a device
//! that reaches full rank recovers the sources themselves. The simulation carries only the
//! coefficients (decodability is what changes results; see `docs/models/network-coding.md`), so
//! the gateway leaves each cohort's source packets here, per flow in arrival order, and the
//! device takes them when it decides the cohort: it passes them on if it decoded their flow's
//! generation and frees them otherwise. Nothing else reads them: the store is the payload the
//! simulation does not copy, not a side channel.

use crate::ids::{FlowId, PacketId};
use std::collections::VecDeque;

/// One flow's sources in one cohort, in the order they reached the gateway.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowSources {
    pub flow: FlowId,
    pub packets: Vec<PacketId>,
}

/// Cohorts not yet decided by the device, by increasing label.
#[derive(Debug, Default)]
pub struct SourceStore {
    cohorts: VecDeque<(u64, Vec<FlowSources>)>,
}

impl SourceStore {
    /// Leaves cohort `label`'s sources; labels come in increasing order.
    pub fn put(&mut self, label: u64, flows: Vec<FlowSources>) {
        debug_assert!(self.cohorts.back().is_none_or(|&(l, _)| l < label), "labels increase");
        self.cohorts.push_back((label, flows));
    }

    /// Takes the oldest cohort if its label is at most `label`.
    pub fn take_through(&mut self, label: u64) -> Option<(u64, Vec<FlowSources>)> {
        if self.cohorts.front()?.0 <= label {
            self.cohorts.pop_front()
        } else {
            None
        }
    }

    /// The label of the oldest cohort held.
    pub fn oldest_label(&self) -> Option<u64> {
        self.cohorts.front().map(|&(l, _)| l)
    }

    /// Source packets held.
    pub fn packets(&self) -> usize {
        self.cohorts.iter().flat_map(|(_, f)| f).map(|f| f.packets.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(f: u32, pkts: &[u32]) -> FlowSources {
        FlowSources { flow: FlowId(f), packets: pkts.iter().map(|&p| PacketId(p)).collect() }
    }

    #[test]
    fn test_cohorts_come_out_oldest_first_and_only_through_the_label() {
        let mut store = SourceStore::default();
        store.put(3, vec![flow(0, &[1, 2])]);
        store.put(5, vec![flow(0, &[3]), flow(1, &[4])]);
        assert_eq!(store.packets(), 4);
        assert_eq!(store.take_through(2), None);
        assert_eq!(store.take_through(4), Some((3, vec![flow(0, &[1, 2])])));
        assert_eq!(store.take_through(4), None, "5 is after 4");
        assert_eq!(store.take_through(9).map(|(l, f)| (l, f.len())), Some((5, 2)));
        assert_eq!(store.take_through(9), None);
        assert_eq!(store.packets(), 0);
    }
}
