//! A packet at a node: the node's processors see it first, then it is delivered locally or sent
//! to the next hop of its route.

use super::World;
use crate::ids::{DirId, NodeId, PacketId, RouteId};
use crate::net::link::DropCause;
use crate::proxy::{Emit, Verdict};
use crate::sim::SimTime;
use crate::topology::AnyDirection;

impl World {
    /// The packet being serialised on wired direction `dir` is done: into the pipe, or lost.
    pub(super) fn tx_done(&mut self, now: SimTime, dir: DirId, generation: u32) {
        let AnyDirection::Wired(d) = &mut self.dirs[dir.0 as usize] else {
            unreachable!("TxDone for a radio direction")
        };
        let finished = d.is_current_tx(generation);
        let dropped = d.on_tx_done(&mut self.queue, &mut self.packets, now, generation);
        let drained = finished && d.queue_packets() == 0;
        if let Some(pkt) = dropped {
            self.drop_packet(pkt, dir, DropCause::Error);
        }
        let pacer = self.pacers[dir.0 as usize];
        if pacer != super::NO_PACER && drained {
            self.call_processor(now, pacer as usize, None, |p, ctx| p.on_ready(ctx, dir));
        }
    }

    /// The head of wired direction `dir`'s pipe reaches the far node.
    pub(super) fn arrive(&mut self, now: SimTime, dir: DirId) {
        let AnyDirection::Wired(d) = &mut self.dirs[dir.0 as usize] else {
            unreachable!("Arrive for a radio direction")
        };
        let pkt = d.on_arrive(&mut self.queue, now);
        // The next packets out of the pipe were last touched a propagation delay ago: their
        // loads start now and overlap this packet's work (the second next's slot, the next's
        // options, whose slot the previous arrival prefetched).
        if let Some(second) = d.in_pipe(1) {
            self.packets.prefetch(second);
        }
        if let Some(next) = d.in_pipe(0) {
            self.packets.prefetch_options_for(next, d.to);
        }
        self.receive(now, dir, pkt);
    }

    /// A packet reached the far node of direction `dir`: the node's processors see it first.
    pub(super) fn receive(&mut self, now: SimTime, dir: DirId, pkt: PacketId) {
        let node = self.dirs[dir.0 as usize].to();
        for k in 0..self.chains[node.0 as usize].len() {
            let index = self.chains[node.0 as usize][k] as usize;
            if self.call_processor(now, index, Some(dir), |p, ctx| p.on_packet(ctx, pkt)) == Verdict::Consumed
            {
                return;
            }
        }
        self.deliver_or_forward(now, node, pkt);
    }

    pub(super) fn deliver_or_forward(&mut self, now: SimTime, node: NodeId, pkt: PacketId) {
        if self.packets.get(pkt).dst == node {
            self.deliver_local(now, pkt);
        } else {
            self.forward(now, node, pkt);
        }
    }

    /// Sends `pkt` from `node` to the next hop of its route.
    pub(super) fn forward(&mut self, now: SimTime, node: NodeId, pkt: PacketId) {
        let dir = self.next_hop(node, pkt);
        let size = self.packets.get(pkt).size();
        if let Err(pkt) = self.dirs[dir.0 as usize].admit(&mut self.queue, now, pkt, size) {
            self.drop_packet(pkt, dir, DropCause::QueueFull);
        }
    }

    /// The direction `pkt` leaves `node` by: the next hop of its route, which it then moves past.
    /// A packet without a route (sent by a processor through an interface of its choice) takes
    /// the automatic route from `node` to its destination from here on.
    fn next_hop(&mut self, node: NodeId, pkt: PacketId) -> DirId {
        let p = self.packets.get_mut(pkt);
        if let Some(dir) = self.routes.hop(p.route, p.hop) {
            debug_assert_eq!(self.topology.from(dir), node, "a packet follows its route hop by hop");
            p.hop += 1;
            return dir;
        }
        let route = self
            .routes
            .toward(&self.topology, node, p.dst)
            .expect("every node on a flow's routes reaches the flow's ends");
        p.route = route;
        p.hop = 1;
        self.routes.hops(route)[0]
    }

    /// Sends a packet a processor emitted at `node` (not "first"): through the interface it
    /// chose, or else along its flow's route.
    pub(super) fn send_emitted(&mut self, now: SimTime, node: NodeId, e: Emit) {
        match e.via {
            Some(dir) => {
                self.leave_route(e.pkt);
                let size = self.packets.get(e.pkt).size();
                if let Err(pkt) = self.dirs[dir.0 as usize].admit(&mut self.queue, now, e.pkt, size) {
                    self.drop_packet(pkt, dir, DropCause::QueueFull);
                }
            }
            None => {
                self.place_on_route(node, e.pkt);
                self.deliver_or_forward(now, node, e.pkt);
            }
        }
    }

    /// Puts a packet a processor emitted at `node` on its flow's route for its side, at the hop
    /// that leaves `node`; off any route if `node` is not on it (it then finds its way).
    pub(super) fn place_on_route(&mut self, node: NodeId, pkt: PacketId) {
        let p = self.packets.get_mut(pkt);
        let route = self.flows[p.flow.0 as usize].route(p.to);
        match self.routes.hops(route).iter().position(|&d| self.topology.from(d) == node) {
            Some(hop) => {
                p.route = route;
                p.hop = hop as u8;
            }
            None => self.leave_route(pkt),
        }
    }

    /// Takes `pkt` off any route: from the next node on it finds its way ([`Self::next_hop`]).
    fn leave_route(&mut self, pkt: PacketId) {
        let p = self.packets.get_mut(pkt);
        p.route = RouteId::NONE;
        p.hop = 0;
    }

    /// Sends a run of packets a processor emitted "first" from `node`: each joins its next hop
    /// ahead of the packets already waiting there and behind the run's earlier packets, so the
    /// run leaves in the order emitted; when a queue runs out of room, the run's tail is dropped.
    pub(super) fn forward_first(&mut self, now: SimTime, node: NodeId, run: &[Emit]) {
        let mut queued = std::mem::take(&mut self.run_queued);
        queued.clear();
        for e in run {
            let dir = match e.via {
                Some(dir) => {
                    self.leave_route(e.pkt);
                    dir
                }
                None => {
                    self.place_on_route(node, e.pkt);
                    if self.packets.get(e.pkt).dst == node {
                        self.deliver_local(now, e.pkt);
                        continue;
                    }
                    self.next_hop(node, e.pkt)
                }
            };
            let size = self.packets.get(e.pkt).size();
            let slot = match queued.iter().position(|(d, _)| *d == dir) {
                Some(i) => i,
                None => {
                    queued.push((dir, 0));
                    queued.len() - 1
                }
            };
            match self.dirs[dir.0 as usize].admit_at(&mut self.queue, now, e.pkt, size, queued[slot].1) {
                Ok(true) => queued[slot].1 += 1,
                Ok(false) => {}
                Err(pkt) => self.drop_packet(pkt, dir, DropCause::QueueFull),
            }
        }
        self.run_queued = queued;
    }

    pub(super) fn drop_packet(&mut self, pkt: PacketId, dir: DirId, cause: DropCause) {
        let flow = self.packets.get(pkt).flow.0 as usize;
        let slot = match cause {
            DropCause::QueueFull => 0,
            DropCause::Error => 1,
        };
        self.flows[flow].count_drop(dir, slot);
        self.packets.free(pkt);
    }
}
