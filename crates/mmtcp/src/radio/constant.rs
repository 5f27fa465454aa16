//! A SINR that never changes: for tests, calibration, and links whose only randomness is the
//! block-error draw at a fixed SINR.

use super::{SinrProcess, SinrStep};
use crate::sim::{Rng, SimTime};
use serde::{Deserialize, Serialize};

/// `{ kind = "constant", sinr_db = 20.0 }`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConstantSinrConfig {
    /// SINR in dB (required).
    pub sinr_db: f64,
}

#[derive(Clone, Debug)]
pub struct ConstantSinr {
    sinr_db: f64,
}

impl ConstantSinr {
    pub fn new(config: &ConstantSinrConfig) -> ConstantSinr {
        ConstantSinr { sinr_db: config.sinr_db }
    }
}

impl SinrProcess for ConstantSinr {
    fn step(&mut self, _now: SimTime, _rng: &mut Rng) -> SinrStep {
        SinrStep { sinr_db: self.sinr_db, next_change: None }
    }
}
