//! Spraying: a gateway that sends a flow's data segments over several links to the same device,
//! packet by packet — Wu et al.'s TCP CUBIC baseline over dual connectivity (§2: "the transport
//! layer such as TCP are not designed to handle the large numbers of out-of-sequence arrivals
//! which may occur due to dual connectivity"; Fig. 3 sends some packets to AP1 and the others to
//! AP2).
//!
//! Data segments toward `device` that reach the node leave by its `ways` instead of their route;
//! everything else passes. Two policies:
//!
//! - `round_robin` (default): the ways in turn, each segment at once (the links' queues absorb
//!   what they cannot send; a slower way delays its share, so segments arrive out of order);
//! - `ready`: the processor holds the segments and feeds each way itself, one packet queued at a
//!   time ([`PacketProcessor::paces`]), so the split follows the ways' rates and no way's queue
//!   grows; segments wait in the processor instead (without limit: TCP's window bounds them).
//!
//! The ways must be wired or rate-driven links (the `ready` policy paces them packet by packet).

use super::env::ProcessorEnv;
use super::{PacketProcessor, ProcCtx, Verdict};
use crate::error::InputError;
use crate::ids::{DirId, NodeId, PacketId};
use crate::net::Side;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::VecDeque;

/// How the segments are shared among the ways.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SprayPolicy {
    /// The ways in turn, each segment at once.
    #[default]
    RoundRobin,
    /// Whichever way has finished its packet, one queued at a time.
    Ready,
}

/// `kind = "spray"`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SprayConfig {
    /// The device (node name) whose flows are sprayed. Required.
    pub device: String,
    /// The links of this node to spray over, at least two. Required.
    pub ways: Vec<String>,
    /// `"round_robin"` (default) or `"ready"`.
    pub policy: SprayPolicy,
}

impl SprayConfig {
    pub fn build(&self, env: &ProcessorEnv) -> Result<Box<dyn PacketProcessor>, InputError> {
        if self.device.is_empty() {
            return Err(env.error("device", "missing: the node whose flows are sprayed"));
        }
        let t = env.topology;
        let device = t
            .node(&self.device)
            .ok_or_else(|| env.error("device", format!("no node named \"{}\"", self.device)))?;
        let ways = env.feedable_interfaces("ways", &self.ways)?;
        if ways.len() < 2 {
            return Err(env.error("ways", "needs at least two links of this node to spray over"));
        }
        Ok(Box::new(Spray::new(device, ways, self.ways.clone(), self.policy)))
    }
}

pub struct Spray {
    device: NodeId,
    ways: Vec<DirId>,
    /// The ways' link names (for the summary).
    names: Vec<String>,
    policy: SprayPolicy,
    /// The way the next segment takes (round robin) or the first to try (ready).
    next: usize,
    /// Segments waiting for a way (`ready`).
    held: VecDeque<PacketId>,
    sent: Vec<u64>,
    most_held: usize,
}

impl Spray {
    pub fn new(device: NodeId, ways: Vec<DirId>, names: Vec<String>, policy: SprayPolicy) -> Spray {
        let n = ways.len();
        Spray { device, ways, names, policy, next: 0, held: VecDeque::new(), sent: vec![0; n], most_held: 0 }
    }

    fn send(&mut self, ctx: &mut ProcCtx, w: usize, pkt: PacketId) {
        self.sent[w] += 1;
        ctx.send_via(pkt, self.ways[w]);
    }

    /// Gives every way with nothing queued a held segment, starting with a different way each
    /// time.
    fn feed_idle_ways(&mut self, ctx: &mut ProcCtx) {
        let n = self.ways.len();
        for i in 0..n {
            let w = (self.next + i) % n;
            if ctx.held_packets(self.ways[w]) == 0 {
                let Some(pkt) = self.held.pop_front() else { break };
                self.send(ctx, w, pkt);
            }
        }
        self.next = (self.next + 1) % n;
    }
}

impl PacketProcessor for Spray {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        let p = ctx.packets.get(pkt);
        if p.dst != self.device || p.to != Side::Receiver || p.tcp.len == 0 {
            return Verdict::Pass;
        }
        match self.policy {
            SprayPolicy::RoundRobin => {
                let w = self.next;
                self.next = (self.next + 1) % self.ways.len();
                self.send(ctx, w, pkt);
            }
            SprayPolicy::Ready => {
                self.held.push_back(pkt);
                self.most_held = self.most_held.max(self.held.len());
                self.feed_idle_ways(ctx);
            }
        }
        Verdict::Consumed
    }

    fn on_timer(&mut self, _: &mut ProcCtx, _: u32) {}

    fn paces(&self) -> Vec<DirId> {
        match self.policy {
            SprayPolicy::RoundRobin => Vec::new(),
            SprayPolicy::Ready => self.ways.clone(),
        }
    }

    fn on_ready(&mut self, ctx: &mut ProcCtx, dir: DirId) {
        if let (Some(w), Some(pkt)) = (self.ways.iter().position(|&d| d == dir), self.held.pop_front()) {
            self.send(ctx, w, pkt);
        }
    }

    fn summary(&self) -> Value {
        let ways: Vec<Value> =
            self.names.iter().zip(&self.sent).map(|(name, s)| json!({"link": name, "sent": s})).collect();
        json!({ "ways": ways, "most_held": self.most_held, "held": self.held.len() })
    }
}
