//! A three-node network for the proxy's tests: server (node 0) — proxy (node 1) — UE (node 2),
//! one flow, fixed one-way delays, an optional rate on the proxy → UE hop, unbounded queues and
//! packets dropped by a rule. The server's application writes `total` bytes as fast as its send
//! buffer allows. Every packet the proxy sends toward the server is logged with the relay's
//! edge at that moment, and every control message with its time.

use super::processor::{BdpProxy, Deployment};
use super::split::SplitFlow;
use super::BdpConfig;
use crate::event::TcpTimer;
use crate::ids::DirId;
use crate::ids::{FlowId, NodeId, PacketId};
use crate::net::{Packet, PacketArena, Side};
use crate::proxy::env::{FlowInfo, ProcessorEnv, RadioLinkInfo};
use crate::proxy::{Control, Emit, PacketProcessor, ProcCtx, Verdict};
use crate::radio::report::LinkReport;
use crate::sim::rng::Rng;
use crate::sim::{Duration, SimTime};
use crate::transport::tcp::{Endpoint, Opener, TcpConfig, TcpCtx, TcpReceiver, TcpSender};
use std::collections::BTreeMap;

pub const SERVER: NodeId = NodeId(0);
pub const PROXY: NodeId = NodeId(1);
pub const UE: NodeId = NodeId(2);
/// The lowest MCS's rate of the test link (802.11ad SC MCS 1 at 500 MHz).
pub const LOWEST_RATE: u64 = 125_000_000;

/// The proxy `cfg` describes on node 1, for flow 0 from the server to the UE.
pub fn proxy(cfg: &BdpConfig, tcp: &TcpConfig) -> BdpProxy {
    let flows = [FlowInfo { id: FlowId(0), name: "flow0".into(), src: SERVER, dst: UE, tcp: tcp.clone() }];
    let links = [RadioLinkInfo { name: "ap-ue".into(), downlink: DirId(0), lowest_rate_bps: LOWEST_RATE }];
    let env = ProcessorEnv {
        file: "test",
        field: "p".into(),
        node: PROXY,
        flows: &flows,
        radio_links: &links,
        topology: Box::leak(Box::default()),
        shared: Box::leak(Box::default()),
        processor_kinds: &[],
        seed: 1,
    };
    BdpProxy::new(cfg, &env, &links[0])
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Arrive { node: NodeId, pkt: PacketId },
    Proxy(u32),
    Server(TcpTimer),
    Ue(TcpTimer),
    Report(LinkReport),
}

/// Decides whether a packet leaving a node is lost.
pub type DropRule = Box<dyn FnMut(NodeId, &Packet) -> bool>;

/// A packet the proxy sent to the server.
#[derive(Clone, Copy, Debug)]
pub struct ToServer {
    pub ack: u64,
    pub window: u64,
    /// The split relay's edge (written + free send buffer) when it was sent.
    pub relay_edge: Option<u64>,
}

pub struct Net {
    pub now: SimTime,
    events: BTreeMap<(SimTime, u64), Ev>,
    seq: u64,
    started: bool,
    pub packets: PacketArena,
    pub server: TcpSender,
    pub ue: TcpReceiver,
    pub proxy: BdpProxy,
    /// Bytes the server's application writes.
    pub total: u64,
    pub server_proxy_delay: Duration,
    pub proxy_ue_delay: Duration,
    /// Rate of the proxy → UE hop (None: no serialisation delay anywhere).
    pub proxy_ue_rate_bps: Option<u64>,
    proxy_ue_busy: SimTime,
    /// Drops a packet leaving `from` when true.
    pub drop: DropRule,
    pub controls: Vec<(SimTime, Control)>,
    pub to_server: Vec<ToServer>,
    /// (inner receiver's `rcv_nxt`, inner sender's bytes written) after every proxy call.
    pub relay_log: Vec<(u64, u64)>,
    emits: Vec<Emit>,
    proxy_timers: Vec<(SimTime, u32)>,
    proxy_controls: Vec<Control>,
    tcp_out: Vec<PacketId>,
    tcp_timers: Vec<(SimTime, TcpTimer)>,
}

impl Net {
    /// Flow 0 from the server to the UE, opened by `opener`.
    pub fn new(proxy: BdpProxy, tcp: &TcpConfig, opener: Opener, total: u64) -> Net {
        let flow = FlowId(0);
        Net {
            now: SimTime::ZERO,
            events: BTreeMap::new(),
            seq: 0,
            started: false,
            packets: PacketArena::with_capacity(256),
            server: TcpSender::new(
                Endpoint { flow, local: SERVER, remote: UE },
                opener,
                tcp,
                Rng::for_component(1, "server/cc"),
            ),
            ue: TcpReceiver::new(Endpoint { flow, local: UE, remote: SERVER }, opener, tcp),
            proxy,
            total,
            server_proxy_delay: Duration::from_millis(1),
            proxy_ue_delay: Duration::from_millis(10),
            proxy_ue_rate_bps: None,
            proxy_ue_busy: SimTime::ZERO,
            drop: Box::new(|_, _| false),
            controls: Vec::new(),
            to_server: Vec::new(),
            relay_log: Vec::new(),
            emits: Vec::new(),
            proxy_timers: Vec::new(),
            proxy_controls: Vec::new(),
            tcp_out: Vec::new(),
            tcp_timers: Vec::new(),
        }
    }

    /// The split proxy's inner endpoints of flow 0.
    pub fn split(&self) -> Option<&SplitFlow> {
        match &self.proxy.deployment {
            Deployment::Split(s) => s.flow(0),
            Deployment::Control(_) => None,
        }
    }

    fn schedule(&mut self, at: SimTime, ev: Ev) {
        self.seq += 1;
        self.events.insert((at, self.seq), ev);
    }

    /// The radio publishes a report at `at` (the proxy receives it then).
    pub fn report(&mut self, at: SimTime, mcs: Option<u8>, rate_bps: u64) {
        let report = LinkReport { time: at, dir: DirId(0), sinr_db: 0.0, mcs, rate_bps, buffer_bytes: 0 };
        self.schedule(at, Ev::Report(report));
    }

    /// Opens the flow and runs until `until` or until nothing is left to do.
    pub fn run_until(&mut self, until: SimTime) {
        if !self.started {
            self.started = true;
            self.with_server(|tx, tcx| tx.open(tcx));
            self.with_ue(|rx, tcx| rx.open(tcx));
        }
        while let Some(entry) = self.events.first_entry() {
            if entry.key().0 > until {
                break;
            }
            let ((at, _), ev) = entry.remove_entry();
            self.now = at;
            match ev {
                Ev::Arrive { node, pkt } => self.arrive(node, pkt),
                Ev::Proxy(token) => self.with_proxy(|p, ctx| {
                    p.on_timer(ctx, token);
                    None
                }),
                Ev::Server(timer) => self.with_server(|tx, tcx| tx.on_timer(tcx, timer)),
                Ev::Ue(timer) => self.with_ue(|rx, tcx| rx.on_timer(tcx, timer)),
                Ev::Report(r) => self.with_proxy(|p, ctx| {
                    p.on_report(ctx, &r);
                    None
                }),
            }
        }
        self.now = until.max(self.now);
    }

    fn arrive(&mut self, node: NodeId, id: PacketId) {
        let pkt = *self.packets.get(id);
        match node {
            PROXY => self.with_proxy(|p, ctx| Some((p.on_packet(ctx, id), id))),
            SERVER => {
                assert_eq!(pkt.to, Side::Sender, "data reached the server");
                let options = *self.packets.options(id);
                self.packets.free(id);
                self.with_server(|tx, tcx| tx.on_packet(tcx, &pkt, &options));
            }
            _ => {
                assert_eq!(pkt.to, Side::Receiver, "an ACK reached the UE");
                self.packets.free(id);
                self.with_ue(|rx, tcx| rx.on_packet(tcx, &pkt));
            }
        }
    }

    /// Sends `id` from `from` toward the next hop on the line server — proxy — UE.
    fn transmit(&mut self, from: NodeId, id: PacketId) {
        let pkt = *self.packets.get(id);
        if (self.drop)(from, &pkt) {
            self.packets.free(id);
            return;
        }
        let to = if from == PROXY { pkt.dst } else { PROXY };
        let arrive = if from == SERVER || to == SERVER {
            self.now + self.server_proxy_delay
        } else if let (PROXY, Some(rate)) = (from, self.proxy_ue_rate_bps) {
            let start = self.now.max(self.proxy_ue_busy);
            self.proxy_ue_busy = start + Duration::transmission(pkt.size as u64 * 8, rate);
            self.proxy_ue_busy + self.proxy_ue_delay
        } else {
            self.now + self.proxy_ue_delay
        };
        self.schedule(arrive, Ev::Arrive { node: to, pkt: id });
    }

    /// Calls the proxy; a packet it passes goes on, its output is sent, its timers armed and its
    /// control messages applied to the server at once.
    fn with_proxy(&mut self, call: impl FnOnce(&mut BdpProxy, &mut ProcCtx) -> Option<(Verdict, PacketId)>) {
        let mut ctx = ProcCtx {
            now: self.now,
            node: PROXY,
            arrived_on: None,
            packets: &mut self.packets,
            dirs: &[],
            interfaces: &[],
            out: &mut self.emits,
            timers: &mut self.proxy_timers,
            controls: &mut self.proxy_controls,
        };
        if let Some((Verdict::Pass, id)) = call(&mut self.proxy, &mut ctx) {
            self.transmit(PROXY, id);
        }
        let edge = self.split().map(|s| s.relay_edge());
        if let Some(s) = self.split() {
            self.relay_log.push((s.rx.rcv_nxt(), s.tx.app_written()));
        }
        let emits: Vec<Emit> = self.emits.drain(..).collect();
        for e in emits {
            let p = self.packets.get(e.pkt);
            if p.dst == SERVER {
                self.to_server.push(ToServer {
                    ack: p.tcp.ack,
                    window: u64::from(p.tcp.window),
                    relay_edge: edge,
                });
            }
            self.transmit(PROXY, e.pkt);
        }
        let timers: Vec<(SimTime, u32)> = self.proxy_timers.drain(..).collect();
        for (at, token) in timers {
            self.schedule(at, Ev::Proxy(token));
        }
        let controls: Vec<Control> = self.proxy_controls.drain(..).collect();
        for c in controls {
            self.controls.push((self.now, c));
            let Control::PinCwnd { cwnd, .. } = c;
            self.with_server(|tx, tcx| tx.pin_cwnd(tcx, cwnd));
        }
    }

    fn with_server(&mut self, call: impl FnOnce(&mut TcpSender, &mut TcpCtx)) {
        let mut tcx = TcpCtx {
            now: self.now,
            packets: &mut self.packets,
            out: &mut self.tcp_out,
            timers: &mut self.tcp_timers,
        };
        call(&mut self.server, &mut tcx);
        let more = (self.total - self.server.app_written()).min(self.server.buffer_space());
        if more > 0 {
            self.server.write(&mut tcx, more);
        }
        self.flush(SERVER);
    }

    fn with_ue(&mut self, call: impl FnOnce(&mut TcpReceiver, &mut TcpCtx)) {
        let mut tcx = TcpCtx {
            now: self.now,
            packets: &mut self.packets,
            out: &mut self.tcp_out,
            timers: &mut self.tcp_timers,
        };
        call(&mut self.ue, &mut tcx);
        self.flush(UE);
    }

    fn flush(&mut self, from: NodeId) {
        let out: Vec<PacketId> = self.tcp_out.drain(..).collect();
        for id in out {
            self.transmit(from, id);
        }
        let timers: Vec<(SimTime, TcpTimer)> = self.tcp_timers.drain(..).collect();
        for (at, timer) in timers {
            let ev = if from == SERVER { Ev::Server(timer) } else { Ev::Ue(timer) };
            self.schedule(at, ev);
        }
    }
}
