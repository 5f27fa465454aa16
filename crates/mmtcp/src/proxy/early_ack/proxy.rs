//! The early-ACK proxy as a packet processor ([`EarlyAckProxy`]): the shared ack management
//! ([`AckManager`]) with the local recovery that tells PEP and mmPEP apart ([`Recovery`]). The
//! ack management reports the `dupthresh`-th (and every later) duplicate ACK of a run and the
//! expiries of the retransmission timer with data cached; the policy decides what to resend and
//! whether the timer backs off.

use super::ack_manager::{AckManager, DupAck};
use crate::ids::{FlowId, PacketId};
use crate::proxy::{PacketProcessor, ProcCtx, Verdict};
use serde_json::{Map, Value};

/// What tells PEP and mmPEP apart: the local recovery they run on the shared Ack management.
pub trait Recovery {
    /// The mobile's duplicate ACK `dupack` reached the `dupthresh`.
    fn on_dupack(&mut self, acks: &mut AckManager, ctx: &mut ProcCtx, dupack: DupAck);
    /// `flow`'s retransmission timer expired with data cached; the policy re-arms it.
    fn on_timeout(&mut self, acks: &mut AckManager, ctx: &mut ProcCtx, flow: FlowId);
    /// Adds the policy's counters to the summary.
    fn summary(&self, map: &mut Map<String, Value>);
}

/// An early-ACK proxy: the shared Ack management with a recovery policy.
pub struct EarlyAckProxy<R> {
    pub acks: AckManager,
    pub recovery: R,
}

impl<R: Recovery> PacketProcessor for EarlyAckProxy<R> {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        let (verdict, dupack) = self.acks.on_packet(ctx, pkt);
        if let Some(d) = dupack {
            self.recovery.on_dupack(&mut self.acks, ctx, d);
        }
        self.acks.release(ctx);
        verdict
    }

    fn on_timer(&mut self, ctx: &mut ProcCtx, token: u32) {
        if let Some(flow) = self.acks.on_timer(ctx, token) {
            self.recovery.on_timeout(&mut self.acks, ctx, flow);
        }
    }

    fn columns(&self) -> Vec<String> {
        AckManager::columns().iter().map(|c| c.to_string()).collect()
    }

    fn sample(&mut self, row: &mut Vec<f64>) {
        self.acks.sample(row);
    }

    fn summary(&self) -> Value {
        let mut map = self.acks.summary();
        self.recovery.summary(&mut map);
        Value::Object(map)
    }
}
