//! LOS/NLOS on-off blockage: the channel alternates between line of sight and blockage.
//!
//! ```text
//!            T_los                T_nlos
//!   LOS ───────────────► NLOS ──────────────► LOS ...
//!   r(t) = R_los                r(t) = R_nlos (0 = outage)
//! ```
//!
//! With `distribution = "fixed"` every sojourn lasts exactly its duration, so the process is
//! periodic with period T_los + T_nlos; with `"exponential"` the sojourns are independent,
//! exponentially distributed with means T_los and T_nlos (a two-state continuous-time Markov
//! chain with rates 1/T_los and 1/T_nlos, time-average rate
//! (T_los·R_los + T_nlos·R_nlos) / (T_los + T_nlos)).
//!
//! Serves Kim et al. (Kim, Ko, Kim, mmPEP): a mobile alternating between LOS and NLOS where NLOS
//! delivers nothing, with LOS = NLOS durations of 0.5–3 s (Fig. 5) and LOS 100 s against NLOS
//! 1–20 s (Fig. 6); and the abrupt LOS→NLOS transitions of Drago et al. reduced to two
//! rates. Kim et al. do not say how durations are distributed; "fixed" is the default.

use super::{ChannelProcess, ChannelStep};
use crate::error::InputContext;
use crate::error::InputError;
use crate::sim::{Duration, DurationDistribution, Rng, SimTime};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

/// Line of sight or not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    #[default]
    Los,
    Nlos,
}

impl Visibility {
    fn other(self) -> Visibility {
        match self {
            Visibility::Los => Visibility::Nlos,
            Visibility::Nlos => Visibility::Los,
        }
    }
}

/// `{ kind = "onoff", los_rate = "1Gbps", los_duration = "1s", nlos_duration = "1s" }`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnOffConfig {
    /// Rate in line of sight (required).
    pub los_rate: Rate,
    /// Rate while blocked. Default `"0bps"`: outage.
    #[serde(default)]
    pub nlos_rate: Rate,
    /// Length (or mean length) of a LOS sojourn; required, > 0.
    pub los_duration: Time,
    /// Length (or mean length) of an NLOS sojourn; required, > 0.
    pub nlos_duration: Time,
    /// `"fixed"` or `"exponential"`. Default `"fixed"`.
    #[serde(default)]
    pub distribution: DurationDistribution,
    /// State at time zero, `"los"` or `"nlos"`. Default `"los"`.
    #[serde(default)]
    pub start: Visibility,
}

/// The LOS/NLOS sojourns alone, shared by this rate channel and the radio stack's SINR on-off
/// channel (`radio::onoff`).
#[derive(Clone, Debug)]
pub struct Alternation {
    los_duration: Duration,  // sojourn, or its mean when exponential
    nlos_duration: Duration, // sojourn, or its mean when exponential
    distribution: DurationDistribution,
    state: Visibility, // state from the next call to `step` on
}

impl Alternation {
    /// Checks that both durations are positive (errors name `los_duration` / `nlos_duration`).
    pub fn new(
        (los_duration, nlos_duration): (Time, Time),
        distribution: DurationDistribution,
        start: Visibility,
        ctx: &InputContext,
    ) -> Result<Alternation, InputError> {
        for (name, duration) in [("los_duration", los_duration), ("nlos_duration", nlos_duration)] {
            if duration.0 == Duration::ZERO {
                return Err(ctx.error(name, "must be a time greater than zero, e.g. \"1s\""));
            }
        }
        Ok(Alternation {
            los_duration: los_duration.0,
            nlos_duration: nlos_duration.0,
            distribution,
            state: start,
        })
    }

    /// The state from `now` on and when it ends.
    pub fn step(&mut self, now: SimTime, rng: &mut Rng) -> (Visibility, SimTime) {
        let state = self.state;
        let mean = match state {
            Visibility::Los => self.los_duration,
            Visibility::Nlos => self.nlos_duration,
        };
        self.state = state.other();
        (state, now + self.distribution.draw(mean, rng))
    }
}

/// The process of an [`OnOffConfig`].
#[derive(Clone, Debug)]
pub struct OnOffChannel {
    los_rate_bps: u64,  // bit/s
    nlos_rate_bps: u64, // bit/s
    alternation: Alternation,
}

impl OnOffChannel {
    pub fn new(config: &OnOffConfig, ctx: &InputContext) -> Result<OnOffChannel, InputError> {
        Ok(OnOffChannel {
            los_rate_bps: config.los_rate.0,
            nlos_rate_bps: config.nlos_rate.0,
            alternation: Alternation::new(
                (config.los_duration, config.nlos_duration),
                config.distribution,
                config.start,
                ctx,
            )?,
        })
    }
}

impl ChannelProcess for OnOffChannel {
    fn step(&mut self, now: SimTime, rng: &mut Rng) -> ChannelStep {
        if self.los_rate_bps == self.nlos_rate_bps {
            // Blockage that changes nothing: a constant channel.
            return ChannelStep { rate_bps: self.los_rate_bps, next_change: None };
        }
        let (state, until) = self.alternation.step(now, rng);
        let rate_bps = match state {
            Visibility::Los => self.los_rate_bps,
            Visibility::Nlos => self.nlos_rate_bps,
        };
        ChannelStep { rate_bps, next_change: Some(until) }
    }
}

#[cfg(test)]
mod tests {
    use super::super::drive;
    use super::*;
    use std::path::Path;

    const GBPS: u64 = 1_000_000_000;

    fn config(distribution: DurationDistribution, start: Visibility) -> OnOffConfig {
        OnOffConfig {
            los_rate: Rate(GBPS),
            nlos_rate: Rate(GBPS / 10),
            los_duration: Time(Duration::from_secs(1)),
            nlos_duration: Time(Duration::from_millis(300)),
            distribution,
            start,
        }
    }

    fn ctx() -> InputContext<'static> {
        InputContext { scenario_file: "s.toml", field: "link[0].channel", base_dir: Path::new(".") }
    }

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + Duration::from_millis(ms)
    }

    #[test]
    fn test_fixed_alternates_at_exact_times() {
        let mut channel =
            OnOffChannel::new(&config(DurationDistribution::Fixed, Visibility::Los), &ctx()).unwrap();
        let steps = drive(&mut channel, &mut Rng::for_component(1, "c"), 5);
        let expect = |rate_bps, next_ms| ChannelStep { rate_bps, next_change: Some(at(next_ms)) };
        assert_eq!(
            steps,
            vec![
                (at(0), expect(GBPS, 1000)),
                (at(1000), expect(GBPS / 10, 1300)),
                (at(1300), expect(GBPS, 2300)),
                (at(2300), expect(GBPS / 10, 2600)),
                (at(2600), expect(GBPS, 3600)),
            ]
        );
    }

    #[test]
    fn test_start_nlos() {
        let mut channel =
            OnOffChannel::new(&config(DurationDistribution::Fixed, Visibility::Nlos), &ctx()).unwrap();
        let steps = drive(&mut channel, &mut Rng::for_component(1, "c"), 2);
        assert_eq!(steps[0].1, ChannelStep { rate_bps: GBPS / 10, next_change: Some(at(300)) });
        assert_eq!(steps[1].1, ChannelStep { rate_bps: GBPS, next_change: Some(at(1300)) });
    }

    #[test]
    fn test_exponential_mean_durations() {
        let cfg = config(DurationDistribution::Exponential, Visibility::Los);
        let mut channel = OnOffChannel::new(&cfg, &ctx()).unwrap();
        let steps = drive(&mut channel, &mut Rng::for_component(7, "link/x/channel"), 80_000);
        let (mut los, mut nlos) = (Vec::new(), Vec::new());
        for (now, step) in &steps {
            let sojourn = (step.next_change.unwrap() - *now).as_secs_f64();
            if step.rate_bps == GBPS {
                los.push(sojourn);
            } else {
                nlos.push(sojourn);
            }
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        assert_eq!((los.len(), nlos.len()), (40_000, 40_000), "states must alternate");
        assert!((mean(&los) - 1.0).abs() < 0.02, "LOS mean {}", mean(&los));
        assert!((mean(&nlos) - 0.3).abs() < 0.006, "NLOS mean {}", mean(&nlos));
        // Exponential, not fixed: the coefficient of variation is 1.
        let sd = (los.iter().map(|x| (x - 1.0) * (x - 1.0)).sum::<f64>() / los.len() as f64).sqrt();
        assert!((sd - 1.0).abs() < 0.03, "LOS standard deviation {sd}");
    }

    #[test]
    fn test_exponential_is_deterministic_per_seed() {
        let cfg = config(DurationDistribution::Exponential, Visibility::Los);
        let run = |seed| {
            let mut channel = OnOffChannel::new(&cfg, &ctx()).unwrap();
            drive(&mut channel, &mut Rng::for_component(seed, "link/x/channel"), 100)
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
    }

    #[test]
    fn test_equal_rates_are_constant() {
        let mut cfg = config(DurationDistribution::Fixed, Visibility::Los);
        cfg.nlos_rate = cfg.los_rate;
        let mut channel = OnOffChannel::new(&cfg, &ctx()).unwrap();
        let steps = drive(&mut channel, &mut Rng::for_component(1, "c"), 10);
        assert_eq!(steps, vec![(at(0), ChannelStep { rate_bps: GBPS, next_change: None })]);
    }

    #[test]
    fn test_zero_durations_are_rejected() {
        let mut cfg = config(DurationDistribution::Fixed, Visibility::Los);
        cfg.nlos_duration = Time(Duration::ZERO);
        let err = OnOffChannel::new(&cfg, &ctx()).unwrap_err();
        assert_eq!(err.file, "s.toml");
        assert_eq!(err.field, "link[0].channel.nlos_duration");
        assert!(err.message.contains("greater than zero"), "{}", err.message);
        cfg.los_duration = Time(Duration::ZERO);
        assert_eq!(OnOffChannel::new(&cfg, &ctx()).unwrap_err().field, "link[0].channel.los_duration");
    }
}
