//! The sending subflow's half of MP-TCP's data-sequence mapping (RFC 8684 §3.3.1): which
//! connection-level bytes (data sequence numbers, DSN) each stretch of this subflow's sequence
//! space carries.
//!
//! The connection hands a subflow its data in chunks of at most one segment, each mapped at
//! once; the sender sends each chunk as one segment and never splits or merges segments, so a
//! segment is always exactly one mapping, and a retransmission repeats it (RFC 8684 §3.3.1: the
//! mapping of retransmitted data is fixed). Mappings are kept in subflow-sequence order, each
//! starting where the previous ends, from the oldest unacknowledged one: a cumulative ACK pops
//! from the front, a new chunk pushes at the back, a segment's lookup is a binary search.

use crate::net::DssMapping;
use std::collections::VecDeque;

/// How many of the newest mappings [`DssMap::at`] looks at before its general lookup: the
/// connection maps a few chunks at a time, which the subflow then sends.
const RECENT_MAPPINGS: usize = 4;

#[derive(Clone, Debug, Default)]
pub struct DssMap {
    /// Subflow sequence number one past the last mapped byte.
    end: u64,
    mappings: VecDeque<DssMapping>,
}

impl DssMap {
    pub fn new() -> Self {
        DssMap::default()
    }

    /// Maps the next `len` subflow bytes to the connection's bytes from `dsn`.
    pub fn push(&mut self, dsn: u64, len: u16) {
        self.mappings.push_back(DssMapping { dsn, ssn: self.end, len });
        self.end += u64::from(len);
    }

    /// The mapping of the segment that starts at subflow sequence number `ssn`. New data's is
    /// among the newest few. For older data (a retransmission): chunks are mostly one full
    /// segment each, so the mapping usually sits at (ssn − first) / stride, the stride being the
    /// first mapping's length; that guess is checked, and a binary search runs only when it
    /// misses (as the scoreboard finds its segments).
    pub fn at(&self, ssn: u64) -> Option<DssMapping> {
        // New data goes out as soon as it is mapped: its mapping is among the last few, found
        // without the division below.
        for m in self.mappings.iter().rev().take(RECENT_MAPPINGS) {
            if m.ssn <= ssn {
                if m.ssn == ssn {
                    return Some(*m);
                }
                break;
            }
        }
        let first = self.mappings.front()?;
        let stride = u64::from(first.len.max(1));
        let guess = ssn.checked_sub(first.ssn).map(|d| d / stride);
        if let Some(m) = guess.and_then(|g| self.mappings.get(usize::try_from(g).ok()?)) {
            if m.ssn == ssn {
                return Some(*m);
            }
        }
        let i = self.mappings.partition_point(|m| m.ssn < ssn);
        self.mappings.get(i).filter(|m| m.ssn == ssn).copied()
    }

    /// The subflow acknowledged everything below `una`: its mappings are done with.
    pub fn release_below(&mut self, una: u64) {
        while self.mappings.front().is_some_and(|m| m.ssn + u64::from(m.len) <= una) {
            self.mappings.pop_front();
        }
    }

    /// Mappings of the bytes not yet acknowledged on the subflow, oldest first.
    pub fn outstanding(&self) -> impl Iterator<Item = &DssMapping> {
        self.mappings.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_segments_look_up_their_mapping_and_acks_release_them() {
        let mut map = DssMap::new();
        map.push(5000, 1000);
        map.push(9000, 1000);
        map.push(6000, 400);
        assert_eq!(map.at(1000), Some(DssMapping { dsn: 9000, ssn: 1000, len: 1000 }));
        assert_eq!(map.at(2000), Some(DssMapping { dsn: 6000, ssn: 2000, len: 400 }));
        assert_eq!(map.at(500), None, "not a segment's start");
        assert_eq!(map.at(2400), None, "beyond the last");
        map.release_below(1500);
        assert_eq!(map.at(0), None, "acknowledged");
        assert_eq!(map.outstanding().map(|m| m.dsn).collect::<Vec<_>>(), vec![9000, 6000]);
        map.release_below(2400);
        assert_eq!(map.outstanding().count(), 0);
    }

    #[test]
    fn old_mappings_are_found_beyond_the_newest_few() {
        let mut map = DssMap::new();
        for k in 0..10 {
            map.push(100_000 + 1000 * k, if k == 3 { 500 } else { 1000 });
        }
        // ssn of mapping k: 1000 k, less 500 from k = 4 on.
        assert_eq!(map.at(2000), Some(DssMapping { dsn: 102_000, ssn: 2000, len: 1000 }), "the guess");
        assert_eq!(map.at(4500), Some(DssMapping { dsn: 105_000, ssn: 4500, len: 1000 }), "the search");
        assert_eq!(map.at(8500), Some(DssMapping { dsn: 109_000, ssn: 8500, len: 1000 }), "the newest");
        assert_eq!(map.at(6000), None, "inside a mapping");
    }
}
