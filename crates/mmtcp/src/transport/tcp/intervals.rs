//! A set of disjoint, non-adjacent byte ranges of the sequence space.
//!
//! The sender keeps the SACKed ranges here, the receiver its out-of-order data. Inserting a range
//! reports only the sub-ranges that were not covered before, so a SACK block repeated on every
//! ACK costs O(log n), not O(size of the block): the per-ACK cost stays logarithmic even with
//! 10^5 segments in flight.

use crate::net::SeqRange;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
pub struct IntervalSet {
    /// start → end, disjoint and non-adjacent.
    ranges: BTreeMap<u64, u64>,
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
        self.ranges.first_key_value().map(|(&s, &e)| SeqRange::new(s, e))
    }

    /// The highest covered byte plus one.
    pub fn end(&self) -> Option<u64> {
        self.ranges.last_key_value().map(|(_, &e)| e)
    }

    /// The range that contains `seq`, if any.
    pub fn containing(&self, seq: u64) -> Option<SeqRange> {
        let (&s, &e) = self.ranges.range(..=seq).next_back()?;
        (seq < e).then(|| SeqRange::new(s, e))
    }

    /// Adds `range`, calling `new_part` for each sub-range that was not covered before, in
    /// increasing order. Merges with overlapping and adjacent ranges.
    pub fn insert(&mut self, range: SeqRange, mut new_part: impl FnMut(SeqRange)) {
        if range.is_empty() {
            return;
        }
        let mut start = range.start;
        let mut end = range.end;
        // A range starting at or before `start` that reaches it absorbs the new one's head.
        if let Some((&s, &e)) = self.ranges.range(..=start).next_back() {
            if e >= start {
                if e >= end {
                    return; // already covered
                }
                start = s;
                self.ranges.remove(&s);
                self.covered -= e - s;
                // Bytes [range.start, e) were covered; the new part starts at e.
                self.absorb_following(start, e, range, &mut end, &mut new_part);
                return;
            }
        }
        self.absorb_following(start, range.start, range, &mut end, &mut new_part);
    }

    /// Merges the ranges that start within `[range.start, end]` into `[start, end)`, reporting
    /// the gaps between them (from `cursor` on) as new. Inserts the merged range.
    fn absorb_following(
        &mut self,
        start: u64,
        mut cursor: u64,
        range: SeqRange,
        end: &mut u64,
        new_part: &mut impl FnMut(SeqRange),
    ) {
        loop {
            let next = self.ranges.range(range.start..).next().map(|(&s, &e)| (s, e));
            match next {
                Some((s, e)) if s <= *end => {
                    if s > cursor {
                        new_part(SeqRange::new(cursor, s));
                    }
                    cursor = cursor.max(e);
                    *end = (*end).max(e);
                    self.ranges.remove(&s);
                    self.covered -= e - s;
                }
                _ => break,
            }
        }
        if cursor < range.end {
            new_part(SeqRange::new(cursor, range.end));
        }
        self.ranges.insert(start, *end);
        self.covered += *end - start;
    }

    /// Forgets everything below `seq` (the cumulative ACK point).
    pub fn remove_below(&mut self, seq: u64) {
        while let Some((&s, &e)) = self.ranges.first_key_value() {
            if s >= seq {
                break;
            }
            self.ranges.remove(&s);
            self.covered -= e - s;
            if e > seq {
                self.ranges.insert(seq, e);
                self.covered += e - seq;
                break;
            }
        }
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
        self.covered = 0;
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
    fn remove_below_trims() {
        let mut s = IntervalSet::new();
        insert_collect(&mut s, r(0, 10));
        insert_collect(&mut s, r(20, 30));
        s.remove_below(25);
        assert_eq!(s.first(), Some(r(25, 30)));
        assert_eq!(s.covered(), 5);
    }

    proptest! {
        /// Against a bitmap model: coverage matches, and the reported new parts are exactly the
        /// bytes that were not covered before, each reported once.
        #[test]
        fn matches_bitmap_model(ops in proptest::collection::vec((0u64..200, 0u64..40, any::<bool>()), 1..60)) {
            let mut s = IntervalSet::new();
            let mut model = vec![false; 300];
            for (a, len, trim) in ops {
                if trim {
                    s.remove_below(a);
                    for b in model.iter_mut().take(a as usize) { *b = false; }
                    continue;
                }
                let mut reported = vec![false; 300];
                let mut last_end = 0;
                s.insert(r(a, a + len), |p| {
                    assert!(p.start >= last_end, "parts in increasing order");
                    last_end = p.end;
                    for i in p.start..p.end { assert!(!reported[i as usize]); reported[i as usize] = true; }
                });
                for i in a..a + len {
                    prop_assert_eq!(reported[i as usize], !model[i as usize], "byte {}", i);
                    model[i as usize] = true;
                }
                prop_assert_eq!(s.covered(), model.iter().filter(|&&b| b).count() as u64);
                for i in 0..300u64 {
                    prop_assert_eq!(s.containing(i).is_some(), model[i as usize]);
                }
            }
        }
    }
}
