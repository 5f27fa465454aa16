//! [`RangeSet`]: the byte ranges a flow tracks above a cumulative point — the cached data above
//! the contiguous end `A`, reported to the server in SACK blocks, and the ranges the mobile has
//! SACKed above its cumulative ACK.

use crate::net::SeqRange;

/// Disjoint, non-adjacent byte ranges in increasing order, in a vector: a flow has few holes at
/// a time, so a linear merge is cheap, and once the vector has grown it allocates nothing.
#[derive(Clone, Debug, Default)]
pub(super) struct RangeSet {
    ranges: Vec<SeqRange>,
}

impl RangeSet {
    /// Adds `r`; returns how many of its bytes were not covered before.
    pub(super) fn insert(&mut self, r: SeqRange) -> u64 {
        if r.is_empty() {
            return 0;
        }
        let i = self.ranges.partition_point(|x| x.end < r.start);
        let mut j = i;
        let (mut start, mut end, mut overlap) = (r.start, r.end, 0);
        while j < self.ranges.len() && self.ranges[j].start <= r.end {
            let x = self.ranges[j];
            overlap += x.end.min(r.end).saturating_sub(x.start.max(r.start));
            start = start.min(x.start);
            end = end.max(x.end);
            j += 1;
        }
        if i == j {
            self.ranges.insert(i, SeqRange::new(start, end));
        } else {
            self.ranges[i] = SeqRange::new(start, end);
            self.ranges.drain(i + 1..j);
        }
        r.len() - overlap
    }

    /// Whether every byte of `r` is covered.
    pub(super) fn covers(&self, r: SeqRange) -> bool {
        let i = self.ranges.partition_point(|x| x.end <= r.start);
        self.ranges.get(i).is_some_and(|x| x.start <= r.start && r.end <= x.end)
    }

    /// Whether some byte of `r` is covered.
    pub(super) fn overlaps(&self, r: SeqRange) -> bool {
        let i = self.ranges.partition_point(|x| x.end <= r.start);
        self.ranges.get(i).is_some_and(|x| x.start < r.end)
    }

    /// The range holding byte `seq`, if any.
    pub(super) fn containing(&self, seq: u64) -> Option<SeqRange> {
        let i = self.ranges.partition_point(|x| x.end <= seq);
        self.ranges.get(i).copied().filter(|x| x.start <= seq)
    }

    /// Forgets every byte below `seq`.
    pub(super) fn remove_below(&mut self, seq: u64) {
        let i = self.ranges.partition_point(|x| x.end <= seq);
        self.ranges.drain(..i);
        if let Some(first) = self.ranges.first_mut() {
            first.start = first.start.max(seq);
        }
    }

    pub(super) fn first(&self) -> Option<SeqRange> {
        self.ranges.first().copied()
    }

    pub(super) fn pop_first(&mut self) {
        self.ranges.remove(0);
    }

    #[cfg(test)]
    pub(super) fn as_slice(&self) -> &[SeqRange] {
        &self.ranges
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_rangeset_insert_merges_and_counts_new_bytes() {
        let mut s = RangeSet::default();
        assert_eq!(s.insert(SeqRange::new(10, 20)), 10);
        assert_eq!(s.insert(SeqRange::new(30, 40)), 10);
        assert_eq!(s.insert(SeqRange::new(15, 35)), 10, "only 20..30 is new");
        assert_eq!(s.as_slice(), &[SeqRange::new(10, 40)]);
        assert_eq!(s.insert(SeqRange::new(40, 45)), 5, "adjacent ranges merge");
        assert_eq!(s.as_slice(), &[SeqRange::new(10, 45)]);
        assert_eq!(s.insert(SeqRange::new(50, 60)), 10);
        assert!(s.covers(SeqRange::new(12, 45)));
        assert!(!s.covers(SeqRange::new(40, 52)));
        assert!(s.overlaps(SeqRange::new(44, 50)));
        assert!(!s.overlaps(SeqRange::new(45, 50)));
        assert_eq!(s.containing(50), Some(SeqRange::new(50, 60)));
        assert_eq!(s.containing(59), Some(SeqRange::new(50, 60)));
        assert_eq!(s.containing(45), None);
        assert_eq!(s.containing(60), None);
        s.remove_below(52);
        assert_eq!(s.as_slice(), &[SeqRange::new(52, 60)]);
    }
}
