//! Packet processors: components on a node's forwarding path (performance-enhancing proxies).
//!
//! Every packet that reaches a node from a link passes through the node's processors in the
//! order the scenario lists them, before the node delivers it locally or forwards it. Each
//! processor answers [`Verdict::Pass`] (the packet goes on, possibly rewritten in the arena) or
//! [`Verdict::Consumed`] (the processor took it: freed it, or sent it on itself). While handling
//! a packet, a timer or a link report, a processor may
//!
//! - emit packets from its node ([`ProcCtx::send`]; [`ProcCtx::send_first`] puts them ahead of
//!   the packets waiting in the next hop's queue or RLC buffer — a run of them in the order
//!   emitted, its tail dropped if the queue has no room; [`ProcCtx::send_via`] chooses the
//!   interface a packet leaves by, e.g. to spray a flow over two access points);
//! - arm timers ([`ProcCtx::arm`]), which come back as [`PacketProcessor::on_timer`] with the
//!   token it chose;
//! - act on a flow's TCP sender ([`Control::PinCwnd`]: a control message of a cross-layer proxy;
//!   the processor models the message's delay itself);
//! - read the link directions ([`ProcCtx::dirs`]: an RLC buffer's occupancy and free room);
//! - feed an interface itself ([`PacketProcessor::paces`]): the world calls
//!   [`PacketProcessor::on_ready`] each time such a wired interface finishes a packet with
//!   nothing queued behind the next, so the processor chooses each packet at the last moment
//!   (what a coding gateway or access point needs: the packet it sends depends on the time).
//!
//! Packets a processor emits leave its node without passing through the node's processors again:
//! by the next hop of their flow's route (or, off it, the route from the node to their
//! destination), or by the interface the processor chose; a packet sent through a chosen
//! interface takes the route from the next node to its destination from there on. A processor
//! that names radio directions ([`PacketProcessor::reports_from`], any number of them) receives
//! their link reports ([`PacketProcessor::on_report`]) as the radio publishes them
//! (`[link.radio.report]`).
//!
//! Processors: [`pep`] (RFC 3135 early-ACK proxy, Kim et al.'s baseline), [`mmpep`] (Kim et al.
//! §III), [`bdp`] (Drago et al. §III, reactive and proactive, control and split deployments),
//! [`cotag`] (Wu et al.'s gateway, access point and device, Algorithms 1–3) and [`spray`] (Wu et
//! al.'s sprayed baseline; the only processor that also takes MP-TCP subflows).

pub mod batch;
pub mod bdp;
pub mod config;
pub mod cotag;
pub mod early_ack;
pub mod env;
pub mod mmpep;
pub mod pep;
pub mod spray;

use crate::ids::DirId;
use crate::ids::{FlowId, NodeId, PacketId};
use crate::net::PacketArena;
use crate::radio::report::LinkReport;
use crate::sim::SimTime;
use crate::topology::any_direction::AnyDirection;
use serde_json::Value;

/// What happens to a packet after a processor saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It continues along the chain, then to local delivery or forwarding.
    Pass,
    /// The processor took it (freed it or emitted it itself).
    Consumed,
}

/// A packet a processor emits from its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Emit {
    pub pkt: PacketId,
    /// Ahead of the packets already waiting at the next hop.
    pub first: bool,
    /// The interface (a direction leaving the node) it leaves by; `None`: its route's next hop.
    pub via: Option<DirId>,
}

/// An action on a flow's endpoint, applied by the world at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Pin the flow's sender's congestion window (`None`: hand it back to its controller).
    PinCwnd { flow: FlowId, cwnd: Option<u64> },
}

/// What a processor may see and do while handling one input.
pub struct ProcCtx<'a> {
    pub now: SimTime,
    /// The node the processor sits on.
    pub node: NodeId,
    /// In [`PacketProcessor::on_packet`], the link direction the packet arrived by (`None` in
    /// the other calls).
    pub arrived_on: Option<DirId>,
    pub packets: &'a mut PacketArena,
    /// Every link direction, indexed by [`DirId`] (read only).
    pub dirs: &'a [AnyDirection],
    /// The node's interfaces: the directions leaving it, in the order the scenario lists links.
    pub interfaces: &'a [DirId],
    pub out: &'a mut Vec<Emit>,
    pub timers: &'a mut Vec<(SimTime, u32)>,
    pub controls: &'a mut Vec<Control>,
}

impl ProcCtx<'_> {
    /// Emits `pkt` from this node, behind what waits at the next hop.
    pub fn send(&mut self, pkt: PacketId) {
        self.out.push(Emit { pkt, first: false, via: None });
    }

    /// Emits `pkt` from this node, ahead of what waits at the next hop and behind the packets
    /// this call already sent first.
    pub fn send_first(&mut self, pkt: PacketId) {
        self.out.push(Emit { pkt, first: true, via: None });
    }

    /// Emits `pkt` from this node through interface `dir` (one of [`Self::interfaces`]), behind
    /// what waits there. The packet leaves its route: from the next node on it takes the route
    /// from there to its destination.
    pub fn send_via(&mut self, pkt: PacketId, dir: DirId) {
        assert!(self.interfaces.contains(&dir), "{dir:?} is not an interface of node {:?}", self.node);
        self.out.push(Emit { pkt, first: false, via: Some(dir) });
    }

    /// Schedules [`PacketProcessor::on_timer`] with `token` at `at` (nothing when `None`, which
    /// is what [`crate::sim::Timer::set`] returns when no new event is needed).
    pub fn arm(&mut self, at: Option<SimTime>, token: u32) {
        if let Some(at) = at {
            self.timers.push((at, token));
        }
    }

    pub fn control(&mut self, control: Control) {
        self.controls.push(control);
    }

    /// Packets direction `dir` still holds: queued, and, on a radio direction, every packet RLC
    /// has not yet delivered or given up on (sent but unacknowledged ones included).
    pub fn held_packets(&self, dir: DirId) -> usize {
        self.dirs[dir.0 as usize].queue_packets()
    }

    /// Free bytes in the buffer of direction `dir` (see [`AnyDirection::room_bytes`]) as it was
    /// when this call began: packets emitted during the call join it only afterwards.
    pub fn room_bytes(&self, dir: DirId) -> u64 {
        self.dirs[dir.0 as usize].room_bytes()
    }
}

/// A component on a node's forwarding path. See the module documentation.
pub trait PacketProcessor {
    /// A packet reached the node from a link.
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict;

    /// A timer armed with `token` fired. Timers cannot be cancelled: a processor ignores stale
    /// ones (see [`crate::sim::Timer`]).
    fn on_timer(&mut self, ctx: &mut ProcCtx, token: u32);

    /// The radio directions whose link reports this processor receives (asked once, when it
    /// joins the world).
    fn reports_from(&self) -> Vec<DirId> {
        Vec::new()
    }

    /// A link report from one of [`Self::reports_from`] (`report.dir` says which).
    fn on_report(&mut self, _ctx: &mut ProcCtx, _report: &LinkReport) {}

    /// The wired interfaces of its node this processor feeds itself (asked once, when it joins
    /// the world; at most one processor per interface): it hears [`Self::on_ready`] for them.
    fn paces(&self) -> Vec<DirId> {
        Vec::new()
    }

    /// Interface `dir` (one of [`Self::paces`]) finished sending a packet and has nothing
    /// queued: at most the next packet is in service. A processor that keeps one packet queued
    /// there (sending when [`ProcCtx::held_packets`] is 0, here and when its own data arrives)
    /// keeps the link busy while deciding each packet one packet-time ahead of its transmission.
    fn on_ready(&mut self, _ctx: &mut ProcCtx, _dir: DirId) {}

    /// Names of the time-series columns this processor adds (the world prefixes them with
    /// `proxy.<name>.`).
    fn columns(&self) -> Vec<String> {
        Vec::new()
    }

    /// Appends one value per column of [`Self::columns`] to a time-series row.
    fn sample(&mut self, _row: &mut Vec<f64>) {}

    /// Counters for `summary.json`.
    fn summary(&self) -> Value;
}

/// A processor as the world holds it.
pub struct ProcessorSlot {
    /// `<node>.<kind>`.
    pub name: String,
    pub kind: &'static str,
    pub node: NodeId,
    pub processor: Box<dyn PacketProcessor>,
}
