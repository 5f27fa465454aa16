//! COTAG's gateway (Wu et al. §4.3, Algorithm 1): cohorts of period T, coded forwarding, taking.
//!
//! Data segments of the flows to the device (F_D) that reach the gateway in [(k−1)T, kT) form
//! cohort k. They wait until kT, and only in [kT, (k+1)T) does the gateway send cohort k, as
//! random linear combinations over GF(2⁸) of the cohort's packets of one flow (coding is per flow
//! within a cohort, §4.2):
//!
//! 1. **coded forwarding** — while fewer than n_k packets of the cohort have gone out (n_k: its
//!    size), the i-th carries a combination of the cohort's packets of the flow of the i-th
//!    arrival, tagged label k and "high priority" (Algorithm 1 lines 8–9);
//! 2. **taking** — then, while time is left in the interval and fewer than `redundancy`·n_k
//!    packets have gone out, redundant combinations, again following the arrivals in order
//!    ("reconsiders the first, second, third … packets", §4.2), tagged "low priority" (lines
//!    10–12);
//! 3. at (k+1)T the gateway moves to cohort k+1; what was not sent of cohort k is given up
//!    (Algorithm 1 line 2 discards it at the next boundary; §4.3's text says (k+2)T, but the
//!    gateway sends cohort k only until (k+1)T either way).
//!
//! The gateway feeds its ways to the access points itself ([`PacketProcessor::paces`]): each time
//! a way finishes a packet it takes the next one. §4.3 leaves the "scheduling policy" open; two,
//! both ours ([`Split`]): `pull` lets the split follow the rates of the gateway's own links;
//! `rate` (default) gives each way quotas in proportion to the rate its access point's link to
//! the device has at kT (largest remainders): of the n_k high-priority packets, and of the
//! `redundancy`·n_k − n_k low-priority ones. A way takes high-priority packets while under its
//! high quota, then low-priority ones while under its low quota, so that each access point gets
//! the high-priority packets its link can forward, not more (with one quota for both, ways that
//! pull alternately split the high-priority packets evenly, and the slower access point gave up
//! its excess). With fast wired ways `pull` splits evenly, and an access point on a slow link gets
//! more high priority packets than it can forward in its period. Each coded
//! packet is as large as the largest source of its generation, plus the COTAG header
//! ([`header::wire_bytes`]) when `header_on_wire` is on.
//!
//! **Label beacons** (ours): the access points and the device move past label k only once a label
//! above k has arrived on every link (Algorithms 2–3), so a link that carries no packet of a
//! label holds everything behind it: the last cohort of a burst would wait for the next burst, and
//! a cohort of one packet would stall the other link's access point. With `label_beacons` on, the
//! gateway sends a header-only packet with label k on every way that carried no packet of cohort
//! k, when its interval ends, and on every way at kT for an empty cohort k among the two after the
//! last cohort that carried data (an access point forwards a label once it holds a later one, so
//! the device needs both). The paper does not say how its self-clocking scheme keeps labels moving
//! on an idle link.
//!
//! The source packets themselves go to the [`SourceStore`] the device takes them from when it
//! decides the cohort (the payload a real coded packet carries).

use super::header::{self, CodedHeader, HeaderForm, Priority};
use super::source_store::{FlowSources, SourceStore};
use super::Split;
use crate::coding::encoder::draw_coefficients;
use crate::ids::{DirId, FlowId, NodeId, PacketId};
use crate::net::{Packet, Side};
use crate::proxy::{PacketProcessor, ProcCtx, Verdict};
use crate::sim::{Duration, Rng, SimTime};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// Size of a beacon on the wire: an IPv4 header and the COTAG header without coefficients.
const BEACON_BYTES: u16 = 20 + header::BEACON_WIRE_BYTES as u16;

/// One flow's packets in a cohort.
struct Generation {
    flow: FlowId,
    packets: Vec<PacketId>,
    /// The header a coded packet of this generation starts from (the first source's).
    template: Packet,
    /// The largest source, bytes on the wire.
    largest: u16,
}

/// A cohort: its label, which generation each arrival belongs to (in arrival order), the
/// generations.
struct Cohort {
    label: u64,
    order: Vec<u16>,
    generations: Vec<Generation>,
}

impl Cohort {
    fn new(label: u64) -> Cohort {
        Cohort { label, order: Vec::new(), generations: Vec::new() }
    }
}

/// The cohort being sent in [label·T, (label+1)·T).
struct Sending {
    label: u64,
    end: SimTime,
    order: Vec<u16>,
    /// Per generation: flow, source count, header template, coded size.
    generations: Vec<(FlowId, u16, Packet, u16)>,
    high_sent: usize,
    low_sent: usize,
    /// Low-priority packets of the cohort at most (`redundancy`·n_k − n_k).
    low_limit: usize,
    /// Per way, whether it carried a packet of the cohort.
    carried: Vec<bool>,
    /// Per way, high- and low-priority packets of the cohort sent, and the most it may send.
    high_by: Vec<usize>,
    low_by: Vec<usize>,
    high_quota: Vec<usize>,
    low_quota: Vec<usize>,
}

impl Sending {
    fn size(&self) -> usize {
        self.order.len()
    }
}

/// Per way, what went out.
#[derive(Clone, Copy, Debug, Default)]
struct WayStats {
    high: u64,
    low: u64,
    beacons: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct GatewayStats {
    sources: u64,
    cohorts: u64,
    /// High-priority combinations the interval ended before (given up at the gateway).
    high_not_sent: u64,
}

/// What the builder hands the gateway (checked keys).
pub struct GatewayParams {
    pub device: NodeId,
    pub period: Duration,
    pub redundancy: f64,
    pub ways: Vec<DirId>,
    /// The ways' link names (for the summary).
    pub way_names: Vec<String>,
    pub header_on_wire: bool,
    pub header: HeaderForm,
    pub label_beacons: bool,
    pub split: Split,
    /// Per way, its access point's direction to the device.
    pub access: Vec<DirId>,
    pub rng: Rng,
    pub store: Rc<RefCell<SourceStore>>,
}

pub struct CotagGateway {
    p: GatewayParams,
    arriving: Cohort,
    sending: Option<Sending>,
    /// The label of the last cohort that had packets, and a header of one of its packets (for
    /// beacons).
    last_busy: Option<u64>,
    last_template: Option<Packet>,
    /// When the pending boundary timer fires (`None`: none pending).
    timer_at: Option<SimTime>,
    /// The way [`Self::feed_idle_ways`] starts with.
    first_way: usize,
    coefficients: Vec<u8>,
    way_stats: Vec<WayStats>,
    stats: GatewayStats,
}

impl CotagGateway {
    pub fn new(p: GatewayParams) -> CotagGateway {
        let ways = p.ways.len();
        CotagGateway {
            p,
            arriving: Cohort::new(1),
            sending: None,
            last_busy: None,
            last_template: None,
            timer_at: None,
            first_way: 0,
            coefficients: Vec::new(),
            way_stats: vec![WayStats::default(); ways],
            stats: GatewayStats::default(),
        }
    }

    /// The label of packets arriving at `now`: cohort k gathers [(k−1)T, kT).
    fn label_at(&self, now: SimTime) -> u64 {
        now.0 / self.p.period.as_picos() + 1
    }

    fn boundary(&self, label: u64) -> SimTime {
        SimTime(label.saturating_mul(self.p.period.as_picos()))
    }

    /// Processes every boundary up to `now`: the cohort being sent ends, the cohort that
    /// gathered before the boundary starts, beacons go out. Returns whether a boundary passed.
    fn advance(&mut self, ctx: &mut ProcCtx) -> bool {
        let now_label = self.label_at(ctx.now);
        let passed = self.arriving.label < now_label;
        while self.arriving.label < now_label {
            let k = self.arriving.label;
            if let Some(s) = self.sending.take() {
                self.stats.high_not_sent += s.size().saturating_sub(s.high_sent) as u64;
                if self.p.label_beacons && k + 1 == now_label {
                    for w in (0..self.p.ways.len()).filter(|&w| !s.carried[w]) {
                        self.send_beacon(ctx, w, s.label);
                    }
                }
            }
            let cohort = std::mem::replace(&mut self.arriving, Cohort::new(k + 1));
            if cohort.order.is_empty() {
                let recent = self.last_busy.is_some_and(|b| k <= b + 2);
                if self.p.label_beacons && recent && k + 1 == now_label {
                    for w in 0..self.p.ways.len() {
                        self.send_beacon(ctx, w, k);
                    }
                }
                continue;
            }
            self.last_busy = Some(k);
            self.last_template = Some(cohort.generations[0].template);
            self.stats.cohorts += 1;
            let n = cohort.order.len();
            let limit = ((n as f64 * self.p.redundancy).floor() as usize).max(n);
            let generations = cohort
                .generations
                .iter()
                .map(|g| (g.flow, g.packets.len() as u16, g.template, g.largest))
                .collect();
            let sources = cohort
                .generations
                .into_iter()
                .map(|g| FlowSources { flow: g.flow, packets: g.packets })
                .collect();
            self.p.store.borrow_mut().put(k, sources);
            // Only the cohort of the last boundary passed is still in its interval.
            if k + 1 == now_label {
                let ways = self.p.ways.len();
                self.sending = Some(Sending {
                    label: k,
                    end: self.boundary(k + 1),
                    order: cohort.order,
                    generations,
                    high_sent: 0,
                    low_sent: 0,
                    low_limit: limit - n,
                    carried: vec![false; ways],
                    high_by: vec![0; ways],
                    low_by: vec![0; ways],
                    high_quota: self.quotas(ctx, n),
                    low_quota: self.quotas(ctx, limit - n),
                });
            } else {
                self.stats.high_not_sent += n as u64;
            }
        }
        self.arm(ctx);
        passed
    }

    /// Per way, the most of `limit` packets (of one priority) it may send.
    fn quotas(&self, ctx: &ProcCtx, limit: usize) -> Vec<usize> {
        let rates: Vec<u64> = match self.p.split {
            Split::Pull => return vec![limit; self.p.ways.len()],
            Split::Rate => self.p.access.iter().map(|&d| ctx.dirs[d.0 as usize].rate_bps()).collect(),
        };
        shares(&rates, limit)
    }

    /// Gives every way with nothing queued its next packet, starting with a different way each
    /// time (so that a cohort smaller than the number of ways does not always take the first).
    fn feed_idle_ways(&mut self, ctx: &mut ProcCtx) {
        let n = self.p.ways.len();
        for i in 0..n {
            let w = (self.first_way + i) % n;
            if ctx.held_packets(self.p.ways[w]) == 0 {
                self.feed(ctx, w);
            }
        }
        self.first_way = (self.first_way + 1) % n;
    }

    /// Arms the timer for the next boundary while anything waits for one.
    fn arm(&mut self, ctx: &mut ProcCtx) {
        let busy = !self.arriving.order.is_empty()
            || self.sending.is_some()
            || self.last_busy.is_some_and(|b| self.arriving.label <= b + 2);
        if !busy {
            return;
        }
        let at = self.boundary(self.arriving.label);
        if self.timer_at != Some(at) {
            self.timer_at = Some(at);
            ctx.arm(Some(at), 0);
        }
    }

    /// Sends a beacon with `label` on way `w`.
    fn send_beacon(&mut self, ctx: &mut ProcCtx, w: usize, label: u64) {
        // A beacon takes the header of a packet of the last cohort that had any: it carries no
        // data and counts for that packet's flow.
        let Some(template) = self.last_template else { return };
        let pkt = ctx.packets.alloc(Packet { size: BEACON_BYTES, ..template });
        header::write(ctx.packets, pkt, CodedHeader { label, priority: Priority::Beacon, sources: 0 }, &[]);
        self.way_stats[w].beacons += 1;
        ctx.send_via(pkt, self.p.ways[w]);
    }

    /// Sends the next packet of the cohort in its interval on way `w`, if any is due.
    fn feed(&mut self, ctx: &mut ProcCtx, w: usize) {
        let Some(s) = self.sending.as_mut() else { return };
        if ctx.now >= s.end {
            return;
        }
        let (gen, priority) = if s.high_sent < s.size() && s.high_by[w] < s.high_quota[w] {
            s.high_sent += 1;
            s.high_by[w] += 1;
            (s.order[s.high_sent - 1], Priority::High)
        } else if s.low_sent < s.low_limit && s.low_by[w] < s.low_quota[w] {
            s.low_sent += 1;
            s.low_by[w] += 1;
            (s.order[(s.low_sent - 1) % s.size()], Priority::Low)
        } else {
            return;
        };
        let (_, n, template, largest) = s.generations[usize::from(gen)];
        self.coefficients.resize(usize::from(n), 0);
        draw_coefficients(&mut self.p.rng, &mut self.coefficients);
        let extra = if self.p.header_on_wire { header::wire_bytes(self.p.header, n) } else { 0 };
        let size = (u32::from(largest) + extra).min(u32::from(u16::MAX)) as u16;
        let pkt = ctx.packets.alloc(Packet { size, ..template });
        let label = s.label;
        header::write(ctx.packets, pkt, CodedHeader { label, priority, sources: n }, &self.coefficients);
        match priority {
            Priority::High => self.way_stats[w].high += 1,
            _ => self.way_stats[w].low += 1,
        }
        s.carried[w] = true;
        ctx.send_via(pkt, self.p.ways[w]);
    }

    /// Whether `pkt` is a data segment of a flow to the device.
    fn is_for_device(&self, p: &Packet) -> bool {
        p.dst == self.p.device && p.to == Side::Receiver && p.tcp.len > 0
    }
}

/// `count` split in proportion to `rates` by largest remainders, ties to the lower index: the
/// shares add up to `count` (all of it to each when every rate is 0).
fn shares(rates: &[u64], count: usize) -> Vec<usize> {
    let total: u128 = rates.iter().map(|&r| u128::from(r)).sum();
    if total == 0 {
        return vec![count; rates.len()];
    }
    let exact: Vec<(usize, u128)> = rates
        .iter()
        .map(|&r| {
            let x = count as u128 * u128::from(r);
            ((x / total) as usize, x % total)
        })
        .collect();
    let mut share: Vec<usize> = exact.iter().map(|&(q, _)| q).collect();
    let mut order: Vec<usize> = (0..rates.len()).collect();
    order.sort_by(|&a, &b| exact[b].1.cmp(&exact[a].1).then(a.cmp(&b)));
    let short = count - share.iter().sum::<usize>();
    for &w in order.iter().take(short) {
        share[w] += 1;
    }
    share
}

impl PacketProcessor for CotagGateway {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        let p = *ctx.packets.get(pkt);
        if !self.is_for_device(&p) || !ctx.packets.side_data(pkt).is_empty() {
            return Verdict::Pass;
        }
        if self.advance(ctx) {
            self.feed_idle_ways(ctx);
        }
        let c = &mut self.arriving;
        let gen = match c.generations.iter().position(|g| g.flow == p.flow) {
            Some(g) => g,
            None => {
                let mut template = p;
                template.ext = crate::ids::ExtId::NONE;
                c.generations.push(Generation { flow: p.flow, packets: Vec::new(), template, largest: 0 });
                c.generations.len() - 1
            }
        };
        let g = &mut c.generations[gen];
        g.packets.push(pkt);
        g.largest = g.largest.max(p.size);
        c.order.push(gen as u16);
        self.stats.sources += 1;
        self.arm(ctx);
        Verdict::Consumed
    }

    fn on_timer(&mut self, ctx: &mut ProcCtx, _token: u32) {
        if self.timer_at.is_some_and(|at| at <= ctx.now) {
            self.timer_at = None;
        }
        self.advance(ctx);
        self.feed_idle_ways(ctx);
    }

    fn paces(&self) -> Vec<DirId> {
        self.p.ways.clone()
    }

    fn on_ready(&mut self, ctx: &mut ProcCtx, dir: DirId) {
        if self.advance(ctx) {
            self.feed_idle_ways(ctx);
        } else if let Some(w) = self.p.ways.iter().position(|&d| d == dir) {
            self.feed(ctx, w);
        }
    }

    fn summary(&self) -> Value {
        let ways: Vec<Value> = self
            .way_stats
            .iter()
            .zip(&self.p.way_names)
            .map(|(s, name)| json!({"link": name, "high": s.high, "low": s.low, "beacons": s.beacons}))
            .collect();
        json!({
            "sources": self.stats.sources,
            "cohorts": self.stats.cohorts,
            "high_not_sent": self.stats.high_not_sent,
            "ways": ways,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::shares;

    #[test]
    fn test_shares_are_proportional_by_largest_remainders() {
        assert_eq!(shares(&[3, 10], 130), [30, 100]);
        assert_eq!(shares(&[3, 10], 65), [15, 50]);
        // 7 · 1/3 = 2.33, 7 · 2/3 = 4.67: the larger remainder gets the leftover packet.
        assert_eq!(shares(&[1, 2], 7), [2, 5]);
        // Equal remainders: the lower index.
        assert_eq!(shares(&[1, 1], 3), [2, 1]);
        assert_eq!(shares(&[0, 5], 4), [0, 4], "a way whose link carries nothing gets nothing");
        assert_eq!(shares(&[0, 0], 4), [4, 4], "no rate known: each way may take all");
    }
}
