//! LIA, the Linked Increases Algorithm of MP-TCP: RFC 6356.
//!
//! The model, windows in bytes, rtt_r the smoothed RTT of subflow r, the sums over the subflows
//! that take part (module `coupled`):
//!
//! ```text
//! α         = cwnd_total · max_r(cwnd_r / rtt_r²) / (Σ_r cwnd_r / rtt_r)²            (RFC 6356 §3)
//! per ACK of b bytes on subflow i in congestion avoidance:
//!   cwnd_i += min(α · b · MSS_i / cwnd_total, b · MSS_i / cwnd_i)                     (RFC 6356 §3)
//! slow start, fast retransmit and recovery, decrease: as Reno (RFC 5681)             (RFC 6356 §3)
//!   congestion event  ssthresh = max(FlightSize / 2, 2·SMSS), cwnd = ssthresh         (RFC 5681 eq. 4)
//!   timeout           ssthresh likewise, cwnd = 1·SMSS                                (RFC 5681 §3.1)
//! ```
//!
//! α is dimensionless (the same with windows in segments). The increase is applied by byte
//! counting: one SMSS per T bytes acknowledged, T = max(cwnd_total / α, cwnd_i), which adds on
//! average exactly the min(…) above per ACK and is RFC 3465 §2.1 (NewReno's rule) when T = cwnd_i.
//! The second term of the min caps the subflow at what a single-path TCP would get (RFC 6356 §3,
//! goal 2). With one subflow α = 1 and T = cwnd: NewReno.
//!
//! `linux-v0.90` (`net/mptcp/mptcp_coupled.c`, registered as "lia"), modelled:
//! - α in fixed point on the connection: α_fp = ⌊2³² · w_b / (Σ_r ⌊2¹⁰ · w_r · rtt_b / rtt_r⌋)²⌋,
//!   at least 1, = 2¹² · α / cwnd_total, where b is the subflow with the largest
//!   ⌊2³² · w_r / rtt_r²⌋ (the last of equals), windows in segments and rtt in Linux 3.18's
//!   `srtt_us` (8 × µs). Because that numerator is floored, it is 0 for every subflow whose
//!   rtt² exceeds 2³²·w (8·µs units: above about 26 ms at w = 10); when all are 0 the *last*
//!   subflow is taken as b, whatever its w/rtt², and α can come out several times smaller than
//!   the paper's (`test_linux_alpha_known_answers`).
//! - Congestion avoidance counts ACK events: one segment per ⌊2¹² / α_fp⌋ + 1 ACKs, or per
//!   cwnd + 1 ACKs if more (RFC 6356 §4.2's packet form, with Linux 3.18's off-by-one count);
//!   delayed ACKs halve the growth.
//! - One established subflow: Linux 3.18 Reno, one segment per cwnd + 1 ACKs.
//! - ssthresh = max(cwnd / 2, 2) segments (`tcp_reno_ssthresh`).
//!
//! Not modelled: v0.90 caches α on the connection and refreshes it on slow-start ACKs, on each
//! increment of any subflow, on a timeout and at the next ACK after any subflow changes state;
//! here it is recomputed from the view on every ACK, which differs from the kernel's only while
//! a sibling's window moves without one of those events (the PRR window of a subflow in
//! recovery).

use super::coupled::{self, AckEvents, ByVariant, Coupled, CoupledVariant, Rule, Window};
use super::coupling::Siblings;
use super::newreno::half_flight_ssthresh;

/// LIA (RFC 6356) in the form `variant` selects. See the module header.
#[derive(Clone, Debug)]
pub struct Lia(Coupled<ByVariant<PaperLia, LinuxLia>>);

impl Lia {
    /// A controller in slow start with `initial_window_bytes`.
    pub fn new(mss: u32, initial_window_bytes: u64, variant: CoupledVariant) -> Self {
        let rule = match variant {
            CoupledVariant::Paper => ByVariant::Paper(PaperLia::default()),
            CoupledVariant::LinuxV090 => ByVariant::LinuxV090(LinuxLia::default()),
        };
        Lia(Coupled::new(mss, initial_window_bytes, rule))
    }
}

coupled::forward_congestion_control!(Lia);

/// α and cwnd_total of RFC 6356 §3 for the subflows of `siblings`, the reader's window being
/// `own_cwnd_bytes`; `None` when the reader does not take part (it then grows as Reno).
pub(super) fn alpha(siblings: &Siblings, own_cwnd_bytes: u64) -> Option<PaperCoupling> {
    if !coupled::own_takes_part(siblings) {
        return None;
    }
    let (mut total_cwnd_bytes, mut sum_rate, mut max_term) = (0, 0.0, 0.0f64);
    for m in coupled::members(siblings, own_cwnd_bytes) {
        let rtt_secs = m.srtt.as_secs_f64();
        let cwnd_bytes = m.cwnd_bytes as f64;
        total_cwnd_bytes += m.cwnd_bytes;
        sum_rate += cwnd_bytes / rtt_secs;
        max_term = max_term.max(cwnd_bytes / (rtt_secs * rtt_secs));
    }
    let alpha = total_cwnd_bytes as f64 * max_term / (sum_rate * sum_rate);
    (alpha.is_finite() && alpha > 0.0).then_some(PaperCoupling { alpha, total_cwnd_bytes })
}

/// What the paper form keeps of the latest view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct PaperCoupling {
    /// α of RFC 6356 §3, dimensionless.
    pub alpha: f64,
    /// cwnd_total, bytes.
    pub total_cwnd_bytes: u64,
}

/// RFC 6356 as written, with RFC 3465 byte counting.
#[derive(Clone, Debug, Default)]
pub(super) struct PaperLia {
    /// From the latest view; `None`: uncoupled (Reno).
    coupling: Option<PaperCoupling>,
    /// RFC 3465 §2.1 `bytes_acked` towards the next one-SMSS increase.
    ca_acked_bytes: u64,
}

impl Rule for PaperLia {
    fn couple(&mut self, window: &Window, siblings: &Siblings) {
        self.coupling = alpha(siblings, window.cwnd_bytes);
    }

    fn increase(&mut self, window: &mut Window, acked_bytes: u64) {
        // min(α·b·MSS/cwnd_total, b·MSS/cwnd_i) = b·MSS / max(cwnd_total/α, cwnd_i) (RFC 6356 §3).
        let coupled_bytes = self.coupling.map_or(0, |c| (c.total_cwnd_bytes as f64 / c.alpha) as u64);
        let threshold_bytes = coupled_bytes.max(window.cwnd_bytes);
        self.ca_acked_bytes += acked_bytes;
        if self.ca_acked_bytes >= threshold_bytes {
            self.ca_acked_bytes -= threshold_bytes;
            window.cwnd_bytes += window.mss_bytes;
        }
    }

    fn loss_ssthresh(&self, window: &Window, in_flight: u64) -> u64 {
        // RFC 6356 §3: the decrease is standard TCP's, RFC 5681 eq. (4).
        half_flight_ssthresh(in_flight, window.mss_bytes)
    }

    fn counts_ack_events(&self) -> bool {
        false
    }

    fn restart(&mut self) {
        self.ca_acked_bytes = 0;
    }
}

/// Linux v0.90's `mptcp_ccc_recalc_alpha`: 2¹² · α / cwnd_total in fixed point (module header),
/// at least 1, over the subflows that take part; windows in segments, RTTs in `srtt_us`.
fn linux_alpha_scaled(siblings: &Siblings, own_cwnd_bytes: u64) -> u64 {
    // The subflow with the largest ⌊2³²·w/rtt²⌋; `>=` keeps the last of equals, as the kernel.
    let mut best: Option<(u128, u128, u128)> = None;
    for m in coupled::members(siblings, own_cwnd_bytes) {
        let (w, rtt) = (u128::from(m.segments()), u128::from(coupled::linux_srtt_us(m.srtt)));
        let numerator = (w << 32) / (rtt * rtt);
        if best.is_none_or(|(max, _, _)| numerator >= max) {
            best = Some((numerator, w, rtt));
        }
    }
    let Some((_, best_w, best_rtt)) = best else { return 1 };
    let sum: u128 = coupled::members(siblings, own_cwnd_bytes)
        .map(|m| (u128::from(m.segments()) << 10) * best_rtt / u128::from(coupled::linux_srtt_us(m.srtt)))
        .sum();
    let denominator = sum * sum;
    if denominator == 0 {
        return 1;
    }
    u64::try_from((best_w << 32) / denominator).unwrap_or(u64::MAX).max(1)
}

/// 2¹², the scale of α_fp (`alpha_scale` = 12 in `mptcp_coupled.c`).
const ALPHA_ONE: u64 = 1 << 12;

/// LIA as Linux MP-TCP v0.90 computes it (module header).
#[derive(Clone, Debug)]
pub(super) struct LinuxLia {
    /// α_fp = 2¹²·α/cwnd_total (segments), at least 1, from the latest view.
    alpha_scaled: u64,
    /// More than one subflow is established (`cnt_established > 1`); otherwise Reno.
    coupled: bool,
    /// `snd_cwnd_cnt`.
    events: AckEvents,
}

impl Default for LinuxLia {
    fn default() -> Self {
        // `mptcp_ccc_init`: α = 1.
        LinuxLia { alpha_scaled: 1, coupled: false, events: AckEvents::default() }
    }
}

impl Rule for LinuxLia {
    fn couple(&mut self, window: &Window, siblings: &Siblings) {
        self.coupled = coupled::established(siblings) > 1;
        self.alpha_scaled = if self.coupled { linux_alpha_scaled(siblings, window.cwnd_bytes) } else { 1 };
    }

    fn increase(&mut self, window: &mut Window, _acked_bytes: u64) {
        // `mptcp_ccc_cong_avoid`: count ACKs against max(2¹²/α_fp, cwnd), or cwnd alone.
        let mut threshold = window.segments();
        if self.coupled {
            threshold = threshold.max(ALPHA_ONE / self.alpha_scaled);
        }
        self.events.on_ack(window, threshold);
    }

    fn loss_ssthresh(&self, window: &Window, _in_flight: u64) -> u64 {
        window.linux_reno_ssthresh()
    }

    fn counts_ack_events(&self) -> bool {
        true
    }

    fn restart(&mut self) {
        self.events.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::super::coupling::SubflowView;
    use super::super::newreno::ack_clock::AckClock;
    use super::super::CongestionControl;
    use super::*;
    use crate::sim::{Duration, SimTime};

    const MSS: u64 = 1000;

    fn ms(millis: u64) -> Duration {
        Duration::from_millis(millis)
    }

    fn view(cwnd_segments: u64, rtt: Duration) -> SubflowView {
        SubflowView {
            cwnd: cwnd_segments * MSS,
            ssthresh: cwnd_segments * MSS,
            srtt: Some(rtt),
            mss: MSS as u32,
            established: true,
            ..SubflowView::default()
        }
    }

    /// A LIA in congestion avoidance at `segments` (cwnd = ssthresh).
    fn lia_in_ca(segments: u64, variant: CoupledVariant) -> Lia {
        let mut cc = Lia::new(MSS as u32, 2 * segments * MSS, variant);
        cc.on_congestion_event(SimTime::ZERO, 2 * segments * MSS);
        cc.on_recovery_exit(SimTime::ZERO);
        assert_eq!(cc.cwnd(), segments * MSS);
        cc
    }

    // ---- α ------------------------------------------------------------------------------------

    #[test]
    fn test_alpha_two_paths_known_answer() {
        // Paths of 10 and 20 segments at 20 and 80 ms: cwnd/rtt² = 25 000 and 3 125 segments/s²,
        // Σ cwnd/rtt = 500 + 250 = 750 segments/s, cwnd_total = 30 segments, so
        // α = 30 · 25 000 / 750² = 4/3 whichever subflow reads it.
        let views = [view(10, ms(20)), view(20, ms(80))];
        for me in 0..2 {
            let siblings = Siblings { subflows: &views, me };
            let c = alpha(&siblings, views[me].cwnd).expect("coupled");
            assert!((c.alpha - 4.0 / 3.0).abs() < 1e-12, "α = {}", c.alpha);
            assert_eq!(c.total_cwnd_bytes, 30 * MSS);
        }
    }

    #[test]
    fn test_alpha_ignores_subflows_not_established_or_without_rtt() {
        let mut views = [view(10, ms(20)), view(20, ms(80)), view(50, ms(5)), view(50, ms(5))];
        views[2].established = false;
        views[3].srtt = None;
        let c = alpha(&Siblings { subflows: &views, me: 0 }, 10 * MSS).expect("coupled");
        assert!((c.alpha - 4.0 / 3.0).abs() < 1e-12);
        views[0].srtt = None;
        assert_eq!(alpha(&Siblings { subflows: &views, me: 0 }, 10 * MSS), None);
    }

    #[test]
    fn test_linux_alpha_known_answers() {
        // 10 segments at 20 ms, 20 at 80 ms; srtt_us = 160 000 and 640 000.
        // ⌊2³²·10/160 000²⌋ = 1, ⌊2³²·20/640 000²⌋ = 0: b = the first subflow.
        // Σ = ⌊2¹⁰·10·160 000/160 000⌋ + ⌊2¹⁰·20·160 000/640 000⌋ = 10 240 + 5 120 = 15 360;
        // α_fp = ⌊2³²·10 / 15 360²⌋ = ⌊182.04⌋ = 182 (the paper's 2¹²·(4/3)/30 = 182.04).
        let views = [view(10, ms(20)), view(20, ms(80))];
        assert_eq!(linux_alpha_scaled(&Siblings { subflows: &views, me: 1 }, 20 * MSS), 182);

        // 10 segments at 40 ms and 20 at 80 ms: both numerators floor to 0, so b is the last
        // subflow (w/rtt² = 3 125, not the first's 6 250): Σ = 20 480 + 20 480 = 40 960 and
        // α_fp = ⌊2³²·20 / 40 960²⌋ = 51, half the paper's 2¹²·0.75/30 = 102.4.
        let views = [view(10, ms(40)), view(20, ms(80))];
        assert_eq!(linux_alpha_scaled(&Siblings { subflows: &views, me: 0 }, 10 * MSS), 51);
        let paper = alpha(&Siblings { subflows: &views, me: 0 }, 10 * MSS).expect("coupled");
        assert!((paper.alpha - 0.75).abs() < 1e-12);
    }

    // ---- congestion avoidance -----------------------------------------------------------------

    #[test]
    fn test_congestion_avoidance_coupled_increase_follows_alpha() {
        // The 10-segment subflow of the known-answer case grows one segment per
        // cwnd_total/α = 22.5 segments acknowledged (RFC 6356 §3), not per 10 as alone:
        // 225 segments acknowledged give 10 segments of growth.
        let views = [view(10, ms(20)), view(20, ms(80))];
        let mut cc = lia_in_ca(10, CoupledVariant::Paper);
        cc.couple(&Siblings { subflows: &views, me: 0 });
        for _ in 0..225 {
            cc.on_ack(&ack(MSS));
        }
        assert_eq!(cc.cwnd(), 20 * MSS);
    }

    #[test]
    fn test_congestion_avoidance_increase_capped_by_uncoupled_reno() {
        // A 100-segment subflow at 1 s beside a 10-segment one at 10 ms:
        // α = 110 · (10/0.01²) / (100/1 + 10/0.01)² = 1.1·10⁷ / 1.21·10⁶ = 9.09, so
        // cwnd_total/α = 12.1 segments, far below the subflow's own 100: uncapped it would gain
        // 100/12.1 = 8 segments per round; capped (RFC 6356 §3) it gains Reno's one.
        let views = [view(100, Duration::from_secs(1)), view(10, ms(10))];
        let siblings = Siblings { subflows: &views, me: 0 };
        let c = alpha(&siblings, 100 * MSS).expect("coupled");
        assert!((c.alpha - 1.1e7 / 1.21e6).abs() < 1e-9, "α = {}", c.alpha);
        // Linux: ⌊4096/α_fp⌋ = 12 < 100 likewise, and its Reno counts cwnd + 1 ACKs per segment.
        for (variant, after_two_rounds) in [(CoupledVariant::Paper, 102), (CoupledVariant::LinuxV090, 101)] {
            let mut cc = lia_in_ca(100, variant);
            let mut clock = AckClock::new(SimTime::ZERO, Duration::from_secs(1), MSS, 1);
            clock.round_coupled(&mut cc, |cc| cc.couple(&siblings));
            clock.round_coupled(&mut cc, |cc| cc.couple(&siblings));
            assert_eq!(cc.cwnd(), after_two_rounds * MSS, "{variant:?}");
        }
    }

    #[test]
    fn test_linux_congestion_avoidance_threshold_from_alpha() {
        // α_fp = 182 for the 10-segment subflow of the known-answer case: one segment per
        // ⌊4096/182⌋ + 1 = 23 ACKs, whatever each acknowledges.
        let views = [view(10, ms(20)), view(20, ms(80))];
        let siblings = Siblings { subflows: &views, me: 0 };
        let mut cc = lia_in_ca(10, CoupledVariant::LinuxV090);
        for i in 1..=23 {
            cc.couple(&siblings);
            cc.on_ack(&ack(2 * MSS));
            assert_eq!(cc.cwnd(), if i < 23 { 10 * MSS } else { 11 * MSS }, "ACK {i}");
        }
    }

    #[test]
    fn test_linux_loss_halves_cwnd_not_flight() {
        let mut cc = lia_in_ca(40, CoupledVariant::LinuxV090);
        cc.on_congestion_event(SimTime::ZERO, 10 * MSS);
        assert_eq!(cc.ssthresh(), 20 * MSS);
        let mut cc = lia_in_ca(40, CoupledVariant::Paper);
        cc.on_congestion_event(SimTime::ZERO, 10 * MSS);
        assert_eq!(cc.ssthresh(), 5 * MSS);
    }

    fn ack(acked_bytes: u64) -> super::super::AckSample {
        super::super::AckSample { acked_bytes, srtt: Some(ms(20)), cwnd_limited: true, ..Default::default() }
    }
}
