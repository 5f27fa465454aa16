//! The buffer of new SDUs awaiting their first transmission: drop-tail at a byte limit, optionally
//! with CoDel (RFC 8289) at its head.
//!
//! SNs are assigned on admission, in order, so the SNs in the buffer are consecutive apart from
//! those CoDel drops at the head. An SDU admitted ahead of queued ones ([`SduBuffer::offer_at`], for
//! a proxy's priority retransmissions) takes the SN of the SDU it goes ahead of and those behind
//! it move up by one: no SN in the buffer has been sent yet, so renumbering them is invisible to
//! the peer.
//!
//! CoDel, after the annotated pseudocode of RFC 8289 §5 ("Dequeue Routine"): the sojourn time of
//! each SDU is measured when it leaves the buffer for its first transmission. When it has stayed
//! at or above `target` for at least `interval`, and more than one maximal SDU is queued
//! ("Non-Starvation", §4.1), the head is dropped and the controller enters the dropping state;
//! there the next drop is scheduled by the control law (§3.3 "Control Loop")
//!
//! ```text
//!   drop_next = drop_next + interval / √count
//! ```
//!
//! and the state is left as soon as a dequeued SDU's sojourn falls below `target`. On re-entry
//! soon after leaving (within 16 intervals), `count` resumes from the drops of the last cycle,
//! the Linux variant the RFC's pseudocode adopts. MAXPACKET is the largest SDU offered so far.
//!
//! Discard timer (PDCP discardTimer, 3GPP TS 38.323 §5.2.2.1 and §7.3; RLC's part, TS 38.322
//! §5.4): an SDU that has been in the buffer for `discard_timer` or longer is discarded. PDCP
//! starts one timer per SDU; here the buffer is examined at its head only — when an SDU is taken
//! out and at [`SduBuffer::discard_expired`], which the MAC calls every slot — so the check costs
//! O(1) and no timer event. SDUs reach the head in arrival order (only a proxy's priority
//! insertion, [`SduBuffer::offer_at`], puts a younger SDU ahead of older ones, which then wait
//! for it to leave before their age is looked at). Discards come before CoDel's decision.

use crate::sim::{Duration, SimTime};
use std::collections::VecDeque;

/// An SDU waiting for its first transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct QueuedSdu {
    pub sn: u64,
    pub len: u32,
    pub enqueued: SimTime,
}

#[derive(Debug)]
struct CoDel {
    target: Duration,
    interval: Duration,
    /// When the sojourn time will have been above target for an interval (RFC's
    /// `first_above_time`, 0 there and `None` here when the sojourn is below target).
    first_above: Option<SimTime>,
    /// When the next drop is due in the dropping state.
    drop_next: SimTime,
    /// Drops since entering the dropping state.
    count: u32,
    /// `count` when the dropping state was last entered.
    last_count: u32,
    dropping: bool,
    /// RFC 8289 MAXPACKET: the largest SDU seen, in bytes.
    max_packet: u64,
    drops: u64,
}

impl CoDel {
    /// RFC 8289 §5.5: `t + interval / √count`.
    fn control_law(&self, t: SimTime, count: u32) -> SimTime {
        let spacing = self.interval.as_picos() as f64 / libm::sqrt(count.max(1) as f64);
        t + Duration::from_picos(libm::round(spacing) as u64)
    }
}

/// The head of the buffer as seen by one `dodequeue` step.
enum Head {
    Empty,
    /// The caller does not accept the head SDU now (AM window, TM size); it stays.
    Refused,
    /// The head SDU, taken out, and whether CoDel says it may be dropped.
    Taken(QueuedSdu, bool),
}

#[derive(Debug)]
pub(super) struct SduBuffer {
    queue: VecDeque<QueuedSdu>,
    bytes: u64,
    limit: u64,
    next_sn: u64,
    codel: Option<CoDel>,
    /// discardTimer, if on.
    discard_after: Option<Duration>,
    /// SDUs discarded by the discard timer.
    timer_discards: u64,
}

impl SduBuffer {
    /// A buffer of `limit` bytes; `codel = Some((target, interval))` enables CoDel,
    /// `discard_after` the discard timer.
    pub(super) fn new(
        limit: u64,
        codel: Option<(Duration, Duration)>,
        discard_after: Option<Duration>,
    ) -> SduBuffer {
        SduBuffer {
            queue: VecDeque::new(),
            bytes: 0,
            limit,
            next_sn: 0,
            discard_after,
            timer_discards: 0,
            codel: codel.map(|(target, interval)| CoDel {
                target,
                interval,
                first_above: None,
                drop_next: SimTime::ZERO,
                count: 0,
                last_count: 0,
                dropping: false,
                max_packet: 0,
                drops: 0,
            }),
        }
    }

    /// Admits an SDU of `len` bytes if it fits (drop-tail), assigning it the next SN.
    pub(super) fn offer(&mut self, now: SimTime, len: u32) -> Option<u64> {
        if len as u64 > self.room() {
            return None;
        }
        let sn = self.next_sn;
        self.next_sn += 1;
        self.queue.push_back(QueuedSdu { sn, len, enqueued: now });
        self.bytes += len as u64;
        if let Some(codel) = &mut self.codel {
            codel.max_packet = codel.max_packet.max(len as u64);
        }
        Some(sn)
    }

    /// Admits an SDU of `len` bytes at `position` among the queued SDUs (0: the head; beyond
    /// the end: the tail) if it fits (drop-tail limit). It takes the SN of the SDU it goes
    /// ahead of (or the next SN at the tail); the SDUs behind it move up by one.
    pub(super) fn offer_at(&mut self, now: SimTime, len: u32, position: usize) -> Option<u64> {
        if len as u64 > self.room() {
            return None;
        }
        let at = position.min(self.queue.len());
        let sn = self.queue.get(at).map_or(self.next_sn, |s| s.sn);
        for queued in self.queue.range_mut(at..) {
            queued.sn += 1;
        }
        self.next_sn += 1;
        self.queue.insert(at, QueuedSdu { sn, len, enqueued: now });
        self.bytes += len as u64;
        if let Some(codel) = &mut self.codel {
            codel.max_packet = codel.max_packet.max(len as u64);
        }
        Some(sn)
    }

    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Free bytes under the limit.
    pub(super) fn room(&self) -> u64 {
        self.limit.saturating_sub(self.bytes)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The SN of the head SDU, or the SN the next admitted SDU will get.
    pub(super) fn next_sn(&self) -> u64 {
        self.queue.front().map_or(self.next_sn, |s| s.sn)
    }

    /// SDUs CoDel has dropped so far.
    pub(super) fn codel_drops(&self) -> u64 {
        self.codel.as_ref().map_or(0, |c| c.drops)
    }

    /// SDUs the discard timer has discarded so far.
    pub(super) fn timer_discards(&self) -> u64 {
        self.timer_discards
    }

    /// Discards the head SDUs that have waited `discard_after` or longer at `now`, appending
    /// their SNs to `dropped`; returns how many.
    pub(super) fn discard_expired(&mut self, now: SimTime, dropped: &mut Vec<u64>) -> usize {
        let Some(after) = self.discard_after else { return 0 };
        let mut n = 0;
        while let Some(head) = self.queue.front() {
            if now.saturating_since(head.enqueued) < after {
                break;
            }
            let sdu = self.queue.pop_front().expect("head exists");
            self.bytes -= sdu.len as u64;
            dropped.push(sdu.sn);
            n += 1;
        }
        self.timer_discards += n as u64;
        n
    }

    /// Empties the buffer (RLC re-establishment). SNs continue from where they were; CoDel's
    /// control state starts afresh (its drop count is kept).
    pub(super) fn clear(&mut self) {
        if let Some(head) = self.queue.front() {
            debug_assert!(head.sn + self.queue.len() as u64 <= self.next_sn);
        }
        self.queue.clear();
        self.bytes = 0;
        if let Some(codel) = &mut self.codel {
            codel.first_above = None;
            codel.dropping = false;
            codel.count = 0;
            codel.last_count = 0;
            codel.drop_next = SimTime::ZERO;
        }
    }

    /// Takes the head SDU for its first transmission if `accept` takes it, first letting CoDel
    /// drop SDUs at the head (their SNs are appended to `dropped`). Returns `None` when the
    /// buffer is empty or the head is refused.
    pub(super) fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<u64>,
        accept: impl Fn(&QueuedSdu) -> bool,
    ) -> Option<QueuedSdu> {
        self.discard_expired(now, dropped);
        if self.codel.is_none() {
            let head = self.queue.front()?;
            if !accept(head) {
                return None;
            }
            let sdu = self.queue.pop_front()?;
            self.bytes -= sdu.len as u64;
            return Some(sdu);
        }
        // RFC 8289 §5.4, dequeue().
        let (mut sdu, ok_to_drop) = match self.dodequeue(now, &accept) {
            Head::Taken(sdu, ok) => (sdu, ok),
            Head::Empty => {
                self.codel_mut().dropping = false;
                return None;
            }
            Head::Refused => return None,
        };
        let codel = self.codel_mut();
        if codel.dropping {
            if !ok_to_drop {
                codel.dropping = false; // sojourn below target: leave the dropping state
            }
            while self.codel_mut().dropping && now >= self.codel_mut().drop_next {
                dropped.push(sdu.sn);
                let codel = self.codel_mut();
                codel.drops += 1;
                codel.count += 1;
                match self.dodequeue(now, &accept) {
                    Head::Taken(next, ok) => {
                        sdu = next;
                        let codel = self.codel_mut();
                        if ok {
                            codel.drop_next = codel.control_law(codel.drop_next, codel.count);
                        } else {
                            codel.dropping = false;
                        }
                    }
                    Head::Empty => {
                        self.codel_mut().dropping = false;
                        return None;
                    }
                    Head::Refused => return None,
                }
            }
        } else if ok_to_drop {
            dropped.push(sdu.sn);
            codel.drops += 1;
            codel.dropping = true;
            // Re-entering soon after the last cycle: resume from its drop rate (Linux variant).
            let delta = codel.count.saturating_sub(codel.last_count);
            codel.count = 1;
            if delta > 1 && now < codel.drop_next + codel.interval.saturating_mul(16) {
                codel.count = delta;
            }
            codel.drop_next = codel.control_law(now, codel.count);
            codel.last_count = codel.count;
            match self.dodequeue(now, &accept) {
                Head::Taken(next, _) => sdu = next,
                Head::Empty | Head::Refused => return None,
            }
        }
        Some(sdu)
    }

    fn codel_mut(&mut self) -> &mut CoDel {
        self.codel.as_mut().expect("CoDel is enabled")
    }

    /// RFC 8289 §5.4, dodequeue(): takes the head and says whether it may be dropped.
    fn dodequeue(&mut self, now: SimTime, accept: &impl Fn(&QueuedSdu) -> bool) -> Head {
        let Some(head) = self.queue.front() else {
            self.codel_mut().first_above = None;
            return Head::Empty;
        };
        if !accept(head) {
            return Head::Refused;
        }
        let sdu = self.queue.pop_front().expect("head exists");
        self.bytes -= sdu.len as u64;
        let bytes = self.bytes;
        let codel = self.codel_mut();
        let sojourn = now.saturating_since(sdu.enqueued);
        let ok_to_drop = if sojourn < codel.target || bytes <= codel.max_packet {
            codel.first_above = None;
            false
        } else {
            match codel.first_above {
                None => {
                    codel.first_above = Some(now + codel.interval);
                    false
                }
                Some(t) => now >= t,
            }
        };
        Head::Taken(sdu, ok_to_drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + Duration::from_millis(x)
    }

    #[test]
    fn test_droptail_refuses_at_the_byte_limit() {
        let mut b = SduBuffer::new(3000, None, None);
        assert_eq!(b.offer(ms(0), 1500), Some(0));
        assert_eq!(b.offer(ms(0), 1500), Some(1));
        assert_eq!(b.offer(ms(0), 1), None, "3001 bytes do not fit in 3000");
        assert_eq!(b.bytes(), 3000);
        let mut dropped = Vec::new();
        assert_eq!(b.dequeue(ms(1), &mut dropped, |_| true).map(|s| s.sn), Some(0));
        assert_eq!(b.offer(ms(1), 1500), Some(2), "SNs stay consecutive after a refusal");
        assert_eq!(b.offer(ms(1), 1), None);
        assert!(dropped.is_empty());
    }

    #[test]
    fn test_refused_head_stays() {
        let mut b = SduBuffer::new(10_000, None, None);
        b.offer(ms(0), 1000);
        let mut dropped = Vec::new();
        assert!(b.dequeue(ms(0), &mut dropped, |s| s.len <= 500).is_none());
        assert_eq!(b.next_sn(), 0);
        assert_eq!(b.bytes(), 1000);
    }

    /// A queue drained at one SDU per `service` while `arrivals` SDUs arrive per `service`:
    /// returns the SNs dropped and the drop times.
    fn run_codel(arrivals_per_service: u64, service: Duration, until: SimTime) -> Vec<(SimTime, u64)> {
        let mut b =
            SduBuffer::new(u64::MAX, Some((Duration::from_millis(5), Duration::from_millis(100))), None);
        let mut drops = Vec::new();
        let mut now = SimTime::ZERO;
        let mut dropped = Vec::new();
        // A standing queue of 100 SDUs first.
        for _ in 0..100 {
            b.offer(now, 1000);
        }
        while now < until {
            for _ in 0..arrivals_per_service {
                b.offer(now, 1000);
            }
            dropped.clear();
            b.dequeue(now, &mut dropped, |_| true);
            drops.extend(dropped.iter().map(|&sn| (now, sn)));
            now += service;
        }
        drops
    }

    #[test]
    fn test_codel_drops_when_sojourn_stays_above_target_for_an_interval() {
        // One arrival per departure with 100 SDUs standing (all offered at time 0): the sojourn
        // reaches the 5 ms target at 5 ms and then stays above it (up to 10 ms). The first drop comes one interval after the first
        // above-target dequeue, the next at interval/√2, interval/√3, ...
        let service = Duration::from_micros(100);
        let drops = run_codel(1, service, ms(400));
        assert!(!drops.is_empty());
        let first = drops[0].0;
        assert_eq!(first, ms(105), "first drop one interval after the sojourn reached the target");
        let gaps: Vec<f64> = drops.windows(2).map(|w| (w[1].0 - w[0].0).as_millis_f64()).collect();
        for (k, gap) in gaps.iter().enumerate().take(5) {
            let expect = 100.0 / ((k + 1) as f64).sqrt();
            // Drops happen at dequeue times, a multiple of the 0.1 ms service time.
            assert!((gap - expect).abs() <= 0.1 + 1e-9, "gap {k}: {gap} ms, control law {expect} ms");
        }
    }

    #[test]
    fn test_codel_does_not_drop_below_target() {
        // 40 SDUs standing at 100 µs each: 4 ms of sojourn, below the 5 ms target.
        let mut b =
            SduBuffer::new(u64::MAX, Some((Duration::from_millis(5), Duration::from_millis(100))), None);
        let mut now = SimTime::ZERO;
        for _ in 0..40 {
            b.offer(now, 1000);
        }
        let mut dropped = Vec::new();
        while now < ms(1000) {
            b.offer(now, 1000);
            b.dequeue(now, &mut dropped, |_| true);
            now += Duration::from_micros(100);
        }
        assert!(dropped.is_empty(), "{dropped:?}");
        assert_eq!(b.codel_drops(), 0);
    }

    #[test]
    fn test_codel_leaves_dropping_state_when_queue_drains() {
        // Above target for a while, then the arrivals stop and the queue drains: drops stop.
        let mut b =
            SduBuffer::new(u64::MAX, Some((Duration::from_millis(5), Duration::from_millis(100))), None);
        let mut now = SimTime::ZERO;
        for _ in 0..200 {
            b.offer(now, 1000);
        }
        let mut dropped = Vec::new();
        let mut last_drop = None;
        while now < ms(1000) {
            if now < ms(300) {
                b.offer(now, 1000);
            }
            let before = dropped.len();
            b.dequeue(now, &mut dropped, |_| true);
            if dropped.len() > before {
                last_drop = Some(now);
            }
            now += Duration::from_micros(100);
        }
        assert!(!dropped.is_empty());
        assert!(last_drop.unwrap() < ms(320), "drops continued after the queue drained: {last_drop:?}");
        assert!(b.is_empty());
    }

    #[test]
    fn test_offer_at_takes_the_sn_it_goes_ahead_of_and_renumbers_the_rest() {
        let mut b = SduBuffer::new(10_000, None, None);
        assert_eq!(b.offer(ms(0), 100), Some(0));
        assert_eq!(b.dequeue(ms(0), &mut Vec::new(), |_| true).map(|s| s.sn), Some(0), "SN 0 is sent");
        assert_eq!(b.offer(ms(0), 200), Some(1));
        assert_eq!(b.offer(ms(0), 300), Some(2));
        assert_eq!(b.offer_at(ms(1), 400, 0), Some(1), "the head's SN; SN 0 is gone already");
        assert_eq!(b.offer_at(ms(1), 450, 1), Some(2), "behind the first, ahead of the rest");
        assert_eq!(b.offer(ms(1), 500), Some(5));
        let order: Vec<(u64, u32)> = std::iter::from_fn(|| b.dequeue(ms(2), &mut Vec::new(), |_| true))
            .map(|s| (s.sn, s.len))
            .collect();
        assert_eq!(order, vec![(1, 400), (2, 450), (3, 200), (4, 300), (5, 500)]);
        assert_eq!(b.offer_at(ms(3), 50, 0), Some(6), "empty: the next SN");
        assert_eq!(b.offer_at(ms(3), 60, 9), Some(7), "beyond the end: the tail");
        assert_eq!(b.offer_at(ms(3), 10_000, 0), None, "over the byte limit");
    }

    #[test]
    fn test_discard_timer_drops_only_heads_that_waited_long_enough() {
        let mut b = SduBuffer::new(100_000, None, Some(Duration::from_millis(10)));
        b.offer(ms(0), 100);
        b.offer(ms(5), 200);
        b.offer(ms(12), 300);
        let mut dropped = Vec::new();
        assert_eq!(b.discard_expired(ms(9), &mut dropped), 0, "9 ms < 10 ms");
        assert_eq!(b.discard_expired(ms(10), &mut dropped), 1, "SN 0 waited 10 ms");
        assert_eq!(dropped, vec![0]);
        assert_eq!(b.bytes(), 500);
        // Dequeue discards the expired head (SN 1, 16 ms old) and returns the young one.
        let sdu = b.dequeue(ms(16), &mut dropped, |_| true).unwrap();
        assert_eq!((sdu.sn, dropped.clone()), (2, vec![0, 1]));
        assert_eq!(b.timer_discards(), 2);
        assert!(b.is_empty() && b.bytes() == 0);
    }

    #[test]
    fn test_discard_timer_off_keeps_everything() {
        let mut b = SduBuffer::new(100_000, None, None);
        b.offer(ms(0), 100);
        let mut dropped = Vec::new();
        assert_eq!(b.discard_expired(ms(1_000_000), &mut dropped), 0);
        assert_eq!(b.dequeue(ms(1_000_000), &mut dropped, |_| true).map(|s| s.sn), Some(0));
        assert!(dropped.is_empty());
    }

    #[test]
    fn test_clear_empties_and_keeps_numbering() {
        let mut b =
            SduBuffer::new(100_000, Some((Duration::from_millis(5), Duration::from_millis(100))), None);
        b.offer(ms(0), 100);
        b.offer(ms(0), 100);
        b.clear();
        assert!(b.is_empty());
        assert_eq!(b.bytes(), 0);
        assert_eq!(b.room(), 100_000);
        assert_eq!(b.next_sn(), 2);
        assert_eq!(b.offer(ms(1), 100), Some(2));
    }
}
