//! [`AckManager`]: what the proxy does with every packet of the flows it caches and with its
//! timers, and the hooks through which a retransmission policy (PEP or mmPEP,
//! [`super::Recovery`]) resends cached data.
//!
//! - **Data from the server** (Kim et al. §III-A, Fig. 2): a new segment is cached (sequence,
//!   length, first transmission time, when the proxy forwarded it, whether it retransmitted it)
//!   and passes toward the mobile; an early ACK answers it. A segment wholly below `A` or wholly
//!   cached is a duplicate: it is consumed (the proxy already holds it or the mobile has it) and
//!   answered with an early ACK. A segment that does not fit in the free cache — which the
//!   window prevents unless the server ignores it (our sender does for its first flight, whose
//!   window comes from its own `receive_buffer`, not the SYN-ACK) — or that partly overlaps
//!   cached data is forwarded uncached and not acknowledged: no byte is lost, and the server
//!   keeps the responsibility for it.
//! - **Flow control** (§III-A): every ACK to the server advertises the free cache,
//!   `cache − C`; the window of the mobile's SYN-ACK (or, for a download, SYN) is clamped to it.
//!   The cache is per flow.
//! - **ACKs from the mobile**: cached data below the cumulative ACK is freed and the ACK is
//!   consumed ("discards the received Ack", §III-A). The handshake passes (SYN, SYN-ACK, and the
//!   ACKs a mobile sends before any data has reached the proxy, which complete a download's
//!   handshake). When the mobile acknowledges uncached bytes, `A` moves and an early ACK says so.
//! - **Window updates** (§III-A: "it resends the last known sent early-Ack but with an updated
//!   RWIN entry"): our sender has no zero-window probe, so a server stalled on the window would
//!   wait for ever. The proxy re-sends its ACK with the fresh window when the window the server
//!   last heard left it less than one MSS beyond the highest byte received (it may be stalled),
//!   the fresh one leaves at least one MSS, and the right edge moved by at least
//!   `window_update` bytes (receiver silly-window avoidance, RFC 1122 §4.2.3.3). While the
//!   server still has room its next segments fetch fresh windows, so no update is needed.
//! - **Duplicate ACKs** from the mobile: same cumulative ACK as the highest so far, no data,
//!   forwarded data not yet acknowledged, and — when the ACK carries SACK blocks — at least one
//!   newly SACKed byte (RFC 6675 §2 "DupAck"; an ACK triggered by a redundant copy of data the
//!   mobile already holds is not one). From the `dupthresh`-th of a run on, each is reported to
//!   the retransmission policy (PEP or mmPEP), which decides what to resend; the count restarts
//!   when the cumulative ACK advances or the policy repairs the hole.
//! - **Partial ACKs** (RFC 6582 §3.2 step 3): an advancing ACK that reaches past everything the
//!   last repair resent but stays below what had been forwarded when it was made (`recover`) is
//!   reported to the policy as a new hole — unless the watched RLC still holds packets, which
//!   may be what the ACK waits for (`CacheParams::partial_ack_rlc`).
//! - **Forwarding that waits** ([`Hold`], keys `hold_for_rlc` and `mobile_window`; Kim et al.
//!   §III-A: "the base station keeps these packets in its cache until LOS status is resumed"):
//!   instead of passing on at once, a cached segment waits in the cache until the radio link's
//!   RLC buffer has room for it and, with `mobile_window`, until it lies within the window the
//!   mobile advertised. Retransmissions wait for RLC room too, ahead of new data. Waiting data
//!   goes out on the mobile's next ACK or at a check every [`HOLD_POLL`].
//! - **Retransmission timer** (RFC 6298 applied to the proxy→mobile path): an [`RttEstimator`]
//!   fed only by segments the proxy forwarded once (Karn's rule, RFC 6298 §3), running while the
//!   cache holds data, restarted when the mobile's ACK advances (§5.3), stopped when the cache
//!   empties (§5.2); the policy decides what an expiry does and whether it backs off (§5.5).
//!
//! [`Hold`]: super::Hold
//! [`RttEstimator`]: crate::transport::tcp::rto::RttEstimator

use super::cache::{FlowCache, Repair, RepairTrigger, Segment};
use super::params::CacheParams;
use crate::ids::{FlowId, PacketId};
use crate::net::{
    Packet, SackBlocks, SeqRange, Side, TcpFlags, TcpHeader, TcpOptions, MAX_WINDOW, TCP_IP_HEADER_BYTES,
};
use crate::proxy::env::FlowInfo;
use crate::proxy::{ProcCtx, Verdict};
use crate::sim::{Duration, Fired, SimTime};
use serde_json::{json, Map, Value};

/// Period of the check for room in the RLC buffer while forwarding waits for it (`hold_for_rlc`).
/// In LOS the mobile's ACKs, which arrive every few microseconds, release held data; the check
/// covers the start of a LOS period, when RLC drains before any ACK is back.
pub const HOLD_POLL: Duration = Duration::from_millis(1);
/// The token of the hold check's timer (flow timers use the flow's index).
const HOLD_POLL_TOKEN: u32 = u32::MAX;

/// The `dupthresh`-th (or a later) duplicate ACK of a run, for the retransmission policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DupAck {
    pub flow: FlowId,
    /// The cumulative ACK the mobile repeats: its first missing byte.
    pub hole: u64,
}

/// Counters of the ack management (all flows).
#[derive(Clone, Debug, Default)]
pub struct AckStats {
    /// Data segments from the server.
    pub data_segments: u64,
    pub segments_cached: u64,
    /// Data segments already held or acknowledged by the mobile: consumed and answered.
    pub duplicate_segments: u64,
    /// Data segments forwarded uncached (no room, or partial overlap with cached data).
    pub uncached_segments: u64,
    pub uncached_bytes: u64,
    /// Every ACK the proxy sent to a server.
    pub early_acks: u64,
    /// Those re-sent because freed cache reopened the window of a stalled server.
    pub window_updates: u64,
    /// SYNs / SYN-ACKs of the mobile whose window was set to min(its window, free cache).
    pub handshake_windows: u64,
    /// The mobile's ACKs consumed.
    pub acks_consumed: u64,
    /// The mobile's ACKs passed to the server during the handshake.
    pub acks_passed: u64,
    /// Duplicate ACKs of the mobile (see the module documentation).
    pub duplicate_acks: u64,
    /// Segments the proxy retransmitted (dupACK- and timer-driven, batches included).
    pub retransmitted_segments: u64,
    /// Cumulative ACKs of the mobile that answered a repair but stayed below what had been
    /// forwarded before it (RFC 6582 partial ACKs), reported to the policy as a new hole.
    pub partial_acks: u64,
    /// Those that found the watched RLC holding packets: not reported
    /// ([`CacheParams::partial_ack_rlc`]).
    pub partial_acks_rlc_busy: u64,
    /// Retransmission timer expiries with data cached.
    pub timer_expiries: u64,
    /// Segments that waited in the cache before the proxy forwarded them ([`Hold`](super::Hold)).
    pub segments_held: u64,
    /// Most new data (payload) waiting to be forwarded at one time (all flows).
    pub peak_held_bytes: u64,
    pub rtt_samples: u64,
    /// Payload cached now (all flows).
    pub cache_bytes: u64,
    pub peak_cache_bytes: u64,
}

/// The shared ack management of PEP and mmPEP: one [`FlowCache`] per flow of the scenario.
pub struct AckManager {
    p: CacheParams,
    flows: Vec<FlowCache>,
    pub stats: AckStats,
    /// Segments retransmitted since the last time-series row.
    retransmitted_since_sample: u64,
    /// New data (payload) waiting to be forwarded now (all flows).
    held_bytes: u64,
    /// Whether the hold check's timer is pending.
    poll_armed: bool,
    /// Room left in the RLC buffer during the current call ([`Self::reserve`]).
    call_room: Option<u64>,
}

impl AckManager {
    pub fn new(p: CacheParams, flows: &[FlowInfo]) -> AckManager {
        debug_assert!(flows.iter().enumerate().all(|(i, f)| f.id.0 as usize == i));
        let flows = flows.iter().map(|f| FlowCache::new(f, &p)).collect();
        AckManager {
            p,
            flows,
            stats: AckStats::default(),
            retransmitted_since_sample: 0,
            held_bytes: 0,
            poll_armed: false,
            call_room: None,
        }
    }

    /// A packet reached the proxy's node. Returns the verdict, and a duplicate ACK for the
    /// retransmission policy when the packet was the `dupthresh`-th (or a later) one.
    pub fn on_packet(&mut self, ctx: &mut ProcCtx, id: PacketId) -> (Verdict, Option<DupAck>) {
        self.call_room = None;
        let pkt = *ctx.packets.get(id);
        let Some(f) = self.flows.get_mut(pkt.flow.0 as usize) else {
            return (Verdict::Pass, None);
        };
        if pkt.tcp.flags.contains(TcpFlags::SYN) {
            if pkt.to == Side::Sender {
                f.mobile_edge = f.mobile_edge.max(u64::from(pkt.tcp.window));
                // §III-A flow control from the first window the server hears.
                let window = u64::from(pkt.tcp.window).min(self.p.cache - f.cached);
                ctx.packets.get_mut(id).tcp.window = window as u32;
                f.last_window = window;
                self.stats.handshake_windows += 1;
            }
            return (Verdict::Pass, None);
        }
        match pkt.to {
            Side::Receiver if pkt.is_data() => {
                let flow = pkt.flow.0 as usize;
                (self.on_data(ctx, flow, id, &pkt), None)
            }
            Side::Sender if !pkt.is_data() && f.seen_data => {
                let flow = pkt.flow.0 as usize;
                let sack = ctx.packets.options(id).sack;
                ctx.packets.free(id);
                self.stats.acks_consumed += 1;
                // What waits goes after the policy has answered a duplicate ACK
                // ([`Self::release`], called by the proxy), so repairs queue ahead of it.
                let dupack = self.on_mobile_ack(ctx, flow, &pkt, &sack);
                (Verdict::Consumed, dupack)
            }
            Side::Sender if !pkt.is_data() => {
                f.mobile_edge = f.mobile_edge.max(pkt.tcp.ack + u64::from(pkt.tcp.window));
                self.stats.acks_passed += 1;
                (Verdict::Pass, None)
            }
            _ => (Verdict::Pass, None),
        }
    }

    fn on_data(&mut self, ctx: &mut ProcCtx, flow: usize, id: PacketId, pkt: &Packet) -> Verdict {
        let f = &mut self.flows[flow];
        self.stats.data_segments += 1;
        let seg = SeqRange::new(pkt.tcp.seq, pkt.tcp.seq + u64::from(pkt.tcp.len));
        f.seen_data = true;
        f.high_rx = f.high_rx.max(seg.end);
        if seg.start <= f.last_ack {
            f.ts_recent = pkt.sent_at;
        }
        if seg.end <= f.ack_point || f.above.covers(seg) {
            // Held or delivered already: don't cache twice, tell the server again.
            if seg.start >= f.ack_point {
                f.recent.remember(seg.start);
            }
            self.stats.duplicate_segments += 1;
            ctx.packets.free(id);
            self.send_ack(ctx, flow);
            return Verdict::Consumed;
        }
        let free = self.p.cache - f.cached;
        if seg.start < f.ack_point || f.above.overlaps(seg) || seg.len() > free {
            // Forwarded, but the server stays responsible for these bytes: no early ACK.
            self.stats.uncached_segments += 1;
            self.stats.uncached_bytes += seg.len();
            return Verdict::Pass;
        }
        let at = f.segments.partition_point(|s| s.seq < seg.start);
        f.segments.insert(
            at,
            Segment {
                seq: seg.start,
                len: u32::from(pkt.tcp.len),
                first_sent_at: pkt.first_sent_at(),
                sent_at: ctx.now,
                retransmitted: false,
                forwarded: !self.p.hold.any(),
                rtx_waiting: false,
            },
        );
        f.cached += seg.len();
        self.stats.segments_cached += 1;
        self.stats.cache_bytes += seg.len();
        self.stats.peak_cache_bytes = self.stats.peak_cache_bytes.max(self.stats.cache_bytes);
        if seg.start == f.ack_point {
            f.ack_point = seg.end;
            Self::absorb(f);
        } else {
            f.above.insert(seg);
            f.recent.remember(seg.start);
        }
        if self.p.hold.any() {
            // In sequence order, not arrival order: the server's repair of a hole lost before
            // the proxy arrives after data above it, which the mobile's window may hold back
            // until the repair is delivered (behind that data it would wait for ever).
            // Data in order goes at the back without a search through the arena.
            let packets = &*ctx.packets;
            let in_order = f.held.back().is_none_or(|&last| packets.get(last).tcp.seq < seg.start);
            if in_order {
                f.held.push_back(id);
            } else {
                let at = f.held.partition_point(|&other| packets.get(other).tcp.seq < seg.start);
                f.held.insert(at, id);
            }
            self.held_bytes += seg.len();
            self.send_ack(ctx, flow);
            self.release(ctx);
            if self.flows[flow].held.back() == Some(&id) {
                self.stats.segments_held += 1;
            }
            return Verdict::Consumed;
        }
        f.high_fwd = f.high_fwd.max(seg.end);
        Self::start_timer(ctx, f, flow);
        self.send_ack(ctx, flow);
        Verdict::Pass
    }

    /// RFC 6298 §5.1: starts the timer when data goes out and it is not running.
    fn start_timer(ctx: &mut ProcCtx, f: &mut FlowCache, flow: usize) {
        if !f.timer.is_armed() {
            let at = f.timer.set(ctx.now + f.rtt.rto());
            ctx.arm(at, flow as u32);
        }
    }

    /// Forwards what waits ([`Hold`](super::Hold)) as far as the RLC buffer's room and the
    /// mobile's window allow: per flow retransmissions first, then new data in arrival order; one
    /// packet per flow in turn. While anything waits on RLC, checks again every [`HOLD_POLL`].
    /// The proxy calls it after each packet, once the policy has answered a duplicate ACK: an ACK
    /// that opens the mobile's window releases new data, and a repair sent after it would find
    /// the radio's buffer filled by that data.
    pub fn release(&mut self, ctx: &mut ProcCtx) {
        if !self.p.hold.any() {
            return;
        }
        let mut progress = true;
        while progress {
            progress = false;
            for flow in 0..self.flows.len() {
                progress |= self.release_one(ctx, flow);
            }
        }
        self.stats.peak_held_bytes = self.stats.peak_held_bytes.max(self.held_bytes);
        self.arm_poll(ctx);
    }

    /// Arms the hold check's timer if anything waits for room in the RLC buffer.
    fn arm_poll(&mut self, ctx: &mut ProcCtx) {
        if self.poll_armed || self.p.hold.rlc.is_none() {
            return;
        }
        if self.flows.iter().any(|f| !f.held.is_empty() || !f.held_rtx.is_empty()) {
            self.poll_armed = true;
            ctx.arm(Some(ctx.now + HOLD_POLL), HOLD_POLL_TOKEN);
        }
    }

    /// Whether the RLC buffer the proxy waits for (if any) has room for `id`, counting what
    /// this call forwarded already (it reaches the buffer after the call); if so, the room is
    /// taken.
    fn reserve(&mut self, ctx: &ProcCtx, id: PacketId) -> bool {
        let Some(dir) = self.p.hold.rlc else { return true };
        let room = self.call_room.get_or_insert_with(|| ctx.room_bytes(dir));
        let size = ctx.packets.get(id).size as u64;
        if *room < size {
            return false;
        }
        *room -= size;
        true
    }

    /// Forwards `flow`'s next waiting retransmission if there is room, or drops it if the mobile
    /// has acknowledged the segment meanwhile; returns whether the queue moved.
    fn release_rtx(&mut self, ctx: &mut ProcCtx, flow: usize) -> bool {
        let Some(&(id, first)) = self.flows[flow].held_rtx.front() else { return false };
        let seq = ctx.packets.get(id).tcp.seq;
        let cached = self.flows[flow].index_of(seq);
        if cached.is_some() && !self.reserve(ctx, id) {
            return false;
        }
        let f = &mut self.flows[flow];
        f.held_rtx.pop_front();
        let Some(i) = cached else {
            ctx.packets.free(id);
            return true;
        };
        let s = &mut f.segments[i];
        s.rtx_waiting = false;
        s.sent_at = ctx.now;
        self.emit_rtx(ctx, id, first);
        true
    }

    /// Sends retransmission `id` (`first`: ahead of what waits at the next hop) and counts it.
    fn emit_rtx(&mut self, ctx: &mut ProcCtx, id: PacketId, first: bool) {
        if first {
            ctx.send_first(id);
        } else {
            ctx.send(id);
        }
        self.stats.retransmitted_segments += 1;
        self.retransmitted_since_sample += 1;
    }

    /// Forwards `flow`'s next waiting packet, a retransmission before new data, if it may go
    /// now; returns whether it did.
    fn release_one(&mut self, ctx: &mut ProcCtx, flow: usize) -> bool {
        if self.release_rtx(ctx, flow) {
            return true;
        }
        let f = &self.flows[flow];
        if !f.held_rtx.is_empty() {
            return false;
        }
        let Some(&id) = f.held.front() else { return false };
        let pkt = ctx.packets.get(id);
        let (seq, len) = (pkt.tcp.seq, pkt.tcp.len as u64);
        if (self.p.hold.mobile_window && seq + len > f.mobile_edge) || !self.reserve(ctx, id) {
            return false;
        }
        let f = &mut self.flows[flow];
        f.held.pop_front();
        self.held_bytes -= len;
        match f.index_of(seq) {
            Some(i) => {
                let s = &mut f.segments[i];
                s.forwarded = true;
                s.sent_at = ctx.now;
                f.high_fwd = f.high_fwd.max(seq + len);
                ctx.send(id);
                Self::start_timer(ctx, f, flow);
            }
            // The mobile acknowledged it while it waited (it got the bytes another way).
            None => ctx.packets.free(id),
        }
        true
    }

    /// Moves `ack_point` over cached ranges that have become contiguous with it.
    fn absorb(f: &mut FlowCache) {
        while let Some(r) = f.above.first() {
            if r.start > f.ack_point {
                break;
            }
            f.ack_point = f.ack_point.max(r.end);
            f.above.pop_first();
        }
    }

    /// The mobile's ACK `pkt` (consumed already) with its SACK blocks `sack`.
    fn on_mobile_ack(
        &mut self,
        ctx: &mut ProcCtx,
        flow: usize,
        pkt: &Packet,
        sack: &SackBlocks,
    ) -> Option<DupAck> {
        let f = &mut self.flows[flow];
        let ack = pkt.tcp.ack;
        if ack > f.high_rx || ack < f.una {
            return None; // acknowledges data never forwarded, or older than what we know
        }
        f.mobile_edge = f.mobile_edge.max(ack + u64::from(pkt.tcp.window));
        let advanced = ack > f.una;
        if advanced {
            let mut newest_clean_send = None;
            let mut retransmitted = false;
            while let Some(s) = f.segments.front() {
                if s.end() > ack {
                    break;
                }
                if s.retransmitted {
                    retransmitted = true;
                } else {
                    newest_clean_send =
                        Some(newest_clean_send.map_or(s.sent_at, |t: SimTime| t.max(s.sent_at)));
                }
                f.cached -= s.len as u64;
                self.stats.cache_bytes -= s.len as u64;
                f.segments.pop_front();
            }
            // Karn (RFC 6298 §3): an ACK that also covers a retransmitted segment gives no
            // sample; the clean segments above a repaired hole waited for the repair.
            if let Some(sent) = newest_clean_send.filter(|_| !retransmitted) {
                f.rtt.on_sample(ctx.now - sent, 0, 0);
                self.stats.rtt_samples += 1;
            }
            f.una = ack;
            f.sacked.remove_below(ack);
            if ack > f.ack_point {
                f.ack_point = ack;
                f.above.remove_below(ack);
                Self::absorb(f);
            }
            f.dupacks = 0;
            // RFC 6298 §5.2–5.3, and the back-off is forgotten on progress.
            f.rtt.reset_backoff();
            if f.segments.is_empty() {
                f.timer.cancel();
            } else {
                let at = f.timer.set(ctx.now + f.rtt.rto());
                ctx.arm(at, flow as u32);
            }
        }
        let mut newly_sacked = 0;
        for b in sack.as_slice() {
            let (start, end) = (b.start.max(f.una), b.end.min(f.high_rx));
            if start < end {
                newly_sacked += f.sacked.insert(SeqRange::new(start, end));
            }
        }
        let mut dupack = None;
        if advanced && f.repair.is_some_and(|r| ack >= r.end && ack < r.recover) {
            // RFC 6582 §3.2 step 3: the repair is answered, yet the mobile still misses data
            // forwarded before it. When the mobile's window holds new data back, nothing new
            // reaches it and no further duplicate ACK would come: the new hole goes to the
            // policy at once, unless RLC still holds what may answer the ACK.
            self.stats.partial_acks += 1;
            if self.p.partial_ack_rlc.is_some_and(|dl| ctx.held_packets(dl) > 0) {
                self.stats.partial_acks_rlc_busy += 1;
            } else {
                dupack = Some(DupAck { flow: f.flow, hole: ack });
            }
        }
        // RFC 6675 §2: with SACK in use, an ACK is a duplicate only if it SACKs new data; an
        // ACK without blocks at the same point answers a redundant copy (no D-SACK here) or a
        // window update, not a loss. Without SACK every such ACK counts (RFC 5681 §2).
        let duplicate = if f.max_sack_blocks > 0 { newly_sacked > 0 } else { sack.is_empty() };
        if !advanced && f.high_rx > f.una && duplicate {
            f.dupacks += 1;
            self.stats.duplicate_acks += 1;
            if f.dupacks >= self.p.dupthresh {
                dupack = Some(DupAck { flow: f.flow, hole: ack });
            }
        }
        if f.ack_point > f.last_ack {
            self.send_ack(ctx, flow);
        } else if self.window_reopened(flow) {
            self.stats.window_updates += 1;
            self.send_ack(ctx, flow);
        }
        dupack
    }

    /// Whether freed cache should be announced: the window the server last heard left it less
    /// than one MSS beyond what has arrived, the fresh one leaves at least one MSS, and the right
    /// edge moves by at least `window_update`.
    fn window_reopened(&self, flow: usize) -> bool {
        let f = &self.flows[flow];
        let edge = f.ack_point + (self.p.cache - f.cached);
        let last_edge = f.last_ack + f.last_window;
        last_edge.saturating_sub(f.high_rx) < f.mss
            && edge.saturating_sub(f.high_rx) >= f.mss
            && edge >= last_edge + self.p.window_update
    }

    /// Sends the server an ACK of everything the proxy holds, with the free cache as window (at
    /// most the largest TCP can advertise, RFC 7323 §2.3).
    fn send_ack(&mut self, ctx: &mut ProcCtx, flow: usize) {
        let f = &mut self.flows[flow];
        let window = (self.p.cache - f.cached).min(MAX_WINDOW);
        let sack = f.sack_blocks();
        let tcp =
            TcpHeader { ack: f.ack_point, window: window as u32, flags: TcpFlags::ACK, ..Default::default() };
        let packet = Packet::new(f.flow, (f.mobile, f.server), Side::Sender, tcp, (ctx.now, f.ts_recent));
        let id = ctx.packets.alloc_with(packet, &TcpOptions { sack, dss: None });
        ctx.send(id);
        f.last_ack = f.ack_point;
        f.last_window = window;
        self.stats.early_acks += 1;
    }

    /// Handles an event of the retransmission timer `token`; returns the flow whose timer
    /// expired with data cached (the policy then acts and re-arms).
    pub fn on_timer(&mut self, ctx: &mut ProcCtx, token: u32) -> Option<FlowId> {
        self.call_room = None;
        if token == HOLD_POLL_TOKEN {
            self.poll_armed = false;
            self.release(ctx);
            return None;
        }
        let f = self.flows.get_mut(token as usize)?;
        match f.timer.fire(ctx.now) {
            // Data out toward the mobile: the lowest cached segment has been forwarded.
            Fired::Expired if f.segments.front().is_some_and(|s| s.forwarded) => {
                self.stats.timer_expiries += 1;
                Some(f.flow)
            }
            Fired::Rearm(at) => {
                ctx.arm(Some(at), token);
                None
            }
            Fired::Expired | Fired::Nothing => None,
        }
    }

    /// Re-arms `flow`'s timer for one RTO from now.
    pub fn rearm(&mut self, ctx: &mut ProcCtx, flow: FlowId) {
        let f = &mut self.flows[flow.0 as usize];
        let at = f.timer.set(ctx.now + f.rtt.rto());
        ctx.arm(at, flow.0);
    }

    /// Doubles `flow`'s RTO (RFC 6298 §5.5) and re-arms the timer.
    pub fn back_off(&mut self, ctx: &mut ProcCtx, flow: FlowId) {
        self.flows[flow.0 as usize].rtt.back_off();
        self.rearm(ctx, flow);
    }

    /// The mobile's cumulative ACK.
    pub fn una(&self, flow: FlowId) -> u64 {
        self.flows[flow.0 as usize].una
    }

    /// Bytes one full-sized segment of `flow` takes in a buffer (payload and TCP/IP headers).
    pub fn segment_bytes(&self, flow: FlowId) -> u64 {
        self.flows[flow.0 as usize].mss + u64::from(TCP_IP_HEADER_BYTES)
    }

    /// About one round trip to the mobile: SRTT, or the RTO before the first sample.
    pub fn round_trip(&self, flow: FlowId) -> Duration {
        let rtt = &self.flows[flow.0 as usize].rtt;
        rtt.srtt().unwrap_or_else(|| rtt.rto())
    }

    pub fn last_repair(&self, flow: FlowId) -> Option<Repair> {
        self.flows[flow.0 as usize].repair
    }

    /// Whether `hole` was repaired less than a round trip ago: its repair cannot have been
    /// answered yet, so a further duplicate ACK of it is no news.
    pub fn recently_repaired(&self, flow: FlowId, hole: u64, now: SimTime) -> bool {
        self.last_repair(flow).is_some_and(|r| r.hole == hole && now < r.at + self.round_trip(flow))
    }

    /// Records that the policy repaired `hole` now (the segments it retransmitted since the
    /// previous call are the repair); the duplicate-ACK count starts again. A repair the ACKs
    /// asked for inside an earlier repair's recovery (below its `recover`) keeps that `recover`
    /// (RFC 6582 §3.2 step 3: partial ACKs do not extend the recovery); any other repair, and
    /// one after a timeout (§4), recovers up to what has been forwarded now. Moving `recover` on
    /// every partial ACK would make every later ACK partial once the originals of a spurious
    /// repair (queued through an outage) arrive: a resend per ACK for as long as data flows.
    pub fn note_repair(&mut self, flow: FlowId, hole: u64, now: SimTime, trigger: RepairTrigger) {
        let f = &mut self.flows[flow.0 as usize];
        let end = std::mem::take(&mut f.rtx_end).max(hole);
        let recover = match (trigger, f.repair) {
            (RepairTrigger::Ack, Some(open)) if hole < open.recover => open.recover,
            _ => f.high_fwd,
        };
        f.repair = Some(Repair { hole, at: now, end, recover });
        f.dupacks = 0;
    }

    /// Retransmits the cached segment holding byte `seq` (unless the mobile SACKed it, it was
    /// never forwarded, or a retransmission of it still waits for room); returns whether it
    /// did. `first`: ahead of what waits at the next hop.
    pub fn retransmit_at(&mut self, ctx: &mut ProcCtx, flow: FlowId, seq: u64, first: bool) -> bool {
        let f = &self.flows[flow.0 as usize];
        let i = f.index_after(seq);
        match f.segments.get(i) {
            Some(s) if s.seq <= seq && s.forwarded && !s.rtx_waiting && !f.sacked.covers(s.range()) => {
                self.retransmit(ctx, flow, i, first);
                true
            }
            _ => false,
        }
    }

    /// Retransmits, in sequence order, up to `n` cached segments that end after `from`, skipping
    /// those the mobile has SACKed and those not forwarded yet; one whose retransmission still
    /// waits for room counts toward `n` but is not queued again. Returns how many it sent.
    pub fn retransmit_from(
        &mut self,
        ctx: &mut ProcCtx,
        flow: FlowId,
        from: u64,
        n: u32,
        first: bool,
    ) -> u32 {
        let mut i = self.flows[flow.0 as usize].index_after(from);
        let (mut covered, mut sent) = (0, 0);
        while covered < n {
            let f = &self.flows[flow.0 as usize];
            let Some(s) = f.segments.get(i) else { break };
            if s.forwarded && !f.sacked.covers(s.range()) {
                covered += 1;
                if !s.rtx_waiting {
                    self.retransmit(ctx, flow, i, first);
                    sent += 1;
                }
            }
            i += 1;
        }
        sent
    }

    fn retransmit(&mut self, ctx: &mut ProcCtx, flow: FlowId, i: usize, first: bool) {
        let f = &mut self.flows[flow.0 as usize];
        let s = &mut f.segments[i];
        s.retransmitted = true;
        s.sent_at = ctx.now;
        f.rtx_end = f.rtx_end.max(s.end());
        s.rtx_waiting = self.p.hold.rlc.is_some();
        let tcp = TcpHeader { seq: s.seq, len: s.len as u16, flags: TcpFlags::ACK, ..Default::default() };
        let times = (ctx.now, s.first_sent_at);
        let id = ctx.packets.alloc(Packet::new(f.flow, (f.server, f.mobile), Side::Receiver, tcp, times));
        if self.p.hold.rlc.is_some() {
            // Waits for room, ahead of new data; only retransmissions go now, so that a run
            // sent first keeps its order.
            f.held_rtx.push_back((id, first));
            while self.release_rtx(ctx, flow.0 as usize) {}
            self.arm_poll(ctx);
        } else {
            self.emit_rtx(ctx, id, first);
        }
    }

    /// Time-series columns of the ack management.
    pub fn columns() -> [&'static str; 3] {
        ["cache_bytes", "window_bytes", "retransmitted_segments"]
    }

    /// Payload cached now; sum over the flows that have sent data of the window last advertised
    /// to their server; segments retransmitted since the previous row.
    pub fn sample(&mut self, row: &mut Vec<f64>) {
        let window: u64 = self.flows.iter().filter(|f| f.seen_data).map(|f| f.last_window).sum();
        row.push(self.stats.cache_bytes as f64);
        row.push(window as f64);
        row.push(self.retransmitted_since_sample as f64);
        self.retransmitted_since_sample = 0;
    }

    /// The counters as a JSON object, to which a policy adds its own.
    pub fn summary(&self) -> Map<String, Value> {
        let s = &self.stats;
        let value = json!({
            "cache_limit_bytes": self.p.cache,
            "data_segments": s.data_segments,
            "segments_cached": s.segments_cached,
            "duplicate_segments": s.duplicate_segments,
            "uncached_segments": s.uncached_segments,
            "uncached_bytes": s.uncached_bytes,
            "early_acks": s.early_acks,
            "window_updates": s.window_updates,
            "handshake_windows": s.handshake_windows,
            "acks_consumed": s.acks_consumed,
            "acks_passed": s.acks_passed,
            "duplicate_acks": s.duplicate_acks,
            "partial_acks": s.partial_acks,
            "partial_acks_rlc_busy": s.partial_acks_rlc_busy,
            "retransmitted_segments": s.retransmitted_segments,
            "timer_expiries": s.timer_expiries,
            "segments_held": s.segments_held,
            "peak_held_bytes": s.peak_held_bytes,
            "rtt_samples": s.rtt_samples,
            "peak_cache_bytes": s.peak_cache_bytes,
        });
        match value {
            Value::Object(map) => map,
            _ => unreachable!("json! of an object literal"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::*;
    use super::super::{Hold, DEFAULT_INITIAL_RTO};
    use super::*;
    use crate::ids::DirId;
    use proptest::prelude::*;

    /// The ack management with a minimal policy: two segments from the hole on each duplicate
    /// ACK, the first unacknowledged one on expiry.
    struct Bare(AckManager);

    impl crate::proxy::PacketProcessor for Bare {
        fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
            let (verdict, dupack) = self.0.on_packet(ctx, pkt);
            if let Some(d) = dupack {
                self.0.retransmit_from(ctx, d.flow, d.hole, 2, true);
            }
            self.0.release(ctx);
            verdict
        }
        fn on_timer(&mut self, ctx: &mut ProcCtx, token: u32) {
            if let Some(flow) = self.0.on_timer(ctx, token) {
                let una = self.0.una(flow);
                self.0.retransmit_from(ctx, flow, una, 1, false);
                self.0.back_off(ctx, flow);
            }
        }
        fn summary(&self) -> Value {
            Value::Object(self.0.summary())
        }
    }

    fn bare(cache: u64) -> Bare {
        Bare(AckManager::new(params(cache), &flows()))
    }

    // ---------------------------------------------------------------------------------------
    // Data from the server

    #[test]
    fn test_data_is_cached_passed_and_early_acked() {
        let mut h = Harness::new();
        let mut p = bare(10 * MSS);
        let id = h.data(0);
        assert_eq!(h.packet(&mut p, id), Verdict::Pass);
        assert_eq!(h.packets.get(id).tcp.seq, 0, "the data packet itself goes on untouched");
        let out = h.take();
        assert_eq!(out.len(), 1);
        let (ack, first) = out[0];
        assert!(!first);
        assert_eq!((ack.src, ack.dst, ack.to), (MOBILE, SERVER, Side::Sender));
        assert_eq!(ack.tcp.flags, TcpFlags::ACK);
        assert_eq!(ack.tcp.ack, MSS);
        assert_eq!(u64::from(ack.tcp.window), 9 * MSS, "the free cache");
        assert_eq!(ack.size(), TCP_IP_HEADER_BYTES);
        assert_eq!(p.0.stats.cache_bytes, MSS);
        assert_eq!(h.timers.len(), 1, "the retransmission timer runs");
        assert_eq!(h.last_timer(), SimTime::ZERO + DEFAULT_INITIAL_RTO.0);
    }

    #[test]
    fn test_data_above_a_hole_is_sacked_not_acked() {
        let mut h = Harness::new();
        let mut p = bare(10 * MSS);
        for k in [0, 2, 3] {
            let id = h.data(k);
            h.packet(&mut p, id);
        }
        let acks = to_server_with_sack(&h.take_with_sack());
        assert_eq!(acks[2].0.tcp.ack, MSS, "byte 1000 has not arrived");
        assert_eq!(acks[2].1.as_slice(), &[SeqRange::new(2 * MSS, 4 * MSS)]);
        assert_eq!(acks[2].0.size(), TCP_IP_HEADER_BYTES + 12, "with the SACK option");
        assert_eq!(u64::from(acks[2].0.tcp.window), 7 * MSS);
        let id = h.data(1);
        h.packet(&mut p, id);
        let acks = to_server_with_sack(&h.take_with_sack());
        assert_eq!(acks[0].0.tcp.ack, 4 * MSS, "the hole filled: everything is held");
        assert!(acks[0].1.is_empty());
    }

    /// RFC 2018 §4: the first SACK block holds the segment that triggered the ACK, the others
    /// repeat the most recently reported blocks. Reporting the lowest cached ranges instead
    /// hides every range above the third from the server: after a burst of alternate drops its
    /// scoreboard marks one hole lost per round trip (the reproducer of docs/models/pep.md).
    #[test]
    fn test_sack_blocks_most_recent_first_so_the_server_hears_every_range() {
        let mut h = Harness::new();
        let mut p = bare(100 * MSS);
        let r = |k: u64| SeqRange::new(k * MSS, (k + 1) * MSS);
        // Segments 0, 2, 4, …, 20: ten holes, ten single-segment ranges above A.
        let mut reported = Vec::new();
        for k in (0..=20).step_by(2) {
            let id = h.data(k);
            h.packet(&mut p, id);
            let acks = to_server_with_sack(&h.take_with_sack());
            assert_eq!(acks.len(), 1);
            let sack = acks[0].1.as_slice().to_vec();
            if k > 0 {
                assert_eq!(sack[0], r(k), "the first block holds the segment just received");
                let expect: Vec<_> =
                    (0..3).map(|i| k as i64 - 2 * i).filter(|&j| j > 0).map(|j| r(j as u64)).collect();
                assert_eq!(sack, expect, "then the most recently reported blocks");
            }
            reported.extend(sack);
        }
        for k in (2..=20).step_by(2) {
            assert!(reported.contains(&r(k)), "range {k} was reported to the server");
        }
        // A segment joining two older ranges moves the merged range to the front.
        let id = h.data(5);
        h.packet(&mut p, id);
        let acks = to_server_with_sack(&h.take_with_sack());
        assert_eq!(acks[0].1.as_slice(), &[SeqRange::new(4 * MSS, 7 * MSS), r(20), r(18)]);
        // A duplicate of a cached segment too (its ACK is triggered by it).
        let id = h.data(10);
        h.packet(&mut p, id);
        let acks = to_server_with_sack(&h.take_with_sack());
        assert_eq!(acks[0].1.as_slice(), &[r(10), SeqRange::new(4 * MSS, 7 * MSS), r(20)]);
        // A segment that advances A reports no block of its own; ranges it absorbed are gone.
        let id = h.data(1);
        h.packet(&mut p, id);
        let acks = to_server_with_sack(&h.take_with_sack());
        assert_eq!(acks[0].0.tcp.ack, 3 * MSS);
        assert_eq!(acks[0].1.as_slice(), &[r(10), SeqRange::new(4 * MSS, 7 * MSS), r(20)]);
    }

    #[test]
    fn test_duplicate_data_is_consumed_and_answered() {
        let mut h = Harness::new();
        let mut p = bare(10 * MSS);
        for k in 0..3 {
            let id = h.data(k);
            h.packet(&mut p, id);
        }
        h.take();
        let id = h.data(1);
        let live = h.packets.live();
        assert_eq!(h.packet(&mut p, id), Verdict::Consumed);
        assert_eq!(h.packets.live(), live, "freed the duplicate, allocated one ACK");
        let acks = to_server(&h.take());
        assert_eq!(acks.len(), 1);
        assert_eq!(acks[0].tcp.ack, 3 * MSS);
        assert_eq!(p.0.stats.cache_bytes, 3 * MSS, "not cached twice");
        assert_eq!(p.0.stats.duplicate_segments, 1);
        // Below the mobile's ACK (freed from the cache): still a duplicate.
        let id = h.ack(2 * MSS, &[]);
        h.packet(&mut p, id);
        let id = h.data(0);
        assert_eq!(h.packet(&mut p, id), Verdict::Consumed);
        assert_eq!(p.0.stats.cache_bytes, MSS);
    }

    // ---------------------------------------------------------------------------------------
    // Handshake

    #[test]
    fn test_handshake_passes_with_the_mobile_window_clamped() {
        let mut h = Harness::new();
        let mut p = bare(10 * MSS);
        let syn = h.handshake(Side::Receiver, TcpFlags::SYN, 1 << 30);
        assert_eq!(h.packet(&mut p, syn), Verdict::Pass);
        assert_eq!(u64::from(h.packets.get(syn).tcp.window), 1 << 30, "the server's SYN is untouched");
        let syn_ack = h.handshake(Side::Sender, TcpFlags::SYN_ACK, 6 << 20);
        assert_eq!(h.packet(&mut p, syn_ack), Verdict::Pass);
        assert_eq!(u64::from(h.packets.get(syn_ack).tcp.window), 10 * MSS);
        let small = h.handshake(Side::Sender, TcpFlags::SYN_ACK, 3 * MSS);
        h.packet(&mut p, small);
        assert_eq!(u64::from(h.packets.get(small).tcp.window), 3 * MSS, "a smaller window is kept");
        // A download: the mobile's SYN is clamped, its handshake ACK passes (no data yet).
        let syn = h.handshake(Side::Sender, TcpFlags::SYN, 6 << 20);
        h.packet(&mut p, syn);
        assert_eq!(u64::from(h.packets.get(syn).tcp.window), 10 * MSS);
        let hs_ack = h.ack(0, &[]);
        assert_eq!(h.packet(&mut p, hs_ack), Verdict::Pass);
        assert!(h.take().is_empty());
        assert_eq!(p.0.stats.acks_passed, 1);
        assert_eq!(p.0.stats.handshake_windows, 3);
    }

    // ---------------------------------------------------------------------------------------
    // ACKs from the mobile, flow control

    #[test]
    fn test_mobile_ack_frees_the_cache_and_is_consumed() {
        let mut h = Harness::new();
        let mut p = bare(10 * MSS);
        for k in 0..4 {
            let id = h.data(k);
            h.packet(&mut p, id);
        }
        h.take();
        h.now = SimTime::ZERO + Duration::from_millis(30);
        let id = h.ack(2 * MSS, &[]);
        let live = h.packets.live();
        assert_eq!(h.packet(&mut p, id), Verdict::Consumed);
        assert_eq!(h.packets.live(), live - 1, "the ACK was freed");
        assert!(h.take().is_empty(), "the server has room: nothing to tell it");
        assert_eq!(p.0.stats.cache_bytes, 2 * MSS);
        assert_eq!(p.0.stats.acks_consumed, 1);
        let f = &p.0.flows[0];
        assert_eq!(f.rtt.srtt(), Some(Duration::from_millis(30)), "proxy→mobile RTT sampled");
        assert_eq!(h.last_timer(), h.now + f.rtt.rto(), "timer restarted on progress");
        let id = h.ack(4 * MSS, &[]);
        h.packet(&mut p, id);
        assert!(!p.0.flows[0].timer.is_armed(), "timer stopped with the cache empty");
    }

    /// Karn's rule (RFC 6298 §3): an ACK that covers a retransmitted segment gives no RTT
    /// sample, even for the clean segments it also covers (they waited for the repair).
    #[test]
    fn test_ack_covering_a_repair_gives_no_rtt_sample() {
        let mut h = Harness::new();
        let mut p = bare(10 * MSS);
        for k in 0..3 {
            let id = h.data(k);
            h.packet(&mut p, id);
        }
        h.take();
        h.now = SimTime::ZERO + Duration::from_millis(2);
        let id = h.ack(0, &[(MSS, 3 * MSS)]);
        h.packet(&mut p, id);
        assert_eq!(to_mobile(&h.take()).len(), 1, "segment 0 repaired");
        h.now = SimTime::ZERO + Duration::from_millis(900);
        let id = h.ack(3 * MSS, &[]);
        h.packet(&mut p, id);
        assert_eq!(p.0.stats.rtt_samples, 0, "no sample of the 900 ms wait");
        assert_eq!(p.0.flows[0].rtt.srtt(), None);
    }

    #[test]
    fn test_full_cache_closes_the_window_and_freed_space_reopens_it() {
        let mut h = Harness::new();
        let mut p = bare(4 * MSS);
        for k in 0..4 {
            let id = h.data(k);
            h.packet(&mut p, id);
        }
        let acks = to_server(&h.take());
        assert_eq!(acks.iter().map(|a| a.tcp.window).collect::<Vec<_>>(), [3000, 2000, 1000, 0]);
        // One segment freed: the edge moves by less than `window_update` (2 MSS).
        let id = h.ack(MSS, &[]);
        h.packet(&mut p, id);
        assert!(h.take().is_empty());
        let id = h.ack(3 * MSS, &[]);
        h.packet(&mut p, id);
        let acks = to_server(&h.take());
        assert_eq!(acks.len(), 1, "a window update");
        assert_eq!(acks[0].tcp.ack, 4 * MSS, "the last early ACK again");
        assert_eq!(u64::from(acks[0].tcp.window), 3 * MSS);
        assert_eq!(p.0.stats.window_updates, 1);
        // The server now has room: freeing more sends nothing.
        let id = h.ack(4 * MSS, &[]);
        h.packet(&mut p, id);
        assert!(h.take().is_empty());
    }

    #[test]
    fn test_full_cache_forwards_uncached_and_loses_no_byte() {
        let mut h = Harness::new();
        let mut p = bare(2 * MSS);
        for k in 0..2 {
            let id = h.data(k);
            h.packet(&mut p, id);
        }
        h.take();
        // The server ignores the closed window (as its first flight may).
        let id = h.data(2);
        assert_eq!(h.packet(&mut p, id), Verdict::Pass, "forwarded, not dropped");
        assert_eq!(h.packets.get(id).tcp.seq, 2 * MSS);
        assert!(h.take().is_empty(), "not acknowledged: the server keeps it");
        assert_eq!(p.0.stats.uncached_segments, 1);
        assert_eq!(p.0.stats.cache_bytes, 2 * MSS);
        // Segment 3 fits once the mobile frees the cache; it lies above the uncached hole.
        let id = h.ack(2 * MSS, &[]);
        h.packet(&mut p, id);
        h.take();
        let id = h.data(3);
        h.packet(&mut p, id);
        let acks = to_server_with_sack(&h.take_with_sack());
        assert_eq!(acks[0].0.tcp.ack, 2 * MSS, "the uncached segment is not acknowledged");
        assert_eq!(acks[0].1.as_slice(), &[SeqRange::new(3 * MSS, 4 * MSS)]);
        // The mobile acknowledges it: now the proxy may tell the server.
        let id = h.ack(4 * MSS, &[]);
        h.packet(&mut p, id);
        let acks = to_server(&h.take());
        assert_eq!(acks.len(), 1);
        assert_eq!(acks[0].tcp.ack, 4 * MSS);
        assert_eq!(u64::from(acks[0].tcp.window), 2 * MSS);
    }

    #[test]
    fn test_duplicate_ack_definition() {
        let mut h = Harness::new();
        let mut p = bare(10 * MSS);
        for k in 0..5 {
            let id = h.data(k);
            h.packet(&mut p, id);
        }
        h.take();
        let dup = |h: &mut Harness, p: &mut Bare, ack, sack: &[(u64, u64)]| {
            let id = h.ack(ack, sack);
            h.with_ctx(|ctx| p.0.on_packet(ctx, id)).1
        };
        assert_eq!(dup(&mut h, &mut p, MSS, &[]), None, "advancing ACK");
        let hole = Some(DupAck { flow: FlowId(0), hole: MSS });
        assert_eq!(dup(&mut h, &mut p, MSS, &[(2000, 3000)]), hole);
        assert_eq!(dup(&mut h, &mut p, MSS, &[(2000, 3000)]), None, "no newly SACKed byte");
        assert_eq!(dup(&mut h, &mut p, MSS, &[(2000, 4000)]), hole);
        assert_eq!(dup(&mut h, &mut p, MSS, &[]), None, "no SACK block: a redundant copy's ACK");
        assert_eq!(dup(&mut h, &mut p, 0, &[]), None, "an old ACK");
        assert_eq!(p.0.stats.duplicate_acks, 2);
        // A flow without SACK: every ACK at the same point counts (RFC 5681 §2).
        let mut h = Harness::new();
        let mut p = Bare(AckManager::new(params(10 * MSS), &flows_without_sack()));
        for k in 0..5 {
            let id = h.data(k);
            h.packet(&mut p, id);
        }
        h.take();
        assert_eq!(dup(&mut h, &mut p, MSS, &[]), None, "advancing ACK");
        assert_eq!(dup(&mut h, &mut p, MSS, &[]), hole, "without SACK: RFC 5681");
        assert_eq!(dup(&mut h, &mut p, MSS, &[]), hole);
        assert_eq!(p.0.stats.duplicate_acks, 2);
    }

    #[test]
    fn test_stale_timer_events_are_ignored() {
        let mut h = Harness::new();
        let mut p = bare(10 * MSS);
        for k in 0..2 {
            let id = h.data(k);
            h.packet(&mut p, id);
        }
        let first = h.last_timer();
        assert_eq!(first, SimTime::ZERO + Duration::from_secs(1));
        // A 900 ms sample: RTO = 900 + 4·450 ms = 2.7 s, so the deadline moves later (3.6 s)
        // and no new event is scheduled.
        h.now = SimTime::ZERO + Duration::from_millis(900);
        let id = h.ack(MSS, &[]);
        h.packet(&mut p, id);
        h.take();
        assert_eq!(h.timers.len(), 1);
        h.fire(&mut p, first, 0);
        assert_eq!(p.0.stats.timer_expiries, 0, "the event at 1 s is early");
        assert_eq!(h.last_timer(), SimTime::ZERO + Duration::from_millis(3600), "re-armed");
        assert!(h.take().is_empty());
        h.fire(&mut p, SimTime::ZERO + Duration::from_millis(3600), 0);
        assert_eq!(p.0.stats.timer_expiries, 1);
        assert_eq!(seqs_to_mobile(&h.take()), [1]);
    }

    fn seqs_to_mobile(out: &[(Packet, bool)]) -> Vec<u64> {
        to_mobile(out).iter().map(|(p, _)| p.tcp.seq / MSS).collect()
    }

    // ---------------------------------------------------------------------------------------
    // Forwarding that waits (Hold)

    /// One data packet on the wire, bytes.
    const PKT: u64 = TCP_IP_HEADER_BYTES as u64 + MSS;

    fn holding(cache: u64, hold: Hold) -> Bare {
        let mut p = params(cache);
        p.hold = hold;
        Bare(AckManager::new(p, &flows()))
    }

    /// [`holding`] for a flow without SACK, whose duplicate ACKs carry no blocks.
    fn holding_without_sack(cache: u64, hold: Hold) -> Bare {
        let mut p = params(cache);
        p.hold = hold;
        Bare(AckManager::new(p, &flows_without_sack()))
    }

    const RLC: Hold = Hold { rlc: Some(DirId(0)), mobile_window: false };

    #[test]
    fn test_hold_for_rlc_forwards_what_fits_and_keeps_the_rest_cached() {
        let mut h = Harness::new();
        let mut p = holding(10 * MSS, RLC);
        // The harness does not queue what the proxy emits: set the room each packet leaves.
        for (k, room) in [(0, 2 * PKT + PKT / 2), (1, PKT + PKT / 2), (2, PKT / 2), (3, PKT / 2)] {
            h.set_downlink_room(room);
            let id = h.data(k);
            assert_eq!(h.packet(&mut p, id), Verdict::Consumed, "the proxy forwards it itself");
        }
        let out = h.take();
        assert_eq!(seqs_to_mobile(&out), [0, 1], "2 and 3 do not fit");
        let acks = to_server(&out);
        assert_eq!(acks.len(), 4);
        assert_eq!(acks[3].tcp.ack, 4 * MSS, "waiting data is held, so early-ACKed");
        assert_eq!(u64::from(acks[3].tcp.window), 6 * MSS, "and it occupies the cache");
        assert_eq!(p.0.stats.segments_held, 2);
        assert_eq!(p.0.stats.peak_held_bytes, 2 * MSS);
        let poll = h.timers.iter().find(|t| t.1 == HOLD_POLL_TOKEN).expect("a check for room").0;
        assert_eq!(poll, SimTime::ZERO + HOLD_POLL);
        // Room for one and a half packets: one goes, counted against the room of this call.
        h.set_downlink_room(PKT + PKT / 2);
        h.fire(&mut p, poll, HOLD_POLL_TOKEN);
        assert_eq!(seqs_to_mobile(&h.take()), [2]);
        assert_eq!(h.last_timer(), poll + HOLD_POLL, "3 still waits: checked again");
        h.set_downlink_room(10 * PKT);
        h.fire(&mut p, poll + HOLD_POLL, HOLD_POLL_TOKEN);
        assert_eq!(seqs_to_mobile(&h.take()), [3]);
        let timers = h.timers.len();
        h.fire(&mut p, poll + HOLD_POLL + HOLD_POLL, HOLD_POLL_TOKEN);
        assert_eq!(h.timers.len(), timers, "nothing waits: no further check");
    }

    #[test]
    fn test_held_data_is_neither_timed_nor_retransmitted_before_it_goes() {
        let mut h = Harness::new();
        let mut p = holding(10 * MSS, RLC);
        h.set_downlink_room(0);
        for k in 0..3 {
            let id = h.data(k);
            h.packet(&mut p, id);
        }
        assert!(seqs_to_mobile(&h.take()).is_empty());
        assert!(h.timers.iter().all(|t| t.1 == HOLD_POLL_TOKEN), "no retransmission timer yet");
        // A duplicate ACK cannot name data never sent.
        let id = h.ack(0, &[]);
        h.packet(&mut p, id);
        assert!(seqs_to_mobile(&h.take()).is_empty());
        assert_eq!(p.0.stats.retransmitted_segments, 0);
        h.set_downlink_room(10 * PKT);
        h.fire(&mut p, SimTime::ZERO + HOLD_POLL, HOLD_POLL_TOKEN);
        assert_eq!(seqs_to_mobile(&h.take()), [0, 1, 2]);
        let rto = h.timers.iter().find(|t| t.1 == 0).expect("the timer starts as data goes out").0;
        assert_eq!(rto, SimTime::ZERO + HOLD_POLL + DEFAULT_INITIAL_RTO.0);
    }

    #[test]
    fn test_retransmissions_wait_for_room_ahead_of_new_data() {
        let mut h = Harness::new();
        let mut p = holding_without_sack(20 * MSS, RLC);
        h.set_downlink_room(10 * PKT);
        for k in 0..4 {
            let id = h.data(k);
            h.packet(&mut p, id);
        }
        h.set_downlink_room(0);
        for k in 4..6 {
            let id = h.data(k);
            h.packet(&mut p, id);
        }
        assert_eq!(seqs_to_mobile(&h.take()), [0, 1, 2, 3]);
        // 1 was lost: on each duplicate ACK the policy (two from the hole, first) retransmits 1
        // and 2, when there is room; a retransmission already waiting is not queued again.
        for _ in 0..3 {
            let id = h.ack(MSS, &[]);
            h.packet(&mut p, id);
        }
        assert!(seqs_to_mobile(&h.take()).is_empty(), "no room");
        assert_eq!(p.0.stats.retransmitted_segments, 0, "counted as they go out");
        h.set_downlink_room(3 * PKT);
        h.fire(&mut p, SimTime::ZERO + HOLD_POLL, HOLD_POLL_TOKEN);
        let out = to_mobile(&h.take());
        let sent: Vec<(u64, bool)> = out.iter().map(|(p, first)| (p.tcp.seq / MSS, *first)).collect();
        assert_eq!(sent, [(1, true), (2, true), (4, false)], "retransmissions first, with their priority");
        assert_eq!(p.0.stats.retransmitted_segments, 2);
        // A duplicate ACK of 3 queues 3 and 4; the mobile then acknowledges 3 (its original
        // arrived late): the waiting copy of 3 is dropped, that of 4 still goes first.
        h.set_downlink_room(0);
        for ack in [3, 3, 4] {
            let id = h.ack(ack * MSS, &[]);
            h.packet(&mut p, id);
        }
        assert!(seqs_to_mobile(&h.take()).is_empty());
        h.set_downlink_room(10 * PKT);
        h.fire(&mut p, SimTime::ZERO + HOLD_POLL + HOLD_POLL, HOLD_POLL_TOKEN);
        let out = to_mobile(&h.take());
        let sent: Vec<(u64, bool)> = out.iter().map(|(p, first)| (p.tcp.seq / MSS, *first)).collect();
        assert_eq!(sent, [(4, true), (5, false)], "no copy of 3");
        assert_eq!(p.0.stats.retransmitted_segments, 3);
    }

    /// A proxy keeping the mobile's window (3 segments, from its SYN-ACK) that has received
    /// segments 0..5 from the server; what it sent is left in the harness.
    fn five_segments_behind_a_three_segment_window() -> (Harness, Bare) {
        let mut h = Harness::new();
        let mut p = holding(10 * MSS, Hold { rlc: None, mobile_window: true });
        let syn_ack = h.handshake(Side::Sender, TcpFlags::SYN_ACK, 3 * MSS);
        h.packet(&mut p, syn_ack);
        for k in 0..5 {
            let id = h.data(k);
            h.packet(&mut p, id);
        }
        (h, p)
    }

    #[test]
    fn test_mobile_window_holds_new_data_beyond_the_advertised_edge() {
        let (mut h, mut p) = five_segments_behind_a_three_segment_window();
        let out = h.take();
        assert_eq!(seqs_to_mobile(&out), [0, 1, 2], "the mobile's window is 3 segments");
        assert_eq!(to_server(&out)[4].tcp.ack, 5 * MSS, "all five are cached and early-ACKed");
        assert!(h.timers.iter().all(|t| t.1 != HOLD_POLL_TOKEN), "nothing waits on RLC");
        // The mobile's application stalls: a zero window at 2 segments leaves the edge at 3.
        let id = h.ack_with_window(2 * MSS, 0);
        h.packet(&mut p, id);
        assert!(seqs_to_mobile(&h.take()).is_empty(), "the edge never moves back");
        let id = h.ack_with_window(3 * MSS, MSS);
        h.packet(&mut p, id);
        assert_eq!(seqs_to_mobile(&h.take()), [3], "edge 4 segments");
        let id = h.ack_with_window(4 * MSS, 3 * MSS);
        h.packet(&mut p, id);
        assert_eq!(seqs_to_mobile(&h.take()), [4]);
    }

    /// The server's repair of a segment lost before the proxy goes to the mobile at once, ahead
    /// of held data above it: the mobile's window, full of what it holds out of order, opens
    /// only when the repair arrives.
    #[test]
    fn test_a_repair_from_the_server_overtakes_data_held_for_the_mobile_window() {
        let mut h = Harness::new();
        let mut p = holding(10 * MSS, Hold { rlc: None, mobile_window: true });
        let syn_ack = h.handshake(Side::Sender, TcpFlags::SYN_ACK, 3 * MSS);
        h.packet(&mut p, syn_ack);
        for k in 1..5 {
            let id = h.data(k);
            h.packet(&mut p, id);
        }
        assert_eq!(seqs_to_mobile(&h.take()), [1, 2], "segment 0 lost on the way to the proxy");
        let id = h.data(0);
        h.packet(&mut p, id);
        assert_eq!(seqs_to_mobile(&h.take()), [0], "the repair fits the window; 3 and 4 do not");
        assert_eq!(p.0.stats.segments_held, 2, "3 and 4 waited; the repair went at once");
        let id = h.ack_with_window(3 * MSS, 3 * MSS);
        h.packet(&mut p, id);
        assert_eq!(seqs_to_mobile(&h.take()), [3, 4]);
    }

    /// An ACK that both asks for a repair and opens the mobile's window: the repair goes out
    /// before the new data the window releases (else that data fills the radio's buffer first).
    #[test]
    fn test_repair_goes_ahead_of_the_data_an_ack_releases() {
        let (mut h, mut p) = five_segments_behind_a_three_segment_window();
        assert_eq!(seqs_to_mobile(&h.take()), [0, 1, 2]);
        // Segment 0 lost: the mobile SACKs 1..3 and its window reaches segment 5.
        let id = h.ack(0, &[(MSS, 3 * MSS)]);
        h.packet(&mut p, id);
        let out = to_mobile(&h.take());
        let order: Vec<(u64, bool)> = out.iter().map(|(s, first)| (s.tcp.seq / MSS, *first)).collect();
        assert_eq!(order, [(0, true), (3, false), (4, false)], "repair first, then new data");
    }

    // ---------------------------------------------------------------------------------------
    // Invariants under random arrival orders, losses and ACKs

    #[derive(Clone, Debug)]
    enum Op {
        /// The server's segment `k` reaches the proxy; the radio loses it if `lost`.
        Arrive { k: u64, lost: bool },
        /// The mobile acknowledges what it holds.
        MobileAck,
        /// The retransmission timer's pending events fire.
        Timer,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u64..24, prop::bool::weighted(0.2)).prop_map(|(k, lost)| Op::Arrive { k, lost }),
            2 => Just(Op::MobileAck),
            1 => Just(Op::Timer),
        ]
    }

    /// The mobile's cumulative ACK and SACK blocks (most recent not tracked: lowest first).
    fn mobile_state(got: &[bool]) -> (u64, Vec<(u64, u64)>) {
        let una = got.iter().position(|g| !g).unwrap_or(got.len()) as u64;
        let mut blocks = Vec::new();
        let mut k = una as usize;
        while k < got.len() && blocks.len() < 3 {
            if got[k] {
                let start = k;
                while k < got.len() && got[k] {
                    k += 1;
                }
                blocks.push((start as u64 * MSS, k as u64 * MSS));
            } else {
                k += 1;
            }
        }
        (una * MSS, blocks)
    }

    proptest! {
        #[test]
        fn test_early_acks_never_cover_unheld_data(ops in prop::collection::vec(op(), 1..120), cache_segs in 2u64..12) {
            let mut h = Harness::new();
            let mut p = bare(cache_segs * MSS);
            let mut arrived = [false; 24];
            let mut got = [false; 24];
            let mut acked_by_mobile = 0u64;
            let mut pending: Vec<(SimTime, u32)> = Vec::new();
            let mut clock = SimTime::ZERO;
            for op in ops {
                clock += Duration::from_millis(1);
                if let Op::Timer = op {
                    if let Some(&(at, _)) = pending.iter().min() {
                        clock = clock.max(at);
                    }
                }
                // Timer events due by now fire first, each at its own time.
                loop {
                    pending.append(&mut h.timers);
                    pending.sort();
                    match pending.first() {
                        Some(&(at, token)) if at <= clock => {
                            pending.remove(0);
                            h.fire(&mut p, at, token);
                        }
                        _ => break,
                    }
                }
                h.now = clock;
                let mut consumed_dup = None;
                match op {
                    Op::Arrive { k, lost } => {
                        let was = arrived[k as usize];
                        let id = h.data(k);
                        let verdict = h.packet(&mut p, id);
                        arrived[k as usize] = true;
                        match verdict {
                            Verdict::Pass => {
                                if !lost {
                                    got[k as usize] = true;
                                }
                                h.packets.free(id);
                            }
                            Verdict::Consumed => consumed_dup = Some((k, was)),
                        }
                    }
                    Op::MobileAck => {
                        let (una, sack) = mobile_state(&got);
                        let id = h.ack(una, &sack);
                        h.packet(&mut p, id);
                        acked_by_mobile = acked_by_mobile.max(una);
                    }
                    Op::Timer => {}
                }
                pending.append(&mut h.timers);
                // No byte lost: only data the proxy had already received is consumed, and only
                // if the proxy holds it or the mobile has acknowledged it.
                if let Some((k, was)) = consumed_dup {
                    prop_assert!(was, "segment {} consumed on its first arrival", k);
                    let held = p.0.flows[0].segments.iter().any(|s| s.seq == k * MSS);
                    prop_assert!(held || (k + 1) * MSS <= acked_by_mobile, "segment {} dropped", k);
                }
                let f = &p.0.flows[0];
                for (pkt, sack, _) in h.take_with_sack() {
                    if pkt.dst == MOBILE {
                        // A retransmission reaches the mobile.
                        got[(pkt.tcp.seq / MSS) as usize] = true;
                        continue;
                    }
                    // Every byte below the ACK is acknowledged by the mobile or cached.
                    for k in 0..pkt.tcp.ack.div_ceil(MSS) {
                        let cached = f.segments.iter().any(|s| s.seq == k * MSS);
                        prop_assert!(arrived[k as usize], "ACK {} covers segment {} never received", pkt.tcp.ack, k);
                        prop_assert!(cached || (k + 1) * MSS <= acked_by_mobile,
                            "ACK {} covers segment {} neither cached nor acknowledged", pkt.tcp.ack, k);
                    }
                    for b in sack.as_slice() {
                        for k in b.start / MSS..b.end.div_ceil(MSS) {
                            prop_assert!(f.segments.iter().any(|s| s.seq == k * MSS), "SACK of uncached segment {}", k);
                        }
                    }
                    prop_assert!(u64::from(pkt.tcp.window) <= cache_segs * MSS - f.cached, "window above the free cache");
                    prop_assert_eq!(u64::from(pkt.tcp.window), cache_segs * MSS - f.cached);
                }
                prop_assert!(f.cached <= cache_segs * MSS);
                prop_assert_eq!(f.cached, f.segments.iter().map(|s| s.len as u64).sum::<u64>());
            }
        }
    }
}
