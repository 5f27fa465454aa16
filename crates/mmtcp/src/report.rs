//! `summary.json`: everything a run measured, in one JSON document with a stable key order.
//!
//! Definitions (docs/metrics.md has the long form):
//! - goodput: bytes delivered in order to the receiving application × 8, divided by the time
//!   from the flow's start to its completion (downloads and sized transfers) or to the end of
//!   the run;
//! - delivery ratio (seed 002): data segments delivered to the application ÷ data segments that
//!   reached the receiver's TCP, duplicates included;
//! - RTT: the sender's samples (RFC 6298, never from retransmitted segments);
//! - one-way delay: per delivered segment, delivery to the application minus first transmission;
//! - link utilisation: bits sent ÷ bits the transmitter could have sent (∫ rate dt).

use crate::ids::{DirId, NodeId};
use crate::metrics::LogHistogram;
use crate::radio::direction::RadioDirection;
use crate::scenario::{Loaded, Scenario};
use crate::sim::{SimTime, PS_PER_SEC};
use crate::world::{Stop, World};
use serde_json::{json, Map, Value};

fn latency_ms(h: &LogHistogram) -> Value {
    let ms = |ps: f64| ps / 1e9;
    let q = |p: f64| h.quantile(p).map(ms);
    json!({
        "samples": h.count(),
        "mean": h.mean().map(ms),
        "p50": q(0.5),
        "p99": q(0.99),
        "p99_9": q(0.999),
        "p99_99": q(0.9999),
        "p99_999": q(0.99999),
        "min": h.min().map(|v| ms(v as f64)),
        "max": h.max().map(|v| ms(v as f64)),
    })
}

/// The whole of `summary.json` for a world that ran from `loaded` and stopped by `stop`, taking
/// `wall_seconds`.
pub fn summary(world: &World, loaded: &Loaded, stop: Stop, wall_seconds: f64) -> Value {
    let end = if stop == Stop::EventLimit { world.now() } else { world.stop_time() };
    let (flows, links) = flows_and_links(world, &loaded.scenario, end);
    let resolved = serde_json::to_value(&loaded.scenario).expect("a scenario always serialises");
    let events = world.events();
    json!({
        "mmtcp_version": env!("CARGO_PKG_VERSION"),
        "scenario_file": loaded.file,
        "seed": loaded.scenario.simulation.seed,
        "sim_seconds": end.as_secs_f64(),
        "wall_seconds": wall_seconds,
        "events": events,
        "events_per_second": if wall_seconds > 0.0 { events as f64 / wall_seconds } else { 0.0 },
        "stopped_by": stop_reason(stop),
        "peak_packets": world.peak_packets(),
        "flows": flows,
        "links": links,
        "processors": processors(world),
        "scenario": resolved,
    })
}

fn secs(t: SimTime) -> f64 {
    t.as_secs_f64()
}

/// The per-flow and per-link parts of the summary. `scenario` is the resolved scenario the world
/// was built from.
fn flows_and_links(world: &World, scenario: &Scenario, end: SimTime) -> (Value, Value) {
    let topology = world.topology();
    let name = |node: NodeId| topology.node_name(node);
    let dir_label = |dir: DirId| {
        format!("{} {}→{}", topology.link_of(dir).name, name(topology.from(dir)), name(topology.to(dir)))
    };

    let mut flows = Vec::new();
    for (f, config) in world.flows().iter().zip(&scenario.flows) {
        let rx = &f.receiver().stats;
        let tx = &f.sender().stats;
        let begin = f.start();
        let until = f.completed_at().unwrap_or(end);
        let active = until.saturating_since(begin).as_secs_f64();
        let goodput = if active > 0.0 { rx.bytes_delivered as f64 * 8.0 / active } else { 0.0 };
        let mut by_cause = Map::new();
        let mut by_place = Map::new();
        let (mut queue_full, mut errors) = (0u64, 0u64);
        for &(d, [q, e]) in f.link_drops() {
            queue_full += q;
            errors += e;
            by_place.insert(dir_label(d), json!(q + e));
        }
        by_cause.insert("queue_full".into(), json!(queue_full));
        by_cause.insert("link_error".into(), json!(errors));
        by_cause.insert("receive_buffer".into(), json!(rx.buffer_drops));
        if rx.buffer_drops > 0 {
            by_place.insert(format!("{} receive buffer", name(f.dst())), json!(rx.buffer_drops));
        }
        let delivery_ratio =
            (rx.segments_arrived > 0).then(|| rx.segments_delivered as f64 / rx.segments_arrived as f64);
        flows.push(json!({
            "name": f.name(),
            "from": name(f.src()),
            "to": name(f.dst()),
            "transport": config.transport.kind,
            "cc": config.transport.tcp.cc.name(),
            "app": config.app.name(),
            "start_seconds": secs(f.start()),
            "goodput_bps": goodput,
            "bytes_delivered": rx.bytes_delivered,
            "delivered_segments": rx.segments_delivered,
            "segments_sent": tx.segments_sent,
            "bytes_sent": tx.bytes_sent,
            "retransmitted_segments": tx.retransmitted_segments,
            "rto_count": tx.rto_count,
            "fast_recoveries": tx.fast_recoveries,
            "dropped_segments": {
                "total": queue_full + errors + rx.buffer_drops,
                "by_cause": by_cause,
                "by_place": by_place,
            },
            "arrived_segments": rx.segments_arrived,
            "duplicate_segments": rx.duplicate_segments,
            "delivery_ratio": delivery_ratio,
            "rtt_ms": latency_ms(&tx.rtt),
            "owd_ms": latency_ms(&rx.owd),
            "completion_seconds": f.completed_at().map(|t| t.saturating_since(begin).as_secs_f64()),
            "final_cwnd_bytes": f.sender().cwnd(),
        }));
    }

    let elapsed_ps = end.0 as f64;
    let mut links = Vec::new();
    for l in topology.links() {
        let mut directions = Vec::new();
        for &d in &l.dirs {
            let dir = &world.dirs()[d.0 as usize];
            let st = dir.stats();
            let bits = st.bytes_sent as f64 * 8.0;
            let capacity = st.capacity_bits();
            let utilisation = if capacity > 0.0 { bits / capacity } else { 0.0 };
            let mean_capacity =
                if elapsed_ps > 0.0 { capacity * PS_PER_SEC as f64 / elapsed_ps } else { 0.0 };
            let mean_queue = if elapsed_ps > 0.0 { st.queue_byte_ps as f64 / elapsed_ps } else { 0.0 };
            let mut entry = json!({
                "from": name(dir.from()),
                "to": name(dir.to()),
                "utilisation": utilisation,
                "packets_sent": st.packets_sent,
                "bytes_sent": st.bytes_sent,
                "drops": { "queue": st.drops_queue, "error": st.drops_error },
                "mean_queue_bytes": mean_queue,
                "max_queue_bytes": st.max_queue_bytes,
                "mean_capacity_bps": mean_capacity,
            });
            if let Some(r) = dir.radio() {
                entry["radio"] = radio_stack(r);
            }
            directions.push(entry);
        }
        let fwd = world.dirs()[l.dirs[0].0 as usize].stats();
        let drops: u64 = l
            .dirs
            .iter()
            .map(|d| {
                let st = world.dirs()[d.0 as usize].stats();
                st.drops_queue + st.drops_error
            })
            .sum();
        let mut link = Map::new();
        link.insert("name".into(), json!(l.name));
        link.insert("kind".into(), json!(if l.radio { "radio" } else { "wired" }));
        link.insert("between".into(), json!([name(l.between[0]), name(l.between[1])]));
        link.insert("utilisation".into(), directions[0]["utilisation"].clone());
        link.insert("drops".into(), json!(drops));
        if l.radio {
            let mean =
                if elapsed_ps > 0.0 { fwd.capacity_bits() * PS_PER_SEC as f64 / elapsed_ps } else { 0.0 };
            link.insert("mean_capacity_bps".into(), json!(mean));
        }
        link.insert("directions".into(), Value::Array(directions));
        links.push(Value::Object(link));
    }
    (Value::Array(flows), Value::Array(links))
}

/// What the MAC, HARQ and RLC of a radio-stack direction did.
fn radio_stack(r: &RadioDirection) -> Value {
    let s = &r.radio;
    let h = &r.harq.stats;
    let tx = r.tx.stats();
    let rx = r.rx.stats();
    let mean_sinr = (s.sinr_finite_ps > 0).then(|| s.sinr_db_ps / s.sinr_finite_ps as f64);
    let attempts = s.tb_attempts;
    json!({
        "mean_sinr_db": mean_sinr,
        "tb_attempts": attempts,
        "tb_errors": s.tb_errors,
        "tb_error_rate": (attempts > 0).then(|| s.tb_errors as f64 / attempts as f64),
        "outage_slots": s.outage_slots,
        "harq": {
            "first_attempts": h.first_attempts,
            "retransmissions": h.retransmissions,
            "failed": h.failed,
            "stalls": h.stalls,
        },
        "rlc": {
            "sdus_offered": tx.sdus_offered,
            "drops_buffer": tx.drops_buffer,
            "drops_codel": tx.drops_codel,
            "retx_segments": tx.retx_segments,
            "retx_bytes": tx.retx_bytes,
            "discards_max_retx": tx.discards_max_retx,
            "polls": tx.polls,
            "sdus_delivered": rx.sdus_delivered,
            "sdus_lost": rx.sdus_lost,
            "duplicate_segments": rx.duplicate_segments,
            "status_reports": rx.reports_sent,
        },
        "reports_published": r.reports_published,
    })
}

/// One entry per packet processor: where it sits, and its own counters.
fn processors(world: &World) -> Value {
    let list = world
        .processors()
        .iter()
        .map(|p| {
            json!({
                "name": p.name,
                "kind": p.kind,
                "node": world.node_name(p.node),
                "stats": p.processor.summary(),
            })
        })
        .collect();
    Value::Array(list)
}

/// How the run ended, for the summary.
fn stop_reason(stop: Stop) -> &'static str {
    match stop {
        Stop::Duration | Stop::Idle => "duration",
        Stop::EventLimit => "max_events",
        Stop::Interrupted => "interrupted",
    }
}
