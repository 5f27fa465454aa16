//! CUBIC congestion control, RFC 9438.
//!
//! The model, with windows in segments (SMSS-sized) and times in seconds, as in the RFC:
//!
//! ```text
//! W_cubic(t) = C·(t − K)³ + W_max                                          (Eq. 1)
//! K          = ∛((W_max − cwnd_epoch) / C)                                 (Eq. 2)
//! target     = min(max(W_cubic(t + RTT), cwnd), 1.5·cwnd)                  (§4.2)
//! per ACK:     cwnd  += (target − cwnd) / cwnd · segments_acked            (§4.4, §4.5)
//!              W_est += α_cubic · segments_acked / cwnd                    (Eq. 4)
//!              α_cubic = 3·(1 − β)/(1 + β), or 1 once W_est ≥ cwnd_prior   (§4.3)
//!              if W_cubic(t) < W_est: cwnd = max(cwnd, W_est)  (Reno-friendly region, §4.3)
//! loss:        W_max = cwnd·(1 + β)/2 if cwnd < W_max (fast convergence, §4.7), else cwnd
//!              cwnd_prior = cwnd; ssthresh = max(β·cwnd, 2); cwnd = ssthresh          (§4.6)
//! timeout:     cwnd_prior = cwnd; ssthresh = max(β·cwnd, 2); cwnd = 1                 (§4.8)
//!              and the next CA stage has K = 0, W_max = W_est = cwnd_epoch
//! ```
//!
//! `t` is the time since the start of the current congestion-avoidance epoch (`t_epoch`), minus
//! the time the flow spent not cwnd-limited (§4.2, §5.8). An epoch starts at the first ACK that
//! is processed in congestion avoidance (cwnd ≥ ssthresh) and is cwnd-limited, after a congestion
//! event, a timeout, or slow start reaching ssthresh; `cwnd_epoch` is cwnd at that ACK. Because
//! the sender does not call `on_ack` during fast recovery, after a loss the epoch starts with the
//! first new ACK after recovery, at cwnd = ssthresh = β·cwnd_prior.
//!
//! ```text
//!               ACK, cwnd reaches ssthresh
//!   ┌────────────┐ ─────────────────────────► ┌──────────────────────┐ ◄─┐ first cwnd-limited ACK
//!   │ slow start │                            │ congestion avoidance │   │ after a loss or RTO
//!   └────────────┘ ◄───────────────────────── └──────────────────────┘ ──┘ starts a new epoch
//!         ▲                 RTO                  │ loss: W_max, ssthresh, cwnd = β·cwnd
//!         │ RTO                                  ▼ (sender runs fast recovery; no on_ack)
//!         └────────────────────────────────  on_recovery_exit: nothing to do
//! ```
//!
//! The window is held in bytes (the trait's unit); the cubic function is evaluated in segments
//! as f64, and the per-ACK increase goes through a sub-byte accumulator so that increments below
//! one byte per ACK (common near W_max) are not lost to rounding. `libm::cbrt` is used instead
//! of `f64::cbrt` so that results are bit-identical on every platform.
//!
//! Deviations from RFC 9438:
//! - Slow start is RFC 5681 slow start with RFC 3465 byte counting (L = 2·SMSS), which §4.10
//!   permits ("MAY use the Reno TCP slow start"); with `hystart` on it is left early by Linux's
//!   HyStart, ns-3's or RFC 9406 HyStart++ (the `rfc` profile's), module `hystart`.
//! - ssthresh is β·cwnd, not β·flight_size. §4.6 allows this provided cwnd does not grow while
//!   the flow is not cwnd-limited, which `AckSample::cwnd_limited` enforces (§5.8, RFC 7661).
//! - If an epoch starts with cwnd above W_max (possible only when the 2-segment floor on ssthresh
//!   lifts cwnd over a fast-convergence W_max), W_max is raised to cwnd_epoch so K = 0, as §4.8
//!   does after a timeout, rather than taking the cube root of a negative number.
//! - In the Reno-friendly region cwnd is set to W_est unless the cubic increase on the same ACK
//!   gives more (§4.2: "chooses the higher of the two values"). This only matters in the first
//!   ACKs of an epoch, where W_cubic(t) and W_est both start at cwnd_epoch but the cubic rule,
//!   aiming at W_cubic(t + RTT), is ahead.
//! - Spurious-loss undo (§4.9) is not implemented.
//!
//! `mpcubic` (our coupled CUBIC for MP-TCP subflows) runs this controller with a linking factor
//! s ≤ 1 on C (per epoch), on W_est's growth and on the unknown-W_max floor; for CUBIC s = 1 and
//! the arithmetic is unchanged.

use super::hystart::{HyStart, HyStartAck, HyStartKind, Verdict};
use super::newreno::slow_start;
use super::{AckSample, CongestionControl};
use crate::sim::{Duration, SimTime};
use serde::{Deserialize, Serialize};

/// RTT used in the cubic target when the sender has neither an SRTT nor a minimum RTT sample:
/// 100 ms, the RTT of RFC 9438 §5.1 Table 1 and §5.2 Table 3. Congestion avoidance is only
/// entered after a loss, which the sender detects from ACKs that also yield RTT samples, so this
/// value only keeps the controller total; it does not shape results.
const FALLBACK_RTT: Duration = Duration::from_millis(100);

/// Upper bound on target/cwnd per ACK (§4.2): CUBIC must grow more slowly than slow start,
/// which at most doubles per RTT.
const MAX_TARGET_RATIO: f64 = 1.5;

/// Smallest ssthresh and post-loss cwnd, in segments (§4.6: "cwnd is at least 2 MSS"), so that a
/// further loss can still be detected by duplicate ACKs.
const MIN_SSTHRESH_SEGMENTS: u64 = 2;

/// Parameters of CUBIC (RFC 9438). The defaults are the RFC's recommended values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// C, the scaling constant of Eq. 1, in segments per second³: how fast the window moves
    /// away from W_max. RFC 9438 §4.1.1 and §5.1: SHOULD be 0.4. Must be finite and > 0.
    pub c: f64,
    /// β_cubic, the multiplicative decrease factor (dimensionless): after a congestion event
    /// cwnd = β·cwnd. RFC 9438 §4.1.1 and §4.6: SHOULD be 0.7. Must lie in (0, 1).
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7, a SHOULD): on a loss below the previous W_max, lower
    /// W_max to cwnd·(1 + β)/2 to release bandwidth to newer flows. The RFC says to disable it
    /// when a single CUBIC flow has the path to itself.
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 §4.3, a SHOULD): grow at least as fast as the
    /// AIMD(α_cubic, β) estimate W_est. Disabling it departs from the RFC; it is meant for
    /// experiments that isolate the cubic curve.
    pub reno_friendly: bool,
    /// Least growth per RTT, as a fraction of cwnd, while W_max is unknown — before the first
    /// congestion event (a slow start left by HyStart) and after a timeout. Linux's
    /// `tcp_cubic.c` caps its ACK counter at 20 while `last_max_cwnd` is 0 (5 % per RTT), as
    /// ns-3's `TcpCubic` does with `CntClamp = 20`; RFC 9438 §4.10 has no such floor (0), so a
    /// flow HyStart stopped far below the path's capacity climbs only along C·t³. In [0, 1].
    pub unknown_wmax_growth: f64,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            unknown_wmax_growth: 0.0,
        }
    }
}

impl CubicConfig {
    /// Checks each parameter against its valid range; the error is one line naming the field.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.c.is_finite() && self.c > 0.0) {
            return Err(format!(
                "cubic c = {} is out of range: must be finite and > 0 (RFC 9438 default 0.4)",
                self.c
            ));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(format!(
                "cubic beta = {} is out of range: must be in (0, 1) (RFC 9438 default 0.7)",
                self.beta
            ));
        }
        if !(0.0..=1.0).contains(&self.unknown_wmax_growth) {
            return Err(format!(
                "cubic unknown_wmax_growth = {} is out of range: must be in [0, 1] (Linux 0.05)",
                self.unknown_wmax_growth
            ));
        }
        Ok(())
    }
}

/// State of one congestion-avoidance epoch (§4.2).
#[derive(Clone, Copy, Debug)]
struct Epoch {
    /// t_epoch, moved forward by every interval in which the flow was not cwnd-limited, so that
    /// `now − start` is the t of Eq. 1.
    start: SimTime,
    /// K of Eq. 2, seconds.
    k_secs: f64,
    /// C of Eq. 1 and 2 for this epoch, segments/s³: `config.c`, times `mpcubic`'s linking
    /// factor when the epoch started.
    c: f64,
    /// W_est of Eq. 4, segments.
    w_est_segments: f64,
}

/// CUBIC (RFC 9438). See the module header for the model, the epoch semantics and deviations.
#[derive(Clone, Debug)]
pub struct Cubic {
    config: CubicConfig,
    /// α_cubic of §4.3 for `config.beta`, segments per RTT.
    alpha_cubic: f64,
    /// Sender maximum segment size (SMSS), bytes.
    mss_bytes: u64,
    /// Congestion window, bytes.
    cwnd_bytes: u64,
    /// Growth earned but not yet applied to `cwnd_bytes`, bytes, in [0, 1).
    cwnd_frac_bytes: f64,
    /// Slow-start threshold, bytes; `u64::MAX` until the first congestion event.
    ssthresh_bytes: u64,
    /// W_max, segments; 0 when unknown (before the first loss, and after a timeout until the
    /// next epoch sets it to cwnd_epoch, §4.8).
    w_max_segments: f64,
    /// cwnd_prior of §4.1.2: cwnd when ssthresh was last set, segments.
    cwnd_prior_segments: f64,
    /// The current congestion-avoidance epoch; `None` until the next one starts.
    epoch: Option<Epoch>,
    /// Time of the latest `on_ack`, to measure intervals that were not cwnd-limited.
    last_ack_at: SimTime,
    /// HyStart, if on: leaves slow start before the first loss (module `hystart`).
    hystart: Option<Box<HyStart>>,
    /// No congestion event since the start or the last timeout: W_max is unknown.
    w_max_unknown: bool,
    /// `mpcubic`'s linking factor s in (0, 1]; 1 for CUBIC. It multiplies C for the epochs that
    /// start while it holds, and every growth of W_est and of the unknown-W_max floor.
    increase_scale: f64,
}

impl Cubic {
    /// A controller in slow start with `initial_window_bytes`. `config` must pass
    /// [`CubicConfig::validate`].
    pub fn new(
        mss: u32,
        initial_window_bytes: u64,
        config: &CubicConfig,
        hystart: Option<HyStartKind>,
    ) -> Self {
        debug_assert!(mss > 0, "zero MSS");
        debug_assert!(config.validate().is_ok(), "{:?}", config.validate());
        Cubic {
            config: config.clone(),
            alpha_cubic: 3.0 * (1.0 - config.beta) / (1.0 + config.beta),
            mss_bytes: u64::from(mss),
            cwnd_bytes: initial_window_bytes,
            cwnd_frac_bytes: 0.0,
            ssthresh_bytes: u64::MAX,
            w_max_segments: 0.0,
            cwnd_prior_segments: 0.0,
            epoch: None,
            last_ack_at: SimTime::ZERO,
            hystart: hystart.map(|kind| Box::new(HyStart::new(kind))),
            w_max_unknown: true,
            increase_scale: 1.0,
        }
    }

    /// Sets the linking factor of `mpcubic` (see `increase_scale`).
    pub(super) fn set_increase_scale(&mut self, scale: f64) {
        debug_assert!(scale > 0.0 && scale <= 1.0, "increase scale {scale}");
        self.increase_scale = scale;
    }

    fn segments(&self, bytes: u64) -> f64 {
        bytes as f64 / self.mss_bytes as f64
    }

    /// W_cubic(t) of Eq. 1 for `epoch`, segments, for t in seconds since the epoch start.
    fn w_cubic(&self, epoch: &Epoch, t_secs: f64) -> f64 {
        let dt = t_secs - epoch.k_secs;
        epoch.c * dt * dt * dt + self.w_max_segments
    }

    /// Starts an epoch at `now` with the current cwnd as cwnd_epoch (§4.2; §4.8 after a timeout).
    fn start_epoch(&mut self, now: SimTime) -> Epoch {
        let cwnd_epoch_segments = self.segments(self.cwnd_bytes);
        // §4.8: after a timeout W_max is unknown (0) and is set to cwnd_epoch, giving K = 0.
        self.w_max_segments = self.w_max_segments.max(cwnd_epoch_segments);
        let c = self.config.c * self.increase_scale;
        Epoch {
            start: now,
            // Eq. 2.
            k_secs: libm::cbrt((self.w_max_segments - cwnd_epoch_segments) / c),
            c,
            // §4.3: W_est = cwnd_epoch at the start of the stage.
            w_est_segments: cwnd_epoch_segments,
        }
    }

    /// Congestion avoidance for `acked_bytes` newly acknowledged by a cwnd-limited ACK.
    fn congestion_avoidance(&mut self, now: SimTime, acked_bytes: u64, rtt: Duration) {
        let mut epoch = match self.epoch {
            Some(epoch) => epoch,
            None => self.start_epoch(now),
        };
        let t_secs = (now - epoch.start).as_secs_f64();
        let cwnd_segments = self.segments(self.cwnd_bytes);
        let acked_fraction = acked_bytes as f64 / self.cwnd_bytes as f64; // segments_acked / cwnd

        // §4.2 target, then §4.4/§4.5: cwnd += (target − cwnd)/cwnd per segment acked.
        let mut target_segments = self
            .w_cubic(&epoch, t_secs + rtt.as_secs_f64())
            .clamp(cwnd_segments, MAX_TARGET_RATIO * cwnd_segments);
        if self.w_max_unknown {
            let growth = self.config.unknown_wmax_growth * self.increase_scale;
            target_segments = target_segments.max(cwnd_segments * (1.0 + growth));
        }
        let mut next_cwnd_bytes = self.cwnd_bytes as f64
            + self.cwnd_frac_bytes
            + (target_segments - cwnd_segments) * self.mss_bytes as f64 * acked_fraction;

        if self.config.reno_friendly {
            // Eq. 4, with α_cubic raised to 1 once W_est has reached cwnd_prior (§4.3).
            let alpha = if epoch.w_est_segments >= self.cwnd_prior_segments { 1.0 } else { self.alpha_cubic };
            epoch.w_est_segments += alpha * acked_fraction * self.increase_scale;
            // §4.3: in the Reno-friendly region (W_cubic(t) < W_est) cwnd is set to W_est, but
            // never below what the cubic rule gives on this ACK ("chooses the higher of the
            // two values", §4.2): W_cubic(t) lags the cubic target by one RTT.
            if self.w_cubic(&epoch, t_secs) < epoch.w_est_segments {
                let w_est_bytes = epoch.w_est_segments * self.mss_bytes as f64;
                next_cwnd_bytes = next_cwnd_bytes.max(w_est_bytes);
            }
        }

        let whole = libm::floor(next_cwnd_bytes);
        self.cwnd_bytes = whole as u64;
        self.cwnd_frac_bytes = next_cwnd_bytes - whole;
        self.epoch = Some(epoch);
    }

    /// §4.6 ssthresh: β·cwnd, at least 2 segments; also records cwnd_prior.
    fn reduce_ssthresh(&mut self) {
        self.cwnd_prior_segments = self.segments(self.cwnd_bytes);
        let reduced_bytes = (self.cwnd_bytes as f64 * self.config.beta) as u64;
        self.ssthresh_bytes = reduced_bytes.max(MIN_SSTHRESH_SEGMENTS * self.mss_bytes);
        self.cwnd_frac_bytes = 0.0;
        self.epoch = None;
    }
}

impl CongestionControl for Cubic {
    fn cwnd(&self) -> u64 {
        self.cwnd_bytes
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh_bytes
    }

    fn on_ack(&mut self, ack: &AckSample) {
        if self.cwnd_bytes < self.ssthresh_bytes {
            if let Some(hystart) = &mut self.hystart {
                let seen = HyStartAck {
                    now: ack.now,
                    rtt: ack.rtt,
                    srtt: ack.srtt,
                    una: ack.una,
                    nxt: ack.nxt,
                    cwnd: self.cwnd_bytes,
                    mss: self.mss_bytes,
                };
                if hystart.on_ack(&seen) == Verdict::Exit {
                    self.ssthresh_bytes = self.cwnd_bytes;
                }
            }
        }
        let since_last_ack = ack.now.saturating_since(self.last_ack_at);
        self.last_ack_at = ack.now;
        if !ack.cwnd_limited {
            // §5.8: no growth, and the interval does not count in t (§4.2): shift t_epoch, as
            // Linux does after an idle period.
            if let Some(epoch) = &mut self.epoch {
                epoch.start += since_last_ack;
            }
            return;
        }
        let mut acked_bytes = ack.acked_bytes;
        if self.cwnd_bytes < self.ssthresh_bytes {
            let (cwnd_bytes, leftover_bytes) =
                slow_start(self.cwnd_bytes, self.ssthresh_bytes, acked_bytes, self.mss_bytes);
            // RFC 9406 CSS: a quarter of slow start's growth.
            let divisor = self.hystart.as_ref().map_or(1, |h| h.growth_divisor());
            self.cwnd_bytes += (cwnd_bytes - self.cwnd_bytes) / divisor;
            acked_bytes = leftover_bytes;
        }
        if acked_bytes > 0 {
            let rtt = ack.srtt.or(ack.min_rtt).unwrap_or(FALLBACK_RTT);
            self.congestion_avoidance(ack.now, acked_bytes, rtt);
        }
    }

    fn on_congestion_event(&mut self, _now: SimTime, _in_flight: u64) {
        if let Some(hystart) = &mut self.hystart {
            hystart.on_loss();
        }
        // §4.7 fast convergence, before the reduction.
        let cwnd_segments = self.segments(self.cwnd_bytes);
        self.w_max_segments = if self.config.fast_convergence && cwnd_segments < self.w_max_segments {
            cwnd_segments * (1.0 + self.config.beta) / 2.0
        } else {
            cwnd_segments
        };
        // §4.6: cwnd = ssthresh (the 2-segment floor applies to both).
        self.w_max_unknown = false;
        self.reduce_ssthresh();
        self.cwnd_bytes = self.ssthresh_bytes;
    }

    fn on_rto(&mut self, _now: SimTime, _in_flight: u64, already_reduced: bool) {
        if let Some(hystart) = &mut self.hystart {
            hystart.on_timeout();
        }
        // §4.8: ssthresh as in §4.6, cwnd as Reno (RFC 5681 loss window of one segment); W_max
        // is forgotten so that the next epoch starts with K = 0 and W_max = cwnd_epoch.
        if !already_reduced {
            self.reduce_ssthresh();
        }
        self.cwnd_bytes = self.mss_bytes;
        self.w_max_segments = 0.0;
        self.w_max_unknown = true;
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        // cwnd was set to ssthresh on entry (§4.6); the next epoch starts at the next ACK.
    }

    fn set_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd_bytes = cwnd;
        self.cwnd_frac_bytes = 0.0;
        self.ssthresh_bytes = ssthresh;
    }
}

#[cfg(test)]
mod tests {
    use super::super::newreno::ack_clock::AckClock;
    use super::*;

    const MSS: u64 = 1000;

    fn cubic(initial_segments: u64, config: &CubicConfig) -> Cubic {
        Cubic::new(MSS as u32, initial_segments * MSS, config, None)
    }

    fn segments(bytes: u64) -> f64 {
        bytes as f64 / MSS as f64
    }

    fn no_reno() -> CubicConfig {
        CubicConfig { reno_friendly: false, ..CubicConfig::default() }
    }

    /// Eq. 1 evaluated independently of the implementation.
    fn eq1(config: &CubicConfig, k_secs: f64, w_max_segments: f64, t_secs: f64) -> f64 {
        config.c * (t_secs - k_secs).powi(3) + w_max_segments
    }

    /// A loss at `w_max_segments` segments at time `loss_at`, then one RTT of fast recovery
    /// (no `on_ack`), as the sender would do. Returns the controller and an ACK clock positioned
    /// at the recovery exit; the next ACK starts the congestion-avoidance epoch.
    fn after_loss(
        w_max_segments: u64,
        config: &CubicConfig,
        rtt: Duration,
        segments_per_ack: u64,
    ) -> (Cubic, AckClock) {
        let loss_at = SimTime::ZERO + Duration::from_secs(1);
        let mut cc = cubic(w_max_segments, config);
        cc.on_congestion_event(loss_at, w_max_segments * MSS);
        let mut clock = AckClock::new(loss_at, rtt, MSS, segments_per_ack);
        clock.wait(rtt);
        cc.on_recovery_exit(clock.now);
        (cc, clock)
    }

    /// Drives the ACK clock from `clock` and returns, for each `sample_secs[i]`, the epoch-relative
    /// time and cwnd (segments) after the last ACK at or before t_epoch + `sample_secs[i]`, where
    /// t_epoch is the time of the first ACK in congestion avoidance.
    fn sample_after_epoch(
        cc: &mut Cubic,
        clock: &mut AckClock,
        epoch_start: Option<SimTime>,
        sample_secs: &[f64],
    ) -> Vec<(f64, f64)> {
        let mut epoch_start = epoch_start;
        let mut samples = vec![(f64::NAN, f64::NAN); sample_secs.len()];
        let last = *sample_secs.last().expect("no samples");
        loop {
            clock.round_observed(cc, |now, cc| {
                if cc.cwnd() >= cc.ssthresh() {
                    let start = *epoch_start.get_or_insert(now);
                    let t = (now - start).as_secs_f64();
                    for (sample, &at) in samples.iter_mut().zip(sample_secs) {
                        if t <= at {
                            *sample = (t, segments(cc.cwnd()));
                        }
                    }
                }
            });
            if let Some(start) = epoch_start {
                if (clock.now - start).as_secs_f64() > last {
                    return samples;
                }
            }
        }
    }

    /// After a loss at W_max = 1000 segments, cwnd follows Eq. 1 to within one
    /// segment at t = 0, K/2, K and 2K, where t counts from the first ACK of congestion avoidance
    /// (the end of fast recovery, one RTT after the loss). The ACK clock applies each per-ACK
    /// increase one RTT after the window it acknowledges, and the target W_cubic(t + RTT) looks
    /// one RTT ahead, so cwnd(t) tracks W_cubic(t) itself (measured: within 0.01 segment).
    /// Without the look-ahead, or with t counted from the loss, cwnd is 2 segments off at 2K
    /// with a 20 ms RTT (W_cubic′(2K) = 3·C·K² ≈ 99 segments/s, i.e. 2 segments per RTT).
    fn assert_follows_eq1(config: &CubicConfig, rtt: Duration, segments_per_ack: u64) -> Vec<f64> {
        const W_MAX: f64 = 1000.0;
        let (mut cc, mut clock) = after_loss(W_MAX as u64, config, rtt, segments_per_ack);
        assert_eq!(cc.cwnd(), (0.7 * W_MAX) as u64 * MSS);
        // Eq. 2 with cwnd_epoch = β·W_max.
        let k = libm::cbrt(W_MAX * (1.0 - config.beta) / config.c);
        let sample_secs = [0.0, k / 2.0, k, 2.0 * k];
        let samples = sample_after_epoch(&mut cc, &mut clock, None, &sample_secs);
        for (&at, &(t, cwnd)) in sample_secs.iter().zip(&samples) {
            assert!(at - t < 1e-3, "sample at {t} s for {at} s");
            let expected = eq1(config, k, W_MAX, t);
            assert!(
                (cwnd - expected).abs() <= 1.0,
                "t = {t:.3} s (K = {k:.3} s): cwnd {cwnd:.2} vs W_cubic {expected:.2} segments"
            );
        }
        samples.iter().map(|&(_, cwnd)| cwnd).collect()
    }

    // ---- slow start ---------------------------------------------------------------------------

    #[test]
    fn test_slow_start_ack_doubles_per_rtt() {
        let mut cc = cubic(10, &CubicConfig::default());
        let mut clock = AckClock::new(SimTime::ZERO, Duration::from_millis(20), MSS, 1);
        clock.rounds(&mut cc, 4);
        assert_eq!(cc.cwnd(), 160 * MSS);
        assert_eq!(cc.ssthresh(), u64::MAX);
        assert!(cc.epoch.is_none());
    }

    #[test]
    fn test_slow_start_app_limited_no_growth() {
        let mut cc = cubic(10, &CubicConfig::default());
        let mut clock = AckClock::new(SimTime::ZERO, Duration::from_millis(20), MSS, 1);
        clock.cwnd_limited = false;
        clock.rounds(&mut cc, 4);
        assert_eq!(cc.cwnd(), 10 * MSS);
    }

    // ---- congestion avoidance: the cubic curve ------------------------------------------------

    #[test]
    fn test_congestion_avoidance_ack_follows_cubic_curve() {
        assert_follows_eq1(&no_reno(), Duration::from_millis(20), 1);
    }

    #[test]
    fn test_congestion_avoidance_delayed_ack_follows_cubic_curve() {
        assert_follows_eq1(&no_reno(), Duration::from_millis(20), 2);
    }

    #[test]
    fn test_congestion_avoidance_ack_follows_cubic_curve_reno_region_idle() {
        // At 100 ms, W_est grows α_cubic ≈ 0.53 segments per RTT: 700 + 0.53·2K/RTT ≈ 796
        // segments at 2K, below W_cubic throughout, so the default configuration must give
        // exactly the trajectory of the pure cubic curve.
        let rtt = Duration::from_millis(100);
        let with_reno = assert_follows_eq1(&CubicConfig::default(), rtt, 1);
        let without = assert_follows_eq1(&no_reno(), rtt, 1);
        assert_eq!(with_reno, without);
    }

    #[test]
    fn test_congestion_avoidance_ack_target_capped_at_one_and_a_half_cwnd() {
        // After a timeout, K = 0 and W_cubic(t + RTT) = C·(t + RTT)³ + cwnd_epoch; with a 3 s RTT
        // that is 10.8 segments above cwnd_epoch = 7, beyond the §4.2 cap of 1.5·cwnd.
        let rtt = Duration::from_secs(3);
        let mut cc = cubic(10, &no_reno());
        cc.on_rto(SimTime::ZERO, 10 * MSS, false);
        let mut clock = AckClock::new(SimTime::ZERO, rtt, MSS, 1);
        clock.rounds(&mut cc, 3); // 1 → 2 → 4 → 7 (ssthresh), the last ACK in CA
        assert_eq!(cc.ssthresh(), 7 * MSS);
        assert!(cc.epoch.is_some());
        let before = cc.cwnd();
        clock.rounds(&mut cc, 1);
        // Each ACK adds (1.5·cwnd − cwnd)/cwnd = 0.5 segment per segment acknowledged.
        assert!(cc.cwnd().abs_diff(before * 3 / 2) <= 1, "cwnd {}", cc.cwnd());
    }

    #[test]
    fn test_congestion_avoidance_ack_rtt_falls_back_to_min_rtt_then_constant() {
        let (base, clock) = after_loss(100, &no_reno(), Duration::from_millis(40), 1);
        let now = clock.now + Duration::from_secs(2);
        let grow = |srtt: Option<Duration>, min_rtt: Option<Duration>| {
            let mut cc = base.clone();
            let sample = |now| AckSample {
                now,
                acked_bytes: MSS,
                srtt,
                min_rtt,
                cwnd_limited: true,
                ..AckSample::default()
            };
            cc.on_ack(&sample(clock.now)); // starts the epoch
            cc.on_ack(&sample(now));
            cc.cwnd()
        };
        let ms = Duration::from_millis;
        assert_eq!(grow(None, Some(ms(40))), grow(Some(ms(40)), Some(ms(1))));
        assert_eq!(grow(None, None), grow(Some(ms(100)), None));
        assert!(grow(Some(ms(40)), None) < grow(Some(ms(100)), None));
    }

    #[test]
    fn test_congestion_avoidance_app_limited_no_growth_and_not_in_t() {
        // Reference: 40 cwnd-limited RTTs after a loss. Test: 20, then an idle second and 30 RTTs
        // of application-limited ACKs, then 20 more. Shifting t_epoch by the time not
        // cwnd-limited makes the two trajectories identical; counting it would put t 4 s ahead.
        let rtt = Duration::from_millis(20);
        let (mut reference, mut ref_clock) = after_loss(100, &CubicConfig::default(), rtt, 1);
        ref_clock.rounds(&mut reference, 40);

        let (mut cc, mut clock) = after_loss(100, &CubicConfig::default(), rtt, 1);
        clock.rounds(&mut cc, 20);
        let cwnd_before = cc.cwnd();
        clock.wait(Duration::from_secs(1));
        clock.cwnd_limited = false;
        clock.rounds(&mut cc, 30);
        assert_eq!(cc.cwnd(), cwnd_before);
        clock.cwnd_limited = true;
        clock.rounds(&mut cc, 20);
        assert_eq!(cc.cwnd(), reference.cwnd());
        assert!(cc.cwnd() > cwnd_before);
    }

    // ---- congestion avoidance: Reno-friendly region -------------------------------------------

    #[test]
    fn test_congestion_avoidance_ack_reno_region_follows_w_est() {
        // W_max = 20 segments, RTT 10 ms: K = ∛(20·0.3/0.4) ≈ 2.47 s, so W_cubic stays near 14–16
        // segments for the first 0.3 s while the AIMD estimate grows α_cubic = 3·0.3/1.7 ≈ 0.53
        // segments per RTT, then 1 per RTT once W_est reaches cwnd_prior = 20 (§4.3).
        let config = CubicConfig::default();
        let alpha = 3.0 * (1.0 - config.beta) / (1.0 + config.beta);
        let rtt = Duration::from_millis(10);
        let (mut cc, mut clock) = after_loss(20, &config, rtt, 1);
        assert_eq!(cc.cwnd(), 14 * MSS);
        let mut per_rtt = Vec::new();
        for _ in 0..30 {
            let before = segments(cc.cwnd());
            clock.rounds(&mut cc, 1);
            per_rtt.push(segments(cc.cwnd()) - before);
        }
        // A round acknowledges the window it started with while cwnd grows, so the gain per RTT
        // is slightly below α: α·cwnd_start/cwnd_end ≥ 0.95·α at these windows.
        for (round, &gain) in per_rtt.iter().enumerate().take(10) {
            assert!((0.95 * alpha..=alpha).contains(&gain), "round {round}: +{gain:.3}");
        }
        for (round, &gain) in per_rtt.iter().enumerate().skip(13) {
            assert!((0.95..=1.0).contains(&gain), "round {round}: +{gain:.3}");
        }
        let epoch = cc.epoch.expect("in congestion avoidance");
        let t = (clock.now - epoch.start).as_secs_f64();
        let w_cubic = eq1(&config, epoch.k_secs, 20.0, t);
        assert!(segments(cc.cwnd()) > w_cubic + 10.0, "cwnd {} vs {w_cubic}", cc.cwnd());
        assert!((segments(cc.cwnd()) - epoch.w_est_segments).abs() < 1e-3);

        // Without the region, the same flow follows the cubic curve.
        let (mut pure, mut clock) = after_loss(20, &no_reno(), rtt, 1);
        clock.rounds(&mut pure, 30);
        assert!((segments(pure.cwnd()) - w_cubic).abs() <= 1.0, "cwnd {}", pure.cwnd());
    }

    // ---- congestion events --------------------------------------------------------------------

    #[test]
    fn test_congestion_avoidance_loss_reduces_to_beta_cwnd() {
        let (cc, _) = after_loss(100, &CubicConfig::default(), Duration::from_millis(20), 1);
        assert_eq!(cc.w_max_segments, 100.0);
        assert_eq!(cc.ssthresh(), 70 * MSS);
        assert_eq!(cc.cwnd(), 70 * MSS);
    }

    #[test]
    fn test_recovery_rto_keeps_the_recovery_ssthresh() {
        let (mut cc, clock) = after_loss(100, &CubicConfig::default(), Duration::from_millis(20), 1);
        cc.on_rto(clock.now, 400 * MSS, true);
        assert_eq!(cc.ssthresh(), 70 * MSS, "not reduced a second time for one congestion event");
        assert_eq!(cc.cwnd(), MSS);
    }

    #[test]
    fn test_congestion_avoidance_loss_floor_two_mss() {
        let (cc, _) = after_loss(2, &CubicConfig::default(), Duration::from_millis(20), 1);
        assert_eq!(cc.ssthresh(), 2 * MSS);
        assert_eq!(cc.cwnd(), 2 * MSS);
    }

    #[test]
    fn test_congestion_avoidance_second_loss_fast_convergence() {
        let rtt = Duration::from_millis(20);
        for fast_convergence in [true, false] {
            let config = CubicConfig { fast_convergence, ..CubicConfig::default() };
            let (mut cc, mut clock) = after_loss(100, &config, rtt, 1);
            clock.rounds(&mut cc, 10);
            let cwnd = segments(cc.cwnd());
            assert!((70.0..100.0).contains(&cwnd), "cwnd {cwnd}");
            cc.on_congestion_event(clock.now, cc.cwnd());
            let w_max = if fast_convergence { cwnd * (1.0 + 0.7) / 2.0 } else { cwnd };
            assert!((cc.w_max_segments - w_max).abs() < 1e-9, "W_max {}", cc.w_max_segments);
            assert_eq!(cc.cwnd(), (cwnd * MSS as f64 * 0.7) as u64);

            // The next epoch's K uses the reduced W_max (Eq. 2).
            clock.wait(rtt);
            cc.on_recovery_exit(clock.now);
            clock.rounds(&mut cc, 1);
            let k = libm::cbrt((w_max - 0.7 * cwnd) / 0.4);
            let epoch = cc.epoch.expect("in congestion avoidance");
            assert!((epoch.k_secs - k).abs() < 1e-3, "K {} vs {k}", epoch.k_secs);
        }
    }

    #[test]
    fn test_congestion_avoidance_loss_above_w_max_remembers_cwnd() {
        let config = CubicConfig::default();
        let (mut cc, mut clock) = after_loss(20, &config, Duration::from_millis(10), 1);
        clock.rounds(&mut cc, 30); // Reno-friendly growth to ~39 segments
        let cwnd = segments(cc.cwnd());
        assert!(cwnd > 20.0);
        cc.on_congestion_event(clock.now, cc.cwnd());
        assert_eq!(cc.w_max_segments, cwnd);
    }

    // ---- retransmission timeout ---------------------------------------------------------------

    #[test]
    fn test_congestion_avoidance_rto_one_mss_then_cubic_from_cwnd_epoch() {
        let config = no_reno();
        let rtt = Duration::from_millis(20);
        let (mut cc, mut clock) = after_loss(143, &config, rtt, 1);
        clock.rounds(&mut cc, 50);
        let cwnd_before = cc.cwnd();
        // ssthresh uses β·cwnd, whatever the flight size.
        cc.on_rto(clock.now, cwnd_before / 2, false);
        assert_eq!(cc.cwnd(), MSS);
        let ssthresh = (cwnd_before as f64 * 0.7) as u64;
        assert_eq!(cc.ssthresh(), ssthresh);

        // Slow start doubles up to ssthresh; then §4.8: K = 0, W_max = cwnd_epoch = ssthresh,
        // so cwnd(t) = C·t³ + ssthresh.
        clock.wait(Duration::from_secs(1));
        assert!((64 * MSS..128 * MSS).contains(&ssthresh), "ssthresh {ssthresh}");
        clock.rounds(&mut cc, 7); // 1 → 64 segments, then ssthresh within the 7th RTT
        assert!(cc.cwnd() >= ssthresh);
        let epoch = cc.epoch.expect("in congestion avoidance");
        assert_eq!(epoch.k_secs, 0.0);
        assert_eq!(cc.w_max_segments, segments(ssthresh));
        let sample_secs = [1.0, 2.0, 4.0];
        let samples = sample_after_epoch(&mut cc, &mut clock, Some(epoch.start), &sample_secs);
        for &(t, cwnd) in &samples {
            let expected = eq1(&config, 0.0, segments(ssthresh), t);
            assert!((cwnd - expected).abs() <= 1.0, "t = {t}: cwnd {cwnd} vs {expected}");
        }
    }

    // ---- configuration ------------------------------------------------------------------------

    #[test]
    fn test_config_validate_rejects_out_of_range() {
        assert_eq!(CubicConfig::default().validate(), Ok(()));
        for c in [0.0, -0.4, f64::INFINITY, f64::NAN] {
            let err = CubicConfig { c, ..CubicConfig::default() }.validate().unwrap_err();
            assert!(err.contains("cubic c") && err.contains("> 0"), "{err}");
            assert!(!err.contains('\n'));
        }
        for beta in [0.0, 1.0, -0.5, 1.5, f64::NAN] {
            let err = CubicConfig { beta, ..CubicConfig::default() }.validate().unwrap_err();
            assert!(err.contains("cubic beta") && err.contains("(0, 1)"), "{err}");
        }
    }

    #[test]
    fn test_config_serde_defaults_and_unknown_fields() {
        let config: CubicConfig = serde_json::from_str(r#"{"beta": 0.8}"#).unwrap();
        assert_eq!(config, CubicConfig { beta: 0.8, ..CubicConfig::default() });
        assert!(serde_json::from_str::<CubicConfig>(r#"{"gamma": 1}"#).is_err());
    }

    #[test]
    fn test_linux_floor_of_5_percent_per_rtt_while_w_max_is_unknown() {
        // After a timeout W_max is unknown: with the floor, congestion avoidance from ssthresh
        // grows at least 5 % per RTT (Linux cnt ≤ 20); without it (RFC 9438) it follows C·t³
        // from K = 0, which at a 10 ms RTT adds well under a segment per round at first.
        let rtt = Duration::from_millis(10);
        let grow = |floor: f64| {
            let config =
                CubicConfig { unknown_wmax_growth: floor, reno_friendly: false, ..CubicConfig::default() };
            let mut cc = cubic(200, &config);
            cc.on_rto(SimTime::ZERO, 200 * MSS, false);
            let mut clock = AckClock::new(SimTime::ZERO, rtt, MSS, 1);
            while cc.cwnd() < cc.ssthresh() {
                clock.rounds(&mut cc, 1);
            }
            let start = segments(cc.cwnd());
            clock.rounds(&mut cc, 10);
            segments(cc.cwnd()) / start
        };
        let linux = grow(0.05);
        assert!(linux >= 1.05f64.powi(10) * 0.98, "10 rounds at ≥ 5 %: ×{linux:.3}");
        let rfc = grow(0.0);
        assert!(rfc < 1.02, "RFC 9438's curve from K = 0: ×{rfc:.3}");
        // A congestion event makes W_max known: the floor no longer applies.
        let config =
            CubicConfig { unknown_wmax_growth: 0.05, reno_friendly: false, ..CubicConfig::default() };
        let mut cc = cubic(200, &config);
        cc.on_congestion_event(SimTime::ZERO, 200 * MSS);
        let mut clock = AckClock::new(SimTime::ZERO, rtt, MSS, 1);
        let start = segments(cc.cwnd());
        clock.rounds(&mut cc, 10);
        assert!(
            segments(cc.cwnd()) / start < 1.05,
            "concave region below W_max: ×{:.3}",
            segments(cc.cwnd()) / start
        );
    }
}
