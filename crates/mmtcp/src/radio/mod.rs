//! The millimetre-wave radio: SINR processes (channel models), adaptive modulation and coding,
//! the slotted MAC with HARQ, and RLC (TM, UM, AM).
//!
//! A SINR process says, at time zero and at each change, the signal-to-interference-plus-noise
//! ratio of one direction of a radio link from now on and when it next changes. Adaptive
//! modulation and coding turns a (delayed) SINR into an MCS and a transport-block size; block
//! errors are drawn at the actual SINR.

pub mod amc;
pub mod cellular;
pub mod config;
pub mod constant;
pub mod direction;
mod gaussian;
pub mod geometry;
pub mod harq;
pub mod ieee80211ad;
pub mod onoff;
pub mod propagation;
pub mod report;
pub mod rlc;
pub mod sinr_trace;
pub mod tdd;

use crate::error::InputContext;
use crate::error::InputError;
use crate::sim::{Rng, SimTime};
use cellular::{CellularChannel, CellularConfig};
use constant::{ConstantSinr, ConstantSinrConfig};
use ieee80211ad::{Ieee80211adChannel, Ieee80211adConfig};
use onoff::{SinrOnOff, SinrOnOffConfig};
use serde::{Deserialize, Serialize};
use sinr_trace::{SinrTraceChannel, SinrTraceConfig};

/// The SINR of a channel from `now` until `next_change`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SinrStep {
    /// SINR in dB; `f64::NEG_INFINITY` means outage (no signal at all).
    pub sinr_db: f64,
    /// When the SINR changes next; `None` when it never changes again.
    pub next_change: Option<SimTime>,
}

/// One SINR channel model.
pub trait SinrProcess {
    /// Called once at time zero and then at each `next_change` the previous step announced.
    /// `rng` is the channel's own stream (derived from the master seed and the link's id).
    fn step(&mut self, now: SimTime, rng: &mut Rng) -> SinrStep;
}

/// What a SINR process is told about the link it serves when it is built.
#[derive(Clone, Copy, Debug)]
pub struct RadioContext<'a> {
    /// Scenario file, dotted field path of the channel table, and the directory for relative
    /// trace paths; `channel.error(key, message)` makes a one-line input error.
    pub channel: InputContext<'a>,
    /// The link's bandwidth in Hz (thermal noise is computed over it).
    pub bandwidth_hz: f64,
}

/// The `channel` table of `[link.radio]`, selected by its `kind` key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SinrChannelConfig {
    /// `{ kind = "constant", sinr_db }`.
    Constant(ConstantSinrConfig),
    /// A link budget over a path-loss model (NYU, 3GPP TR 38.901, LTE): docs/models/radio-channels.md.
    Cellular(CellularConfig),
    /// `{ kind = "sinr_trace", file, repeat }`: a recorded or synthetic time → SINR trace.
    SinrTrace(SinrTraceConfig),
    /// `{ kind = "onoff", los_sinr_db, nlos_sinr_db, los_duration, nlos_duration }`: LOS/NLOS
    /// blockage, an outage in NLOS unless `nlos_sinr_db` is given.
    Onoff(SinrOnOffConfig),
    /// IEEE 802.11ad best-beam-pair SNR from received-power traces or Drago et al.'s synthetic
    /// indoor scenarios: docs/models/ieee80211ad.md.
    Ieee80211ad(Ieee80211adConfig),
}

/// One of the SINR processes, dispatched statically.
#[derive(Clone, Debug)]
pub enum AnySinr {
    Constant(ConstantSinr),
    Cellular(Box<CellularChannel>),
    SinrTrace(SinrTraceChannel),
    Onoff(SinrOnOff),
    Ieee80211ad(Box<Ieee80211adChannel>),
}

impl AnySinr {
    /// Validates `config` and builds its process (trace files are read here).
    pub fn build(config: &SinrChannelConfig, ctx: &RadioContext) -> Result<AnySinr, InputError> {
        Ok(match config {
            SinrChannelConfig::Constant(c) => AnySinr::Constant(ConstantSinr::new(c)),
            SinrChannelConfig::Cellular(c) => AnySinr::Cellular(Box::new(CellularChannel::new(c, ctx)?)),
            SinrChannelConfig::SinrTrace(c) => AnySinr::SinrTrace(SinrTraceChannel::load(c, ctx)?),
            SinrChannelConfig::Onoff(c) => AnySinr::Onoff(SinrOnOff::new(c, ctx)?),
            SinrChannelConfig::Ieee80211ad(c) => {
                AnySinr::Ieee80211ad(Box::new(Ieee80211adChannel::new(c, ctx)?))
            }
        })
    }
}

impl SinrProcess for AnySinr {
    #[inline]
    fn step(&mut self, now: SimTime, rng: &mut Rng) -> SinrStep {
        match self {
            AnySinr::Constant(c) => c.step(now, rng),
            AnySinr::Cellular(c) => c.step(now, rng),
            AnySinr::SinrTrace(c) => c.step(now, rng),
            AnySinr::Onoff(c) => c.step(now, rng),
            AnySinr::Ieee80211ad(c) => c.step(now, rng),
        }
    }
}
