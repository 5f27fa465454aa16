//! The simulation: every component of a run, the event dispatch and the run loop.
//!
//! A `World` is an owned value (never a global), built from a validated scenario by
//! `scenario::build`. Components never share mutable state: links, channels, TCP endpoints and
//! applications act on events addressed to their ids, and the world moves packets between them.
//! A node's forwarding path runs the node's packet processors (proxies, `crate::proxy`), then a
//! route lookup.

use crate::app::{App, AppConfig};
use crate::channel::markov_pair::MarkovPair;
use crate::channel::{AnyChannel, ChannelProcess};
use crate::event::TcpTimer;
use crate::event::{Event, RadioEvent};
use crate::ids::DirId;
use crate::ids::{FlowId, NodeId, PacketId};
use crate::metrics::TimeSeries;
use crate::net::link::DropCause;
use crate::net::{PacketArena, Side};
use crate::proxy::{Control, Emit, PacketProcessor, ProcCtx, ProcessorSlot, Verdict};
use crate::radio::config::ReportMode;
use crate::radio::direction::RadioOutput;
use crate::radio::report::{LinkReport, ReportSubscriber};
use crate::radio::{AnySinr, SinrProcess};
use crate::sim::{Duration, EventQueue, Rng, SimTime};
use crate::topology::any_direction::AnyDirection;
use crate::topology::routing::Routes;
use crate::transport::tcp::{Endpoint, TcpConfig, TcpCtx, TcpReceiver, TcpSender};
use std::time::Instant;

/// A link as the summary describes it: its directions and, for radio links, its channels.
pub struct LinkInfo {
    pub name: String,
    pub radio: bool,
    pub between: [NodeId; 2],
    /// Forward (between[0] → between[1]) and reverse direction.
    pub dirs: [DirId; 2],
}

/// What drives a channel: a rate process (links without the radio stack), a SINR process
/// (radio-stack links), or a Markov pair setting the rates of two links jointly.
pub enum DriverProcess {
    Rate(AnyChannel),
    Sinr(AnySinr),
    Pair(Box<MarkovPair>),
}

/// A channel process and the link directions it drives: `(direction, member)`, where `member`
/// picks the link of a Markov pair (0 or 1) and is 0 otherwise.
pub struct ChannelDriver {
    pub process: DriverProcess,
    pub rng: Rng,
    pub targets: Vec<(DirId, u8)>,
}

/// One TCP connection, its application, and what the summary needs to know of it.
pub struct Flow {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: SimTime,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub app: App,
    /// Bytes the application sends in all, for downloads and sized bulk transfers.
    pub total: Option<u64>,
    pub started: bool,
    /// When the last byte reached the receiving application.
    pub completed_at: Option<SimTime>,
    /// The application's pending wake-up.
    app_wake: Option<SimTime>,
    /// Drops of this flow's packets per link direction: [queue full, error].
    pub link_drops: Vec<[u64; 2]>,
    /// Delivered bytes at the previous time-series row.
    delivered_at_last_sample: u64,
}

impl Flow {
    /// Flow `id` from `src` to `dst`: its TCP sender and receiver, and `app` writing into it.
    /// `directions` is the number of link directions (for per-link drop counts).
    pub fn new(
        id: FlowId,
        name: String,
        (src, dst): (NodeId, NodeId),
        start: SimTime,
        tcp: &TcpConfig,
        (app_config, app): (&AppConfig, App),
        directions: usize,
    ) -> Self {
        let opener = app_config.opener();
        Flow {
            name,
            src,
            dst,
            start,
            sender: TcpSender::new(Endpoint { flow: id, local: src, remote: dst }, opener, tcp),
            receiver: TcpReceiver::new(Endpoint { flow: id, local: dst, remote: src }, opener, tcp),
            app,
            total: app_config.total(),
            started: false,
            completed_at: None,
            app_wake: Some(start),
            link_drops: vec![[0; 2]; directions],
            delivered_at_last_sample: 0,
        }
    }
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
    pub queue: EventQueue<Event>,
    pub packets: PacketArena,
    pub node_names: Vec<String>,
    pub routes: Routes,
    pub dirs: Vec<AnyDirection>,
    pub links: Vec<LinkInfo>,
    /// Components that receive a radio direction's link reports.
    pub subscribers: Vec<(DirId, Box<dyn ReportSubscriber>)>,
    pub channels: Vec<ChannelDriver>,
    pub flows: Vec<Flow>,
    /// Packet processors of every node; `chains[node]` lists a node's, in order.
    pub processors: Vec<ProcessorSlot>,
    chains: Vec<Vec<u32>>,
    pub stop_time: SimTime,
    pub max_events: u64,
    pub events: u64,
    pub interval: Duration,
    pub series: TimeSeries,
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
}

impl World {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        node_names: Vec<String>,
        routes: Routes,
        dirs: Vec<AnyDirection>,
        links: Vec<LinkInfo>,
        channels: Vec<ChannelDriver>,
        flows: Vec<Flow>,
        processors: Vec<ProcessorSlot>,
        stop_time: SimTime,
        max_events: u64,
        interval: Duration,
        series: TimeSeries,
    ) -> Self {
        let n_dirs = dirs.len();
        let mut chains = vec![Vec::new(); node_names.len()];
        for (i, p) in processors.iter().enumerate() {
            chains[p.node.0 as usize].push(i as u32);
        }
        let mut world = World {
            queue: EventQueue::with_capacity(1024),
            packets: PacketArena::with_capacity(4096),
            node_names,
            routes,
            dirs,
            links,
            subscribers: Vec::new(),
            channels,
            flows,
            processors,
            chains,
            stop_time,
            max_events,
            events: 0,
            interval,
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
        };
        // Channels first, so that at t = 0 links have their rate before any packet.
        for c in 0..world.channels.len() {
            world.queue.schedule(SimTime::ZERO, Event::Channel { channel: c as u32 });
        }
        for f in 0..world.flows.len() {
            let start = world.flows[f].start;
            world.queue.schedule(start, Event::App { flow: f as u32 });
        }
        world.queue.schedule(SimTime::ZERO + interval, Event::Sample);
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

    /// Adds a processor after the world was built (tests and tools that bring their own). It may
    /// not add time-series columns: those are fixed when the world is built.
    pub fn add_processor(&mut self, slot: ProcessorSlot) {
        assert!(slot.processor.columns().is_empty(), "a processor added after the build has no columns");
        self.chains[slot.node.0 as usize].push(self.processors.len() as u32);
        self.processors.push(slot);
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

    /// Simulated time reached.
    pub fn now(&self) -> SimTime {
        self.queue.now()
    }

    fn dispatch(&mut self, now: SimTime, event: Event) {
        match event {
            Event::TxDone { dir, generation } => {
                let AnyDirection::Wired(d) = &mut self.dirs[dir.0 as usize] else {
                    unreachable!("TxDone for a radio direction")
                };
                if let Some(pkt) = d.on_tx_done(&mut self.queue, &mut self.packets, now, generation) {
                    self.drop_packet(pkt, dir, DropCause::Error);
                }
            }
            Event::Arrive { dir } => {
                let AnyDirection::Wired(d) = &mut self.dirs[dir.0 as usize] else {
                    unreachable!("Arrive for a radio direction")
                };
                let pkt = d.on_arrive(&mut self.queue, now);
                let node = d.to;
                self.receive(now, node, pkt);
            }
            Event::LateArrive { dir, pkt } => {
                let node = self.dirs[dir.0 as usize].to();
                self.receive(now, node, pkt);
            }
            Event::Radio { dir, what: RadioEvent::Report } => self.periodic_report(now, dir),
            Event::Radio { dir, what } => self.radio_event(now, dir, what),
            Event::Channel { channel } => self.channel_step(now, channel as usize),
            Event::Tcp { flow, timer } => self.tcp_timer(now, flow as usize, timer),
            Event::App { flow } => self.app_wake(now, flow as usize),
            Event::Processor { index, token } => {
                self.call_processor(now, index as usize, |p, ctx| p.on_timer(ctx, token));
            }
            Event::Sample => self.sample(now),
        }
    }

    // --------------------------------------------------------------------------------------------
    // Forwarding

    /// A packet reached `node` from a link: the node's processors see it first.
    fn receive(&mut self, now: SimTime, node: NodeId, pkt: PacketId) {
        for k in 0..self.chains[node.0 as usize].len() {
            let index = self.chains[node.0 as usize][k] as usize;
            if self.call_processor(now, index, |p, ctx| p.on_packet(ctx, pkt)) == Verdict::Consumed {
                return;
            }
        }
        self.deliver_or_forward(now, node, pkt);
    }

    fn deliver_or_forward(&mut self, now: SimTime, node: NodeId, pkt: PacketId) {
        if self.packets.get(pkt).dst == node {
            self.deliver_local(now, pkt);
        } else {
            self.forward(now, node, pkt);
        }
    }

    /// Sends `pkt` from `node` toward its destination.
    fn forward(&mut self, now: SimTime, node: NodeId, pkt: PacketId) {
        let p = self.packets.get(pkt);
        let dir = self.routes.next_hop(node, p.dst).expect("routes are checked when the scenario is built");
        let size = p.size;
        if let Err(pkt) = self.dirs[dir.0 as usize].admit(&mut self.queue, now, pkt, size) {
            self.drop_packet(pkt, dir, DropCause::QueueFull);
        }
    }

    /// Sends a run of packets a processor emitted "first" from `node`: each joins its next hop
    /// ahead of the packets already waiting there and behind the run's earlier packets, so the
    /// run leaves in the order emitted; when a queue runs out of room, the run's tail is dropped.
    fn forward_first(&mut self, now: SimTime, node: NodeId, run: &[Emit]) {
        let mut queued = std::mem::take(&mut self.run_queued);
        queued.clear();
        for e in run {
            let p = self.packets.get(e.pkt);
            if p.dst == node {
                self.deliver_local(now, e.pkt);
                continue;
            }
            let dir =
                self.routes.next_hop(node, p.dst).expect("routes are checked when the scenario is built");
            let size = p.size;
            let slot = match queued.iter().position(|(d, _)| *d == dir) {
                Some(i) => i,
                None => {
                    queued.push((dir, 0));
                    queued.len() - 1
                }
            };
            match self.dirs[dir.0 as usize].admit_at(&mut self.queue, now, e.pkt, size, queued[slot].1) {
                Ok(true) => queued[slot].1 += 1,
                Ok(false) => {}
                Err(pkt) => self.drop_packet(pkt, dir, DropCause::QueueFull),
            }
        }
        self.run_queued = queued;
    }

    // --------------------------------------------------------------------------------------------
    // Packet processors

    /// Runs `f` on processor `index` with a context, then carries out what it asked for.
    fn call_processor<R>(
        &mut self,
        now: SimTime,
        index: usize,
        f: impl FnOnce(&mut dyn PacketProcessor, &mut ProcCtx) -> R,
    ) -> R {
        let slot = &mut self.processors[index];
        let node = slot.node;
        let mut ctx = ProcCtx {
            now,
            node,
            packets: &mut self.packets,
            dirs: &self.dirs,
            out: &mut self.proc_out,
            timers: &mut self.proc_timers,
            controls: &mut self.proc_controls,
        };
        let result = f(slot.processor.as_mut(), &mut ctx);
        for (at, token) in self.proc_timers.drain(..) {
            self.queue.schedule(at, Event::Processor { index: index as u32, token });
        }
        let mut controls = std::mem::take(&mut self.proc_controls);
        for control in controls.drain(..) {
            match control {
                Control::PinCwnd { flow, cwnd } => self.pin_cwnd(now, flow, cwnd),
            }
        }
        self.proc_controls = controls;
        let mut out = std::mem::take(&mut self.proc_out);
        let mut i = 0;
        while i < out.len() {
            if out[i].first {
                let run = out[i..].iter().take_while(|e| e.first).count();
                self.forward_first(now, node, &out[i..i + run]);
                i += run;
            } else {
                self.deliver_or_forward(now, node, out[i].pkt);
                i += 1;
            }
        }
        out.clear();
        self.proc_out = out;
        result
    }

    fn pin_cwnd(&mut self, now: SimTime, flow: FlowId, cwnd: Option<u64>) {
        let f = flow.0 as usize;
        let mut ctx =
            TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
        self.flows[f].sender.pin_cwnd(&mut ctx, cwnd);
        self.flush(now, f);
    }

    fn drop_packet(&mut self, pkt: PacketId, dir: DirId, cause: DropCause) {
        let flow = self.packets.get(pkt).flow.0 as usize;
        let slot = match cause {
            DropCause::QueueFull => 0,
            DropCause::Error => 1,
        };
        self.flows[flow].link_drops[dir.0 as usize][slot] += 1;
        self.packets.free(pkt);
    }

    fn deliver_local(&mut self, now: SimTime, pkt: PacketId) {
        let packet = *self.packets.get(pkt);
        self.packets.free(pkt);
        let f = packet.flow.0 as usize;
        let flow = &mut self.flows[f];
        let mut ctx =
            TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
        match packet.to {
            Side::Receiver => {
                flow.receiver.on_packet(&mut ctx, &packet);
                if flow.completed_at.is_none()
                    && flow.total.is_some_and(|t| flow.receiver.stats.bytes_delivered >= t)
                {
                    flow.completed_at = Some(now);
                }
            }
            Side::Sender => {
                flow.sender.on_packet(&mut ctx, &packet);
                self.app_write(now, f);
            }
        }
        self.flush(now, f);
    }

    /// Sends what a TCP endpoint emitted and schedules the timers it armed.
    fn flush(&mut self, now: SimTime, f: usize) {
        for (at, timer) in self.timers.drain(..) {
            self.queue.schedule(at, Event::Tcp { flow: f as u32, timer });
        }
        let mut out = std::mem::take(&mut self.out);
        for pkt in out.drain(..) {
            let src = self.packets.get(pkt).src;
            self.forward(now, src, pkt);
        }
        self.out = out;
    }

    // --------------------------------------------------------------------------------------------
    // Timers, applications, channels

    fn tcp_timer(&mut self, now: SimTime, f: usize, timer: TcpTimer) {
        let flow = &mut self.flows[f];
        let mut ctx =
            TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
        match timer {
            TcpTimer::SenderRto => flow.sender.on_timer(&mut ctx),
            TcpTimer::ReceiverDelayedAck | TcpTimer::ReceiverSyn => flow.receiver.on_timer(&mut ctx, timer),
        }
        self.flush(now, f);
    }

    fn app_wake(&mut self, now: SimTime, f: usize) {
        let flow = &mut self.flows[f];
        if flow.app_wake != Some(now) {
            return; // superseded by an earlier wake-up
        }
        flow.app_wake = None;
        if !flow.started {
            flow.started = true;
            let mut ctx =
                TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
            flow.receiver.open(&mut ctx);
            flow.sender.open(&mut ctx);
        }
        self.app_write(now, f);
        self.flush(now, f);
    }

    /// Lets the application write into the send buffer and records when it wants to wake.
    fn app_write(&mut self, now: SimTime, f: usize) {
        let flow = &mut self.flows[f];
        if !flow.started {
            return;
        }
        let write = flow.app.write(now, flow.sender.buffer_space());
        if write.bytes > 0 {
            let mut ctx =
                TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
            flow.sender.write(&mut ctx, write.bytes);
        }
        if let Some(at) = write.wake {
            if flow.app_wake.is_none_or(|pending| at < pending) {
                flow.app_wake = Some(at);
                self.queue.schedule(at, Event::App { flow: f as u32 });
            }
        }
    }

    fn channel_step(&mut self, now: SimTime, c: usize) {
        let driver = &mut self.channels[c];
        let next_change = match &mut driver.process {
            DriverProcess::Rate(process) => {
                let step = process.step(now, &mut driver.rng);
                for &(dir, _) in &driver.targets {
                    let AnyDirection::Wired(d) = &mut self.dirs[dir.0 as usize] else {
                        unreachable!("rate channels drive directions without the radio stack")
                    };
                    d.set_rate(&mut self.queue, &self.packets, now, step.rate_bps);
                }
                step.next_change
            }
            DriverProcess::Pair(process) => {
                let step = process.step(now, &mut driver.rng);
                for &(dir, member) in &driver.targets {
                    let AnyDirection::Wired(d) = &mut self.dirs[dir.0 as usize] else {
                        unreachable!("a Markov pair drives directions without the radio stack")
                    };
                    d.set_rate(&mut self.queue, &self.packets, now, step.rates_bps[member as usize]);
                }
                step.next_change
            }
            DriverProcess::Sinr(process) => {
                let step = process.step(now, &mut driver.rng);
                for i in 0..self.channels[c].targets.len() {
                    let dir = self.channels[c].targets[i].0;
                    let AnyDirection::Radio(r) = &mut self.dirs[dir.0 as usize] else {
                        unreachable!("SINR channels drive radio-stack directions")
                    };
                    if r.set_sinr(now, step.sinr_db) && r.report.mode == ReportMode::OnChange {
                        self.publish(now, dir);
                    }
                }
                step.next_change
            }
        };
        if let Some(at) = next_change {
            self.queue.schedule(at, Event::Channel { channel: c as u32 });
        }
    }

    // --------------------------------------------------------------------------------------------
    // Radio stack

    fn radio_event(&mut self, now: SimTime, dir: DirId, what: RadioEvent) {
        let AnyDirection::Radio(r) = &mut self.dirs[dir.0 as usize] else {
            unreachable!("radio event for a wired direction")
        };
        let mut out = std::mem::take(&mut self.radio_out);
        r.on_event(&mut self.queue, &self.packets, now, what, &mut out);
        let node = r.to;
        for (pkt, cause) in out.dropped.drain(..) {
            self.drop_packet(pkt, dir, cause);
        }
        for pkt in out.delivered.drain(..) {
            self.receive(now, node, pkt);
        }
        self.radio_out = out;
    }

    /// Sends the current state of radio direction `dir` to its subscribers.
    fn publish(&mut self, now: SimTime, dir: DirId) {
        let AnyDirection::Radio(r) = &mut self.dirs[dir.0 as usize] else {
            unreachable!("reports come from radio directions")
        };
        r.reports_published += 1;
        let state = r.link_state();
        let report = LinkReport {
            time: now,
            dir,
            sinr_db: state.sinr_db,
            mcs: state.mcs,
            rate_bps: state.rate_bps,
            buffer_bytes: r.queue_bytes(),
        };
        for (d, subscriber) in &mut self.subscribers {
            if *d == dir {
                subscriber.on_report(&report);
            }
        }
        for index in 0..self.processors.len() {
            if self.processors[index].processor.reports_from() == Some(dir) {
                self.call_processor(now, index, |p, ctx| p.on_report(ctx, &report));
            }
        }
    }

    fn periodic_report(&mut self, now: SimTime, dir: DirId) {
        self.publish(now, dir);
        let AnyDirection::Radio(r) = &self.dirs[dir.0 as usize] else { unreachable!() };
        let next = now + r.report.period.0;
        if next <= self.stop_time {
            self.queue.schedule(next, Event::Radio { dir, what: RadioEvent::Report });
        }
    }

    // --------------------------------------------------------------------------------------------
    // Time series

    fn sample(&mut self, now: SimTime) {
        let secs = self.interval.as_secs_f64();
        let mut row = std::mem::take(&mut self.row);
        row.clear();
        row.push(now.as_secs_f64());
        for flow in &mut self.flows {
            let delivered = flow.receiver.stats.bytes_delivered;
            let goodput = (delivered - flow.delivered_at_last_sample) as f64 * 8.0 / secs;
            flow.delivered_at_last_sample = delivered;
            let s = &mut flow.sender.stats;
            let rtt_ms = if s.rtt_interval_count > 0 {
                s.rtt_interval_sum.as_millis_f64() / s.rtt_interval_count as f64
            } else {
                f64::NAN
            };
            s.rtt_interval_sum = Duration::ZERO;
            s.rtt_interval_count = 0;
            let ssthresh = flow.sender.ssthresh();
            row.extend([
                goodput,
                flow.sender.cwnd() as f64,
                if ssthresh == u64::MAX { f64::NAN } else { ssthresh as f64 },
                flow.sender.pipe() as f64,
                rtt_ms,
                delivered as f64,
            ]);
        }
        for (d, dir) in self.dirs.iter().enumerate() {
            let carried = dir.carried_bytes();
            let throughput = (carried - self.dir_bytes_at_last_sample[d]) as f64 * 8.0 / secs;
            self.dir_bytes_at_last_sample[d] = carried;
            row.extend([
                dir.queue_bytes() as f64,
                dir.queue_packets() as f64,
                dir.rate_bps() as f64,
                throughput,
            ]);
            if let Some(r) = dir.radio() {
                let state = r.link_state();
                row.extend([state.sinr_db, state.mcs.map_or(f64::NAN, f64::from)]);
            }
        }
        for p in &mut self.processors {
            p.processor.sample(&mut row);
        }
        self.series.push_row(row.iter().copied());
        self.row = row;
        let next = now + self.interval;
        if next <= self.stop_time {
            self.queue.schedule(next, Event::Sample);
        }
    }

    /// Column names of the time series, in the order `sample` fills them. `dir_names` pairs each
    /// direction's name with whether it has the radio stack (two more columns: SINR and MCS);
    /// `processor_columns` are the processors' columns, already prefixed.
    pub fn series_columns(
        flow_names: &[String],
        dir_names: &[(String, bool)],
        processor_columns: &[String],
    ) -> Vec<String> {
        let mut names = vec!["time_s".to_string()];
        for f in flow_names {
            for m in
                ["goodput_bps", "cwnd_bytes", "ssthresh_bytes", "inflight_bytes", "rtt_ms", "delivered_bytes"]
            {
                names.push(format!("flow.{f}.{m}"));
            }
        }
        for (d, radio) in dir_names {
            for m in ["queue_bytes", "queue_packets", "capacity_bps", "throughput_bps"] {
                names.push(format!("link.{d}.{m}"));
            }
            if *radio {
                names.push(format!("link.{d}.sinr_db"));
                names.push(format!("link.{d}.mcs"));
            }
        }
        names.extend(processor_columns.iter().cloned());
        names
    }
}
