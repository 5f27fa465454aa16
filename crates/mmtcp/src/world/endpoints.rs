//! The flows' TCP endpoints and applications: delivering packets to them, their timers, the
//! application's writes, and sending what they emit along the flow's routes.

use super::World;
use crate::event::{Event, TcpTimer};
use crate::ids::{FlowId, PacketId};
use crate::net::Side;
use crate::sim::SimTime;
use crate::transport::tcp::TcpCtx;

impl World {
    /// Hands a packet addressed to this node to its flow's receiver (data) or sender (ACKs).
    pub(super) fn deliver_local(&mut self, now: SimTime, pkt: PacketId) {
        let packet = *self.packets.get(pkt);
        let f = packet.flow.0 as usize;
        if let Some(of) = self.flows[f].subflow_of {
            return self.deliver_subflow(now, pkt, of);
        }
        match packet.to {
            Side::Receiver => {
                self.packets.free(pkt);
                let flow = &mut self.flows[f];
                if flow.receiver.estimates_rtt() {
                    // Autotuning's RTT with timestamps (transport::tcp::autotune).
                    flow.receiver.note_sender_rtt(flow.sender.srtt());
                }
                let mut ctx =
                    TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
                flow.receiver.on_packet(&mut ctx, &packet);
                if flow.completed_at.is_none()
                    && flow.total.is_some_and(|t| flow.receiver.stats.bytes_delivered >= t)
                {
                    flow.completed_at = Some(now);
                }
            }
            Side::Sender => {
                // The options outlive the packet (SACK blocks, MP-TCP).
                let options = self.packets.copy_options(pkt);
                self.packets.free(pkt);
                let flow = &mut self.flows[f];
                let mut ctx =
                    TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
                flow.sender.on_packet(&mut ctx, &packet, &options);
                let wrote = self.app_write(now, f);
                self.flush(now, f);
                return self.relay_wrote(now, f, wrote);
            }
        }
        self.flush(now, f);
        if let Some(r) = self.flows[f].read_by {
            self.relay_read(now, r as usize);
        }
    }

    /// Sends what flow `f`'s endpoints emitted, each packet from the start of its side's route,
    /// and schedules the timers they armed.
    pub(super) fn flush(&mut self, now: SimTime, f: usize) {
        for (at, timer) in self.timers.drain(..) {
            self.queue.schedule(at, Event::Tcp { flow: f as u32, timer });
        }
        let mut out = std::mem::take(&mut self.out);
        for pkt in out.drain(..) {
            let p = self.packets.get_mut(pkt);
            debug_assert_eq!(p.flow.0 as usize, f, "flushed with its own flow");
            p.route = self.flows[f].route(p.to);
            p.hop = 0;
            let src = p.src;
            self.forward(now, src, pkt);
        }
        self.out = out;
    }

    pub(super) fn tcp_timer(&mut self, now: SimTime, f: usize, timer: TcpTimer) {
        if let Some(of) = self.flows[f].subflow_of {
            return self.subflow_timer(now, f, of, timer);
        }
        let flow = &mut self.flows[f];
        let mut ctx =
            TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
        match timer {
            TcpTimer::SenderRto | TcpTimer::SenderPacing => flow.sender.on_timer(&mut ctx, timer),
            TcpTimer::ReceiverDelayedAck | TcpTimer::ReceiverSyn => flow.receiver.on_timer(&mut ctx, timer),
        }
        self.flush(now, f);
    }

    pub(super) fn app_wake(&mut self, now: SimTime, f: usize) {
        let flow = &mut self.flows[f];
        if flow.app_wake != Some(now) {
            return; // superseded by an earlier wake-up
        }
        flow.app_wake = None;
        if let Some(of) = flow.subflow_of {
            return self.subflow_wake(now, f, of);
        }
        if !flow.started {
            flow.started = true;
            let mut ctx =
                TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
            flow.receiver.open(&mut ctx);
            flow.sender.open(&mut ctx);
        }
        let wrote = self.app_write(now, f);
        self.flush(now, f);
        self.relay_wrote(now, f, wrote);
    }

    /// Lets the application write into the send buffer and records when it wants to wake;
    /// returns the bytes written.
    pub(super) fn app_write(&mut self, now: SimTime, f: usize) -> u64 {
        let flow = &mut self.flows[f];
        let Some(app) = flow.app.as_mut().filter(|_| flow.started) else { return 0 };
        let write = app.write(now, flow.sender.buffer_space());
        if write.bytes > 0 {
            let mut ctx =
                TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
            flow.sender.write(&mut ctx, write.bytes);
        }
        if let Some(at) = write.wake {
            if flow.app_wake.is_none_or(|pending| at < pending) {
                flow.app_wake = Some(at);
                self.queue.schedule(at, Event::App { flow: f as u32 });
            }
        }
        write.bytes
    }

    /// After flow `f`'s application wrote `wrote` bytes (and what it sent was flushed): a relay
    /// lets its upstream read further.
    fn relay_wrote(&mut self, now: SimTime, f: usize, wrote: u64) {
        if let Some(r) = self.flows[f].relay.filter(|_| wrote > 0) {
            self.relay_release(now, r as usize);
        }
    }

    /// A processor's control message: pin (or release) flow `flow`'s congestion window.
    pub(super) fn pin_cwnd(&mut self, now: SimTime, flow: FlowId, cwnd: Option<u64>) {
        let f = flow.0 as usize;
        let mut ctx =
            TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
        self.flows[f].sender.pin_cwnd(&mut ctx, cwnd);
        self.flush(now, f);
    }
}
