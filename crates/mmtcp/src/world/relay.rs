//! Relays (`app = { kind = "relay", from = ... }`): a split connection at a gateway. The relay
//! is the application of its (downstream) flow, TCP or MP-TCP, and the reading application of
//! its upstream flow's receiver, a single-path TCP flow ending at the downstream's source:
//!
//! ```text
//!   server ──up──► [up's receiver] ─► relay buffer ─► [down's sender] ──down──► device
//! ```
//!
//! - Bytes the upstream delivers in order enter the relay's buffer ([`App::relay_read`]); the
//!   relay writes from it into the downstream's send buffer at once, and again whenever the
//!   downstream's ACKs free send buffer (the relay is the downstream's application).
//! - Backpressure: the upstream receiver reads only below the relay's edge (bytes written on
//!   plus the buffer's capacity, [`App::relay_edge`]) through its read limit, so its advertised
//!   window never exceeds the buffer's free room; raising the edge after a write sends a window
//!   update when the sender's view of the window was small
//!   ([`crate::transport::tcp::TcpReceiver::set_read_limit`]).
//! - The upstream sender probes a closed window
//!   ([`crate::transport::tcp::TcpSender::enable_window_probes`]), so a lost window update
//!   delays the upstream but does not stall it.
//! - Upstream byte `k` is downstream byte `k`: every byte goes on once and in order.
//! - The downstream flow opens at its own `start`; what the upstream delivers before is held
//!   (up to the buffer, then the upstream's window closes).

use super::{Entry, World};
use crate::app::App;
use crate::sim::SimTime;
use crate::transport::tcp::TcpCtx;

/// One relay: the flow it reads (index into the world's flows) and the flow it writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relay {
    pub upstream: usize,
    pub downstream: Entry,
}

impl World {
    /// The relays of the scenario, in the order of their downstream flows.
    pub fn relays(&self) -> &[Relay] {
        &self.relays
    }

    /// The application of relay `r`.
    pub fn relay_app(&self, r: usize) -> &App {
        match self.relays[r].downstream {
            Entry::Tcp(d) => self.flows[d].app.as_ref().expect("a relay flow has its application"),
            Entry::Mptcp(c) => &self.connections[c].app,
        }
    }

    fn relay_app_mut(&mut self, r: usize) -> &mut App {
        match self.relays[r].downstream {
            Entry::Tcp(d) => self.flows[d].app.as_mut().expect("a relay flow has its application"),
            Entry::Mptcp(c) => &mut self.connections[c].app,
        }
    }

    /// Relay `r`'s upstream flow delivered data: the relay reads it and writes what the
    /// downstream's send buffer takes.
    pub(super) fn relay_read(&mut self, now: SimTime, r: usize) {
        let delivered = self.flows[self.relays[r].upstream].receiver.rcv_nxt();
        self.relay_app_mut(r).relay_read(delivered);
        match self.relays[r].downstream {
            Entry::Tcp(d) => {
                let wrote = self.app_write(now, d);
                self.flush(now, d);
                if wrote > 0 {
                    self.relay_release(now, r);
                }
            }
            Entry::Mptcp(c) => self.connection_send(now, c),
        }
    }

    /// Relay `r` wrote downstream: its upstream's receiver may read up to the new edge.
    pub(super) fn relay_release(&mut self, now: SimTime, r: usize) {
        let edge = self.relay_app(r).relay_edge().expect("a relay's application has an edge");
        let up = self.relays[r].upstream;
        let mut ctx =
            TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
        self.flows[up].receiver.set_read_limit(&mut ctx, edge);
        self.flush(now, up);
    }
}
