//! A constant channel: the same rate forever, r(t) = R.
//!
//! The baseline against which blockage and traces are compared; it costs one event per run.

use super::{ChannelProcess, ChannelStep};
use crate::sim::{Rng, SimTime};
use crate::units::Rate;
use serde::{Deserialize, Serialize};

/// `{ kind = "constant", rate = "1Gbps" }`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConstantConfig {
    /// The link rate (required); `"0bps"` is a permanent outage.
    pub rate: Rate,
}

/// The process of a [`ConstantConfig`].
#[derive(Clone, Debug)]
pub struct ConstantChannel {
    rate_bps: u64, // bit/s
}

impl ConstantChannel {
    pub fn new(config: &ConstantConfig) -> ConstantChannel {
        ConstantChannel { rate_bps: config.rate.0 }
    }
}

impl ChannelProcess for ConstantChannel {
    fn step(&mut self, _now: SimTime, _rng: &mut Rng) -> ChannelStep {
        ChannelStep { rate_bps: self.rate_bps, next_change: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_constant_one_step_forever() {
        let mut channel = ConstantChannel::new(&ConstantConfig { rate: Rate(2_500_000) });
        let mut rng = Rng::for_component(1, "c");
        let steps = super::super::drive(&mut channel, &mut rng, 10);
        assert_eq!(steps, vec![(SimTime::ZERO, ChannelStep { rate_bps: 2_500_000, next_change: None })]);
    }
}
