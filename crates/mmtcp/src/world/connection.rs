//! MP-TCP connections as the world holds them: the connection level (application, data sender
//! and receiver, scheduler) above subflows that are ordinary flows of the world, and the glue
//! that moves packets, timers and data between the two.
//!
//! A connection's subflows are consecutive flows (`first .. first + n`). Order of work:
//!
//! - data reaching a subflow's receiver enters the connection's receiver first (by its DSS
//!   mapping), so the ACK the subflow then sends carries the DATA_ACK and window it produced;
//!   then the application reads what became contiguous ([`World::connection_read`]): the
//!   connection's buffer may autotune, and if the window grew enough every subflow announces it
//!   in the same event (Linux v0.90 `mptcp_cleanup_rbuf`);
//! - an ACK reaching a subflow's sender gives its DATA_ACK to the connection's sender, its
//!   controller reads its siblings ([`crate::transport::cc::coupling`]), the subflow handles
//!   the ACK, and the connection then lets its application write and its scheduler hand out data;
//! - a subflow's retransmission timeout that starts a loss episode queues the subflow's data
//!   not yet acknowledged at connection level for re-injection on the others (Linux v0.90
//!   `mptcp_reinject_data`);
//! - once the scheduler has run, the subflows it asked to act do so before the chunks it handed
//!   out go: halve their window (penalisation), take back their window after a timeout, send
//!   their first unacknowledged segment again at once (MuSher's recovery probe);
//! - the first subflow opens when the connection starts; each other one opens `join_delay` after
//!   the first is established (MP_JOIN; Linux v0.90's full-mesh path manager starts the joins
//!   once the first subflow is established).

use super::flow::SubflowOf;
use super::World;
use crate::app::App;
use crate::event::{Event, TcpTimer};
use crate::ids::{NodeId, PacketId};
use crate::net::Side;
use crate::sim::{Duration, SimTime};
use crate::transport::cc::{Siblings, SubflowView};
use crate::transport::mptcp::{
    AnyScheduler, Chunk, DataReceiver, DataSender, SchedView, Scheduler, SchedulerKind,
};
use crate::transport::tcp::autotune::AutotuneConfig;
use crate::transport::tcp::sender::CaState;
use crate::transport::tcp::TcpCtx;

/// What a connection is made of, as its builder gives it.
pub struct ConnectionSpec {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: SimTime,
    pub app: App,
    /// Bytes the application sends in all, for downloads and sized transfers.
    pub total: Option<u64>,
    pub send_buffer: u64,
    /// The payload the receive buffer holds at first (with autotuning, half its initial size).
    pub receive_buffer: u64,
    /// `receive_buffer = "auto"`: the connection's buffer autotunes.
    pub autotune: Option<AutotuneConfig>,
    pub scheduler: SchedulerKind,
    /// The subflows' controllers are coupled: they read their siblings before each ACK.
    pub coupled: bool,
    pub join_delay: Duration,
    /// Per subflow: a backup subflow (RFC 8684 §3.3.8).
    pub backup: Vec<bool>,
}

/// One MP-TCP connection.
pub struct Connection {
    pub(super) name: String,
    pub(super) src: NodeId,
    pub(super) dst: NodeId,
    pub(super) start: SimTime,
    /// Its subflows: flows `first .. first + backup.len()`.
    pub(super) first: usize,
    pub(super) backup: Vec<bool>,
    pub(super) data_tx: DataSender,
    pub(super) data_rx: DataReceiver,
    pub(super) scheduler: AnyScheduler,
    pub(super) scheduler_kind: SchedulerKind,
    pub(super) coupled: bool,
    pub(super) app: App,
    /// The relay (index into the world's relays) whose application this connection's is.
    pub(super) relay: Option<u32>,
    pub(super) total: Option<u64>,
    pub(super) started: bool,
    pub(super) completed_at: Option<SimTime>,
    pub(super) join_delay: Duration,
    /// The other subflows' joins have been scheduled.
    pub(super) joins_scheduled: bool,
    /// Connection-level bytes delivered at the previous time-series row.
    pub(super) delivered_at_last_sample: u64,
    /// Connection-level bytes delivered when the steady-state window began
    /// (`metrics.steady_from`; 0 before).
    pub(super) delivered_at_steady: u64,
    /// Reused buffers: the subflows as controllers and as the scheduler see them, the chunks
    /// the scheduler handed out.
    views: Vec<SubflowView>,
    sched_views: Vec<SchedView>,
    chunks: Vec<(usize, Chunk)>,
}

impl Connection {
    pub(super) fn new(spec: ConnectionSpec, first: usize) -> Self {
        let n = spec.backup.len();
        Connection {
            name: spec.name,
            src: spec.src,
            dst: spec.dst,
            start: spec.start,
            first,
            backup: spec.backup,
            data_tx: DataSender::new(spec.send_buffer, spec.receive_buffer),
            data_rx: DataReceiver::new(spec.receive_buffer, spec.autotune),
            scheduler: AnyScheduler::new(spec.scheduler),
            scheduler_kind: spec.scheduler,
            coupled: spec.coupled,
            app: spec.app,
            relay: None,
            total: spec.total,
            started: false,
            completed_at: None,
            join_delay: spec.join_delay,
            joins_scheduled: false,
            delivered_at_last_sample: 0,
            delivered_at_steady: 0,
            views: Vec::with_capacity(n),
            sched_views: Vec::with_capacity(n),
            chunks: Vec::with_capacity(64),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn src(&self) -> NodeId {
        self.src
    }
    pub fn dst(&self) -> NodeId {
        self.dst
    }
    pub fn start(&self) -> SimTime {
        self.start
    }
    /// The world's flow indices of its subflows.
    pub fn subflows(&self) -> std::ops::Range<usize> {
        self.first..self.first + self.backup.len()
    }
    pub fn is_backup(&self, index: usize) -> bool {
        self.backup[index]
    }
    pub fn scheduler(&self) -> SchedulerKind {
        self.scheduler_kind
    }
    pub fn data_sender(&self) -> &DataSender {
        &self.data_tx
    }
    pub fn data_receiver(&self) -> &DataReceiver {
        &self.data_rx
    }
    /// When the last byte reached the receiving application (downloads and sized transfers).
    pub fn completed_at(&self) -> Option<SimTime> {
        self.completed_at
    }
    /// Connection-level bytes delivered in order when the steady-state window began
    /// (`metrics.steady_from`; 0 until then).
    pub fn delivered_at_steady(&self) -> u64 {
        self.delivered_at_steady
    }
}

impl World {
    /// A packet addressed to an end of subflow `of`.
    pub(super) fn deliver_subflow(&mut self, now: SimTime, pkt: PacketId, of: SubflowOf) {
        let packet = *self.packets.get(pkt);
        let f = packet.flow.0 as usize;
        let c = of.connection as usize;
        let conn = &mut self.connections[c];
        match packet.to {
            Side::Receiver => {
                let dss = self.packets.options(pkt).dss;
                self.packets.free(pkt);
                let read_before = conn.data_rx.data_ack();
                let mapping = dss.and_then(|d| d.mapping);
                debug_assert!(!packet.is_data() || mapping.is_some(), "subflow data carries its mapping");
                if let Some(m) = mapping.filter(|_| packet.is_data()) {
                    conn.data_rx.on_data(now, of.index, m.dsn, m.len, packet.first_sent_at());
                    if conn.completed_at.is_none()
                        && conn.total.is_some_and(|t| conn.data_rx.stats.bytes_delivered >= t)
                    {
                        conn.completed_at = Some(now);
                    }
                }
                let (data_ack, window) = (conn.data_rx.data_ack(), conn.data_rx.window());
                for flow in &mut self.flows[conn.subflows()] {
                    flow.receiver.set_data_ack(data_ack, window);
                }
                let flow = &mut self.flows[f];
                if flow.receiver.estimates_rtt() {
                    flow.receiver.note_sender_rtt(flow.sender.srtt());
                }
                let mut ctx =
                    TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
                self.flows[f].receiver.on_packet(&mut ctx, &packet);
                self.flush(now, f);
                if self.connections[c].data_rx.data_ack() > read_before {
                    self.connection_read(now, c);
                }
            }
            Side::Sender => {
                let options = self.packets.copy_options(pkt);
                self.packets.free(pkt);
                if let Some(data_ack) = options.dss.and_then(|d| d.data_ack) {
                    conn.data_tx.on_data_ack(data_ack, u64::from(packet.tcp.window));
                }
                self.couple(c, of.index as usize);
                let mut ctx =
                    TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
                self.flows[f].sender.on_packet(&mut ctx, &packet, &options);
                self.flush(now, f);
                if of.index == 0 {
                    self.schedule_joins(now, c);
                }
                self.connection_send(now, c);
            }
        }
    }

    /// The application of connection `c` read what was delivered (at once, after the subflow
    /// that brought it handled its segment): the buffer autotunes, over the largest receiver RTT
    /// of the subflows (v0.90 `mptcp_check_rtt`); then, if the window grew enough
    /// ([`DataReceiver::window_update_due`]), every established subflow sends an ACK with it now
    /// (v0.90 `mptcp_cleanup_rbuf` walks all subflows with the same test).
    fn connection_read(&mut self, now: SimTime, c: usize) {
        let conn = &mut self.connections[c];
        let subflows = conn.subflows();
        if conn.data_rx.autotunes() {
            let rtt = self.flows[subflows.clone()].iter().filter_map(|f| f.receiver.rcv_rtt()).max();
            conn.data_rx.read(now, rtt);
            let (data_ack, window) = (conn.data_rx.data_ack(), conn.data_rx.window());
            for flow in &mut self.flows[subflows.clone()] {
                flow.receiver.set_data_ack(data_ack, window);
            }
        }
        let edge = self.flows[subflows.clone()].iter().map(|f| f.receiver.announced_data_edge()).max();
        if !conn.data_rx.window_update_due(edge.unwrap_or(0)) {
            return;
        }
        conn.data_rx.stats.window_updates += 1;
        for f in subflows {
            let mut ctx =
                TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
            self.flows[f].receiver.send_window_update(&mut ctx);
            self.flush(now, f);
        }
    }

    /// A timer of subflow `of` (flow `f`) fired.
    pub(super) fn subflow_timer(&mut self, now: SimTime, f: usize, of: SubflowOf, timer: TcpTimer) {
        let c = of.connection as usize;
        let mut ctx =
            TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
        match timer {
            TcpTimer::ReceiverDelayedAck | TcpTimer::ReceiverSyn => {
                self.flows[f].receiver.on_timer(&mut ctx, timer);
                self.flush(now, f);
                return;
            }
            TcpTimer::SenderPacing => self.flows[f].sender.on_timer(&mut ctx, timer),
            TcpTimer::SenderRto => {
                let sender = &self.flows[f].sender;
                let (timeouts, episode_open) =
                    (sender.stats.rto_count, !matches!(sender.ca_state(), CaState::Loss { .. }));
                self.couple(c, of.index as usize);
                let mut ctx =
                    TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
                let sender = &mut self.flows[f].sender;
                sender.on_timer(&mut ctx, timer);
                let conn = &mut self.connections[c];
                if sender.stats.rto_count > timeouts && episode_open && conn.scheduler.reinjects() {
                    let map = sender.dss_map().expect("a subflow maps its data");
                    conn.data_tx.queue_reinjection(of.index, map.outstanding().map(|m| (m.dsn, m.len)));
                }
            }
        }
        self.flush(now, f);
        if of.index == 0 {
            self.schedule_joins(now, c);
        }
        self.connection_send(now, c);
    }

    /// The wake-up of subflow `of` (flow `f`): the first subflow's is its connection's start
    /// and its application's wake-ups; another's is its join.
    pub(super) fn subflow_wake(&mut self, now: SimTime, f: usize, of: SubflowOf) {
        let c = of.connection as usize;
        if !self.flows[f].started {
            self.flows[f].started = true;
            let mut ctx =
                TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
            self.flows[f].receiver.open(&mut ctx);
            self.flows[f].sender.open(&mut ctx);
            self.flush(now, f);
        }
        if of.index == 0 {
            self.connections[c].started = true;
        }
        self.connection_send(now, c);
    }

    /// Once the first subflow of connection `c` is established, the others join `join_delay`
    /// later.
    fn schedule_joins(&mut self, now: SimTime, c: usize) {
        let conn = &mut self.connections[c];
        if conn.joins_scheduled || !self.flows[conn.first].sender.is_established() {
            return;
        }
        conn.joins_scheduled = true;
        let at = now + conn.join_delay;
        for f in conn.subflows().skip(1) {
            self.flows[f].start = at;
            self.flows[f].app_wake = Some(at);
            self.queue.schedule(at, Event::App { flow: f as u32 });
        }
    }

    /// Subflow `index` of connection `c` reads its siblings before an ACK or a timeout (only a
    /// coupled controller reads them: an uncoupled connection builds no view).
    fn couple(&mut self, c: usize, index: usize) {
        let conn = &mut self.connections[c];
        if !conn.coupled {
            return;
        }
        conn.views.clear();
        conn.views.extend(self.flows[conn.subflows()].iter().map(|f| f.sender.view()));
        let siblings = Siblings { subflows: &conn.views, me: index };
        self.flows[conn.first + index].sender.couple(&siblings);
    }

    /// Connection `c` lets its application write, then its scheduler hands data to the
    /// subflows, which send what their windows allow.
    pub(super) fn connection_send(&mut self, now: SimTime, c: usize) {
        let conn = &mut self.connections[c];
        let mut wrote = 0;
        if conn.started {
            let write = conn.app.write(now, conn.data_tx.buffer_space());
            wrote = write.bytes;
            conn.data_tx.write(write.bytes);
            let first = &mut self.flows[conn.first];
            if let Some(at) = write.wake {
                if first.app_wake.is_none_or(|pending| at < pending) {
                    first.app_wake = Some(at);
                    self.queue.schedule(at, Event::App { flow: conn.first as u32 });
                }
            }
        }
        conn.sched_views.clear();
        for (k, flow) in self.flows[conn.subflows()].iter().enumerate() {
            let tx = &flow.sender;
            conn.sched_views.push(SchedView {
                usable: tx.is_established() && !matches!(tx.ca_state(), CaState::Loss { .. }),
                open: tx.ca_state() == CaState::Open,
                backup: conn.backup[k],
                room: tx.window_room().saturating_sub(tx.unsent()),
                cwnd: tx.cwnd(),
                in_flight: tx.pipe(),
                srtt: tx.srtt(),
                rttvar: tx.rttvar(),
                mss: tx.mss(),
                ssthresh: tx.ssthresh(),
                unacked: tx.app_written() - tx.snd_una(),
                acked: tx.snd_una(),
                penalise: false,
                probe: false,
                undo_timeout: None,
            });
        }
        conn.chunks.clear();
        conn.scheduler.fill(now, &mut conn.sched_views, &mut conn.data_tx, &mut conn.chunks);
        for (k, view) in conn.sched_views.iter().enumerate() {
            if view.penalise {
                self.flows[conn.first + k].sender.penalise();
            }
        }
        for k in 0..conn.backup.len() {
            let (view, f) = (self.connections[c].sched_views[k], self.connections[c].first + k);
            if !view.probe && view.undo_timeout.is_none() {
                continue;
            }
            let mut ctx =
                TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
            let sender = &mut self.flows[f].sender;
            if let Some((cwnd, ssthresh)) = view.undo_timeout {
                sender.undo_timeout(&mut ctx, cwnd, ssthresh);
            }
            if view.probe {
                sender.probe(&mut ctx);
            }
            self.flush(now, f);
        }
        let conn = &mut self.connections[c];
        for &(k, chunk) in &conn.chunks {
            self.flows[conn.first + k].sender.write_mapped(chunk.dsn, chunk.len);
        }
        for k in 0..conn.backup.len() {
            let f = self.connections[c].first + k;
            let sender = &mut self.flows[f].sender;
            if sender.unsent() > 0 {
                let mut ctx =
                    TcpCtx { now, packets: &mut self.packets, out: &mut self.out, timers: &mut self.timers };
                sender.send_pending(&mut ctx);
                self.flush(now, f);
            } else if !self.connections[c].data_tx.has_data_for(k as u8) {
                sender.note_app_limited();
            }
        }
        if let Some(r) = self.connections[c].relay.filter(|_| wrote > 0) {
            self.relay_release(now, r as usize);
        }
    }
}
