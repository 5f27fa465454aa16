//! One flow as the world holds it: a TCP connection (sender and receiver), the application that
//! writes into it, the routes its packets take, and what the summary needs to know of it. An
//! MP-TCP subflow is a flow too, without an application of its own: its connection
//! ([`super::connection::Connection`]) feeds it.

use crate::app::{App, AppConfig};
use crate::ids::{DirId, FlowId, NodeId, RouteId};
use crate::net::Side;
use crate::sim::rng::Rng;
use crate::sim::SimTime;
use crate::transport::mptcp::subflow_config;
use crate::transport::tcp::{Endpoint, TcpConfig, TcpReceiver, TcpSender};

/// What a flow is made of, as its builder gives it.
pub struct FlowSpec<'a> {
    pub name: String,
    /// The data sender's and the data receiver's node.
    pub src: NodeId,
    pub dst: NodeId,
    pub start: SimTime,
    pub tcp: &'a TcpConfig,
    pub app_config: &'a AppConfig,
    /// The application; `None` for an MP-TCP subflow, whose connection has it.
    pub app: Option<App>,
    /// For an MP-TCP subflow: its connection and its index there.
    pub subflow_of: Option<SubflowOf>,
    /// The route data takes (src → dst) and the route ACKs take (dst → src).
    pub routes: [RouteId; 2],
    /// The random stream of the sender's congestion control.
    pub cc_rng: Rng,
}

/// Which MP-TCP connection a subflow belongs to, and its place there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubflowOf {
    pub connection: u32,
    pub index: u8,
}

/// One TCP connection, its application, and what the summary needs to know of it.
pub struct Flow {
    pub(super) name: String,
    pub(super) src: NodeId,
    pub(super) dst: NodeId,
    pub(super) start: SimTime,
    pub(super) sender: TcpSender,
    pub(super) receiver: TcpReceiver,
    pub(super) app: Option<App>,
    pub(super) subflow_of: Option<SubflowOf>,
    /// The relay (index into the world's relays) whose application this flow's is.
    pub(super) relay: Option<u32>,
    /// The relay that reads what this flow's receiver delivers.
    pub(super) read_by: Option<u32>,
    /// The routes of packets addressed to the receiver (data) and to the sender (ACKs).
    pub(super) routes: [RouteId; 2],
    /// Bytes the application sends in all, for downloads and sized bulk transfers.
    pub(super) total: Option<u64>,
    pub(super) started: bool,
    /// When the last byte reached the receiving application.
    pub(super) completed_at: Option<SimTime>,
    /// The application's pending wake-up.
    pub(super) app_wake: Option<SimTime>,
    /// Drops of this flow's packets on the link directions where any happened, by direction:
    /// [queue full, error]. Sparse: a flow crosses few of a large topology's directions.
    pub(super) link_drops: Vec<(DirId, [u64; 2])>,
    /// Delivered bytes at the previous time-series row.
    pub(super) delivered_at_last_sample: u64,
    /// Delivered bytes when the steady-state window began (`metrics.steady_from`; 0 before).
    pub(super) delivered_at_steady: u64,
}

impl Flow {
    /// Flow `id` as `spec` describes it.
    pub(super) fn new(id: FlowId, spec: FlowSpec) -> Self {
        let opener = spec.app_config.opener();
        let (src, dst) = (spec.src, spec.dst);
        let sending = Endpoint { flow: id, local: src, remote: dst };
        let receiving = Endpoint { flow: id, local: dst, remote: src };
        let (sender, receiver) = match spec.subflow_of {
            None => (
                TcpSender::new(sending, opener, spec.tcp, spec.cc_rng),
                TcpReceiver::new(receiving, opener, spec.tcp),
            ),
            Some(of) => {
                let tcp = subflow_config(spec.tcp);
                let mut receiver = TcpReceiver::new(receiving, opener, &tcp);
                receiver.set_subflow(of.index);
                (TcpSender::new_subflow(sending, opener, &tcp, spec.cc_rng, of.index), receiver)
            }
        };
        // The first subflow opens when its connection starts; the others join later.
        let joins_later = spec.subflow_of.is_some_and(|of| of.index > 0);
        Flow {
            name: spec.name,
            src,
            dst,
            start: spec.start,
            sender,
            receiver,
            app: spec.app,
            subflow_of: spec.subflow_of,
            relay: None,
            read_by: None,
            routes: spec.routes,
            total: spec.app_config.total(),
            started: false,
            completed_at: None,
            app_wake: (!joins_later).then_some(spec.start),
            link_drops: Vec::new(),
            delivered_at_last_sample: 0,
            delivered_at_steady: 0,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The data sender's node.
    pub fn src(&self) -> NodeId {
        self.src
    }

    /// The data receiver's node.
    pub fn dst(&self) -> NodeId {
        self.dst
    }

    /// When the flow starts (a subflow: when it began to join).
    pub fn start(&self) -> SimTime {
        self.start
    }

    /// For an MP-TCP subflow: its connection and its index there.
    pub fn subflow_of(&self) -> Option<SubflowOf> {
        self.subflow_of
    }

    pub fn sender(&self) -> &TcpSender {
        &self.sender
    }

    pub fn receiver(&self) -> &TcpReceiver {
        &self.receiver
    }

    /// When the last byte reached the receiving application (downloads and sized transfers).
    pub fn completed_at(&self) -> Option<SimTime> {
        self.completed_at
    }

    /// Bytes delivered in order when the steady-state window began (`metrics.steady_from`; 0
    /// until then).
    pub fn delivered_at_steady(&self) -> u64 {
        self.delivered_at_steady
    }

    /// The route of the packets addressed to `side`: data to the receiver, ACKs to the sender.
    pub fn route(&self, side: Side) -> RouteId {
        match side {
            Side::Receiver => self.routes[0],
            Side::Sender => self.routes[1],
        }
    }

    /// Drops of this flow's packets by link direction, in direction order, only where some
    /// happened: [queue full, error].
    pub fn link_drops(&self) -> &[(DirId, [u64; 2])] {
        &self.link_drops
    }

    /// Counts a drop of one of this flow's packets on `dir`: `cause` 0 (queue full) or 1 (error).
    pub(super) fn count_drop(&mut self, dir: DirId, cause: usize) {
        let i = match self.link_drops.binary_search_by_key(&dir.0, |(d, _)| d.0) {
            Ok(i) => i,
            Err(i) => {
                self.link_drops.insert(i, (dir, [0; 2]));
                i
            }
        };
        self.link_drops[i].1[cause] += 1;
    }
}
