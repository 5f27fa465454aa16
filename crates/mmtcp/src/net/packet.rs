//! Packets: plain headers, no payload bytes.
//!
//! A packet is an IP datagram carrying one TCP segment. Sequence numbers are absolute 64-bit byte
//! offsets from the start of the connection: a simulation never wraps, so there is no modular
//! arithmetic and no PAWS (a documented simplification; wire formats keep 32 bits). The size on
//! the wire is the TCP payload plus [`TCP_IP_HEADER_BYTES`] plus the bytes of the TCP options it
//! carries (SACK, MP-TCP); link-layer framing is not counted.
//!
//! Layout: a [`Packet`] is one 64-byte cache line holding everything forwarding reads
//! (destination, route, hop, size, flow) and everything a TCP endpoint reads of a segment
//! without options (sequence and acknowledgement numbers, window, length, flags, send times).
//! What only some packets carry — SACK blocks, MP-TCP's data-sequence signal, side data such as
//! coding coefficients — lives beside it in the arena ([`super::arena`]), named by the packet's
//! `ext` handle, so that a data packet's path never touches it. Fields are as narrow as their
//! range allows: an IPv4 datagram's size and a segment's length fit 16 bits (MSS ≤ 65 483 B), a
//! window with scaling 30 bits (RFC 7323 §2.3), a route's hop count 8 bits.

use crate::ids::{ExtId, FlowId, NodeId, RouteId};
use crate::sim::SimTime;

/// IPv4 (20) + TCP (20) + timestamp option (12, padded), as on a Linux connection: an MSS of 1448
/// bytes then fills a 1500-byte MTU.
pub const TCP_IP_HEADER_BYTES: u32 = 52;
/// Bytes per SACK block (RFC 2018 §3).
pub const SACK_BLOCK_BYTES: u32 = 8;
/// At most four blocks fit into TCP option space; three when timestamps are on (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 4;
/// The DSS option an MP-TCP subflow's data segment carries: its mapping without a DATA_ACK
/// ([`Dss::raw_bytes`]: 4 + 14 bytes), padded to 4 bytes.
pub const DATA_DSS_OPTION_BYTES: u32 = (4 + 14u32).div_ceil(4) * 4;

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

/// Up to [`MAX_SACK_BLOCKS`] SACK blocks, most recent first (RFC 2018 §4). Only the first `len`
/// blocks mean anything: the others may hold stale values, which equality and `Debug` ignore,
/// so that clearing or copying a set touches only the blocks in use.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct SackBlocks {
    len: u8,
    blocks: [SeqRange; MAX_SACK_BLOCKS],
}

impl PartialEq for SackBlocks {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for SackBlocks {}

impl std::fmt::Debug for SackBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
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

    /// Makes `self` equal to `other`, reading and writing only the blocks `other` uses.
    fn assign(&mut self, other: &SackBlocks) {
        for (to, from) in self.blocks.iter_mut().zip(other.as_slice()) {
            *to = *from;
        }
        self.len = other.len;
    }
}

/// The TCP header fields the model uses (its options are [`TcpOptions`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    /// First byte of payload (or the SYN's sequence number).
    pub seq: u64,
    /// Cumulative acknowledgement: next byte expected.
    pub ack: u64,
    /// Advertised receive window in bytes (window scaling is implied; at most 2^30, RFC 7323
    /// §2.3).
    pub window: u32,
    /// Payload length in bytes.
    pub len: u16,
    pub flags: TcpFlags,
}

/// The largest window TCP can advertise with window scaling (RFC 7323 §2.3): 2^30 bytes.
pub const MAX_WINDOW: u64 = 1 << 30;

/// MP-TCP's data-sequence signal (DSS option, RFC 8684 §3.3), and the subflow of its connection a
/// packet travels on (which the real protocol tells by the 4-tuple).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dss {
    pub subflow: u8,
    /// The data-sequence mapping: subflow bytes `ssn .. ssn + len` carry the connection's bytes
    /// `dsn .. dsn + len` (RFC 8684 §3.3.1).
    pub mapping: Option<DssMapping>,
    /// DATA_ACK: the next connection-level byte the receiver expects (RFC 8684 §3.3.2).
    pub data_ack: Option<u64>,
}

/// A data-sequence mapping (RFC 8684 §3.3.1), with 64-bit sequence numbers as everywhere here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DssMapping {
    /// Data sequence number: the connection-level offset of the first byte.
    pub dsn: u64,
    /// Subflow sequence number of the first byte.
    pub ssn: u64,
    /// Data-level length in bytes.
    pub len: u16,
}

impl Dss {
    /// Bytes of the DSS option before padding (RFC 8684 §3.3, Figure 9): kind, length, subtype
    /// and flags (4); the DATA_ACK (8, the 8-octet form); the mapping: DSN (8), subflow sequence
    /// number (4), data-level length (2). No DSS checksum (optional in RFC 8684 §3.3).
    fn raw_bytes(&self) -> u32 {
        4 + if self.data_ack.is_some() { 8 } else { 0 } + if self.mapping.is_some() { 14 } else { 0 }
    }
}

/// The TCP options a packet may carry beyond what every segment has.
///
/// Layout: the DSS and the count of SACK blocks come first and share the first 64 bytes, the
/// blocks follow. Options stored on a cache-line boundary (as the arena keeps them) then cost
/// a segment without SACK blocks — every MP-TCP data segment, most ACKs — one cache line when
/// they are read through [`TcpOptions::assign`], written, or cleared.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpOptions {
    pub dss: Option<Dss>,
    pub sack: SackBlocks,
}

const _: () = assert!(std::mem::offset_of!(TcpOptions, sack) < 64, "the SACK count in the first line");

impl TcpOptions {
    /// No options.
    pub const NONE: TcpOptions = TcpOptions {
        sack: SackBlocks { len: 0, blocks: [SeqRange { start: 0, end: 0 }; MAX_SACK_BLOCKS] },
        dss: None,
    };

    pub fn is_empty(&self) -> bool {
        self.sack.is_empty() && self.dss.is_none()
    }

    /// Makes `self` equal to `other`, touching only the SACK blocks in use (see the layout).
    pub fn assign(&mut self, other: &TcpOptions) {
        self.dss = other.dss;
        self.sack.assign(&other.sack);
    }

    /// Back to no options, touching only the first cache line (see the layout).
    pub fn clear(&mut self) {
        self.dss = None;
        self.sack.len = 0;
    }

    /// Bytes the options add to the TCP header, padded to a multiple of 4 (RFC 9293 §3.1). With
    /// SACK alone: two NOPs, kind and length, 8 bytes per block (RFC 2018 §3).
    pub fn bytes(&self) -> u32 {
        let sack = if self.sack.is_empty() { 0 } else { 2 + SACK_BLOCK_BYTES * self.sack.len() as u32 };
        let dss = self.dss.map_or(0, |d| d.raw_bytes());
        (sack + dss).div_ceil(4) * 4
    }
}

/// The `stamp` of a segment without data that echoes no timestamp (timestamps off, or a
/// middlebox's ACK that does not echo one).
pub const NO_ECHO: SimTime = SimTime::MAX;

/// One packet in flight: one cache line (see the module documentation).
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub dst: NodeId,
    /// The route the packet follows, and the index of the next direction to take on it.
    pub route: RouteId,
    pub flow: FlowId,
    pub src: NodeId,
    /// What it carries beyond the header (options, side data) in the arena; [`ExtId::NONE`]:
    /// nothing.
    pub ext: ExtId,
    /// Bytes on the wire (IP datagram, ≤ 65 535).
    pub size: u16,
    pub hop: u8,
    /// The flow end this packet is addressed to.
    pub to: Side,
    /// When this copy left the sending host.
    pub sent_at: SimTime,
    /// A second time, read through [`Packet::first_sent_at`] or [`Packet::ts_echo`]. On a data
    /// segment: when its bytes were first transmitted (`sent_at` unless a retransmission), which
    /// the receiver uses for the one-way delay of delivered data. On a segment without data: the
    /// timestamp echo (TSecr, RFC 7323 §3.2), [`NO_ECHO`] when it carries none. Real TCP carries
    /// both on every segment; in mmtcp data flows one way, so a data segment never needs an echo
    /// and an ACK never needs a first transmission time, and one field holds either to keep the
    /// packet in one cache line. The TSval is `sent_at` itself.
    pub stamp: SimTime,
    pub tcp: TcpHeader,
}

const _: () = assert!(std::mem::size_of::<Packet>() == 64);

impl Packet {
    /// A packet of `flow` from `src` to `dst`, addressed to the flow end `to`, carrying `tcp`
    /// without options: its size is the payload plus [`TCP_IP_HEADER_BYTES`]. It has no route
    /// until the world puts it on one; the arena adds options ([`super::PacketArena::alloc_with`]).
    pub fn new(
        flow: FlowId,
        (src, dst): (NodeId, NodeId),
        to: Side,
        tcp: TcpHeader,
        (sent_at, stamp): (SimTime, SimTime),
    ) -> Packet {
        Packet {
            dst,
            route: RouteId::NONE,
            flow,
            src,
            ext: ExtId::NONE,
            size: (TCP_IP_HEADER_BYTES + u32::from(tcp.len)) as u16,
            hop: 0,
            to,
            sent_at,
            stamp,
            tcp,
        }
    }

    pub fn is_data(&self) -> bool {
        self.tcp.len > 0
    }

    /// A data segment's first transmission time (`sent_at` unless a retransmission).
    #[inline]
    pub fn first_sent_at(&self) -> SimTime {
        debug_assert!(self.is_data(), "first_sent_at of a segment without data");
        self.stamp
    }

    /// The timestamp a segment without data echoes (TSecr, RFC 7323 §3.2): the `sent_at` of the
    /// data segment the receiver took it from. `None` on data segments and when there is none.
    #[inline]
    pub fn ts_echo(&self) -> Option<SimTime> {
        (!self.is_data() && self.stamp != NO_ECHO).then_some(self.stamp)
    }

    /// Bytes on the wire.
    pub fn size(&self) -> u32 {
        u32::from(self.size)
    }

    /// A packet of `size` bytes from node 0 to node 1, for tests of the network layer.
    #[cfg(test)]
    pub fn for_test(size: u32) -> Packet {
        let t = SimTime::ZERO;
        let p = Packet::new(FlowId(0), (NodeId(0), NodeId(1)), Side::Receiver, TcpHeader::default(), (t, t));
        Packet { size: size as u16, ..p }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_forwarding_and_tcp_read_sits_in_the_first_cache_line() {
        assert_eq!(std::mem::size_of::<Packet>(), 64);
        assert_eq!(std::mem::align_of::<Packet>(), 64);
        assert!(std::mem::offset_of!(Packet, tcp) + std::mem::size_of::<TcpHeader>() <= 64);
    }

    #[test]
    fn options_compare_by_the_blocks_in_use() {
        let mut three = TcpOptions::default();
        for k in 0..3 {
            three.sack.push(SeqRange::new(10 * k, 10 * k + 5));
        }
        let mut reused = three;
        reused.clear();
        assert_eq!(reused, TcpOptions::NONE, "cleared: stale blocks do not count");
        let mut one = TcpOptions::default();
        one.sack.push(SeqRange::new(70, 80));
        reused.assign(&one);
        assert_eq!(reused, one);
        assert_eq!(reused.sack.as_slice(), &[SeqRange::new(70, 80)]);
        assert_eq!(format!("{:?}", reused.sack), "[SeqRange { start: 70, end: 80 }]");
        reused.assign(&three);
        assert_eq!(reused, three);
    }

    #[test]
    fn option_bytes_follow_the_rfcs() {
        let mut o = TcpOptions::default();
        assert_eq!(o.bytes(), 0);
        o.sack.push(SeqRange::new(10, 20));
        assert_eq!(o.bytes(), 12, "NOP NOP kind len + one block");
        o.sack.push(SeqRange::new(30, 40));
        o.sack.push(SeqRange::new(50, 60));
        assert_eq!(o.bytes(), 28, "three blocks, as with timestamps (RFC 2018 §3)");
        let mapping = DssMapping { dsn: 1, ssn: 2, len: 1448 };
        let dss = Dss { subflow: 1, mapping: Some(mapping), data_ack: Some(9) };
        assert_eq!(TcpOptions { dss: Some(dss), ..TcpOptions::default() }.bytes(), 28, "26 padded");
        let ack_only = Dss { data_ack: Some(9), ..dss };
        let ack_only = Dss { mapping: None, ..ack_only };
        assert_eq!(TcpOptions { dss: Some(ack_only), ..TcpOptions::default() }.bytes(), 12);
        assert_eq!(TcpOptions { dss: Some(dss), ..o }.bytes(), 52, "26 + 26 bytes");
        let data_only = Dss { data_ack: None, ..dss };
        assert_eq!(
            TcpOptions { dss: Some(data_only), ..TcpOptions::default() }.bytes(),
            DATA_DSS_OPTION_BYTES
        );
        assert_eq!(DATA_DSS_OPTION_BYTES, 20, "18 padded");
        assert!(TcpOptions::NONE.is_empty() && TcpOptions::NONE == TcpOptions::default());
    }
}
