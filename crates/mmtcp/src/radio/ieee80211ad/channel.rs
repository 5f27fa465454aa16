//! The SINR process of `kind = "ieee80211ad"`: the SNR of the best TX/RX beam pair (Drago et al.
//! §III, §IV: at each time the best of the 7 × 7 pairs is used), SNR = P − P_noise with
//! P_noise = −174 + 10·log10(B) dBm over the link's bandwidth (eq. 1; −87.01 dBm at 500 MHz) plus
//! an optional noise figure. The powers come from a trace (`beam_trace.rs`; the SNR changes at
//! the trace's times) or from the synthetic generator of Drago et al.'s two scenarios
//! (`synthetic.rs`; one sample every `interval`, each pair's power varied by an independent
//! Gaussian `jitter_db` drawn from the link's random stream).

use super::beam_pairs::pair_angles;
use super::beam_trace::{parse_beam_trace, TraceStep};
use super::config::{BeamSource, Ieee80211adConfig};
use super::power::thermal_noise_dbm;
use super::synthetic::SyntheticChannel;
use crate::error::InputError;
use crate::radio::{RadioContext, SinrProcess, SinrStep};
use crate::sim::{Duration, Rng, SimTime};
use crate::trace_file::read_trace;

#[derive(Clone, Debug)]
enum Source {
    Trace { steps: Vec<TraceStep>, period: Option<Duration>, cycle_start: SimTime },
    Synthetic(SyntheticChannel),
}

/// The SINR process of an [`Ieee80211adConfig`]: the SNR of the best beam pair.
#[derive(Clone, Debug)]
pub struct Ieee80211adChannel {
    noise_dbm: f64,
    source: Source,
    /// Trace: the step that begins at the next call. Synthetic: the next sample's index.
    next: u64,
    best_pair: Option<(f64, f64)>,
}

impl Ieee80211adChannel {
    /// Validates `config`, reads a trace (relative to `ctx.channel.base_dir`) or lays out the
    /// synthetic room; noise is computed over `ctx.bandwidth_hz`.
    pub fn new(config: &Ieee80211adConfig, ctx: &RadioContext) -> Result<Ieee80211adChannel, InputError> {
        let channel = &ctx.channel;
        if !(config.noise_figure_db.is_finite() && config.noise_figure_db >= 0.0) {
            return Err(channel.error("noise_figure_db", "must be a number of dB ≥ 0"));
        }
        if !(ctx.bandwidth_hz.is_finite() && ctx.bandwidth_hz > 0.0) {
            let message = format!("the link's bandwidth ({} Hz) must be > 0", ctx.bandwidth_hz);
            return Err(InputError::new(channel.scenario_file, channel.field, message));
        }
        let source = match &config.source {
            BeamSource::Trace(trace) => {
                let (text, errors) = read_trace(channel, "source.file", &trace.file)?;
                let (steps, period) = parse_beam_trace(&text, trace.repeat, &errors)?;
                let period = period.filter(|_| steps.len() > 1);
                Source::Trace { steps, period, cycle_start: SimTime::ZERO }
            }
            BeamSource::Synthetic(synthetic) => Source::Synthetic(SyntheticChannel::new(synthetic, channel)?),
        };
        Ok(Ieee80211adChannel {
            noise_dbm: thermal_noise_dbm(ctx.bandwidth_hz) + config.noise_figure_db,
            source,
            next: 0,
            best_pair: None,
        })
    }

    /// Noise power over the link's bandwidth, dBm.
    pub fn noise_dbm(&self) -> f64 {
        self.noise_dbm
    }

    /// The (TX, RX) angles of the pair chosen at the last step; `None` before the first step
    /// or when nothing is received.
    pub fn best_pair(&self) -> Option<(f64, f64)> {
        self.best_pair
    }
}

impl SinrProcess for Ieee80211adChannel {
    fn step(&mut self, now: SimTime, rng: &mut Rng) -> SinrStep {
        match &mut self.source {
            Source::Synthetic(synthetic) => {
                let k = self.next;
                let mut powers = synthetic.powers_dbm(k);
                if synthetic.jitter_db > 0.0 {
                    for p in powers.iter_mut() {
                        *p += synthetic.jitter_db * rng.standard_normal();
                    }
                }
                let (best, best_dbm) = powers
                    .iter()
                    .enumerate()
                    .fold((0, f64::NEG_INFINITY), |acc, (i, &p)| if p > acc.1 { (i, p) } else { acc });
                self.best_pair = Some(pair_angles(best));
                self.next = k + 1;
                let next_change = SimTime::ZERO + synthetic.interval().saturating_mul(k + 1);
                debug_assert!(next_change > now, "synthetic 802.11ad channel stepped off its schedule");
                SinrStep { sinr_db: best_dbm - self.noise_dbm, next_change: Some(next_change) }
            }
            Source::Trace { steps, period, cycle_start } => {
                let mut next = self.next as usize;
                debug_assert_eq!(now, *cycle_start + steps[next].at, "trace stepped off its schedule");
                let current = steps[next];
                self.best_pair = current.best_pair;
                let sinr_db = current.best_dbm - self.noise_dbm;
                let next_change = loop {
                    if next + 1 < steps.len() {
                        next += 1;
                    } else if let Some(period) = *period {
                        next = 0;
                        *cycle_start += period;
                    } else {
                        break None;
                    }
                    if steps[next].best_dbm != current.best_dbm {
                        break Some(*cycle_start + steps[next].at);
                    }
                };
                self.next = next as u64;
                SinrStep { sinr_db, next_change }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::config::{Scenario, SyntheticConfig};
    use super::super::test_support::{quiet, synthetic};
    use super::*;
    use crate::radio::sinr_trace::drive;

    #[test]
    fn test_synthetic_is_deterministic_per_seed_and_periodic() {
        let run = |seed| {
            let mut channel = synthetic(SyntheticConfig::for_scenario(Scenario::B));
            drive(&mut channel, &mut Rng::for_component(seed, "link/ap-ue/channel"), 300)
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
        let mut channel = synthetic(quiet(Scenario::A));
        let n = {
            let Source::Synthetic(s) = &channel.source else { unreachable!() };
            s.samples_per_period() as usize
        };
        let steps = drive(&mut channel, &mut Rng::for_component(1, "c"), n + 1);
        assert_eq!(steps[n].1.sinr_db, steps[0].1.sinr_db);
        assert_eq!(steps[1].0, SimTime::ZERO + Duration::from_millis(10));
    }
}
