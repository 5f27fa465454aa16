//! The control deployment (Drago et al. §III: "a private network deployment, in which all the
//! equipment involved in the end-to-end flow is under the control of the private network
//! operator … the proxy can use custom control messages to interact with the TCP stack").
//!
//! The proxy sits on a node of the path and lets every packet pass untouched. It measures each
//! flow's minimum RTT from the packets crossing it ([`RttProbe`]) and sets the server's window
//! with a control message that takes `control_delay` to arrive. Messages in flight are a FIFO
//! with one timer event each; they arrive in the order they were sent, since the delay is fixed.

use super::processor::TOKEN_CONTROL;
use super::rtt_probe::RttProbe;
use crate::ids::FlowId;
use crate::net::{Packet, Side, TcpFlags};
use crate::proxy::{Control, ProcCtx};
use crate::sim::{Duration, SimTime};
use std::collections::VecDeque;

/// A window on its way to a flow's server.
#[derive(Clone, Copy, Debug)]
struct Message {
    arrives_at: SimTime,
    flow: FlowId,
    cwnd: u64,
}

pub struct ControlDeployment {
    /// Proxy → server control message delay.
    delay: Duration,
    /// One probe per flow, indexed by [`FlowId`].
    probes: Vec<RttProbe>,
    /// Whether a packet of the flow has crossed the node: the flows this proxy manages.
    seen: Vec<bool>,
    /// Messages in flight, oldest first; grows to the most in flight at once, then reused.
    in_flight: VecDeque<Message>,
    /// Control messages sent.
    pub sent: u64,
    /// Control messages that reached their server.
    pub applied: u64,
}

impl ControlDeployment {
    pub fn new(flows: usize, delay: Duration) -> Self {
        ControlDeployment {
            delay,
            probes: vec![RttProbe::default(); flows],
            seen: vec![false; flows],
            in_flight: VecDeque::new(),
            sent: 0,
            applied: 0,
        }
    }

    /// A packet of the flow crossed the node at `now`: the flow is managed from now on, and the
    /// packet times a segment or acknowledges some.
    pub fn observe(&mut self, now: SimTime, pkt: &Packet) {
        let f = pkt.flow.0 as usize;
        self.seen[f] = true;
        match pkt.to {
            Side::Receiver if pkt.is_data() => {
                self.probes[f].on_data(now, pkt.tcp.seq, u32::from(pkt.tcp.len))
            }
            Side::Sender if pkt.tcp.flags.contains(TcpFlags::ACK) => {
                self.probes[f].on_ack(now, pkt.tcp.ack);
            }
            _ => {}
        }
    }

    pub fn is_managed(&self, flow: usize) -> bool {
        self.seen[flow]
    }

    pub fn min_rtt(&self, flow: usize) -> Option<Duration> {
        self.probes[flow].min_rtt()
    }

    pub fn probe(&self, flow: usize) -> &RttProbe {
        &self.probes[flow]
    }

    /// Sends the window `cwnd` to the flow's server; it is applied `delay` later.
    pub fn send(&mut self, ctx: &mut ProcCtx, flow: FlowId, cwnd: u64) {
        let arrives_at = ctx.now + self.delay;
        self.in_flight.push_back(Message { arrives_at, flow, cwnd });
        self.sent += 1;
        ctx.arm(Some(arrives_at), TOKEN_CONTROL);
    }

    /// Applies every message that has arrived by now, in order.
    pub fn deliver(&mut self, ctx: &mut ProcCtx) {
        while let Some(m) = self.in_flight.front().copied().filter(|m| m.arrives_at <= ctx.now) {
            self.in_flight.pop_front();
            self.applied += 1;
            ctx.control(Control::PinCwnd { flow: m.flow, cwnd: Some(m.cwnd) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::processor::Deployment;
    use super::super::test_net::{proxy, Net, PROXY};
    use super::super::{BdpConfig, PolicyKind};
    use crate::ids::FlowId;
    use crate::proxy::{Control, PacketProcessor};
    use crate::sim::{Duration, SimTime};
    use crate::transport::cc::CcKind;
    use crate::transport::tcp::{Opener, TcpConfig};
    use crate::units::{Bytes, Time};

    fn at_us(us: u64) -> SimTime {
        SimTime::ZERO + Duration::from_micros(us)
    }

    fn tcp() -> TcpConfig {
        TcpConfig { cc: CcKind::NewReno, mss: Bytes(1000), ..TcpConfig::default() }
    }

    fn net(policy: PolicyKind, total: u64) -> Net {
        let cfg = BdpConfig {
            policy,
            report_delay: Time(Duration::from_millis(1)),
            control_delay: Some(Time(Duration::from_millis(2))),
            ..BdpConfig::default()
        };
        Net::new(proxy(&cfg, &tcp()), &tcp(), Opener::Sender, total)
    }

    fn pins(net: &Net) -> Vec<(SimTime, Option<u64>)> {
        net.controls
            .iter()
            .map(|&(t, c)| {
                let Control::PinCwnd { flow, cwnd } = c;
                assert_eq!(flow, FlowId(0));
                (t, cwnd)
            })
            .collect()
    }

    #[test]
    fn test_control_reports_are_applied_after_report_and_control_delay_in_order() {
        let mut net = net(PolicyKind::Reactive, 1 << 40);
        net.report(SimTime::ZERO, Some(12), 1_500_000_000);
        net.run_until(at_us(40_000));
        assert!(net.controls.is_empty(), "a rate but no RTT yet: no window");
        // The first data leave the server at 22 ms (after the handshake), cross the proxy at
        // 23 ms and are acknowledged there at 43 ms: T = 20 ms, the proxy–UE round trip. The
        // window goes out at once and lands 2 ms later.
        net.run_until(at_us(100_000));
        assert_eq!(pins(&net), vec![(at_us(45_000), Some(3_750_000))], "1.5 Gbit/s × 20 ms");
        // Two reports half a millisecond apart: each arrives 1 ms after its publication, each
        // window 2 ms after that, in order.
        net.report(at_us(200_000), Some(6), 500_000_000);
        net.report(at_us(200_500), Some(2), 250_000_000);
        net.run_until(at_us(203_400));
        assert_eq!(pins(&net).len(), 2, "the second report is still on its way");
        net.run_until(at_us(300_000));
        assert_eq!(pins(&net)[1..], [(at_us(203_000), Some(1_250_000)), (at_us(203_500), Some(625_000))]);
        assert_eq!(net.server.cwnd(), 625_000, "the server's window is the last one applied");
        let s = net.proxy.summary();
        assert_eq!(s["reports_received"], 3);
        assert_eq!(s["control_messages_sent"], 3);
        assert_eq!(s["control_messages_applied"], 3);
        assert_eq!(s["flows"][0]["min_rtt_ms"], 20.0);
        assert_eq!(s["flows"][0]["min_rtt_source"], "measured");
    }

    #[test]
    fn test_control_unchanged_window_sends_no_message_and_outage_stops_the_server() {
        let mut net = net(PolicyKind::Proactive, 1 << 40);
        net.report(SimTime::ZERO, Some(12), 1_500_000_000);
        net.run_until(at_us(100_000));
        net.report(at_us(150_000), Some(12), 1_500_000_000);
        net.run_until(at_us(190_000));
        assert_eq!(pins(&net).len(), 1, "same rate, same T: nothing to send");
        net.report(at_us(200_000), None, 0);
        net.run_until(at_us(250_000));
        assert_eq!(pins(&net).last(), Some(&(at_us(203_000), Some(0))), "outage: stop the server");
        let sent = net.server.stats.bytes_sent;
        net.run_until(at_us(400_000));
        assert_eq!(net.server.stats.bytes_sent, sent, "nothing new is sent while the window is 0");
        net.report(at_us(400_000), Some(12), 1_500_000_000);
        net.run_until(at_us(500_000));
        assert_eq!(
            pins(&net).last(),
            Some(&(at_us(403_000), Some(312_500))),
            "conservative: 125 Mbit/s × 20 ms"
        );
    }

    #[test]
    fn test_control_fixed_min_rtt_sets_the_window_when_the_flow_first_crosses() {
        let cfg = BdpConfig {
            report_delay: Time(Duration::ZERO),
            control_delay: Some(Time(Duration::from_millis(2))),
            min_rtt: Some(Time(Duration::from_millis(30))),
            ..BdpConfig::default()
        };
        let mut net = Net::new(proxy(&cfg, &tcp()), &tcp(), Opener::Sender, 1 << 40);
        net.report(SimTime::ZERO, Some(12), 1_500_000_000);
        net.run_until(at_us(100_000));
        // The report is applied at 0, before any packet; the SYN crosses at 1 ms.
        assert_eq!(pins(&net), vec![(at_us(3_000), Some(5_625_000))], "1.5 Gbit/s × 30 ms");
        assert_eq!(net.proxy.summary()["flows"][0]["min_rtt_source"], "configured");
    }

    #[test]
    fn test_control_probe_skips_retransmitted_segments_in_the_flow() {
        let mut net = net(PolicyKind::Reactive, 200_000);
        // The first copy of segment 20 is lost between proxy and UE: the proxy sees it twice.
        net.drop = Box::new(|from, p| {
            from == PROXY && p.tcp.seq == 20_000 && p.is_data() && p.sent_at == p.first_sent_at()
        });
        net.run_until(at_us(3_000_000));
        assert_eq!(net.ue.rcv_nxt(), 200_000);
        let Deployment::Control(c) = &net.proxy.deployment else { unreachable!() };
        let probe = c.probe(0);
        assert_eq!(probe.karn_skipped, 1, "the retransmitted segment gives no sample");
        assert!(probe.samples > 100);
        assert_eq!(probe.min_rtt(), Some(Duration::from_millis(20)));
    }
}
