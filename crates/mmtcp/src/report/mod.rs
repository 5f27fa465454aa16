//! `summary.json`: everything a run measured, in one JSON document with a stable key order.
//!
//! Definitions (docs/metrics.md has the long form):
//! - goodput: bytes delivered in order to the receiving application × 8, divided by the time
//!   from the flow's start to its completion (downloads and sized transfers) or to the end of
//!   the run; the steady-state goodput (with `metrics.steady_from`) the same from
//!   `steady_from`, or the flow's start if later, leaving the warm-up out;
//! - delivery ratio (Kim et al.): data segments delivered to the application ÷ data segments that
//!   reached the receiver's TCP, duplicates included;
//! - RTT: the sender's samples (RFC 6298, never from retransmitted segments);
//! - one-way delay: per delivered segment, delivery to the application minus first transmission;
//! - link utilisation: the share of the capacity the direction used, in [0, 1] — wired, bits
//!   sent ÷ bits the transmitter could have sent (∫ rate dt); radio stack, the capacity its
//!   transport blocks occupied ÷ the capacity of its own slots (`radio::direction`, docs/models/
//!   radio-link.md#capacity-and-utilisation), not bits sent ÷ capacity, which HARQ
//!   retransmissions and the lagging MCS push above 1.
//!
//! The document is a tree of plain structs serialised straight to text. It lists every flow and
//! link (and embeds the resolved scenario) only up to `metrics.summary_entries` of each; the
//! per-entity tables ([`tables`]: `flow_summary`, `link_summary`, `flow_drops`) always hold every
//! one, and `aggregates` ([`aggregate`]) sums them up, so that a run of 10⁴ flows writes a small
//! summary and three tables instead of tens of megabytes of JSON.

pub mod aggregate;
pub mod tables;

use crate::ids::{DirId, NodeId};
use crate::metrics::burst::BurstSummary;
use crate::metrics::{LogHistogram, Table};
use crate::net::Side;
use crate::radio::direction::RadioDirection;
use crate::scenario::{Loaded, Scenario};
use crate::sim::{SimTime, PS_PER_SEC};
use crate::topology::AnyDirection;
use crate::transport::tcp::autotune::RcvSpace;
use crate::world::{Connection, Entry, Flow, Stop, World};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::Value;

/// What a finished run reports: `summary.json` as text, and the per-entity summary tables.
pub struct Report {
    pub summary_json: String,
    pub tables: Vec<Table>,
    /// Whether the summary lists every flow and link and embeds the scenario (both counts within
    /// `metrics.summary_entries`); a caller writes the resolved scenario only then, unless asked.
    pub lists_entities: bool,
}

/// The report of a world that ran from `loaded` and stopped by `stop`, after `setup_seconds` of
/// wall time to load and build it and `wall_seconds` to run.
pub fn report(
    world: &World,
    loaded: &Loaded,
    stop: Stop,
    (setup_seconds, wall_seconds): (f64, f64),
) -> Report {
    let end = if stop == Stop::EventLimit { world.now() } else { world.stop_time() };
    let events = world.events();
    let flows = flows(world, &loaded.scenario, end);
    let links = links(world, end);
    let limit = loaded.scenario.metrics.summary_entries;
    let (list_flows, list_links) = (flows.len() <= limit, links.len() <= limit);
    let aggregates = aggregate::Aggregates::new(&flows, &links);
    let tables = tables::summary_tables(&flows, &links);
    let lists_entities = list_flows && list_links;
    let summary = Summary {
        mmtcp_version: env!("CARGO_PKG_VERSION"),
        scenario_file: &loaded.file,
        seed: loaded.scenario.simulation.seed,
        sim_seconds: end.as_secs_f64(),
        wall_seconds,
        setup_seconds,
        events,
        events_per_second: if wall_seconds > 0.0 { events as f64 / wall_seconds } else { 0.0 },
        stopped_by: stop_reason(stop),
        peak_packets: world.peak_packets(),
        aggregates,
        flows: list_flows.then_some(&flows),
        links: list_links.then_some(&links),
        processors: processors(world),
        burst: world.burst(),
        scenario: lists_entities.then_some(&loaded.scenario),
    };
    let summary_json = serde_json::to_string(&summary).expect("a summary always serialises");
    Report { summary_json, tables, lists_entities }
}

#[derive(Serialize)]
struct Summary<'a> {
    mmtcp_version: &'static str,
    scenario_file: &'a str,
    seed: u64,
    sim_seconds: f64,
    wall_seconds: f64,
    setup_seconds: f64,
    events: u64,
    events_per_second: f64,
    stopped_by: &'static str,
    peak_packets: usize,
    aggregates: aggregate::Aggregates,
    /// Every flow, with at most `metrics.summary_entries` of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    flows: Option<&'a Vec<FlowSummary<'a>>>,
    /// Every link, with at most `metrics.summary_entries` of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    links: Option<&'a Vec<LinkSummary<'a>>>,
    processors: Vec<ProcessorSummary<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    burst: Option<BurstSummary>,
    /// The resolved scenario, when the summary lists every flow and link.
    #[serde(skip_serializing_if = "Option::is_none")]
    scenario: Option<&'a Scenario>,
}

#[derive(Serialize)]
struct FlowSummary<'a> {
    name: &'a str,
    from: &'a str,
    to: &'a str,
    transport: &'a crate::scenario::schema::TransportKind,
    cc: &'static str,
    app: &'static str,
    start_seconds: f64,
    goodput_bps: f64,
    /// With `metrics.steady_from`: the goodput over the steady-state window.
    #[serde(skip_serializing_if = "Option::is_none")]
    steady_goodput_bps: Option<Option<f64>>,
    bytes_delivered: u64,
    delivered_segments: u64,
    segments_sent: u64,
    bytes_sent: u64,
    retransmitted_segments: u64,
    rto_count: u64,
    fast_recoveries: u64,
    dropped_segments: Drops,
    arrived_segments: u64,
    duplicate_segments: u64,
    delivery_ratio: Option<f64>,
    rtt_ms: Latency,
    owd_ms: Latency,
    completion_seconds: Option<f64>,
    final_cwnd_bytes: u64,
    /// MP-TCP: each subflow.
    #[serde(skip_serializing_if = "Option::is_none")]
    subflows: Option<Vec<SubflowSummary<'a>>>,
    /// MP-TCP: the connection level.
    #[serde(skip_serializing_if = "Option::is_none")]
    mptcp: Option<MptcpSummary>,
    /// A relay flow: its buffer.
    #[serde(skip_serializing_if = "Option::is_none")]
    relay: Option<RelaySummary<'a>>,
    /// `receive_buffer = "auto"`: the autotuned buffer (the connection's, for MP-TCP).
    #[serde(skip_serializing_if = "Option::is_none")]
    receive_buffer: Option<ReceiveBufferSummary>,
}

#[derive(Serialize)]
struct ReceiveBufferSummary {
    /// The buffer at the end (bytes of memory; the window is half of it) and its maximum.
    final_bytes: u64,
    max_bytes: u64,
    /// Periods in which it grew.
    growths: u64,
}

fn receive_buffer_summary(space: Option<&RcvSpace>) -> Option<ReceiveBufferSummary> {
    space.map(|s| ReceiveBufferSummary { final_bytes: s.buffer(), max_bytes: s.max(), growths: s.growths })
}

#[derive(Serialize)]
struct RelaySummary<'a> {
    /// The flow it reads.
    from: &'a str,
    buffer_bytes: u64,
    /// Bytes read from the upstream flow and written into this one.
    relayed_bytes: u64,
    /// Bytes in the buffer at the end, and the most it held at once.
    final_buffered_bytes: u64,
    max_buffered_bytes: u64,
    /// ACKs the upstream receiver sent only to announce the window the relay reopened.
    window_updates: u64,
}

#[derive(Serialize)]
struct SubflowSummary<'a> {
    name: &'a str,
    /// The data path's nodes.
    path: Vec<&'a str>,
    backup: bool,
    /// When it began to join (the first: when the connection started); `None`: never joined.
    start_seconds: Option<f64>,
    goodput_bps: f64,
    /// Bytes delivered in order on this subflow (copies re-injected or sent redundantly included).
    bytes_delivered: u64,
    /// This subflow's part of the bytes all subflows delivered.
    share: f64,
    /// With `metrics.steady_from`: its goodput over the steady-state window, and its part of
    /// the bytes all subflows delivered in that window.
    #[serde(skip_serializing_if = "Option::is_none")]
    steady_goodput_bps: Option<Option<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    steady_share: Option<Option<f64>>,
    segments_sent: u64,
    retransmitted_segments: u64,
    rto_count: u64,
    fast_recoveries: u64,
    /// Times the scheduler halved its window for holding up the connection.
    penalisations: u64,
    rtt_ms: Latency,
    final_cwnd_bytes: u64,
}

#[derive(Serialize)]
struct MptcpSummary {
    scheduler: &'static str,
    /// Bytes sent again on another subflow after a subflow's timeout, and how many timeouts
    /// queued any.
    reinjected_bytes: u64,
    reinjection_events: u64,
    /// Bytes of the oldest unacknowledged chunk sent again on a faster subflow while the window
    /// was blocked.
    opportunistic_bytes: u64,
    /// Bytes that reached the connection a second time.
    duplicate_bytes: u64,
    /// Bytes held in the connection's receive buffer waiting for earlier data.
    reorder_buffer_mean_bytes: f64,
    reorder_buffer_max_bytes: u64,
    /// How long each chunk waited there (zero for data that arrived in order).
    reorder_delay_ms: Latency,
    /// Reads after which every subflow announced the grown window at once
    /// (`mptcp_cleanup_rbuf`).
    window_updates: u64,
}

#[derive(Serialize)]
struct Drops {
    total: u64,
    by_cause: DropCauses,
    /// Where: `<link> <from>→<to>` per direction, then `<node> receive buffer`, in that order.
    by_place: Ordered,
}

#[derive(Serialize)]
struct DropCauses {
    queue_full: u64,
    link_error: u64,
    receive_buffer: u64,
}

/// A JSON object whose keys are known only at run time, in the order given.
struct Ordered(Vec<(String, u64)>);

impl Serialize for Ordered {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Latency statistics in milliseconds.
#[derive(Serialize)]
struct Latency {
    samples: u64,
    mean: Option<f64>,
    p50: Option<f64>,
    p99: Option<f64>,
    p99_9: Option<f64>,
    p99_99: Option<f64>,
    p99_999: Option<f64>,
    min: Option<f64>,
    max: Option<f64>,
}

fn latency_ms(h: &LogHistogram) -> Latency {
    let ms = |ps: f64| ps / 1e9;
    let q = |p: f64| h.quantile(p).map(ms);
    Latency {
        samples: h.count(),
        mean: h.mean().map(ms),
        p50: q(0.5),
        p99: q(0.99),
        p99_9: q(0.999),
        p99_99: q(0.9999),
        p99_999: q(0.99999),
        min: h.min().map(|v| ms(v as f64)),
        max: h.max().map(|v| ms(v as f64)),
    }
}

/// One entry per flow. `scenario` is the resolved scenario the world was built from.
fn flows<'a>(world: &'a World, scenario: &'a Scenario, end: SimTime) -> Vec<FlowSummary<'a>> {
    world
        .entries()
        .iter()
        .zip(&scenario.flows)
        .map(|(&entry, config)| {
            let summary = match entry {
                Entry::Tcp(f) => flow(world, &world.flows()[f], config, end),
                Entry::Mptcp(c) => connection(world, &world.connections()[c], config, end),
            };
            let relay = world.relays().iter().position(|r| r.downstream == entry);
            FlowSummary { relay: relay.map(|r| relay_summary(world, r)), ..summary }
        })
        .collect()
}

fn relay_summary(world: &World, r: usize) -> RelaySummary<'_> {
    let upstream = &world.flows()[world.relays()[r].upstream];
    let app = world.relay_app(r);
    let buffer = app.relay().expect("a relay's application has a buffer");
    RelaySummary {
        from: upstream.name(),
        buffer_bytes: buffer.capacity,
        relayed_bytes: app.written(),
        final_buffered_bytes: buffer.held,
        max_buffered_bytes: buffer.max_held,
        window_updates: upstream.receiver().stats.window_updates,
    }
}

/// Bytes × 8 over the time from `begin` to `until`.
fn goodput_bps(bytes: u64, begin: SimTime, until: SimTime) -> f64 {
    let active = until.saturating_since(begin).as_secs_f64();
    if active > 0.0 {
        bytes as f64 * 8.0 / active
    } else {
        0.0
    }
}

/// The steady-state window (`metrics.steady_from`) of a flow that started at `begin` and ran
/// until `until`: `None` without the key; `Some(None)` (null) if the run stopped before the window
/// began, or the flow ended before it did; else `Some(Some(goodput))` of the bytes delivered
/// since, `bytes_now − bytes_at_steady`, over the time from the later of `steady_from` and `begin`.
fn steady_goodput_bps(
    world: &World,
    (bytes_now, bytes_at_steady): (u64, u64),
    begin: SimTime,
    until: SimTime,
) -> Option<Option<f64>> {
    let from = world.steady_from()?;
    let begin = begin.max(from);
    Some(
        (world.steady_reached() && until > begin)
            .then(|| goodput_bps(bytes_now - bytes_at_steady, begin, until)),
    )
}

/// The drops of `flows`' packets on links, and `buffer_drops` at the receiver `dst`.
fn drops(world: &World, flows: &[Flow], dst: NodeId, buffer_drops: u64) -> Drops {
    let topology = world.topology();
    let name = |node: NodeId| topology.node_name(node);
    let mut by_dir: Vec<(DirId, [u64; 2])> =
        flows.iter().flat_map(|f| f.link_drops().iter().copied()).collect();
    by_dir.sort_by_key(|(d, _)| d.0);
    let (mut queue_full, mut errors) = (0u64, 0u64);
    let mut by_place: Vec<(String, u64)> = Vec::new();
    let mut last = None;
    for (d, [q, e]) in by_dir {
        queue_full += q;
        errors += e;
        if last == Some(d) {
            by_place.last_mut().expect("pushed").1 += q + e;
            continue;
        }
        last = Some(d);
        let label =
            format!("{} {}→{}", topology.link_of(d).name, name(topology.from(d)), name(topology.to(d)));
        by_place.push((label, q + e));
    }
    if buffer_drops > 0 {
        by_place.push((format!("{} receive buffer", name(dst)), buffer_drops));
    }
    Drops {
        total: queue_full + errors + buffer_drops,
        by_cause: DropCauses { queue_full, link_error: errors, receive_buffer: buffer_drops },
        by_place: Ordered(by_place),
    }
}

/// An MP-TCP connection: the connection level, with the subflows' counters summed and each
/// subflow listed.
fn connection<'a>(
    world: &'a World,
    c: &'a Connection,
    config: &'a crate::scenario::schema::FlowConfig,
    end: SimTime,
) -> FlowSummary<'a> {
    let topology = world.topology();
    let subflows = &world.flows()[c.subflows()];
    let rx = &c.data_receiver().stats;
    let begin = c.start();
    let until = c.completed_at().unwrap_or(end);
    let sum = |get: &dyn Fn(&Flow) -> u64| subflows.iter().map(get).sum::<u64>();
    let mut rtt = LogHistogram::default();
    for f in subflows {
        rtt.merge(&f.sender().stats.rtt);
    }
    let arrived = sum(&|f| f.receiver().stats.segments_arrived);
    let delivered_all = sum(&|f| f.receiver().stats.bytes_delivered);
    let steady_bytes = |f: &Flow| f.receiver().stats.bytes_delivered - f.delivered_at_steady();
    let steady_all = sum(&steady_bytes);
    // `share`'s steady-state counterpart: null before the window, 0 if nothing was delivered.
    let steady_share = |f: &Flow| {
        world.steady_from().map(|_| {
            world.steady_reached().then(|| {
                if steady_all > 0 {
                    steady_bytes(f) as f64 / steady_all as f64
                } else {
                    0.0
                }
            })
        })
    };
    let subflow_list = subflows
        .iter()
        .enumerate()
        .map(|(k, f)| {
            let route = world.routes().hops(f.route(Side::Receiver));
            let mut path = vec![topology.node_name(topology.from(route[0]))];
            path.extend(route.iter().map(|&d| topology.node_name(topology.to(d))));
            let bytes = f.receiver().stats.bytes_delivered;
            let tx = &f.sender().stats;
            let joined = f.sender().is_established() || tx.segments_sent > 0 || k == 0;
            SubflowSummary {
                name: f.name(),
                path,
                backup: c.is_backup(k),
                start_seconds: joined.then(|| f.start().as_secs_f64()),
                goodput_bps: if joined { goodput_bps(bytes, f.start(), until) } else { 0.0 },
                bytes_delivered: bytes,
                share: if delivered_all > 0 { bytes as f64 / delivered_all as f64 } else { 0.0 },
                steady_goodput_bps: if joined {
                    steady_goodput_bps(world, (bytes, f.delivered_at_steady()), f.start(), until)
                } else {
                    steady_goodput_bps(world, (0, 0), SimTime::ZERO, until)
                },
                steady_share: steady_share(f),
                segments_sent: tx.segments_sent,
                retransmitted_segments: tx.retransmitted_segments,
                rto_count: tx.rto_count,
                fast_recoveries: tx.fast_recoveries,
                penalisations: tx.penalisations,
                rtt_ms: latency_ms(&tx.rtt),
                final_cwnd_bytes: f.sender().cwnd(),
            }
        })
        .collect();
    let data_tx = &c.data_sender().stats;
    FlowSummary {
        name: c.name(),
        from: topology.node_name(c.src()),
        to: topology.node_name(c.dst()),
        transport: &config.transport.kind,
        cc: config.transport.tcp.cc.name(),
        app: config.app.name(),
        start_seconds: begin.as_secs_f64(),
        goodput_bps: goodput_bps(rx.bytes_delivered, begin, until),
        steady_goodput_bps: steady_goodput_bps(
            world,
            (rx.bytes_delivered, c.delivered_at_steady()),
            begin,
            until,
        ),
        bytes_delivered: rx.bytes_delivered,
        delivered_segments: rx.chunks_delivered,
        segments_sent: sum(&|f| f.sender().stats.segments_sent),
        bytes_sent: sum(&|f| f.sender().stats.bytes_sent),
        retransmitted_segments: sum(&|f| f.sender().stats.retransmitted_segments),
        rto_count: sum(&|f| f.sender().stats.rto_count),
        fast_recoveries: sum(&|f| f.sender().stats.fast_recoveries),
        dropped_segments: drops(world, subflows, c.dst(), rx.buffer_drops),
        arrived_segments: arrived,
        duplicate_segments: sum(&|f| f.receiver().stats.duplicate_segments),
        delivery_ratio: (arrived > 0).then(|| rx.chunks_delivered as f64 / arrived as f64),
        rtt_ms: latency_ms(&rtt),
        owd_ms: latency_ms(&rx.owd),
        completion_seconds: c.completed_at().map(|t| t.saturating_since(begin).as_secs_f64()),
        final_cwnd_bytes: sum(&|f| f.sender().cwnd()),
        subflows: Some(subflow_list),
        relay: None,
        mptcp: Some(MptcpSummary {
            scheduler: c.scheduler().name(),
            reinjected_bytes: data_tx.reinjected_bytes,
            reinjection_events: data_tx.reinjection_events,
            opportunistic_bytes: data_tx.opportunistic_bytes,
            duplicate_bytes: rx.duplicate_bytes,
            reorder_buffer_mean_bytes: rx.mean_held(end, c.data_receiver().held()),
            reorder_buffer_max_bytes: rx.max_held,
            reorder_delay_ms: latency_ms(&rx.reorder_delay),
            window_updates: rx.window_updates,
        }),
        receive_buffer: receive_buffer_summary(c.data_receiver().autotune()),
    }
}

fn flow<'a>(
    world: &'a World,
    f: &'a Flow,
    config: &'a crate::scenario::schema::FlowConfig,
    end: SimTime,
) -> FlowSummary<'a> {
    let name = |node: NodeId| world.topology().node_name(node);
    let rx = &f.receiver().stats;
    let tx = &f.sender().stats;
    let begin = f.start();
    let until = f.completed_at().unwrap_or(end);
    FlowSummary {
        name: f.name(),
        from: name(f.src()),
        to: name(f.dst()),
        transport: &config.transport.kind,
        cc: config.transport.tcp.cc.name(),
        app: config.app.name(),
        start_seconds: begin.as_secs_f64(),
        goodput_bps: goodput_bps(rx.bytes_delivered, begin, until),
        steady_goodput_bps: steady_goodput_bps(
            world,
            (rx.bytes_delivered, f.delivered_at_steady()),
            begin,
            until,
        ),
        bytes_delivered: rx.bytes_delivered,
        delivered_segments: rx.segments_delivered,
        segments_sent: tx.segments_sent,
        bytes_sent: tx.bytes_sent,
        retransmitted_segments: tx.retransmitted_segments,
        rto_count: tx.rto_count,
        fast_recoveries: tx.fast_recoveries,
        dropped_segments: drops(world, std::slice::from_ref(f), f.dst(), rx.buffer_drops),
        arrived_segments: rx.segments_arrived,
        duplicate_segments: rx.duplicate_segments,
        delivery_ratio: (rx.segments_arrived > 0)
            .then(|| rx.segments_delivered as f64 / rx.segments_arrived as f64),
        rtt_ms: latency_ms(&tx.rtt),
        owd_ms: latency_ms(&rx.owd),
        completion_seconds: f.completed_at().map(|t| t.saturating_since(begin).as_secs_f64()),
        final_cwnd_bytes: f.sender().cwnd(),
        subflows: None,
        mptcp: None,
        relay: None,
        receive_buffer: receive_buffer_summary(f.receiver().autotune()),
    }
}

#[derive(Serialize)]
struct LinkSummary<'a> {
    name: &'a str,
    kind: &'static str,
    between: [&'a str; 2],
    /// The forward direction's.
    utilisation: f64,
    /// Both directions', every cause.
    drops: u64,
    /// Radio links: the forward direction's mean capacity.
    #[serde(skip_serializing_if = "Option::is_none")]
    mean_capacity_bps: Option<f64>,
    directions: [DirectionSummary<'a>; 2],
}

#[derive(Serialize)]
struct DirectionSummary<'a> {
    from: &'a str,
    to: &'a str,
    utilisation: f64,
    packets_sent: u64,
    bytes_sent: u64,
    drops: DirectionDrops,
    mean_queue_bytes: f64,
    max_queue_bytes: u64,
    mean_capacity_bps: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    radio: Option<RadioSummary>,
}

#[derive(Serialize)]
struct DirectionDrops {
    queue: u64,
    error: u64,
}

/// One entry per link, in the scenario's order.
fn links(world: &World, end: SimTime) -> Vec<LinkSummary<'_>> {
    let topology = world.topology();
    let elapsed_ps = end.0 as f64;
    let per_second =
        |integral: f64| if elapsed_ps > 0.0 { integral * PS_PER_SEC as f64 / elapsed_ps } else { 0.0 };
    let direction = |dir: &AnyDirection| {
        let st = dir.stats();
        let capacity = st.capacity_bits();
        DirectionSummary {
            from: topology.node_name(dir.from()),
            to: topology.node_name(dir.to()),
            utilisation: dir.utilisation(),
            packets_sent: st.packets_sent,
            bytes_sent: st.bytes_sent,
            drops: DirectionDrops { queue: st.drops_queue, error: st.drops_error },
            mean_queue_bytes: if elapsed_ps > 0.0 { st.queue_byte_ps as f64 / elapsed_ps } else { 0.0 },
            max_queue_bytes: st.max_queue_bytes,
            mean_capacity_bps: per_second(capacity),
            radio: dir.radio().map(radio_stack),
        }
    };
    topology
        .links()
        .iter()
        .map(|l| {
            let [fwd, rev] = l.dirs.map(|d| &world.dirs()[d.0 as usize]);
            let drops = [fwd, rev].iter().map(|d| d.stats().drops_queue + d.stats().drops_error).sum();
            let directions = [direction(fwd), direction(rev)];
            LinkSummary {
                name: &l.name,
                kind: if l.radio { "radio" } else { "wired" },
                between: l.between.map(|n| topology.node_name(n)),
                utilisation: directions[0].utilisation,
                drops,
                mean_capacity_bps: l.radio.then(|| per_second(fwd.stats().capacity_bits())),
                directions,
            }
        })
        .collect()
}

#[derive(Serialize)]
struct RadioSummary {
    mean_sinr_db: Option<f64>,
    tb_attempts: u64,
    tb_errors: u64,
    tb_error_rate: Option<f64>,
    outage_slots: u64,
    rlf_events: u64,
    harq: HarqSummary,
    rlc: RlcSummary,
    reports_published: u64,
}

#[derive(Serialize)]
struct HarqSummary {
    first_attempts: u64,
    retransmissions: u64,
    failed: u64,
    stalls: u64,
}

#[derive(Serialize)]
struct RlcSummary {
    sdus_offered: u64,
    drops_buffer: u64,
    drops_codel: u64,
    drops_discard_timer: u64,
    drops_rlf: u64,
    retx_segments: u64,
    retx_bytes: u64,
    discards_max_retx: u64,
    polls: u64,
    sdus_delivered: u64,
    sdus_lost: u64,
    duplicate_segments: u64,
    status_reports: u64,
}

/// What the MAC, HARQ and RLC of a radio-stack direction did.
fn radio_stack(r: &RadioDirection) -> RadioSummary {
    let s = &r.radio;
    let h = &r.harq.stats;
    let tx = r.tx.stats();
    let rx = r.rx.stats();
    let attempts = s.tb_attempts;
    RadioSummary {
        mean_sinr_db: (s.sinr_finite_ps > 0).then(|| s.sinr_db_ps / s.sinr_finite_ps as f64),
        tb_attempts: attempts,
        tb_errors: s.tb_errors,
        tb_error_rate: (attempts > 0).then(|| s.tb_errors as f64 / attempts as f64),
        outage_slots: s.outage_slots,
        rlf_events: s.rlf_events,
        harq: HarqSummary {
            first_attempts: h.first_attempts,
            retransmissions: h.retransmissions,
            failed: h.failed,
            stalls: h.stalls,
        },
        rlc: RlcSummary {
            sdus_offered: tx.sdus_offered,
            drops_buffer: tx.drops_buffer,
            drops_codel: tx.drops_codel,
            drops_discard_timer: tx.drops_discard_timer,
            drops_rlf: s.drops_rlf,
            retx_segments: tx.retx_segments,
            retx_bytes: tx.retx_bytes,
            discards_max_retx: tx.discards_max_retx,
            polls: tx.polls,
            sdus_delivered: rx.sdus_delivered,
            sdus_lost: rx.sdus_lost,
            duplicate_segments: rx.duplicate_segments,
            status_reports: rx.reports_sent,
        },
        reports_published: r.reports_published,
    }
}

#[derive(Serialize)]
struct ProcessorSummary<'a> {
    name: &'a str,
    kind: &'static str,
    node: &'a str,
    stats: Value,
}

/// One entry per packet processor: where it sits, and its own counters.
fn processors(world: &World) -> Vec<ProcessorSummary<'_>> {
    world
        .processors()
        .iter()
        .map(|p| ProcessorSummary {
            name: &p.name,
            kind: p.kind,
            node: world.node_name(p.node),
            stats: p.processor.summary(),
        })
        .collect()
}

/// How the run ended, for the summary.
fn stop_reason(stop: Stop) -> &'static str {
    match stop {
        Stop::Duration | Stop::Idle => "duration",
        Stop::EventLimit => "max_events",
        Stop::Interrupted => "interrupted",
    }
}
