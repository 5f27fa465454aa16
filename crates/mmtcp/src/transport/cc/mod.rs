//! Congestion control behind one trait, selected through an enum so the ACK path has static
//! dispatch (the smoltcp `AnyController` pattern).
//!
//! The controller owns `cwnd` and `ssthresh` (and, for rate-based controllers, the pacing rate).
//! Loss *detection* and *recovery* (which segment to send, the RFC 6675 pipe, RFC 6582 window
//! inflation) belong to the sender in `transport::tcp`; the controller is told when a congestion
//! event starts and ends and is fed ACKs outside fast recovery — or every ACK, in every state,
//! when it asks for them ([`CongestionControl::wants_all_acks`], BBR). Windows are in bytes.
//!
//! The coupled controllers of MP-TCP subflows (LIA, OLIA, BALIA, module `coupled`; and our
//! coupled CUBIC, `mpcubic`) also read the connection's other subflows through
//! [`CongestionControl::couple`].

pub mod balia;
pub mod bbr;
mod coupled;
pub mod coupling;
pub mod cubic;
pub mod hystart;
pub mod lia;
pub mod mpcubic;
pub mod newreno;
pub mod olia;

use crate::sim::rng::Rng;
use crate::sim::{Duration, SimTime};
pub use balia::Balia;
pub use bbr::Bbr;
pub use coupled::CoupledVariant;
pub use coupling::{Siblings, SubflowView};
pub use cubic::{Cubic, CubicConfig};
pub use hystart::HyStartKind;
pub use lia::Lia;
pub use mpcubic::MpCubic;
pub use newreno::{Counting as NewRenoCounting, NewReno};
pub use olia::Olia;
use serde::{Deserialize, Serialize};

/// The sender's congestion state when it hands an ACK to the controller (Linux's
/// `icsk_ca_state` after the ACK's loss processing, reduced to the states this sender has:
/// no Disorder, no CWR since there is no ECN).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AckState {
    /// No loss being repaired (`TCP_CA_Open`).
    #[default]
    Open,
    /// Fast recovery after loss detected by duplicate ACKs or SACK (`TCP_CA_Recovery`).
    Recovery,
    /// Repair after a retransmission timeout (`TCP_CA_Loss`).
    Loss,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation; Linux's `struct
/// rate_sample` of net/ipv4/tcp_rate.c), computed by the sender from the most recently sent
/// segment this ACK delivered. Byte counts are bytes, not packets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Bytes delivered over the interval: the connection's delivered count now minus
    /// `prior_delivered`.
    pub delivered: u64,
    /// max(send interval, ACK interval) of the sample.
    pub interval: Duration,
    /// The connection's delivered count when that segment was sent.
    pub prior_delivered: u64,
    /// That segment was sent while the sender was application-limited.
    pub is_app_limited: bool,
    /// RTT of that segment, if measurable (not a retransmission).
    pub rtt: Option<Duration>,
    /// Bytes newly cumulatively ACKed or SACKed by this ACK.
    pub newly_acked: u64,
    /// Bytes newly marked lost while processing this ACK.
    pub newly_lost: u64,
    /// Bytes in flight before this ACK.
    pub prior_in_flight: u64,
}

/// What an acknowledgement tells the congestion controller.
#[derive(Clone, Copy, Debug, Default)]
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
    /// The delivery-rate sample of this ACK; `None` when the ACK delivered nothing measurable.
    pub rate: Option<RateSample>,
    /// Total bytes delivered (cumulatively ACKed or SACKed) so far on the connection.
    pub delivered: u64,
    /// Total bytes marked lost so far on the connection.
    pub lost: u64,
    /// Bytes in flight after this ACK (RFC 6675 pipe).
    pub in_flight: u64,
    /// The sender's congestion state once this ACK has been processed.
    pub state: AckState,
}

/// One congestion-control algorithm.
pub trait CongestionControl {
    /// Congestion window, bytes.
    fn cwnd(&self) -> u64;
    /// Slow-start threshold, bytes (`u64::MAX` until the first congestion event).
    fn ssthresh(&self) -> u64;
    /// An ACK acknowledged new data while the sender was not in fast recovery (slow start and
    /// congestion avoidance, including the slow start that follows a timeout); or, for a
    /// controller that [`wants_all_acks`](Self::wants_all_acks), any ACK that acknowledged or
    /// SACKed data.
    fn on_ack(&mut self, ack: &AckSample);
    /// Loss detected by duplicate ACKs or SACK: a fast-recovery episode begins. `in_flight` is
    /// RFC 5681's FlightSize in bytes. Sets ssthresh and sets cwnd to the post-recovery window
    /// (a controller that [`wants_all_acks`](Self::wants_all_acks) may instead set its window
    /// in the `on_ack` of the same ACK, which follows).
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

    /// Pacing rate in bytes per second, or `None` for no pacing. A controller that paces sets it
    /// on every ACK; the sender spaces segments so that each leaves `size / rate` after the
    /// previous one.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }

    /// True when the controller must see every ACK: the sender then calls `on_ack` for every
    /// ACK that acknowledges or SACKs anything, in every [`AckState`], and never applies a
    /// recovery window reduction of its own (no PRR, no RFC 6582 inflation of cwnd), as Linux's
    /// `cong_control` hook bypasses `tcp_cwnd_reduction`. Events still arrive in Linux's order:
    /// `on_congestion_event` (or `on_recovery_exit`) first, then `on_ack` for the same ACK.
    fn wants_all_acks(&self) -> bool {
        false
    }

    /// Read by the sender right after each `on_ack`: true asks that the data sent from now on
    /// yield application-limited rate samples, as if the sender's own app-limited check had
    /// just fired (Linux's `tcp_rate_check_app_limited`): the sender sets its app-limited mark
    /// to max(delivered + in_flight, 1) bytes. BBR asks this on every ACK it handles in
    /// PROBE_RTT, so the low delivery rate of that phase does not enter its bandwidth model.
    fn requests_app_limited(&self) -> bool {
        false
    }

    /// The sender is about to transmit a data segment with nothing in flight (Linux's
    /// `CA_EVENT_TX_START`); `app_limited` says its app-limited mark is set, i.e. the flow is
    /// restarting after an idle period caused by the application.
    fn on_tx_start(&mut self, _now: SimTime, _app_limited: bool) {}

    /// The window is written from outside the controller, as Linux MP-TCP's default scheduler
    /// writes a slow subflow's `snd_cwnd` and `snd_ssthresh` when it penalises it
    /// (`mptcp_rcv_buf_optimization`): the controller takes them and keeps the rest of its
    /// state (a CUBIC epoch, BBR's model), as Linux's controllers do.
    fn set_window(&mut self, cwnd: u64, ssthresh: u64);

    /// An MP-TCP subflow's controller reads its connection's subflows, just before the sender
    /// hands it an ACK or a timeout (see [`coupling`]). Coupled controllers keep what they need
    /// of it; the default, for uncoupled ones, reads nothing.
    fn couple(&mut self, _siblings: &Siblings) {}
}

/// Declares the controllers once: each as `Variant(Type) = "name"`. From the list come
/// [`CcKind`] (what a scenario names, read and written by serde under `name`), [`CcKind::ALL`],
/// [`CcKind::name`], [`AnyCc`] (the controllers themselves, for static dispatch) and the
/// `dispatch!` macro over it. Adding a controller is: its module implementing
/// [`CongestionControl`], a line here, its arm in [`AnyCc::new`] (the compiler asks for it), its
/// profile defaults if they differ (`transport/tcp/profile.rs`), and its row in
/// docs/scenario.md's `cc`.
macro_rules! controllers {
    ($($(#[$meta:meta])* $variant:ident($ty:ty) = $name:literal,)*) => {
        /// The algorithm a scenario asks for.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        pub enum CcKind {
            $($(#[$meta])* #[serde(rename = $name)] $variant,)*
        }

        impl CcKind {
            /// Every controller, in declaration order.
            pub const ALL: &'static [CcKind] = &[$(CcKind::$variant,)*];

            /// The name a scenario uses for it.
            pub fn name(self) -> &'static str {
                match self {
                    $(CcKind::$variant => $name,)*
                }
            }
        }

        /// Every controller, for static dispatch.
        ///
        /// The BBR variant is about three times the size of the others; each sender holds one
        /// controller, so unboxed it costs a few hundred bytes per flow, where a `Box` would cost
        /// an indirection on every ACK.
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone, Debug)]
        pub enum AnyCc {
            $($variant($ty),)*
        }

        macro_rules! dispatch {
            ($self:ident, $c:ident => $e:expr) => {
                match $self {
                    $(AnyCc::$variant($c) => $e,)*
                }
            };
        }
    };
}

controllers! {
    NewReno(NewReno) = "newreno",
    #[default]
    Cubic(Cubic) = "cubic",
    Bbr(Bbr) = "bbr",
    /// RFC 6356 coupled congestion control of MP-TCP subflows (`lia.rs`).
    Lia(Lia) = "lia",
    /// Khalili et al. 2013 (`olia.rs`).
    Olia(Olia) = "olia",
    /// Peng et al. 2016 (`balia.rs`).
    Balia(Balia) = "balia",
    /// Our coupled CUBIC (`mpcubic.rs`): RFC 9438 linked by RFC 6356's α.
    MpCubic(MpCubic) = "mpcubic",
}

impl CcKind {
    /// The controller couples an MP-TCP connection's subflows (reads them in `couple`); with one
    /// subflow, or on a single-path flow, it behaves as Reno (`mpcubic`: as CUBIC).
    pub fn is_coupled(self) -> bool {
        matches!(self, CcKind::Lia | CcKind::Olia | CcKind::Balia | CcKind::MpCubic)
    }

    /// The controller has a `linux-v0.90` form ([`CoupledVariant::LinuxV090`]): it is one of the
    /// coupled controllers of the Linux MP-TCP kernel v0.90.
    pub fn has_linux_v090_form(self) -> bool {
        matches!(self, CcKind::Lia | CcKind::Olia | CcKind::Balia)
    }
}

impl AnyCc {
    /// The controller `kind`. The tuple holds what only some controllers read: CUBIC's
    /// parameters (CUBIC and MPCUBIC) and HyStart (CUBIC only; TcpConfig::validate refuses HyStart with another
    /// controller), the form of a coupled controller (LIA, OLIA, BALIA), and how NewReno counts
    /// ACKs (the profile's: ns-3's per-ACK rule under `ns3`). `rng` is the flow's
    /// own random stream (derived from the run's master seed and the flow); only BBR draws from
    /// it, for the starting phase of its PROBE_BW gain cycle.
    pub fn new(
        kind: CcKind,
        mss: u32,
        initial_window_bytes: u64,
        (cubic, hystart, variant, counting): (
            &CubicConfig,
            Option<HyStartKind>,
            CoupledVariant,
            NewRenoCounting,
        ),
        rng: Rng,
    ) -> AnyCc {
        match kind {
            CcKind::NewReno => AnyCc::NewReno(NewReno::with_counting(mss, initial_window_bytes, counting)),
            CcKind::Cubic => AnyCc::Cubic(Cubic::new(mss, initial_window_bytes, cubic, hystart)),
            CcKind::Bbr => AnyCc::Bbr(Bbr::new(mss, initial_window_bytes, rng)),
            CcKind::Lia => AnyCc::Lia(Lia::new(mss, initial_window_bytes, variant)),
            CcKind::Olia => AnyCc::Olia(Olia::new(mss, initial_window_bytes, variant)),
            CcKind::Balia => AnyCc::Balia(Balia::new(mss, initial_window_bytes, variant)),
            CcKind::MpCubic => AnyCc::MpCubic(MpCubic::new(mss, initial_window_bytes, cubic)),
        }
    }
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
    #[inline]
    fn pacing_rate(&self) -> Option<u64> {
        dispatch!(self, c => c.pacing_rate())
    }
    #[inline]
    fn wants_all_acks(&self) -> bool {
        dispatch!(self, c => c.wants_all_acks())
    }
    #[inline]
    fn requests_app_limited(&self) -> bool {
        dispatch!(self, c => c.requests_app_limited())
    }
    fn on_tx_start(&mut self, now: SimTime, app_limited: bool) {
        dispatch!(self, c => c.on_tx_start(now, app_limited))
    }
    fn couple(&mut self, siblings: &Siblings) {
        dispatch!(self, c => c.couple(siblings))
    }
    fn set_window(&mut self, cwnd: u64, ssthresh: u64) {
        dispatch!(self, c => c.set_window(cwnd, ssthresh))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_controller_reads_and_writes_its_name_and_builds_its_own_kind() {
        let names: Vec<&str> = CcKind::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names, ["newreno", "cubic", "bbr", "lia", "olia", "balia", "mpcubic"]);
        assert_eq!(CcKind::default(), CcKind::Cubic);
        for &kind in CcKind::ALL {
            let name = serde_json::Value::String(kind.name().to_string());
            assert_eq!(serde_json::to_value(kind).unwrap(), name);
            assert_eq!(serde_json::from_value::<CcKind>(name).unwrap(), kind);
            let parts = (&CubicConfig::default(), None, CoupledVariant::Paper, NewRenoCounting::default());
            let built = AnyCc::new(kind, 1448, 14480, parts, Rng::for_component(1, "cc-test"));
            let variant = format!("{built:?}");
            assert!(variant.starts_with(&format!("{kind:?}(")), "{kind:?} built {variant:.40}");
        }
    }
}
