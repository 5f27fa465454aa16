//! `processors = [...]` of a `[[node]]`: which packet processors sit on the node, in order, each
//! built from what the builder tells it about the scenario ([`ProcessorEnv`]).

use super::bdp::BdpConfig;
use super::cotag::{CotagApConfig, CotagDeviceConfig, CotagGatewayConfig};
use super::env::ProcessorEnv;
use super::mmpep::MmPepConfig;
use super::pep::PepConfig;
use super::spray::SprayConfig;
use super::PacketProcessor;
use crate::error::InputError;
use crate::error::{nested, nested_error};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// One processor of a node's chain, chosen by `kind`. Deserialised by hand (below) so that an
/// error inside the table names its key.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProcessorConfig {
    /// RFC 3135 early-ACK proxy that repairs one segment per duplicate ACK (Kim et al.'s baseline).
    Pep(PepConfig),
    /// Kim et al.'s mmPEP: early ACKs, flow control by the free cache, batch retransmission.
    Mmpep(MmPepConfig),
    /// Drago et al.'s cross-layer proxy pinning the sender's window to the bandwidth-delay product.
    Bdp(BdpConfig),
    /// COTAG's gateway (Wu et al. Algorithm 1): cohorts, coding, taking.
    CotagGateway(CotagGatewayConfig),
    /// COTAG at an access point (Wu et al. Algorithm 2): holding, forwarding, recoding, giving.
    CotagAp(CotagApConfig),
    /// COTAG at the dual-connected device (Wu et al. Algorithm 3): decoding.
    CotagDevice(CotagDeviceConfig),
    /// A gateway spraying a device's flows over several links (Wu et al.'s TCP baseline).
    Spray(SprayConfig),
}

/// The values of `kind`.
const KINDS: &[&str] = &["pep", "mmpep", "bdp", "cotag_gateway", "cotag_ap", "cotag_device", "spray"];

impl<'de> Deserialize<'de> for ProcessorConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut table = Map::<String, Value>::deserialize(d)?;
        let kind = match table.remove("kind") {
            Some(Value::String(kind)) => kind,
            Some(other) => {
                return Err(D::Error::custom(nested_error(
                    "kind",
                    format!("{other} is not a kind; allowed: {}", KINDS.join(", ")),
                )))
            }
            None => {
                return Err(D::Error::custom(nested_error(
                    "kind",
                    format!("missing; allowed: {}", KINDS.join(", ")),
                )))
            }
        };
        let table = Value::Object(table);
        let config = match kind.as_str() {
            "pep" => nested(table).map(ProcessorConfig::Pep),
            "mmpep" => nested(table).map(ProcessorConfig::Mmpep),
            "bdp" => nested(table).map(ProcessorConfig::Bdp),
            "cotag_gateway" => nested(table).map(ProcessorConfig::CotagGateway),
            "cotag_ap" => nested(table).map(ProcessorConfig::CotagAp),
            "cotag_device" => nested(table).map(ProcessorConfig::CotagDevice),
            "spray" => nested(table).map(ProcessorConfig::Spray),
            other => Err(nested_error(
                "kind",
                format!("\"{other}\" is not a processor; allowed: {}", KINDS.join(", ")),
            )),
        };
        config.map_err(D::Error::custom)
    }
}

impl ProcessorConfig {
    pub fn kind(&self) -> &'static str {
        match self {
            ProcessorConfig::Pep(_) => "pep",
            ProcessorConfig::Mmpep(_) => "mmpep",
            ProcessorConfig::Bdp(_) => "bdp",
            ProcessorConfig::CotagGateway(_) => "cotag_gateway",
            ProcessorConfig::CotagAp(_) => "cotag_ap",
            ProcessorConfig::CotagDevice(_) => "cotag_device",
            ProcessorConfig::Spray(_) => "spray",
        }
    }

    /// Whether the processor may see MP-TCP subflows: only one that keeps no per-flow state of
    /// plain TCP flows (spraying re-routes data segments whatever their flow).
    pub fn takes_mptcp_subflows(&self) -> bool {
        matches!(self, ProcessorConfig::Spray(_))
    }

    /// Range checks and cross-references (the radio link a processor names), then the processor.
    pub fn build(&self, env: &ProcessorEnv) -> Result<Box<dyn PacketProcessor>, InputError> {
        match self {
            ProcessorConfig::Pep(c) => c.build(env),
            ProcessorConfig::Mmpep(c) => c.build(env),
            ProcessorConfig::Bdp(c) => c.build(env),
            ProcessorConfig::CotagGateway(c) => c.build(env),
            ProcessorConfig::CotagAp(c) => c.build(env),
            ProcessorConfig::CotagDevice(c) => c.build(env),
            ProcessorConfig::Spray(c) => c.build(env),
        }
    }
}
