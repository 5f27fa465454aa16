//! RFC 3135 early-ACK proxy (seed 002's baseline). Being written.

use super::config::ProcessorEnv;
use super::PacketProcessor;
use crate::error::InputError;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PepConfig {}

impl PepConfig {
    pub fn build(&self, env: &ProcessorEnv) -> Result<Box<dyn PacketProcessor>, InputError> {
        Err(env.error("kind", "\"pep\" is not available yet"))
    }
}
