//! Putting a world together: the topology and its link directions, channel drivers, flows with
//! their routes, packet processors, then [`WorldBuilder::build`], which schedules the first
//! events.

use super::sample::WorldSeries;
use super::{ChannelDriver, Connection, ConnectionSpec, Entry, Flow, FlowSpec, Relay, SubflowOf, World};
use crate::event::{Event, RadioEvent};
use crate::ids::{DirId, FlowId, RouteId};
use crate::metrics::burst::{BurstMeter, BurstSpec};
use crate::metrics::{EntitySeries, KeyValues};
use crate::net::PacketArena;
use crate::proxy::ProcessorSlot;
use crate::radio::config::ReportMode;
use crate::radio::direction::RadioOutput;
use crate::sim::{Duration, EventQueue, SimTime};
use crate::topology::routing::RouteTable;
use crate::topology::{AnyDirection, Topology};
use crate::transport::tcp::TcpCtx;

/// The metrics of the flows' time series (`flows`), in column order: a TCP flow's or subflow's,
/// then one only an MP-TCP connection has.
pub(super) const FLOW_METRICS: [&str; 7] = [
    "goodput_bps",
    "cwnd_bytes",
    "ssthresh_bytes",
    "inflight_bytes",
    "rtt_ms",
    "delivered_bytes",
    "reorder_buffer_bytes",
];
/// The metrics an MP-TCP connection has (the others are its subflows').
const CONNECTION_METRICS: [&str; 3] = ["goodput_bps", "delivered_bytes", "reorder_buffer_bytes"];
/// The metrics only a connection has.
const CONNECTION_ONLY: [&str; 1] = ["reorder_buffer_bytes"];
/// The metrics of the link directions' time series (`links`), in column order; the last two only
/// for a radio-stack direction.
pub(super) const LINK_METRICS: [&str; 6] =
    ["queue_bytes", "queue_packets", "capacity_bps", "throughput_bps", "sinr_db", "mcs"];
const RADIO_ONLY: [&str; 2] = ["sinr_db", "mcs"];

/// A world under construction.
pub struct WorldBuilder {
    topology: Topology,
    dirs: Vec<AnyDirection>,
    routes: RouteTable,
    channels: Vec<ChannelDriver>,
    flows: Vec<Flow>,
    connections: Vec<Connection>,
    entries: Vec<Entry>,
    relays: Vec<Relay>,
    processors: Vec<ProcessorSlot>,
    stop_time: SimTime,
    max_events: u64,
    interval: Duration,
    /// The burst window's meter and the entries (scenario flows) it counts.
    burst: Option<(BurstMeter, Vec<usize>)>,
    /// `metrics.steady_from`.
    steady_from: Option<SimTime>,
}

impl WorldBuilder {
    /// A world over `topology` whose link directions are `dirs` (indexed by [`DirId`], as the
    /// topology's links name them), running until `stop_time`, sampling every `interval`.
    pub fn new(topology: Topology, dirs: Vec<AnyDirection>, stop_time: SimTime, interval: Duration) -> Self {
        for (i, d) in dirs.iter().enumerate() {
            assert_eq!(d.id(), DirId(i as u32), "directions are indexed by their id");
            assert_eq!((d.from(), d.to()), (topology.from(d.id()), topology.to(d.id())), "direction ends");
        }
        WorldBuilder {
            topology,
            dirs,
            routes: RouteTable::default(),
            channels: Vec::new(),
            flows: Vec::new(),
            connections: Vec::new(),
            entries: Vec::new(),
            relays: Vec::new(),
            processors: Vec::new(),
            burst: None,
            steady_from: None,
            stop_time,
            max_events: 0,
            interval,
        }
    }

    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    pub fn dirs(&self) -> &[AnyDirection] {
        &self.dirs
    }

    /// Stops the run after `n` events (0: no limit).
    pub fn max_events(&mut self, n: u64) {
        self.max_events = n;
    }

    /// Meters what the scenario flows `entries` (indices in the order flows were added) deliver
    /// together in `spec`'s window; its start and end are sampling times.
    pub fn burst(&mut self, spec: BurstSpec, entries: Vec<usize>) {
        self.burst = Some((BurstMeter::new(spec, self.interval), entries));
    }

    /// Starts the summary's steady-state window at `at` (before the stop time): every flow's
    /// delivered bytes then are noted, for its `steady_goodput_bps`.
    pub fn steady_from(&mut self, at: SimTime) {
        assert!(at < self.stop_time, "the steady-state window starts before the end");
        self.steady_from = Some(at);
    }

    pub fn add_channel(&mut self, driver: ChannelDriver) {
        self.channels.push(driver);
    }

    /// Adds a route crossing `dirs`, for [`FlowSpec::routes`].
    pub fn add_route(&mut self, dirs: &[DirId]) -> RouteId {
        self.routes.add(dirs)
    }

    /// Adds a single-path TCP flow.
    pub fn add_flow(&mut self, spec: FlowSpec) -> FlowId {
        assert!(spec.subflow_of.is_none() && spec.app.is_some(), "a TCP flow has an application");
        let id = FlowId(self.flows.len() as u32);
        self.flows.push(Flow::new(id, spec));
        self.entries.push(Entry::Tcp(id.0 as usize));
        id
    }

    /// Adds an MP-TCP connection over `subflows` (one spec each, in order, without an
    /// application); returns the flow ids of its subflows.
    pub fn add_connection(&mut self, spec: ConnectionSpec, subflows: Vec<FlowSpec>) -> Vec<FlowId> {
        assert_eq!(subflows.len(), spec.backup.len(), "one backup flag per subflow");
        assert!(!subflows.is_empty() && subflows.len() <= 64, "1 to 64 subflows");
        let c = self.connections.len();
        let first = self.flows.len();
        let mut ids = Vec::with_capacity(subflows.len());
        for (k, mut sub) in subflows.into_iter().enumerate() {
            assert!(sub.app.is_none(), "the connection has the application");
            sub.subflow_of = Some(SubflowOf { connection: c as u32, index: k as u8 });
            let id = FlowId(self.flows.len() as u32);
            self.flows.push(Flow::new(id, sub));
            ids.push(id);
        }
        let conn = Connection::new(spec, first);
        // Every subflow's ACKs advertise the connection's window from the first.
        let window = conn.data_rx.window();
        for f in &mut self.flows[first..] {
            f.receiver.set_data_ack(0, window);
        }
        self.connections.push(conn);
        self.entries.push(Entry::Mptcp(c));
        ids
    }

    /// Makes the application of flow `downstream` (an index into the scenario's flows, which
    /// has a relay application) read what single-path TCP flow `upstream` delivers.
    pub fn add_relay(&mut self, upstream: usize, downstream: usize) {
        let Entry::Tcp(up) = self.entries[upstream] else { panic!("a relay reads a single-path TCP flow") };
        assert!(self.flows[up].read_by.is_none(), "a flow is read by one relay at most");
        let r = Some(self.relays.len() as u32);
        self.flows[up].read_by = r;
        // Its window closes whenever the relay's buffer fills: a lost window update must not
        // stall it.
        self.flows[up].sender.enable_window_probes();
        let entry = self.entries[downstream];
        let app = match entry {
            Entry::Tcp(d) => {
                self.flows[d].relay = r;
                self.flows[d].app.as_ref()
            }
            Entry::Mptcp(c) => {
                self.connections[c].relay = r;
                Some(&self.connections[c].app)
            }
        };
        assert!(app.is_some_and(|a| a.relay().is_some()), "a relay flow has a relay application");
        self.relays.push(Relay { upstream: up, downstream: entry });
    }

    /// Adds a processor at the end of its node's chain.
    pub fn add_processor(&mut self, slot: ProcessorSlot) {
        self.processors.push(slot);
    }

    /// The world, with its first events scheduled: channels first (so that at t = 0 links have
    /// their rate before any packet), then the flows' starts, the first sample and the first
    /// periodic link reports.
    pub fn build(self) -> World {
        let n_dirs = self.dirs.len();
        let series = self.series();
        let chains = vec![Vec::new(); self.topology.nodes()];
        let burst = self.burst.map(|(meter, entries)| {
            let entries = entries.iter().map(|&e| self.entries[e]).collect();
            (meter, entries)
        });
        let mut world = World {
            queue: EventQueue::with_capacity(1024),
            packets: PacketArena::with_capacity(4096),
            topology: self.topology,
            routes: self.routes,
            dirs: self.dirs,
            subscribers: Vec::new(),
            channels: self.channels,
            flows: self.flows,
            connections: self.connections,
            entries: self.entries,
            relays: self.relays,
            processors: Vec::with_capacity(self.processors.len()),
            chains,
            report_listeners: Vec::new(),
            pacers: vec![super::NO_PACER; n_dirs],
            stop_time: self.stop_time,
            max_events: self.max_events,
            events: 0,
            interval: self.interval,
            series,
            dir_bytes_at_last_sample: vec![0; n_dirs],
            out: Vec::with_capacity(64),
            timers: Vec::with_capacity(8),
            row: Vec::new(),
            radio_out: RadioOutput::default(),
            proc_out: Vec::with_capacity(64),
            proc_timers: Vec::with_capacity(8),
            proc_controls: Vec::with_capacity(8),
            run_queued: Vec::with_capacity(4),
            burst,
            steady_from: self.steady_from,
            steady_reached: false,
        };
        for slot in self.processors {
            world.register_processor(slot);
        }
        // A relay's upstream receiver reads no further than the relay's buffer from the start
        // (before the handshake, so no packet goes out).
        for r in 0..world.relays.len() {
            let edge = world.relay_app(r).relay_edge().expect("a relay's application has an edge");
            let mut ctx = TcpCtx {
                now: SimTime::ZERO,
                packets: &mut world.packets,
                out: &mut world.out,
                timers: &mut world.timers,
            };
            world.flows[world.relays[r].upstream].receiver.set_read_limit(&mut ctx, edge);
            debug_assert!(world.out.is_empty() && world.timers.is_empty(), "nothing sent before the start");
        }
        for c in 0..world.channels.len() {
            world.queue.schedule(SimTime::ZERO, Event::Channel { channel: c as u32 });
        }
        for f in 0..world.flows.len() {
            if let Some(at) = world.flows[f].app_wake {
                world.queue.schedule(at, Event::App { flow: f as u32 });
            }
        }
        world.queue.schedule(SimTime::ZERO + world.interval, Event::Sample);
        if let Some(at) = world.steady_from {
            world.queue.schedule(at, Event::SteadyFrom);
        }
        for d in &world.dirs {
            if let Some(r) = d.radio() {
                if r.report.mode == ReportMode::Periodic {
                    let at = SimTime::ZERO + r.report.period.0;
                    world.queue.schedule(at, Event::Radio { dir: r.id, what: RadioEvent::Report });
                }
            }
        }
        world
    }

    /// Values the time series will hold over the whole run (one per sampling interval up to the
    /// stop time, per entity, per metric of its table), for `metrics.series_memory`'s check.
    pub fn series_values(&self) -> (u64, usize) {
        let rows = self.series_rows();
        let flows = self.flows.len() + self.connections.len();
        let proxies: usize = self.processors.iter().map(|p| p.processor.columns().len()).sum();
        let cells = EntitySeries::cells(flows, FLOW_METRICS.len(), rows)
            + EntitySeries::cells(self.dirs.len(), LINK_METRICS.len(), rows)
            + EntitySeries::cells(proxies, 1, rows);
        (cells as u64, rows)
    }

    /// One row per sampling interval up to the stop time.
    fn series_rows(&self) -> usize {
        (self.stop_time.0 / self.interval.0) as usize
    }

    /// The time series, empty, with room for the whole run: per flow (an MP-TCP subflow is its
    /// connection's flow with its index as `subflow`; the connection follows its subflows'
    /// entities with `subflow` null), per link direction, per processor column — in the order
    /// [`World::sample`] fills them.
    fn series(&self) -> WorldSeries {
        let rows = self.series_rows();
        let mut flow_names = Vec::new();
        let mut subflow = Vec::new();
        let mut applies = Vec::new();
        for f in &self.flows {
            match f.subflow_of {
                Some(of) => {
                    flow_names.push(self.connections[of.connection as usize].name.clone());
                    subflow.push(Some(i64::from(of.index)));
                }
                None => {
                    flow_names.push(f.name.clone());
                    subflow.push(None);
                }
            }
            applies.extend(FLOW_METRICS.iter().map(|m| !CONNECTION_ONLY.contains(m)));
        }
        for c in &self.connections {
            flow_names.push(c.name.clone());
            subflow.push(None);
            applies.extend(FLOW_METRICS.iter().map(|m| CONNECTION_METRICS.contains(m)));
        }
        let flows = EntitySeries::new(
            "flows",
            vec![("flow".into(), KeyValues::Text(flow_names)), ("subflow".into(), KeyValues::Int(subflow))],
            FLOW_METRICS.iter().map(|m| m.to_string()).collect(),
            applies,
            rows,
        );
        let mut links = Vec::new();
        let mut tags = Vec::new();
        let mut applies = Vec::new();
        for dir in &self.dirs {
            let link = self.topology.link_of(dir.id());
            links.push(link.name.clone());
            tags.push(if link.dirs[0] == dir.id() { "fwd" } else { "rev" }.to_string());
            let radio = dir.radio().is_some();
            applies.extend(LINK_METRICS.iter().map(|m| radio || !RADIO_ONLY.contains(m)));
        }
        let links = EntitySeries::new(
            "links",
            vec![("link".into(), KeyValues::Text(links)), ("direction".into(), KeyValues::Text(tags))],
            LINK_METRICS.iter().map(|m| m.to_string()).collect(),
            applies,
            rows,
        );
        let (mut names, mut metrics) = (Vec::new(), Vec::new());
        for p in &self.processors {
            for column in p.processor.columns() {
                names.push(p.name.clone());
                metrics.push(column);
            }
        }
        let applies = vec![true; names.len()];
        let proxies = EntitySeries::new(
            "proxies",
            vec![("processor".into(), KeyValues::Text(names)), ("metric".into(), KeyValues::Text(metrics))],
            vec!["value".into()],
            applies,
            rows,
        );
        WorldSeries { times: Vec::with_capacity(rows), flows, links, proxies }
    }
}
