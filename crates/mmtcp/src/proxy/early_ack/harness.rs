//! A hand-driven [`ProcCtx`] for the processors' unit tests: server node 0, proxy node 1,
//! mobile node 2, one flow with a 1000-byte MSS.

use super::{CacheParams, Hold, DEFAULT_INITIAL_RTO, DEFAULT_MAX_RTO, DEFAULT_MIN_RTO};
use crate::event::Event;
use crate::ids::{DirId, FlowId, NodeId, PacketId};
use crate::net::link::{Direction, Impairments};
use crate::net::{Packet, PacketArena, SackBlocks, SeqRange, Side, TcpFlags, TcpHeader, TcpOptions};
use crate::proxy::env::{FlowInfo, ProcessorEnv, RadioLinkInfo};
use crate::proxy::{Control, Emit, PacketProcessor, ProcCtx, Verdict};
use crate::sim::{Duration, EventQueue, Rng, SimTime};
use crate::topology::any_direction::AnyDirection;
use crate::transport::tcp::TcpConfig;
use crate::units::{BufferLimit, Bytes};

pub const SERVER: NodeId = NodeId(0);
pub const PROXY: NodeId = NodeId(1);
pub const MOBILE: NodeId = NodeId(2);
pub const MSS: u64 = 1000;

pub fn flows() -> Vec<FlowInfo> {
    let tcp = TcpConfig { mss: Bytes(MSS), ..TcpConfig::default() };
    vec![FlowInfo { id: FlowId(0), name: "flow0".into(), src: SERVER, dst: MOBILE, tcp }]
}

/// [`flows`] with SACK off (kim2017's TCP): an ACK without SACK blocks can be a duplicate.
pub fn flows_without_sack() -> Vec<FlowInfo> {
    let mut flows = flows();
    flows[0].tcp.sack = false;
    flows
}

pub fn radio_links() -> Vec<RadioLinkInfo> {
    vec![RadioLinkInfo { name: "radio".into(), downlink: DirId(0), lowest_rate_bps: 1_000_000 }]
}

pub fn env<'a>(flows: &'a [FlowInfo], links: &'a [RadioLinkInfo]) -> ProcessorEnv<'a> {
    ProcessorEnv {
        file: "test.toml",
        field: "node[1].processors[0]".into(),
        node: PROXY,
        flows,
        radio_links: links,
        topology: Box::leak(Box::default()),
        shared: Box::leak(Box::default()),
        processor_kinds: &[],
        seed: 1,
    }
}

/// Cache parameters with defaults but the given cache size.
pub fn params(cache: u64) -> CacheParams {
    CacheParams {
        cache,
        window_update: 2 * MSS,
        dupthresh: 1,
        min_rto: DEFAULT_MIN_RTO.0,
        initial_rto: DEFAULT_INITIAL_RTO.0,
        max_rto: DEFAULT_MAX_RTO.0,
        hold: Hold::default(),
        partial_ack_rlc: None,
    }
}

/// A wired direction at rate 0 standing for the downlink's RLC: what it queues, it holds.
fn downlink() -> AnyDirection {
    AnyDirection::Wired(Direction::new(
        DirId(0),
        PROXY,
        MOBILE,
        0,
        Duration::from_millis(1),
        BufferLimit::Packets(1000),
        Impairments::default(),
        Rng::for_component(1, "test"),
    ))
}

pub struct Harness {
    pub packets: PacketArena,
    pub out: Vec<Emit>,
    pub timers: Vec<(SimTime, u32)>,
    pub controls: Vec<Control>,
    pub dirs: Vec<AnyDirection>,
    pub now: SimTime,
}

impl Harness {
    pub fn new() -> Harness {
        Harness {
            packets: PacketArena::with_capacity(64),
            out: Vec::new(),
            timers: Vec::new(),
            controls: Vec::new(),
            dirs: vec![downlink()],
            now: SimTime::ZERO,
        }
    }

    pub fn with_ctx<R>(&mut self, f: impl FnOnce(&mut ProcCtx) -> R) -> R {
        let mut ctx = ProcCtx {
            now: self.now,
            node: PROXY,
            arrived_on: None,
            packets: &mut self.packets,
            dirs: &self.dirs,
            interfaces: &[],
            out: &mut self.out,
            timers: &mut self.timers,
            controls: &mut self.controls,
        };
        f(&mut ctx)
    }

    fn alloc(&mut self, src: NodeId, dst: NodeId, to: Side, tcp: TcpHeader) -> PacketId {
        self.packets.alloc(Packet::new(FlowId(0), (src, dst), to, tcp, (self.now, self.now)))
    }

    /// The server's data segment `k` (bytes k·MSS .. (k+1)·MSS).
    pub fn data(&mut self, k: u64) -> PacketId {
        let tcp = TcpHeader { seq: k * MSS, len: MSS as u16, flags: TcpFlags::ACK, ..Default::default() };
        self.alloc(SERVER, MOBILE, Side::Receiver, tcp)
    }

    /// The mobile's ACK of `ack` bytes with SACK blocks `sack` (byte ranges).
    pub fn ack(&mut self, ack: u64, sack: &[(u64, u64)]) -> PacketId {
        let mut blocks = SackBlocks::default();
        for &(s, e) in sack {
            blocks.push(SeqRange::new(s, e));
        }
        let tcp = TcpHeader { ack, window: 6 << 20, flags: TcpFlags::ACK, ..Default::default() };
        let packet = Packet::new(FlowId(0), (MOBILE, SERVER), Side::Sender, tcp, (self.now, self.now));
        self.packets.alloc_with(packet, &TcpOptions { sack: blocks, dss: None })
    }

    /// The mobile's ACK of `ack` bytes advertising `window`.
    pub fn ack_with_window(&mut self, ack: u64, window: u64) -> PacketId {
        let tcp = TcpHeader { ack, window: window as u32, flags: TcpFlags::ACK, ..Default::default() };
        self.alloc(MOBILE, SERVER, Side::Sender, tcp)
    }

    /// A handshake packet with `flags` and `window` addressed to side `to`.
    pub fn handshake(&mut self, to: Side, flags: TcpFlags, window: u64) -> PacketId {
        let (src, dst) = if to == Side::Sender { (MOBILE, SERVER) } else { (SERVER, MOBILE) };
        self.alloc(src, dst, to, TcpHeader { window: window as u32, flags, ..Default::default() })
    }

    pub fn packet(&mut self, p: &mut dyn PacketProcessor, id: PacketId) -> Verdict {
        self.with_ctx(|ctx| p.on_packet(ctx, id))
    }

    /// Fires timer `token` at `at`.
    pub fn fire(&mut self, p: &mut dyn PacketProcessor, at: SimTime, token: u32) {
        self.now = at;
        self.with_ctx(|ctx| p.on_timer(ctx, token));
    }

    /// The latest deadline scheduled so far (the timer's pending event).
    pub fn last_timer(&self) -> SimTime {
        self.timers.last().expect("a timer was armed").0
    }

    /// Emitted packets with their priority flag, freed from the arena.
    pub fn take(&mut self) -> Vec<(Packet, bool)> {
        self.take_with_sack().into_iter().map(|(p, _, first)| (p, first)).collect()
    }

    /// Emitted packets with their SACK blocks and priority flag, freed from the arena.
    pub fn take_with_sack(&mut self) -> Vec<(Packet, SackBlocks, bool)> {
        let out: Vec<Emit> = self.out.drain(..).collect();
        out.into_iter()
            .map(|e| {
                let (p, sack) = (*self.packets.get(e.pkt), self.packets.options(e.pkt).sack);
                self.packets.free(e.pkt);
                (p, sack, e.first)
            })
            .collect()
    }

    /// Makes the downlink an empty buffer of `bytes` (what a [`Hold`] on it sees as room).
    pub fn set_downlink_room(&mut self, bytes: u64) {
        self.dirs[0] = AnyDirection::Wired(Direction::new(
            DirId(0),
            PROXY,
            MOBILE,
            0,
            Duration::from_millis(1),
            BufferLimit::Bytes(bytes),
            Impairments::default(),
            Rng::for_component(1, "test"),
        ));
    }

    /// Makes the downlink hold one packet (`true`) or nothing (`false`).
    pub fn set_rlc_holding(&mut self, holding: bool) {
        self.dirs[0] = downlink();
        if holding {
            let id = self.packets.alloc(Packet::for_test(100));
            let mut q: EventQueue<Event> = EventQueue::new();
            assert!(self.dirs[0].admit(&mut q, self.now, id, 100).is_ok());
        }
    }
}

/// Emitted packets addressed to the server (ACKs) / the mobile (retransmissions).
pub fn to_server(out: &[(Packet, bool)]) -> Vec<Packet> {
    out.iter().filter(|(p, _)| p.dst == SERVER).map(|(p, _)| *p).collect()
}

/// Emitted ACKs to the server with their SACK blocks.
pub fn to_server_with_sack(out: &[(Packet, SackBlocks, bool)]) -> Vec<(Packet, SackBlocks)> {
    out.iter().filter(|(p, _, _)| p.dst == SERVER).map(|&(p, sack, _)| (p, sack)).collect()
}

pub fn to_mobile(out: &[(Packet, bool)]) -> Vec<(Packet, bool)> {
    out.iter().filter(|(p, _)| p.dst == MOBILE).copied().collect()
}
