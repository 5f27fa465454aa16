//! The three COTAG processors driven by hand: what each emits, when, and what it drops.
//!
//! Nodes: server 0, gateway 1, access points 2 and 3, device 4. Directions are wired at rate 0,
//! so nothing the processors emit is queued: each `on_ready` call stands for its link becoming
//! free.

use super::access_point::{ApParams, CotagAp};
use super::device::{CotagDevice, DeviceParams};
use super::gateway::{CotagGateway, GatewayParams};
use super::header::{self, CodedHeader, HeaderForm, Priority};
use super::source_store::{FlowSources, SourceStore};
use super::Split;
use crate::coding::decoder::RankDecoder;
use crate::ids::{DirId, FlowId, NodeId, PacketId};
use crate::net::link::{Direction, Impairments};
use crate::net::{Packet, PacketArena, Side, TcpFlags, TcpHeader};
use crate::proxy::{Control, Emit, PacketProcessor, ProcCtx, Verdict};
use crate::sim::{Duration, Rng, SimTime};
use crate::topology::any_direction::AnyDirection;
use crate::units::BufferLimit;
use std::cell::RefCell;
use std::rc::Rc;

const SERVER: NodeId = NodeId(0);
const DEVICE: NodeId = NodeId(4);
/// Gateway → AP1, gateway → AP2, AP1 → device, AP2 → device, server → gateway.
const WAY1: DirId = DirId(0);
const WAY2: DirId = DirId(1);
const AP1_DEVICE: DirId = DirId(2);
const AP2_DEVICE: DirId = DirId(3);
const CORE: DirId = DirId(4);
const MSS: u16 = 1000;

fn ms(x: f64) -> SimTime {
    SimTime((x * 1e9) as u64)
}

fn wired(id: u32, from: u32, to: u32) -> AnyDirection {
    wired_at(id, from, to, 0)
}

fn wired_at(id: u32, from: u32, to: u32, rate_bps: u64) -> AnyDirection {
    AnyDirection::Wired(Direction::new(
        DirId(id),
        NodeId(from),
        NodeId(to),
        rate_bps,
        Duration::from_millis(1),
        BufferLimit::Packets(1000),
        Impairments::default(),
        Rng::for_component(1, "test"),
    ))
}

struct Harness {
    packets: PacketArena,
    dirs: Vec<AnyDirection>,
    out: Vec<Emit>,
    timers: Vec<(SimTime, u32)>,
    controls: Vec<Control>,
    now: SimTime,
}

impl Harness {
    fn new() -> Harness {
        Harness {
            packets: PacketArena::with_capacity(64),
            dirs: vec![wired(0, 1, 2), wired(1, 1, 3), wired(2, 2, 4), wired(3, 3, 4), wired(4, 0, 1)],
            out: Vec::new(),
            timers: Vec::new(),
            controls: Vec::new(),
            now: SimTime::ZERO,
        }
    }

    fn call<R>(&mut self, node: u32, arrived_on: Option<DirId>, f: impl FnOnce(&mut ProcCtx) -> R) -> R {
        let interfaces: &[DirId] = match node {
            1 => &[WAY1, WAY2],
            2 => &[AP1_DEVICE],
            3 => &[AP2_DEVICE],
            _ => &[],
        };
        let mut ctx = ProcCtx {
            now: self.now,
            node: NodeId(node),
            arrived_on,
            packets: &mut self.packets,
            dirs: &self.dirs,
            interfaces,
            out: &mut self.out,
            timers: &mut self.timers,
            controls: &mut self.controls,
        };
        f(&mut ctx)
    }

    /// A data segment of `flow` from the server to the device.
    fn data(&mut self, flow: u32, seq: u64) -> PacketId {
        let tcp = TcpHeader { seq, len: MSS, flags: TcpFlags::ACK, ..Default::default() };
        self.packets.alloc(Packet::new(
            FlowId(flow),
            (SERVER, DEVICE),
            Side::Receiver,
            tcp,
            (self.now, self.now),
        ))
    }

    /// A coded packet of `flow` with label, priority and coefficients.
    fn coded(&mut self, flow: u32, label: u64, priority: Priority, coefficients: &[u8]) -> PacketId {
        let pkt = self.data(flow, 0);
        let sources = coefficients.len() as u16;
        header::write(&mut self.packets, pkt, CodedHeader { label, priority, sources }, coefficients);
        pkt
    }

    /// The emitted packets since the last call: (label, priority, coefficients, via).
    fn take_out(&mut self) -> Vec<(CodedHeader, Vec<u8>, Option<DirId>)> {
        let out = std::mem::take(&mut self.out);
        out.iter()
            .map(|e| {
                let (h, c) = header::read(self.packets.side_data(e.pkt)).expect("a COTAG packet");
                (h, c.to_vec(), e.via)
            })
            .collect()
    }
}

fn gateway(store: Rc<RefCell<SourceStore>>, redundancy: f64, label_beacons: bool) -> CotagGateway {
    CotagGateway::new(gateway_params(store, redundancy, label_beacons))
}

fn gateway_params(store: Rc<RefCell<SourceStore>>, redundancy: f64, label_beacons: bool) -> GatewayParams {
    GatewayParams {
        device: DEVICE,
        period: Duration::from_millis(1),
        redundancy,
        ways: vec![WAY1, WAY2],
        way_names: vec!["a1".into(), "a2".into()],
        header_on_wire: true,
        header: HeaderForm::Coefficients,
        label_beacons,
        split: Split::Rate,
        access: vec![AP1_DEVICE, AP2_DEVICE],
        rng: Rng::for_component(1, "gw"),
        store,
    }
}

// ---- gateway ----------------------------------------------------------------------------------

#[test]
fn test_gateway_holds_a_cohort_until_its_boundary_then_codes_it_per_flow_in_arrival_order() {
    let store = Rc::new(RefCell::new(SourceStore::default()));
    let mut gw = gateway(store.clone(), 1.5, false);
    let mut h = Harness::new();
    let mut sources = Vec::new();
    for (t, flow) in [(0.1, 0), (0.5, 0), (0.7, 1)] {
        h.now = ms(t);
        let pkt = h.data(flow, 0);
        sources.push(pkt);
        assert_eq!(h.call(1, Some(CORE), |ctx| gw.on_packet(ctx, pkt)), Verdict::Consumed);
        h.call(1, None, |ctx| gw.on_ready(ctx, WAY1));
    }
    assert!(h.out.is_empty(), "nothing before the boundary at 1 ms");
    assert!(h.timers.iter().all(|&(at, _)| at == ms(1.0)) && !h.timers.is_empty());
    assert_eq!(store.borrow().packets(), 0, "the sources go to the store at the boundary");

    h.now = ms(1.0);
    h.call(1, None, |ctx| gw.on_timer(ctx, 0));
    let first = h.take_out();
    assert_eq!(first.len(), 2, "one packet per way");
    assert_eq!((first[0].2, first[1].2), (Some(WAY1), Some(WAY2)));
    h.now = ms(1.2);
    h.call(1, None, |ctx| gw.on_ready(ctx, WAY1));
    h.call(1, None, |ctx| gw.on_ready(ctx, WAY2));
    h.call(1, None, |ctx| gw.on_ready(ctx, WAY1));
    let rest = h.take_out();
    let all: Vec<_> = first.into_iter().chain(rest).collect();
    // 3 sources, limit ⌊1.5·3⌋ = 4: three high (flows in arrival order 0, 0, 1), one low (flow 0).
    let kinds: Vec<_> = all.iter().map(|(hd, c, _)| (hd.label, hd.priority, c.len())).collect();
    assert_eq!(
        kinds,
        [(1, Priority::High, 2), (1, Priority::High, 2), (1, Priority::High, 1), (1, Priority::Low, 2)]
    );
    assert!(all.iter().all(|(_, c, _)| c.iter().any(|&x| x != 0)), "no zero combination");
    let cohort = store.borrow_mut().take_through(1).expect("cohort 1 stored");
    assert_eq!(
        cohort,
        (
            1,
            vec![
                FlowSources { flow: FlowId(0), packets: vec![sources[0], sources[1]] },
                FlowSources { flow: FlowId(1), packets: vec![sources[2]] },
            ]
        )
    );
}

#[test]
fn test_gateway_coded_packets_grow_by_the_header_of_its_form() {
    // Three sources of one flow: each coded packet is a source's size plus the header, 7 bytes
    // and the 3 coefficients, or 7 bytes and a 2-byte seed; none with the header off the wire.
    let mut sizes = Vec::new();
    for (on_wire, form) in
        [(true, HeaderForm::Coefficients), (true, HeaderForm::Seed), (false, HeaderForm::Seed)]
    {
        let store = Rc::new(RefCell::new(SourceStore::default()));
        let mut gw = CotagGateway::new(GatewayParams {
            header_on_wire: on_wire,
            header: form,
            ..gateway_params(store, 1.0, false)
        });
        let mut h = Harness::new();
        h.now = ms(0.5);
        let source = (0..3).map(|seq| h.data(0, seq)).collect::<Vec<_>>();
        let source_size = h.packets.get(source[0]).size;
        for pkt in source {
            h.call(1, Some(CORE), |ctx| gw.on_packet(ctx, pkt));
        }
        h.now = ms(1.0);
        h.call(1, None, |ctx| gw.on_timer(ctx, 0));
        h.call(1, None, |ctx| gw.on_ready(ctx, WAY1));
        let out = std::mem::take(&mut h.out);
        assert_eq!(out.len(), 3, "every high-priority packet sent");
        let extra: Vec<_> = out.iter().map(|e| h.packets.get(e.pkt).size - source_size).collect();
        assert!(extra.windows(2).all(|w| w[0] == w[1]), "{extra:?}");
        sizes.push(extra[0]);
    }
    assert_eq!(sizes, [10, 9, 0]);
}

#[test]
fn test_gateway_rate_split_gives_each_way_its_access_links_share_of_the_cohort() {
    let store = Rc::new(RefCell::new(SourceStore::default()));
    let mut gw = gateway(store, 1.5, false);
    let mut h = Harness::new();
    // AP1's link to the device carries 1 Gbit/s, AP2's 3 Gbit/s.
    h.dirs[2] = wired_at(2, 2, 4, 1_000_000_000);
    h.dirs[3] = wired_at(3, 3, 4, 3_000_000_000);
    h.now = ms(0.5);
    for seq in 0..8 {
        let pkt = h.data(0, seq);
        h.call(1, Some(CORE), |ctx| gw.on_packet(ctx, pkt));
    }
    h.now = ms(1.0);
    h.call(1, None, |ctx| gw.on_timer(ctx, 0));
    // Both ways ask for packets as fast as they can: 20 asks each, far more than the cohort.
    for _ in 0..20 {
        h.call(1, None, |ctx| gw.on_ready(ctx, WAY1));
        h.call(1, None, |ctx| gw.on_ready(ctx, WAY2));
    }
    let out = h.take_out();
    // 8 sources, limit ⌊1.5·8⌋ = 12, split 1 : 3: high 2 / 6, low 1 / 3.
    let on = |w| out.iter().filter(|(_, _, via)| *via == Some(w)).count();
    assert_eq!((on(WAY1), on(WAY2)), (3, 9));
    let high = out.iter().filter(|(hd, _, _)| hd.priority == Priority::High).count();
    assert_eq!(high, 8, "every source goes out once at high priority");
    let ways = &gw.summary()["ways"];
    assert_eq!((ways[0]["high"].as_u64(), ways[0]["low"].as_u64()), (Some(2), Some(1)));
    assert_eq!((ways[1]["high"].as_u64(), ways[1]["low"].as_u64()), (Some(6), Some(3)));
}

#[test]
fn test_gateway_rate_split_gives_the_slower_way_only_its_share_of_the_high_priority_packets() {
    // Issue 27: with one quota for both priorities, ways pulling alternately split the high
    // priority packets evenly until the slower way's quota ran out (34.6 % where its rate share
    // was 23 %), and its access point gave up the excess. Rates 3 : 10, n_k = 130, redundancy
    // 1.5 (limit 195): high 30 / 100, low 15 / 50, whichever way asks first.
    for first in [WAY1, WAY2] {
        let store = Rc::new(RefCell::new(SourceStore::default()));
        let mut gw = gateway(store, 1.5, false);
        let mut h = Harness::new();
        h.dirs[2] = wired_at(2, 2, 4, 3_000_000_000);
        h.dirs[3] = wired_at(3, 3, 4, 10_000_000_000);
        h.now = ms(0.5);
        for seq in 0..130 {
            let pkt = h.data(0, seq);
            h.call(1, Some(CORE), |ctx| gw.on_packet(ctx, pkt));
        }
        h.now = ms(1.0);
        h.call(1, None, |ctx| gw.on_timer(ctx, 0));
        let second = if first == WAY1 { WAY2 } else { WAY1 };
        for _ in 0..200 {
            h.call(1, None, |ctx| gw.on_ready(ctx, first));
            h.call(1, None, |ctx| gw.on_ready(ctx, second));
        }
        let ways = &gw.summary()["ways"];
        let split = |w: usize| (ways[w]["high"].as_u64().unwrap(), ways[w]["low"].as_u64().unwrap());
        assert_eq!((split(0), split(1)), ((30, 15), (100, 50)), "{first:?} asking first");
        assert_eq!(gw.summary()["high_not_sent"], 0);
    }
}

#[test]
fn test_gateway_sends_a_cohort_only_within_its_interval() {
    let store = Rc::new(RefCell::new(SourceStore::default()));
    let mut gw = gateway(store, 10.0, false);
    let mut h = Harness::new();
    h.now = ms(0.5);
    for seq in 0..4 {
        let pkt = h.data(0, seq);
        h.call(1, Some(CORE), |ctx| gw.on_packet(ctx, pkt));
    }
    h.now = ms(1.0);
    h.call(1, None, |ctx| gw.on_timer(ctx, 0));
    h.now = ms(1.999);
    h.call(1, None, |ctx| gw.on_ready(ctx, WAY1));
    assert_eq!(h.take_out().len(), 3);
    h.now = ms(2.0);
    h.call(1, None, |ctx| gw.on_timer(ctx, 0));
    h.call(1, None, |ctx| gw.on_ready(ctx, WAY1));
    assert!(h.take_out().is_empty(), "cohort 1's interval ended at 2 ms with one high packet unsent");
    assert_eq!(gw.summary()["high_not_sent"], 1);
}

#[test]
fn test_gateway_beacons_carry_labels_on_ways_without_packets_and_past_the_last_busy_cohort() {
    let store = Rc::new(RefCell::new(SourceStore::default()));
    let mut gw = gateway(store, 1.0, true);
    let mut h = Harness::new();
    h.now = ms(0.5);
    let pkt = h.data(0, 0);
    h.call(1, Some(CORE), |ctx| gw.on_packet(ctx, pkt));
    for t in [1.0, 2.0, 3.0, 4.0] {
        h.now = ms(t);
        h.call(1, None, |ctx| gw.on_timer(ctx, 0));
    }
    let beacons: Vec<_> = h
        .take_out()
        .into_iter()
        .filter(|(hd, _, _)| hd.priority == Priority::Beacon)
        .map(|(hd, _, v)| (hd.label, v))
        .collect();
    // Cohort 1's one packet went by way 1: way 2 gets label 1 when the interval ends; then the
    // two empty cohorts after it on both ways.
    assert_eq!(
        beacons,
        [(1, Some(WAY2)), (2, Some(WAY1)), (2, Some(WAY2)), (3, Some(WAY1)), (3, Some(WAY2))]
    );
    let before = h.timers.len();
    h.now = ms(5.0);
    h.call(1, None, |ctx| gw.on_timer(ctx, 0));
    assert_eq!(h.timers.len(), before, "an idle gateway arms no timer");
}

// ---- access point -----------------------------------------------------------------------------

fn ap(buffer: usize) -> CotagAp {
    CotagAp::new(ApParams {
        to_device: AP1_DEVICE,
        incoming: vec![WAY1],
        buffer,
        rng: Rng::for_component(1, "ap"),
    })
}

fn deliver_to_ap(h: &mut Harness, ap: &mut CotagAp, label: u64, priority: Priority, coefficients: &[u8]) {
    let pkt = h.coded(0, label, priority, coefficients);
    assert_eq!(h.call(2, Some(WAY1), |ctx| ap.on_packet(ctx, pkt)), Verdict::Consumed);
}

fn pull(h: &mut Harness, ap: &mut CotagAp, times: usize) -> Vec<(CodedHeader, Vec<u8>, Option<DirId>)> {
    for _ in 0..times {
        h.call(2, None, |ctx| ap.on_ready(ctx, AP1_DEVICE));
    }
    h.take_out()
}

#[test]
fn test_access_point_forwards_a_label_only_from_the_next_label_to_the_one_after() {
    let mut h = Harness::new();
    let mut ap = ap(100);
    deliver_to_ap(&mut h, &mut ap, 1, Priority::High, &[1, 2]);
    deliver_to_ap(&mut h, &mut ap, 1, Priority::High, &[3, 4]);
    deliver_to_ap(&mut h, &mut ap, 1, Priority::Low, &[5, 6]);
    assert!(pull(&mut h, &mut ap, 3).is_empty(), "label 1 waits for a label-2 packet");
    deliver_to_ap(&mut h, &mut ap, 2, Priority::High, &[7]);
    let out = pull(&mut h, &mut ap, 5);
    // On the label-2 arrival, then on each pull: two high forwarded as received, then one
    // recombination (as many sent as received), then nothing.
    let kinds: Vec<_> = out.iter().map(|(hd, c, v)| (hd.label, hd.priority, c.len(), *v)).collect();
    assert_eq!(
        kinds,
        [
            (1, Priority::High, 2, Some(AP1_DEVICE)),
            (1, Priority::High, 2, Some(AP1_DEVICE)),
            (1, Priority::Low, 2, Some(AP1_DEVICE))
        ]
    );
    assert_eq!((&out[0].1[..], &out[1].1[..]), (&[1, 2][..], &[3, 4][..]));
    // The recombination lies in the span of what the access point held.
    let mut rank = RankDecoder::new(2);
    for row in [[1u8, 2], [3, 4], [5, 6]] {
        rank.insert(&row);
    }
    let held = rank.rank();
    assert!(!rank.insert(&out[2].1) && rank.rank() == held);

    deliver_to_ap(&mut h, &mut ap, 2, Priority::High, &[9]);
    deliver_to_ap(&mut h, &mut ap, 3, Priority::High, &[1]);
    deliver_to_ap(&mut h, &mut ap, 1, Priority::High, &[1, 1]);
    let out = pull(&mut h, &mut ap, 4);
    assert!(out.iter().all(|(hd, _, _)| hd.label == 2), "label 1 given up once label 3 arrived: {out:?}");
    assert_eq!(ap.summary()["late"], 1, "the late label-1 arrival");
}

#[test]
fn test_access_point_gives_up_unsent_packets_when_the_label_after_next_arrives() {
    let mut h = Harness::new();
    let mut ap = ap(100);
    for c in 1..=4 {
        deliver_to_ap(&mut h, &mut ap, 1, Priority::High, &[c, 1, 1, 1]);
    }
    deliver_to_ap(&mut h, &mut ap, 2, Priority::High, &[1]);
    assert_eq!(h.take_out().len(), 1, "one label-1 packet went out on the label-2 arrival");
    deliver_to_ap(&mut h, &mut ap, 3, Priority::High, &[1]);
    let out = pull(&mut h, &mut ap, 3);
    assert_eq!(out.iter().map(|(hd, _, _)| hd.label).collect::<Vec<_>>(), [2]);
    assert_eq!(ap.summary()["given_high"], 3);
    assert_eq!(ap.summary()["held"], 2, "the label-2 and label-3 packets");
}

#[test]
fn test_access_point_with_a_full_buffer_drops_low_priority_first_and_never_high_for_low() {
    let mut h = Harness::new();
    let mut ap = ap(3);
    deliver_to_ap(&mut h, &mut ap, 1, Priority::High, &[1, 0]);
    deliver_to_ap(&mut h, &mut ap, 1, Priority::Low, &[1, 1]);
    deliver_to_ap(&mut h, &mut ap, 1, Priority::Low, &[1, 2]);
    deliver_to_ap(&mut h, &mut ap, 1, Priority::Low, &[1, 3]);
    assert_eq!(ap.summary()["dropped_low"], 1, "a low arrival at a full buffer is dropped");
    deliver_to_ap(&mut h, &mut ap, 1, Priority::High, &[0, 1]);
    assert_eq!(ap.summary()["dropped_low"], 2, "the latest low made room for a high");
    deliver_to_ap(&mut h, &mut ap, 1, Priority::High, &[1, 7]);
    deliver_to_ap(&mut h, &mut ap, 1, Priority::High, &[1, 9]);
    assert_eq!(ap.summary()["dropped_high"], 1, "every held packet is high: the arrival is dropped");
    assert_eq!((ap.summary()["received_high"].as_u64(), ap.summary()["held"].as_u64()), (Some(3), Some(3)));
    deliver_to_ap(&mut h, &mut ap, 2, Priority::High, &[1]);
    let out = pull(&mut h, &mut ap, 4);
    let coefficients: Vec<_> =
        out.iter().filter(|(hd, _, _)| hd.priority == Priority::High).map(|(_, c, _)| c.clone()).collect();
    assert_eq!(coefficients, [vec![1, 0], vec![0, 1], vec![1, 7]], "every held high went out, in order");
}

// ---- device -----------------------------------------------------------------------------------

struct Device {
    h: Harness,
    device: CotagDevice,
    store: Rc<RefCell<SourceStore>>,
}

impl Device {
    fn new() -> Device {
        let store = Rc::new(RefCell::new(SourceStore::default()));
        let device = CotagDevice::new(DeviceParams {
            incoming: vec![AP1_DEVICE, AP2_DEVICE],
            link_names: vec!["r1".into(), "r2".into()],
            buffer: 100,
            store: store.clone(),
        });
        Device { h: Harness::new(), device, store }
    }

    /// Leaves `n` sources of flow 0 for `label` in the store.
    fn sources(&mut self, label: u64, n: usize) -> Vec<PacketId> {
        let pkts: Vec<_> = (0..n).map(|k| self.h.data(0, k as u64 * 1000)).collect();
        self.store.borrow_mut().put(label, vec![FlowSources { flow: FlowId(0), packets: pkts.clone() }]);
        pkts
    }

    fn arrive(&mut self, via: DirId, label: u64, priority: Priority, coefficients: &[u8]) {
        let pkt = self.h.coded(0, label, priority, coefficients);
        let device = &mut self.device;
        assert_eq!(self.h.call(4, Some(via), |ctx| device.on_packet(ctx, pkt)), Verdict::Consumed);
    }

    fn passed(&mut self) -> Vec<PacketId> {
        std::mem::take(&mut self.h.out).iter().map(|e| e.pkt).collect()
    }
}

#[test]
fn test_device_passes_a_full_rank_cohort_in_order_once_both_links_moved_past_it() {
    let mut d = Device::new();
    let sources = d.sources(1, 3);
    d.arrive(AP1_DEVICE, 1, Priority::High, &[1, 2, 3]);
    d.arrive(AP2_DEVICE, 1, Priority::High, &[0, 1, 5]);
    d.arrive(AP1_DEVICE, 1, Priority::Low, &[7, 0, 1]);
    d.arrive(AP1_DEVICE, 2, Priority::Beacon, &[]);
    assert!(d.passed().is_empty(), "AP2's link has not moved past label 1");
    d.arrive(AP2_DEVICE, 2, Priority::Beacon, &[]);
    assert_eq!(d.passed(), sources, "decoded, in the gateway's order");
    assert_eq!(d.device.summary()["decoded_packets"], 3);
    assert_eq!(d.store.borrow().packets(), 0);
    d.arrive(AP1_DEVICE, 1, Priority::Low, &[1, 1, 1]);
    assert_eq!(d.device.summary()["late"], 1);
}

#[test]
fn test_device_never_passes_a_cohort_short_of_full_rank_dependent_combinations_included() {
    let mut d = Device::new();
    let live = d.h.packets.live();
    d.sources(1, 3);
    d.arrive(AP1_DEVICE, 1, Priority::High, &[1, 2, 3]);
    d.arrive(AP2_DEVICE, 1, Priority::High, &[0, 1, 5]);
    // Their sum over GF(2⁸) (addition is XOR): dependent, adds no rank.
    d.arrive(AP2_DEVICE, 1, Priority::Low, &[1, 3, 6]);
    d.arrive(AP1_DEVICE, 2, Priority::Beacon, &[]);
    d.arrive(AP2_DEVICE, 3, Priority::Beacon, &[]);
    assert!(d.passed().is_empty());
    let s = d.device.summary();
    assert_eq!(
        (s["failed_generations"].as_u64(), s["lost_packets"].as_u64(), s["redundant"].as_u64()),
        (Some(1), Some(3), Some(1))
    );
    assert_eq!(d.h.packets.live(), live, "the sources were freed, and every coded packet");
}

#[test]
fn test_device_discards_cohorts_it_received_nothing_of_when_a_later_one_is_decided() {
    let mut d = Device::new();
    d.sources(1, 2);
    let second = d.sources(2, 1);
    d.arrive(AP1_DEVICE, 2, Priority::High, &[9]);
    d.arrive(AP2_DEVICE, 3, Priority::Beacon, &[]);
    d.arrive(AP1_DEVICE, 3, Priority::Beacon, &[]);
    assert_eq!(d.passed(), second);
    let s = d.device.summary();
    assert_eq!((s["failed_generations"].as_u64(), s["decoded_generations"].as_u64()), (Some(1), Some(1)));
}

#[test]
fn test_every_source_crosses_gateway_access_points_and_device_once_and_in_order() {
    // The three processors chained by hand with random erasures on the access links: whatever
    // the device passes is a full cohort, in the gateway's order, and no packet leaks.
    let store = Rc::new(RefCell::new(SourceStore::default()));
    let mut gw = gateway(store.clone(), 1.5, true);
    let mut aps = [
        ap(1000),
        CotagAp::new(ApParams {
            to_device: AP2_DEVICE,
            incoming: vec![WAY2],
            buffer: 1000,
            rng: Rng::for_component(1, "ap2"),
        }),
    ];
    let mut device = CotagDevice::new(DeviceParams {
        incoming: vec![AP1_DEVICE, AP2_DEVICE],
        link_names: vec!["r1".into(), "r2".into()],
        buffer: 1000,
        store,
    });
    let mut h = Harness::new();
    let mut loss = Rng::for_component(7, "loss");
    let mut sent = std::collections::HashSet::new();
    let mut passed = Vec::new();
    let mut seq = 0;
    for step in 0..480u64 {
        h.now = SimTime(step * 25_000_000); // 25 µs
        if step < 300 {
            let pkt = h.data((step % 2) as u32, seq);
            sent.insert(((step % 2) as u32, seq));
            seq += 1;
            h.call(1, Some(CORE), |ctx| gw.on_packet(ctx, pkt));
        }
        if h.timers.iter().any(|&(at, _)| at <= h.now) {
            h.timers.retain(|&(at, _)| at > h.now);
            h.call(1, None, |ctx| gw.on_timer(ctx, 0));
        }
        for (w, way) in [WAY1, WAY2].into_iter().enumerate() {
            h.call(1, None, |ctx| gw.on_ready(ctx, way));
            let node = 2 + w as u32;
            h.call(node, None, |ctx| aps[w].on_ready(ctx, [AP1_DEVICE, AP2_DEVICE][w]));
        }
        // Carry what was emitted one hop on (same step: the links are fast).
        for _ in 0..3 {
            for e in std::mem::take(&mut h.out) {
                match e.via {
                    Some(WAY1) => h.call(2, Some(WAY1), |ctx| aps[0].on_packet(ctx, e.pkt)),
                    Some(WAY2) => h.call(3, Some(WAY2), |ctx| aps[1].on_packet(ctx, e.pkt)),
                    Some(AP1_DEVICE | AP2_DEVICE) if loss.bernoulli(0.1) => {
                        h.packets.free(e.pkt);
                        Verdict::Consumed
                    }
                    Some(d) => h.call(4, Some(d), |ctx| device.on_packet(ctx, e.pkt)),
                    None => {
                        passed.push(e.pkt);
                        Verdict::Consumed
                    }
                };
            }
        }
    }
    let s = device.summary();
    let decoded = s["decoded_packets"].as_u64().unwrap();
    assert_eq!(passed.len() as u64, decoded);
    assert!(decoded > 150, "most cohorts decode despite 10 % erasures: {s}");
    let lost = s["lost_packets"].as_u64().unwrap();
    assert_eq!(decoded + lost, 300, "the beacons carried the last cohort's label through: {s}");
    assert!(gw.summary()["ways"][0]["beacons"].as_u64() >= Some(2));
    // Passed packets are sources (known by flow and sequence number: slots of freed packets are
    // reused), each once, and within a flow in sending order.
    let keys: Vec<(u32, u64)> =
        passed.iter().map(|&p| h.packets.get(p)).map(|p| (p.flow.0, p.tcp.seq)).collect();
    assert!(keys.iter().all(|k| sent.contains(k)), "only sources are passed");
    for flow in 0..2 {
        let seqs: Vec<u64> = keys.iter().filter(|k| k.0 == flow).map(|k| k.1).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "flow {flow} once each and in order: {seqs:?}");
    }
}
