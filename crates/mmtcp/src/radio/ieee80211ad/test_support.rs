//! What the tests of the 802.11ad files share: the radio context of a link (500 MHz), the SINR
//! process of a synthetic configuration, and Drago et al.'s scenarios without the random variation.

use super::channel::Ieee80211adChannel;
use super::config::{BeamSource, Ieee80211adConfig, Scenario, SyntheticConfig};
use crate::error::InputContext;
use crate::radio::RadioContext;
use std::path::Path;

pub(super) fn ctx_in(base_dir: &Path) -> RadioContext<'_> {
    RadioContext {
        channel: InputContext { scenario_file: "s.toml", field: "link[0].radio.channel", base_dir },
        bandwidth_hz: 500e6,
    }
}

pub(super) fn synthetic(config: SyntheticConfig) -> Ieee80211adChannel {
    let config = Ieee80211adConfig { source: BeamSource::Synthetic(config), noise_figure_db: 0.0 };
    Ieee80211adChannel::new(&config, &ctx_in(Path::new("."))).unwrap()
}

pub(super) fn quiet(scenario: Scenario) -> SyntheticConfig {
    SyntheticConfig { jitter_db: 0.0, ..SyntheticConfig::for_scenario(scenario) }
}
