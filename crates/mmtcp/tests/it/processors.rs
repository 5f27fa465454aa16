//! The packet-processor framework with test processors: what passes is untouched, what is consumed
//! is gone, packets sent "first" jump the queue in the order emitted, timers fire, control
//! messages pin a sender's window.

use crate::common::world;
use mmtcp::ids::{DirId, FlowId, NodeId, PacketId};
use mmtcp::net::Side;
use mmtcp::proxy::{Control, PacketProcessor, ProcCtx, ProcessorSlot, Verdict};
use mmtcp::sim::{Duration, SimTime};
use mmtcp::world::{Flow, World};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;

const MSS: u64 = 1448;

/// server —(1 Gbit/s, 5 ms)— bs —(100 Mbit/s, 5 ms)— ue; one NewReno flow of `size` from server
/// to ue (unlimited when empty).
fn chain(size: &str) -> String {
    chain_over(size, "rate = \"100Mbps\"\nbuffer = \"200pkt\"")
}

/// The same chain with `last_hop` as the body of the bs–ue link after `between` and `delay`.
fn chain_over(size: &str, last_hop: &str) -> String {
    let app = if size.is_empty() {
        r#"{ kind = "bulk" }"#.to_string()
    } else {
        format!(r#"{{ kind = "bulk", size = "{size}" }}"#)
    };
    format!(
        r#"
[simulation]
duration = "2s"
[metrics]
interval = "10ms"
[[node]]
name = "server"
[[node]]
name = "bs"
[[node]]
name = "ue"
[[link]]
between = ["server", "bs"]
rate = "1Gbps"
delay = "5ms"
[[link]]
between = ["bs", "ue"]
delay = "5ms"
{last_hop}
[[flow]]
from = "server"
to = "ue"
transport = {{ cc = "newreno" }}
app = {app}
"#
    )
}

fn slot(node: u32, processor: impl PacketProcessor + 'static) -> ProcessorSlot {
    ProcessorSlot { name: "test".into(), kind: "test", node: NodeId(node), processor: Box::new(processor) }
}

/// Drops of flow `f`'s packets on direction `dir`.
fn drops_on(f: &Flow, dir: DirId) -> u64 {
    f.link_drops().iter().filter(|(d, _)| *d == dir).map(|(_, [q, e])| q + e).sum()
}

fn run(mut w: World) -> World {
    w.run(&mut |_, _| true);
    w
}

/// Data segment index of a packet (`None` for ACKs and handshakes).
fn segment(ctx: &ProcCtx, pkt: PacketId) -> Option<u64> {
    let p = ctx.packets.get(pkt);
    (p.to == Side::Receiver && p.tcp.len > 0).then_some(p.tcp.seq / MSS)
}

struct Counter(Rc<RefCell<u64>>);

impl PacketProcessor for Counter {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        if segment(ctx, pkt).is_some() {
            *self.0.borrow_mut() += 1;
        }
        Verdict::Pass
    }
    fn on_timer(&mut self, _: &mut ProcCtx, _: u32) {}
    fn summary(&self) -> Value {
        json!({})
    }
}

#[test]
fn a_processor_that_passes_everything_changes_nothing() {
    let plain = run(world(&chain("3MB")));
    let seen = Rc::new(RefCell::new(0));
    let mut w = world(&chain("3MB"));
    w.add_processor(slot(1, Counter(seen.clone())));
    let with = run(w);
    let (a, b) = (&plain.flows()[0], &with.flows()[0]);
    assert_eq!(a.completed_at(), b.completed_at());
    assert!(b.completed_at().is_some());
    assert_eq!(a.sender().stats.segments_sent, b.sender().stats.segments_sent);
    assert_eq!(a.link_drops(), b.link_drops());
    assert_eq!(plain.events(), with.events());
    // Every data segment the server sent crossed bs, but those dropped on the way in.
    assert_eq!(*seen.borrow(), b.sender().stats.segments_sent - drops_on(b, DirId(0)));
}

/// Consumes (frees) every `every`-th data segment it sees.
struct Dropper {
    every: u64,
    seen: u64,
    dropped: Rc<RefCell<u64>>,
}

impl PacketProcessor for Dropper {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        if segment(ctx, pkt).is_none() {
            return Verdict::Pass;
        }
        self.seen += 1;
        if self.seen % self.every == 0 {
            *self.dropped.borrow_mut() += 1;
            ctx.packets.free(pkt);
            return Verdict::Consumed;
        }
        Verdict::Pass
    }
    fn on_timer(&mut self, _: &mut ProcCtx, _: u32) {}
    fn summary(&self) -> Value {
        json!({})
    }
}

#[test]
fn consumed_packets_go_no_further_and_tcp_repairs_them() {
    let dropped = Rc::new(RefCell::new(0));
    // One segment in forty lost holds NewReno near 10 segments of window: 1 MB takes about 2 s.
    let mut w = world(&chain("1MB").replace("duration = \"2s\"", "duration = \"4s\""));
    w.add_processor(slot(1, Dropper { every: 40, seen: 0, dropped: dropped.clone() }));
    let w = run(w);
    let f = &w.flows()[0];
    assert!(*dropped.borrow() >= 14, "one in forty of the ~700 segments (and of retransmissions)");
    assert!(f.sender().stats.retransmitted_segments >= *dropped.borrow());
    assert_eq!(f.receiver().stats.segments_arrived + *dropped.borrow(), f.sender().stats.segments_sent);
    assert_eq!(f.receiver().stats.bytes_delivered, 1_000_000);
    assert!(f.completed_at().is_some());
}

/// Holds data segments `hold` and sends them "first" when segment `release` arrives.
struct Holder {
    hold: std::ops::Range<u64>,
    release: u64,
    held: Vec<PacketId>,
}

impl PacketProcessor for Holder {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        match segment(ctx, pkt) {
            Some(s)
                if self.hold.contains(&s) && (self.held.len() as u64) < self.hold.end - self.hold.start =>
            {
                self.held.push(pkt);
                Verdict::Consumed
            }
            Some(s) if s == self.release => {
                for p in self.held.drain(..) {
                    ctx.send_first(p);
                }
                Verdict::Pass
            }
            _ => Verdict::Pass,
        }
    }
    fn on_timer(&mut self, _: &mut ProcCtx, _: u32) {}
    fn summary(&self) -> Value {
        json!({})
    }
}

/// Records the data segments reaching its node, in order.
struct Recorder(Rc<RefCell<Vec<u64>>>);

impl PacketProcessor for Recorder {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        if let Some(s) = segment(ctx, pkt) {
            self.0.borrow_mut().push(s);
        }
        Verdict::Pass
    }
    fn on_timer(&mut self, _: &mut ProcCtx, _: u32) {}
    fn summary(&self) -> Value {
        json!({})
    }
}

#[test]
fn packets_sent_first_jump_the_queue_in_the_order_emitted() {
    let arrivals = Rc::new(RefCell::new(Vec::new()));
    let mut w = world(&chain("1MB"));
    w.add_processor(slot(1, Holder { hold: 20..24, release: 40, held: Vec::new() }));
    w.add_processor(slot(2, Recorder(arrivals.clone())));
    let w = run(w);
    assert_eq!(w.flows()[0].receiver().stats.bytes_delivered, 1_000_000);
    let order = arrivals.borrow();
    let at = |s: u64| order.iter().position(|&x| x == s).unwrap();
    assert_eq!(
        (at(21), at(22), at(23)),
        (at(20) + 1, at(20) + 2, at(20) + 3),
        "the held segments leave together, in the order sent: {order:?}"
    );
    // The 1 Gbit/s hop fills bs's 100 Mbit/s queue in slow start: segments queued before 40
    // arrived are overtaken.
    assert!(at(20) < at(39), "{order:?}");
    assert!(at(20) < at(40));
}

#[test]
fn packets_sent_first_jump_the_rlc_buffer_with_consistent_sequence_numbers() {
    let radio = r#"kind = "radio"
[link.radio]
bandwidth = "20MHz"
channel = { kind = "constant", sinr_db = 20.0 }
rlc = { mode = "am", buffer = "1MB" }"#;
    let arrivals = Rc::new(RefCell::new(Vec::new()));
    let mut w = world(&chain_over("1MB", radio));
    w.add_processor(slot(1, Holder { hold: 20..24, release: 40, held: Vec::new() }));
    w.add_processor(slot(2, Recorder(arrivals.clone())));
    let w = run(w);
    assert_eq!(w.flows()[0].receiver().stats.bytes_delivered, 1_000_000);
    let order = arrivals.borrow();
    let at = |s: u64| order.iter().position(|&x| x == s).unwrap();
    assert_eq!((at(21), at(22), at(23)), (at(20) + 1, at(20) + 2, at(20) + 3), "{order:?}");
    assert!(at(20) < at(39), "{order:?}");
    // RLC delivers in SN order: had the held packets kept SNs above the queued ones, they would
    // have arrived after them.
    let mut sorted = order.clone();
    sorted.sort();
    assert_ne!(*order, sorted);
}

/// On the first data segment arms a timer `delay` later; when it fires, pins flow 0's window.
struct Pinner {
    delay: Duration,
    window: u64,
    armed_at: Option<SimTime>,
    fired_at: Rc<RefCell<Option<(SimTime, SimTime)>>>,
}

impl PacketProcessor for Pinner {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        if self.armed_at.is_none() && segment(ctx, pkt).is_some() {
            self.armed_at = Some(ctx.now);
            ctx.arm(Some(ctx.now + self.delay), 7);
        }
        Verdict::Pass
    }
    fn on_timer(&mut self, ctx: &mut ProcCtx, token: u32) {
        assert_eq!(token, 7);
        *self.fired_at.borrow_mut() = Some((self.armed_at.unwrap(), ctx.now));
        ctx.control(Control::PinCwnd { flow: FlowId(0), cwnd: Some(self.window) });
    }
    fn summary(&self) -> Value {
        json!({})
    }
}

#[test]
fn timers_fire_and_a_control_message_pins_the_senders_window() {
    let fired = Rc::new(RefCell::new(None));
    let mut w = world(&chain(""));
    let pinner =
        Pinner { delay: Duration::from_millis(50), window: 4 * MSS, armed_at: None, fired_at: fired.clone() };
    w.add_processor(slot(1, pinner));
    let w = run(w);
    let (armed, fired) = fired.borrow().expect("the timer fired");
    assert_eq!(fired - armed, Duration::from_millis(50));
    // The first data segment reaches bs after the handshake (20 ms) and one hop (5 ms).
    assert!(
        armed > SimTime::ZERO + Duration::from_millis(25)
            && armed < SimTime::ZERO + Duration::from_millis(26)
    );
    let f = &w.flows()[0];
    assert_eq!(f.sender().cwnd(), 4 * MSS);
    // Four segments per ~20 ms round trip: about 2.3 Mbit/s over the remaining ~1.9 s, far
    // below the 100 Mbit/s the link allows.
    let goodput = f.receiver().stats.bytes_delivered as f64 * 8.0 / 2.0;
    assert!(goodput < 4e6, "{goodput}");
    assert!(f.sender().pipe() <= 4 * MSS);
}

// ------------------------------------------------------------------------------------------------
// Processors that choose the interface a packet leaves by

/// server —core— gw, gw —a1— ap1 —r1— ue and gw —a2— ap2 —r2— ue: two equally short paths; a
/// NewReno download of 2 MB from server to ue.
const TWO_APS: &str = r#"
[simulation]
duration = "3s"
[[node]]
name = "server"
[[node]]
name = "gw"
[[node]]
name = "ap1"
[[node]]
name = "ap2"
[[node]]
name = "ue"
[[link]]
name = "core"
between = ["server", "gw"]
rate = "1Gbps"
delay = "1ms"
[[link]]
name = "a1"
between = ["gw", "ap1"]
rate = "1Gbps"
delay = "1ms"
[[link]]
name = "a2"
between = ["gw", "ap2"]
rate = "1Gbps"
delay = "2ms"
[[link]]
name = "r1"
between = ["ap1", "ue"]
rate = "100Mbps"
delay = "1ms"
[[link]]
name = "r2"
between = ["ap2", "ue"]
rate = "100Mbps"
delay = "1ms"
[[flow]]
from = "server"
to = "ue"
transport = { cc = "newreno" }
app = { kind = "bulk", size = "2MB" }
"#;

/// Sends the flow's data segments out of its node's interfaces `ways`, in turn; lets the rest
/// pass, counting in `sent[ways.len()]` those toward the receiver (the handshake's).
struct Sprayer {
    ways: Vec<DirId>,
    next: usize,
    sent: Rc<RefCell<Vec<u64>>>,
}

impl PacketProcessor for Sprayer {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        if segment(ctx, pkt).is_none() {
            if ctx.packets.get(pkt).to == Side::Receiver {
                self.sent.borrow_mut()[self.ways.len()] += 1;
            }
            return Verdict::Pass;
        }
        let way = self.ways[self.next % self.ways.len()];
        self.sent.borrow_mut()[self.next % self.ways.len()] += 1;
        self.next += 1;
        ctx.send_via(pkt, way);
        Verdict::Consumed
    }
    fn on_timer(&mut self, _: &mut ProcCtx, _: u32) {}
    fn summary(&self) -> Value {
        json!({})
    }
}

/// Packets sent over the forward direction of the link named `name`.
fn packets_over(w: &World, name: &str) -> u64 {
    let link = w.topology().links().iter().find(|l| l.name == name).unwrap();
    w.dirs()[link.dirs[0].0 as usize].stats().packets_sent
}

#[test]
fn a_spraying_processor_alternates_two_interfaces_and_the_flow_completes() {
    let plain = run(world(TWO_APS));
    assert_eq!(packets_over(&plain, "r2"), 0, "without the processor all data take the first-listed path");

    let mut w = world(TWO_APS);
    let gw = w.topology().node("gw").unwrap();
    let [a1, a2] = ["a1", "a2"].map(|n| w.topology().links().iter().find(|l| l.name == n).unwrap().dirs[0]);
    assert_eq!(w.topology().interfaces(gw), &[DirId(1), a1, a2], "gw's interfaces: core back, a1, a2");
    let sent = Rc::new(RefCell::new(vec![0, 0, 0]));
    w.add_processor(slot(gw.0, Sprayer { ways: vec![a1, a2], next: 0, sent: sent.clone() }));
    let w = run(w);

    let [via1, via2, passed] = [sent.borrow()[0], sent.borrow()[1], sent.borrow()[2]];
    assert!(via1 + via2 > 1_300, "every data segment of 2 MB passed the gateway: {via1} + {via2}");
    assert!(via1 == via2 || via1 == via2 + 1, "alternating: {via1} and {via2}");
    assert!((1..=2).contains(&passed), "the handshake's packets toward the UE: {passed}");
    // Each access point forwarded what it got to the UE by the route from there, and nothing
    // else; the handshake kept the flow's route, through ap1.
    assert_eq!(packets_over(&w, "a1"), via1 + passed);
    assert_eq!(packets_over(&w, "a2"), via2);
    assert_eq!(packets_over(&w, "r1"), via1 + passed);
    assert_eq!(packets_over(&w, "r2"), via2);
    // The ACKs kept their route back through ap1.
    let f = &w.flows()[0];
    assert_eq!(f.receiver().stats.bytes_delivered, 2_000_000);
    assert!(f.completed_at().is_some());
}

/// Records the direction each packet arrived by.
struct ArrivalLog(Rc<RefCell<Vec<Option<DirId>>>>);

impl PacketProcessor for ArrivalLog {
    fn on_packet(&mut self, ctx: &mut ProcCtx, _: PacketId) -> Verdict {
        self.0.borrow_mut().push(ctx.arrived_on);
        Verdict::Pass
    }
    fn on_timer(&mut self, _: &mut ProcCtx, _: u32) {}
    fn summary(&self) -> Value {
        json!({})
    }
}

#[test]
fn a_processor_knows_the_link_each_packet_arrived_by() {
    let mut w = world(TWO_APS);
    let [gw, ue] = ["gw", "ue"].map(|n| w.topology().node(n).unwrap());
    let [a1, a2, r1, r2] =
        ["a1", "a2", "r1", "r2"].map(|n| w.topology().links().iter().find(|l| l.name == n).unwrap().dirs[0]);
    w.add_processor(slot(
        gw.0,
        Sprayer { ways: vec![a1, a2], next: 0, sent: Rc::new(RefCell::new(vec![0, 0, 0])) },
    ));
    let log = Rc::new(RefCell::new(Vec::new()));
    w.add_processor(slot(ue.0, ArrivalLog(log.clone())));
    let w = run(w);
    let by = |d: DirId| log.borrow().iter().filter(|&&a| a == Some(d)).count() as u64;
    assert!(by(r1) > 600 && by(r2) > 600, "both ways carried data: {} {}", by(r1), by(r2));
    assert_eq!((by(r1), by(r2)), (packets_over(&w, "r1"), packets_over(&w, "r2")));
    assert_eq!(log.borrow().len() as u64, by(r1) + by(r2), "every packet names its link");
}

#[test]
#[should_panic(expected = "is not an interface of node")]
fn sending_through_another_nodes_interface_is_a_processor_bug() {
    let mut w = world(TWO_APS);
    let gw = w.topology().node("gw").unwrap();
    let r1 = w.topology().links().iter().find(|l| l.name == "r1").unwrap().dirs[0];
    w.add_processor(slot(gw.0, Sprayer { ways: vec![r1], next: 0, sent: Rc::new(RefCell::new(vec![0, 0])) }));
    run(w);
}

/// Records which radio direction each link report it receives comes from.
struct ReportLog {
    from: Vec<DirId>,
    seen: Rc<RefCell<Vec<DirId>>>,
}

impl PacketProcessor for ReportLog {
    fn on_packet(&mut self, _: &mut ProcCtx, _: PacketId) -> Verdict {
        Verdict::Pass
    }
    fn on_timer(&mut self, _: &mut ProcCtx, _: u32) {}
    fn reports_from(&self) -> Vec<DirId> {
        self.from.clone()
    }
    fn on_report(&mut self, _: &mut ProcCtx, report: &mmtcp::radio::report::LinkReport) {
        self.seen.borrow_mut().push(report.dir);
    }
    fn summary(&self) -> Value {
        json!({})
    }
}

#[test]
fn a_processor_receives_the_reports_of_several_radio_links() {
    let scenario = include_str!("../../../../scenarios/lte-and-28ghz.toml").replace("\"5s\"", "\"1s\"");
    let mut w = world(&scenario);
    let enb = w.topology().node("enb").unwrap();
    let down = |name: &str| w.topology().links().iter().find(|l| l.name == name).unwrap().dirs[0];
    let (lte, mmw) = (down("lte"), down("mmw"));
    let seen = Rc::new(RefCell::new(Vec::new()));
    w.add_processor(slot(enb.0, ReportLog { from: vec![lte, mmw], seen: seen.clone() }));
    let w = run(w);
    let published = |d: DirId| w.dirs()[d.0 as usize].radio().unwrap().reports_published;
    let count = |d: DirId| seen.borrow().iter().filter(|&&x| x == d).count() as u64;
    assert!(published(lte) > 0 && published(mmw) > 0, "{} {}", published(lte), published(mmw));
    assert_eq!((count(lte), count(mmw)), (published(lte), published(mmw)));
    assert_eq!(seen.borrow().len() as u64, published(lte) + published(mmw), "no other direction's");
}

/// Holds the flow's data segments in its own queue and feeds interfaces `ways` itself, one
/// packet queued at a time; counts per way what it sent, and the calls that found a way's queue
/// not empty.
struct Feeder {
    ways: Vec<DirId>,
    held: std::collections::VecDeque<PacketId>,
    sent: Rc<RefCell<Vec<u64>>>,
    ready_while_queued: Rc<RefCell<u64>>,
}

impl Feeder {
    fn feed(&mut self, ctx: &mut ProcCtx, k: usize) {
        if let Some(pkt) = self.held.pop_front() {
            self.sent.borrow_mut()[k] += 1;
            ctx.send_via(pkt, self.ways[k]);
        }
    }
}

impl PacketProcessor for Feeder {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        if segment(ctx, pkt).is_none() {
            return Verdict::Pass;
        }
        self.held.push_back(pkt);
        // A way that emptied while the feeder had nothing hears no more `on_ready` until it is
        // fed: every way with an empty queue gets a packet now (one each: what this call emits
        // joins the queues only afterwards).
        for k in 0..self.ways.len() {
            if ctx.held_packets(self.ways[k]) == 0 {
                self.feed(ctx, k);
            }
        }
        Verdict::Consumed
    }
    fn on_timer(&mut self, _: &mut ProcCtx, _: u32) {}
    fn paces(&self) -> Vec<DirId> {
        self.ways.clone()
    }
    fn on_ready(&mut self, ctx: &mut ProcCtx, dir: DirId) {
        assert_eq!(ctx.arrived_on, None, "no packet arrived");
        if ctx.held_packets(dir) != 0 {
            *self.ready_while_queued.borrow_mut() += 1;
        }
        let k = self.ways.iter().position(|&w| w == dir).expect("a paced way");
        self.feed(ctx, k);
    }
    fn summary(&self) -> Value {
        json!({})
    }
}

#[test]
fn a_processor_that_paces_its_interfaces_splits_by_their_rates_and_keeps_their_queues_short() {
    // The gateway's two ways are the bottleneck, the second at half the first's rate, and as
    // short as the first (so that the reordering stays below three duplicate ACKs).
    let scenario = TWO_APS
        .replacen(
            "rate = \"1Gbps\"\ndelay = \"1ms\"\n[[link]]\nname = \"a2\"",
            "rate = \"40Mbps\"\ndelay = \"1ms\"\n[[link]]\nname = \"a2\"",
            1,
        )
        .replacen("rate = \"1Gbps\"\ndelay = \"2ms\"", "rate = \"20Mbps\"\ndelay = \"1ms\"", 1);
    let mut w = world(&scenario);
    let gw = w.topology().node("gw").unwrap();
    let [a1, a2] = ["a1", "a2"].map(|n| w.topology().links().iter().find(|l| l.name == n).unwrap().dirs[0]);
    assert_eq!(
        (w.dirs()[a1.0 as usize].rate_bps(), w.dirs()[a2.0 as usize].rate_bps()),
        (40_000_000, 20_000_000)
    );
    let sent = Rc::new(RefCell::new(vec![0, 0]));
    let ready_while_queued = Rc::new(RefCell::new(0));
    w.add_processor(slot(
        gw.0,
        Feeder {
            ways: vec![a1, a2],
            held: Default::default(),
            sent: sent.clone(),
            ready_while_queued: ready_while_queued.clone(),
        },
    ));
    let w = run(w);

    let f = &w.flows()[0];
    assert_eq!(f.receiver().stats.bytes_delivered, 2_000_000, "nothing is stranded in the feeder");
    assert_eq!(*ready_while_queued.borrow(), 0, "on_ready comes only when the queue is empty");
    let (via1, via2) = (sent.borrow()[0], sent.borrow()[1]);
    let ratio = via1 as f64 / via2 as f64;
    assert!((1.8..2.2).contains(&ratio), "the split follows the rates 2:1: {via1} / {via2}");
    for d in [a1, a2] {
        let most = w.dirs()[d.0 as usize].stats().max_queue_bytes;
        assert!(most <= 1500, "{d:?} held at most one packet behind the one in service: {most} B");
    }
    assert!(drops_on(f, a1) + drops_on(f, a2) == 0);
}
