//! From a typed scenario to a runnable `World`: names resolved, cross-references and ranges
//! checked (each failure one `InputError` naming the field), then components wired up.

use super::schema::{
    BurstConfig, DirectionConfig, FlowConfig, LinkKind, Scenario, TransportKind, DEFAULT_BUFFER, MAX_SUBFLOWS,
};
use crate::app::{App, AppConfig};
use crate::channel::markov_pair::{MarkovPair, MarkovPairConfig};
use crate::channel::{AnyChannel, ChannelConfig};
use crate::error::{InputContext, InputError};
use crate::ids::{DirId, FlowId, NodeId};
use crate::metrics::burst::BurstSpec;
use crate::net::link::{Direction, Impairments};
use crate::proxy::env::{FlowInfo, ProcessorEnv, RadioLinkInfo, SharedState};
use crate::proxy::ProcessorSlot;
use crate::radio::amc::Amc;
use crate::radio::direction::{RadioDirection, RadioTiming};
use crate::radio::harq::Harq;
use crate::radio::rlc::{RlcMode, RlcRx, RlcTx};
use crate::radio::{AnySinr, RadioContext};
use crate::sim::{Duration, Rng, SimTime};
use crate::topology::routing::{resolve_path, reversed, PathSearch};
use crate::topology::{AnyDirection, LinkInfo, Topology};
use crate::transport::mptcp::{subflow_mss, SchedulerKind};
use crate::units::{BufferLimit, Time};
use crate::world::{ChannelDriver, ConnectionSpec, DriverProcess, FlowSpec, World, WorldBuilder};
use std::collections::HashMap;
use std::path::Path;

/// The longest run: 100 days, about half of what a picosecond `u64` clock holds (213 days), so
/// that every time a run computes past its end (timers, the next sample) stays representable.
const MAX_DURATION: Duration = Duration::from_secs(100 * 24 * 3600);

/// Fills in default names and checks everything that serde cannot: references between
/// sections, uniqueness, value ranges.
pub fn resolve(s: &mut Scenario, file: &str) -> Result<(), InputError> {
    let err = |field: String, message: String| InputError::new(file, field, message);

    if s.simulation.duration.0 == Duration::ZERO {
        return Err(err("simulation.duration".into(), "must be greater than 0s".into()));
    }
    if s.simulation.seed > i64::MAX as u64 {
        return Err(err(
            "simulation.seed".into(),
            format!(
                "{} is more than {}, the largest integer a TOML file holds (scenario.resolved.toml must re-run)",
                s.simulation.seed,
                i64::MAX
            ),
        ));
    }
    if s.simulation.duration.0 > MAX_DURATION {
        return Err(err(
            "simulation.duration".into(),
            format!(
                "{} is more than 100 days ({}), the longest run the picosecond clock leaves room for",
                s.simulation.duration,
                Time(MAX_DURATION)
            ),
        ));
    }
    if s.metrics.interval.0 == Duration::ZERO {
        return Err(err("metrics.interval".into(), "must be greater than 0s".into()));
    }
    let rows = s.simulation.duration.0 .0 / s.metrics.interval.0 .0;
    if rows == 0 {
        return Err(err(
            "metrics.interval".into(),
            format!(
                "{} is longer than the run ({}); the time series would have no row",
                s.metrics.interval, s.simulation.duration
            ),
        ));
    }
    if rows > 10_000_000 {
        return Err(err(
            "metrics.interval".into(),
            format!(
                "{} gives {rows} rows over {}; allowed at most 10 million rows",
                s.metrics.interval, s.simulation.duration
            ),
        ));
    }
    if s.nodes.len() < 2 {
        return Err(err("node".into(), "a scenario needs at least two [[node]] entries".into()));
    }
    let mut node_index: HashMap<&str, usize> = HashMap::new();
    for (i, n) in s.nodes.iter().enumerate() {
        if n.name.trim().is_empty() {
            return Err(err(format!("node[{i}].name"), "must not be empty".into()));
        }
        if node_index.insert(n.name.as_str(), i).is_some() {
            return Err(err(
                format!("node[{i}].name"),
                format!("\"{}\" is used by another node; names must be unique", n.name),
            ));
        }
    }
    let node_list = || s.nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>().join(", ");
    let lookup = |field: String, name: &str| -> Result<(), InputError> {
        if node_index.contains_key(name) {
            Ok(())
        } else {
            Err(err(field, format!("no node named \"{name}\"; nodes are: {}", node_list())))
        }
    };

    let mut link_names: HashMap<String, usize> = HashMap::new();
    for (i, l) in s.links.iter_mut().enumerate() {
        let field = |k: &str| format!("link[{i}].{k}");
        lookup(field("between"), &l.between[0])?;
        lookup(field("between"), &l.between[1])?;
        if l.between[0] == l.between[1] {
            return Err(err(
                field("between"),
                format!("a link joins two different nodes, not \"{}\" to itself", l.between[0]),
            ));
        }
        if l.name.is_empty() {
            l.name = format!("{}-{}", l.between[0], l.between[1]);
        }
        if link_names.insert(l.name.clone(), i).is_some() {
            return Err(err(
                field("name"),
                format!("\"{}\" is used by another link; names must be unique (set `name`)", l.name),
            ));
        }
        match l.kind {
            LinkKind::Wired => {
                match l.rate {
                    None => {
                        return Err(err(field("rate"), "a wired link needs a rate, e.g. \"1Gbps\"".into()))
                    }
                    Some(r) if r.0 == 0 => {
                        return Err(err(field("rate"), "must be greater than 0bps".into()))
                    }
                    Some(_) => {}
                }
                if l.channel.is_some() {
                    return Err(err(
                        field("channel"),
                        "only radio links have a channel; set kind = \"radio\" or use `rate`".into(),
                    ));
                }
                if l.reverse_channel.is_some() {
                    return Err(err(field("reverse_channel"), "only radio links have a channel".into()));
                }
                if l.radio.is_some() {
                    return Err(err(
                        field("radio"),
                        "only radio links have a radio stack; set kind = \"radio\"".into(),
                    ));
                }
            }
            LinkKind::Radio => {
                if l.rate.is_some() {
                    return Err(err(
                        field("rate"),
                        "a radio link takes its rate from `channel`; remove `rate`".into(),
                    ));
                }
                match (&l.channel, &l.radio) {
                    (None, None) => {
                        return Err(err(
                            field("channel"),
                            "a radio link needs `channel` (a rate process, e.g. { kind = \"constant\", rate = \"1Gbps\" }) or a `radio` table (the full stack)".into(),
                        ))
                    }
                    (Some(_), Some(_)) => {
                        return Err(err(
                            field("radio"),
                            "give either `channel` (a rate process) or `radio` (the full stack), not both".into(),
                        ))
                    }
                    (Some(_), None) => {}
                    (None, Some(_)) => {
                        if l.reverse_channel.is_some() {
                            return Err(err(
                                field("reverse_channel"),
                                "with the radio stack the reverse channel is radio.reverse_channel".into(),
                            ));
                        }
                        if l.buffer.is_some() {
                            return Err(err(
                                field("buffer"),
                                "the radio stack buffers in RLC; set radio.rlc.buffer instead".into(),
                            ));
                        }
                        let clean = DirectionConfig::default();
                        for (side, d) in [("forward", &l.forward), ("reverse", &l.reverse)] {
                            if *d != clean {
                                return Err(err(
                                    field(side),
                                    "impairments apply to links without the radio stack; a radio-stack link loses packets through its channel".into(),
                                ));
                            }
                        }
                    }
                }
                if let Some(radio) = l.radio.as_mut() {
                    radio.resolve(file, &field("radio"))?;
                }
            }
        }
        if l.radio.is_none() && l.buffer.is_none() {
            l.buffer = Some(DEFAULT_BUFFER);
        }
        if matches!(l.buffer, Some(BufferLimit::Packets(0) | BufferLimit::Bytes(0))) {
            return Err(err(field("buffer"), "must hold at least one packet".into()));
        }
        for (side, d) in [("forward", &l.forward), ("reverse", &l.reverse)] {
            for (key, p) in [("loss", d.loss), ("duplicate", d.duplicate), ("reorder", d.reorder)] {
                if !(0.0..=1.0).contains(&p) {
                    return Err(err(
                        format!("link[{i}].{side}.{key}"),
                        format!("{p} is not a probability; allowed 0 to 1"),
                    ));
                }
            }
        }
    }

    let mut flow_names: HashMap<String, usize> = HashMap::new();
    for (i, f) in s.flows.iter_mut().enumerate() {
        let field = |k: &str| format!("flow[{i}].{k}");
        lookup(field("from"), &f.from)?;
        lookup(field("to"), &f.to)?;
        if f.from == f.to {
            return Err(err(
                field("to"),
                format!("a flow goes between two different nodes, not \"{}\" to itself", f.to),
            ));
        }
        if f.name.is_empty() {
            f.name = format!("flow{i}");
        }
        if flow_names.insert(f.name.clone(), i).is_some() {
            return Err(err(
                field("name"),
                format!("\"{}\" is used by another flow; names must be unique", f.name),
            ));
        }
        if f.start.0 >= s.simulation.duration.0 {
            return Err(err(
                field("start"),
                format!("{} is not before the end of the run ({})", f.start, s.simulation.duration),
            ));
        }
        f.transport.tcp.validate().map_err(|(k, m)| err(format!("flow[{i}].transport.{k}"), m))?;
        f.app.validate().map_err(|(k, m)| err(format!("flow[{i}].app.{k}"), m))?;
        resolve_mptcp(f).map_err(|(k, m)| err(format!("flow[{i}].{k}"), m))?;
    }
    // An MP-TCP flow's subflows are named `<flow>.sf<k>` in the summary and the time series.
    for (i, f) in s.flows.iter().enumerate() {
        if let Some((base, index)) = f.name.rsplit_once(".sf") {
            let clash = flow_names.get(base).map(|&j| &s.flows[j]).is_some_and(|m| {
                m.transport.kind == TransportKind::Mptcp
                    && index.parse::<usize>().is_ok_and(|k| k < m.transport.subflows.len())
            });
            if clash {
                return Err(err(
                    format!("flow[{i}].name"),
                    format!(
                        "\"{}\" is the name of a subflow of MP-TCP flow \"{base}\"; choose another",
                        f.name
                    ),
                ));
            }
        }
    }
    if let Some(b) = &s.metrics.burst {
        check_burst(b, s, &flow_names).map_err(|(k, m)| err(format!("metrics.burst.{k}"), m))?;
    }
    if let Some(t) = s.metrics.steady_from.filter(|t| t.0 >= s.simulation.duration.0) {
        return Err(err(
            "metrics.steady_from".into(),
            format!("{t} is not before the end of the run ({})", s.simulation.duration),
        ));
    }
    resolve_relays(&s.flows, &flow_names).map_err(|(field, m)| err(field, m))?;
    // A sprayed MP-TCP connection is MP-TCP without direct access to the access points (Wu et
    // al. §5); the other processors keep per-flow state of plain TCP flows.
    if let Some(i) = s.flows.iter().position(|f| f.transport.kind == TransportKind::Mptcp) {
        let stateful = s.nodes.iter().enumerate().find_map(|(n, node)| {
            let k = node.processors.iter().position(|c| !c.takes_mptcp_subflows())?;
            Some((n, k, node.processors[k].kind()))
        });
        if let Some((n, k, kind)) = stateful {
            return Err(err(
                format!("node[{n}].processors[{k}]"),
                format!(
                    "\"{kind}\" does not handle MP-TCP subflows yet (only \"spray\" does), and flow[{i}] (\"{}\") is MP-TCP; remove one of them",
                    s.flows[i].name
                ),
            ));
        }
    }
    Ok(())
}

/// The flow a relay reads (`app.from`): another flow, single-path TCP, ending at the relay
/// flow's source, read by no other relay, not part of a cycle of relays; the buffer holds at
/// least one of its segments (else its window could never open by a segment).
/// `Err((field, message))`.
fn resolve_relays(flows: &[FlowConfig], names: &HashMap<String, usize>) -> Result<(), (String, String)> {
    let upstream = |f: &FlowConfig| match &f.app {
        AppConfig::Relay { from, .. } => names.get(from).copied(),
        _ => None,
    };
    let mut read_by: Vec<Option<usize>> = vec![None; flows.len()];
    for (i, f) in flows.iter().enumerate() {
        let AppConfig::Relay { from, buffer } = &f.app else { continue };
        let field = format!("flow[{i}].app.from");
        let Some(&j) = names.get(from) else {
            return Err((
                field,
                format!("no flow is named \"{from}\"; a relay reads one of the scenario's flows"),
            ));
        };
        let up = &flows[j];
        if j == i {
            return Err((field, format!("\"{from}\" is this flow; a flow cannot relay itself")));
        }
        if up.transport.kind != TransportKind::Tcp {
            return Err((
                field,
                format!("flow \"{from}\" is MP-TCP; a relay reads a single-path TCP flow (transport.kind = \"tcp\")"),
            ));
        }
        if up.to != f.from {
            return Err((
                field,
                format!(
                    "flow \"{from}\" ends at \"{}\", not at this flow's source \"{}\"; a relay reads a flow that ends where it starts",
                    up.to, f.from
                ),
            ));
        }
        if let Some(k) = read_by[j].replace(i) {
            return Err((
                field,
                format!(
                    "flow \"{from}\" is already relayed by flow \"{}\"; one relay at most reads a flow",
                    flows[k].name
                ),
            ));
        }
        if buffer.0 < up.transport.tcp.mss.0 {
            return Err((
                format!("flow[{i}].app.buffer"),
                format!(
                    "{buffer} is less than one segment of flow \"{from}\" ({}); allowed: at least its MSS",
                    up.transport.tcp.mss
                ),
            ));
        }
        // Each flow is read by one relay at most, so following the upstreams from `i` either
        // ends at a flow that is no relay or comes back to `i` within `flows.len()` steps.
        let mut at = j;
        for _ in 0..flows.len() {
            match upstream(&flows[at]) {
                Some(next) if next == i => {
                    return Err((
                        field,
                        format!(
                            "flow \"{from}\" relays this flow, directly or through other relays; relays may not form a cycle"
                        ),
                    ));
                }
                Some(next) => at = next,
                None => break,
            }
        }
    }
    Ok(())
}

/// The MP-TCP keys of a flow: checked against its kind, defaults filled in for `mptcp`.
/// `Err((field, message))` names the key relative to the flow.
fn resolve_mptcp(f: &mut FlowConfig) -> Result<(), (String, String)> {
    let t = &mut f.transport;
    if t.kind == TransportKind::Tcp {
        let given = [
            ("subflows", !t.subflows.is_empty()),
            ("scheduler", t.scheduler.is_some()),
            ("join_delay", t.join_delay.is_some()),
        ];
        if let Some((key, _)) = given.iter().find(|(_, g)| *g) {
            return Err((format!("transport.{key}"), "is an MP-TCP key; it needs kind = \"mptcp\"".into()));
        }
        if t.tcp.cc.is_coupled() {
            return Err((
                "transport.cc".into(),
                format!(
                    "\"{}\" couples the subflows of an MP-TCP connection; it needs kind = \"mptcp\" (single-path: \"cubic\", \"newreno\" or \"bbr\")",
                    t.tcp.cc.name()
                ),
            ));
        }
        return Ok(());
    }
    for (key, given) in [("path", f.path.is_some()), ("ack_path", f.ack_path.is_some())] {
        if given {
            return Err((
                key.into(),
                format!("an MP-TCP flow gives a path per subflow: transport.subflows = [{{ {key} = [...] }}, ...]"),
            ));
        }
    }
    if t.subflows.is_empty() || t.subflows.len() > MAX_SUBFLOWS {
        return Err((
            "transport.subflows".into(),
            format!(
                "{} subflows; an MP-TCP flow has 1 to {MAX_SUBFLOWS}, e.g. subflows = [{{ path = [\"ue\", \"enb\"] }}]",
                t.subflows.len()
            ),
        ));
    }
    if t.scheduler == Some(SchedulerKind::Musher) && t.subflows.len() != 2 {
        return Err((
            "transport.scheduler".into(),
            format!("musher needs exactly two subflows, and this flow has {}", t.subflows.len()),
        ));
    }
    t.scheduler.get_or_insert_default();
    t.join_delay.get_or_insert_default();
    Ok(())
}

/// Wires a resolved scenario into a `World`. `base_dir` resolves trace paths.
pub fn build(s: &Scenario, file: &str, base_dir: &Path, seed: u64) -> Result<World, InputError> {
    let node_ids: HashMap<&str, NodeId> =
        s.nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), NodeId(i as u32))).collect();
    let mut dirs = Vec::new();
    let mut links = Vec::new();
    let mut channels = Vec::new();
    let mut pairs: Vec<PairGroup> = Vec::new();
    for (i, l) in s.links.iter().enumerate() {
        let a = node_ids[l.between[0].as_str()];
        let b = node_ids[l.between[1].as_str()];
        let fwd = DirId(dirs.len() as u32);
        let rev = DirId(dirs.len() as u32 + 1);
        let rate = l.rate.map_or(0, |r| r.0);
        if let Some(radio) = &l.radio {
            let amc_field = format!("link[{i}].radio.amc");
            let amc =
                Amc::new(&radio.amc, &InputContext { scenario_file: file, field: &amc_field, base_dir })?;
            let timing = RadioTiming {
                slot: radio.slot(),
                bandwidth_hz: radio.bandwidth.hz(),
                amc_delay: radio.amc_delay.0,
                delay: l.delay.0,
                status_delay: l.delay.0 + radio.harq.feedback_delay.0,
                rlf_timeout: radio.rlf_timeout.map(|t| t.0),
            };
            let [fwd_tdd, rev_tdd] = match radio.tdd_schedules() {
                Some([d, u]) => [Some(d), Some(u)],
                None => [None, None],
            };
            for (id, from, to, tag, tdd) in [(fwd, a, b, "fwd", fwd_tdd), (rev, b, a, "rev", rev_tdd)] {
                let rng = Rng::for_component(seed, &format!("link/{}/{tag}", l.name));
                let rlc = (RlcTx::new(&radio.rlc), RlcRx::new(&radio.rlc), radio.rlc.mode != RlcMode::Am);
                let harq = Harq::new(&radio.harq);
                let report = radio.report.clone();
                let dir = RadioDirection::new(id, from, to, timing, amc.clone(), harq, rlc, report, rng)
                    .with_tdd(tdd);
                dirs.push(AnyDirection::Radio(Box::new(dir)));
            }
            let bandwidth_hz = radio.bandwidth.hz();
            let mut add = |config, key: &str, targets: Vec<(DirId, u8)>| -> Result<(), InputError> {
                let field = format!("link[{i}].radio.{key}");
                let channel = InputContext { scenario_file: file, field: &field, base_dir };
                let process = AnySinr::build(config, &RadioContext { channel, bandwidth_hz })?;
                let rng = Rng::for_component(seed, &format!("link/{}/radio/{key}", l.name));
                channels.push(ChannelDriver { process: DriverProcess::Sinr(process), rng, targets });
                Ok(())
            };
            match &radio.reverse_channel {
                None => add(&radio.channel, "channel", vec![(fwd, 0), (rev, 0)])?,
                Some(reverse) => {
                    add(&radio.channel, "channel", vec![(fwd, 0)])?;
                    add(reverse, "reverse_channel", vec![(rev, 0)])?;
                }
            }
            links.push(LinkInfo { name: l.name.clone(), radio: true, between: [a, b], dirs: [fwd, rev] });
            continue;
        }
        let buffer = l.buffer.expect("resolve fills the buffer of links without the radio stack");
        for (id, from, to, d, tag) in [(fwd, a, b, &l.forward, "fwd"), (rev, b, a, &l.reverse, "rev")] {
            let impairments = Impairments {
                loss: d.loss,
                duplicate: d.duplicate,
                reorder: d.reorder,
                reorder_delay: d.reorder_delay.0,
            };
            let rng = Rng::for_component(seed, &format!("link/{}/{tag}", l.name));
            dirs.push(AnyDirection::Wired(Direction::new(
                id,
                from,
                to,
                rate,
                l.delay.0,
                buffer,
                impairments,
                rng,
            )));
        }
        if l.kind == LinkKind::Radio {
            let forward = l.channel.as_ref().expect("resolve checked radio links have a channel");
            let mut add =
                |config: &ChannelConfig, key: &str, targets: Vec<(DirId, u8)>| -> Result<(), InputError> {
                    let field = format!("link[{i}].{key}");
                    if let ChannelConfig::MarkovPair(pair) = config {
                        return join_pair(&mut pairs, pair, (file, field), &targets);
                    }
                    let ctx = InputContext { scenario_file: file, field: &field, base_dir };
                    let mut process = AnyChannel::build(config, &ctx)?;
                    if let AnyChannel::Trace(trace) = &mut process {
                        if trace.needs_random_offset() {
                            // One draw per run, shared by every trace (see `TraceOffset::Random`).
                            trace.draw_offset(Rng::for_component(seed, "trace/offset").uniform());
                        }
                    }
                    let rng = Rng::for_component(seed, &format!("link/{}/{key}", l.name));
                    channels.push(ChannelDriver { process: DriverProcess::Rate(process), rng, targets });
                    Ok(())
                };
            match &l.reverse_channel {
                None => add(forward, "channel", vec![(fwd, 0), (rev, 0)])?,
                Some(reverse) => {
                    add(forward, "channel", vec![(fwd, 0)])?;
                    add(reverse, "reverse_channel", vec![(rev, 0)])?;
                }
            }
        }
        links.push(LinkInfo {
            name: l.name.clone(),
            radio: l.kind == LinkKind::Radio,
            between: [a, b],
            dirs: [fwd, rev],
        });
    }
    for g in pairs {
        if let Some(missing) = g.members.iter().position(|m| !m) {
            return Err(InputError::new(
                file,
                format!("{}.group", g.field),
                format!(
                    "Markov pair \"{}\" has no member {}; give a second link a markov_pair channel with group = \"{}\" and member = {}",
                    g.config.group,
                    missing + 1,
                    g.config.group,
                    missing + 1
                ),
            ));
        }
        let ctx = InputContext { scenario_file: file, field: &g.field, base_dir };
        let process = MarkovPair::new(&g.config, &ctx)?;
        let rng = Rng::for_component(seed, &format!("pair/{}", g.config.group));
        channels.push(ChannelDriver {
            process: DriverProcess::Pair(Box::new(process)),
            rng,
            targets: g.targets,
        });
    }
    let node_names = s.nodes.iter().map(|n| n.name.clone()).collect();
    let topology = Topology::new(node_names, links);
    let routes = flow_routes(s, file, &topology, &node_ids)?;
    let stop = SimTime::ZERO + s.simulation.duration.0;
    let mut world = WorldBuilder::new(topology, dirs, stop, s.metrics.interval.0);
    world.max_events(s.simulation.max_events);
    for c in channels {
        world.add_channel(c);
    }
    let mut routes = routes.into_iter();
    for config in &s.flows {
        let start = SimTime::ZERO + config.start.0;
        let tcp = &config.transport.tcp;
        let app_rng = Rng::for_component(seed, &format!("flow/{}/app", config.name));
        // A rate-capped writer writes one segment at a time: a subflow's segment for MP-TCP.
        let segment = match config.transport.kind {
            TransportKind::Tcp => tcp.mss.0,
            TransportKind::Mptcp => subflow_mss(tcp.mss).0,
        };
        let app = App::new(&config.app, segment, start, app_rng);
        let (src, dst) = (node_ids[config.from.as_str()], node_ids[config.to.as_str()]);
        let mut spec = |world: &mut WorldBuilder, name: String, cc: String| {
            let route = routes.next().expect("a route per flow and subflow");
            FlowSpec {
                name,
                src,
                dst,
                start,
                tcp,
                app_config: &config.app,
                app: None,
                subflow_of: None,
                routes: [world.add_route(&route.data), world.add_route(&route.ack)],
                cc_rng: Rng::for_component(seed, &cc),
            }
        };
        match config.transport.kind {
            TransportKind::Tcp => {
                let flow = spec(&mut world, config.name.clone(), format!("flow/{}/cc", config.name));
                world.add_flow(FlowSpec { app: Some(app), ..flow });
            }
            TransportKind::Mptcp => {
                let t = &config.transport;
                let subflows = (0..t.subflows.len())
                    .map(|k| {
                        let name = format!("{}.sf{k}", config.name);
                        spec(&mut world, name, format!("flow/{}/sf{k}/cc", config.name))
                    })
                    .collect();
                let connection = ConnectionSpec {
                    name: config.name.clone(),
                    src,
                    dst,
                    start,
                    app,
                    total: config.app.total(),
                    send_buffer: tcp.send_buffer.0,
                    receive_buffer: tcp.initial_receive_capacity(),
                    autotune: tcp.autotune(),
                    scheduler: t.scheduler.unwrap_or_default(),
                    coupled: tcp.cc.is_coupled(),
                    join_delay: t.join_delay.unwrap_or_default().0,
                    backup: t.subflows.iter().map(|sf| sf.backup).collect(),
                };
                world.add_connection(connection, subflows);
            }
        }
    }
    let flow_index: HashMap<&str, usize> =
        s.flows.iter().enumerate().map(|(i, f)| (f.name.as_str(), i)).collect();
    if let Some(b) = &s.metrics.burst {
        let entries = match &b.flows {
            None => (0..s.flows.len()).collect(),
            Some(names) => names.iter().map(|n| flow_index[n.as_str()]).collect(),
        };
        let start = SimTime::ZERO + b.start.0;
        world.burst(BurstSpec { start, end: start + b.length.0, target: b.target.map(|t| t.0) }, entries);
    }
    if let Some(t) = s.metrics.steady_from {
        world.steady_from(SimTime::ZERO + t.0);
    }
    for (i, config) in s.flows.iter().enumerate() {
        if let AppConfig::Relay { from, .. } = &config.app {
            world.add_relay(flow_index[from.as_str()], i);
        }
    }
    for slot in build_processors(s, (file, seed), world.topology(), world.dirs(), &node_ids)? {
        world.add_processor(slot);
    }
    let (values, rows) = world.series_values();
    let needed = values.saturating_mul(8);
    if needed > s.metrics.series_memory.0 {
        return Err(InputError::new(
            file,
            "metrics.series_memory",
            format!(
                "the time series would take {:.1} MB ({values} values of 8 bytes over {rows} rows), over the {} allowed; lengthen metrics.interval ({}) or raise metrics.series_memory",
                needed as f64 / 1e6,
                s.metrics.series_memory,
                s.metrics.interval
            ),
        ));
    }
    Ok(world.build())
}

/// The directions a flow's data cross, and those its ACKs cross.
struct FlowRoutes {
    data: Vec<DirId>,
    ack: Vec<DirId>,
}

/// What one route search is asked for: a TCP flow's, or one MP-TCP subflow's, ends and pins.
struct RouteRequest<'a> {
    /// Where its keys sit: `flow[i]` or `flow[i].transport.subflows[k]`.
    field: String,
    /// The flow's index, for errors about its ends.
    flow: usize,
    path: Option<&'a [String]>,
    ack_path: Option<&'a [String]>,
}

/// Each TCP flow's and each MP-TCP subflow's data route and ACK route, in the scenario's order
/// (a flow's subflows in their order): pinned (`path`, `ack_path`) or the fewest hops
/// (`topology::routing`); ACKs take the data route's links back unless `ack_path` says
/// otherwise. One search from each sending node serves all of its flows.
fn flow_routes(
    s: &Scenario,
    file: &str,
    topology: &Topology,
    node_ids: &HashMap<&str, NodeId>,
) -> Result<Vec<FlowRoutes>, InputError> {
    let mut requests = Vec::with_capacity(s.flows.len());
    for (i, f) in s.flows.iter().enumerate() {
        match f.transport.kind {
            TransportKind::Tcp => requests.push(RouteRequest {
                field: format!("flow[{i}]"),
                flow: i,
                path: f.path.as_deref(),
                ack_path: f.ack_path.as_deref(),
            }),
            TransportKind::Mptcp => {
                requests.extend(f.transport.subflows.iter().enumerate().map(|(k, sf)| RouteRequest {
                    field: format!("flow[{i}].transport.subflows[{k}]"),
                    flow: i,
                    path: sf.path.as_deref(),
                    ack_path: sf.ack_path.as_deref(),
                }))
            }
        }
    }
    let link_ids: HashMap<&str, usize> =
        topology.links().iter().enumerate().map(|(i, l)| (l.name.as_str(), i)).collect();
    let node_named = |name: &str| node_ids.get(name).copied();
    let link_named = |name: &str| link_ids.get(name).copied();
    let ends = |i: usize| (node_ids[s.flows[i].from.as_str()], node_ids[s.flows[i].to.as_str()]);
    let pinned = |r: &RouteRequest, key: &str, names: &[String]| {
        resolve_path(topology, names, &node_named, &link_named)
            .map_err(|m| InputError::new(file, format!("{}.{key}", r.field), m))
    };
    let mut data: Vec<Option<Vec<DirId>>> = vec![None; requests.len()];
    for (q, r) in requests.iter().enumerate() {
        if let Some(names) = r.path {
            let path = pinned(r, "path", names)?;
            let (src, dst) = ends(r.flow);
            if topology.from(path[0]) != src || topology.to(path[path.len() - 1]) != dst {
                let f = &s.flows[r.flow];
                return Err(InputError::new(
                    file,
                    format!("{}.path", r.field),
                    format!(
                        "goes from \"{}\" to \"{}\"; a data path goes from the flow's `from` (\"{}\") to its `to` (\"{}\")",
                        topology.node_name(topology.from(path[0])),
                        topology.node_name(topology.to(path[path.len() - 1])),
                        f.from,
                        f.to
                    ),
                ));
            }
            data[q] = Some(path);
        }
    }
    // The automatic routes, one search per sending node, in the order flows first name it.
    let mut by_source: Vec<(NodeId, Vec<usize>)> = Vec::new();
    let mut group_of: HashMap<NodeId, usize> = HashMap::new();
    for q in (0..requests.len()).filter(|&q| data[q].is_none()) {
        let src = ends(requests[q].flow).0;
        let g = *group_of.entry(src).or_insert_with(|| {
            by_source.push((src, Vec::new()));
            by_source.len() - 1
        });
        by_source[g].1.push(q);
    }
    let mut search = PathSearch::new(topology.nodes());
    for (src, group) in by_source {
        let targets: Vec<NodeId> = group.iter().map(|&q| ends(requests[q].flow).1).collect();
        search.run(topology, src, &targets);
        for q in group {
            let i = requests[q].flow;
            let path = search.path_to(topology, ends(i).1).ok_or_else(|| {
                InputError::new(
                    file,
                    format!("flow[{i}].to"),
                    format!("no path of links from \"{}\" to \"{}\"", s.flows[i].from, s.flows[i].to),
                )
            })?;
            data[q] = Some(path);
        }
    }
    let mut routes = Vec::with_capacity(requests.len());
    for (r, path) in requests.iter().zip(data) {
        let path = path.expect("every request has a data route");
        let ack = match r.ack_path {
            None => reversed(topology, &path),
            Some(names) => {
                let listed = pinned(r, "ack_path", names)?;
                let (src, dst) = ends(r.flow);
                let (first, last) = (topology.from(listed[0]), topology.to(listed[listed.len() - 1]));
                if (first, last) == (src, dst) {
                    reversed(topology, &listed)
                } else if (first, last) == (dst, src) {
                    listed
                } else {
                    let f = &s.flows[r.flow];
                    return Err(InputError::new(
                        file,
                        format!("{}.ack_path", r.field),
                        format!(
                            "goes from \"{}\" to \"{}\"; an ACK path joins the flow's ends, \"{}\" and \"{}\"",
                            topology.node_name(first),
                            topology.node_name(last),
                            f.from,
                            f.to
                        ),
                    ));
                }
            }
        };
        for (key, route) in [("path", &path), ("ack_path", &ack)] {
            if route.len() > usize::from(u8::MAX) {
                return Err(InputError::new(
                    file,
                    format!("{}.{key}", r.field),
                    format!("{} hops; a route has at most {}", route.len(), u8::MAX),
                ));
            }
        }
        routes.push(FlowRoutes { data: path, ack });
    }
    Ok(routes)
}

/// The packet processors of every node, in node order and, within a node, in the order given.
fn build_processors(
    s: &Scenario,
    (file, seed): (&str, u64),
    topology: &Topology,
    dirs: &[AnyDirection],
    node_ids: &HashMap<&str, NodeId>,
) -> Result<Vec<ProcessorSlot>, InputError> {
    if s.nodes.iter().all(|n| n.processors.is_empty()) {
        return Ok(Vec::new());
    }
    let flows: Vec<FlowInfo> = s
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| FlowInfo {
            id: FlowId(i as u32),
            name: f.name.clone(),
            src: node_ids[f.from.as_str()],
            dst: node_ids[f.to.as_str()],
            tcp: f.transport.tcp.clone(),
        })
        .collect();
    let radio_links: Vec<RadioLinkInfo> = topology
        .links()
        .iter()
        .filter_map(|l| {
            let downlink = l.dirs[0];
            let r = dirs[downlink.0 as usize].radio()?;
            Some(RadioLinkInfo { name: l.name.clone(), downlink, lowest_rate_bps: r.lowest_rate_bps() })
        })
        .collect();
    let shared = SharedState::default();
    let processor_kinds: Vec<Vec<&'static str>> =
        s.nodes.iter().map(|n| n.processors.iter().map(|c| c.kind()).collect()).collect();
    let mut slots = Vec::new();
    for (n, node) in s.nodes.iter().enumerate() {
        for (k, config) in node.processors.iter().enumerate() {
            let field = format!("node[{n}].processors[{k}]");
            let kind = config.kind();
            if node.processors[..k].iter().any(|c| c.kind() == kind) {
                return Err(InputError::new(
                    file,
                    format!("{field}.kind"),
                    format!(
                        "\"{kind}\" is already on node \"{}\"; each kind at most once per node",
                        node.name
                    ),
                ));
            }
            let env = ProcessorEnv {
                file,
                field,
                node: NodeId(n as u32),
                flows: &flows,
                radio_links: &radio_links,
                topology,
                shared: &shared,
                processor_kinds: &processor_kinds,
                seed,
            };
            let processor = config.build(&env)?;
            for dir in processor.paces() {
                if let Some(other) =
                    slots.iter().find(|s: &&ProcessorSlot| s.processor.paces().contains(&dir))
                {
                    let link = &topology.link_of(dir).name;
                    return Err(env.error(
                        "kind",
                        format!("link \"{link}\" is already fed by {}; one processor per link", other.name),
                    ));
                }
            }
            slots.push(ProcessorSlot {
                name: format!("{}.{kind}", node.name),
                kind,
                node: NodeId(n as u32),
                processor,
            });
        }
    }
    Ok(slots)
}

/// The links of one Markov pair found so far: the pair's parameters, where they were first given,
/// the directions it drives with their member index, and which members have been seen.
struct PairGroup {
    config: MarkovPairConfig,
    field: String,
    targets: Vec<(DirId, u8)>,
    members: [bool; 2],
}

/// Adds the directions of a link whose channel is member `pair.member` of a Markov pair.
fn join_pair(
    pairs: &mut Vec<PairGroup>,
    pair: &MarkovPairConfig,
    (file, field): (&str, String),
    targets: &[(DirId, u8)],
) -> Result<(), InputError> {
    if !(1..=2).contains(&pair.member) {
        return Err(InputError::new(
            file,
            format!("{field}.member"),
            format!("{}; expected 1 or 2", pair.member),
        ));
    }
    let m = (pair.member - 1) as usize;
    let tagged = targets.iter().map(|&(d, _)| (d, m as u8));
    match pairs.iter_mut().find(|g| g.config.group == pair.group) {
        Some(g) => {
            if g.members[m] {
                return Err(InputError::new(
                    file,
                    format!("{field}.member"),
                    format!(
                        "Markov pair \"{}\" already has a member {} ({})",
                        pair.group, pair.member, g.field
                    ),
                ));
            }
            if (MarkovPairConfig { member: g.config.member, ..pair.clone() }) != g.config {
                return Err(InputError::new(
                    file,
                    field,
                    format!(
                        "the two links of Markov pair \"{}\" must give the same parameters as {}",
                        pair.group, g.field
                    ),
                ));
            }
            g.members[m] = true;
            g.targets.extend(tagged);
        }
        None => {
            let mut members = [false; 2];
            members[m] = true;
            pairs.push(PairGroup { config: pair.clone(), field, targets: tagged.collect(), members });
        }
    }
    Ok(())
}

/// `[metrics.burst]`'s keys: a window on the time series' rows inside the run, known flows.
fn check_burst(
    b: &BurstConfig,
    s: &Scenario,
    flow_names: &HashMap<String, usize>,
) -> Result<(), (&'static str, String)> {
    let interval = s.metrics.interval.0;
    let on_rows = |t: Duration| t.as_picos() % interval.as_picos() == 0;
    if !on_rows(b.start.0) {
        return Err((
            "start",
            format!("{} is not a multiple of metrics.interval ({})", b.start, s.metrics.interval),
        ));
    }
    if b.length.0 == Duration::ZERO || !on_rows(b.length.0) {
        return Err((
            "length",
            format!(
                "{} is not allowed; must be a positive multiple of metrics.interval ({})",
                b.length, s.metrics.interval
            ),
        ));
    }
    if b.start.0 + b.length.0 > s.simulation.duration.0 {
        return Err(("length", format!("the window ends after the run ({})", s.simulation.duration)));
    }
    if let Some(names) = &b.flows {
        if names.is_empty() {
            return Err(("flows", "must name at least one flow (leave it out for every flow)".into()));
        }
        if let Some(n) = names.iter().find(|&n| !flow_names.contains_key(n)) {
            return Err(("flows", format!("no flow named \"{n}\"")));
        }
    }
    if b.target.is_some_and(|t| t.0 == 0) {
        return Err(("target", "must be greater than 0B".into()));
    }
    Ok(())
}
