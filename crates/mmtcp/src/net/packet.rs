//! Packets: plain headers, no payload bytes.
//!
//! A packet is an IP datagram carrying one TCP segment. Sequence numbers are absolute 64-bit byte
//! offsets from the start of the connection: a simulation never wraps, so there is no modular
//! arithmetic and no PAWS (a documented simplification; wire formats keep 32 bits). The size on
//! the wire is the TCP payload plus [`TCP_IP_HEADER_BYTES`] plus SACK option bytes; link-layer
//! framing is not counted.

use crate::ids::{FlowId, NodeId, RouteId};
use crate::sim::SimTime;

/// IPv4 (20) + TCP (20) + timestamp option (12, padded), as on a Linux connection: an MSS of 1448
/// bytes then fills a 1500-byte MTU.
pub const TCP_IP_HEADER_BYTES: u32 = 52;
/// SACK option: kind and length (2 bytes) plus 8 bytes per block, padded to 4 with two NOPs.
pub const SACK_OPTION_BASE_BYTES: u32 = 4;
pub const SACK_BLOCK_BYTES: u32 = 8;
/// At most four blocks fit into TCP option space; three when timestamps are on (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 4;

/// Which end of a flow a packet is addressed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The data sender (packets flowing to it carry ACKs).
    Sender,
    /// The data receiver (packets flowing to it carry data).
    Receiver,
}

/// TCP control flags used by the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    pub const SYN: TcpFlags = TcpFlags(0x02);
    pub const ACK: TcpFlags = TcpFlags(0x10);
    pub const SYN_ACK: TcpFlags = TcpFlags(0x12);

    pub fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

/// A byte range `[start, end)` of the sequence space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeqRange {
    pub start: u64,
    pub end: u64,
}

impl SeqRange {
    pub fn new(start: u64, end: u64) -> SeqRange {
        debug_assert!(start <= end);
        SeqRange { start, end }
    }
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// Up to [`MAX_SACK_BLOCKS`] SACK blocks, most recent first (RFC 2018 §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    len: u8,
    blocks: [SeqRange; MAX_SACK_BLOCKS],
}

impl SackBlocks {
    pub fn push(&mut self, block: SeqRange) {
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = block;
            self.len += 1;
        }
    }
    pub fn as_slice(&self) -> &[SeqRange] {
        &self.blocks[..self.len as usize]
    }
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Bytes this option adds to the TCP header.
    pub fn option_bytes(&self) -> u32 {
        if self.len == 0 {
            0
        } else {
            SACK_OPTION_BASE_BYTES + SACK_BLOCK_BYTES * self.len as u32
        }
    }
}

/// The TCP header fields the model uses.
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpHeader {
    /// First byte of payload (or the SYN's sequence number).
    pub seq: u64,
    /// Payload length in bytes.
    pub len: u32,
    /// Cumulative acknowledgement: next byte expected.
    pub ack: u64,
    /// Advertised receive window in bytes (window scaling is implied).
    pub window: u64,
    pub flags: TcpFlags,
    pub sack: SackBlocks,
}

/// One packet in flight.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// The flow end this packet is addressed to.
    pub to: Side,
    /// Bytes on the wire (IP datagram).
    pub size: u32,
    /// The route the packet follows, and the index of the next direction to take on it.
    pub route: RouteId,
    pub hop: u16,
    pub tcp: TcpHeader,
    /// When this copy left the sending host.
    pub sent_at: SimTime,
    /// When these bytes were first transmitted (equal to `sent_at` unless a retransmission);
    /// the receiver uses it for the one-way delay of delivered data.
    pub first_sent_at: SimTime,
}

impl Packet {
    /// A packet of `flow` from `src` to `dst`, addressed to the flow end `to`, carrying `tcp`:
    /// its size is the payload plus [`TCP_IP_HEADER_BYTES`] plus the SACK option. It has no
    /// route until the world puts it on one.
    pub fn new(
        flow: FlowId,
        (src, dst): (NodeId, NodeId),
        to: Side,
        tcp: TcpHeader,
        (sent_at, first_sent_at): (SimTime, SimTime),
    ) -> Packet {
        Packet {
            flow,
            src,
            dst,
            to,
            size: TCP_IP_HEADER_BYTES + tcp.len + tcp.sack.option_bytes(),
            route: RouteId::NONE,
            hop: 0,
            tcp,
            sent_at,
            first_sent_at,
        }
    }

    pub fn is_data(&self) -> bool {
        self.tcp.len > 0
    }

    /// A packet of `size` bytes from node 0 to node 1, for tests of the network layer.
    #[cfg(test)]
    pub fn for_test(size: u32) -> Packet {
        let t = SimTime::ZERO;
        Packet {
            size,
            ..Packet::new(FlowId(0), (NodeId(0), NodeId(1)), Side::Receiver, TcpHeader::default(), (t, t))
        }
    }
}
