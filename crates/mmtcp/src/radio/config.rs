//! `[link.radio]`: the full radio stack of a link — slot, bandwidth, SINR channels, AMC, HARQ,
//! RLC and link reports. Every key has a default; docs/scenario.md lists them with units.

use super::amc::AmcConfig;
use super::harq::HarqConfig;
use super::rlc::RlcConfig;
use super::tdd::{TddPattern, TddSchedule, TddSide};
use super::SinrChannelConfig;
use crate::error::InputError;
use crate::sim::Duration;
use crate::units::{Frequency, Time};
use serde::{Deserialize, Serialize};

/// When the radio link publishes a [`super::report::LinkReport`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportMode {
    /// Whenever the MCS the SINR allows changes (Drago et al.: on every BDP change).
    #[default]
    OnChange,
    /// Every `period`.
    Periodic,
}

/// `[link.radio.report]`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReportConfig {
    /// `"on_change"` (default) or `"periodic"`.
    pub mode: ReportMode,
    /// Period of periodic reports. Default 10 ms.
    pub period: Time,
}

impl Default for ReportConfig {
    fn default() -> Self {
        ReportConfig { mode: ReportMode::OnChange, period: Time(Duration::from_millis(10)) }
    }
}

/// The slot when neither `slot` nor `numerology` is given: NR numerology 3 (Kim et al.).
const DEFAULT_NUMEROLOGY: u8 = 3;

fn default_bandwidth() -> Frequency {
    Frequency(1_000_000_000)
}

fn default_amc_delay() -> Time {
    Time(Duration::from_millis(1))
}

/// `[link.radio]`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RadioConfig {
    /// MAC slot (TTI). Default: 1 ms / 2^`numerology`, and 125 µs (NR numerology 3, Kim et al.)
    /// when neither is given. Filled in when the scenario is resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<Time>,
    /// NR numerology μ, 0 to 4 (3GPP TS 38.211 §4.2: subcarrier spacing 15·2^μ kHz, 2^μ slots
    /// per 1 ms subframe): sets `slot` to 1 ms / 2^μ. Give `slot` or `numerology`, not both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numerology: Option<u8>,
    /// Channel bandwidth. Default 1 GHz (Kim et al., Polese et al. 2017a).
    #[serde(default = "default_bandwidth")]
    pub bandwidth: Frequency,
    /// Age of the SINR the MCS is chosen on (CQI feedback delay). Default 1 ms.
    #[serde(default = "default_amc_delay")]
    pub amc_delay: Time,
    /// SINR process of the forward direction (required).
    pub channel: SinrChannelConfig,
    /// SINR process of the reverse direction; when absent the reverse direction follows the
    /// forward channel's SINR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_channel: Option<SinrChannelConfig>,
    #[serde(default)]
    pub amc: AmcConfig,
    #[serde(default)]
    pub harq: HarqConfig,
    #[serde(default)]
    pub rlc: RlcConfig,
    #[serde(default)]
    pub report: ReportConfig,
    /// TDD slot pattern over `D` (downlink: the forward direction, `between[0]` →
    /// `between[1]`), `U` (uplink: the reverse direction), `C`/`S` (control/special: no data),
    /// repeated from time 0, e.g. `"DDDU"` (module [`super::tdd`]). Default: absent, every slot
    /// carries both directions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tdd: Option<String>,
    /// T310 (3GPP TS 38.331 §5.3.10, §7.1.1): a radio link failure, with MAC reset and RLC
    /// re-establishment freeing every packet RLC holds, once the SINR has allowed no MCS for this
    /// long (docs/models/radio-link.md). Default: absent, no radio link failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rlf_timeout: Option<Time>,
}

impl RadioConfig {
    /// Fills in the slot from the numerology and range-checks the keys this table owns; `field`
    /// is e.g. `link[0].radio`.
    pub fn resolve(&mut self, file: &str, field: &str) -> Result<(), InputError> {
        let err = |key: &str, message: String| InputError::new(file, format!("{field}.{key}"), message);
        let slot = match (self.slot, self.numerology) {
            (Some(_), Some(_)) => {
                return Err(err("numerology", "give `slot` or `numerology`, not both".into()));
            }
            (Some(slot), None) => slot.0 .0,
            (None, numerology) => {
                let mu = numerology.unwrap_or(DEFAULT_NUMEROLOGY);
                if mu > 4 {
                    return Err(err("numerology", format!("{mu}; NR numerologies are 0 to 4")));
                }
                Duration::from_millis(1).0 >> mu
            }
        };
        let slot = Duration(slot);
        self.slot = Some(Time(slot));
        if slot < Duration::from_micros(1) || slot > Duration::from_millis(10) {
            return Err(err("slot", format!("{}; allowed 1us to 10ms", Time(slot))));
        }
        if self.bandwidth.0 < 1_000 || self.bandwidth.0 > 10_000_000_000 {
            return Err(err("bandwidth", format!("{}; allowed 1kHz to 10GHz", self.bandwidth)));
        }
        if self.report.mode == ReportMode::Periodic && self.report.period.0 < slot {
            return Err(err(
                "report.period",
                format!("{} is shorter than the slot ({})", self.report.period, Time(slot)),
            ));
        }
        if let Some(pattern) = &self.tdd {
            TddPattern::parse(pattern).map_err(|m| err("tdd", m))?;
        }
        if let Some(t) = self.rlf_timeout {
            if t.0 == Duration::ZERO {
                return Err(err("rlf_timeout", "must be a time greater than zero, e.g. \"1s\"".into()));
            }
        }
        self.harq.validate(file, &format!("{field}.harq"))?;
        self.rlc.validate(file, &format!("{field}.rlc"))?;
        Ok(())
    }

    /// The TDD slots of the forward (downlink) and reverse (uplink) directions; `None` without a
    /// pattern. Only valid after [`RadioConfig::resolve`].
    pub fn tdd_schedules(&self) -> Option<[TddSchedule; 2]> {
        let pattern = TddPattern::parse(self.tdd.as_ref()?).expect("resolve checked the pattern");
        Some([pattern.schedule(TddSide::Downlink), pattern.schedule(TddSide::Uplink)])
    }

    /// The slot; only valid after [`RadioConfig::resolve`].
    pub fn slot(&self) -> Duration {
        self.slot.expect("resolve fills in the slot").0
    }
}
