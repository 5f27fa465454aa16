//! What the coupled controllers of MP-TCP subflows share: LIA (RFC 6356, `lia.rs`), OLIA
//! (Khalili et al., IEEE/ACM ToN 2013, `olia.rs`) and BALIA (Peng et al., IEEE/ACM ToN 2016,
//! `balia.rs`). Each keeps Reno's window per subflow and changes its congestion-avoidance
//! increase (BALIA also its decrease) to depend on the other subflows of the connection, which it
//! reads through [`CongestionControl::couple`] just before every ACK or timeout.
//!
//! The shared model, every window in bytes and SMSS = `mss`:
//!
//! ```text
//! slow start            cwnd < ssthresh   per ACK: RFC 5681 slow start with RFC 3465 byte counting,
//!                                                   L = 2·SMSS (newreno::slow_start), per subflow
//! congestion avoidance  cwnd ≥ ssthresh   per ACK: the controller's coupled increase
//! congestion event      ssthresh = the controller's decrease, cwnd = ssthresh
//!                                           (LIA, OLIA: Reno's; RFC 6356 §3 keeps slow start, fast
//!                                            retransmit, fast recovery and the decrease of RFC 5681)
//! timeout               ssthresh as above (kept if already reduced), cwnd = 1·SMSS (RFC 5681 §3.1)
//! ```
//!
//! Which subflows take part: those that are established and have an RTT sample. Linux v0.90
//! leaves every other subflow out of its sums (`mptcp_sk_can_send` and `srtt_us != 0`); the
//! papers sum over the paths in use, which these are. The reading subflow's own window is its
//! controller's cwnd. A controller that has no view (a single-path flow, which never builds one,
//! or a subflow before its first `couple`), or whose own subflow does not take part, grows as
//! Reno; so does a connection with one subflow, where every coupled formula reduces to Reno's.
//!
//! Two variants, `transport.variant` ([`CoupledVariant`]):
//! - `paper`: the published formulas in real arithmetic, windows in bytes. Increases are fed the
//!   bytes each ACK acknowledged (RFC 3465 byte counting, as NewReno), so with one subflow LIA and
//!   BALIA grow exactly as NewReno and OLIA to within rounding.
//! - `linux-v0.90`: as the out-of-tree Linux MP-TCP kernel v0.90 (Linux 3.18, repository
//!   multipath-tcp/mptcp, `net/mptcp/mptcp_coupled.c`, `mptcp_olia.c`, `mptcp_balia.c`) computes
//!   it. Common to the three: windows in whole segments (cwnd / SMSS, Linux's `snd_cwnd`);
//!   round-trip times as Linux 3.18's `srtt_us`, 8 × the SRTT in microseconds; integer arithmetic
//!   with the kernel's scale factors; congestion avoidance counts ACKs, not bytes (Linux 3.18's
//!   `snd_cwnd_cnt`, [`AckEvents`]), so delayed ACKs halve the growth; an ACK handled by slow start
//!   is not also counted by congestion avoidance; Reno's ssthresh is max(cwnd / 2, 2) segments
//!   (`tcp_reno_ssthresh`, from cwnd, not FlightSize); only established subflows count in the
//!   subflow count n.
//!
//! Not modelled in `linux-v0.90`, for all three: Linux 3.18's slow start (it tests cwnd ≤ ssthresh,
//! adds every acknowledged segment with no L limit and stops at ssthresh + 1; here it is the
//! RFC 3465 slow start every controller shares); `snd_cwnd_clamp`; the kernel's own RTT estimator
//! (the view's RFC 6298 SRTT stands in for `srtt_us`).

use super::coupling::{Siblings, SubflowView};
use super::newreno::slow_start;
use super::{AckSample, CongestionControl};
use crate::sim::{Duration, SimTime};
use serde::{Deserialize, Serialize};

/// Which form of a coupled controller (LIA, OLIA, BALIA) a flow runs (`transport.variant`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CoupledVariant {
    /// The published algorithm: RFC 6356, the OLIA and BALIA papers.
    #[default]
    #[serde(rename = "paper")]
    Paper,
    /// As the Linux MP-TCP kernel v0.90 computes it: fixed point, windows in segments, counters
    /// of ACKs (module `coupled` lists the differences).
    #[serde(rename = "linux-v0.90")]
    LinuxV090,
}

impl CoupledVariant {
    /// The name a scenario uses for it.
    pub fn name(self) -> &'static str {
        match self {
            CoupledVariant::Paper => "paper",
            CoupledVariant::LinuxV090 => "linux-v0.90",
        }
    }
}

/// Reno's window state of one subflow, which the coupled rules read and move.
#[derive(Clone, Debug)]
pub(super) struct Window {
    /// Sender maximum segment size (SMSS), bytes.
    pub mss_bytes: u64,
    /// Congestion window, bytes.
    pub cwnd_bytes: u64,
    /// Slow-start threshold, bytes; `u64::MAX` until the first congestion event.
    pub ssthresh_bytes: u64,
}

impl Window {
    /// cwnd in whole segments, as Linux counts `snd_cwnd` (at least 1).
    pub fn segments(&self) -> u64 {
        (self.cwnd_bytes / self.mss_bytes).max(1)
    }

    /// Linux 3.18 `tcp_reno_ssthresh`: max(snd_cwnd / 2, 2) segments, in bytes.
    pub fn linux_reno_ssthresh(&self) -> u64 {
        (self.segments() / 2).max(2) * self.mss_bytes
    }
}

/// Linux 3.18's congestion-avoidance counter `snd_cwnd_cnt` as `tcp_cong_avoid_ai` and the v0.90
/// LIA and BALIA run it: it counts ACKs whatever they acknowledge; an ACK that finds the count at
/// `threshold` or above adds one segment and restarts the count, so the window grows one segment
/// per threshold + 1 ACKs.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AckEvents(u64);

impl AckEvents {
    /// One ACK; returns true when it added a segment to `window`.
    pub fn on_ack(&mut self, window: &mut Window, threshold: u64) -> bool {
        if self.0 >= threshold {
            window.cwnd_bytes += window.mss_bytes;
            self.0 = 0;
            true
        } else {
            self.0 += 1;
            false
        }
    }

    /// Linux clears the count on entering recovery or loss (`tcp_init_cwnd_reduction`,
    /// `tcp_enter_loss`).
    pub fn reset(&mut self) {
        self.0 = 0;
    }
}

/// A subflow that takes part in the coupled sums (module header): established, with an RTT.
#[derive(Clone, Copy, Debug)]
pub(super) struct Member {
    /// This is the reading controller's own subflow.
    pub is_me: bool,
    /// Congestion window, bytes: the view's, or for the reading subflow its controller's own.
    pub cwnd_bytes: u64,
    /// Smoothed RTT.
    pub srtt: Duration,
    pub view: SubflowView,
}

impl Member {
    /// cwnd in whole segments (Linux's `snd_cwnd`), with the subflow's own MSS.
    pub fn segments(&self) -> u64 {
        (self.cwnd_bytes / u64::from(self.view.mss.max(1))).max(1)
    }

    /// cwnd in segments as a real number (the papers' w_r), with the subflow's own MSS.
    pub fn segments_f64(&self) -> f64 {
        self.cwnd_bytes as f64 / f64::from(self.view.mss.max(1))
    }
}

/// The subflows of `siblings` that take part, in the connection's order, with the reader's own
/// window replaced by `own_cwnd_bytes`.
pub(super) fn members<'a>(
    siblings: &Siblings<'a>,
    own_cwnd_bytes: u64,
) -> impl Iterator<Item = Member> + Clone + 'a {
    let me = siblings.me;
    siblings.subflows.iter().enumerate().filter_map(move |(i, view)| {
        let srtt = view.srtt.filter(|_| view.established)?;
        let cwnd_bytes = if i == me { own_cwnd_bytes } else { view.cwnd };
        Some(Member { is_me: i == me, cwnd_bytes, srtt, view: *view })
    })
}

/// The reading subflow takes part in the coupling (established, with an RTT sample).
pub(super) fn own_takes_part(siblings: &Siblings) -> bool {
    let own = siblings.own();
    own.established && own.srtt.is_some()
}

/// Established subflows: Linux v0.90's `mpcb->cnt_established`.
pub(super) fn established(siblings: &Siblings) -> u64 {
    siblings.subflows.iter().filter(|v| v.established).count() as u64
}

/// An RTT as Linux 3.18's `srtt_us`: 8 × microseconds (at least 1, since the kernel divides by
/// it and leaves out subflows where it is 0).
pub(super) fn linux_srtt_us(srtt: Duration) -> u64 {
    ((srtt.as_picos() / 1_000_000) << 3).max(1)
}

/// What differs between the coupled controllers and between their variants: a rule acting on
/// Reno's [`Window`], which [`Coupled`] drives.
pub(super) trait Rule {
    /// Keeps what the rule needs of the connection's subflows (scalars only) until the next call.
    fn couple(&mut self, window: &Window, siblings: &Siblings);
    /// Congestion avoidance for one cwnd-limited ACK that acknowledged `acked_bytes` (> 0) in
    /// congestion avoidance.
    fn increase(&mut self, window: &mut Window, acked_bytes: u64);
    /// ssthresh after a congestion event (`in_flight` is RFC 5681's FlightSize, bytes).
    fn loss_ssthresh(&self, window: &Window, in_flight: u64) -> u64;
    /// Congestion avoidance counts ACKs, not bytes: an ACK slow start handled is not counted.
    fn counts_ack_events(&self) -> bool;
    /// The count towards the next increase starts afresh (a congestion event or a timeout).
    fn restart(&mut self);
    /// Slow start has just grown the window on an ACK.
    fn after_slow_start(&mut self, _window: &Window) {}
    /// A timeout has just reduced ssthresh; cwnd is still the pre-timeout window.
    fn on_timeout(&mut self, _window: &Window) {}
    /// Fast recovery ended with cwnd = ssthresh.
    fn on_recovery_exit(&mut self, _window: &Window) {
        self.restart();
    }
}

/// A rule in its paper form or its Linux v0.90 form.
#[derive(Clone, Debug)]
pub(super) enum ByVariant<P, L> {
    Paper(P),
    LinuxV090(L),
}

macro_rules! by_variant {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            ByVariant::Paper($r) => $e,
            ByVariant::LinuxV090($r) => $e,
        }
    };
}

impl<P: Rule, L: Rule> Rule for ByVariant<P, L> {
    fn couple(&mut self, window: &Window, siblings: &Siblings) {
        by_variant!(self, r => r.couple(window, siblings))
    }
    fn increase(&mut self, window: &mut Window, acked_bytes: u64) {
        by_variant!(self, r => r.increase(window, acked_bytes))
    }
    fn loss_ssthresh(&self, window: &Window, in_flight: u64) -> u64 {
        by_variant!(self, r => r.loss_ssthresh(window, in_flight))
    }
    fn counts_ack_events(&self) -> bool {
        by_variant!(self, r => r.counts_ack_events())
    }
    fn restart(&mut self) {
        by_variant!(self, r => r.restart())
    }
    fn after_slow_start(&mut self, window: &Window) {
        by_variant!(self, r => r.after_slow_start(window))
    }
    fn on_timeout(&mut self, window: &Window) {
        by_variant!(self, r => r.on_timeout(window))
    }
    fn on_recovery_exit(&mut self, window: &Window) {
        by_variant!(self, r => r.on_recovery_exit(window))
    }
}

/// Reno's per-subflow slow start and loss response around a coupled congestion-avoidance rule
/// (module header).
#[derive(Clone, Debug)]
pub(super) struct Coupled<R> {
    pub window: Window,
    pub rule: R,
}

impl<R: Rule> Coupled<R> {
    /// A controller in slow start with `initial_window_bytes`.
    pub fn new(mss: u32, initial_window_bytes: u64, rule: R) -> Self {
        debug_assert!(mss > 0, "zero MSS");
        let window =
            Window { mss_bytes: u64::from(mss), cwnd_bytes: initial_window_bytes, ssthresh_bytes: u64::MAX };
        Coupled { window, rule }
    }
}

impl<R: Rule> CongestionControl for Coupled<R> {
    fn cwnd(&self) -> u64 {
        self.window.cwnd_bytes
    }

    fn ssthresh(&self) -> u64 {
        self.window.ssthresh_bytes
    }

    fn on_ack(&mut self, ack: &AckSample) {
        // RFC 7661 §4.3 (Linux: `tcp_is_cwnd_limited`): no growth for a flow that did not use
        // its window.
        if !ack.cwnd_limited {
            return;
        }
        let mut acked_bytes = ack.acked_bytes;
        let w = &mut self.window;
        if w.cwnd_bytes < w.ssthresh_bytes {
            let (cwnd_bytes, leftover_bytes) =
                slow_start(w.cwnd_bytes, w.ssthresh_bytes, acked_bytes, w.mss_bytes);
            w.cwnd_bytes = cwnd_bytes;
            self.rule.after_slow_start(w);
            acked_bytes = if self.rule.counts_ack_events() { 0 } else { leftover_bytes };
        }
        if acked_bytes > 0 {
            self.rule.increase(w, acked_bytes);
        }
    }

    fn on_congestion_event(&mut self, _now: SimTime, in_flight: u64) {
        // The rule's ssthresh; cwnd = ssthresh as RFC 6582 §3.2 step 3 option 2 (see NewReno).
        self.window.ssthresh_bytes = self.rule.loss_ssthresh(&self.window, in_flight);
        self.window.cwnd_bytes = self.window.ssthresh_bytes;
        self.rule.restart();
    }

    fn on_rto(&mut self, _now: SimTime, in_flight: u64, already_reduced: bool) {
        // RFC 5681 §3.1: ssthresh by the rule (once per loss episode), cwnd = 1 SMSS.
        if !already_reduced {
            self.window.ssthresh_bytes = self.rule.loss_ssthresh(&self.window, in_flight);
            self.rule.on_timeout(&self.window);
        }
        self.window.cwnd_bytes = self.window.mss_bytes;
        self.rule.restart();
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.rule.on_recovery_exit(&self.window);
    }

    fn couple(&mut self, siblings: &Siblings) {
        self.rule.couple(&self.window, siblings);
    }

    fn set_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.window.cwnd_bytes = cwnd;
        self.window.ssthresh_bytes = ssthresh;
    }
}

/// Implements [`CongestionControl`] for a public controller that wraps a [`Coupled`] rule
/// (`pub struct Lia(Coupled<…>)`), forwarding every method.
macro_rules! forward_congestion_control {
    ($name:ty) => {
        impl $crate::transport::cc::CongestionControl for $name {
            fn cwnd(&self) -> u64 {
                self.0.cwnd()
            }
            fn ssthresh(&self) -> u64 {
                self.0.ssthresh()
            }
            fn on_ack(&mut self, ack: &$crate::transport::cc::AckSample) {
                self.0.on_ack(ack)
            }
            fn on_congestion_event(&mut self, now: $crate::sim::SimTime, in_flight: u64) {
                self.0.on_congestion_event(now, in_flight)
            }
            fn on_rto(&mut self, now: $crate::sim::SimTime, in_flight: u64, already_reduced: bool) {
                self.0.on_rto(now, in_flight, already_reduced)
            }
            fn on_recovery_exit(&mut self, now: $crate::sim::SimTime) {
                self.0.on_recovery_exit(now)
            }
            fn couple(&mut self, siblings: &$crate::transport::cc::Siblings) {
                self.0.couple(siblings)
            }
            fn set_window(&mut self, cwnd: u64, ssthresh: u64) {
                self.0.set_window(cwnd, ssthresh)
            }
        }
    };
}
pub(super) use forward_congestion_control;

#[cfg(test)]
mod tests {
    use super::super::{AnyCc, CcKind, CubicConfig, NewRenoCounting};
    use super::*;
    use crate::sim::rng::Rng;

    const MSS: u64 = 1000;
    const RTT: Duration = Duration::from_millis(20);
    const COUPLED: [CcKind; 3] = [CcKind::Lia, CcKind::Olia, CcKind::Balia];
    const VARIANTS: [CoupledVariant; 2] = [CoupledVariant::Paper, CoupledVariant::LinuxV090];

    fn controller(kind: CcKind, variant: CoupledVariant, initial_segments: u64) -> AnyCc {
        let rng = Rng::for_component(1, "flow/0/cc");
        AnyCc::new(
            kind,
            MSS as u32,
            initial_segments * MSS,
            (&CubicConfig::default(), None, variant, NewRenoCounting::Bytes),
            rng,
        )
    }

    /// A controller in congestion avoidance after a loss at twice `segments`: at `segments` for
    /// the Reno-like ones, 1.4 × `segments` for CUBIC (β = 0.7).
    fn in_ca(kind: CcKind, variant: CoupledVariant, segments: u64) -> AnyCc {
        let mut cc = controller(kind, variant, 2 * segments);
        cc.on_congestion_event(SimTime::ZERO, 2 * segments * MSS);
        cc.on_recovery_exit(SimTime::ZERO);
        assert_eq!(cc.cwnd(), cc.ssthresh(), "{kind:?} {variant:?}");
        cc
    }

    fn view(cwnd_segments: u64) -> SubflowView {
        SubflowView {
            cwnd: cwnd_segments * MSS,
            ssthresh: cwnd_segments * MSS,
            srtt: Some(RTT),
            mss: MSS as u32,
            delivered_since_loss: 100 * MSS,
            delivered_between_losses: 100 * MSS,
            established: true,
            ..SubflowView::default()
        }
    }

    /// cwnd after each of `acks` cwnd-limited ACKs of `segments_per_ack` segments; with `views`,
    /// `couple` reads them (subflow 0 being the controller's own) just before every ACK.
    fn trajectory(
        cc: &mut AnyCc,
        acks: usize,
        segments_per_ack: u64,
        views: Option<&[SubflowView]>,
    ) -> Vec<u64> {
        (0..acks)
            .map(|i| {
                if let Some(views) = views {
                    cc.couple(&Siblings { subflows: views, me: 0 });
                }
                let now = SimTime::ZERO + Duration::from_micros(100 * i as u64);
                let acked_bytes = segments_per_ack * MSS;
                cc.on_ack(&AckSample {
                    now,
                    acked_bytes,
                    srtt: Some(RTT),
                    cwnd_limited: true,
                    ..AckSample::default()
                });
                cc.cwnd()
            })
            .collect()
    }

    // ---- one subflow: Reno ------------------------------------------------------------------

    #[test]
    fn test_congestion_avoidance_one_subflow_grows_like_newreno() {
        // 600 one-segment ACKs from 50 segments: about 10 RTTs, NewReno ends at 60 segments.
        // Paper LIA and BALIA count bytes against cwnd exactly as NewReno; paper OLIA adds
        // 1/cwnd per segment continuously; Linux counts cwnd + 1 ACKs per segment (OLIA a few
        // more, from the floors of its fixed point), so each increment comes an ACK or two after
        // NewReno's: within one segment at every ACK over these 10 rounds. With a one-subflow
        // view, or with none (a single-path flow), the result is the same.
        let reference = trajectory(&mut in_ca(CcKind::NewReno, CoupledVariant::Paper, 50), 600, 1, None);
        assert_eq!(reference.last(), Some(&(60 * MSS)));
        for kind in COUPLED {
            for variant in VARIANTS {
                for views in [Some(&[view(50)][..]), None] {
                    let got = trajectory(&mut in_ca(kind, variant, 50), 600, 1, views);
                    let exact = variant == CoupledVariant::Paper && kind != CcKind::Olia;
                    for (i, (&cwnd, &reno)) in got.iter().zip(&reference).enumerate() {
                        if exact {
                            assert_eq!(cwnd, reno, "{kind:?} {variant:?} ACK {i}");
                        } else {
                            assert!(
                                cwnd.abs_diff(reno) <= MSS,
                                "{kind:?} {variant:?} ACK {i}: {cwnd} vs {reno}"
                            );
                        }
                    }
                    assert!(*got.last().unwrap() >= 59 * MSS, "{kind:?} {variant:?}");
                }
            }
        }
    }

    #[test]
    fn test_congestion_avoidance_linux_counts_ack_events_not_bytes() {
        // Delayed ACKs (two segments each): the paper forms count bytes and keep NewReno's pace;
        // Linux v0.90 counts ACKs and grows half as fast.
        let reference = trajectory(&mut in_ca(CcKind::NewReno, CoupledVariant::Paper, 50), 300, 2, None);
        let reno_growth = reference.last().unwrap() - 50 * MSS;
        assert_eq!(reno_growth, 10 * MSS);
        for kind in COUPLED {
            let views = [view(50)];
            let paper = trajectory(&mut in_ca(kind, CoupledVariant::Paper, 50), 300, 2, Some(&views));
            assert!(paper.last().unwrap().abs_diff(*reference.last().unwrap()) <= MSS, "{kind:?}");
            let linux = trajectory(&mut in_ca(kind, CoupledVariant::LinuxV090, 50), 300, 2, Some(&views));
            let linux_growth = linux.last().unwrap() - 50 * MSS;
            assert!((4 * MSS..=5 * MSS).contains(&linux_growth), "{kind:?}: +{linux_growth}");
        }
    }

    // ---- coupling -----------------------------------------------------------------------------

    #[test]
    fn test_congestion_avoidance_sibling_window_changes_coupled_growth_only() {
        // The same 100 ACKs on a 20-segment subflow, its sibling at 10 or at 40 segments (same
        // RTT, same ℓ). A coupled controller's window ends up different; NewReno's and CUBIC's,
        // whose `couple` reads nothing, do not.
        let beside = |sibling: u64| [view(20), view(sibling)];
        for kind in COUPLED {
            for variant in VARIANTS {
                let small = trajectory(&mut in_ca(kind, variant, 20), 100, 1, Some(&beside(10)));
                let large = trajectory(&mut in_ca(kind, variant, 20), 100, 1, Some(&beside(40)));
                assert_ne!(small.last(), large.last(), "{kind:?} {variant:?}");
            }
        }
        for kind in [CcKind::NewReno, CcKind::Cubic] {
            let small = trajectory(&mut in_ca(kind, CoupledVariant::Paper, 20), 100, 1, Some(&beside(10)));
            let large = trajectory(&mut in_ca(kind, CoupledVariant::Paper, 20), 100, 1, Some(&beside(40)));
            assert_eq!(small, large, "{kind:?}");
        }
    }

    #[test]
    fn test_members_skip_subflows_not_established_or_without_rtt_and_use_own_window() {
        let mut views = [view(20), view(30), view(40)];
        views[1].established = false;
        views[2].srtt = None;
        let siblings = Siblings { subflows: &views, me: 0 };
        let members: Vec<_> = members(&siblings, 25 * MSS).map(|m| (m.is_me, m.cwnd_bytes)).collect();
        assert_eq!(members, [(true, 25 * MSS)]);
        assert!(own_takes_part(&siblings));
        assert_eq!(established(&siblings), 2);
    }

    #[test]
    fn test_timeout_one_segment_and_ssthresh_kept_when_already_reduced() {
        for kind in COUPLED {
            for variant in VARIANTS {
                let mut cc = in_ca(kind, variant, 40);
                cc.on_rto(SimTime::ZERO, 40 * MSS, false);
                assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 20 * MSS), "{kind:?} {variant:?}");
                cc.on_rto(SimTime::ZERO, 400 * MSS, true);
                assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 20 * MSS), "{kind:?} {variant:?}");
            }
        }
    }
}
