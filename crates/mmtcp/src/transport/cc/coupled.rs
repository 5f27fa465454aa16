//! Coupled congestion control for MP-TCP subflows, as the papers write it: LIA (RFC 6356), OLIA
//! (Khalili, Gast, Popovic, Le Boudec, "MPTCP is not Pareto-optimal", IEEE/ACM ToN 2013) and
//! BALIA (Peng, Walid, Hwang, Low, "Multipath TCP: Analysis, design and implementation",
//! IEEE/ACM ToN 2016).
//!
//! All three change congestion avoidance only; slow start, the halving on loss and the timeout
//! are Reno's (RFC 5681 with RFC 3465 byte counting, as [`super::NewReno`]), except BALIA's loss
//! cut. The controller reads its connection's subflows before each ACK or timeout
//! ([`super::coupling`]); the quantities below are taken over the subflows that are established
//! and have an RTT estimate. W_r is subflow r's window in segments (cwnd / MSS), rtt_r its
//! smoothed RTT in seconds, x_r = W_r / rtt_r, n the number of subflows, and "per ACK" means per
//! segment acknowledged: an ACK of b bytes counts b / MSS.
//!
//! ```text
//! LIA    α = W_tot · max_r(W_r / rtt_r²) / (Σ_r W_r / rtt_r)²                    (RFC 6356 §3)
//!        per ACK on r:  W_r += min(α / W_tot, 1 / W_r)
//! OLIA   ℓ_r = max(bytes delivered since r's last loss, between its last two losses)
//!        M = paths of largest W, B = paths of largest ℓ_p / rtt_p²
//!        α_r = 1 / (n·|B∖M|) on B∖M, −1 / (n·|M|) on M, if B∖M ≠ ∅; else 0     (ToN 2013, eq. 6)
//!        per ACK on r:  W_r += (W_r / rtt_r²) / (Σ_p W_p / rtt_p)² + α_r / W_r  (eq. 5)
//! BALIA  α_r = max_k x_k / x_r
//!        per ACK on r:  W_r += (x_r / rtt_r) / (Σ_k x_k)² · (1 + α_r)/2 · (4 + α_r)/5
//!        per loss on r: W_r −= W_r / 2 · min(α_r, 1.5)                        (ToN 2016, §V)
//! ```
//!
//! With one subflow each reduces to Reno: α = 1 and the increase is 1 / W per ACK (BALIA's loss
//! cut is then W / 2). The increase is applied in bytes with its fraction carried to the next
//! ACK; OLIA's may be negative (a path of largest window not among the best), and a window never
//! falls below one segment. No window grows on an ACK that says the sender was not
//! cwnd-limited (RFC 7661 §4.3), as for every controller here.
//!
//! OLIA's B is ranked by ℓ_r / rtt_r², as the paper and Linux (written by OLIA's authors) do; one
//! other port ranks by ℓ_r² / rtt_r. Ties in M and B are exact (windows in bytes, ℓ in bytes).

use super::newreno::{half_flight_ssthresh, slow_start};
use super::{AckSample, CongestionControl, Siblings, SubflowView};
use crate::sim::SimTime;

/// Which coupled algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coupling {
    Lia,
    Olia,
    Balia,
}

/// A subflow's coupled controller. See the module header for the model.
#[derive(Clone, Debug)]
pub struct Coupled {
    coupling: Coupling,
    mss_bytes: u64,
    cwnd_bytes: u64,
    ssthresh_bytes: u64,
    /// Growth earned but not yet applied to the window, bytes (OLIA's may be negative).
    pending_bytes: f64,
    /// Congestion-avoidance increase per segment acknowledged, in segments, from the last
    /// reading of the siblings; `None` until the first (Reno's 1 / W then).
    increase: Option<f64>,
    /// BALIA's α of this subflow at the last reading (1 until then).
    balia_alpha: f64,
}

impl Coupled {
    pub fn new(coupling: Coupling, mss: u32, initial_window_bytes: u64) -> Self {
        Coupled {
            coupling,
            mss_bytes: u64::from(mss),
            cwnd_bytes: initial_window_bytes,
            ssthresh_bytes: u64::MAX,
            pending_bytes: 0.0,
            increase: None,
            balia_alpha: 1.0,
        }
    }

    /// The congestion-avoidance increase per acknowledged segment, in segments, and BALIA's α,
    /// for subflow `me` among `paths` (window in segments, RTT in seconds, ℓ in bytes).
    fn coefficients(&self, paths: &[Path], me: usize) -> (f64, f64) {
        let own = paths[me];
        match self.coupling {
            Coupling::Lia => {
                let total: f64 = paths.iter().map(|p| p.w).sum();
                let best = paths.iter().map(|p| p.w / (p.rtt * p.rtt)).fold(0.0, f64::max);
                let sum: f64 = paths.iter().map(|p| p.w / p.rtt).sum();
                let alpha = total * best / (sum * sum);
                ((alpha / total).min(1.0 / own.w), 1.0)
            }
            Coupling::Olia => {
                let n = paths.len() as f64;
                let sum: f64 = paths.iter().map(|p| p.w / p.rtt).sum();
                let w_max = paths.iter().map(|p| p.w).fold(0.0, f64::max);
                let quality = |p: &Path| p.loss_free / (p.rtt * p.rtt);
                let q_max = paths.iter().map(quality).fold(0.0, f64::max);
                let in_m = |p: &Path| p.w == w_max;
                let in_b = |p: &Path| quality(p) == q_max;
                let best_not_max = paths.iter().filter(|p| in_b(p) && !in_m(p)).count() as f64;
                let largest = paths.iter().filter(|p| in_m(p)).count() as f64;
                let alpha = if best_not_max == 0.0 {
                    0.0
                } else if in_b(&own) && !in_m(&own) {
                    1.0 / (n * best_not_max)
                } else if in_m(&own) {
                    -1.0 / (n * largest)
                } else {
                    0.0
                };
                ((own.w / (own.rtt * own.rtt)) / (sum * sum) + alpha / own.w, 1.0)
            }
            Coupling::Balia => {
                let rate = |p: &Path| p.w / p.rtt;
                let sum: f64 = paths.iter().map(rate).sum();
                let x_max = paths.iter().map(rate).fold(0.0, f64::max);
                let x = rate(&own);
                let alpha = x_max / x;
                let increase = (x / own.rtt) / (sum * sum) * (1.0 + alpha) / 2.0 * (4.0 + alpha) / 5.0;
                (increase, alpha)
            }
        }
    }

    fn congestion_avoidance(&mut self, acked_bytes: u64) {
        let mss = self.mss_bytes as f64;
        let w = self.cwnd_bytes as f64 / mss;
        let per_segment = self.increase.unwrap_or(1.0 / w);
        self.pending_bytes += per_segment * acked_bytes as f64;
        // A hair above the sum so that increments adding up to a whole byte count as one
        // despite binary rounding (40 × 1/40 of a segment is one segment).
        let whole = (self.pending_bytes + 1e-9).trunc();
        self.pending_bytes -= whole;
        let cwnd = self.cwnd_bytes as f64 + whole;
        self.cwnd_bytes = cwnd.max(mss) as u64;
    }
}

/// One subflow in the units of the formulas.
#[derive(Clone, Copy, Debug)]
struct Path {
    /// Window, segments.
    w: f64,
    /// Smoothed RTT, seconds.
    rtt: f64,
    /// OLIA's ℓ: bytes delivered since the last loss or between the last two, the larger.
    loss_free: f64,
}

impl Path {
    fn of(view: &SubflowView) -> Option<Path> {
        let rtt = view.srtt?.as_secs_f64();
        (view.established && rtt > 0.0 && view.cwnd > 0).then(|| Path {
            w: view.cwnd as f64 / f64::from(view.mss.max(1)),
            rtt,
            loss_free: view.delivered_since_loss.max(view.delivered_between_losses) as f64,
        })
    }
}

/// Most subflows a coupled controller reads (RFC 8684 leaves it open; the scenario allows 32).
const MAX_PATHS: usize = 64;

impl CongestionControl for Coupled {
    fn cwnd(&self) -> u64 {
        self.cwnd_bytes
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh_bytes
    }

    fn on_ack(&mut self, ack: &AckSample) {
        if !ack.cwnd_limited {
            return;
        }
        let mut acked_bytes = ack.acked_bytes;
        if self.cwnd_bytes < self.ssthresh_bytes {
            let (cwnd, leftover) =
                slow_start(self.cwnd_bytes, self.ssthresh_bytes, acked_bytes, self.mss_bytes);
            self.cwnd_bytes = cwnd;
            acked_bytes = leftover;
        }
        if acked_bytes > 0 {
            self.congestion_avoidance(acked_bytes);
        }
    }

    fn on_congestion_event(&mut self, _now: SimTime, in_flight: u64) {
        self.ssthresh_bytes = match self.coupling {
            // BALIA: W −= W/2 · min(α, 1.5), from the window in force (ToN 2016 §V).
            Coupling::Balia => {
                let cut = self.balia_alpha.min(1.5) / 2.0;
                ((self.cwnd_bytes as f64 * (1.0 - cut)) as u64).max(2 * self.mss_bytes)
            }
            Coupling::Lia | Coupling::Olia => half_flight_ssthresh(in_flight, self.mss_bytes),
        };
        self.cwnd_bytes = self.ssthresh_bytes;
        self.pending_bytes = 0.0;
    }

    fn on_rto(&mut self, _now: SimTime, in_flight: u64, already_reduced: bool) {
        if !already_reduced {
            self.ssthresh_bytes = half_flight_ssthresh(in_flight, self.mss_bytes);
        }
        self.cwnd_bytes = self.mss_bytes;
        self.pending_bytes = 0.0;
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.pending_bytes = 0.0;
    }

    fn set_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd_bytes = cwnd;
        self.ssthresh_bytes = ssthresh;
    }

    fn couple(&mut self, siblings: &Siblings) {
        let mut paths = [Path { w: 0.0, rtt: 0.0, loss_free: 0.0 }; MAX_PATHS];
        let mut n = 0;
        let mut me = None;
        for (i, view) in siblings.subflows.iter().enumerate().take(MAX_PATHS) {
            if let Some(path) = Path::of(view) {
                if i == siblings.me {
                    me = Some(n);
                }
                paths[n] = path;
                n += 1;
            }
        }
        let Some(me) = me else {
            self.increase = None;
            self.balia_alpha = 1.0;
            return;
        };
        let (increase, alpha) = self.coefficients(&paths[..n], me);
        self.increase = increase.is_finite().then_some(increase);
        self.balia_alpha = if alpha.is_finite() { alpha } else { 1.0 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Duration;

    const MSS: u32 = 1000;

    fn view(segments: u64, rtt_ms: u64) -> SubflowView {
        SubflowView {
            cwnd: segments * u64::from(MSS),
            ssthresh: 1,
            srtt: Some(Duration::from_millis(rtt_ms)),
            mss: MSS,
            established: true,
            ..SubflowView::default()
        }
    }

    /// A controller in congestion avoidance at `segments`, having read `views` as subflow `me`.
    fn coupled(coupling: Coupling, segments: u64, views: &[SubflowView], me: usize) -> Coupled {
        let mut c = Coupled::new(coupling, MSS, segments * u64::from(MSS));
        c.ssthresh_bytes = 1;
        c.couple(&Siblings { subflows: views, me });
        c
    }

    fn ack(bytes: u64) -> AckSample {
        AckSample { acked_bytes: bytes, cwnd_limited: true, ..AckSample::default() }
    }

    #[test]
    fn test_lia_alpha_matches_rfc_6356_for_two_paths() {
        // W = 10 and 20 segments, RTT 20 and 80 ms: Σ W/rtt = 500 + 250 = 750 /s;
        // max W/rtt² = max(25 000, 3 125) = 25 000; α = 30 · 25 000 / 750² = 1.333…
        let views = [view(10, 20), view(20, 80)];
        let alpha: f64 = 30.0 * 25_000.0 / (750.0 * 750.0);
        let c = coupled(Coupling::Lia, 10, &views, 0);
        assert!((c.increase.unwrap() - (alpha / 30.0).min(1.0 / 10.0)).abs() < 1e-12);
        assert!((c.increase.unwrap() - alpha / 30.0).abs() < 1e-12, "α/W_tot = 0.0444 < 1/10");
        // The slow path's increase is capped by its uncoupled 1/W_r only when that is smaller.
        let slow = coupled(Coupling::Lia, 20, &views, 1);
        assert!((slow.increase.unwrap() - (alpha / 30.0).min(1.0 / 20.0)).abs() < 1e-12);
    }

    #[test]
    fn test_lia_increase_never_exceeds_the_uncoupled_one() {
        // W_tot = 102, max W/rtt² = 2/0.01² = 20 000, Σ W/rtt = 200 + 200: α = 12.75 and
        // α / W_tot = 0.125, above the large path's 1 / W = 0.01, which caps it.
        let views = [view(2, 10), view(100, 500)];
        assert_eq!(coupled(Coupling::Lia, 2, &views, 0).increase, Some(0.125));
        assert_eq!(coupled(Coupling::Lia, 100, &views, 1).increase, Some(0.01));
    }

    #[test]
    fn test_one_subflow_grows_like_reno() {
        for coupling in [Coupling::Lia, Coupling::Olia, Coupling::Balia] {
            let views = [view(40, 50)];
            let mut c = coupled(coupling, 40, &views, 0);
            // One window's worth of ACKs raises W by one segment: 1/W per segment.
            for _ in 0..40 {
                c.on_ack(&ack(u64::from(MSS)));
            }
            assert_eq!(c.cwnd(), 41 * u64::from(MSS), "{coupling:?}");
            c.on_congestion_event(SimTime::ZERO, 41 * u64::from(MSS));
            assert_eq!(c.cwnd(), 41 * u64::from(MSS) / 2, "{coupling:?}: halved");
        }
    }

    #[test]
    fn test_balia_with_equal_rates_is_reno_and_cuts_deeper_for_a_slow_path() {
        // Equal rates: α = 1 on both, and each increases by (x/rtt)/(2x)² · 1 · 1 = 1/(4W).
        let views = [view(20, 50), view(20, 50)];
        let c = coupled(Coupling::Balia, 20, &views, 0);
        assert!((c.increase.unwrap() - 1.0 / 80.0).abs() < 1e-12);
        assert_eq!(c.balia_alpha, 1.0);
        // Rates 400 and 250 /s: α = 1.6 on the slower path, whose loss cut is W/2 · 1.5.
        let views = [view(20, 50), view(25, 100)];
        let mut slow = coupled(Coupling::Balia, 25, &views, 1);
        assert!((slow.balia_alpha - 1.6).abs() < 1e-12);
        slow.on_congestion_event(SimTime::ZERO, 25 * u64::from(MSS));
        assert_eq!(slow.cwnd(), 6250, "25 000 · (1 − 1.5/2)");
        let mut fast = coupled(Coupling::Balia, 20, &views, 0);
        fast.on_congestion_event(SimTime::ZERO, 20 * u64::from(MSS));
        assert_eq!(fast.cwnd(), 10_000, "α = 1: halved");
    }

    #[test]
    fn test_olia_moves_window_from_the_largest_path_to_the_best_one() {
        // Path 0 has the largest window, path 1 the most bytes between losses per rtt²: α is
        // +1/(2·1) on path 1 and −1/(2·1) on path 0.
        let mut views = [view(30, 50), view(10, 50)];
        views[0].delivered_since_loss = 1_000;
        views[1].delivered_since_loss = 50_000;
        let sum = 30.0 / 0.05 + 10.0 / 0.05;
        let best = coupled(Coupling::Olia, 10, &views, 1);
        let expected = (10.0 / 0.0025) / (sum * sum) + 0.5 / 10.0;
        assert!((best.increase.unwrap() - expected).abs() < 1e-12);
        let largest = coupled(Coupling::Olia, 30, &views, 0);
        let expected = (30.0 / 0.0025) / (sum * sum) - 0.5 / 30.0;
        assert!((largest.increase.unwrap() - expected).abs() < 1e-12);
        // When the best path is also the largest, α is 0 everywhere.
        views[0].delivered_since_loss = 90_000;
        let c = coupled(Coupling::Olia, 10, &views, 1);
        assert!((c.increase.unwrap() - (10.0 / 0.0025) / (sum * sum)).abs() < 1e-12);
    }

    #[test]
    fn test_a_coupled_controller_follows_its_siblings_and_an_uncoupled_one_does_not() {
        let alone = [view(20, 50), view(1, 50)];
        let crowded = [view(20, 50), view(200, 50)];
        for coupling in [Coupling::Lia, Coupling::Olia, Coupling::Balia] {
            let mut a = coupled(coupling, 20, &alone, 0);
            let mut b = coupled(coupling, 20, &crowded, 0);
            for _ in 0..200 {
                a.on_ack(&ack(u64::from(MSS)));
                b.on_ack(&ack(u64::from(MSS)));
            }
            if coupling == Coupling::Olia {
                // Equal ℓ: alone, this subflow has the largest window and gives way to the
                // other (α < 0); crowded, the other has it and this one takes (α > 0).
                assert!(a.cwnd() < b.cwnd(), "{} {}", a.cwnd(), b.cwnd());
            } else {
                assert!(a.cwnd() > b.cwnd(), "{coupling:?}: a large sibling slows this subflow");
            }
        }
        let mut a = super::super::NewReno::new(MSS, 20 * u64::from(MSS));
        let mut b = a.clone();
        a.couple(&Siblings { subflows: &alone, me: 0 });
        b.couple(&Siblings { subflows: &crowded, me: 0 });
        for _ in 0..200 {
            a.on_ack(&ack(u64::from(MSS)));
            b.on_ack(&ack(u64::from(MSS)));
        }
        assert_eq!(a.cwnd(), b.cwnd(), "NewReno ignores its siblings");
    }
}
