//! The pending-event set: a 4-ary min-heap ordered by (time, insertion sequence).
//!
//! Ties in time are broken by insertion order, so a run is a pure function of its inputs — the
//! same rule as ns-3's `EventKey{ts, uid}`. Events are small `Copy` values addressed to component
//! ids, never closures, so the heap holds plain data and never allocates once it has grown to the
//! run's peak size. Components keep the heap small by scheduling only their *next* event (htsim).
//!
//! Every event is pushed and popped once, so the heap's two walks are the engine's own cost, and
//! what they pay for most is mispredicted branches. The heap of a run holds tens of events:
//! four children per node make a pop walk half the levels of a binary heap; the least of four
//! children is found by a tournament of pairs that compiles to conditional moves; and the
//! vector keeps [`ARITY`] entries with the greatest key after the live ones, so every node with
//! a child has four (no branch for a last, partial node). Entries move through a hole (each
//! level copies one entry) rather than by swaps.
//!
//! Most events schedule a follow-up while they are handled (in the MP-TCP benchmark, five pops
//! in six), so a pop leaves the root empty and the next schedule fills it: one walk down from the
//! root instead of one walk down for the former last entry and one up for the new one. Keys are
//! unique, so the order events come out in is the same whatever the heap's shape.

use super::time::SimTime;

/// Children per node of the heap.
const ARITY: usize = 4;

/// The key of the padding entries after the live ones: above every real key, whose sequence
/// half never reaches `u64::MAX`.
const PADDING: u128 = u128::MAX;

/// `key` packs (time, insertion sequence) into one integer, time in the high half, so that one
/// comparison orders entries.
#[derive(Clone, Copy, Debug)]
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn time(&self) -> SimTime {
        SimTime((self.key >> 64) as u64)
    }
}

/// Deterministic event queue. `E` is the simulation's event enum.
#[derive(Debug)]
pub struct EventQueue<E> {
    /// The heap in `heap[..len]`: the children of entry `i` are `ARITY * i + 1 ..= ARITY * i +
    /// ARITY`, and every entry's key is below its children's. At least [`ARITY`] entries keyed
    /// [`PADDING`] follow.
    heap: Vec<Entry<E>>,
    len: usize,
    /// The root was popped and not yet refilled: `heap[0]` is a hole, counted in `len`.
    root_vacant: bool,
    next_seq: u64,
    now: SimTime,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        Self::with_capacity(1024)
    }

    pub fn with_capacity(capacity: usize) -> Self {
        EventQueue {
            heap: Vec::with_capacity(capacity + ARITY),
            len: 0,
            root_vacant: false,
            next_seq: 0,
            now: SimTime::ZERO,
        }
    }

    /// The time of the event being processed (the last one popped).
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `event` at `time`. Scheduling in the past is a logic error: it is caught in
    /// debug builds and clamped to `now` in release builds, so time never runs backwards.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: E) {
        debug_assert!(time >= self.now, "event scheduled in the past: {time:?} < {:?}", self.now);
        let time = time.max(self.now);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.push(Entry { key: (time.0 as u128) << 64 | seq as u128, event });
    }

    /// Removes the earliest event and advances `now` to its time. Its place stays empty until
    /// the next schedule (or the next look at the heap) fills it.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.fill_root();
        if self.len == 0 {
            return None;
        }
        let first = self.heap[0];
        self.root_vacant = true;
        self.now = first.time();
        Some((self.now, first.event))
    }

    /// The time of the earliest pending event.
    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.fill_root();
        (self.len > 0).then(|| self.heap[0].time())
    }

    pub fn len(&self) -> usize {
        self.len - usize::from(self.root_vacant)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fills an empty root with the last entry (nothing was scheduled since the pop).
    #[inline]
    fn fill_root(&mut self) {
        if self.root_vacant {
            self.root_vacant = false;
            self.len -= 1;
            let last = self.heap[self.len];
            self.heap[self.len].key = PADDING;
            if self.len > 0 {
                self.sift_down(last);
            }
        }
    }

    /// Puts `entry` into the empty root, or else adds it at the bottom and moves it up past the
    /// parents whose keys are greater.
    #[inline]
    fn push(&mut self, entry: Entry<E>) {
        if self.root_vacant {
            self.root_vacant = false;
            self.sift_down(entry);
            return;
        }
        if self.heap.len() < self.len + 1 + ARITY {
            // Grows to the run's peak once; any event does as the padding's payload.
            self.heap.resize(self.len + 1 + ARITY, Entry { key: PADDING, event: entry.event });
        }
        let heap = &mut self.heap[..];
        let mut hole = self.len;
        self.len += 1;
        while hole > 0 {
            let parent = (hole - 1) / ARITY;
            if heap[parent].key < entry.key {
                break;
            }
            heap[hole] = heap[parent];
            hole = parent;
        }
        heap[hole] = entry;
    }

    /// Fills the root (just taken) with `entry`: the least child moves up into the hole until
    /// `entry`'s key is below every child's.
    #[inline]
    fn sift_down(&mut self, entry: Entry<E>) {
        let heap = &mut self.heap[..];
        let mut hole = 0;
        loop {
            let first = ARITY * hole + 1;
            if first >= self.len {
                break;
            }
            let least = first + least_of_four(&heap[first..first + ARITY]);
            if entry.key < heap[least].key {
                break;
            }
            heap[hole] = heap[least];
            hole = least;
        }
        heap[hole] = entry;
    }
}

/// The index of the least key among four entries, by a tournament of pairs on the keys
/// themselves (the two first matches are independent, and no index is loaded through).
#[inline]
fn least_of_four<E>(c: &[Entry<E>]) -> usize {
    let (k0, k1, k2, k3) = (c[0].key, c[1].key, c[2].key, c[3].key);
    let low = usize::from(k1 < k0);
    let high = 2 + usize::from(k3 < k2);
    if k2.min(k3) < k0.min(k1) {
        high
    } else {
        low
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn pops_in_time_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(30), 'c');
        q.schedule(SimTime(10), 'a');
        q.schedule(SimTime(20), 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c']);
    }

    #[test]
    fn ties_run_in_insertion_order() {
        let mut q = EventQueue::new();
        for i in 0..100u32 {
            q.schedule(SimTime(7), i);
        }
        let order: Vec<u32> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn now_follows_popped_event() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(5), ());
        assert_eq!(q.now(), SimTime::ZERO);
        q.pop();
        assert_eq!(q.now(), SimTime(5));
    }

    proptest! {
        /// Whatever the interleaving of pushes and pops, events come out sorted by
        /// (time, insertion order) — the queue is a stable priority queue.
        #[test]
        fn stable_order_under_interleaving(ops in proptest::collection::vec((0u64..50, any::<bool>()), 1..300)) {
            let mut q = EventQueue::new();
            let mut seq = 0u32;
            let mut popped: Vec<(SimTime, u32)> = Vec::new();
            for (dt, pop) in ops {
                if pop {
                    if let Some(e) = q.pop() { popped.push(e); }
                } else {
                    q.schedule(q.now() + crate::sim::Duration(dt), seq);
                    seq += 1;
                }
            }
            while let Some(e) = q.pop() { popped.push(e); }
            prop_assert_eq!(popped.len(), seq as usize);
            for w in popped.windows(2) {
                prop_assert!(w[0].0 <= w[1].0);
                if w[0].0 == w[1].0 {
                    // Pushes are numbered in the order they happen, so at equal times an
                    // earlier push must come out first.
                    prop_assert!(w[0].1 < w[1].1);
                }
            }
        }
    }

    proptest! {
        /// Against a reference (a sorted map of (time, sequence)), over heaps of thousands of
        /// events: every pop returns the reference's first entry, `peek_time` its time.
        #[test]
        fn agrees_with_a_sorted_reference(ops in proptest::collection::vec((0u64..1000, 0u8..3), 1..5000)) {
            let mut q = EventQueue::with_capacity(0);
            let mut reference = std::collections::BTreeMap::new();
            let mut seq = 0u64;
            for (dt, op) in ops {
                if op == 0 {
                    let expected = reference.pop_first().map(|((t, _), e)| (SimTime(t), e));
                    prop_assert_eq!(q.pop(), expected);
                } else {
                    let t = q.now() + crate::sim::Duration(dt);
                    q.schedule(t, seq);
                    reference.insert((t.0, seq), seq);
                    seq += 1;
                }
                prop_assert_eq!(q.peek_time(), reference.keys().next().map(|&(t, _)| SimTime(t)));
                prop_assert_eq!(q.len(), reference.len());
            }
        }
    }
}
