//! LOS/NLOS on-off blockage of a radio-stack link: the SINR alternates between a line-of-sight
//! value and a blocked value (by default an outage, where nothing can be sent).
//!
//! The sojourns are those of the rate channel `kind = "onoff"` ([`crate::channel::onoff`]):
//! fixed (periodic) or exponential with the given means. It serves seed 002 (Kim, Ko, Kim,
//! mmPEP, §IV): a mobile that alternates between LOS and NLOS, where "the base station cannot
//! transmit packets" in NLOS, with LOS = NLOS durations of 0.5–3 s (Fig. 5) and LOS 100 s with
//! NLOS 1–20 s (Fig. 6), here with the full radio stack beneath TCP (AMC, HARQ, RLC).

use super::{RadioContext, SinrProcess, SinrStep};
use crate::channel::onoff::{Alternation, Visibility};
use crate::error::InputError;
use crate::sim::{DurationDistribution, Rng, SimTime};
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
}

/// The process of a [`SinrOnOffConfig`].
#[derive(Clone, Debug)]
pub struct SinrOnOff {
    los_sinr_db: f64,
    nlos_sinr_db: f64,
    alternation: Alternation,
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
        Ok(SinrOnOff {
            los_sinr_db: config.los_sinr_db,
            nlos_sinr_db: config.nlos_sinr_db.unwrap_or(f64::NEG_INFINITY),
            alternation: Alternation::new(
                (config.los_duration, config.nlos_duration),
                config.distribution,
                config.start,
                &ctx.channel,
            )?,
        })
    }
}

impl SinrProcess for SinrOnOff {
    fn step(&mut self, now: SimTime, rng: &mut Rng) -> SinrStep {
        let (state, until) = self.alternation.step(now, rng);
        let sinr_db = match state {
            Visibility::Los => self.los_sinr_db,
            Visibility::Nlos => self.nlos_sinr_db,
        };
        SinrStep { sinr_db, next_change: Some(until) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::ChannelContext;
    use crate::sim::{drive_steps, Duration};
    use std::path::Path;

    fn ctx() -> RadioContext<'static> {
        let channel = ChannelContext {
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
        c.step(SimTime::ZERO, &mut rng);
        assert_eq!(c.step(SimTime::ZERO, &mut rng).sinr_db, -3.0);
        let e = SinrOnOff::new(&config(Some(f64::NAN)), &ctx()).unwrap_err();
        assert_eq!(e.field, "link[0].radio.channel.nlos_sinr_db");
        let mut zero = config(None);
        zero.nlos_duration = Time(Duration::ZERO);
        let e = SinrOnOff::new(&zero, &ctx()).unwrap_err();
        assert_eq!(e.field, "link[0].radio.channel.nlos_duration");
    }
}
