//! COTAG, COded Taking And Giving (Wu et al.: Wu, Huang, Ramanathan, IEEE TMC), as three packet
//! processors: [`gateway`] (Algorithm 1) on the gateway between the content server and two mmWave
//! access points, [`access_point`] (Algorithm 2) on each access point, [`device`] (Algorithm 3)
//! on the dual-connected device. The gateway codes the flows to the device by cohorts of period
//! T with random linear network coding over GF(2⁸) ([`crate::coding`]); the access points forward,
//! recode into spare capacity and give up late cohorts; the device decodes each cohort exactly
//! (with the rank of what arrived, linear dependence included) and passes the decoded TCP segments
//! on in order. Only the coefficients travel ([`header`]); the sources wait in a
//! [`source_store::SourceStore`] the gateway and the device share.
//!
//! Model and keys: `docs/models/cotag.md`.

pub mod access_point;
pub mod device;
pub mod gateway;
pub mod header;
pub mod labels;
pub mod source_store;

use super::env::ProcessorEnv;
use super::PacketProcessor;
use crate::error::InputError;
use crate::ids::{DirId, NodeId};
use crate::sim::{Duration, Rng};
use crate::units::Time;
use access_point::{ApParams, CotagAp};
use device::{CotagDevice, DeviceParams};
use gateway::{CotagGateway, GatewayParams};
pub use header::HeaderForm;
use serde::{Deserialize, Serialize};
use source_store::SourceStore;
use std::cell::RefCell;
use std::rc::Rc;

/// Default cohort period T (ours: Wu et al. gives T only in the abstract units of its Fig. 4
/// example; 1 ms keeps the added delay, about 2T, below the latencies it sweeps).
pub const DEFAULT_PERIOD: Duration = Duration::from_millis(1);
/// Default redundancy limit: packets per cohort at most 1.5 n_k (ours; the paper's Fig. 4 example
/// sends 10 for 6 sources, and it states no value).
pub const DEFAULT_REDUNDANCY: f64 = 1.5;
/// Default buffers, packets (ours; the paper states none): an access point holds two cohorts of a
/// 10 Gbit/s link with 8192-byte packets many times over.
pub const DEFAULT_AP_BUFFER: u64 = 10_000;
pub const DEFAULT_DEVICE_BUFFER: u64 = 100_000;

/// `kind = "cotag_gateway"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CotagGatewayConfig {
    /// The dual-connected device (node name): the flows to it are coded. Required.
    pub device: String,
    /// Cohort period T (default 1 ms).
    pub period: Time,
    /// At most this many packets per cohort, as a multiple of its size n_k (≥ 1; default 1.5).
    pub redundancy: f64,
    /// The links to the access points (default: every link of the node to a node with a
    /// `cotag_ap`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ways: Option<Vec<String>>,
    /// Count the COTAG header (label, priority, source count, coefficients) in each coded
    /// packet's size (default true).
    pub header_on_wire: bool,
    /// How the header names the coefficients on the wire: `"coefficients"` (default, one byte
    /// each) or `"seed"` (a 2-byte seed of their generator; ours, after RFC 8681).
    pub header: HeaderForm,
    /// Header-only packets that carry the labels past the end of a burst (default true; ours).
    pub label_beacons: bool,
    /// How each cohort's packets are split over the ways (default `"rate"`; ours).
    pub split: Split,
}

/// The gateway's "scheduling policy" over its ways (Wu et al. §4.3 leaves it open; both ours).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    /// Each way takes the gateway's next packet when it finishes one: the split follows the rates
    /// of the gateway's own links.
    Pull,
    /// Each way takes at most its share of the cohort, in proportion to the current rate of its
    /// access point's link to the device at the cohort's start (the access points report their
    /// rate at no delay and no cost: an idealisation); within its share it pulls as `pull` does.
    #[default]
    Rate,
}

impl Default for CotagGatewayConfig {
    fn default() -> Self {
        CotagGatewayConfig {
            device: String::new(),
            period: Time(DEFAULT_PERIOD),
            redundancy: DEFAULT_REDUNDANCY,
            ways: None,
            header_on_wire: true,
            header: HeaderForm::default(),
            label_beacons: true,
            split: Split::default(),
        }
    }
}

/// `kind = "cotag_ap"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CotagApConfig {
    /// The device (node name), one link away. Required.
    pub device: String,
    /// Coded packets the access point may hold (default 10 000).
    pub buffer: u64,
}

impl Default for CotagApConfig {
    fn default() -> Self {
        CotagApConfig { device: String::new(), buffer: DEFAULT_AP_BUFFER }
    }
}

/// `kind = "cotag_device"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CotagDeviceConfig {
    /// Coded packets the device may hold for undecided cohorts (default 100 000).
    pub buffer: u64,
}

impl Default for CotagDeviceConfig {
    fn default() -> Self {
        CotagDeviceConfig { buffer: DEFAULT_DEVICE_BUFFER }
    }
}

/// The store the gateway and the device of `device` share.
fn store(env: &ProcessorEnv, device: NodeId) -> Rc<RefCell<SourceStore>> {
    env.shared
        .get_or_make(&format!("cotag/sources/{}", device.0), || RefCell::new(SourceStore::default()))
        .expect("only COTAG uses this key")
}

/// The node named by `key`, which must carry a processor of `kind`.
fn node_with(env: &ProcessorEnv, key: &str, name: &str, kind: &str) -> Result<NodeId, InputError> {
    if name.is_empty() {
        return Err(env.error(key, "missing: the name of the dual-connected device's node"));
    }
    let node = env.topology.node(name).ok_or_else(|| env.error(key, format!("no node named \"{name}\"")))?;
    if !env.has_processor(node, kind) {
        return Err(env.error(key, format!("node \"{name}\" has no {kind} processor; COTAG needs one there")));
    }
    Ok(node)
}

fn buffer(env: &ProcessorEnv, buffer: u64) -> Result<usize, InputError> {
    if buffer == 0 {
        return Err(env.error("buffer", "must be at least 1 packet"));
    }
    Ok(usize::try_from(buffer).unwrap_or(usize::MAX))
}

/// The directions into `node` from its neighbours that carry a processor of `kind`.
fn incoming_from(env: &ProcessorEnv, node: NodeId, kind: &str) -> Vec<DirId> {
    let t = env.topology;
    t.interfaces(node).iter().filter(|&&d| env.has_processor(t.to(d), kind)).map(|&d| t.reverse(d)).collect()
}

/// The names of the links of `dirs` (the summaries name ways and links by them).
fn link_names(env: &ProcessorEnv, dirs: &[DirId]) -> Vec<String> {
    dirs.iter().map(|&d| env.topology.link_of(d).name.clone()).collect()
}

impl CotagGatewayConfig {
    pub fn build(&self, env: &ProcessorEnv) -> Result<Box<dyn PacketProcessor>, InputError> {
        let device = node_with(env, "device", &self.device, "cotag_device")?;
        if self.period.0 == Duration::ZERO {
            return Err(env.error("period", "must be greater than 0s"));
        }
        if !(self.redundancy.is_finite() && self.redundancy >= 1.0) {
            return Err(
                env.error("redundancy", format!("{} is not allowed; must be at least 1", self.redundancy))
            );
        }
        let t = env.topology;
        let ways: Vec<DirId> = match &self.ways {
            None => {
                let ways: Vec<DirId> = t
                    .interfaces(env.node)
                    .iter()
                    .copied()
                    .filter(|&d| env.has_processor(t.to(d), "cotag_ap"))
                    .collect();
                if let Some(&radio) = ways.iter().find(|&&d| env.has_radio_stack(d)) {
                    let far = t.node_name(t.to(radio));
                    return Err(env.error(
                        "ways",
                        format!(
                            "the link to \"{far}\" has the radio stack; COTAG's gateway feeds wired links"
                        ),
                    ));
                }
                ways
            }
            Some(names) => {
                let ways = env.feedable_interfaces("ways", names)?;
                if let Some(i) = ways.iter().position(|&d| !env.has_processor(t.to(d), "cotag_ap")) {
                    let far = t.node_name(t.to(ways[i]));
                    return Err(env.error(
                        &format!("ways[{i}]"),
                        format!("node \"{far}\" at its end has no cotag_ap processor"),
                    ));
                }
                ways
            }
        };
        if ways.is_empty() {
            return Err(env.error("ways", "no link of this node leads to a node with a cotag_ap processor"));
        }
        let mut access = Vec::with_capacity(ways.len());
        for (i, &way) in ways.iter().enumerate() {
            let ap = t.to(way);
            let Some(&d) = t.interfaces(ap).iter().find(|&&d| t.to(d) == device) else {
                return Err(env.error(
                    &format!("ways[{i}]"),
                    format!("node \"{}\" at its end is not one link away from the device", t.node_name(ap)),
                ));
            };
            access.push(d);
        }
        Ok(Box::new(CotagGateway::new(GatewayParams {
            way_names: link_names(env, &ways),
            access,
            split: self.split,
            device,
            period: self.period.0,
            redundancy: self.redundancy,
            ways,
            header_on_wire: self.header_on_wire,
            header: self.header,
            label_beacons: self.label_beacons,
            rng: Rng::for_component(env.seed, &format!("{}/coding", env.field)),
            store: store(env, device),
        })))
    }
}

impl CotagApConfig {
    pub fn build(&self, env: &ProcessorEnv) -> Result<Box<dyn PacketProcessor>, InputError> {
        let device = node_with(env, "device", &self.device, "cotag_device")?;
        let t = env.topology;
        let Some(&to_device) = t.interfaces(env.node).iter().find(|&&d| t.to(d) == device) else {
            return Err(
                env.error("device", format!("\"{}\" is not one link away from this node", self.device))
            );
        };
        if env.has_radio_stack(to_device) {
            return Err(env.error("device", "the link to the device has the radio stack; COTAG's access point feeds wired (rate-driven) links"));
        }
        let incoming = incoming_from(env, env.node, "cotag_gateway");
        if incoming.is_empty() {
            return Err(env.error("kind", "no neighbour of this node has a cotag_gateway processor"));
        }
        Ok(Box::new(CotagAp::new(ApParams {
            to_device,
            incoming,
            buffer: buffer(env, self.buffer)?,
            rng: Rng::for_component(env.seed, &format!("{}/coding", env.field)),
        })))
    }
}

impl CotagDeviceConfig {
    pub fn build(&self, env: &ProcessorEnv) -> Result<Box<dyn PacketProcessor>, InputError> {
        let incoming = incoming_from(env, env.node, "cotag_ap");
        if incoming.is_empty() {
            return Err(env.error("kind", "no neighbour of this node has a cotag_ap processor"));
        }
        Ok(Box::new(CotagDevice::new(DeviceParams {
            link_names: link_names(env, &incoming),
            incoming,
            buffer: buffer(env, self.buffer)?,
            store: store(env, env.node),
        })))
    }
}

#[cfg(test)]
mod tests;
