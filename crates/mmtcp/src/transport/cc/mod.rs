//! Congestion control behind one trait, selected through an enum so the ACK path has static
//! dispatch (the smoltcp `AnyController` pattern).
//!
//! The controller owns `cwnd` and `ssthresh` only. Loss *detection* and *recovery* (which
//! segment to send, the RFC 6675 pipe, RFC 6582 window inflation) belong to the sender in
//! `transport::tcp`; the controller is told when a congestion event starts and ends and is fed
//! ACKs outside fast recovery. Windows are in bytes.

pub mod cubic;
pub mod hystart;
pub mod newreno;

use crate::sim::{Duration, SimTime};
pub use cubic::{Cubic, CubicConfig};
pub use hystart::HyStartKind;
pub use newreno::NewReno;
use serde::{Deserialize, Serialize};

/// What an acknowledgement tells the congestion controller.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: SimTime,
    /// Bytes newly acknowledged by this ACK, cumulatively or by SACK.
    pub acked_bytes: u64,
    /// Smoothed round-trip time (RFC 6298 SRTT), once a sample exists.
    pub srtt: Option<Duration>,
    /// Smallest round-trip sample seen on the connection.
    pub min_rtt: Option<Duration>,
    /// The round-trip sample this ACK gave, if any.
    pub rtt: Option<Duration>,
    /// SND.UNA after this ACK, and SND.NXT: rounds of the window (HyStart) are counted with them.
    pub una: u64,
    pub nxt: u64,
    /// True when the sender used its whole congestion window since the previous ACK. Controllers
    /// do not grow the window of a flow the application or the receiver is holding back
    /// (RFC 7661 §4.3, RFC 9438 §5.8); otherwise a rate-capped sender's window would grow
    /// without bound and burst when the cap lifts.
    pub cwnd_limited: bool,
}

/// One congestion-control algorithm.
pub trait CongestionControl {
    /// Congestion window, bytes.
    fn cwnd(&self) -> u64;
    /// Slow-start threshold, bytes (`u64::MAX` until the first congestion event).
    fn ssthresh(&self) -> u64;
    /// An ACK acknowledged new data while the sender was not in fast recovery (slow start and
    /// congestion avoidance, including the slow start that follows a timeout).
    fn on_ack(&mut self, ack: &AckSample);
    /// Loss detected by duplicate ACKs or SACK: a fast-recovery episode begins. `in_flight` is
    /// RFC 5681's FlightSize in bytes. Sets ssthresh and sets cwnd to the post-recovery window.
    fn on_congestion_event(&mut self, now: SimTime, in_flight: u64);
    /// Retransmission timeout (RFC 5681 §3.1, RFC 6298 §5.5): sets ssthresh and collapses cwnd
    /// to the loss window of one segment. `already_reduced` says the timeout struck during fast
    /// recovery or repeats an earlier timeout of the same loss episode: ssthresh already answers
    /// this congestion and is kept, as Linux's `tcp_enter_loss` does — otherwise a timeout after
    /// a long recovery would halve ssthresh twice for one congestion event, or, computed from a
    /// FlightSize swollen by SACKed data, set it far above the path's capacity.
    fn on_rto(&mut self, now: SimTime, in_flight: u64, already_reduced: bool);
    /// Fast recovery ended: a full ACK covered the recovery point.
    fn on_recovery_exit(&mut self, now: SimTime);
}

/// The algorithm a scenario asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    NewReno,
    #[default]
    Cubic,
}

impl CcKind {
    /// The name a scenario uses for it.
    pub fn name(self) -> &'static str {
        match self {
            CcKind::NewReno => "newreno",
            CcKind::Cubic => "cubic",
        }
    }
}

/// Every controller, for static dispatch.
#[derive(Clone, Debug)]
pub enum AnyCc {
    NewReno(NewReno),
    Cubic(Cubic),
}

impl AnyCc {
    /// `hystart` is used by CUBIC only (TcpConfig::validate refuses it with another controller).
    pub fn new(
        kind: CcKind,
        mss: u32,
        initial_window_bytes: u64,
        cubic: &CubicConfig,
        hystart: Option<HyStartKind>,
    ) -> AnyCc {
        match kind {
            CcKind::NewReno => AnyCc::NewReno(NewReno::new(mss, initial_window_bytes)),
            CcKind::Cubic => AnyCc::Cubic(Cubic::new(mss, initial_window_bytes, cubic, hystart)),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            AnyCc::NewReno($c) => $e,
            AnyCc::Cubic($c) => $e,
        }
    };
}

impl CongestionControl for AnyCc {
    #[inline]
    fn cwnd(&self) -> u64 {
        dispatch!(self, c => c.cwnd())
    }
    #[inline]
    fn ssthresh(&self) -> u64 {
        dispatch!(self, c => c.ssthresh())
    }
    #[inline]
    fn on_ack(&mut self, ack: &AckSample) {
        dispatch!(self, c => c.on_ack(ack))
    }
    fn on_congestion_event(&mut self, now: SimTime, in_flight: u64) {
        dispatch!(self, c => c.on_congestion_event(now, in_flight))
    }
    fn on_rto(&mut self, now: SimTime, in_flight: u64, already_reduced: bool) {
        dispatch!(self, c => c.on_rto(now, in_flight, already_reduced))
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_recovery_exit(now))
    }
}
