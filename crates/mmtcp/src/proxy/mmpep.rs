//! mmPEP (seed 002 §III). Being written.

use super::config::ProcessorEnv;
use super::PacketProcessor;
use crate::error::InputError;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MmPepConfig {}

impl MmPepConfig {
    pub fn build(&self, env: &ProcessorEnv) -> Result<Box<dyn PacketProcessor>, InputError> {
        Err(env.error("kind", "\"mmpep\" is not available yet"))
    }
}
