//! Cross-layer BDP proxy (seed 001 §III). Being written.

use crate::error::InputError;
use crate::proxy::config::ProcessorEnv;
use crate::proxy::PacketProcessor;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BdpConfig {}

impl BdpConfig {
    pub fn build(&self, env: &ProcessorEnv) -> Result<Box<dyn PacketProcessor>, InputError> {
        Err(env.error("kind", "\"bdp\" is not available yet"))
    }
}
