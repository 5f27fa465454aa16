//! Packets, the packet arena, nodes and routes, wired links and their queues.

pub mod arena;
pub mod packet;

pub use arena::{PacketArena, PacketId};
pub use packet::{
    FlowId, NodeId, Packet, SackBlocks, SeqRange, Side, TcpFlags, TcpHeader, TCP_IP_HEADER_BYTES,
};
pub mod any_direction;
pub mod link;
pub mod queue;
pub mod routing;
