//! COTAG at the device (Wu et al. §4.3, Algorithm 3): gather each cohort's coded packets from both
//! links, decode it once a later label has arrived on every link, pass the decoded packets to the
//! TCP receivers in order.
//!
//! - A coded packet's coefficients join its (label, flow) generation; the packet itself is freed
//!   (its payload is the sources', see [`SourceStore`]). Beacons only advance their link's label.
//! - Label k is decided once k ≤ min_l L_l − 1 ([`LinkLabels`]), the smallest undecided label
//!   first (lines 13–17, repeated while labels are ready). Each flow's generation is decoded by
//!   Gaussian elimination over GF(2⁸) with its exact rank ([`RankDecoder`]): at full rank its
//!   source packets, in the order they reached the gateway, go to the flow's receiver (line 20);
//!   otherwise they are discarded (line 22) and TCP recovers them. Cohorts the device received
//!   nothing of are discarded when a later one is decided.
//! - **Buffer** (`buffer` coded packets held for undecided labels): the rule of the access points
//!   (lines 1–9): a low-priority arrival that finds it full is dropped, a high-priority one too if
//!   every held packet is high priority, else the most recent low-priority packet makes room.

use super::header::{self, Priority};
use super::labels::LinkLabels;
use super::source_store::SourceStore;
use crate::coding::decoder::RankDecoder;
use crate::ids::{DirId, FlowId, PacketId};
use crate::proxy::{PacketProcessor, ProcCtx, Verdict};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// A coded packet's coefficients, priority and arrival stamp.
struct Row {
    coefficients: Vec<u8>,
    priority: Priority,
    stamp: u64,
}

/// One flow's generation in a label.
struct Generation {
    flow: FlowId,
    sources: u16,
    rows: Vec<Row>,
}

struct LabelBuf {
    label: u64,
    generations: Vec<Generation>,
}

#[derive(Clone, Copy, Debug, Default)]
struct DeviceStats {
    received_high: u64,
    received_low: u64,
    beacons: u64,
    /// Generations (flow, cohort) decoded, and their source packets passed on.
    decoded_generations: u64,
    decoded_packets: u64,
    /// Generations short of full rank (decoding failures), and their lost source packets.
    failed_generations: u64,
    lost_packets: u64,
    /// Coded packets that added nothing to their generation's rank, counted at decoding.
    redundant: u64,
    dropped_high: u64,
    dropped_low: u64,
    /// Arrivals for a label already decided.
    late: u64,
}

/// What the builder hands the device.
pub struct DeviceParams {
    /// The directions coded packets come by (one per access point).
    pub incoming: Vec<DirId>,
    /// Their link names (for the summary).
    pub link_names: Vec<String>,
    pub buffer: usize,
    pub store: Rc<RefCell<SourceStore>>,
}

pub struct CotagDevice {
    buffer: usize,
    store: Rc<RefCell<SourceStore>>,
    links: LinkLabels,
    link_names: Vec<String>,
    labels: VecDeque<LabelBuf>,
    /// Every label up to this one is decided.
    decided: u64,
    held: usize,
    stamp: u64,
    decoder: RankDecoder,
    rows: Vec<Vec<u8>>,
    stats: DeviceStats,
}

impl CotagDevice {
    pub fn new(p: DeviceParams) -> CotagDevice {
        CotagDevice {
            buffer: p.buffer,
            store: p.store,
            links: LinkLabels::new(&p.incoming),
            link_names: p.link_names,
            labels: VecDeque::new(),
            decided: 0,
            held: 0,
            stamp: 0,
            decoder: RankDecoder::new(0),
            rows: Vec::new(),
            stats: DeviceStats::default(),
        }
    }

    /// Makes room for an arriving packet of `priority` in a full buffer; `false`: drop it.
    fn make_room(&mut self, priority: Priority) -> bool {
        if priority == Priority::Low {
            self.stats.dropped_low += 1;
            return false;
        }
        let mut latest: Option<(usize, usize, usize, u64)> = None;
        for (b, buf) in self.labels.iter().enumerate() {
            for (g, gen) in buf.generations.iter().enumerate() {
                for (r, row) in gen.rows.iter().enumerate() {
                    if row.priority == Priority::Low && latest.is_none_or(|l| row.stamp > l.3) {
                        latest = Some((b, g, r, row.stamp));
                    }
                }
            }
        }
        let Some((b, g, r, _)) = latest else {
            self.stats.dropped_high += 1;
            return false;
        };
        let row = self.labels[b].generations[g].rows.swap_remove(r);
        self.rows.push(row.coefficients);
        self.held -= 1;
        self.stats.dropped_low += 1;
        true
    }

    fn hold(&mut self, label: u64, flow: FlowId, sources: u16, priority: Priority, coefficients: &[u8]) {
        let mut row = self.rows.pop().unwrap_or_default();
        row.clear();
        row.extend_from_slice(coefficients);
        self.stamp += 1;
        let at = self.labels.partition_point(|b| b.label < label);
        if self.labels.get(at).is_none_or(|b| b.label != label) {
            self.labels.insert(at, LabelBuf { label, generations: Vec::new() });
        }
        let buf = &mut self.labels[at];
        let g = match buf.generations.iter().position(|g| g.flow == flow) {
            Some(g) => g,
            None => {
                buf.generations.push(Generation { flow, sources, rows: Vec::new() });
                buf.generations.len() - 1
            }
        };
        buf.generations[g].rows.push(Row { coefficients: row, priority, stamp: self.stamp });
        self.held += 1;
    }

    /// Decides every label the links allow, oldest first.
    fn decide_ready(&mut self, ctx: &mut ProcCtx) {
        let Some(ready) = self.links.ready_through() else { return };
        while self.decided < ready {
            let held = self.labels.front().map(|b| b.label);
            let stored = self.store.borrow().oldest_label();
            let Some(k) = held.into_iter().chain(stored).min().filter(|&k| k <= ready) else {
                break;
            };
            self.decide(ctx, k);
        }
    }

    /// Decides label `k` and discards every older cohort.
    fn decide(&mut self, ctx: &mut ProcCtx, k: u64) {
        let buf =
            self.labels.front().is_some_and(|b| b.label == k).then(|| self.labels.pop_front()).flatten();
        loop {
            let Some((label, flows)) = self.store.borrow_mut().take_through(k) else { break };
            for sources in flows {
                let generation = buf
                    .as_ref()
                    .filter(|_| label == k)
                    .and_then(|b| b.generations.iter().find(|g| g.flow == sources.flow));
                let decoded = generation.is_some_and(|g| {
                    debug_assert_eq!(usize::from(g.sources), sources.packets.len());
                    self.decoder.reset(usize::from(g.sources));
                    let innovative = g.rows.iter().filter(|r| self.decoder.insert(&r.coefficients)).count();
                    self.stats.redundant += (g.rows.len() - innovative) as u64;
                    self.decoder.is_complete()
                });
                let n = sources.packets.len() as u64;
                if decoded {
                    self.stats.decoded_generations += 1;
                    self.stats.decoded_packets += n;
                    for pkt in sources.packets {
                        ctx.send(pkt);
                    }
                } else {
                    self.stats.failed_generations += 1;
                    self.stats.lost_packets += n;
                    for pkt in sources.packets {
                        ctx.packets.free(pkt);
                    }
                }
            }
        }
        if let Some(buf) = buf {
            for g in buf.generations {
                for row in g.rows {
                    self.rows.push(row.coefficients);
                    self.held -= 1;
                }
            }
        }
        self.decided = k;
    }
}

impl PacketProcessor for CotagDevice {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        let Some((h, coefficients)) = header::read(ctx.packets.side_data(pkt)) else {
            return Verdict::Pass;
        };
        self.links.saw(ctx.arrived_on, h.label);
        if h.priority == Priority::Beacon {
            self.stats.beacons += 1;
        } else if h.label <= self.decided {
            self.stats.late += 1;
        } else if self.held < self.buffer || self.make_room(h.priority) {
            match h.priority {
                Priority::High => self.stats.received_high += 1,
                _ => self.stats.received_low += 1,
            }
            let flow = ctx.packets.get(pkt).flow;
            self.hold(h.label, flow, h.sources, h.priority, coefficients);
        }
        ctx.packets.free(pkt);
        self.decide_ready(ctx);
        Verdict::Consumed
    }

    fn on_timer(&mut self, _: &mut ProcCtx, _: u32) {}

    fn summary(&self) -> Value {
        let s = &self.stats;
        let links: Vec<Value> = self
            .links
            .largest()
            .zip(&self.link_names)
            .map(|((_, l), name)| json!({"link": name, "largest_label": l}))
            .collect();
        json!({
            "received_high": s.received_high,
            "received_low": s.received_low,
            "beacons": s.beacons,
            "decoded_generations": s.decoded_generations,
            "decoded_packets": s.decoded_packets,
            "failed_generations": s.failed_generations,
            "lost_packets": s.lost_packets,
            "redundant": s.redundant,
            "dropped_high": s.dropped_high,
            "dropped_low": s.dropped_low,
            "late": s.late,
            "held": self.held,
            "links": links,
        })
    }
}
