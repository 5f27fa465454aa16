//! A set of disjoint, non-adjacent byte ranges of the sequence space.
//!
//! The sender keeps the SACKed ranges here, the receiver its out-of-order data. Inserting a range
//! reports only the sub-ranges that were not covered before, so a SACK block repeated on every
//! ACK costs a lookup, not a walk over the bytes it covers: the per-ACK cost stays logarithmic
//! even with 10^5 segments in flight.
//!
//! The ranges sit in a `VecDeque` sorted by start. Invariants, for consecutive ranges `a`, `b`:
//! `a.start < a.end < b.start` (non-empty, disjoint and not adjacent: touching ranges are merged),
//! and `covered` is the sum of their lengths. A lookup is a binary search; the way TCP uses the set
//! makes the changes cheap at the ends, where they happen: new SACK blocks and out-of-order
//! segments mostly extend or follow the highest range (`push_back`), the cumulative ACK point
//! removes from the lowest (`pop_front`), and a range merged with its neighbours is replaced in
//! place, the absorbed ones drained from the side of the deque nearer to them. Nothing is
//! allocated once the deque has grown to the largest number of ranges of the run: it keeps its
//! capacity.

use crate::net::SeqRange;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct IntervalSet {
    /// Sorted by start; disjoint and non-adjacent.
    ranges: VecDeque<SeqRange>,
    covered: u64,
}

impl IntervalSet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes covered.
    pub fn covered(&self) -> u64 {
        self.covered
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Number of disjoint ranges.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// The lowest range.
    pub fn first(&self) -> Option<SeqRange> {
        self.ranges.front().copied()
    }

    /// The highest covered byte plus one.
    pub fn end(&self) -> Option<u64> {
        self.ranges.back().map(|r| r.end)
    }

    /// The range that contains `seq`, if any.
    pub fn containing(&self, seq: u64) -> Option<SeqRange> {
        let i = self.ranges.partition_point(|r| r.end <= seq);
        self.ranges.get(i).filter(|r| r.start <= seq).copied()
    }

    /// Adds `range`, calling `new_part` for each sub-range that was not covered before, in
    /// increasing order. Merges with overlapping and adjacent ranges.
    pub fn insert(&mut self, range: SeqRange, mut new_part: impl FnMut(SeqRange)) {
        if range.is_empty() {
            return;
        }
        // Most often the range continues the highest one (in-order data behind a hole, a SACK
        // block growing): it extends that range, without a search.
        if let Some(last) = self.ranges.back_mut().filter(|last| last.end == range.start) {
            new_part(range);
            last.end = range.end;
            self.covered += range.len();
            return;
        }
        // Ranges [first, past) overlap or touch `range`: those before end below its start, those
        // after start above its end. Above the highest range, both are the length at once.
        let (first, past) = match self.ranges.back() {
            Some(last) if last.end < range.start => (self.ranges.len(), self.ranges.len()),
            _ => (
                self.ranges.partition_point(|r| r.end < range.start),
                self.ranges.partition_point(|r| r.start <= range.end),
            ),
        };
        if first == past {
            new_part(range);
            self.ranges.insert(first, range);
            self.covered += range.len();
            return;
        }
        let mut merged = SeqRange::new(range.start.min(self.ranges[first].start), range.end);
        let mut cursor = range.start;
        for r in self.ranges.range(first..past) {
            if r.start > cursor {
                new_part(SeqRange::new(cursor, r.start));
            }
            cursor = cursor.max(r.end);
            merged.end = merged.end.max(r.end);
            self.covered -= r.len();
        }
        if cursor < range.end {
            new_part(SeqRange::new(cursor, range.end));
        }
        self.covered += merged.len();
        self.ranges[first] = merged;
        if past > first + 1 {
            self.ranges.drain(first + 1..past);
        }
    }

    /// Forgets everything below `seq` (the cumulative ACK point).
    pub fn remove_below(&mut self, seq: u64) {
        while let Some(front) = self.ranges.front_mut() {
            if front.start >= seq {
                break;
            }
            if front.end > seq {
                self.covered -= seq - front.start;
                front.start = seq;
                break;
            }
            self.covered -= front.len();
            self.ranges.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn r(a: u64, b: u64) -> SeqRange {
        SeqRange::new(a, b)
    }

    fn insert_collect(set: &mut IntervalSet, range: SeqRange) -> Vec<SeqRange> {
        let mut v = Vec::new();
        set.insert(range, |p| v.push(p));
        v
    }

    #[test]
    fn disjoint_inserts_are_all_new() {
        let mut s = IntervalSet::new();
        assert_eq!(insert_collect(&mut s, r(10, 20)), vec![r(10, 20)]);
        assert_eq!(insert_collect(&mut s, r(30, 40)), vec![r(30, 40)]);
        assert_eq!(s.len(), 2);
        assert_eq!(s.covered(), 20);
    }

    #[test]
    fn growing_block_reports_only_its_growth() {
        let mut s = IntervalSet::new();
        insert_collect(&mut s, r(100, 200));
        assert_eq!(insert_collect(&mut s, r(100, 250)), vec![r(200, 250)]);
        assert_eq!(insert_collect(&mut s, r(100, 250)), vec![]);
        assert_eq!(s.first(), Some(r(100, 250)));
    }

    #[test]
    fn filling_holes_merges_ranges() {
        let mut s = IntervalSet::new();
        insert_collect(&mut s, r(0, 10));
        insert_collect(&mut s, r(20, 30));
        insert_collect(&mut s, r(40, 50));
        assert_eq!(insert_collect(&mut s, r(5, 45)), vec![r(10, 20), r(30, 40)]);
        assert_eq!(s.len(), 1);
        assert_eq!(s.first(), Some(r(0, 50)));
        assert_eq!(s.covered(), 50);
    }

    #[test]
    fn adjacent_ranges_merge() {
        let mut s = IntervalSet::new();
        insert_collect(&mut s, r(0, 10));
        insert_collect(&mut s, r(10, 20));
        assert_eq!(s.len(), 1);
        assert_eq!(s.containing(15), Some(r(0, 20)));
        assert_eq!(s.containing(20), None);
    }

    #[test]
    fn insert_below_and_between_keeps_the_order() {
        let mut s = IntervalSet::new();
        insert_collect(&mut s, r(50, 60));
        insert_collect(&mut s, r(10, 20));
        insert_collect(&mut s, r(30, 40));
        assert_eq!(s.len(), 3);
        assert_eq!(s.first(), Some(r(10, 20)));
        assert_eq!(s.containing(35), Some(r(30, 40)));
        assert_eq!(s.end(), Some(60));
        // Touching the ranges on both sides merges all three.
        assert_eq!(insert_collect(&mut s, r(20, 30)), vec![r(20, 30)]);
        assert_eq!((s.len(), s.first(), s.covered()), (2, Some(r(10, 40)), 40));
    }

    #[test]
    fn remove_below_trims() {
        let mut s = IntervalSet::new();
        insert_collect(&mut s, r(0, 10));
        insert_collect(&mut s, r(20, 30));
        s.remove_below(25);
        assert_eq!(s.first(), Some(r(25, 30)));
        assert_eq!(s.covered(), 5);
    }

    /// The reference model: one flag per byte.
    struct Bitmap(Vec<bool>);

    impl Bitmap {
        /// The maximal runs of bytes in `within` whose flag is `value`, in increasing order.
        fn runs(&self, within: SeqRange, value: bool) -> Vec<SeqRange> {
            let mut runs: Vec<SeqRange> = Vec::new();
            for i in within.start..within.end {
                if self.0[i as usize] != value {
                    continue;
                }
                match runs.last_mut() {
                    Some(last) if last.end == i => last.end = i + 1,
                    _ => runs.push(r(i, i + 1)),
                }
            }
            runs
        }
    }

    const SPACE: u64 = 300;

    proptest! {
        /// Against a bitmap model under random inserts and trims: the ranges are exactly the
        /// model's maximal runs of covered bytes (so disjoint, non-adjacent and sorted), coverage
        /// and lookups agree, and each insert reports exactly the maximal runs of bytes it newly
        /// covers, in increasing order.
        #[test]
        fn matches_bitmap_model(ops in proptest::collection::vec((0u64..200, 0u64..40, any::<bool>()), 1..80)) {
            let mut s = IntervalSet::new();
            let mut model = Bitmap(vec![false; SPACE as usize]);
            let everything = r(0, SPACE);
            for (a, len, trim) in ops {
                if trim {
                    s.remove_below(a);
                    model.0[..a as usize].fill(false);
                } else {
                    let range = r(a, a + len);
                    let expected = model.runs(range, false);
                    prop_assert_eq!(insert_collect(&mut s, range), expected);
                    model.0[a as usize..(a + len) as usize].fill(true);
                }
                let runs = model.runs(everything, true);
                prop_assert_eq!(s.ranges.iter().copied().collect::<Vec<_>>(), runs.clone());
                prop_assert_eq!(s.len(), runs.len());
                prop_assert_eq!(s.first(), runs.first().copied());
                prop_assert_eq!(s.end(), runs.last().map(|l| l.end));
                prop_assert_eq!(s.covered(), runs.iter().map(SeqRange::len).sum::<u64>());
                for i in 0..SPACE {
                    let run = runs.iter().find(|run| run.start <= i && i < run.end).copied();
                    prop_assert_eq!(s.containing(i), run, "byte {}", i);
                }
            }
        }
    }
}
