//! The simulation: every component of a run, the event dispatch and the run loop.
//!
//! A `World` is an owned value (never a global), put together by a [`WorldBuilder`] (which
//! `scenario::build` drives from a validated scenario). Components never share mutable state:
//! links, channels, TCP endpoints and applications act on events addressed to their ids, and the
//! world moves packets between them. The work is split by concern:
//!
//! - [`forward`]: a packet at a node — the node's processors, then local delivery or the next
//!   hop of the packet's route;
//! - [`endpoints`]: the TCP endpoints and applications of the flows;
//! - [`connection`]: MP-TCP connections above their subflows;
//! - [`relay`]: relays, an application reading one flow and writing another (a split
//!   connection);
//! - [`processors`]: calling packet processors and carrying out what they ask; link reports;
//! - [`drivers`]: channel processes and the radio stack's events;
//! - [`sample`]: the time series.

pub mod builder;
pub mod connection;
mod drivers;
mod endpoints;
pub mod flow;
mod forward;
mod processors;
pub mod relay;
mod sample;

pub use builder::WorldBuilder;
pub use connection::{Connection, ConnectionSpec};
pub use drivers::{ChannelDriver, DriverProcess};
pub use flow::{Flow, FlowSpec, SubflowOf};
pub use relay::Relay;

use crate::event::{Event, RadioEvent, TcpTimer};
use crate::ids::{DirId, NodeId, PacketId};
use crate::metrics::burst::{BurstMeter, BurstSummary};
use crate::net::PacketArena;
use crate::proxy::{Control, Emit, ProcessorSlot};
use crate::radio::direction::RadioOutput;
use crate::radio::report::ReportSubscriber;
use crate::sim::{Duration, EventQueue, SimTime};
use crate::topology::routing::RouteTable;
use crate::topology::{AnyDirection, Topology};
use std::time::Instant;

/// `World::pacers` of a direction no processor feeds.
const NO_PACER: u32 = u32::MAX;

/// A flow of the scenario, as the world holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A single-path TCP flow: index into [`World::flows`].
    Tcp(usize),
    /// An MP-TCP connection: index into [`World::connections`].
    Mptcp(usize),
}

/// Why the run loop stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Reached the scenario's duration.
    Duration,
    /// Hit `simulation.max_events`.
    EventLimit,
    /// Nothing left to do before the stop time.
    Idle,
    /// The progress callback asked to stop.
    Interrupted,
}

pub struct World {
    queue: EventQueue<Event>,
    packets: PacketArena,
    topology: Topology,
    routes: RouteTable,
    dirs: Vec<AnyDirection>,
    /// Components that receive a radio direction's link reports.
    subscribers: Vec<(DirId, Box<dyn ReportSubscriber>)>,
    channels: Vec<ChannelDriver>,
    /// Every TCP connection: single-path flows and MP-TCP subflows.
    flows: Vec<Flow>,
    /// MP-TCP connections; their subflows are among `flows`.
    connections: Vec<Connection>,
    /// The scenario's flows in its order: a TCP flow or an MP-TCP connection.
    entries: Vec<Entry>,
    /// Relays: which flow each reads and which it writes.
    relays: Vec<Relay>,
    /// Packet processors of every node; `chains[node]` lists a node's, in order.
    processors: Vec<ProcessorSlot>,
    chains: Vec<Vec<u32>>,
    /// Which processors receive which radio direction's reports: (direction, processor index),
    /// sorted.
    report_listeners: Vec<(DirId, u32)>,
    /// Per direction, the processor that feeds it ([`crate::proxy::PacketProcessor::paces`]),
    /// or [`NO_PACER`].
    pacers: Vec<u32>,
    stop_time: SimTime,
    max_events: u64,
    events: u64,
    interval: Duration,
    series: sample::WorldSeries,
    /// Bytes sent per direction at the previous time-series row.
    dir_bytes_at_last_sample: Vec<u64>,
    /// Reused buffers: packets a TCP endpoint emitted, timers it armed, a time-series row.
    out: Vec<PacketId>,
    timers: Vec<(SimTime, TcpTimer)>,
    row: Vec<f64>,
    radio_out: RadioOutput,
    proc_out: Vec<Emit>,
    proc_timers: Vec<(SimTime, u32)>,
    proc_controls: Vec<Control>,
    /// While a run of packets sent "first" is admitted: per next hop, how many are queued.
    run_queued: Vec<(DirId, usize)>,
    /// `[metrics.burst]`: the meter and the scenario flows it counts.
    burst: Option<(BurstMeter, Vec<Entry>)>,
    /// `metrics.steady_from`: when the steady-state window starts, and whether the run has
    /// reached it (the flows' delivered bytes then are noted).
    steady_from: Option<SimTime>,
    steady_reached: bool,
}

impl World {
    /// Adds a processor after the world was built (tests and tools that bring their own). It may
    /// not add time-series columns: those are fixed when the world is built.
    pub fn add_processor(&mut self, slot: ProcessorSlot) {
        assert!(slot.processor.columns().is_empty(), "a processor added after the build has no columns");
        self.register_processor(slot);
    }

    /// Puts a processor at the end of its node's chain and among the listeners of the radio
    /// directions it names.
    fn register_processor(&mut self, slot: ProcessorSlot) {
        let index = self.processors.len() as u32;
        self.chains[slot.node.0 as usize].push(index);
        self.report_listeners.extend(slot.processor.reports_from().into_iter().map(|d| (d, index)));
        self.report_listeners.sort_unstable_by_key(|&(d, i)| (d.0, i));
        for dir in slot.processor.paces() {
            let pacer = &mut self.pacers[dir.0 as usize];
            assert_eq!(*pacer, NO_PACER, "two processors pace direction {dir:?}");
            assert!(
                matches!(self.dirs[dir.0 as usize], AnyDirection::Wired(_)),
                "a processor paces only wired directions ({dir:?} has the radio stack)"
            );
            assert_eq!(self.topology.from(dir), slot.node, "a processor paces its own node's interfaces");
            *pacer = index;
        }
        self.processors.push(slot);
    }

    /// Sends the link reports of radio direction `dir` to `subscriber` as they are published.
    pub fn subscribe(&mut self, dir: DirId, subscriber: Box<dyn ReportSubscriber>) {
        self.subscribers.push((dir, subscriber));
    }

    /// Runs until the stop time, the event limit, or until `progress` returns false. `progress`
    /// is called about ten times a wall-second with (simulated now, events so far).
    pub fn run(&mut self, progress: &mut dyn FnMut(SimTime, u64) -> bool) -> Stop {
        const CHECK_EVERY: u64 = 1 << 14;
        let wall_start = Instant::now();
        let mut next_report = 0.1;
        let stop = loop {
            let Some(t) = self.queue.peek_time() else { break Stop::Idle };
            if t > self.stop_time {
                break Stop::Duration;
            }
            if self.max_events > 0 && self.events >= self.max_events {
                break Stop::EventLimit;
            }
            let (now, event) = self.queue.pop().expect("peeked");
            self.events += 1;
            self.dispatch(now, event);
            if self.events % CHECK_EVERY == 0 {
                let wall = wall_start.elapsed().as_secs_f64();
                if wall >= next_report {
                    next_report = wall + 0.1;
                    if !progress(now, self.events) {
                        break Stop::Interrupted;
                    }
                }
            }
        };
        let end = match stop {
            Stop::Duration | Stop::Idle => self.stop_time,
            Stop::EventLimit | Stop::Interrupted => self.queue.now(),
        };
        for d in &mut self.dirs {
            d.finish(end);
        }
        stop
    }

    fn dispatch(&mut self, now: SimTime, event: Event) {
        match event {
            Event::TxDone { dir, generation } => self.tx_done(now, dir, generation),
            Event::Arrive { dir } => self.arrive(now, dir),
            Event::LateArrive { dir, pkt } => self.receive(now, dir, pkt),
            Event::Radio { dir, what: RadioEvent::Report } => self.periodic_report(now, dir),
            Event::Radio { dir, what } => self.radio_event(now, dir, what),
            Event::Channel { channel } => self.channel_step(now, channel as usize),
            Event::Tcp { flow, timer } => self.tcp_timer(now, flow as usize, timer),
            Event::App { flow } => self.app_wake(now, flow as usize),
            Event::Processor { index, token } => {
                self.call_processor(now, index as usize, None, |p, ctx| p.on_timer(ctx, token));
            }
            Event::Sample => self.sample(now),
            Event::SteadyFrom => self.mark_steady(),
        }
    }

    /// The steady-state window starts: notes every flow's and connection's delivered bytes (no
    /// allocation; the summary subtracts them from the totals at the end).
    fn mark_steady(&mut self) {
        for f in &mut self.flows {
            f.delivered_at_steady = f.receiver.stats.bytes_delivered;
        }
        for c in &mut self.connections {
            c.delivered_at_steady = c.data_rx.stats.bytes_delivered;
        }
        self.steady_reached = true;
    }

    // --------------------------------------------------------------------------------------------
    // What a finished (or running) world shows

    /// Simulated time reached.
    pub fn now(&self) -> SimTime {
        self.queue.now()
    }

    pub fn stop_time(&self) -> SimTime {
        self.stop_time
    }

    /// Events dispatched so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Packets alive now (allocated and not yet freed): what a leak check compares.
    pub fn live_packets(&self) -> usize {
        self.packets.live()
    }

    /// Most packets alive at once so far.
    pub fn peak_packets(&self) -> usize {
        self.packets.peak()
    }

    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    pub fn node_name(&self, node: NodeId) -> &str {
        self.topology.node_name(node)
    }

    /// Every route of the run's flows.
    pub fn routes(&self) -> &RouteTable {
        &self.routes
    }

    /// Every link direction, indexed by [`DirId`].
    pub fn dirs(&self) -> &[AnyDirection] {
        &self.dirs
    }

    /// Every TCP connection: single-path flows and MP-TCP subflows.
    pub fn flows(&self) -> &[Flow] {
        &self.flows
    }

    pub fn connections(&self) -> &[Connection] {
        &self.connections
    }

    /// The scenario's flows, in its order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn processors(&self) -> &[ProcessorSlot] {
        &self.processors
    }

    /// `metrics.steady_from` (`None` without one).
    pub fn steady_from(&self) -> Option<SimTime> {
        self.steady_from
    }

    /// Whether the run has reached `steady_from`: the flows' `delivered_at_steady` are then
    /// their delivered bytes at that time.
    pub fn steady_reached(&self) -> bool {
        self.steady_reached
    }

    /// `[metrics.burst]`'s results so far (`None` without one).
    pub fn burst(&self) -> Option<BurstSummary> {
        self.burst.as_ref().map(|(meter, _)| meter.summary())
    }

    /// Bytes a scenario flow has delivered in order to its receiving application.
    fn delivered(&self, entry: Entry) -> u64 {
        match entry {
            Entry::Tcp(f) => self.flows[f].receiver.stats.bytes_delivered,
            Entry::Mptcp(c) => self.connections[c].data_rx.stats.bytes_delivered,
        }
    }

    /// The time series recorded so far, as long-form tables (`flows`, `links`, `proxies`); the
    /// world keeps empty copies of them.
    pub fn take_series(&mut self) -> Vec<crate::metrics::Table> {
        std::mem::take(&mut self.series).into_tables()
    }

    /// Dispatches the next event, for tests that watch a run event by event; false when none
    /// is left before the stop time. (`run` does the same in a loop, and also closes the
    /// directions' statistics at the end.)
    pub fn step(&mut self) -> bool {
        match self.queue.peek_time() {
            Some(t) if t <= self.stop_time => {
                let (now, event) = self.queue.pop().expect("peeked");
                self.events += 1;
                self.dispatch(now, event);
                true
            }
            _ => false,
        }
    }
}
