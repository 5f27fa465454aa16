//! Channel processes: what a radio link can carry over time.
//!
//! A channel process is a piecewise-constant capacity: at time zero and then at each change it
//! says the rate from now on and when it next changes. The radio link schedules one event per
//! change, so a constant channel costs nothing and a trace costs one event per step.
//!
//! Channel models that produce a SINR rather than a rate (NYU, 3GPP TR 38.901, 802.11ad) live in
//! `crate::radio` behind `SinrProcess`; the radio stack's adaptive modulation and coding turns
//! their SINR into a rate. `markov_pair` sets the rates of two links at once.
//!
//! Processes, one file each, chosen by the `kind` of a link's `channel` table ([`ChannelConfig`]):
//! `constant`, `trace` (csv or mahimahi file), `onoff` (LOS/NLOS blockage with fixed or
//! exponential sojourns) and `slotted` (i.i.d. LOS/NLOS per slot). [`AnyChannel::build`] validates
//! a config and returns its process behind static dispatch.

mod constant;
pub mod markov_pair;
pub mod onoff;
mod slotted;
mod trace;

pub use constant::{ConstantChannel, ConstantConfig};
pub use onoff::{OnOffChannel, OnOffConfig, Visibility};
pub use slotted::{SlottedChannel, SlottedConfig};
pub use trace::{RateTrace, TraceChannel, TraceConfig, TraceFormat, TraceOffset};

use crate::error::{InputContext, InputError};
use crate::sim::{Rng, SimTime};
use serde::{Deserialize, Serialize};

/// The capacity of a channel from `now` until `next_change`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelStep {
    /// Bit rate in bit/s; 0 means outage (nothing is transmitted, packets wait in the buffer).
    pub rate_bps: u64,
    /// When the rate changes next; `None` when it never changes again.
    pub next_change: Option<SimTime>,
}

/// One channel model.
pub trait ChannelProcess {
    /// Called once at time zero and then at each `next_change` the previous step announced.
    /// `rng` is the channel's own stream (derived from the master seed and the link's id).
    fn step(&mut self, now: SimTime, rng: &mut Rng) -> ChannelStep;
}

/// The `channel` table of a radio link, selected by its `kind` key. Each kind's fields, units and
/// defaults are documented on its config struct; unknown keys are rejected, and serialising a
/// parsed config writes every default out (the resolved form).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChannelConfig {
    /// `{ kind = "constant", rate }`.
    Constant(ConstantConfig),
    /// `{ kind = "trace", file, format, repeat }`.
    Trace(TraceConfig),
    /// `{ kind = "onoff", los_rate, nlos_rate, los_duration, nlos_duration, distribution, start }`.
    #[serde(rename = "onoff")]
    OnOff(OnOffConfig),
    /// `{ kind = "slotted", slot, los_rate, nlos_rate, nlos_probability }`.
    Slotted(SlottedConfig),
    /// `{ kind = "markov_pair", group, member, p, q, ... }`: COTAG's four-state Markov model,
    /// driving two links jointly (docs/models/markov-pair.md).
    MarkovPair(markov_pair::MarkovPairConfig),
}

/// One of the channel processes, dispatched statically.
#[derive(Clone, Debug)]
pub enum AnyChannel {
    Constant(ConstantChannel),
    Trace(TraceChannel),
    OnOff(OnOffChannel),
    Slotted(SlottedChannel),
}

impl AnyChannel {
    /// Validates `config` and builds its process; a trace file is read and parsed here, so that
    /// a bad trace fails before the run starts.
    pub fn build(config: &ChannelConfig, ctx: &InputContext) -> Result<AnyChannel, InputError> {
        Ok(match config {
            ChannelConfig::Constant(c) => AnyChannel::Constant(ConstantChannel::new(c)),
            ChannelConfig::Trace(c) => AnyChannel::Trace(TraceChannel::load(c, ctx)?),
            ChannelConfig::OnOff(c) => AnyChannel::OnOff(OnOffChannel::new(c, ctx)?),
            ChannelConfig::Slotted(c) => AnyChannel::Slotted(SlottedChannel::new(c, ctx)?),
            ChannelConfig::MarkovPair(_) => unreachable!("scenario::build builds Markov pairs per group"),
        })
    }
}

impl ChannelProcess for AnyChannel {
    #[inline]
    fn step(&mut self, now: SimTime, rng: &mut Rng) -> ChannelStep {
        match self {
            AnyChannel::Constant(c) => c.step(now, rng),
            AnyChannel::Trace(c) => c.step(now, rng),
            AnyChannel::OnOff(c) => c.step(now, rng),
            AnyChannel::Slotted(c) => c.step(now, rng),
        }
    }
}

/// Drives `channel` as the radio link does (at zero, then at each announced change) and returns
/// the steps, stopping after `max_steps` or at a step that never changes again.
#[cfg(test)]
fn drive(channel: &mut impl ChannelProcess, rng: &mut Rng, max_steps: usize) -> Vec<(SimTime, ChannelStep)> {
    crate::sim::drive_steps(max_steps, SimTime(u64::MAX), |now| {
        let step = channel.step(now, rng);
        (step, step.next_change)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Duration;
    use crate::units::{Rate, Time};
    use std::path::Path;

    fn parse(text: &str) -> Result<ChannelConfig, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    fn ctx() -> InputContext<'static> {
        InputContext { scenario_file: "scenarios/x.toml", field: "link[1].channel", base_dir: Path::new(".") }
    }

    #[test]
    fn each_kind_parses_with_its_defaults() {
        use crate::sim::DurationDistribution;
        let c = parse("kind = \"constant\"\nrate = \"1Gbps\"").unwrap();
        assert_eq!(c, ChannelConfig::Constant(ConstantConfig { rate: Rate(1_000_000_000) }));

        let c =
            parse("kind = \"onoff\"\nlos_rate = \"1Gbps\"\nlos_duration = \"1s\"\nnlos_duration = \"500ms\"")
                .unwrap();
        assert_eq!(
            c,
            ChannelConfig::OnOff(OnOffConfig {
                los_rate: Rate(1_000_000_000),
                nlos_rate: Rate(0),
                los_duration: Time(Duration::from_secs(1)),
                nlos_duration: Time(Duration::from_millis(500)),
                distribution: DurationDistribution::Fixed,
                start: Visibility::Los,
            })
        );

        let c = parse("kind = \"slotted\"\nslot = \"100ms\"\nlos_rate = \"1Gbps\"\nnlos_probability = 0.5")
            .unwrap();
        assert_eq!(
            c,
            ChannelConfig::Slotted(SlottedConfig {
                slot: Time(Duration::from_millis(100)),
                los_rate: Rate(1_000_000_000),
                nlos_rate: Rate(0),
                nlos_probability: 0.5,
            })
        );

        let c = parse("kind = \"trace\"\nfile = \"traces/a.down\"").unwrap();
        assert_eq!(
            c,
            ChannelConfig::Trace(TraceConfig {
                file: "traces/a.down".into(),
                format: TraceFormat::Mahimahi,
                repeat: true,
                offset: None
            })
        );
        let c = parse("kind = \"trace\"\nfile = \"traces/a.csv\"").unwrap();
        assert_eq!(
            c,
            ChannelConfig::Trace(TraceConfig {
                file: "traces/a.csv".into(),
                format: TraceFormat::Csv,
                repeat: false,
                offset: None
            })
        );
    }

    #[test]
    fn serialising_gives_the_resolved_form_which_reads_back_the_same() {
        for text in [
            "kind = \"onoff\"\nlos_rate = \"1Gbps\"\nlos_duration = \"1s\"\nnlos_duration = \"1s\"",
            "kind = \"slotted\"\nslot = \"100ms\"\nlos_rate = \"1Gbps\"\nnlos_probability = 1",
            "kind = \"trace\"\nfile = \"a.up\"",
            "kind = \"constant\"\nrate = \"2.5Mbps\"",
        ] {
            let config = parse(text).unwrap();
            let resolved = toml::to_string(&config).unwrap();
            assert_eq!(parse(&resolved).unwrap(), config, "{resolved}");
        }
        let onoff =
            parse("kind = \"onoff\"\nlos_rate = \"1Gbps\"\nlos_duration = \"1s\"\nnlos_duration = \"1s\"");
        let resolved = toml::to_string(&onoff.unwrap()).unwrap();
        for line in
            ["kind = \"onoff\"", "nlos_rate = \"0bps\"", "distribution = \"fixed\"", "start = \"los\""]
        {
            assert!(resolved.contains(line), "{line} missing from {resolved}");
        }
        let trace = toml::to_string(&parse("kind = \"trace\"\nfile = \"a.up\"").unwrap()).unwrap();
        assert!(trace.contains("format = \"mahimahi\"") && trace.contains("repeat = true"), "{trace}");
    }

    #[test]
    fn unknown_keys_are_errors_that_name_the_key() {
        for text in [
            "kind = \"onoff\"\nlos_rate = \"1Gbps\"\nlos_duration = \"1s\"\nnlos_duration = \"1s\"\nlos_durration = \"2s\"",
            "kind = \"constant\"\nrate = \"1Gbps\"\nlos_durration = 1",
            "kind = \"slotted\"\nslot = \"1ms\"\nlos_rate = \"1Gbps\"\nnlos_probability = 0.5\nlos_durration = 1",
            "kind = \"trace\"\nfile = \"a.csv\"\nlos_durration = 1",
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.contains("unknown field `los_durration`"), "{err}");
        }
        let err = parse("kind = \"blockage\"").unwrap_err();
        assert!(err.contains("blockage") && err.contains("onoff"), "{err}");
        let err = parse("los_rate = \"1Gbps\"").unwrap_err();
        assert!(err.contains("kind"), "{err}");
    }

    #[test]
    fn build_dispatches_to_each_process() {
        let config = parse("kind = \"constant\"\nrate = \"1Gbps\"").unwrap();
        let mut channel = AnyChannel::build(&config, &ctx()).unwrap();
        let mut rng = Rng::for_component(1, "c");
        let step = channel.step(SimTime::ZERO, &mut rng);
        assert_eq!(step, ChannelStep { rate_bps: 1_000_000_000, next_change: None });

        let config =
            parse("kind = \"onoff\"\nlos_rate = \"1Gbps\"\nlos_duration = \"1s\"\nnlos_duration = \"2s\"")
                .unwrap();
        let mut channel = AnyChannel::build(&config, &ctx()).unwrap();
        let steps = drive(&mut channel, &mut rng, 3);
        assert_eq!(steps[2].0, SimTime::ZERO + Duration::from_secs(3));
    }

    #[test]
    fn validation_errors_name_the_scenario_and_the_field() {
        let config =
            parse("kind = \"onoff\"\nlos_rate = \"1Gbps\"\nlos_duration = \"0s\"\nnlos_duration = \"1s\"")
                .unwrap();
        let err = AnyChannel::build(&config, &ctx()).unwrap_err();
        assert_eq!(
            (err.file.as_str(), err.field.as_str()),
            ("scenarios/x.toml", "link[1].channel.los_duration")
        );
        let top = InputContext { field: "", ..ctx() };
        assert_eq!(AnyChannel::build(&config, &top).unwrap_err().field, "los_duration");
    }
}
