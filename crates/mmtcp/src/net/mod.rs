//! Packets, the packet arena, wired links and their queues.

pub mod arena;
pub mod link;
pub mod packet;
pub mod queue;

pub use arena::PacketArena;
pub use packet::{
    Dss, DssMapping, Packet, SackBlocks, SeqRange, Side, TcpFlags, TcpHeader, TcpOptions, MAX_WINDOW,
    NO_ECHO, TCP_IP_HEADER_BYTES,
};
