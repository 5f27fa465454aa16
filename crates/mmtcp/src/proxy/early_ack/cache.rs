//! The proxy's state of one flow ([`FlowCache`]): the cached segments in sequence order, the
//! mobile's cumulative ACK `una`, the end `A` of the contiguous data the proxy holds and the
//! cached ranges above it, what the server last heard, the duplicate-ACK count and the last
//! repair ([`Repair`]), the retransmission timer with its RTT estimator, and what waits to be
//! forwarded ([`Hold`](super::Hold)).

use super::params::CacheParams;
use super::range_set::RangeSet;
use crate::ids::{FlowId, NodeId, PacketId};
use crate::net::{SackBlocks, SeqRange, NO_ECHO};
use crate::proxy::env::FlowInfo;
use crate::sim::{SimTime, Timer};
use crate::transport::tcp::rto::RttEstimator;
use crate::transport::tcp::sack_order::RecentPositions;
use crate::transport::tcp::RtoRule;
use std::collections::VecDeque;

/// One cached segment.
#[derive(Clone, Copy, Debug)]
pub(super) struct Segment {
    pub(super) seq: u64,
    pub(super) len: u32,
    /// When the server first sent these bytes (kept on every copy the proxy sends).
    pub(super) first_sent_at: SimTime,
    /// When the proxy last forwarded or retransmitted it.
    pub(super) sent_at: SimTime,
    /// Whether the proxy retransmitted it (no RTT sample then, Karn's rule).
    pub(super) retransmitted: bool,
    /// Whether the proxy has forwarded it (always, unless forwarding waits: [`Hold`](super::Hold)).
    pub(super) forwarded: bool,
    /// Whether a retransmission of it waits for room in the RLC buffer (`Hold::rlc`).
    pub(super) rtx_waiting: bool,
}

impl Segment {
    pub(super) fn end(&self) -> u64 {
        self.seq + self.len as u64
    }

    pub(super) fn range(&self) -> SeqRange {
        SeqRange::new(self.seq, self.end())
    }
}

/// What made a policy repair a hole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepairTrigger {
    /// The mobile's duplicate or partial ACKs.
    Ack,
    /// The retransmission timer.
    Timeout,
}

/// The last retransmission the policy made for a hole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repair {
    /// The cumulative ACK (the first missing byte) it repaired.
    pub hole: u64,
    pub at: SimTime,
    /// One past the highest byte the repair retransmitted: a cumulative ACK at or above it
    /// answers the whole repair.
    pub end: u64,
    /// One past the highest byte forwarded when the recovery this repair belongs to began (RFC
    /// 6582's `recover`): a cumulative ACK below it after the repair is answered is partial —
    /// more was lost.
    pub recover: u64,
}

/// The proxy's state of one flow.
pub(super) struct FlowCache {
    pub(super) flow: FlowId,
    pub(super) server: NodeId,
    pub(super) mobile: NodeId,
    /// The flow's MSS, bytes.
    pub(super) mss: u64,
    /// SACK blocks per early ACK (0 when the flow does not use SACK).
    pub(super) max_sack_blocks: usize,
    /// Cached segments in sequence order, disjoint.
    pub(super) segments: VecDeque<Segment>,
    /// Payload bytes in `segments`.
    pub(super) cached: u64,
    /// The mobile's cumulative ACK.
    pub(super) una: u64,
    /// End of the data from `una` on that the proxy holds without a gap (`A`).
    pub(super) ack_point: u64,
    /// Cached ranges above `ack_point`, reported in SACK blocks.
    pub(super) above: RangeSet,
    /// Positions of the segments cached above `ack_point` most recently received (duplicates
    /// included), most recent first: the order of the SACK blocks (RFC 2018 §4).
    pub(super) recent: RecentPositions,
    /// Ranges above `una` the mobile has SACKed.
    pub(super) sacked: RangeSet,
    /// One past the highest byte received from the server.
    pub(super) high_rx: u64,
    /// One past the highest byte forwarded toward the mobile.
    pub(super) high_fwd: u64,
    /// One past the highest byte retransmitted since the last repair was noted (the end of
    /// the repair being made).
    pub(super) rtx_end: u64,
    /// Whether data from the server has reached the proxy (the handshake is over).
    pub(super) seen_data: bool,
    /// Cumulative ACK and window of the last ACK sent to the server (what the server knows).
    pub(super) last_ack: u64,
    /// The timestamp early ACKs echo (RFC 7323 §4.3 TS.Recent): the send time of the latest
    /// data segment at or below the last ACK sent, as the mobile's TCP would echo it.
    pub(super) ts_recent: SimTime,
    pub(super) last_window: u64,
    /// Duplicate ACKs of the mobile at `una` so far.
    pub(super) dupacks: u32,
    pub(super) repair: Option<Repair>,
    pub(super) rtt: RttEstimator,
    pub(super) timer: Timer,
    /// Right edge of the mobile's receive window: `ack + window` of its latest segment.
    pub(super) mobile_edge: u64,
    /// Cached segments waiting to be forwarded, in arrival order ([`Hold`](super::Hold)).
    pub(super) held: VecDeque<PacketId>,
    /// Retransmissions waiting for room in the RLC buffer, with their priority flag.
    pub(super) held_rtx: VecDeque<(PacketId, bool)>,
}

impl FlowCache {
    pub(super) fn new(info: &FlowInfo, p: &CacheParams) -> FlowCache {
        FlowCache {
            flow: info.id,
            server: info.src,
            mobile: info.dst,
            mss: info.tcp.mss.0,
            max_sack_blocks: if info.tcp.sack { info.tcp.max_sack_blocks as usize } else { 0 },
            segments: VecDeque::new(),
            cached: 0,
            una: 0,
            ack_point: 0,
            above: RangeSet::default(),
            recent: RecentPositions::default(),
            sacked: RangeSet::default(),
            high_rx: 0,
            high_fwd: 0,
            rtx_end: 0,
            seen_data: false,
            last_ack: 0,
            last_window: p.cache,
            dupacks: 0,
            repair: None,
            rtt: RttEstimator::new(RtoRule::Rfc6298, p.initial_rto, p.min_rto, p.max_rto),
            ts_recent: NO_ECHO,
            timer: Timer::default(),
            mobile_edge: 0,
            held: VecDeque::new(),
            held_rtx: VecDeque::new(),
        }
    }

    /// The SACK blocks of an early ACK (RFC 2018 §4): the cached range holding the most recently
    /// received segment above `A` first (the segment that triggered the ACK, unless it moved
    /// `A`), then the ranges of the other recently received segments, most recent first, each
    /// once, up to `max_sack_blocks`. Ranges `A` has absorbed are no longer reported.
    pub(super) fn sack_blocks(&self) -> SackBlocks {
        self.recent.blocks(self.max_sack_blocks, |seq| self.above.containing(seq))
    }

    /// Index of the first cached segment that ends after `seq`.
    pub(super) fn index_after(&self, seq: u64) -> usize {
        self.segments.partition_point(|s| s.end() <= seq)
    }

    /// Index of the cached segment that starts at `seq`, if the cache still holds it.
    pub(super) fn index_of(&self, seq: u64) -> Option<usize> {
        let i = self.index_after(seq);
        self.segments.get(i).is_some_and(|s| s.seq == seq).then_some(i)
    }
}
