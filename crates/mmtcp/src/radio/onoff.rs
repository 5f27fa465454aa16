//! LOS/NLOS on-off blockage of a radio-stack link: the SINR alternates between a line-of-sight
//! value and a blocked value (by default an outage, where nothing can be sent).
//!
//! The sojourns are those of the rate channel `kind = "onoff"` ([`crate::channel::onoff`]):
//! fixed (periodic) or exponential with the given means. It serves Kim et al. (Kim, Ko, Kim,
//! mmPEP, §IV): a mobile that alternates between LOS and NLOS, where "the base station cannot
//! transmit packets" in NLOS, with LOS = NLOS durations of 0.5–3 s (Fig. 5) and LOS 100 s with
//! NLOS 1–20 s (Fig. 6), here with the full radio stack beneath TCP (AMC, HARQ, RLC).
//!
//! With `fading`, the SINR of each `block` is the state's value plus a Nakagami-m power gain
//! drawn independently per block (the gain of [`super::cellular::nakagami_power_gain`]), so a
//! low NLOS SINR becomes a lossy link rather than a dead one: the MCS follows a SINR one
//! `amc_delay` old, and blocks fail when the gain has dropped since.

use super::cellular::nakagami_power_gain;
use super::{RadioContext, SinrProcess, SinrStep};
use crate::channel::onoff::{Alternation, Visibility};
use crate::error::InputError;
use crate::sim::{Duration, DurationDistribution, Rng, SimTime};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// `{ kind = "onoff", los_sinr_db = 25.0, los_duration = "1s", nlos_duration = "1s" }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinrOnOffConfig {
    /// SINR in line of sight, dB (required).
    pub los_sinr_db: f64,
    /// SINR while blocked, dB. Absent: outage (no signal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nlos_sinr_db: Option<f64>,
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
    /// Block fading on top of the state's SINR. Default none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fading: Option<BlockFading>,
}

/// `fading = { block = "1ms", m_los = 3.0, m_nlos = 1.0 }`: a Nakagami-m power gain per block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockFading {
    /// How long one gain lasts (required, 1 µs to 1 s).
    pub block: Time,
    /// Nakagami shape in LOS (≥ 0.5; 1 is Rayleigh). Default 3.
    #[serde(default = "default_m_los")]
    pub m_los: f64,
    /// Nakagami shape in NLOS (≥ 0.5). Default 1 (Rayleigh: no dominant path).
    #[serde(default = "default_m_nlos")]
    pub m_nlos: f64,
}

fn default_m_los() -> f64 {
    3.0
}

fn default_m_nlos() -> f64 {
    1.0
}

/// The process of a [`SinrOnOffConfig`].
#[derive(Clone, Debug)]
pub struct SinrOnOff {
    los_sinr_db: f64,
    nlos_sinr_db: f64,
    alternation: Alternation,
    fading: Option<BlockFading>,
    /// The current sojourn: its state and when it ends (None before the first step).
    sojourn: Option<(Visibility, SimTime)>,
}

impl SinrOnOff {
    pub fn new(config: &SinrOnOffConfig, ctx: &RadioContext) -> Result<SinrOnOff, InputError> {
        for (key, value) in [("los_sinr_db", Some(config.los_sinr_db)), ("nlos_sinr_db", config.nlos_sinr_db)]
        {
            if value.is_some_and(|v| !v.is_finite()) {
                return Err(ctx
                    .channel
                    .error(key, "must be a finite number of dB (leave nlos_sinr_db out for an outage)"));
            }
        }
        if let Some(f) = &config.fading {
            if f.block.0 < Duration::from_micros(1) || f.block.0 > Duration::from_secs(1) {
                return Err(ctx.channel.error("fading.block", format!("{}; allowed 1us to 1s", f.block)));
            }
            for (key, m) in [("fading.m_los", f.m_los), ("fading.m_nlos", f.m_nlos)] {
                if !(m >= 0.5 && m.is_finite()) {
                    return Err(ctx
                        .channel
                        .error(key, "must be a Nakagami shape of 0.5 or more (1 = Rayleigh)"));
                }
            }
        }
        Ok(SinrOnOff {
            los_sinr_db: config.los_sinr_db,
            nlos_sinr_db: config.nlos_sinr_db.unwrap_or(f64::NEG_INFINITY),
            alternation: Alternation::new(
                (config.los_duration, config.nlos_duration),
                config.distribution,
                config.start,
                &ctx.channel,
            )?,
            fading: config.fading.clone(),
            sojourn: None,
        })
    }
}

impl SinrProcess for SinrOnOff {
    fn step(&mut self, now: SimTime, rng: &mut Rng) -> SinrStep {
        let (state, until) = match self.sojourn {
            Some((state, until)) if now < until => (state, until),
            _ => self.alternation.step(now, rng),
        };
        self.sojourn = Some((state, until));
        let (mean_db, m) = match state {
            Visibility::Los => (self.los_sinr_db, self.fading.as_ref().map(|f| f.m_los)),
            Visibility::Nlos => (self.nlos_sinr_db, self.fading.as_ref().map(|f| f.m_nlos)),
        };
        match (&self.fading, m) {
            (Some(f), Some(m)) if mean_db.is_finite() => {
                let gain = nakagami_power_gain(m, rng);
                let sinr_db = mean_db + 10.0 * libm::log10(gain);
                SinrStep { sinr_db, next_change: Some(until.min(now + f.block.0)) }
            }
            _ => SinrStep { sinr_db: mean_db, next_change: Some(until) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::InputContext;
    use crate::sim::{drive_steps, Duration};
    use std::path::Path;

    fn ctx() -> RadioContext<'static> {
        let channel = InputContext {
            scenario_file: "s.toml",
            field: "link[0].radio.channel",
            base_dir: Path::new("."),
        };
        RadioContext { channel, bandwidth_hz: 1e9 }
    }

    fn config(nlos: Option<f64>) -> SinrOnOffConfig {
        SinrOnOffConfig {
            los_sinr_db: 25.0,
            nlos_sinr_db: nlos,
            los_duration: Time(Duration::from_millis(500)),
            nlos_duration: Time(Duration::from_millis(200)),
            distribution: DurationDistribution::Fixed,
            start: Visibility::Los,
            fading: None,
        }
    }

    #[test]
    fn test_fixed_sojourns_alternate_los_and_outage_at_exact_times() {
        let mut c = SinrOnOff::new(&config(None), &ctx()).unwrap();
        let mut rng = Rng::for_component(1, "t");
        let steps = drive_steps(100, SimTime::ZERO + Duration::from_millis(1400), |now| {
            let s = c.step(now, &mut rng);
            (s.sinr_db, s.next_change)
        });
        let ms = |t: u64| SimTime::ZERO + Duration::from_millis(t);
        let expected =
            vec![(ms(0), 25.0), (ms(500), f64::NEG_INFINITY), (ms(700), 25.0), (ms(1200), f64::NEG_INFINITY)];
        assert_eq!(steps, expected);
    }

    #[test]
    fn test_blocked_sinr_and_errors() {
        let mut c = SinrOnOff::new(&config(Some(-3.0)), &ctx()).unwrap();
        let mut rng = Rng::for_component(1, "t");
        let los = c.step(SimTime::ZERO, &mut rng);
        assert_eq!(c.step(los.next_change.unwrap(), &mut rng).sinr_db, -3.0);
        let e = SinrOnOff::new(&config(Some(f64::NAN)), &ctx()).unwrap_err();
        assert_eq!(e.field, "link[0].radio.channel.nlos_sinr_db");
        let mut zero = config(None);
        zero.nlos_duration = Time(Duration::ZERO);
        let e = SinrOnOff::new(&zero, &ctx()).unwrap_err();
        assert_eq!(e.field, "link[0].radio.channel.nlos_duration");
    }

    #[test]
    fn test_block_fading_redraws_per_block_within_each_sojourn_with_unit_mean_gain() {
        let mut c = config(Some(0.0));
        c.fading = Some(BlockFading { block: Time(Duration::from_millis(10)), m_los: 3.0, m_nlos: 1.0 });
        let mut chan = SinrOnOff::new(&c, &ctx()).unwrap();
        let mut rng = Rng::for_component(7, "t");
        let steps = drive_steps(100_000, SimTime::ZERO + Duration::from_secs(700), |now| {
            let s = chan.step(now, &mut rng);
            (s.sinr_db, s.next_change)
        });
        let ms = |t: SimTime| t.0 / 1_000_000_000;
        // Sojourn boundaries are kept exactly: 500 ms LOS then 200 ms NLOS, blocks of 10 ms inside.
        assert!(steps.iter().all(|(t, _)| ms(*t) % 10 == 0));
        assert_eq!(steps.len(), 700 * 1000 / 10);
        let gains = |los: bool| -> Vec<f64> {
            steps
                .iter()
                .filter(|(t, _)| (ms(*t) % 700 < 500) == los)
                .map(|(_, db)| libm::pow(10.0, (db - if los { 25.0 } else { 0.0 }) / 10.0))
                .collect()
        };
        for (los, m) in [(true, 3.0), (false, 1.0)] {
            let g = gains(los);
            let n = g.len() as f64;
            let mean = g.iter().sum::<f64>() / n;
            let var = g.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
            // Gamma(m, 1/m): mean 1, variance 1/m; 4σ of the estimators.
            assert!((mean - 1.0).abs() < 4.0 * (1.0 / m / n).sqrt(), "los {los}: mean {mean}");
            assert!((var - 1.0 / m).abs() < 0.1 / m, "los {los}: variance {var}");
        }
        let mut outage = config(None);
        outage.fading = c.fading.clone();
        let mut chan = SinrOnOff::new(&outage, &ctx()).unwrap();
        let nlos: Vec<f64> = drive_steps(1000, SimTime::ZERO + Duration::from_millis(700), |now| {
            let s = chan.step(now, &mut rng);
            (s.sinr_db, s.next_change)
        })
        .into_iter()
        .filter(|(t, _)| ms(*t) >= 500)
        .map(|(_, db)| db)
        .collect();
        assert_eq!(nlos, vec![f64::NEG_INFINITY], "an outage stays one step, unfaded");
        let mut bad = c.clone();
        bad.fading = Some(BlockFading { block: Time(Duration::ZERO), m_los: 3.0, m_nlos: 1.0 });
        assert_eq!(SinrOnOff::new(&bad, &ctx()).unwrap_err().field, "link[0].radio.channel.fading.block");
        bad.fading = Some(BlockFading { block: Time(Duration::from_millis(1)), m_los: 0.2, m_nlos: 1.0 });
        assert_eq!(SinrOnOff::new(&bad, &ctx()).unwrap_err().field, "link[0].radio.channel.fading.m_los");
    }
}
