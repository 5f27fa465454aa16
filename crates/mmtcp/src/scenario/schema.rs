//! The scenario file: what a user writes, with every default stated in one place.
//!
//! `docs/scenario.md` documents each key with its unit and default; this file is the source it
//! is checked against. Unknown keys are errors. After loading, names that were left out are
//! filled in (see `resolve`), so serialising a `Scenario` gives the resolved scenario.

use crate::app::AppConfig;
use crate::channel::ChannelConfig;
use crate::proxy::config::ProcessorConfig;
use crate::radio::config::RadioConfig;
use crate::sim::Duration;
use crate::transport::mptcp::SchedulerKind;
use crate::transport::tcp::TcpConfig;
use crate::units::{BufferLimit, Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub simulation: SimulationConfig,
    #[serde(default)]
    pub metrics: MetricsConfig,
    #[serde(default, rename = "node")]
    pub nodes: Vec<NodeConfig>,
    #[serde(default, rename = "link")]
    pub links: Vec<LinkConfig>,
    #[serde(default, rename = "flow")]
    pub flows: Vec<FlowConfig>,
}

impl Scenario {
    /// The same scenario with every relative trace path made absolute against `base_dir`, so
    /// that a resolved scenario saved elsewhere still finds its traces.
    pub fn with_absolute_trace_paths(&self, base_dir: &std::path::Path) -> Scenario {
        let mut s = self.clone();
        let base = std::path::absolute(base_dir).unwrap_or_else(|_| base_dir.to_path_buf());
        for link in &mut s.links {
            for channel in [&mut link.channel, &mut link.reverse_channel].into_iter().flatten() {
                if let ChannelConfig::Trace(trace) = channel {
                    let path = std::path::Path::new(&trace.file);
                    if path.is_relative() {
                        trace.file = base.join(path).display().to_string();
                    }
                }
            }
        }
        s
    }
}

/// `[simulation]`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimulationConfig {
    /// Simulated time to run.
    pub duration: Time,
    /// Master seed: every random stream derives from it and a component id.
    pub seed: u64,
    /// Stop after this many events (0: no limit).
    pub max_events: u64,
}

impl Default for SimulationConfig {
    fn default() -> Self {
        SimulationConfig { duration: Time(Duration::from_secs(10)), seed: 1, max_events: 0 }
    }
}

/// `[metrics]`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// Interval between rows of the time series.
    pub interval: Time,
    /// Most memory the time series may take (8 bytes per value, reserved when the run starts):
    /// a scenario that would need more is refused before it runs.
    pub series_memory: Bytes,
    /// Most flows, and most links, `summary.json` lists entry by entry (and embeds the resolved
    /// scenario with); a run with more lists them only in its per-entity tables
    /// (`flow_summary.parquet`, `link_summary.parquet`) and sums them up in `aggregates`.
    pub summary_entries: usize,
    /// A burst window whose delivery the summary reports (`[metrics.burst]`; none by default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst: Option<BurstConfig>,
    /// When the summary's steady-state window starts: every flow (and subflow) also reports its
    /// goodput from this time to its end (`steady_goodput_bps`), leaving out the warm-up (none
    /// by default; before the end of the run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steady_from: Option<Time>,
}

/// `[metrics.burst]`: what a set of flows delivered together in a window of the run
/// (`crate::metrics::burst`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BurstConfig {
    /// When the window starts (a multiple of `metrics.interval`; default 0).
    #[serde(default)]
    pub start: Time,
    /// How long it lasts (a multiple of `metrics.interval`).
    pub length: Time,
    /// The flows counted, by name (default: every flow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<Vec<String>>,
    /// Bytes whose delivery time from `start` is reported (none by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Bytes>,
}

/// `metrics.series_memory`'s default: a run's columns are reserved up front, so this bounds the
/// memory a scenario with many flows and links asks for before it starts.
pub const DEFAULT_SERIES_MEMORY: Bytes = Bytes(1 << 30);

/// `metrics.summary_entries`' default.
pub const DEFAULT_SUMMARY_ENTRIES: usize = 100;

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            interval: Time(Duration::from_millis(10)),
            series_memory: DEFAULT_SERIES_MEMORY,
            summary_entries: DEFAULT_SUMMARY_ENTRIES,
            burst: None,
            steady_from: None,
        }
    }
}

/// `[[node]]`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    pub name: String,
    /// Packet processors on the node's forwarding path, in the order packets pass them, e.g.
    /// `processors = [{ kind = "mmpep" }]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processors: Vec<ProcessorConfig>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    /// Fixed rate.
    #[default]
    Wired,
    /// Rate set by a channel process.
    Radio,
}

/// Impairments of one direction of a link (`forward` = between[0] → between[1]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DirectionConfig {
    /// Probability that a packet is corrupted and dropped (i.i.d.).
    pub loss: f64,
    /// Probability that a packet is delivered twice.
    pub duplicate: f64,
    /// Probability that a packet is held back by `reorder_delay`.
    pub reorder: f64,
    /// Extra delay of a reordered packet.
    pub reorder_delay: Time,
}

impl Default for DirectionConfig {
    fn default() -> Self {
        DirectionConfig {
            loss: 0.0,
            duplicate: 0.0,
            reorder: 0.0,
            reorder_delay: Time(Duration::from_millis(1)),
        }
    }
}

/// The queue limit of a link without the radio stack when `buffer` is not given.
pub const DEFAULT_BUFFER: BufferLimit = BufferLimit::Packets(1000);

/// `[[link]]`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// Defaults to "<a>-<b>".
    #[serde(default)]
    pub name: String,
    /// The two nodes; "forward" is from the first to the second.
    pub between: [String; 2],
    #[serde(default)]
    pub kind: LinkKind,
    /// Wired links: the rate of each direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Radio links: the channel process of the forward direction (downlink).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<ChannelConfig>,
    /// Radio links: the reverse direction's own channel. When absent the reverse direction
    /// follows the forward channel (one blockage process shadows both directions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_channel: Option<ChannelConfig>,
    /// Radio links with the full stack (SINR channels, AMC, HARQ, RLC), instead of `channel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radio: Option<RadioConfig>,
    /// One-way propagation delay.
    #[serde(default)]
    pub delay: Time,
    /// Drop-tail limit of each direction's queue. Default 1000 packets; links with the radio
    /// stack buffer in RLC instead (`radio.rlc.buffer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<BufferLimit>,
    #[serde(default)]
    pub forward: DirectionConfig,
    #[serde(default)]
    pub reverse: DirectionConfig,
}

/// `[flow.transport]`: the transport protocol.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TransportKind {
    /// Single-path TCP.
    #[default]
    Tcp,
    /// Multipath TCP (RFC 8684): one TCP subflow per entry of `subflows`.
    Mptcp,
}

/// One subflow of an MP-TCP flow (`transport.subflows = [{ path = [...] }, ...]`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubflowConfig {
    /// The subflow's data path, written as a flow's `path`; default: the fewest hops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
    /// The subflow's ACK path, written as a flow's `ack_path`; default: its data path back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_path: Option<Vec<String>>,
    /// A backup subflow (RFC 8684 §3.3.8): it carries data only when no other subflow can.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub backup: bool,
}

/// Most subflows an MP-TCP flow may have (RFC 8684 leaves it open; Linux v0.90's full-mesh
/// path manager allows 32 addresses per side).
pub const MAX_SUBFLOWS: usize = 32;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportConfig {
    #[serde(default)]
    pub kind: TransportKind,
    /// MP-TCP: the subflows, the first opening the connection.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subflows: Vec<SubflowConfig>,
    /// MP-TCP: which subflow carries each chunk of data (default "minrtt").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<SchedulerKind>,
    /// MP-TCP: how long after the first subflow is established the others join (default 0s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join_delay: Option<Time>,
    #[serde(flatten)]
    pub tcp: TcpConfig,
}

/// `[[flow]]`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    /// Defaults to "flow<i>".
    #[serde(default)]
    pub name: String,
    /// Node the data leaves from.
    pub from: String,
    /// Node the data goes to.
    pub to: String,
    /// When the application starts (and the connection opens).
    #[serde(default)]
    pub start: Time,
    #[serde(default)]
    pub transport: TransportConfig,
    #[serde(default)]
    pub app: AppConfig,
    /// The data path, as node names from `from` to `to`, with a link's name between two nodes
    /// that several links join; default: the fewest hops (docs/scenario.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
    /// The ACK path, written the same way (from `from` to `to`, or in the direction the ACKs
    /// travel); default: the data path's links back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_path: Option<Vec<String>>,
}
