//! One direction of a radio link with the full stack: RLC transmitter → slotted MAC with AMC and
//! HARQ → RLC receiver at the far node.
//!
//! ```text
//!  admit(pkt) ─► RLC tx (SDU buffer, segmentation, AM retransmissions)
//!                   │ fill(TB bytes)          every slot while there is work
//!                   ▼
//!                MAC: MCS from the SINR one `amc_delay` old; TB = rate(MCS) × slot;
//!                HARQ process; block error drawn at the actual SINR (Chase combining)
//!                   │ decoded: slot end + delay              NACK: again after feedback_delay
//!                   ▼
//!                RLC rx (reassembly, reordering, STATUS) ──► packets to the far node, in order
//!                   │ STATUS report after `status_delay` (ideal control path)
//!                   └────────────────────────────► RLC tx
//! ```
//!
//! The packets themselves stay in an SN-indexed table (`SduTable`) while RLC works on sequence
//! numbers and byte ranges; the receiver's outcomes (deliver / lost) move them on or free them.
//!
//! Time: slot `k` spans [k·slot, (k+1)·slot). A TB sent in a slot is decoded at the slot's end
//! plus the link's one-way `delay`; its ACK/NACK reaches the transmitter `feedback_delay` after
//! the slot's end. Slots are only scheduled while the direction has work (data, retransmissions,
//! TBs awaiting feedback), so an idle radio costs no events.
//!
//! TDD (`[link.radio] tdd`, [`super::tdd`]): a direction sends only in its own slots; without a
//! pattern each direction has every slot to itself.
//!
//! Capacity and utilisation (docs/models/radio-link.md#capacity-and-utilisation): the capacity
//! of a direction is counted slot by slot, each own slot at the rate of the MCS the SINR at the
//! slot's start allows (the SINR its attempt is decoded at) — slots the MAC sends in as they
//! happen, slots it sleeps through in bulk at the next event, so an idle radio still costs no
//! events. A slot that carries an attempt (first transmission or HARQ retransmission) uses the
//! share of that capacity its TB fills: TB bytes ÷ the TB size of the MCS it was sent at. The
//! utilisation is the capacity used ÷ the capacity, at most 1 by construction: one attempt per
//! slot, each using at most its slot's capacity. An attempt in a slot whose channel allows no MCS
//! (a HARQ retransmission into an outage, a TB the lagging MAC sized on a better SINR) uses
//! nothing, since there was nothing to use.
//!
//! Radio link failure (`[link.radio] rlf_timeout`): radio link monitoring declares the link out
//! of sync while the current SINR allows no MCS at the AMC's target BLER (the counterpart of
//! 3GPP TS 38.133 §8.1's Qout, the SINR of 10 % hypothetical PDCCH BLER, with the default target
//! BLER of 0.1). Going out of sync starts T310 (TS 38.331 §5.3.10.1, with N310 = 1: one
//! out-of-sync indication suffices); an MCS becoming allowed again stops it (N311 = 1, no Qin
//! hysteresis). When T310 expires (§5.3.10.3: radio link failure) the direction is
//! re-established at once: MAC reset (TS 38.321 §5.12: HARQ buffers flushed, processes idle),
//! decoded TBs not yet at the receiver and STATUS reports in transit discarded, and both RLC
//! entities re-established (TS 38.322 §5.1.2: every SDU and PDU discarded, timers stopped,
//! state variables reset). Every packet RLC held is freed and counted in `drops_rlf`. There is
//! no PDCP in the model, so nothing retransmits them (a real AM bearer's PDCP re-establishment,
//! TS 38.323 §5.1.2, would); TCP must. Re-establishment takes no time: the direction carries
//! data again as soon as the SINR allows an MCS. One failure per outage: T310 starts again only
//! after the link has been back in sync.
//!
//! Simplifications (docs/models/radio-link.md): no other users; RLC STATUS reports travel on an
//! ideal control path (delay `status_delay` = link delay + HARQ feedback delay, never lost, no
//! capacity); MAC headers are folded into the AMC overhead.

use super::amc::Amc;
use super::config::ReportConfig;
use super::harq::{Finished, Harq};
use super::rlc::{RlcRx, RlcSegment, RlcTx, RxOutcome, StatusReport};
use super::tdd::TddSchedule;
use crate::event::{Event, RadioEvent};
use crate::ids::DirId;
use crate::ids::{NodeId, PacketId};
use crate::net::link::{DirectionStats, DropCause};
use crate::sim::{Duration, EventQueue, Rng, SimTime};
use std::collections::VecDeque;

/// A packet held by RLC and its size as offered (the SDU's length), kept here so that counting
/// delivered bytes does not read the packet, out of the cache since it was queued.
#[derive(Clone, Copy, Debug)]
struct Held {
    pkt: PacketId,
    size: u32,
}

/// Packets held by RLC, indexed by SDU sequence number.
#[derive(Debug, Default)]
struct SduTable {
    base: u64,
    slots: VecDeque<Option<Held>>,
    held: usize,
}

impl SduTable {
    fn push(&mut self, sn: u64, held: Held) {
        debug_assert_eq!(sn, self.base + self.slots.len() as u64, "RLC numbers SDUs consecutively");
        self.slots.push_back(Some(held));
        self.held += 1;
    }

    /// Inserts `held` as SDU `sn`, moving the packets of `sn` and later SNs up by one (an SDU
    /// admitted ahead of others in RLC's buffer).
    fn insert(&mut self, sn: u64, held: Held) {
        let i = (sn - self.base) as usize;
        debug_assert!(i <= self.slots.len());
        self.slots.insert(i, Some(held));
        self.held += 1;
    }

    /// Takes every packet out (RLC re-establishment) into `out`; the table then starts empty at
    /// SN `base`.
    fn take_all(&mut self, base: u64, out: &mut Vec<PacketId>) {
        out.extend(self.slots.drain(..).flatten().map(|h| h.pkt));
        self.held = 0;
        self.base = base;
    }

    /// Takes the packet of `sn` out (None if already delivered, lost or never admitted).
    fn take(&mut self, sn: u64) -> Option<Held> {
        let i = sn.checked_sub(self.base)? as usize;
        let held = self.slots.get_mut(i)?.take();
        if held.is_some() {
            self.held -= 1;
        }
        while let Some(None) = self.slots.front() {
            self.slots.pop_front();
            self.base += 1;
        }
        held
    }
}

/// A transport block: the RLC segments it carries, kept until it is decoded and its HARQ
/// process is released.
#[derive(Debug, Default)]
struct Tb {
    segments: Vec<RlcSegment>,
    bytes: u32,
    /// The TB size of the MCS it is sent at (`bytes` ≤ `capacity`): the share of a slot's
    /// resources each attempt occupies is `bytes / capacity`.
    capacity: u32,
    /// Holders: the HARQ process and/or the decode pipe.
    refs: u8,
}

/// Counters of the radio stack of one direction (beyond the common [`DirectionStats`]).
#[derive(Clone, Debug, Default)]
pub struct RadioStats {
    /// Slots in which a TB was sent (first transmissions and HARQ retransmissions).
    pub tb_attempts: u64,
    /// Attempts the receiver could not decode.
    pub tb_errors: u64,
    /// Slots with work to do but no usable MCS (SINR below the lowest MCS, or outage).
    pub outage_slots: u64,
    /// Bytes of RLC SDUs delivered to the far node.
    pub sdu_bytes_delivered: u64,
    pub sdus_delivered: u64,
    /// SDUs the RLC receiver gave up on (UM gaps, AM discards, TM failed TBs).
    pub sdus_lost: u64,
    /// ∫ SINR dt over the time the SINR was finite, and that time, for the mean SINR.
    pub sinr_db_ps: f64,
    pub sinr_finite_ps: u64,
    /// Radio link failures: T310 expiries (TS 38.331 §5.3.10.3), each followed by
    /// re-establishment.
    pub rlf_events: u64,
    /// Packets freed by the RLC re-establishments after radio link failures.
    pub drops_rlf: u64,
    /// The part of the capacity integral (`DirectionStats::capacity_bit_ps`, bit/s × ps) the
    /// attempts used: per attempt, its slot's capacity × the share of the TB it filled (module
    /// header). At most the capacity integral.
    pub occupied_bit_ps: u128,
}

/// What a radio direction hands back to the world: packets that reached the far node and packets
/// it dropped.
#[derive(Debug, Default)]
pub struct RadioOutput {
    pub delivered: Vec<PacketId>,
    pub dropped: Vec<(PacketId, DropCause)>,
}

/// The MCS a SINR allows, and the rate it gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkState {
    pub sinr_db: f64,
    pub mcs: Option<u8>,
    pub rate_bps: u64,
}

/// Fixed parameters of a radio direction.
#[derive(Clone, Copy, Debug)]
pub struct RadioTiming {
    pub slot: Duration,
    pub bandwidth_hz: f64,
    /// Age of the SINR the MCS is chosen on (CQI reporting and processing delay).
    pub amc_delay: Duration,
    /// One-way propagation and processing delay of the link.
    pub delay: Duration,
    /// RLC receiver → transmitter delay of STATUS reports.
    pub status_delay: Duration,
    /// T310: how long the link may stay out of sync before a radio link failure; `None`: never.
    pub rlf_timeout: Option<Duration>,
}

pub struct RadioDirection {
    pub id: DirId,
    pub from: NodeId,
    pub to: NodeId,
    timing: RadioTiming,
    amc: Amc,
    pub harq: Harq,
    pub tx: RlcTx,
    pub rx: RlcRx,
    /// RLC TM or UM: no ARQ, so an SDU with a segment in a TB that HARQ gave up on is gone.
    no_arq: bool,
    rng: Rng,
    sdus: SduTable,
    tbs: Vec<Tb>,
    free_tbs: Vec<u32>,
    /// Decoded TBs on their way to the receiver: (arrival, TB).
    decode_pipe: VecDeque<(SimTime, u32)>,
    /// STATUS reports on their way to the transmitter: (arrival, report index).
    status_pipe: VecDeque<(SimTime, usize)>,
    reports: Vec<StatusReport>,
    free_reports: Vec<usize>,
    /// SINR changes, oldest first; the front is the value `amc_delay` ago.
    sinr_history: VecDeque<(SimTime, f64)>,
    /// The MAC's MCS (from the delayed SINR) and the history entry it was computed from.
    mac_mcs: Option<u8>,
    mac_mcs_from: Option<SimTime>,
    /// What the current SINR allows (reports; `rate_bps` averaged over the TDD pattern).
    state: LinkState,
    /// The rate of the MCS the current SINR allows, in an own slot (not averaged over TDD).
    slot_rate_bps: u64,
    /// Own slots before this index are in the capacity integral.
    slots_counted: u64,
    /// The capacity and use the last slot event added (for [`Self::finish`]).
    last_slot_bit_ps: (u128, u128),
    next_slot: Option<SimTime>,
    last_slot: Option<SimTime>,
    timer_at: Option<SimTime>,
    accounted_until: SimTime,
    segments: Vec<RlcSegment>,
    sns: Vec<u64>,
    outcomes: Vec<RxOutcome>,
    finished: Vec<Finished>,
    freed: Vec<PacketId>,
    /// This direction's TDD slots; `None`: every slot.
    tdd: Option<TddSchedule>,
    /// Radio link monitoring: the current SINR allows no MCS.
    out_of_sync: bool,
    /// When T310 expires, while it runs.
    rlf_deadline: Option<SimTime>,
    pub stats: DirectionStats,
    pub radio: RadioStats,
    /// When this direction publishes link reports, and how many it has published.
    pub report: ReportConfig,
    pub reports_published: u64,
}

impl RadioDirection {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: DirId,
        from: NodeId,
        to: NodeId,
        timing: RadioTiming,
        amc: Amc,
        harq: Harq,
        (tx, rx, no_arq): (RlcTx, RlcRx, bool),
        report: ReportConfig,
        rng: Rng,
    ) -> Self {
        RadioDirection {
            id,
            from,
            to,
            timing,
            amc,
            harq,
            tx,
            rx,
            no_arq,
            rng,
            sdus: SduTable::default(),
            tbs: Vec::new(),
            free_tbs: Vec::new(),
            decode_pipe: VecDeque::new(),
            status_pipe: VecDeque::new(),
            reports: Vec::new(),
            free_reports: Vec::new(),
            sinr_history: VecDeque::from([(SimTime::ZERO, f64::NEG_INFINITY)]),
            mac_mcs: None,
            mac_mcs_from: None,
            state: LinkState { sinr_db: f64::NEG_INFINITY, mcs: None, rate_bps: 0 },
            slot_rate_bps: 0,
            slots_counted: 0,
            last_slot_bit_ps: (0, 0),
            next_slot: None,
            last_slot: None,
            timer_at: None,
            accounted_until: SimTime::ZERO,
            segments: Vec::new(),
            sns: Vec::new(),
            outcomes: Vec::new(),
            finished: Vec::new(),
            freed: Vec::new(),
            tdd: None,
            out_of_sync: false,
            rlf_deadline: None,
            stats: DirectionStats::default(),
            radio: RadioStats::default(),
            report,
            reports_published: 0,
        }
    }

    /// Restricts this direction to its TDD slots.
    pub fn with_tdd(mut self, tdd: Option<TddSchedule>) -> Self {
        self.tdd = tdd;
        self
    }

    /// The rate of `mcs` averaged over the TDD pattern (the MCS rate without one).
    fn average_rate(&self, mcs: u8) -> u64 {
        self.averaged(self.amc.rate_bps(mcs, self.timing.bandwidth_hz))
    }

    /// A rate in own slots averaged over the TDD pattern (unchanged without one).
    fn averaged(&self, rate_bps: u64) -> u64 {
        self.tdd.as_ref().map_or(rate_bps, |t| t.average_rate(rate_bps))
    }

    /// The link as the current SINR allows it (not yet seen by the MAC, which lags by
    /// `amc_delay`). With TDD, `rate_bps` is averaged over the pattern.
    pub fn link_state(&self) -> LinkState {
        self.state
    }

    /// The rate of the lowest MCS of the AMC table, bit/s (averaged over the TDD pattern).
    pub fn lowest_rate_bps(&self) -> u64 {
        self.average_rate(self.amc.lowest_mcs())
    }

    /// Capacity at the current SINR, bit/s (averaged over the TDD pattern).
    pub fn rate_bps(&self) -> u64 {
        self.state.rate_bps
    }

    /// The share of the direction's capacity its attempts used, in [0, 1] (module header); 0
    /// while the capacity is 0. Complete after [`Self::finish`].
    pub fn utilisation(&self) -> f64 {
        if self.stats.capacity_bit_ps == 0 {
            0.0
        } else {
            // Both integers are exact and occupied ≤ capacity; rounding to f64 is monotone, so
            // the ratio cannot exceed 1.
            self.radio.occupied_bit_ps as f64 / self.stats.capacity_bit_ps as f64
        }
    }

    /// Bytes waiting in RLC (new data and retransmissions).
    pub fn queue_bytes(&self) -> u64 {
        self.tx.buffered_bytes()
    }

    /// Packets held by RLC: waiting, in flight, or waiting for an AM acknowledgement.
    pub fn queue_packets(&self) -> usize {
        self.sdus.held
    }

    /// Free bytes in RLC's SDU buffer.
    pub fn room_bytes(&self) -> u64 {
        self.tx.room_bytes()
    }

    /// One own slot's capacity at the current SINR, bit/s × ps.
    #[inline]
    fn slot_capacity_bit_ps(&self) -> u128 {
        self.timing.slot.0 as u128 * self.slot_rate_bps as u128
    }

    /// Brings the time integrals up to `now`, and the capacity over the own slots that started
    /// before `now` and were not counted by their slot event (the direction was idle in them).
    /// Call before any change of the SINR or the buffer.
    fn account(&mut self, now: SimTime) {
        // No slot started since the last call (most calls: one per packet admitted): no division.
        if now.0 > self.slots_counted.saturating_mul(self.timing.slot.0) {
            let k = now.0.div_ceil(self.timing.slot.0);
            let own = match &self.tdd {
                Some(t) => t.own_before(k) - t.own_before(self.slots_counted),
                None => k - self.slots_counted,
            };
            self.stats.capacity_bit_ps += own as u128 * self.slot_capacity_bit_ps();
            self.slots_counted = k;
        }
        let dt = now.saturating_since(self.accounted_until);
        if dt.0 > 0 {
            self.stats.queue_byte_ps += dt.0 as u128 * self.tx.buffered_bytes() as u128;
            if self.state.sinr_db.is_finite() {
                self.radio.sinr_db_ps += dt.0 as f64 * self.state.sinr_db;
                self.radio.sinr_finite_ps += dt.0;
            }
            self.accounted_until = now;
        }
    }

    /// Closes the integrals at the end of the run: the capacity counts the own slots that start
    /// before `now`. A slot starting at `now` (the world runs the events at the stop time) lies
    /// after the run, so its capacity and use are taken out again.
    pub fn finish(&mut self, now: SimTime) {
        self.account(now);
        if self.last_slot.is_some_and(|t| t >= now) {
            let (capacity, used) = std::mem::take(&mut self.last_slot_bit_ps);
            self.stats.capacity_bit_ps -= capacity;
            self.radio.occupied_bit_ps -= used;
        }
        debug_assert!(self.radio.occupied_bit_ps <= self.stats.capacity_bit_ps, "utilisation above 1");
    }

    /// The channel's SINR changed. Returns true when the MCS the current SINR allows changed
    /// (for on-change link reports). Also radio link monitoring: starts or stops T310.
    pub fn set_sinr(&mut self, q: &mut EventQueue<Event>, now: SimTime, sinr_db: f64) -> bool {
        self.account(now);
        self.forget_sinr_before(now);
        self.sinr_history.push_back((now, sinr_db));
        let mcs = self.amc.select(sinr_db);
        let changed = mcs != self.state.mcs;
        self.slot_rate_bps = mcs.map_or(0, |m| self.amc.rate_bps(m, self.timing.bandwidth_hz));
        self.state = LinkState { sinr_db, mcs, rate_bps: self.averaged(self.slot_rate_bps) };
        if mcs.is_none() && !self.out_of_sync {
            // TS 38.331 §5.3.10.1: out of sync → start T310.
            self.out_of_sync = true;
            if let Some(t310) = self.timing.rlf_timeout {
                let at = now + t310;
                self.rlf_deadline = Some(at);
                q.schedule(at, Event::Radio { dir: self.id, what: RadioEvent::Rlf });
            }
        } else if mcs.is_some() {
            // In sync again: stop T310 (its pending event finds no deadline).
            self.out_of_sync = false;
            self.rlf_deadline = None;
        }
        changed
    }

    /// Whether the link is out of sync (the current SINR allows no MCS).
    pub fn out_of_sync(&self) -> bool {
        self.out_of_sync
    }

    /// T310 expired: radio link failure and re-establishment (module header).
    fn on_rlf(&mut self, now: SimTime, out: &mut RadioOutput) {
        if self.rlf_deadline != Some(now) {
            return; // T310 was stopped (or restarted) since
        }
        self.rlf_deadline = None;
        self.account(now);
        self.radio.rlf_events += 1;
        // TS 38.321 §5.12 MAC reset: flush the HARQ buffers.
        let mut finished = std::mem::take(&mut self.finished);
        finished.clear();
        self.harq.flush(&mut finished);
        for f in finished.drain(..) {
            self.release_tb(f.tb);
        }
        self.finished = finished;
        // PDUs on their way up and STATUS PDUs on their way back are discarded with the rest;
        // their pending events find the pipes empty (or not yet due) and do nothing.
        while let Some((_, tb)) = self.decode_pipe.pop_front() {
            self.release_tb(tb);
        }
        while let Some((_, idx)) = self.status_pipe.pop_front() {
            self.free_reports.push(idx);
        }
        // TS 38.322 §5.1.2 RLC re-establishment of both entities.
        let next = self.tx.reestablish();
        self.rx.reestablish(next);
        self.timer_at = None;
        let mut freed = std::mem::take(&mut self.freed);
        self.sdus.take_all(next, &mut freed);
        for pkt in freed.drain(..) {
            self.radio.drops_rlf += 1;
            self.stats.drops_error += 1;
            out.dropped.push((pkt, DropCause::Error));
        }
        self.freed = freed;
    }

    /// Drops the SINR values that no slot from `now` on can see: the MAC at time t ≥ now looks
    /// at the value in force at t − amc_delay ≥ now − amc_delay. Keeps the history short even
    /// while no slots run.
    fn forget_sinr_before(&mut self, now: SimTime) {
        let seen = now.0.saturating_sub(self.timing.amc_delay.0);
        while self.sinr_history.len() > 1 && self.sinr_history[1].0 .0 <= seen {
            self.sinr_history.pop_front();
        }
    }

    /// The SINR now, and the MCS chosen on the SINR `amc_delay` ago.
    fn mac_view(&mut self, now: SimTime) -> (f64, Option<u8>) {
        self.forget_sinr_before(now);
        let (from, delayed) = self.sinr_history[0];
        if self.mac_mcs_from != Some(from) {
            self.mac_mcs_from = Some(from);
            self.mac_mcs = self.amc.select(delayed);
        }
        (self.state.sinr_db, self.mac_mcs)
    }

    /// A packet of `size` bytes arrives for transmission. Returns it back if RLC's buffer is full.
    pub fn admit(
        &mut self,
        q: &mut EventQueue<Event>,
        now: SimTime,
        pkt: PacketId,
        size: u32,
    ) -> Result<(), PacketId> {
        self.enqueue(q, now, pkt, size, None)
    }

    /// Like [`Self::admit`], but the packet joins the packets waiting in RLC's buffer for their
    /// first transmission at `position` (0: the head), for a proxy's priority retransmissions.
    /// Always queued: returns `Ok(true)` when admitted.
    pub fn admit_at(
        &mut self,
        q: &mut EventQueue<Event>,
        now: SimTime,
        pkt: PacketId,
        size: u32,
        position: usize,
    ) -> Result<bool, PacketId> {
        self.enqueue(q, now, pkt, size, Some(position)).map(|()| true)
    }

    fn enqueue(
        &mut self,
        q: &mut EventQueue<Event>,
        now: SimTime,
        pkt: PacketId,
        size: u32,
        position: Option<usize>,
    ) -> Result<(), PacketId> {
        self.account(now);
        let offered = match position {
            None => self.tx.offer(now, size),
            Some(at) => self.tx.offer_at(now, size, at),
        };
        match offered {
            Some(sn) => {
                let held = Held { pkt, size };
                if position.is_some() {
                    self.sdus.insert(sn, held);
                } else {
                    self.sdus.push(sn, held);
                }
                self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(self.tx.buffered_bytes());
                self.ensure_slot(q, now);
                self.ensure_timer(q, now);
                Ok(())
            }
            None => {
                self.stats.drops_queue += 1;
                Err(pkt)
            }
        }
    }

    /// Handles one of this direction's events.
    pub fn on_event(
        &mut self,
        q: &mut EventQueue<Event>,
        now: SimTime,
        what: RadioEvent,
        out: &mut RadioOutput,
    ) {
        match what {
            RadioEvent::Slot => self.on_slot(q, now, out),
            RadioEvent::Decode => self.on_decode(q, now, out),
            RadioEvent::Status => self.on_status(q, now, out),
            RadioEvent::Timer => self.on_timer(q, now, out),
            RadioEvent::Rlf => self.on_rlf(now, out),
            RadioEvent::Report => unreachable!("the world publishes link reports"),
        }
        self.ensure_timer(q, now);
    }

    /// The first of this direction's slots to start at or after `now`, after the last one.
    fn next_boundary(&self, now: SimTime) -> SimTime {
        let slot = self.timing.slot.0;
        let mut k = now.0.div_ceil(slot);
        if let Some(last) = self.last_slot {
            k = k.max(last.0 / slot + 1);
        }
        if let Some(tdd) = &self.tdd {
            k = tdd.next_own(k);
        }
        SimTime(k * slot)
    }

    fn ensure_slot(&mut self, q: &mut EventQueue<Event>, now: SimTime) {
        if self.next_slot.is_none() {
            let at = self.next_boundary(now);
            self.next_slot = Some(at);
            q.schedule(at, Event::Radio { dir: self.id, what: RadioEvent::Slot });
        }
    }

    fn ensure_timer(&mut self, q: &mut EventQueue<Event>, now: SimTime) {
        let due = match (self.tx.next_deadline(), self.rx.next_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(at) = due {
            if self.timer_at.is_none_or(|t| at < t) {
                let at = at.max(now);
                self.timer_at = Some(at);
                q.schedule(at, Event::Radio { dir: self.id, what: RadioEvent::Timer });
            }
        }
    }

    fn alloc_tb(&mut self) -> u32 {
        match self.free_tbs.pop() {
            Some(i) => i,
            None => {
                self.tbs.push(Tb::default());
                (self.tbs.len() - 1) as u32
            }
        }
    }

    fn release_tb(&mut self, tb: u32) {
        let t = &mut self.tbs[tb as usize];
        t.refs -= 1;
        if t.refs == 0 {
            t.segments.clear();
            self.free_tbs.push(tb);
        }
    }

    /// A TB whose every attempt failed. Without ARQ (TM, UM) its SDUs can never be completed, so
    /// their packets are dropped now: TM's receiver cannot tell an SDU was lost at all, and UM's
    /// learns it only from later SNs — never, if nothing follows (the packet would otherwise be
    /// held for ever, and a proxy waiting for RLC to empty would wait with it). UM's receiver
    /// still resolves the SN by its own rules; the packet is simply no longer there.
    fn tb_lost(&mut self, tb: u32, out: &mut RadioOutput) {
        if self.no_arq {
            for i in 0..self.tbs[tb as usize].segments.len() {
                let sn = self.tbs[tb as usize].segments[i].sn;
                if let Some(Held { pkt, .. }) = self.sdus.take(sn) {
                    self.radio.sdus_lost += 1;
                    self.stats.drops_error += 1;
                    out.dropped.push((pkt, DropCause::Error));
                }
            }
        }
    }

    fn on_slot(&mut self, q: &mut EventQueue<Event>, now: SimTime, out: &mut RadioOutput) {
        self.next_slot = None;
        self.last_slot = Some(now);
        self.account(now);
        // This slot's capacity, at the SINR its attempt is decoded at.
        let k = now.0 / self.timing.slot.0;
        debug_assert!(k * self.timing.slot.0 == now.0 && k >= self.slots_counted, "a slot counted twice");
        let capacity = self.slot_capacity_bit_ps();
        self.stats.capacity_bit_ps += capacity;
        self.last_slot_bit_ps = (capacity, 0);
        self.slots_counted = k + 1;
        let slot_end = now + self.timing.slot;

        let mut finished = std::mem::take(&mut self.finished);
        self.harq.collect_feedback(now, &mut finished);
        for f in finished.drain(..) {
            if !f.decoded {
                self.tb_lost(f.tb, out);
            }
            self.release_tb(f.tb);
        }
        self.finished = finished;

        // The discard timer acts in every slot, including those that send nothing.
        let mut expired = std::mem::take(&mut self.sns);
        expired.clear();
        self.tx.discard_expired(now, &mut expired);
        if !expired.is_empty() {
            self.drop_head_sdus(&expired, out);
            self.discard(q, now, &expired, out);
        }
        self.sns = expired;

        let (sinr_db, mcs) = self.mac_view(now);
        let amc = &self.amc;
        if let Some((proc, tb, tb_mcs)) = self.harq.retransmission() {
            let attempt =
                self.harq.send_again(proc, slot_end, sinr_db, |s| amc.bler(tb_mcs, s), &mut self.rng);
            self.radio.tb_attempts += 1;
            let t = &self.tbs[tb as usize];
            self.stats.bytes_sent += t.bytes as u64;
            self.occupy(t.bytes, t.capacity);
            self.after_attempt(q, tb, attempt.decoded, slot_end, out);
        } else if self.tx.has_pending() {
            match mcs {
                None => self.radio.outage_slots += 1,
                Some(mcs) if self.harq.can_send_new() => self.send_new_tb(q, now, mcs, sinr_db, out),
                Some(_) => {}
            }
        }

        if self.tx.has_pending() || self.harq.busy() > 0 {
            self.ensure_slot(q, slot_end);
        }
    }

    fn send_new_tb(
        &mut self,
        q: &mut EventQueue<Event>,
        now: SimTime,
        mcs: u8,
        sinr_db: f64,
        out: &mut RadioOutput,
    ) {
        let rate = self.amc.rate_bps(mcs, self.timing.bandwidth_hz);
        let tb_bytes = (self.timing.slot.bits_at(rate) / 8).min(u32::MAX as u64) as u32;
        if tb_bytes == 0 {
            self.radio.outage_slots += 1;
            return;
        }
        let mut segments = std::mem::take(&mut self.segments);
        let mut dropped = std::mem::take(&mut self.sns);
        segments.clear();
        dropped.clear();
        let head_drops_before = self.head_drops();
        let used = self.tx.fill(now, tb_bytes, &mut segments, &mut dropped);
        if !dropped.is_empty() {
            // The last `head` SNs are dropped at the head of the buffer (CoDel, discard timer);
            // any before them are AM give-ups decided at a poll-retransmit expiry. Either way
            // the receiver must stop waiting for them; a give-up is lost (or delivered, if it
            // had arrived) through the receiver's outcome.
            let head = (self.head_drops() - head_drops_before) as usize;
            self.drop_head_sdus(&dropped[dropped.len() - head..], out);
            self.discard(q, now, &dropped, out);
        }
        self.sns = dropped;
        if segments.is_empty() {
            self.segments = segments;
            return;
        }
        let tb = self.alloc_tb();
        {
            let t = &mut self.tbs[tb as usize];
            std::mem::swap(&mut t.segments, &mut segments);
            t.bytes = used;
            t.capacity = tb_bytes;
            t.refs = u8::from(self.harq.enabled());
        }
        self.segments = segments;
        let slot_end = now + self.timing.slot;
        let amc = &self.amc;
        let attempt = self.harq.send_new(tb, mcs, slot_end, sinr_db, |s| amc.bler(mcs, s), &mut self.rng);
        self.radio.tb_attempts += 1;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += used as u64;
        self.occupy(used, tb_bytes);
        self.after_attempt(q, tb, attempt.decoded, slot_end, out);
    }

    /// An attempt in the current slot of a TB of `bytes` whose MCS gives TBs of `capacity`
    /// bytes: it uses that share of the slot's capacity.
    #[inline]
    fn occupy(&mut self, bytes: u32, capacity: u32) {
        debug_assert!(bytes <= capacity && capacity > 0);
        let used = self.slot_capacity_bit_ps() * bytes as u128 / capacity as u128;
        self.radio.occupied_bit_ps += used;
        self.last_slot_bit_ps.1 += used;
    }

    /// SDUs dropped at the head of the RLC buffer so far: CoDel and the discard timer.
    fn head_drops(&self) -> u64 {
        let st = self.tx.stats();
        st.drops_codel + st.drops_discard_timer
    }

    /// Frees the packets of SDUs dropped at the head of the buffer (queue drops).
    fn drop_head_sdus(&mut self, sns: &[u64], out: &mut RadioOutput) {
        for &sn in sns {
            if let Some(Held { pkt, .. }) = self.sdus.take(sn) {
                self.stats.drops_queue += 1;
                out.dropped.push((pkt, DropCause::QueueFull));
            }
        }
    }

    fn after_attempt(
        &mut self,
        q: &mut EventQueue<Event>,
        tb: u32,
        decoded: bool,
        slot_end: SimTime,
        out: &mut RadioOutput,
    ) {
        if decoded {
            self.tbs[tb as usize].refs += 1;
            let at = slot_end + self.timing.delay;
            if self.decode_pipe.is_empty() {
                q.schedule(at, Event::Radio { dir: self.id, what: RadioEvent::Decode });
            }
            self.decode_pipe.push_back((at, tb));
        } else {
            self.radio.tb_errors += 1;
            if !self.harq.enabled() {
                self.tbs[tb as usize].refs += 1;
                self.tb_lost(tb, out);
                self.release_tb(tb);
            }
        }
    }

    fn on_decode(&mut self, q: &mut EventQueue<Event>, now: SimTime, out: &mut RadioOutput) {
        // After a radio link failure flushed the pipe, its pending event finds it empty, or
        // headed by a TB due later (whose own event is scheduled).
        if self.decode_pipe.front().is_none_or(|&(at, _)| at != now) {
            return;
        }
        let (_, tb) = self.decode_pipe.pop_front().expect("checked");
        if let Some(&(next, _)) = self.decode_pipe.front() {
            q.schedule(next, Event::Radio { dir: self.id, what: RadioEvent::Decode });
        }
        let mut outcomes = std::mem::take(&mut self.outcomes);
        outcomes.clear();
        for i in 0..self.tbs[tb as usize].segments.len() {
            let seg = self.tbs[tb as usize].segments[i];
            self.rx.on_segment(now, &seg, &mut outcomes);
        }
        self.release_tb(tb);
        self.apply_outcomes(&mut outcomes, out);
        self.outcomes = outcomes;
        self.send_status(q, now);
    }

    fn apply_outcomes(&mut self, outcomes: &mut Vec<RxOutcome>, out: &mut RadioOutput) {
        for o in outcomes.drain(..) {
            match o {
                RxOutcome::Deliver(sn) => {
                    if let Some(Held { pkt, size }) = self.sdus.take(sn) {
                        self.radio.sdus_delivered += 1;
                        self.radio.sdu_bytes_delivered += u64::from(size);
                        out.delivered.push(pkt);
                    }
                }
                RxOutcome::Lost(sn) => {
                    if let Some(Held { pkt, .. }) = self.sdus.take(sn) {
                        self.radio.sdus_lost += 1;
                        self.stats.drops_error += 1;
                        out.dropped.push((pkt, DropCause::Error));
                    }
                }
            }
        }
    }

    /// Moves a STATUS report the receiver wants to send onto the control path.
    fn send_status(&mut self, q: &mut EventQueue<Event>, now: SimTime) {
        let idx = self.free_reports.pop().unwrap_or_else(|| {
            self.reports.push(StatusReport { ack_sn: 0, nacks: Vec::new() });
            self.reports.len() - 1
        });
        if self.rx.take_status(now, &mut self.reports[idx]) {
            let at = now + self.timing.status_delay;
            if self.status_pipe.is_empty() {
                q.schedule(at, Event::Radio { dir: self.id, what: RadioEvent::Status });
            }
            self.status_pipe.push_back((at, idx));
        } else {
            self.free_reports.push(idx);
        }
    }

    fn on_status(&mut self, q: &mut EventQueue<Event>, now: SimTime, out: &mut RadioOutput) {
        if self.status_pipe.front().is_none_or(|&(at, _)| at != now) {
            return; // flushed by a radio link failure, as in `on_decode`
        }
        let (_, idx) = self.status_pipe.pop_front().expect("checked");
        if let Some(&(next, _)) = self.status_pipe.front() {
            q.schedule(next, Event::Radio { dir: self.id, what: RadioEvent::Status });
        }
        let mut discarded = std::mem::take(&mut self.sns);
        discarded.clear();
        self.tx.on_status(now, &self.reports[idx], &mut discarded);
        self.free_reports.push(idx);
        if !discarded.is_empty() {
            self.discard(q, now, &discarded, out);
        }
        self.sns = discarded;
        if self.tx.has_pending() {
            self.ensure_slot(q, now);
        }
    }

    /// The transmitter gave up on `sns` (AM max_retx, CoDel): the receiver stops waiting for them
    /// (a simplified move-receiving-window, docs/models/rlc.md).
    fn discard(&mut self, q: &mut EventQueue<Event>, now: SimTime, sns: &[u64], out: &mut RadioOutput) {
        let mut outcomes = std::mem::take(&mut self.outcomes);
        outcomes.clear();
        for &sn in sns {
            self.rx.on_discard(sn, &mut outcomes);
        }
        self.apply_outcomes(&mut outcomes, out);
        self.outcomes = outcomes;
        self.send_status(q, now);
    }

    fn on_timer(&mut self, q: &mut EventQueue<Event>, now: SimTime, out: &mut RadioOutput) {
        if self.timer_at != Some(now) {
            return; // superseded by an earlier deadline
        }
        self.timer_at = None;
        if self.tx.next_deadline().is_some_and(|t| t <= now) {
            self.tx.on_timer(now);
        }
        if self.rx.next_deadline().is_some_and(|t| t <= now) {
            let mut outcomes = std::mem::take(&mut self.outcomes);
            outcomes.clear();
            self.rx.on_timer(now, &mut outcomes);
            self.apply_outcomes(&mut outcomes, out);
            self.outcomes = outcomes;
            self.send_status(q, now);
        }
        if self.tx.has_pending() {
            self.ensure_slot(q, now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::InputContext;
    use crate::net::packet::Packet;
    use crate::net::PacketArena;
    use crate::radio::amc::AmcConfig;
    use crate::radio::harq::HarqConfig;
    use crate::radio::rlc::RlcConfig;
    use crate::radio::tdd::{TddPattern, TddSide};
    use std::path::Path;

    const SLOT: Duration = Duration::from_micros(125);
    const BANDWIDTH_HZ: f64 = 1e9;

    fn amc() -> Amc {
        let ctx =
            InputContext { scenario_file: "s.toml", field: "link[0].radio.amc", base_dir: Path::new(".") };
        Amc::new(&AmcConfig::default(), &ctx).unwrap()
    }

    /// The downlink of a 1 GHz NR link with 125 µs slots, the default AMC delay (1 ms), HARQ
    /// (16 processes, 3 retransmissions, 0.5 ms feedback, Chase combining) and RLC AM, sending
    /// in the `D` slots of `tdd`.
    fn downlink(tdd: &str) -> RadioDirection {
        let timing = RadioTiming {
            slot: SLOT,
            bandwidth_hz: BANDWIDTH_HZ,
            amc_delay: Duration::from_millis(1),
            delay: Duration::from_micros(1),
            status_delay: Duration::from_micros(501),
            rlf_timeout: None,
        };
        let rlc = RlcConfig::default();
        RadioDirection::new(
            DirId(0),
            NodeId(0),
            NodeId(1),
            timing,
            amc(),
            Harq::new(&HarqConfig::default()),
            (RlcTx::new(&rlc), RlcRx::new(&rlc), false),
            ReportConfig::default(),
            Rng::for_component(1, "test"),
        )
        .with_tdd(Some(TddPattern::parse(tdd).unwrap().schedule(TddSide::Downlink)))
    }

    /// Keeps `dir` saturated (`bytes` of 1500-byte packets offered at time 0) while its SINR is
    /// `sinr_db[i mod len]` during millisecond `i`, until `end`, and closes its counters at `end`,
    /// as the world runs it (events at `end` included).
    fn run_saturated(dir: &mut RadioDirection, sinr_db: &[f64], end: SimTime, bytes: u64) {
        let mut q = EventQueue::new();
        let mut arena = PacketArena::with_capacity(1024);
        let mut out = RadioOutput::default();
        dir.set_sinr(&mut q, SimTime::ZERO, sinr_db[0]);
        for _ in 0..bytes / 1500 {
            let pkt = arena.alloc(Packet::for_test(1500));
            dir.admit(&mut q, SimTime::ZERO, pkt, 1500).expect("RLC's buffer holds the offered data");
        }
        let mut change = 1u64;
        while let Some(t) = q.peek_time() {
            if t > end {
                break;
            }
            // SINR changes come first at equal times (the channel's event is older).
            let at = SimTime(change * Duration::from_millis(1).0);
            if at <= t {
                dir.set_sinr(&mut q, at, sinr_db[change as usize % sinr_db.len()]);
                change += 1;
                continue;
            }
            let (now, event) = q.pop().expect("peeked");
            let Event::Radio { what, .. } = event else { panic!("unexpected {event:?}") };
            dir.on_event(&mut q, now, what, &mut out);
            out.delivered.clear();
            assert!(out.dropped.is_empty(), "nothing is dropped: {:?}", out.dropped);
        }
        dir.finish(end);
    }

    /// The bits the direction's own slots in [0, end) could carry, the SINR of millisecond `i`
    /// being `sinr_db[i mod len]`.
    fn own_slot_capacity_bits(dir: &RadioDirection, sinr_db: &[f64], end: SimTime) -> f64 {
        let tdd = dir.tdd.as_ref().expect("a TDD direction");
        let amc = amc();
        (0..end.0 / SLOT.0)
            .filter(|&k| tdd.is_own(k))
            .map(|k| {
                let ms = (k * SLOT.0 / Duration::from_millis(1).0) as usize;
                let rate =
                    amc.select(sinr_db[ms % sinr_db.len()]).map_or(0, |m| amc.rate_bps(m, BANDWIDTH_HZ));
                SLOT.0 as f64 * rate as f64 / crate::sim::PS_PER_SEC as f64
            })
            .sum()
    }

    /// The capacity is the own slots' (at the SINR each slot is decoded at), every slot that
    /// could carry data carried a full TB (utilisation 1, never more), and bits sent ÷ capacity,
    /// the utilisation before issue 15, is about `old_ratio`.
    fn assert_capacity_fully_used(dir: &RadioDirection, sinr_db: &[f64], end: SimTime, old_ratio: f64) {
        let capacity = dir.stats.capacity_bits();
        let expected = own_slot_capacity_bits(dir, sinr_db, end);
        assert!((capacity - expected).abs() < 1e-6 * expected, "capacity {capacity} vs {expected}");
        let sent_ratio = dir.stats.bytes_sent as f64 * 8.0 / capacity;
        assert!((sent_ratio - old_ratio).abs() < 0.1 * old_ratio, "bits sent / capacity {sent_ratio}");
        let u = dir.utilisation();
        assert!(u <= 1.0, "utilisation {u}");
        assert!(u > 0.99, "every slot that could carry data carried a full TB: utilisation {u}");
    }

    /// Issue 15 item 9. A saturated TDD downlink on a channel alternating every millisecond
    /// between 20 dB and 5 dB: the MAC, one millisecond behind, sends 20-dB-sized TBs in the
    /// 5 dB milliseconds (they fail) and repeats them, still 20-dB-sized, in the 20 dB ones. Bits
    /// sent ÷ capacity, the utilisation before issue 15 item 9, is about 1.5; every own slot carries a
    /// full TB, so the direction used all of its capacity: utilisation 1, and never more.
    #[test]
    fn test_saturated_tdd_direction_with_a_lagging_mcs_has_utilisation_one() {
        let sinr = [20.0, 5.0];
        // The run stops at the start of a D slot, which lies after it.
        let end = SimTime(Duration::from_micros(40_250).0);
        let mut dir = downlink("CCDDUUUU");
        run_saturated(&mut dir, &sinr, end, 4_000_000);
        assert!(dir.harq.stats.retransmissions > 20, "the lagging MCS fails TBs: {:?}", dir.harq.stats);
        assert_capacity_fully_used(&dir, &sinr, end, 1.5);
    }

    /// A saturated TDD downlink whose channel is 2 ms at 20 dB, then 2 ms in outage: the MAC sends
    /// new TBs into the first outage millisecond and their HARQ retransmissions into the second
    /// (the MAC sees the outage then, but retransmissions go out regardless), where the channel
    /// can carry nothing. Those slots add no capacity and no use of it; the 20 dB milliseconds
    /// are fully used. Bits sent ÷ capacity is 2.
    #[test]
    fn test_harq_retransmissions_in_an_outage_use_no_capacity() {
        let sinr = [20.0, 20.0, f64::NEG_INFINITY, f64::NEG_INFINITY];
        let end = SimTime(Duration::from_millis(40).0);
        let mut dir = downlink("CCDDUUUU");
        run_saturated(&mut dir, &sinr, end, 4_000_000);
        assert!(dir.harq.stats.retransmissions > 20, "{:?}", dir.harq.stats);
        assert_capacity_fully_used(&dir, &sinr, end, 2.0);
    }
}
