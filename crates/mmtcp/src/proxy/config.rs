//! `processors = [...]` of a `[[node]]`: which packet processors sit on the node, in order, and
//! what the builder tells them about the scenario.

use super::bdp::BdpConfig;
use super::mmpep::MmPepConfig;
use super::pep::PepConfig;
use super::PacketProcessor;
use crate::error::InputError;
use crate::error::{nested, nested_error};
use crate::ids::DirId;
use crate::ids::{FlowId, NodeId};
use crate::transport::tcp::TcpConfig;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// One processor of a node's chain, chosen by `kind`. Deserialised by hand (below) so that an
/// error inside the table names its key.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProcessorConfig {
    /// RFC 3135 early-ACK proxy that repairs one segment per duplicate ACK (seed 002's baseline).
    Pep(PepConfig),
    /// Seed 002's mmPEP: early ACKs, flow control by the free cache, batch retransmission.
    Mmpep(MmPepConfig),
    /// Seed 001's cross-layer proxy pinning the sender's window to the bandwidth-delay product.
    Bdp(BdpConfig),
}

/// The values of `kind`.
const KINDS: &[&str] = &["pep", "mmpep", "bdp"];

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
        }
    }

    /// Range checks and cross-references (the radio link a processor names), then the processor.
    pub fn build(&self, env: &ProcessorEnv) -> Result<Box<dyn PacketProcessor>, InputError> {
        match self {
            ProcessorConfig::Pep(c) => c.build(env),
            ProcessorConfig::Mmpep(c) => c.build(env),
            ProcessorConfig::Bdp(c) => c.build(env),
        }
    }
}

/// A flow as a processor needs to know it.
#[derive(Clone, Debug)]
pub struct FlowInfo {
    pub id: FlowId,
    /// The flow's name (time-series columns).
    pub name: String,
    /// The data sender's node.
    pub src: NodeId,
    /// The data receiver's node.
    pub dst: NodeId,
    pub tcp: TcpConfig,
}

/// A link with the radio stack as a processor needs to know it.
#[derive(Clone, Debug)]
pub struct RadioLinkInfo {
    pub name: String,
    /// The forward direction (`between[0]` → `between[1]`), the downlink.
    pub downlink: DirId,
    /// The rate of the lowest MCS of the link's AMC table, bit/s.
    pub lowest_rate_bps: u64,
}

/// What the builder tells a processor about the scenario.
pub struct ProcessorEnv<'a> {
    /// The scenario file, for errors.
    pub file: &'a str,
    /// The processor's field path, e.g. `node[1].processors[0]`.
    pub field: String,
    pub node: NodeId,
    /// Every flow, indexed by [`FlowId`].
    pub flows: &'a [FlowInfo],
    /// Every link with the radio stack.
    pub radio_links: &'a [RadioLinkInfo],
}

impl ProcessorEnv<'_> {
    /// An input error at `<field>.<key>`.
    pub fn error(&self, key: &str, message: impl Into<String>) -> InputError {
        InputError::new(self.file, format!("{}.{key}", self.field), message)
    }

    /// The radio link named `name` (the processor's `link` key), or, when `name` is `None`, the
    /// scenario's only link with the radio stack.
    pub fn radio_link(&self, name: Option<&str>) -> Result<&RadioLinkInfo, InputError> {
        let names = || self.radio_links.iter().map(|l| l.name.as_str()).collect::<Vec<_>>().join(", ");
        match name {
            Some(name) => self.radio_links.iter().find(|l| l.name == name).ok_or_else(|| {
                let known = if self.radio_links.is_empty() { "none".to_string() } else { names() };
                self.error(
                    "link",
                    format!("no link with the radio stack named \"{name}\"; those are: {known}"),
                )
            }),
            None => match self.radio_links {
                [only] => Ok(only),
                [] => Err(self.error(
                    "link",
                    "this processor needs a link with the radio stack ([link.radio]); the scenario has none",
                )),
                _ => {
                    Err(self
                        .error("link", format!("several links have the radio stack ({}); name one", names())))
                }
            },
        }
    }
}
