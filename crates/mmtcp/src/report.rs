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

use crate::metrics::LogHistogram;
use crate::radio::direction::RadioDirection;
use crate::scenario::Scenario;
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

fn secs(t: SimTime) -> f64 {
    t.as_secs_f64()
}

/// The per-flow and per-link parts of the summary. `scenario` is the resolved scenario the world
/// was built from.
pub fn flows_and_links(world: &World, scenario: &Scenario, end: SimTime) -> (Value, Value) {
    let dir_label = |d: usize| {
        let dir = &world.dirs[d];
        let link = world
            .links
            .iter()
            .find(|l| l.dirs.iter().any(|x| x.0 as usize == d))
            .expect("every direction belongs to a link");
        format!(
            "{} {}→{}",
            link.name,
            world.node_names[dir.from().0 as usize],
            world.node_names[dir.to().0 as usize]
        )
    };

    let mut flows = Vec::new();
    for (f, config) in world.flows.iter().zip(&scenario.flows) {
        let rx = &f.receiver.stats;
        let tx = &f.sender.stats;
        let begin = f.start;
        let until = f.completed_at.unwrap_or(end);
        let active = until.saturating_since(begin).as_secs_f64();
        let goodput = if active > 0.0 { rx.bytes_delivered as f64 * 8.0 / active } else { 0.0 };
        let mut by_cause = Map::new();
        let mut by_place = Map::new();
        let (mut queue_full, mut errors) = (0u64, 0u64);
        for (d, [q, e]) in f.link_drops.iter().enumerate() {
            queue_full += q;
            errors += e;
            if q + e > 0 {
                by_place.insert(dir_label(d), json!(q + e));
            }
        }
        by_cause.insert("queue_full".into(), json!(queue_full));
        by_cause.insert("link_error".into(), json!(errors));
        by_cause.insert("receive_buffer".into(), json!(rx.buffer_drops));
        if rx.buffer_drops > 0 {
            by_place.insert(
                format!("{} receive buffer", world.node_names[f.dst.0 as usize]),
                json!(rx.buffer_drops),
            );
        }
        let delivery_ratio =
            (rx.segments_arrived > 0).then(|| rx.segments_delivered as f64 / rx.segments_arrived as f64);
        flows.push(json!({
            "name": f.name,
            "from": world.node_names[f.src.0 as usize],
            "to": world.node_names[f.dst.0 as usize],
            "transport": config.transport.kind,
            "cc": config.transport.tcp.cc.name(),
            "app": config.app.name(),
            "start_seconds": secs(f.start),
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
            "completion_seconds": f.completed_at.map(|t| t.saturating_since(begin).as_secs_f64()),
            "final_cwnd_bytes": f.sender.cwnd(),
        }));
    }

    let elapsed_ps = end.0 as f64;
    let mut links = Vec::new();
    for l in &world.links {
        let mut directions = Vec::new();
        for &d in &l.dirs {
            let dir = &world.dirs[d.0 as usize];
            let st = dir.stats();
            let bits = st.bytes_sent as f64 * 8.0;
            let capacity = st.capacity_bits();
            let utilisation = if capacity > 0.0 { bits / capacity } else { 0.0 };
            let mean_capacity =
                if elapsed_ps > 0.0 { capacity * PS_PER_SEC as f64 / elapsed_ps } else { 0.0 };
            let mean_queue = if elapsed_ps > 0.0 { st.queue_byte_ps as f64 / elapsed_ps } else { 0.0 };
            let mut entry = json!({
                "from": world.node_names[dir.from().0 as usize],
                "to": world.node_names[dir.to().0 as usize],
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
        let fwd = world.dirs[l.dirs[0].0 as usize].stats();
        let drops: u64 = l
            .dirs
            .iter()
            .map(|d| {
                let st = world.dirs[d.0 as usize].stats();
                st.drops_queue + st.drops_error
            })
            .sum();
        let mut link = Map::new();
        link.insert("name".into(), json!(l.name));
        link.insert("kind".into(), json!(if l.radio { "radio" } else { "wired" }));
        link.insert(
            "between".into(),
            json!([world.node_names[l.between[0].0 as usize], world.node_names[l.between[1].0 as usize]]),
        );
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

/// How the run ended, for the summary.
/// One entry per packet processor: where it sits, and its own counters.
pub fn processors(world: &World) -> Value {
    let list = world
        .processors
        .iter()
        .map(|p| {
            json!({
                "name": p.name,
                "kind": p.kind,
                "node": world.node_names[p.node.0 as usize],
                "stats": p.processor.summary(),
            })
        })
        .collect();
    Value::Array(list)
}

pub fn stop_reason(stop: Stop) -> &'static str {
    match stop {
        Stop::Duration | Stop::Idle => "duration",
        Stop::EventLimit => "max_events",
        Stop::Interrupted => "interrupted",
    }
}
