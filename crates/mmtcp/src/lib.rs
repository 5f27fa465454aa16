//! mmtcp: a packet-level discrete-event simulator of TCP and MP-TCP over millimetre-wave access
//! networks. See `docs/architecture.md` for the map of this crate.

pub mod error;
pub mod net;
pub mod sim;
pub mod units;
pub mod transport;
pub mod api;
pub mod channel;
pub mod metrics;
pub mod event;
pub mod app;
pub mod scenario;
pub mod world;
pub mod bench;
