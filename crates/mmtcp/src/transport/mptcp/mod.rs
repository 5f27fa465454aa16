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
