//! Multipath TCP (RFC 8684): a connection of several TCP subflows, each on its own path.
//!
//! Each subflow is an ordinary [`crate::transport::tcp`] sender/receiver pair with its own
//! sequence space, window, RTT, SACK and retransmission timer; its congestion controller may be
//! coupled to its siblings' ([`crate::transport::cc::coupling`]). Above them, one connection:
//! the [`DataSender`] holds the data sequence space the application writes, the [`Scheduler`]
//! decides which subflow carries each chunk, each chunk travels with its data-sequence mapping
//! (DSS), and the [`DataReceiver`] puts the chunks of all subflows back in order in one receive
//! buffer, whose DATA_ACK and free room every subflow's ACKs carry. The world
//! (`world::connection`) moves packets and events between them.

pub mod blest;
pub mod data_receiver;
pub mod data_sender;
pub mod ecf;
pub mod minrtt;
pub mod musher;
pub mod redundant;
pub mod roundrobin;
pub mod scheduler;

pub use data_receiver::DataReceiver;
pub use data_sender::{Chunk, DataSender};
pub use scheduler::{AnyScheduler, SchedView, Scheduler, SchedulerKind};

use crate::net::packet::DATA_DSS_OPTION_BYTES;
use crate::transport::tcp::TcpConfig;
use crate::units::Bytes;

/// The TCP configuration a subflow runs with: the connection's, with the segment payload
/// (`mss`) smaller by the DSS option every data segment carries ([`DATA_DSS_OPTION_BYTES`]), so
/// that a subflow's segments are no larger on the wire than a plain TCP flow's. Linux does the
/// same: the MSS a socket sends with is the path's less the options its segments carry
/// (`tcp_current_mss` subtracts what `tcp_established_options` reserves, MP-TCP's DSS
/// included), so every data packet fits the MTU. Sender and receiver both use it: the receiver
/// counts full-sized segments for its delayed ACKs against it (Linux learns `rcv_mss` from the
/// segments it receives).
pub fn subflow_config(connection: &TcpConfig) -> TcpConfig {
    TcpConfig { mss: subflow_mss(connection.mss), ..connection.clone() }
}

/// A subflow's segment payload for a connection of `mss` ([`subflow_config`]).
pub fn subflow_mss(mss: Bytes) -> Bytes {
    Bytes(mss.0.saturating_sub(u64::from(DATA_DSS_OPTION_BYTES)))
}
