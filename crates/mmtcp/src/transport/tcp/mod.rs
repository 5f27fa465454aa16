//! TCP: a sender and a receiver per flow, each a state machine that reads no clock and owns no
//! I/O. The engine hands them packets and timer expiries through a [`TcpCtx`]; they answer with
//! packets to transmit and timers to arm.
//!
//! What is modelled: three-way handshake (either end may open), byte sequence numbers,
//! cumulative ACKs with SACK blocks (RFC 2018), delayed ACKs (RFC 1122, RFC 5681 §4.2),
//! timestamps for RTT samples (RFC 7323), receive buffer and advertised window, loss recovery
//! per RFC 6675 with SACK and RFC 6582 without, with the window in recovery set by PRR
//! (RFC 6937) or at once (RFC 6675 §5), fast retransmit, RTO per RFC 6298 or Linux's rule with
//! back-off, congestion control behind [`crate::transport::cc::CongestionControl`]. A profile
//! ([`profile::Profile`]) bundles the defaults of Linux, ns-3 or the RFCs.
//!
//! An MP-TCP subflow is the same sender and receiver with a subflow part
//! ([`TcpSender::new_subflow`], [`TcpReceiver::set_subflow`]): the connection feeds the sender
//! mapped chunks ([`dss_map`]) and reads its state; the receiver's ACKs carry the DATA_ACK and the
//! connection's window (RFC 8684 §3.3).
//!
//! Simplifications, each a documented choice: 64-bit sequence numbers that never wrap; no FIN
//! teardown (a flow ends with the simulation or when a download's last byte is delivered); no
//! Nagle (the sender behaves as with TCP_NODELAY); no D-SACK, no RACK/TLP, no F-RTO, no undo of
//! spurious retransmissions; the receiving application reads in-order data at once unless it
//! sets a read limit (a split proxy's relay, [`TcpReceiver::set_read_limit`]), whose raising
//! sends a window update; a relay's upstream sender held back by the window with nothing in
//! flight probes it (RFC 9293 §3.8.6.1, [`TcpSender::enable_window_probes`]), so a lost update
//! delays the flow but does not stall it; other senders do not probe.

pub mod autotune;
pub mod config;
pub mod dss_map;
pub mod intervals;
pub mod profile;
pub mod receiver;
pub mod rto;
pub mod sack_order;
pub mod scoreboard;
pub mod sender;

pub use config::{ReceiveBuffer, Recovery, RtoRule, TcpConfig};
pub use profile::Profile;
pub use receiver::TcpReceiver;
pub use sender::TcpSender;

use crate::event::TcpTimer;
use crate::ids::{FlowId, NodeId, PacketId};
use crate::net::{Packet, PacketArena, Side, TcpHeader, TcpOptions};
use crate::sim::{Fired, SimTime, Timer};

/// Which end opens the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opener {
    /// The data sender sends the SYN (iperf-like bulk transfers).
    Sender,
    /// The data receiver sends the SYN and the sender starts once the handshake completes
    /// (a wget-like download: the client connects and asks).
    Receiver,
}

/// Where one end of a flow sits: the flow, its own node and the other end's node.
#[derive(Clone, Copy, Debug)]
pub struct Endpoint {
    pub flow: FlowId,
    pub local: NodeId,
    pub remote: NodeId,
}

/// What a TCP endpoint needs from the engine while handling one event.
pub struct TcpCtx<'a> {
    pub now: SimTime,
    pub packets: &'a mut PacketArena,
    /// Packets to transmit, in order.
    pub out: &'a mut Vec<PacketId>,
    /// Timer events to schedule.
    pub timers: &'a mut Vec<(SimTime, TcpTimer)>,
}

impl TcpCtx<'_> {
    fn arm(&mut self, at: Option<SimTime>, timer: TcpTimer) {
        if let Some(at) = at {
            self.timers.push((at, timer));
        }
    }

    /// Allocates a packet from `from` to the other end's side `to` and queues it for
    /// transmission. Its size is the payload plus headers plus its options' bytes. `stamp` is the
    /// first transmission time of a data segment, or the timestamp an ACK echoes
    /// ([`Packet::stamp`]).
    fn emit(&mut self, from: Endpoint, to: Side, (tcp, options): (TcpHeader, &TcpOptions), stamp: SimTime) {
        let pkt = Packet::new(from.flow, (from.local, from.remote), to, tcp, (self.now, stamp));
        let id = self.packets.alloc_with(pkt, options);
        self.out.push(id);
    }

    /// Handles an event of `timer`: true when its deadline has passed and the endpoint must act;
    /// re-arms it when the deadline moved later.
    fn expired(&mut self, timer: &mut Timer, kind: TcpTimer) -> bool {
        match timer.fire(self.now) {
            Fired::Expired => true,
            Fired::Rearm(at) => {
                self.timers.push((at, kind));
                false
            }
            Fired::Nothing => false,
        }
    }
}
