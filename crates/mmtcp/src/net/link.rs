//! One direction of a point-to-point link: a drop-tail queue, a transmitter serialising one
//! packet at a time at the current rate, and a propagation pipe.
//!
//! The pipe keeps packets in flight in a ring buffer with their arrival times and only its head
//! has an event in the queue (htsim's pipe): a direction costs at most two pending events however
//! many packets it carries. The transmitter's rate may change while a packet is being serialised
//! (radio links): the bits already sent are kept and the rest continue at the new rate; at rate
//! zero the packet waits. Wired links simply never change rate.
//!
//! Impairments, drawn i.i.d. per packet from the direction's own random stream: `loss` drops a
//! packet after it has been serialised (it used the link but arrives corrupted), `duplicate`
//! delivers a second copy, `reorder` holds a packet back by `reorder_delay` so later ones
//! overtake it.

use super::arena::PacketArena;
use super::queue::DropTailQueue;
use crate::event::Event;
use crate::ids::DirId;
use crate::ids::NodeId;
use crate::ids::PacketId;
use crate::sim::{Duration, EventQueue, Rng, SimTime};
use crate::units::BufferLimit;
use std::collections::VecDeque;

/// Per-packet impairments of one direction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Impairments {
    pub loss: f64,
    pub duplicate: f64,
    pub reorder: f64,
    pub reorder_delay: Duration,
}

impl Impairments {
    fn any(&self) -> bool {
        self.loss > 0.0 || self.duplicate > 0.0 || self.reorder > 0.0
    }
}

/// Why a packet was dropped on a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// The queue was full (drop-tail).
    QueueFull,
    /// The packet error process corrupted it.
    Error,
}

#[derive(Clone, Copy, Debug)]
struct InService {
    pkt: PacketId,
    remaining_bits: u64,
    /// Since when the remaining bits have been served at the current rate.
    since: SimTime,
}

/// Counters of one direction.
#[derive(Clone, Debug, Default)]
pub struct DirectionStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub drops_queue: u64,
    pub drops_error: u64,
    /// ∫ rate dt in bit/s × ps (exact); see [`DirectionStats::capacity_bits`]. The radio stack
    /// sums it per own slot instead (slot × the MCS rate at the slot's start,
    /// [`crate::radio::direction`]).
    pub capacity_bit_ps: u128,
    /// ∫ queued bytes dt, in byte·picoseconds (for the mean occupancy).
    pub queue_byte_ps: u128,
    pub max_queue_bytes: u64,
}

impl DirectionStats {
    /// Bits the transmitter could have sent (∫ rate dt; radio stack: over its own slots), for
    /// utilisation and mean capacity.
    pub fn capacity_bits(&self) -> f64 {
        self.capacity_bit_ps as f64 / crate::sim::PS_PER_SEC as f64
    }
}

pub struct Direction {
    pub id: DirId,
    pub from: NodeId,
    pub to: NodeId,
    pub delay: Duration,
    rate_bps: u64,
    queue: DropTailQueue,
    in_service: Option<InService>,
    generation: u32,
    pipe: VecDeque<(SimTime, PacketId)>,
    impairments: Impairments,
    rng: Rng,
    /// Last time the integrals were brought up to date.
    accounted_until: SimTime,
    pub stats: DirectionStats,
}

impl Direction {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: DirId,
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: Duration,
        buffer: BufferLimit,
        impairments: Impairments,
        rng: Rng,
    ) -> Self {
        Direction {
            id,
            from,
            to,
            delay,
            rate_bps,
            queue: DropTailQueue::new(buffer),
            in_service: None,
            generation: 0,
            pipe: VecDeque::new(),
            impairments,
            rng,
            accounted_until: SimTime::ZERO,
            stats: DirectionStats::default(),
        }
    }

    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    pub fn queue_bytes(&self) -> u64 {
        self.queue.bytes()
    }

    pub fn queue_packets(&self) -> usize {
        self.queue.len()
    }

    /// Free bytes in the queue under a byte limit; `u64::MAX` under a packet limit.
    pub fn room_bytes(&self) -> u64 {
        self.queue.room_bytes()
    }

    /// Brings the time integrals up to `now` (call before any change of rate or queue).
    #[inline]
    fn account(&mut self, now: SimTime) {
        let dt = now.saturating_since(self.accounted_until);
        if dt.0 > 0 {
            self.stats.capacity_bit_ps += dt.0 as u128 * self.rate_bps as u128;
            self.stats.queue_byte_ps += dt.0 as u128 * self.queue.bytes() as u128;
            self.accounted_until = now;
        }
    }

    /// Closes the integrals at the end of the run.
    pub fn finish(&mut self, now: SimTime) {
        self.account(now);
    }

    /// A packet of `size` bytes arrives for transmission. Returns it back if the queue is full.
    pub fn admit(
        &mut self,
        q: &mut EventQueue<Event>,
        now: SimTime,
        pkt: PacketId,
        size: u32,
    ) -> Result<(), PacketId> {
        self.enqueue(q, now, pkt, size, None).map(|_| ())
    }

    /// Like [`Self::admit`], but the packet joins the queue at `position` (0: the head), ahead
    /// of the packets waiting behind it. Returns whether it was queued (`false`: the idle
    /// transmitter took it at once).
    pub fn admit_at(
        &mut self,
        q: &mut EventQueue<Event>,
        now: SimTime,
        pkt: PacketId,
        size: u32,
        position: usize,
    ) -> Result<bool, PacketId> {
        self.enqueue(q, now, pkt, size, Some(position))
    }

    /// `position`: where in the queue (`None`: the tail). `Ok(false)`: transmitted at once.
    fn enqueue(
        &mut self,
        q: &mut EventQueue<Event>,
        now: SimTime,
        pkt: PacketId,
        size: u32,
        position: Option<usize>,
    ) -> Result<bool, PacketId> {
        if self.in_service.is_none() && self.queue.is_empty() && self.rate_bps > 0 {
            self.start(q, now, pkt, size);
            return Ok(false);
        }
        self.account(now);
        let admitted = match position {
            None => self.queue.push(pkt, size),
            Some(at) => self.queue.insert(at, pkt, size),
        };
        if admitted {
            self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(self.queue.bytes());
            Ok(true)
        } else {
            self.stats.drops_queue += 1;
            Err(pkt)
        }
    }

    fn start(&mut self, q: &mut EventQueue<Event>, now: SimTime, pkt: PacketId, size: u32) {
        let bits = size as u64 * 8;
        self.in_service = Some(InService { pkt, remaining_bits: bits, since: now });
        self.generation = self.generation.wrapping_add(1);
        q.schedule(
            now + Duration::transmission(bits, self.rate_bps),
            Event::TxDone { dir: self.id, generation: self.generation },
        );
    }

    fn start_next(&mut self, q: &mut EventQueue<Event>, now: SimTime, arena: &PacketArena) {
        if self.rate_bps == 0 {
            return;
        }
        self.account(now);
        if let Some((pkt, size)) = self.queue.pop() {
            debug_assert_eq!(arena.get(pkt).size(), size);
            self.start(q, now, pkt, size);
        }
    }

    /// Whether a `TxDone` of `generation` ends the packet in service (not a stale event, left
    /// behind when a rate change rescheduled the end).
    pub fn is_current_tx(&self, generation: u32) -> bool {
        generation == self.generation && self.in_service.is_some()
    }

    /// The transmitter finished a packet. Returns the packet if the error process dropped it.
    pub fn on_tx_done(
        &mut self,
        q: &mut EventQueue<Event>,
        arena: &mut PacketArena,
        now: SimTime,
        generation: u32,
    ) -> Option<PacketId> {
        if generation != self.generation {
            return None; // rescheduled by a rate change
        }
        let done = self.in_service.take().expect("TxDone without a packet in service");
        let size = arena.get(done.pkt).size;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size as u64;
        let mut dropped = None;
        if !self.impairments.any() {
            self.enter_pipe(q, now + self.delay, done.pkt);
        } else if self.rng.bernoulli(self.impairments.loss) {
            self.stats.drops_error += 1;
            dropped = Some(done.pkt);
        } else {
            if self.rng.bernoulli(self.impairments.duplicate) {
                let dup = arena.duplicate(done.pkt);
                self.enter_pipe(q, now + self.delay, dup);
            }
            if self.rng.bernoulli(self.impairments.reorder) {
                let at = now + self.delay + self.impairments.reorder_delay;
                q.schedule(at, Event::LateArrive { dir: self.id, pkt: done.pkt });
            } else {
                self.enter_pipe(q, now + self.delay, done.pkt);
            }
        }
        self.start_next(q, now, arena);
        dropped
    }

    fn enter_pipe(&mut self, q: &mut EventQueue<Event>, at: SimTime, pkt: PacketId) {
        if self.pipe.is_empty() {
            q.schedule(at, Event::Arrive { dir: self.id });
        }
        self.pipe.push_back((at, pkt));
    }

    /// The head of the pipe arrives at `self.to`.
    pub fn on_arrive(&mut self, q: &mut EventQueue<Event>, now: SimTime) -> PacketId {
        let (at, pkt) = self.pipe.pop_front().expect("Arrive with an empty pipe");
        debug_assert_eq!(at, now);
        if let Some(&(next, _)) = self.pipe.front() {
            q.schedule(next, Event::Arrive { dir: self.id });
        }
        pkt
    }

    /// The packet `behind` places behind the head of the pipe (0: the head), if any.
    pub fn in_pipe(&self, behind: usize) -> Option<PacketId> {
        self.pipe.get(behind).map(|&(_, pkt)| pkt)
    }

    /// The channel changed the rate. The packet in service keeps the bits already sent.
    pub fn set_rate(&mut self, q: &mut EventQueue<Event>, arena: &PacketArena, now: SimTime, rate_bps: u64) {
        if rate_bps == self.rate_bps {
            return;
        }
        self.account(now);
        let old = self.rate_bps;
        self.rate_bps = rate_bps;
        match self.in_service.as_mut() {
            Some(s) => {
                let sent = now.saturating_since(s.since).bits_at(old).min(s.remaining_bits);
                s.remaining_bits -= sent;
                s.since = now;
                self.generation = self.generation.wrapping_add(1);
                if rate_bps > 0 {
                    let at = now + Duration::transmission(s.remaining_bits, rate_bps);
                    q.schedule(at, Event::TxDone { dir: self.id, generation: self.generation });
                }
            }
            None => self.start_next(q, now, arena),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;

    fn setup(rate: u64, buffer: BufferLimit) -> (Direction, EventQueue<Event>, PacketArena) {
        let d = Direction::new(
            DirId(0),
            NodeId(0),
            NodeId(1),
            rate,
            Duration::from_millis(1),
            buffer,
            Impairments::default(),
            Rng::for_component(1, "test"),
        );
        (d, EventQueue::new(), PacketArena::with_capacity(16))
    }

    fn pkt(arena: &mut PacketArena, size: u32) -> PacketId {
        arena.alloc(Packet::for_test(size))
    }

    /// Runs the direction's own events; returns (arrival time, packet) in order.
    fn drain(
        d: &mut Direction,
        q: &mut EventQueue<Event>,
        arena: &mut PacketArena,
    ) -> Vec<(SimTime, PacketId)> {
        let mut out = Vec::new();
        while let Some((now, ev)) = q.pop() {
            match ev {
                Event::TxDone { generation, .. } => {
                    d.on_tx_done(q, arena, now, generation);
                }
                Event::Arrive { .. } => out.push((now, d.on_arrive(q, now))),
                other => panic!("unexpected {other:?}"),
            }
        }
        out
    }

    #[test]
    fn serialisation_then_propagation() {
        let (mut d, mut q, mut a) = setup(1_000_000_000, BufferLimit::Packets(10));
        let p1 = pkt(&mut a, 1500);
        let p2 = pkt(&mut a, 1500);
        d.admit(&mut q, SimTime::ZERO, p1, 1500).unwrap();
        d.admit(&mut q, SimTime::ZERO, p2, 1500).unwrap();
        let arrivals = drain(&mut d, &mut q, &mut a);
        // 1500 B at 1 Gbit/s = 12 µs, then 1 ms of propagation; the second waits for the first.
        assert_eq!(
            arrivals,
            vec![
                (SimTime::ZERO + Duration::from_micros(1012), p1),
                (SimTime::ZERO + Duration::from_micros(1024), p2),
            ]
        );
        assert_eq!(d.stats.packets_sent, 2);
    }

    #[test]
    fn queue_limit_excludes_packet_in_service() {
        let (mut d, mut q, mut a) = setup(1_000_000, BufferLimit::Packets(1));
        let ids: Vec<_> = (0..3).map(|_| pkt(&mut a, 100)).collect();
        assert!(d.admit(&mut q, SimTime::ZERO, ids[0], 100).is_ok()); // in service
        assert!(d.admit(&mut q, SimTime::ZERO, ids[1], 100).is_ok()); // queued
        assert_eq!(d.admit(&mut q, SimTime::ZERO, ids[2], 100), Err(ids[2]));
        assert_eq!(d.stats.drops_queue, 1);
    }

    #[test]
    fn rate_change_mid_packet_keeps_sent_bits() {
        let (mut d, mut q, mut a) = setup(1_000_000, BufferLimit::Packets(10));
        let p = pkt(&mut a, 125); // 1000 bits: 1 ms at 1 Mbit/s
        d.admit(&mut q, SimTime::ZERO, p, 125).unwrap();
        // Half way, the rate drops to zero (outage) for 5 ms, then doubles.
        let half = SimTime::ZERO + Duration::from_micros(500);
        let (t, ev) = (half, q.peek_time());
        assert!(ev.is_some());
        d.set_rate(&mut q, &a, t, 0);
        d.set_rate(&mut q, &a, half + Duration::from_millis(5), 2_000_000);
        let arrivals = drain(&mut d, &mut q, &mut a);
        // 500 bits remain at 2 Mbit/s: 250 µs after the outage, then 1 ms propagation.
        assert_eq!(arrivals, vec![(SimTime::ZERO + Duration::from_micros(500 + 5000 + 250 + 1000), p)]);
    }

    #[test]
    fn outage_holds_packets_until_rate_returns() {
        let (mut d, mut q, mut a) = setup(0, BufferLimit::Packets(10));
        let p = pkt(&mut a, 125);
        d.admit(&mut q, SimTime::ZERO, p, 125).unwrap();
        assert!(q.is_empty(), "nothing scheduled at rate zero");
        d.set_rate(&mut q, &a, SimTime::ZERO + Duration::from_millis(3), 1_000_000);
        let arrivals = drain(&mut d, &mut q, &mut a);
        assert_eq!(arrivals, vec![(SimTime::ZERO + Duration::from_millis(5), p)]);
    }

    #[test]
    fn loss_rate_is_respected() {
        let mut d = Direction::new(
            DirId(0),
            NodeId(0),
            NodeId(1),
            1_000_000_000,
            Duration::ZERO,
            BufferLimit::Packets(100_000),
            Impairments { loss: 0.1, ..Default::default() },
            Rng::for_component(9, "loss"),
        );
        let mut q = EventQueue::new();
        let mut a = PacketArena::with_capacity(16);
        let mut lost = 0;
        for _ in 0..20_000 {
            let p = pkt(&mut a, 100);
            let now = q.now();
            d.admit(&mut q, now, p, 100).unwrap();
            while let Some((now, ev)) = q.pop() {
                match ev {
                    Event::TxDone { generation, .. } => {
                        if let Some(x) = d.on_tx_done(&mut q, &mut a, now, generation) {
                            lost += 1;
                            a.free(x);
                        }
                    }
                    Event::Arrive { .. } => {
                        let x = d.on_arrive(&mut q, now);
                        a.free(x);
                    }
                    _ => unreachable!(),
                }
            }
        }
        let rate = lost as f64 / 20_000.0;
        assert!((rate - 0.1).abs() < 0.01, "{rate}");
        assert_eq!(d.stats.drops_error, lost);
    }

    #[test]
    fn utilisation_integral_matches_busy_fraction() {
        let (mut d, mut q, mut a) = setup(1_000_000, BufferLimit::Packets(10));
        let p = pkt(&mut a, 125); // busy 1 ms
        d.admit(&mut q, SimTime::ZERO, p, 125).unwrap();
        drain(&mut d, &mut q, &mut a);
        d.finish(SimTime::ZERO + Duration::from_millis(4));
        assert_eq!(d.stats.capacity_bits(), 4000.0);
        assert_eq!(d.stats.bytes_sent * 8, 1000);
    }
}
