//! The split deployment (Drago et al. §III: "the traditional split configuration, in which the
//! end-to-end connection is divided into two separate flows and the proxy optimizes the
//! performance in the network portion towards the mobile device"; milliProxy, ref. [33]).
//!
//! Per flow the proxy runs two TCP endpoints on its own node, built from the flow's TCP
//! configuration:
//!
//! ```text
//!   server ──data──► [inner receiver] ─ relay ─► [inner sender] ──data──► UE
//!   server ◄──ACK─── [inner receiver]            [inner sender] ◄──ACK─── UE
//! ```
//!
//! - The connection is split at its SYN, whichever end sends it: a server's SYN (bulk flow) is
//!   answered by the inner receiver while the inner sender opens its own connection to the UE;
//!   a UE's SYN (download) is answered by the inner sender while the inner receiver opens toward
//!   the server. A flow whose first packet at the proxy is not a SYN passes untouched.
//! - Server data is consumed by the inner receiver; the bytes it delivers in order are written
//!   into the inner sender at once (the relay). Byte `k` of the server's stream is byte `k` of the
//!   inner sender's, so every byte is relayed exactly once and in order.
//! - Backpressure: the relay can take no more than the inner sender's free send buffer, so the
//!   inner receiver reads only below `written + free` ([`TcpReceiver::set_read_limit`]): its
//!   window never reaches beyond what the relay can take, and it announces the window with an
//!   update when the UE's ACKs free the buffer.
//! - The policy pins the inner sender's window directly (no control delay), with T from the
//!   inner sender's minimum RTT, the proxy–UE round trip.
//!
//! Simplifications: the inner endpoints sit on the proxy's node and use its routes; the server
//! sees the proxy's ACKs (its RTT is the server–proxy round trip); no teardown, like every flow
//! of the simulator.

use super::processor::TOKEN_SPLIT_BASE;
use crate::event::TcpTimer;
use crate::ids::{FlowId, NodeId, PacketId};
use crate::net::{Side, TcpFlags};
use crate::proxy::env::ProcessorEnv;
use crate::proxy::{ProcCtx, Verdict};
use crate::sim::rng::Rng;
use crate::sim::{Duration, SimTime};
use crate::transport::tcp::{Endpoint, Opener, TcpConfig, TcpCtx, TcpReceiver, TcpSender};

/// Tokens per flow: the inner sender's RTO, the inner receiver's delayed ACK and SYN timers.
const TOKENS_PER_FLOW: u32 = 4;

/// The two halves of one split flow.
pub struct SplitFlow {
    /// Faces the server.
    pub rx: TcpReceiver,
    /// Faces the UE.
    pub tx: TcpSender,
    /// Who opened the connection.
    pub opener: Opener,
}

impl SplitFlow {
    /// The sequence number below which the relay can take bytes: written plus free buffer.
    pub fn relay_edge(&self) -> u64 {
        self.tx.app_written() + self.tx.buffer_space()
    }

    /// Bytes the relay holds: written to the inner sender and not yet acknowledged by the UE.
    pub fn relay_bytes(&self) -> u64 {
        self.tx.app_written() - self.tx.snd_una()
    }

    /// Relays what the inner receiver has delivered and lets it read up to the relay's edge.
    fn settle(&mut self, tcx: &mut TcpCtx) {
        let delivered = self.rx.rcv_nxt();
        let written = self.tx.app_written();
        if delivered > written {
            self.tx.write(tcx, delivered - written);
        }
        let edge = self.relay_edge();
        self.rx.set_read_limit(tcx, edge);
    }
}

struct FlowEnds {
    server: NodeId,
    ue: NodeId,
    tcp: TcpConfig,
    /// The random stream of the inner sender's congestion control.
    cc_rng: Rng,
}

pub struct SplitDeployment {
    node: NodeId,
    ends: Vec<FlowEnds>,
    /// Indexed by [`FlowId`]; `None` until the flow's SYN crosses the node.
    flows: Vec<Option<SplitFlow>>,
    /// The inner endpoints' output and timer requests, reused.
    out: Vec<PacketId>,
    timers: Vec<(SimTime, TcpTimer)>,
}

impl SplitDeployment {
    pub fn new(env: &ProcessorEnv) -> Self {
        let ends = env.flows.iter().map(|f| FlowEnds {
            server: f.src,
            ue: f.dst,
            tcp: f.tcp.clone(),
            cc_rng: Rng::for_component(env.seed, &format!("{}/flow/{}/cc", env.field, f.name)),
        });
        SplitDeployment {
            node: env.node,
            ends: ends.collect(),
            flows: env.flows.iter().map(|_| None).collect(),
            out: Vec::new(),
            timers: Vec::new(),
        }
    }

    pub fn flow(&self, flow: usize) -> Option<&SplitFlow> {
        self.flows[flow].as_ref()
    }

    pub fn is_managed(&self, flow: usize) -> bool {
        self.flows[flow].is_some()
    }

    pub fn min_rtt(&self, flow: usize) -> Option<Duration> {
        self.flows[flow].as_ref()?.tx.min_rtt()
    }

    /// A packet of the flow reached the proxy: the inner endpoint it is addressed to takes it.
    pub fn on_packet(&mut self, ctx: &mut ProcCtx, id: PacketId) -> Verdict {
        let pkt = *ctx.packets.get(id);
        let options = *ctx.packets.options(id);
        let f = pkt.flow.0 as usize;
        if self.flows[f].is_none() {
            let syn = pkt.tcp.flags.contains(TcpFlags::SYN) && !pkt.tcp.flags.contains(TcpFlags::ACK);
            if !syn {
                return Verdict::Pass;
            }
            // A SYN toward the UE: the server opens (bulk); toward the server: the UE opens.
            let opener = if pkt.to == Side::Receiver { Opener::Sender } else { Opener::Receiver };
            self.open(ctx, f, opener);
        }
        self.drive(ctx, f, |flow, tcx| match pkt.to {
            Side::Receiver => flow.rx.on_packet(tcx, &pkt),
            Side::Sender => flow.tx.on_packet(tcx, &pkt, &options),
        });
        ctx.packets.free(id);
        Verdict::Consumed
    }

    fn open(&mut self, ctx: &mut ProcCtx, f: usize, opener: Opener) {
        let ends = &self.ends[f];
        let flow = FlowId(f as u32);
        let toward_server = Endpoint { flow, local: self.node, remote: ends.server };
        let toward_ue = Endpoint { flow, local: self.node, remote: ends.ue };
        self.flows[f] = Some(SplitFlow {
            rx: TcpReceiver::new(toward_server, opener, &ends.tcp),
            tx: TcpSender::new(toward_ue, opener, &ends.tcp, ends.cc_rng.clone()),
            opener,
        });
        // The read limit holds from the first segment on (a UE-opened flow's SYN toward the
        // server carries a window too); then only the active end of each half acts.
        self.drive(ctx, f, |flow, tcx| {
            let edge = flow.relay_edge();
            flow.rx.set_read_limit(tcx, edge);
            flow.tx.open(tcx);
            flow.rx.open(tcx);
        });
    }

    /// A timer token at or above [`TOKEN_SPLIT_BASE`] fired.
    pub fn on_timer(&mut self, ctx: &mut ProcCtx, token: u32) {
        let index = token - TOKEN_SPLIT_BASE;
        let f = (index / TOKENS_PER_FLOW) as usize;
        self.drive(ctx, f, |flow, tcx| match index % TOKENS_PER_FLOW {
            0 => flow.tx.on_timer(tcx, TcpTimer::SenderRto),
            1 => flow.rx.on_timer(tcx, TcpTimer::ReceiverDelayedAck),
            2 => flow.rx.on_timer(tcx, TcpTimer::ReceiverSyn),
            _ => flow.tx.on_timer(tcx, TcpTimer::SenderPacing),
        });
    }

    /// Pins the inner sender's window (Drago et al. §III-A: the proxy "only modifies the value of
    /// the congestion window"; loss recovery stays with the sender).
    pub fn pin(&mut self, ctx: &mut ProcCtx, f: usize, cwnd: u64) {
        self.drive(ctx, f, |flow, tcx| flow.tx.pin_cwnd(tcx, Some(cwnd)));
    }

    /// Runs `act` on the flow's inner endpoints, relays, then sends their packets from the
    /// proxy's node and arms their timers under this deployment's tokens.
    fn drive(&mut self, ctx: &mut ProcCtx, f: usize, act: impl FnOnce(&mut SplitFlow, &mut TcpCtx)) {
        let Some(flow) = self.flows[f].as_mut() else { return };
        let mut tcx =
            TcpCtx { now: ctx.now, packets: ctx.packets, out: &mut self.out, timers: &mut self.timers };
        act(flow, &mut tcx);
        flow.settle(&mut tcx);
        for id in self.out.drain(..) {
            ctx.send(id);
        }
        let base = TOKEN_SPLIT_BASE + f as u32 * TOKENS_PER_FLOW;
        for (at, timer) in self.timers.drain(..) {
            let kind = match timer {
                TcpTimer::SenderRto => 0,
                TcpTimer::ReceiverDelayedAck => 1,
                TcpTimer::ReceiverSyn => 2,
                TcpTimer::SenderPacing => 3,
            };
            ctx.arm(Some(at), base + kind);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::policy::Target;
    use super::super::test_net::{proxy, Net, PROXY, SERVER};
    use super::super::{BdpConfig, DeploymentKind};
    use crate::proxy::PacketProcessor;
    use crate::sim::{Duration, SimTime};
    use crate::transport::cc::CcKind;
    use crate::transport::tcp::{Opener, ReceiveBuffer, TcpConfig};
    use crate::units::{Bytes, Time};

    const MSS: u64 = 1000;

    fn at_ms(ms: u64) -> SimTime {
        SimTime::ZERO + Duration::from_millis(ms)
    }

    /// A relay of 20 segments in front of a 20 Mbit/s proxy → UE hop: the server (1 ms away,
    /// no rate limit) can fill it far faster than the UE drains it.
    fn tcp() -> TcpConfig {
        TcpConfig {
            cc: CcKind::NewReno,
            mss: Bytes(MSS),
            send_buffer: Bytes(20 * MSS),
            receive_buffer: ReceiveBuffer::Fixed(Bytes(1_000_000)),
            ..TcpConfig::default()
        }
    }

    fn net(opener: Opener, total: u64) -> Net {
        let cfg = BdpConfig { deployment: DeploymentKind::Split, ..BdpConfig::default() };
        let mut net = Net::new(proxy(&cfg, &tcp()), &tcp(), opener, total);
        net.proxy_ue_rate_bps = Some(20_000_000);
        net
    }

    /// Checks that every byte was relayed once, in order, and never beyond the relay's space.
    fn check_relay(net: &Net, total: u64) {
        let inner = net.split().unwrap();
        assert_eq!(net.ue.rcv_nxt(), total, "the UE has every byte");
        assert_eq!(net.ue.stats.bytes_delivered, total);
        assert_eq!(net.server.snd_una(), total, "the proxy acknowledged every byte");
        assert_eq!((inner.rx.rcv_nxt(), inner.tx.app_written()), (total, total), "relayed exactly once");
        assert!(
            net.relay_log.iter().all(|&(delivered, written)| delivered == written),
            "each byte delivered in order is written at once, and only once"
        );
        assert!(net.relay_log.windows(2).all(|w| w[0].1 <= w[1].1));
        assert_eq!(inner.rx.stats.buffer_drops, 0, "no byte reached the proxy beyond the relay's space");
        for m in &net.to_server {
            let edge = m.relay_edge.unwrap();
            assert!(
                m.ack + m.window <= edge,
                "advertised up to {} beyond the relay edge {edge}",
                m.ack + m.window
            );
        }
    }

    #[test]
    fn test_split_relays_every_byte_once_in_order_within_the_relay_space() {
        let total = 1_000_000;
        let mut net = net(Opener::Sender, total);
        // Losses on both halves: two server segments before the proxy (the inner receiver holds
        // data out of order) and every 97th segment toward the UE (the inner sender repairs).
        net.drop = Box::new(|from, p| {
            let first = p.is_data() && p.sent_at == p.first_sent_at();
            first
                && ((from == SERVER && (p.tcp.seq == 100 * MSS || p.tcp.seq == 101 * MSS))
                    || (from == PROXY && p.tcp.seq % (97 * MSS) == 0))
        });
        net.report(SimTime::ZERO, Some(12), 16_000_000);
        net.run_until(at_ms(5_000));
        check_relay(&net, total);
        let inner = net.split().unwrap();
        assert!(inner.tx.stats.retransmitted_segments >= 10, "the inner sender repaired the UE side");
        assert!(net.server.stats.retransmitted_segments >= 2, "the server repaired its own side");
        // The relay's space, not the receive buffer, limited the server most of the time.
        let limited = net.to_server.iter().filter(|m| m.window < 20 * MSS).count();
        assert!(limited * 2 > net.to_server.len(), "{limited} of {}", net.to_server.len());
        assert!(inner.rx.stats.window_updates > 0, "a closed window was reopened by an update");
        let s = net.proxy.summary();
        assert_eq!(s["flows"][0]["opened_by"], "server");
        assert_eq!(s["flows"][0]["relayed_bytes"], total);
    }

    #[test]
    fn test_split_download_opened_by_the_ue_is_relayed_too() {
        let total = 300_000;
        let mut net = net(Opener::Receiver, total);
        net.run_until(at_ms(5_000));
        check_relay(&net, total);
        assert_eq!(net.split().unwrap().opener, Opener::Receiver);
    }

    #[test]
    fn test_split_pins_the_inner_senders_window_to_rate_times_its_min_rtt() {
        let mut net = net(Opener::Sender, 1 << 40);
        net.run_until(at_ms(100));
        let unpinned = net.split().unwrap().tx.cwnd();
        assert!(net.proxy.flows[0].window.is_none(), "no report yet: the inner sender's own window");
        net.report(at_ms(100), Some(12), 40_000_000);
        net.run_until(at_ms(100) + Duration::from_micros(999));
        assert_eq!(net.split().unwrap().tx.cwnd(), unpinned, "the report is still on its way");
        net.run_until(at_ms(101));
        let inner = net.split().unwrap();
        let t = inner.tx.min_rtt().unwrap();
        assert!(t > Duration::from_millis(20) && t < Duration::from_millis(21), "proxy–UE round trip {t:?}");
        let expected = Target::Rate(40_000_000).window(t, MSS);
        assert_eq!(expected, 40_000_000 * t.as_picos() / 8 / 1_000_000_000_000);
        assert_eq!(inner.tx.cwnd(), expected, "R·T with T from the inner sender");
        assert_eq!(net.proxy.flows[0].window, Some(expected));
        net.report(at_ms(300), Some(3), 10_000_000);
        net.run_until(at_ms(400));
        let inner = net.split().unwrap();
        let expected = Target::Rate(10_000_000).window(inner.tx.min_rtt().unwrap(), MSS);
        assert_eq!(inner.tx.cwnd(), expected);
        assert_ne!(net.server.cwnd(), expected, "the server's own window is not touched");
        let mut row = Vec::new();
        net.proxy.sample(&mut row);
        let columns = net.proxy.columns();
        let at = |name: &str| row[columns.iter().position(|c| c == name).unwrap()];
        assert_eq!(at("flow0.inner_cwnd_bytes"), expected as f64);
        assert_eq!(at("flow0.window_bytes"), expected as f64);
        assert_eq!(at("rate_bps"), 10_000_000.0);
    }

    #[test]
    fn test_split_fixed_min_rtt_overrides_the_measured_one() {
        let cfg = BdpConfig {
            deployment: DeploymentKind::Split,
            min_rtt: Some(Time(Duration::from_millis(50))),
            ..BdpConfig::default()
        };
        let mut net = Net::new(proxy(&cfg, &tcp()), &tcp(), Opener::Sender, 1 << 40);
        net.report(SimTime::ZERO, Some(12), 40_000_000);
        net.run_until(at_ms(200));
        assert_eq!(net.split().unwrap().tx.cwnd(), 250_000, "40 Mbit/s × 50 ms");
    }
}
