//! BALIA, Balanced Linked Adaptation: Q. Peng, A. Walid, J. Hwang, S. H. Low, "Multipath TCP:
//! Analysis, Design, and Implementation", IEEE/ACM Transactions on Networking 24(1), 2016 (the
//! algorithm "Balia"; also draft-walid-mptcp-congestion-control).
//!
//! The model, w_r the window of subflow r in segments, rtt_r its smoothed RTT, the sums and
//! maxima over the subflows that take part (module `coupled`):
//!
//! ```text
//! x_r = w_r / rtt_r,   α_r = max_k x_k / x_r  (≥ 1)
//! per segment acknowledged on r in congestion avoidance:
//!   w_r += (x_r / rtt_r) / (Σ_k x_k)² · (1 + α_r)/2 · (4 + α_r)/5
//! per loss on r:
//!   w_r −= (w_r / 2) · min(α_r, 1.5)
//! ```
//!
//! Substituting x_r/rtt_r = x_r²/w_r, the increase is one segment per
//! T_r = 10 · w_r · (Σ x)² / ((x_r + x_max) · (4 x_r + x_max)) segments acknowledged; in bytes,
//! one SMSS per 10 · cwnd_r · (Σ x)² / (…) bytes, applied by byte counting as NewReno's
//! RFC 3465 §2.1. T_r ≥ cwnd_r always (BALIA never grows faster than Reno); it is taken as at least
//! cwnd_r so that rounding cannot make it faster. With one subflow, or with equal rates (α = 1),
//! (1 + α)/2 · (4 + α)/5 = 1; with one subflow T = cwnd and the decrease is w/2: Reno.
//! The decrease applies to FlightSize, as RFC 5681 eq. (4) does Reno's (floor 2·SMSS), so that
//! α = 1 gives exactly eq. (4); it applies to a timeout's ssthresh too (cwnd = 1 SMSS).
//!
//! `linux-v0.90` (`net/mptcp/mptcp_balia.c`), modelled:
//! - Rates in bytes per second with the *reader's* MSS for every subflow:
//!   x_k = ⌊MSS_r · w_k · 8·10⁶ / srtt_us_k⌋; when x_max > 2²⁵ every rate is shifted right by
//!   5 bits until it is not.
//! - α as an integer, ⌊x_max / x_r⌋: the decrease md = ⌊⌊w/2⌋ · min(2¹⁰·α, 1536) / 2¹⁰⌋ is w/2
//!   for every α < 2 (the paper cuts up to 0.75·w from α = 1.5 on) and 0.75·w from α = 2.
//! - The increase threshold ai = ⌊⌊(Σ x)² · 10 / (x_r + x_max)⌋ · w_r / (4 x_r + x_max)⌋ ACKs
//!   (w_r if that floors to 0), counted in ACK events: one segment per ai + 1 ACKs.
//! - ai and md cached between recomputations, which happen on every slow-start ACK, after each
//!   increment, at the end of fast recovery (`CA_EVENT_COMPLETE_CWR`) and on a timeout that
//!   reduces ssthresh (`CA_EVENT_LOSS`, before cwnd falls to 1); both start at 0.
//! - ssthresh = max(cwnd − md, 1) segments; with one established subflow ai = md = 0 and the
//!   subflow is Linux 3.18 Reno (threshold cwnd, ssthresh max(cwnd/2, 2)).
//!
//! Not modelled: the v0.90 source also recomputes after a state change when a flag is set, but it
//! sets that flag on the subflow and reads it from the connection, so the recomputation does not
//! happen there; it does not happen here either.

use super::coupled::{self, AckEvents, ByVariant, Coupled, CoupledVariant, Rule, Window};
use super::coupling::Siblings;

/// BALIA (Peng et al. 2016) in the form `variant` selects. See the module header.
#[derive(Clone, Debug)]
pub struct Balia(Coupled<ByVariant<PaperBalia, LinuxBalia>>);

impl Balia {
    /// A controller in slow start with `initial_window_bytes`.
    pub fn new(mss: u32, initial_window_bytes: u64, variant: CoupledVariant) -> Self {
        let rule = match variant {
            CoupledVariant::Paper => ByVariant::Paper(PaperBalia::default()),
            CoupledVariant::LinuxV090 => ByVariant::LinuxV090(LinuxBalia::default()),
        };
        Balia(Coupled::new(mss, initial_window_bytes, rule))
    }
}

coupled::forward_congestion_control!(Balia);

/// What the paper form keeps of the latest view.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PaperCoupling {
    /// α_r = x_max / x_r.
    alpha: f64,
    /// T_r in bytes: bytes acknowledged per SMSS of growth (module header).
    threshold_bytes: f64,
}

/// α_r and T_r of the reader of `siblings`, its window being `own_cwnd_bytes`; `None` when the
/// reader does not take part.
fn paper_coupling(siblings: &Siblings, own_cwnd_bytes: u64) -> Option<PaperCoupling> {
    if !coupled::own_takes_part(siblings) {
        return None;
    }
    let (mut own, mut max, mut sum) = (0.0, 0.0f64, 0.0);
    for m in coupled::members(siblings, own_cwnd_bytes) {
        let x = m.segments_f64() / m.srtt.as_secs_f64();
        sum += x;
        max = max.max(x);
        if m.is_me {
            own = x;
        }
    }
    let threshold_bytes = 10.0 * own_cwnd_bytes as f64 * sum * sum / ((own + max) * (4.0 * own + max));
    let alpha = max / own;
    (alpha.is_finite() && threshold_bytes.is_finite()).then_some(PaperCoupling { alpha, threshold_bytes })
}

/// BALIA as the paper writes it, with RFC 3465 byte counting.
#[derive(Clone, Debug, Default)]
pub(super) struct PaperBalia {
    /// From the latest view; `None`: uncoupled (Reno, α = 1).
    coupling: Option<PaperCoupling>,
    /// Bytes acknowledged towards the next one-SMSS increase.
    ca_acked_bytes: u64,
}

impl Rule for PaperBalia {
    fn couple(&mut self, window: &Window, siblings: &Siblings) {
        self.coupling = paper_coupling(siblings, window.cwnd_bytes);
    }

    fn increase(&mut self, window: &mut Window, acked_bytes: u64) {
        let coupled_bytes = self.coupling.map_or(0, |c| c.threshold_bytes as u64);
        let threshold_bytes = coupled_bytes.max(window.cwnd_bytes);
        self.ca_acked_bytes += acked_bytes;
        if self.ca_acked_bytes >= threshold_bytes {
            self.ca_acked_bytes -= threshold_bytes;
            window.cwnd_bytes += window.mss_bytes;
        }
    }

    fn loss_ssthresh(&self, window: &Window, in_flight: u64) -> u64 {
        // w − (w/2)·min(α, 1.5), with w = FlightSize as in RFC 5681 eq. (4), floor 2·SMSS.
        let alpha = self.coupling.map_or(1.0, |c| c.alpha);
        let kept = in_flight as f64 * (1.0 - alpha.min(1.5) / 2.0);
        (kept as u64).max(2 * window.mss_bytes)
    }

    fn counts_ack_events(&self) -> bool {
        false
    }

    fn restart(&mut self) {
        self.ca_acked_bytes = 0;
    }
}

/// 2²⁵: the largest rate `mptcp_balia_recalc_ai` keeps unscaled (`rate_scale_limit`).
const RATE_LIMIT: u64 = 1 << 25;
/// Bits each scaling step shifts a rate by (`scale_num`).
const RATE_SHIFT: u32 = 5;
/// Scaling steps that can occur: ⌈(64 − 25)/5⌉ = 8, and none.
const RATE_STEPS: usize = 9;

/// A rate as `mptcp_balia_recalc_ai` computes it: ⌊mss · w · (10⁶ << 3) / srtt_us⌋ bytes/s.
fn linux_rate(mss_bytes: u64, segments: u64, srtt_us: u64) -> u64 {
    let rate = u128::from(mss_bytes) * u128::from(segments) * (1_000_000 << 3) / u128::from(srtt_us);
    u64::try_from(rate).unwrap_or(u64::MAX)
}

/// BALIA as Linux MP-TCP v0.90 computes it (module header).
#[derive(Clone, Debug, Default)]
pub(super) struct LinuxBalia {
    /// `cnt_established` in the latest view.
    established: u64,
    /// The reader's `srtt_us`; `None` when it does not take part.
    own_srtt_us: Option<u64>,
    /// Largest rate among the other subflows that take part.
    others_max_rate: u64,
    /// Σ over the other subflows that take part of their rate shifted by 5·s bits, for each
    /// number s of scaling steps (the kernel shifts each rate before it sums).
    others_rate_sums: [u64; RATE_STEPS],
    /// ACKs per segment of growth, cached (`ai`).
    ai: u64,
    /// Decrease on loss, segments, cached (`md`).
    md: u64,
    /// `snd_cwnd_cnt`.
    events: AckEvents,
}

impl LinuxBalia {
    /// `mptcp_balia_recalc_ai` with the reader's window `window` and the latest view.
    fn recompute(&mut self, window: &Window) {
        (self.ai, self.md) = (0, 0);
        let Some(srtt_us) = self.own_srtt_us.filter(|_| self.established > 1) else { return };
        let w = window.segments();
        let own = linux_rate(window.mss_bytes, w, srtt_us);
        if own == 0 {
            return;
        }
        let mut max = own.max(self.others_max_rate);
        let alpha = max / own;
        let mut steps = 0;
        while max > RATE_LIMIT {
            max >>= RATE_SHIFT;
            steps += 1;
        }
        let own = own >> (RATE_SHIFT as usize * steps);
        let sum = u128::from(self.others_rate_sums[steps] + own);
        let (own, max) = (u128::from(own), u128::from(max));
        // ai = ⌊⌊(Σx)²·10/(x_r + x_max)⌋ · w_r / (4·x_r + x_max)⌋.
        let ai = sum * sum * 10 / (own + max) * u128::from(w) / ((own << 2) + max);
        self.ai = match u64::try_from(ai).unwrap_or(u64::MAX) {
            0 => w,
            ai => ai,
        };
        // md = ⌊⌊w/2⌋ · min(α·2¹⁰, 1.5·2¹⁰) / 2¹⁰⌋.
        self.md = ((w >> 1) * (alpha << 10).min(3 << 9)) >> 10;
    }
}

impl Rule for LinuxBalia {
    fn couple(&mut self, window: &Window, siblings: &Siblings) {
        self.established = coupled::established(siblings);
        let own = siblings.own().srtt.filter(|_| coupled::own_takes_part(siblings));
        self.own_srtt_us = own.map(coupled::linux_srtt_us);
        self.others_max_rate = 0;
        self.others_rate_sums = [0; RATE_STEPS];
        for m in coupled::members(siblings, window.cwnd_bytes).filter(|m| !m.is_me) {
            let rate = linux_rate(window.mss_bytes, m.segments(), coupled::linux_srtt_us(m.srtt));
            self.others_max_rate = self.others_max_rate.max(rate);
            for (steps, sum) in self.others_rate_sums.iter_mut().enumerate() {
                *sum += rate >> (RATE_SHIFT as usize * steps);
            }
        }
    }

    fn increase(&mut self, window: &mut Window, _acked_bytes: u64) {
        let threshold = if self.established > 1 { self.ai } else { window.segments() };
        if self.events.on_ack(window, threshold) {
            self.recompute(window);
        }
    }

    fn loss_ssthresh(&self, window: &Window, _in_flight: u64) -> u64 {
        if self.established > 1 {
            window.segments().saturating_sub(self.md).max(1) * window.mss_bytes
        } else {
            window.linux_reno_ssthresh()
        }
    }

    fn counts_ack_events(&self) -> bool {
        true
    }

    fn restart(&mut self) {
        self.events.reset();
    }

    fn after_slow_start(&mut self, window: &Window) {
        self.recompute(window);
    }

    fn on_timeout(&mut self, window: &Window) {
        self.recompute(window);
    }

    fn on_recovery_exit(&mut self, window: &Window) {
        self.recompute(window);
    }
}

#[cfg(test)]
mod tests {
    use super::super::coupling::SubflowView;
    use super::super::newreno::ack_clock::AckClock;
    use super::super::{AckSample, CongestionControl};
    use super::*;
    use crate::sim::{Duration, SimTime};

    const MSS: u64 = 1000;
    const RTT: Duration = Duration::from_millis(20);

    fn view(cwnd_segments: u64, rtt: Duration) -> SubflowView {
        SubflowView {
            cwnd: cwnd_segments * MSS,
            ssthresh: u64::MAX,
            srtt: Some(rtt),
            mss: MSS as u32,
            established: true,
            ..SubflowView::default()
        }
    }

    fn ack() -> AckSample {
        AckSample { acked_bytes: MSS, cwnd_limited: true, ..AckSample::default() }
    }

    // ---- α and the increase -------------------------------------------------------------------

    #[test]
    fn test_paper_alpha_and_threshold_known_answer() {
        // 20 segments at 20 ms beside 30 at 20 ms: x = 1000 and 1500 segments/s, α = 1.5;
        // T = 10·20·2500² / ((1000 + 1500)·(4000 + 1500)) = 90.9 segments, i.e. the paper's
        // increase (1000/0.02)/2500² · 1.25 · 1.1 = 0.011 segment per segment acknowledged.
        let views = [view(20, RTT), view(30, RTT)];
        let c = paper_coupling(&Siblings { subflows: &views, me: 0 }, 20 * MSS).expect("coupled");
        assert!((c.alpha - 1.5).abs() < 1e-12);
        let increase = (1000.0 / 0.02) / (2500.0f64 * 2500.0) * (2.5 / 2.0) * (5.5 / 5.0);
        assert!((c.threshold_bytes - MSS as f64 / increase).abs() < 1e-6, "T = {}", c.threshold_bytes);
    }

    #[test]
    fn test_equal_rates_alpha_one_increase_is_the_linked_term_and_loss_halves() {
        // Two subflows of 20 segments at the same RTT: α = 1 and (1 + α)/2·(4 + α)/5 = 1, so each
        // grows (x/rtt)/(2x)² = 1/(4w) per segment acknowledged, a quarter segment per round, and
        // a loss halves it as Reno's (RFC 5681 eq. 4).
        let views = [view(20, RTT), view(20, RTT)];
        let siblings = Siblings { subflows: &views, me: 0 };
        let c = paper_coupling(&siblings, 20 * MSS).expect("coupled");
        assert_eq!(c.alpha, 1.0);
        assert!((c.threshold_bytes - 80.0 * MSS as f64).abs() < 1e-6);
        let mut cc = Balia::new(MSS as u32, 40 * MSS, CoupledVariant::Paper);
        cc.on_congestion_event(SimTime::ZERO, 40 * MSS);
        let mut clock = AckClock::new(SimTime::ZERO, RTT, MSS, 1);
        for _ in 0..4 {
            clock.round_coupled(&mut cc, |cc| cc.couple(&siblings));
        }
        assert_eq!(cc.cwnd(), 21 * MSS, "80 segments acknowledged for one of growth");
        cc.couple(&siblings);
        cc.on_congestion_event(clock.now, 21 * MSS);
        assert_eq!(cc.ssthresh(), 10_500);
    }

    #[test]
    fn test_linux_threshold_and_alpha_are_integers() {
        // The same 20/30-segment pair: x in bytes/s = 1000·w·8·10⁶/160 000 = 50 000·w, so
        // x_r = 10⁶, x_max = 1.5·10⁶ (under 2²⁵, unscaled), Σx = 2.5·10⁶;
        // ai = ⌊⌊6.25·10¹²·10/2.5·10⁶⌋·20/5.5·10⁶⌋ = ⌊2.5·10⁷·20/5.5·10⁶⌋ = 90 ACKs;
        // α = ⌊1.5⌋ = 1, md = ⌊20/2⌋·1 = 10 segments.
        let views = [view(20, RTT), view(30, RTT)];
        let mut rule = LinuxBalia::default();
        let window = Window { mss_bytes: MSS, cwnd_bytes: 20 * MSS, ssthresh_bytes: 10 * MSS };
        rule.couple(&window, &Siblings { subflows: &views, me: 0 });
        rule.recompute(&window);
        assert_eq!((rule.ai, rule.md), (90, 10));
        // At α ≥ 2 (a 40-segment sibling): md = 10·1.5 = 15.
        let views = [view(20, RTT), view(40, RTT)];
        rule.couple(&window, &Siblings { subflows: &views, me: 0 });
        rule.recompute(&window);
        assert_eq!(rule.md, 15);
    }

    #[test]
    fn test_linux_rates_scaled_above_two_to_the_25() {
        // 2000 segments of 1448 B at 1 ms: x = 1448·2000·8·10⁶/8000 ≈ 2.9·10⁹ > 2²⁵, shifted by
        // 5 bits twice (to 2.8·10⁶). Equal subflows: α = 1 and ai = 10·w·(2x)²/(2x·5x) = 4·w,
        // up to the floors.
        let views = [view(2000, Duration::from_millis(1)), view(2000, Duration::from_millis(1))]
            .map(|v| SubflowView { cwnd: 2000 * 1448, mss: 1448, ..v });
        let mut rule = LinuxBalia::default();
        let window = Window { mss_bytes: 1448, cwnd_bytes: 2000 * 1448, ssthresh_bytes: 1448 };
        rule.couple(&window, &Siblings { subflows: &views, me: 1 });
        rule.recompute(&window);
        assert!((7995..=8000).contains(&rule.ai), "ai {}", rule.ai);
        assert_eq!(rule.md, 1000);
    }

    // ---- loss ---------------------------------------------------------------------------------

    #[test]
    fn test_loss_cut_between_alpha_one_and_two_differs_between_variants() {
        // α = 30/20 = 1.5: the paper cuts (w/2)·1.5 = 0.75·w, Linux ⌊1.5⌋ = 1 → w/2.
        let views = [view(20, RTT), view(30, RTT)];
        let siblings = Siblings { subflows: &views, me: 0 };
        let mut ssthresh = Vec::new();
        for variant in [CoupledVariant::Paper, CoupledVariant::LinuxV090] {
            // Slow start from 19 segments: one ACK makes 20 (and Linux recomputes ai, md).
            let mut cc = Balia::new(MSS as u32, 19 * MSS, variant);
            cc.couple(&siblings);
            cc.on_ack(&ack());
            assert_eq!(cc.cwnd(), 20 * MSS);
            cc.couple(&siblings);
            cc.on_congestion_event(SimTime::ZERO, 20 * MSS);
            ssthresh.push(cc.ssthresh());
        }
        assert_eq!(ssthresh, [5 * MSS, 10 * MSS]);
    }

    #[test]
    fn test_paper_loss_cut_capped_at_three_quarters() {
        // α = 4 (80 vs 20 segments): min(α, 1.5) = 1.5, a quarter of the flight is kept.
        let views = [view(20, RTT), view(80, RTT)];
        let mut cc = Balia::new(MSS as u32, 20 * MSS, CoupledVariant::Paper);
        cc.couple(&Siblings { subflows: &views, me: 0 });
        cc.on_congestion_event(SimTime::ZERO, 20 * MSS);
        assert_eq!(cc.ssthresh(), 5 * MSS);
    }

    #[test]
    fn test_linux_one_established_subflow_is_reno() {
        let mut views = [view(20, RTT), view(30, RTT)];
        views[1].established = false;
        let mut cc = Balia::new(MSS as u32, 19 * MSS, CoupledVariant::LinuxV090);
        cc.couple(&Siblings { subflows: &views, me: 0 });
        cc.on_ack(&ack());
        cc.on_congestion_event(SimTime::ZERO, 5 * MSS);
        assert_eq!(cc.ssthresh(), 10 * MSS, "max(cwnd/2, 2) segments, not FlightSize");
    }
}
