//! COTAG at an access point (Wu et al. §4.3, Algorithm 2): hold a cohort until the next has
//! begun, forward its high-priority packets, recode into spare capacity (taking), drop what is left
//! when the cohort after next begins (giving).
//!
//! - **Holding**: coded packets of label k wait until a label above k has arrived on every
//!   incoming link ([`LinkLabels`]); the access point then processes label k and discards what it
//!   holds of older labels. With one link from the gateway, cohort k goes out from the first
//!   label-(k+1) packet to the first label-(k+2) packet (§4.3, "Giving").
//! - **Forwarding**: first every held high-priority packet of label k, as received (Algorithm 2
//!   line 20), then random recombinations of the label-k packets it holds of one flow, tagged low
//!   priority (lines 22–24), the flows taken in turn in the order their packets arrived, while it
//!   has sent fewer label-k packets than it received ("no more than number of received packets of
//!   label k"). The low-priority packets received from the gateway are not forwarded as such: they
//!   enter the recombinations (line 21's "conditionally forward" read as: their information goes
//!   out within the recoded packets).
//! - **Buffer** (`buffer` packets, the label being forwarded included): an arriving packet that
//!   finds it full is dropped if it is low priority, or if every held packet is high priority;
//!   otherwise the most recently received low-priority packet makes room (lines 1–9).
//!
//! The access point feeds its link to the device itself ([`PacketProcessor::paces`]): it decides
//! each packet as the link becomes free, so giving happens at the last moment.

use super::header::{self, CodedHeader, Priority};
use super::labels::LinkLabels;
use crate::coding::recoder::Recoder;
use crate::ids::{DirId, ExtId, FlowId, PacketId};
use crate::net::Packet;
use crate::proxy::{PacketProcessor, ProcCtx, Verdict};
use crate::sim::Rng;
use serde_json::{json, Value};
use std::collections::VecDeque;

/// A coded packet held: its generation in the label's list, priority, the packet while not yet
/// forwarded, its coefficients (kept for recoding), when it arrived (for the buffer rule).
struct Held {
    generation: u16,
    priority: Priority,
    pkt: Option<PacketId>,
    row: Vec<u8>,
    stamp: u64,
}

/// One flow's generation within a label: flow, source count, header template, largest size.
struct Generation {
    flow: FlowId,
    sources: u16,
    template: Packet,
    largest: u16,
}

/// What the access point holds of one label.
struct LabelBuf {
    label: u64,
    items: Vec<Held>,
    generations: Vec<Generation>,
    beacon: Option<PacketId>,
    /// Packets of this label sent to the device.
    sent: usize,
    /// The next item to look at for an unsent high-priority packet.
    next_high: usize,
    /// Recombinations made, to take the generations in turn.
    recoded: usize,
}

#[derive(Clone, Copy, Debug, Default)]
struct ApStats {
    received_high: u64,
    received_low: u64,
    beacons: u64,
    forwarded_high: u64,
    recoded: u64,
    /// When a label was given up: its high-priority packets not forwarded, and the rest of the
    /// packets it could still have sent (as many as received, less those sent).
    given_high: u64,
    given_low: u64,
    /// Arrivals that found the buffer full, and held low-priority packets dropped to make room.
    dropped_high: u64,
    dropped_low: u64,
    /// Arrivals of a label already given up.
    late: u64,
}

/// What the builder hands the access point.
pub struct ApParams {
    /// The link direction to the device.
    pub to_device: DirId,
    /// The directions packets from the gateway come by.
    pub incoming: Vec<DirId>,
    /// Packets it may hold.
    pub buffer: usize,
    pub rng: Rng,
}

pub struct CotagAp {
    to_device: DirId,
    buffer: usize,
    rng: Rng,
    links: LinkLabels,
    labels: VecDeque<LabelBuf>,
    /// The label being forwarded.
    processing: Option<u64>,
    held: usize,
    stamp: u64,
    recoder: Recoder,
    /// Reused: the items of the generation being recoded.
    same_generation: Vec<usize>,
    /// Reused coefficient buffers.
    rows: Vec<Vec<u8>>,
    stats: ApStats,
}

impl CotagAp {
    pub fn new(p: ApParams) -> CotagAp {
        CotagAp {
            to_device: p.to_device,
            buffer: p.buffer,
            rng: p.rng,
            links: LinkLabels::new(&p.incoming),
            labels: VecDeque::new(),
            processing: None,
            held: 0,
            stamp: 0,
            recoder: Recoder::new(),
            same_generation: Vec::new(),
            rows: Vec::new(),
            stats: ApStats::default(),
        }
    }

    /// The buffer of `label`, made if new (labels kept in increasing order).
    fn label_buf(&mut self, label: u64) -> &mut LabelBuf {
        let at = self.labels.partition_point(|b| b.label < label);
        if self.labels.get(at).is_none_or(|b| b.label != label) {
            let buf = LabelBuf {
                label,
                items: Vec::new(),
                generations: Vec::new(),
                beacon: None,
                sent: 0,
                next_high: 0,
                recoded: 0,
            };
            self.labels.insert(at, buf);
        }
        &mut self.labels[at]
    }

    /// Makes room for an arriving packet of `priority` in a full buffer; `false`: drop it.
    fn make_room(&mut self, ctx: &mut ProcCtx, priority: Priority) -> bool {
        if priority == Priority::Low {
            self.stats.dropped_low += 1;
            return false;
        }
        let latest_low = self
            .labels
            .iter()
            .enumerate()
            .flat_map(|(b, buf)| buf.items.iter().enumerate().map(move |(i, h)| (b, i, h)))
            .filter(|(_, _, h)| h.priority == Priority::Low)
            .max_by_key(|(_, _, h)| h.stamp)
            .map(|(b, i, _)| (b, i));
        let Some((b, i)) = latest_low else {
            self.stats.dropped_high += 1;
            return false;
        };
        let buf = &mut self.labels[b];
        let h = buf.items.remove(i);
        if i < buf.next_high {
            buf.next_high -= 1;
        }
        if let Some(pkt) = h.pkt {
            ctx.packets.free(pkt);
        }
        self.rows.push(h.row);
        self.held -= 1;
        self.stats.dropped_low += 1;
        true
    }

    /// Moves to every label the links allow (Algorithm 2 lines 13–17), giving up older ones.
    fn update_processing(&mut self, ctx: &mut ProcCtx) {
        let Some(ready) = self.links.ready_through() else { return };
        // Taking the smallest unprocessed label L' while L' ≤ ready ends at the largest one.
        let unprocessed = |l: u64| self.processing.is_none_or(|p| l > p);
        let Some(k) = self.labels.iter().map(|b| b.label).filter(|&l| unprocessed(l) && l <= ready).max()
        else {
            return;
        };
        self.processing = Some(k);
        while self.labels.front().is_some_and(|b| b.label < k) {
            let buf = self.labels.pop_front().expect("checked");
            self.give_up(ctx, buf);
        }
    }

    /// Drops what is left of a label (giving): the high-priority packets not forwarded, and the
    /// sending opportunities left (as many as it received, less what it sent) counted as given
    /// low priority.
    fn give_up(&mut self, ctx: &mut ProcCtx, buf: LabelBuf) {
        let unsent_high =
            buf.items.iter().filter(|h| h.priority == Priority::High && h.pkt.is_some()).count();
        self.stats.given_high += unsent_high as u64;
        self.stats.given_low += buf.items.len().saturating_sub(buf.sent + unsent_high) as u64;
        for h in buf.items {
            if let Some(pkt) = h.pkt {
                ctx.packets.free(pkt);
            }
            self.rows.push(h.row);
            self.held -= 1;
        }
        if let Some(b) = buf.beacon {
            ctx.packets.free(b);
        }
    }

    /// Sends the next packet of the label being forwarded, if any.
    fn feed(&mut self, ctx: &mut ProcCtx) {
        let Some(k) = self.processing else { return };
        let Some(buf) = self.labels.front_mut().filter(|b| b.label == k) else { return };
        if let Some(b) = buf.beacon.take() {
            ctx.send_via(b, self.to_device);
            return;
        }
        while buf.next_high < buf.items.len() {
            let h = &mut buf.items[buf.next_high];
            buf.next_high += 1;
            if h.priority == Priority::High {
                if let Some(pkt) = h.pkt.take() {
                    buf.sent += 1;
                    self.stats.forwarded_high += 1;
                    ctx.send_via(pkt, self.to_device);
                    return;
                }
            }
        }
        if buf.sent >= buf.items.len() {
            return;
        }
        let generation = buf.items[buf.recoded % buf.items.len()].generation;
        buf.recoded += 1;
        buf.sent += 1;
        let g = &buf.generations[usize::from(generation)];
        self.same_generation.clear();
        self.same_generation.extend((0..buf.items.len()).filter(|&i| buf.items[i].generation == generation));
        let rows = self.same_generation.iter().map(|&i| buf.items[i].row.as_slice());
        let coefficients = self.recoder.recode(&mut self.rng, rows);
        let pkt = ctx.packets.alloc(Packet { size: g.largest, ..g.template });
        let header = CodedHeader { label: k, priority: Priority::Low, sources: g.sources };
        header::write(ctx.packets, pkt, header, coefficients);
        self.stats.recoded += 1;
        ctx.send_via(pkt, self.to_device);
    }
}

impl PacketProcessor for CotagAp {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        let Some((h, coefficients)) = header::read(ctx.packets.side_data(pkt)) else {
            return Verdict::Pass;
        };
        let mut row = self.rows.pop().unwrap_or_default();
        row.clear();
        row.extend_from_slice(coefficients);
        self.links.saw(ctx.arrived_on, h.label);
        if self.processing.is_some_and(|p| h.label < p) {
            self.stats.late += 1;
            ctx.packets.free(pkt);
            self.rows.push(row);
        } else if h.priority == Priority::Beacon {
            self.stats.beacons += 1;
            self.rows.push(row);
            let buf = self.label_buf(h.label);
            if buf.beacon.is_none() {
                buf.beacon = Some(pkt);
            } else {
                ctx.packets.free(pkt);
            }
        } else if self.held >= self.buffer && !self.make_room(ctx, h.priority) {
            ctx.packets.free(pkt);
            self.rows.push(row);
        } else {
            match h.priority {
                Priority::High => self.stats.received_high += 1,
                _ => self.stats.received_low += 1,
            }
            let p = *ctx.packets.get(pkt);
            self.stamp += 1;
            let stamp = self.stamp;
            let buf = self.label_buf(h.label);
            let generation = match buf.generations.iter().position(|g| g.flow == p.flow) {
                Some(g) => g,
                None => {
                    let template = Packet { ext: ExtId::NONE, ..p };
                    buf.generations.push(Generation {
                        flow: p.flow,
                        sources: h.sources,
                        template,
                        largest: 0,
                    });
                    buf.generations.len() - 1
                }
            };
            let g = &mut buf.generations[generation];
            g.largest = g.largest.max(p.size);
            buf.items.push(Held {
                generation: generation as u16,
                priority: h.priority,
                pkt: Some(pkt),
                row,
                stamp,
            });
            self.held += 1;
        }
        self.update_processing(ctx);
        if ctx.held_packets(self.to_device) == 0 {
            self.feed(ctx);
        }
        Verdict::Consumed
    }

    fn on_timer(&mut self, _: &mut ProcCtx, _: u32) {}

    fn paces(&self) -> Vec<DirId> {
        vec![self.to_device]
    }

    fn on_ready(&mut self, ctx: &mut ProcCtx, _dir: DirId) {
        self.feed(ctx);
    }

    fn summary(&self) -> Value {
        let s = &self.stats;
        json!({
            "received_high": s.received_high,
            "received_low": s.received_low,
            "beacons": s.beacons,
            "forwarded_high": s.forwarded_high,
            "recoded": s.recoded,
            "given_high": s.given_high,
            "given_low": s.given_low,
            "dropped_high": s.dropped_high,
            "dropped_low": s.dropped_low,
            "late": s.late,
            "held": self.held,
        })
    }
}
