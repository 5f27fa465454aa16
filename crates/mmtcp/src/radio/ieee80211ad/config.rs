//! The `[link.radio.channel]` table with `kind = "ieee80211ad"` (its keys:
//! docs/models/ieee80211ad.md): where the received powers per beam pair come from — a trace of
//! measured powers, or the synthetic generator of Drago et al.'s measurement scenarios A and B (§IV)
//! with its per-scenario defaults — and the receiver noise figure added to Drago et al.'s thermal
//! noise (eq. 1).

use crate::sim::Duration;
use crate::units::{Frequency, Time};
use serde::{Deserialize, Serialize};

/// `[link.radio.channel]` with `kind = "ieee80211ad"`: `{ source = { kind = "synthetic",
/// scenario = "b" } }` or `{ source = { kind = "trace", file = "beams.csv" } }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ieee80211adConfig {
    /// Where the per-beam-pair received powers come from (required).
    pub source: BeamSource,
    /// Receiver noise figure added to the thermal noise, dB, ≥ 0. Default 0: Drago et al.'s eq. (1)
    /// has none (the demodulator's losses are in the AMC's Δ).
    #[serde(default)]
    pub noise_figure_db: f64,
}

/// The received powers per beam pair, selected by `kind`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BeamSource {
    /// `{ kind = "trace", file, repeat }`.
    Trace(BeamTraceConfig),
    /// `{ kind = "synthetic", scenario, ... }`.
    Synthetic(SyntheticConfig),
}

/// A beam-pair power trace (format in `beam_trace.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeamTraceConfig {
    /// Path of the trace, relative to the scenario file's directory unless absolute (required).
    pub file: String,
    /// Whether the trace loops, with the last time as the period. Default `false`.
    #[serde(default)]
    pub repeat: bool,
}

/// Drago et al.'s measurement scenarios.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scenario {
    /// Laboratory, trolley crossing in 0.2 m steps, rich reflections.
    A,
    /// Cubicle aisle, 1.9 m manikin crossing at 0.1 m/s.
    #[default]
    B,
}

/// The synthetic generator. Every key but `scenario` has a per-scenario default (table in
/// `synthetic.rs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "RawSyntheticConfig")]
pub struct SyntheticConfig {
    /// `"a"` or `"b"` (required).
    pub scenario: Scenario,
    /// Transmit power, dBm. Default A −22, B −10.
    pub tx_power_dbm: f64,
    /// Blocker speed, m/s, > 0. Default A 0.2, B 0.1.
    pub speed: f64,
    /// The blocker walks between y = −travel and +travel (m, > 0). Default A 0.6, B 0.7.
    pub travel: f64,
    /// The blocker moves in steps of this size (m), interpolated in between; 0 = continuous.
    /// Default A 0.2, B 0.
    pub position_step: f64,
    /// Blocker width, m, > 0. Default A 0.5, B 0.45.
    pub blocker_width: f64,
    /// Blocker height, m, > 0. Default A 1.2, B 1.9.
    pub blocker_height: f64,
    /// Sampling interval of the powers (and of SNR changes), > 0. Default `"10ms"`.
    pub interval: Time,
    /// Standard deviation of the independent per-sample, per-pair power variation, dB, ≥ 0.
    /// Default 0.3.
    pub jitter_db: f64,
    /// Carrier frequency. Default `"60.48GHz"` (802.11ad channel 2).
    pub frequency: Frequency,
    /// Depth of a blockage, dB, ≥ 0: the blocker's loss on a path that crosses its centre. The
    /// knife-edge profile (`blockage.rs`) is scaled so that the LOS, with the blocker centred on
    /// it, loses exactly this much; every path is scaled alike. Default: unscaled (the knife
    /// edge's own depth, A 17.5 dB, B 18.5 dB). Drago et al. §I cites 15–35 dB for the human body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blockage_db: Option<f64>,
    /// Reflection loss of every wall, dB, ≥ 0, in place of the per-scenario table (`room.rs`).
    /// Default: the table (A 6 / 8 dB, B 10 / 12 dB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reflection_loss_db: Option<f64>,
}

/// A `synthetic` table as written, before its per-scenario defaults are filled in.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawSyntheticConfig {
    scenario: Scenario,
    tx_power_dbm: Option<f64>,
    speed: Option<f64>,
    travel: Option<f64>,
    position_step: Option<f64>,
    blocker_width: Option<f64>,
    blocker_height: Option<f64>,
    interval: Option<Time>,
    jitter_db: Option<f64>,
    frequency: Option<Frequency>,
    blockage_db: Option<f64>,
    reflection_loss_db: Option<f64>,
}

impl From<RawSyntheticConfig> for SyntheticConfig {
    fn from(raw: RawSyntheticConfig) -> SyntheticConfig {
        let (tx_power_dbm, speed, travel, position_step, blocker_width, blocker_height) = match raw.scenario {
            Scenario::A => (-22.0, 0.2, 0.6, 0.2, 0.5, 1.2),
            Scenario::B => (-10.0, 0.1, 0.7, 0.0, 0.45, 1.9),
        };
        SyntheticConfig {
            scenario: raw.scenario,
            tx_power_dbm: raw.tx_power_dbm.unwrap_or(tx_power_dbm),
            speed: raw.speed.unwrap_or(speed),
            travel: raw.travel.unwrap_or(travel),
            position_step: raw.position_step.unwrap_or(position_step),
            blocker_width: raw.blocker_width.unwrap_or(blocker_width),
            blocker_height: raw.blocker_height.unwrap_or(blocker_height),
            interval: raw.interval.unwrap_or(Time(Duration::from_millis(10))),
            jitter_db: raw.jitter_db.unwrap_or(0.3),
            frequency: raw.frequency.unwrap_or(Frequency(60_480_000_000)),
            blockage_db: raw.blockage_db,
            reflection_loss_db: raw.reflection_loss_db,
        }
    }
}

impl SyntheticConfig {
    /// The defaults of `scenario`.
    pub fn for_scenario(scenario: Scenario) -> SyntheticConfig {
        RawSyntheticConfig { scenario, ..Default::default() }.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_config_parses_with_scenario_defaults_and_round_trips() {
        let c: Ieee80211adConfig =
            toml::from_str("source = { kind = \"synthetic\", scenario = \"a\" }").unwrap();
        let BeamSource::Synthetic(s) = &c.source else { panic!("{c:?}") };
        assert_eq!(s, &SyntheticConfig::for_scenario(Scenario::A));
        assert_eq!((s.tx_power_dbm, s.speed, s.position_step, s.blocker_height), (-22.0, 0.2, 0.2, 1.2));
        assert_eq!(s.interval, Time(Duration::from_millis(10)));
        let resolved = toml::to_string(&c).unwrap();
        assert_eq!(toml::from_str::<Ieee80211adConfig>(&resolved).unwrap(), c, "{resolved}");

        // The optional keys: absent from the resolved table unless given, and round-trip when given.
        assert!(!resolved.contains("blockage_db") && !resolved.contains("reflection_loss_db"), "{resolved}");
        let text =
            "source = { kind = \"synthetic\", scenario = \"b\", blockage_db = 35, reflection_loss_db = 25 }";
        let c: Ieee80211adConfig = toml::from_str(text).unwrap();
        let BeamSource::Synthetic(s) = &c.source else { panic!("{c:?}") };
        assert_eq!((s.blockage_db, s.reflection_loss_db), (Some(35.0), Some(25.0)));
        assert_eq!(toml::from_str::<Ieee80211adConfig>(&toml::to_string(&c).unwrap()).unwrap(), c);

        let c: Ieee80211adConfig =
            toml::from_str("noise_figure_db = 7\n[source]\nkind = \"trace\"\nfile = \"b.csv\"").unwrap();
        assert_eq!(c.source, BeamSource::Trace(BeamTraceConfig { file: "b.csv".into(), repeat: false }));
        assert_eq!(c.noise_figure_db, 7.0);

        for text in [
            "source = { kind = \"synthetic\", scenario = \"b\", sped = 1 }",
            "source = { kind = \"trace\", file = \"b.csv\", sped = 1 }",
            "sped = 1\nsource = { kind = \"trace\", file = \"b.csv\" }",
        ] {
            let err = toml::from_str::<Ieee80211adConfig>(text).unwrap_err().to_string();
            assert!(err.contains("sped"), "{err}");
        }
    }
}
