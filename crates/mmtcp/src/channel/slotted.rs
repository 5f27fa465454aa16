//! Slotted i.i.d. blockage: time is cut into slots of length T, and each slot is NLOS with
//! probability p, independently of every other slot.
//!
//! ```text
//!   r(t) = R_nlos if slot ⌊t/T⌋ is NLOS (probability p), else R_los
//! ```
//!
//! The time-average rate is (1 − p)·R_los + p·R_nlos. The process is the memoryless special case of
//! the slot-wise Markov switching of Wu et al. (COTAG: link rates redrawn every 100 ms); the
//! canonical benchmark scenario uses T = 100 ms, R_nlos = R_los / 10, p = 0.5.
//!
//! Only changes of rate are events. Instead of drawing every slot, the process draws the length
//! of the current run directly: a state that the next slot leaves with probability q (q = p from
//! LOS, 1 − p from NLOS) lasts N slots with P(N = n) = (1 − q)^(n−1)·q, a geometric law, sampled
//! by inversion as N = 1 + ⌊ln(1 − U) / ln(1 − q)⌋. This has the distribution of slot-by-slot
//! draws and costs one random number per change, however long the run.

use super::{ChannelProcess, ChannelStep};
use crate::error::InputContext;
use crate::error::InputError;
use crate::sim::{Duration, Rng, SimTime};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

/// `{ kind = "slotted", slot = "100ms", los_rate = "1Gbps", nlos_rate = "100Mbps", nlos_probability = 0.5 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlottedConfig {
    /// Slot length; required, > 0.
    pub slot: Time,
    /// Rate in a LOS slot (required).
    pub los_rate: Rate,
    /// Rate in an NLOS slot. Default `"0bps"`: outage.
    #[serde(default)]
    pub nlos_rate: Rate,
    /// Probability that a slot is NLOS; required, in [0, 1].
    pub nlos_probability: f64,
}

/// The process of a [`SlottedConfig`].
#[derive(Clone, Debug)]
pub struct SlottedChannel {
    slot: Duration,
    los_rate_bps: u64,     // bit/s
    nlos_rate_bps: u64,    // bit/s
    nlos_probability: f64, // per slot
    /// Whether the slot starting at the next call to `step` is NLOS; `None` before time zero,
    /// when the first slot has not been drawn.
    nlos: Option<bool>,
}

impl SlottedChannel {
    pub fn new(config: &SlottedConfig, ctx: &InputContext) -> Result<SlottedChannel, InputError> {
        if config.slot.0 == Duration::ZERO {
            return Err(ctx.error("slot", "must be a time greater than zero, e.g. \"100ms\""));
        }
        let p = config.nlos_probability;
        if !(0.0..=1.0).contains(&p) {
            return Err(ctx.error("nlos_probability", format!("{p} is not a probability; must be in [0, 1]")));
        }
        Ok(SlottedChannel {
            slot: config.slot.0,
            los_rate_bps: config.los_rate.0,
            nlos_rate_bps: config.nlos_rate.0,
            nlos_probability: p,
            nlos: None,
        })
    }
}

/// Slots until a state that each slot leaves with probability `q` is left (at least 1), or `None`
/// if it is never left.
fn run_length(q: f64, rng: &mut Rng) -> Option<u64> {
    if q <= 0.0 {
        return None;
    }
    if q >= 1.0 {
        return Some(1);
    }
    // 1 − U ∈ (0, 1], so the quotient is finite and ≥ 0; `as` floors it and saturates.
    let extra = (libm::log(1.0 - rng.uniform()) / libm::log1p(-q)) as u64;
    Some(extra.saturating_add(1))
}

impl ChannelProcess for SlottedChannel {
    fn step(&mut self, now: SimTime, rng: &mut Rng) -> ChannelStep {
        let p = self.nlos_probability;
        let nlos = *self.nlos.get_or_insert_with(|| rng.bernoulli(p));
        let rate_bps = if nlos { self.nlos_rate_bps } else { self.los_rate_bps };
        if self.los_rate_bps == self.nlos_rate_bps {
            return ChannelStep { rate_bps, next_change: None };
        }
        let leave = if nlos { 1.0 - p } else { p };
        let next_change = run_length(leave, rng).map(|n| now + self.slot.saturating_mul(n));
        self.nlos = Some(!nlos);
        ChannelStep { rate_bps, next_change }
    }
}

#[cfg(test)]
mod tests {
    use super::super::drive;
    use super::*;
    use std::path::Path;

    const GBPS: u64 = 1_000_000_000;

    fn config(p: f64) -> SlottedConfig {
        SlottedConfig {
            slot: Time(Duration::from_millis(100)),
            los_rate: Rate(GBPS),
            nlos_rate: Rate(GBPS / 10),
            nlos_probability: p,
        }
    }

    fn ctx() -> InputContext<'static> {
        InputContext { scenario_file: "s.toml", field: "link[2].channel", base_dir: Path::new(".") }
    }

    /// Fraction of time NLOS and mean run lengths in slots (LOS, NLOS) over the first `slots`.
    fn statistics(p: f64, seed: u64, slots: u64) -> (f64, f64, f64) {
        let mut channel = SlottedChannel::new(&config(p), &ctx()).unwrap();
        let mut rng = Rng::for_component(seed, "link/x/channel");
        let slot = Duration::from_millis(100).as_picos();
        let (mut now, mut nlos_slots) = (SimTime::ZERO, 0);
        let (mut los_runs, mut nlos_runs) = (Vec::new(), Vec::new());
        let mut previous_rate = None;
        while now.0 < slots * slot {
            let step = channel.step(now, &mut rng);
            assert_ne!(previous_rate, Some(step.rate_bps), "a step without a change at {now}");
            previous_rate = Some(step.rate_bps);
            let next = step.next_change.unwrap();
            assert_eq!(next.0 % slot, 0, "change at {next} is not on a slot boundary");
            let run = (next - now).as_picos() / slot;
            if step.rate_bps == GBPS / 10 {
                nlos_slots += run.min(slots - now.0 / slot);
                nlos_runs.push(run as f64);
            } else {
                los_runs.push(run as f64);
            }
            now = next;
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        (nlos_slots as f64 / slots as f64, mean(&los_runs), mean(&nlos_runs))
    }

    #[test]
    fn test_fraction_nlos_and_run_lengths() {
        let (fraction, los_run, nlos_run) = statistics(0.5, 1, 200_000);
        assert!((fraction - 0.5).abs() < 0.01, "fraction NLOS {fraction}");
        assert!((los_run - 2.0).abs() < 0.05 && (nlos_run - 2.0).abs() < 0.05, "{los_run} {nlos_run}");
        let (fraction, los_run, nlos_run) = statistics(0.1, 2, 200_000);
        assert!((fraction - 0.1).abs() < 0.01, "fraction NLOS {fraction}");
        assert!((los_run - 10.0).abs() < 0.3, "mean LOS run {los_run} slots");
        assert!((nlos_run - 1.0 / 0.9).abs() < 0.03, "mean NLOS run {nlos_run} slots");
    }

    #[test]
    fn test_certain_states_never_change() {
        for (p, rate_bps) in [(0.0, GBPS), (1.0, GBPS / 10)] {
            let mut channel = SlottedChannel::new(&config(p), &ctx()).unwrap();
            let steps = drive(&mut channel, &mut Rng::for_component(1, "c"), 10);
            assert_eq!(steps, vec![(SimTime::ZERO, ChannelStep { rate_bps, next_change: None })]);
        }
    }

    #[test]
    fn test_deterministic_per_seed() {
        let run = |seed| {
            let mut channel = SlottedChannel::new(&config(0.5), &ctx()).unwrap();
            drive(&mut channel, &mut Rng::for_component(seed, "link/x/channel"), 200)
        };
        assert_eq!(run(9), run(9));
        assert_ne!(run(9), run(10));
    }

    #[test]
    fn test_bad_parameters_are_rejected() {
        let mut cfg = config(0.5);
        cfg.slot = Time(Duration::ZERO);
        let err = SlottedChannel::new(&cfg, &ctx()).unwrap_err();
        assert_eq!((err.file.as_str(), err.field.as_str()), ("s.toml", "link[2].channel.slot"));
        for p in [-0.1, 1.5, f64::NAN] {
            let err = SlottedChannel::new(&config(p), &ctx()).unwrap_err();
            assert_eq!(err.field, "link[2].channel.nlos_probability");
            assert!(err.message.contains("[0, 1]"), "{}", err.message);
        }
    }
}
