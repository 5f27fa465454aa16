//! What the builder tells a packet processor about the scenario ([`ProcessorEnv`]): where the
//! processor sits, every flow ([`FlowInfo`]), every link with the radio stack
//! ([`RadioLinkInfo`]), the topology, the state processors on different nodes share
//! ([`SharedState`]), and how to report an error in the processor's table.

use crate::error::InputError;
use crate::ids::{DirId, FlowId, NodeId};
use crate::topology::Topology;
use crate::transport::tcp::TcpConfig;
use std::any::Any;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

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
    /// Nodes, links and each node's interfaces.
    pub topology: &'a Topology,
    /// What processors of one scenario share.
    pub shared: &'a SharedState,
    /// Per node, the kinds of its processors (schemes whose parts sit on several nodes check
    /// that the others are there).
    pub processor_kinds: &'a [Vec<&'static str>],
    /// The run's master seed, from which a processor derives its random streams (keyed by
    /// `field`, so they do not shift when other components are added).
    pub seed: u64,
}

impl ProcessorEnv<'_> {
    /// Whether `node` carries a processor of `kind`.
    pub fn has_processor(&self, node: NodeId, kind: &str) -> bool {
        self.processor_kinds.get(node.0 as usize).is_some_and(|kinds| kinds.contains(&kind))
    }

    /// Whether direction `dir` belongs to a link with the radio stack (whose RLC buffer a
    /// processor cannot feed packet by packet; rate-driven `kind = "radio"` links can be).
    pub fn has_radio_stack(&self, dir: DirId) -> bool {
        let name = &self.topology.link_of(dir).name;
        self.radio_links.iter().any(|r| &r.name == name)
    }

    /// The interfaces of this node on the links `names` (the processor's `key` list), each a
    /// wired or rate-driven link, none twice.
    pub fn feedable_interfaces(&self, key: &str, names: &[String]) -> Result<Vec<DirId>, InputError> {
        let interfaces = self.topology.interfaces(self.node);
        let mut dirs = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let key = format!("{key}[{i}]");
            let dir = interfaces.iter().copied().find(|&d| &self.topology.link_of(d).name == name);
            let dir =
                dir.ok_or_else(|| self.error(&key, format!("\"{name}\" is not a link of this node")))?;
            if self.has_radio_stack(dir) {
                return Err(self.error(&key, format!("\"{name}\" has the radio stack; only wired or rate-driven links can be fed packet by packet")));
            }
            if dirs.contains(&dir) {
                return Err(self.error(&key, format!("\"{name}\" is listed twice")));
            }
            dirs.push(dir);
        }
        Ok(dirs)
    }

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

/// Values that processors on different nodes of one scenario share, one per key, made by the
/// first processor that asks for it: what one end of a scheme leaves for the other in a form the
/// simulation does not carry in packets (COTAG's source packets, which a coded packet's payload
/// holds in a real network, while the simulation carries only its coefficients).
#[derive(Default)]
pub struct SharedState(RefCell<BTreeMap<String, Rc<dyn Any>>>);

impl SharedState {
    /// The value under `key`, made by `make` if nobody asked before. `None` if the key holds a
    /// value of another type (two schemes chose the same key).
    pub fn get_or_make<T: 'static>(&self, key: &str, make: impl FnOnce() -> T) -> Option<Rc<T>> {
        let mut map = self.0.borrow_mut();
        let value = map.entry(key.to_string()).or_insert_with(|| Rc::new(make()));
        Rc::clone(value).downcast::<T>().ok()
    }
}
