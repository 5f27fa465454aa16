//! mmtcp: a packet-level discrete-event simulator of TCP and MP-TCP over millimetre-wave access
//! networks. See `docs/architecture.md` for the map of this crate.

pub mod api;
pub mod app;
pub mod bench;
pub mod channel;
pub mod coding;
pub mod error;
pub mod event;
pub mod ids;
pub mod input_file;
pub mod metrics;
pub mod net;
pub mod proxy;
pub mod radio;
pub mod report;
pub mod scenario;
pub mod sim;
pub mod topology;
mod trace_file;
pub mod transport;
pub mod units;
pub mod world;
