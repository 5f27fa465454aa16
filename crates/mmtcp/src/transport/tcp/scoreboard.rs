//! The sender's retransmission queue and SACK scoreboard (RFC 6675 §2–4).
//!
//! Every segment sent and not yet cumulatively acknowledged is kept in sequence order with three
//! marks: SACKED (the receiver holds it), LOST (deemed lost: RFC 6675 `IsLost`, or marked by the
//! sender on entering recovery or on a timeout) and RETRANS (a retransmission of it is in
//! flight). From byte counters over those marks, kept up to date as marks change,
//!
//!   pipe = outstanding − SACKed − lost + retransmitted                (RFC 6675 `SetPipe`)
//!
//! costs O(1) instead of the RFC's scan of the whole window.
//!
//! `IsLost(seq)` holds when more than (DupThresh − 1)·SMSS bytes above `seq` are SACKed (the
//! byte rule of RFC 6675 §4; the rule counting discontiguous SACKed sequences only differs for
//! sub-MSS segments, which this sender does not produce in bulk, and is not modelled). Since SACKed
//! bytes above a point only grow, the lost segments form a prefix of the unSACKed ones: a scan
//! pointer marks them once each, so loss marking is amortised O(1) per segment.
//!
//! Without SACK, each duplicate ACK is counted as one segment that has left the network, as Linux
//! does (`tcp_add_reno_sack`): it is the RFC 6582 window inflation expressed in `pipe`.
//!
//! Lost retransmissions: RFC 6675 alone detects them only by the retransmission timer. As Linux
//! did before RACK (`tcp_mark_lost_retrans`, Linux 2.6.22–4.17), a retransmission is deemed lost
//! when more than (DupThresh − 1)·SMSS bytes *first sent after it* have been SACKed: on a FIFO
//! path the later data overtook it. Its segment becomes eligible for retransmission again.
//! Retransmissions are checked in the order they were sent, so this costs O(1) amortised.
//!
//! The segments sit in a ring buffer (`VecDeque`) in sequence order. Invariants:
//!
//! - they are contiguous: the first starts at `una`, each starts where the previous one ends, the
//!   last ends at `high_data` (segments are never split or merged; a retransmission resends one
//!   whole);
//! - the cumulative ACK pops whole segments from the front, new data is pushed at the back;
//! - the scan pointer `loss_scan` and the retransmission cursor `rtx_cursor` lie on segment
//!   boundaries in `[una, high_data]`;
//! - the byte counters equal a recount over the marks (`check_invariants` in the tests).
//!
//! Finding a segment by sequence number: when the segments below `seq` all have the stride's
//! length (the MSS: what bulk senders produce), the one holding `seq` is at index
//! `(seq − una) / stride`; that guess is checked against the segment found there, and only when
//! it misses (a shorter segment below, written by an application in small pieces) does a binary
//! search run. SACK blocks and the cursors of loss recovery use it; the common case does not
//! look up at all: a cumulative ACK over in-order segments pops from the front, and loss
//! detection and `NextSeg` return at once when no byte at or above the scan pointer is SACKed and
//! the retransmission cursor has reached the scan pointer (without loss, both sit at `una`).
//!
//! Costs per ACK: O(1) when nothing is SACKed; in recovery, a direct (or, with irregular
//! segment sizes, logarithmic) lookup per SACK block and cursor, plus O(1) amortised per segment
//! newly acknowledged, SACKed, marked lost or retransmitted — never a walk over the window.
//! Nothing allocates once the buffers (segments, SACKed ranges, retransmission order, the
//! scratch list of a SACK block's new parts) have grown to the run's peak.

use super::intervals::IntervalSet;
use crate::net::SeqRange;
use crate::sim::{Duration, SimTime};
use std::collections::VecDeque;

const SACKED: u8 = 1;
const LOST: u8 = 2;
const RETRANS: u8 = 4;
const EVER_RETRANS: u8 = 8;

/// What the sender's delivery-rate estimator knew when a segment was last (re)transmitted
/// (draft-cheng-iccrg-delivery-rate-estimation §3.2; Linux `tcp_rate_skb_sent`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxStamp {
    /// Bytes the connection had delivered.
    pub delivered: u64,
    /// When that count last grew (or the send phase began).
    pub delivered_time: SimTime,
    /// When the current send phase's first segment was sent.
    pub first_tx: SimTime,
    /// The sender was application-limited.
    pub app_limited: bool,
}

/// One segment in flight.
#[derive(Clone, Copy, Debug)]
pub struct Segment {
    pub start: u64,
    /// Payload bytes.
    pub len: u32,
    flags: u8,
    /// When it was last (re)transmitted.
    pub sent_at: SimTime,
    /// When it was first transmitted.
    pub first_sent_at: SimTime,
    /// The rate estimator's state at the last (re)transmission.
    pub stamp: TxStamp,
}

impl Segment {
    pub fn end(&self) -> u64 {
        self.start + self.len as u64
    }
    pub fn is_sacked(&self) -> bool {
        self.flags & SACKED != 0
    }
    pub fn is_lost(&self) -> bool {
        self.flags & LOST != 0
    }
    pub fn is_retransmitted(&self) -> bool {
        self.flags & EVER_RETRANS != 0
    }
}

/// What a cumulative ACK or a SACK block newly acknowledged.
#[derive(Clone, Copy, Debug, Default)]
pub struct Acked {
    pub bytes: u64,
    pub segments: u64,
    /// Send time of the most recently sent newly acknowledged segment that was never
    /// retransmitted.
    pub newest_clean_send: Option<SimTime>,
    /// Whether a newly acknowledged segment had been retransmitted.
    pub retransmitted: bool,
    /// The most recently (re)transmitted newly acknowledged segment: its send time and rate
    /// stamp (the delivery-rate sample is taken from it; Linux `tcp_rate_skb_delivered`).
    pub newest: Option<(SimTime, TxStamp)>,
}

impl Acked {
    fn add(&mut self, seg: &Segment) {
        self.bytes += seg.len as u64;
        self.segments += 1;
        if self.newest.is_none_or(|(sent, _)| seg.sent_at >= sent) {
            self.newest = Some((seg.sent_at, seg.stamp));
        }
        if seg.is_retransmitted() {
            self.retransmitted = true;
        } else {
            self.newest_clean_send = Some(self.newest_clean_send.map_or(seg.sent_at, |t| t.max(seg.sent_at)));
        }
    }

    pub fn merge(&mut self, other: Acked) {
        self.bytes += other.bytes;
        self.segments += other.segments;
        self.newest_clean_send = match (self.newest_clean_send, other.newest_clean_send) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.retransmitted |= other.retransmitted;
        self.newest = match (self.newest, other.newest) {
            (Some(a), Some(b)) => Some(if b.0 >= a.0 { b } else { a }),
            (a, b) => a.or(b),
        };
    }

    /// The RTT sample at `now`, if this acknowledgement gives one: from the most recently sent
    /// segment it newly acknowledges, and none when it also acknowledges a retransmitted one
    /// (Karn's algorithm, RFC 6298 §3). Such an ACK may be the one that closes a hole, whose
    /// clean segments above the hole waited for the repair: timing them would measure the
    /// repair, not the path (Linux likewise takes no sequence-based sample when retransmitted
    /// data is acknowledged).
    pub fn rtt_sample(&self, now: SimTime) -> Option<Duration> {
        if self.retransmitted {
            return None;
        }
        self.newest_clean_send.map(|t| now - t)
    }
}

#[derive(Clone, Debug)]
pub struct Scoreboard {
    segs: VecDeque<Segment>,
    /// The usual segment length (the MSS), for finding a segment by sequence number directly.
    stride: u64,
    sacked_ranges: IntervalSet,
    /// Scratch: the parts of a SACK block that were not SACKed before.
    new_parts: Vec<SeqRange>,
    /// Lowest unacknowledged byte (SND.UNA).
    una: u64,
    /// One past the highest byte sent (RFC 6675 HighData, SND.MAX).
    high_data: u64,
    sacked_bytes: u64,
    /// LOST and not SACKED.
    lost_bytes: u64,
    /// Bytes ever marked lost.
    lost_total: u64,
    /// RETRANS and not SACKED.
    retrans_bytes: u64,
    /// Duplicate ACKs counted as departed segments when SACK is off, in bytes.
    reno_sacked_bytes: u64,
    /// Every unSACKed segment starting below this is marked LOST.
    loss_scan: u64,
    /// SACKed bytes in [una, loss_scan).
    sacked_below_scan: u64,
    /// No segment below this is LOST, unSACKed and awaiting retransmission.
    rtx_cursor: u64,
    /// Retransmissions in the order sent: (segment start, HighData when it was sent).
    rtx_order: VecDeque<(u64, u64)>,
}

impl Scoreboard {
    /// An empty scoreboard for segments of at most `mss` bytes.
    pub fn new(mss: u32) -> Self {
        debug_assert!(mss > 0);
        Scoreboard {
            segs: VecDeque::new(),
            stride: mss as u64,
            sacked_ranges: IntervalSet::new(),
            new_parts: Vec::new(),
            una: 0,
            high_data: 0,
            sacked_bytes: 0,
            lost_bytes: 0,
            lost_total: 0,
            retrans_bytes: 0,
            reno_sacked_bytes: 0,
            loss_scan: 0,
            sacked_below_scan: 0,
            rtx_cursor: 0,
            rtx_order: VecDeque::new(),
        }
    }

    pub fn una(&self) -> u64 {
        self.una
    }

    pub fn high_data(&self) -> u64 {
        self.high_data
    }

    pub fn outstanding(&self) -> u64 {
        self.high_data - self.una
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    pub fn segments(&self) -> usize {
        self.segs.len()
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }

    pub fn lost_bytes(&self) -> u64 {
        self.lost_bytes
    }

    /// RFC 6675 `pipe`: bytes the sender believes are in the network.
    pub fn pipe(&self) -> u64 {
        (self.outstanding() + self.retrans_bytes)
            .saturating_sub(self.sacked_bytes + self.lost_bytes + self.reno_sacked_bytes)
    }

    /// The first unacknowledged segment.
    pub fn head(&self) -> Option<&Segment> {
        self.segs.front()
    }

    /// Index of the segment containing `seq`, or of the first one above it: directly when the
    /// segments below `seq` have the stride's length, else by binary search (see the module
    /// header).
    fn index_at(&self, seq: u64) -> usize {
        if seq <= self.una {
            return 0;
        }
        if seq >= self.high_data {
            return self.segs.len();
        }
        let guess = ((seq - self.una) / self.stride) as usize;
        match self.segs.get(guess) {
            Some(s) if s.start <= seq && seq < s.end() => guess,
            _ => self.segs.partition_point(|s| s.end() <= seq),
        }
    }

    /// The segment starting at `seq`.
    pub fn get(&self, seq: u64) -> Option<&Segment> {
        self.segs.get(self.index_at(seq)).filter(|s| s.start == seq)
    }

    /// Records a first transmission of `[high_data, high_data + len)`.
    pub fn push(&mut self, len: u32, now: SimTime, stamp: TxStamp) {
        debug_assert!(len > 0);
        let start = self.high_data;
        self.segs.push_back(Segment { start, len, flags: 0, sent_at: now, first_sent_at: now, stamp });
        self.high_data += len as u64;
    }

    /// Cumulative acknowledgement up to `ack` (exclusive). Acks that are not at a segment
    /// boundary acknowledge only the whole segments below them.
    pub fn ack(&mut self, ack: u64) -> Acked {
        let mut acked = Acked::default();
        while let Some(seg) = self.segs.front().copied() {
            if seg.end() > ack {
                break;
            }
            self.segs.pop_front();
            self.una = seg.end();
            if !seg.is_sacked() {
                // A SACKed segment was already counted as delivered.
                acked.add(&seg);
            }
            self.forget(&seg);
        }
        self.reno_sacked_bytes = self.reno_sacked_bytes.saturating_sub(acked.bytes);
        self.sacked_ranges.remove_below(self.una);
        if self.loss_scan < self.una {
            self.loss_scan = self.una;
            self.sacked_below_scan = 0;
        }
        self.rtx_cursor = self.rtx_cursor.max(self.una);
        acked
    }

    /// Removes a segment's contribution to the counters.
    fn forget(&mut self, seg: &Segment) {
        let len = seg.len as u64;
        if seg.is_sacked() {
            self.sacked_bytes -= len;
            if seg.start < self.loss_scan {
                self.sacked_below_scan -= len;
            }
        } else {
            if seg.flags & LOST != 0 {
                self.lost_bytes -= len;
            }
            if seg.flags & RETRANS != 0 {
                self.retrans_bytes -= len;
            }
        }
    }

    /// Applies one SACK block; returns what it newly acknowledged.
    pub fn sack(&mut self, block: SeqRange) -> Acked {
        let end = block.end.min(self.high_data).max(self.una);
        let block = SeqRange::new(block.start.max(self.una).min(end), end);
        let mut acked = Acked::default();
        if block.is_empty() {
            return acked;
        }
        let mut new_parts = std::mem::take(&mut self.new_parts);
        self.sacked_ranges.insert(block, |p| new_parts.push(p));
        for part in new_parts.drain(..) {
            let mut i = self.index_at(part.start);
            while let Some(seg) = self.segs.get(i).copied() {
                if seg.start >= part.end {
                    break;
                }
                // Only whole segments count as SACKed.
                if seg.start >= part.start && seg.end() <= part.end && !seg.is_sacked() {
                    self.mark_sacked(i);
                    acked.add(&seg);
                }
                i += 1;
            }
        }
        self.new_parts = new_parts;
        acked
    }

    fn mark_sacked(&mut self, i: usize) {
        let seg = self.segs[i];
        let len = seg.len as u64;
        if seg.flags & LOST != 0 {
            self.lost_bytes -= len;
        }
        if seg.flags & RETRANS != 0 {
            self.retrans_bytes -= len;
        }
        self.sacked_bytes += len;
        if seg.start < self.loss_scan {
            self.sacked_below_scan += len;
        }
        self.segs[i].flags |= SACKED;
    }

    fn mark_lost(&mut self, i: usize) {
        let seg = &mut self.segs[i];
        if seg.flags & (SACKED | LOST) == 0 {
            seg.flags |= LOST;
            self.lost_bytes += seg.len as u64;
            self.lost_total += seg.len as u64;
        }
    }

    /// Bytes ever marked lost, a lost retransmission counting again (Linux's `tp->lost`).
    pub fn lost_total(&self) -> u64 {
        self.lost_total
    }

    /// Runs RFC 6675 `IsLost` forward from the scan pointer: marks unSACKed segments lost while
    /// more than `(dupthresh − 1)·mss` bytes above them are SACKed.
    pub fn detect_losses(&mut self, dupthresh: u32, mss: u32) {
        if self.sacked_bytes == self.sacked_below_scan {
            // Nothing SACKed at or above the scan pointer: `IsLost` holds for no segment there.
            return;
        }
        let threshold = (dupthresh.saturating_sub(1) as u64) * mss as u64;
        let mut i = self.index_at(self.loss_scan);
        while let Some(seg) = self.segs.get(i).copied() {
            if seg.is_sacked() {
                self.sacked_below_scan += seg.len as u64;
            } else if self.sacked_bytes - self.sacked_below_scan > threshold {
                self.mark_lost(i);
            } else {
                break;
            }
            self.loss_scan = seg.end();
            i += 1;
        }
    }

    /// Marks every unSACKed segment below `seq` lost (entering recovery marks the first
    /// unacknowledged segment, RFC 6675 §5 step 4.3; a NewReno partial ACK marks the next hole).
    pub fn mark_lost_below(&mut self, seq: u64) {
        let mut i = self.index_at(self.loss_scan);
        while let Some(seg) = self.segs.get(i).copied() {
            if seg.start >= seq {
                break;
            }
            if seg.is_sacked() {
                self.sacked_below_scan += seg.len as u64;
            } else {
                self.mark_lost(i);
            }
            self.loss_scan = seg.end();
            i += 1;
        }
    }

    /// Whether the first unacknowledged segment is marked lost (RFC 6675 `IsLost(HighACK + 1)`).
    pub fn head_is_lost(&self) -> bool {
        self.segs.front().is_some_and(|s| s.is_lost() && !s.is_sacked())
    }

    /// A retransmission timeout: every unSACKed segment is lost, no retransmission is in flight
    /// any more, and retransmission restarts from the first unacknowledged byte. SACK marks are
    /// kept (as Linux does, unless the receiver reneges, which ours never does).
    pub fn on_timeout(&mut self) {
        for i in 0..self.segs.len() {
            self.segs[i].flags &= !RETRANS;
            self.mark_lost(i);
        }
        self.retrans_bytes = 0;
        self.rtx_order.clear();
        self.reno_sacked_bytes = 0;
        self.loss_scan = self.high_data;
        self.sacked_below_scan = self.sacked_bytes;
        self.rtx_cursor = self.una;
    }

    /// RFC 6675 `NextSeg()` rule 1: the first segment that is lost, not SACKed and not yet
    /// retransmitted. Returns its start.
    pub fn next_retransmission(&mut self) -> Option<u64> {
        if self.rtx_cursor >= self.loss_scan {
            // Only segments below the scan pointer are marked lost.
            return None;
        }
        let mut i = self.index_at(self.rtx_cursor);
        while let Some(seg) = self.segs.get(i) {
            if seg.start >= self.loss_scan {
                break;
            }
            if seg.flags & (SACKED | RETRANS) == 0 && seg.flags & LOST != 0 {
                self.rtx_cursor = seg.start;
                return Some(seg.start);
            }
            self.rtx_cursor = seg.end();
            i += 1;
        }
        None
    }

    /// Records a retransmission of the segment starting at `seq`; returns it.
    pub fn retransmit(&mut self, seq: u64, now: SimTime, stamp: TxStamp) -> Segment {
        let i = self.index_at(seq);
        let seg = &mut self.segs[i];
        debug_assert_eq!(seg.start, seq);
        if seg.flags & RETRANS == 0 && seg.flags & SACKED == 0 {
            self.retrans_bytes += seg.len as u64;
        }
        seg.flags |= RETRANS | EVER_RETRANS;
        seg.sent_at = now;
        seg.stamp = stamp;
        let seg = *seg;
        self.rtx_order.push_back((seq, self.high_data));
        seg
    }

    /// Marks retransmissions lost when enough data sent after them has been SACKed (see the
    /// module header); their segments become eligible for `next_retransmission` again. Returns
    /// how many were found lost.
    pub fn detect_lost_retransmissions(&mut self, dupthresh: u32, mss: u32) -> u64 {
        let Some(high_sacked) = self.sacked_ranges.end() else { return 0 };
        let margin = (dupthresh.saturating_sub(1) as u64) * mss as u64;
        let mut found = 0;
        while let Some(&(seq, high_data_then)) = self.rtx_order.front() {
            let i = self.index_at(seq);
            let still_out =
                self.segs.get(i).is_some_and(|s| s.start == seq && s.flags & RETRANS != 0 && !s.is_sacked());
            if still_out {
                if high_sacked <= high_data_then + margin {
                    break; // later retransmissions were sent later still: none is lost yet
                }
                let seg = &mut self.segs[i];
                seg.flags &= !RETRANS;
                self.retrans_bytes -= seg.len as u64;
                self.lost_total += seg.len as u64;
                self.rtx_cursor = self.rtx_cursor.min(seq);
                found += 1;
            }
            self.rtx_order.pop_front();
        }
        found
    }

    /// Without SACK: a duplicate ACK means one more segment has left the network.
    pub fn add_reno_dupack(&mut self, mss: u32) {
        let room = self.outstanding().saturating_sub(self.sacked_bytes + self.lost_bytes);
        self.reno_sacked_bytes = (self.reno_sacked_bytes + mss as u64).min(room);
    }

    /// Forgets the duplicate-ACK credit (recovery is over).
    pub fn clear_reno_dupacks(&mut self) {
        self.reno_sacked_bytes = 0;
    }

    /// Checks every counter against a recount (tests and debug builds).
    #[cfg(test)]
    fn check_invariants(&self) {
        let mut sacked = 0;
        let mut lost = 0;
        let mut retrans = 0;
        let mut below_scan = 0;
        let mut expect = self.una;
        let mut boundaries = vec![self.high_data];
        for (i, s) in self.segs.iter().enumerate() {
            assert_eq!(s.start, expect, "segments are contiguous");
            boundaries.push(s.start);
            for seq in [s.start, s.start + s.len as u64 / 2, s.end() - 1] {
                assert_eq!(self.index_at(seq), i, "direct or searched, the lookup finds the segment");
            }
            expect = s.end();
            let len = s.len as u64;
            if s.is_sacked() {
                sacked += len;
                if s.start < self.loss_scan {
                    below_scan += len;
                }
            } else {
                if s.flags & LOST != 0 {
                    lost += len;
                }
                if s.flags & RETRANS != 0 {
                    retrans += len;
                }
                if s.start < self.loss_scan {
                    assert!(s.is_lost(), "unSACKed segment below the scan pointer is lost");
                }
            }
        }
        assert_eq!(expect, self.high_data);
        assert_eq!(self.index_at(self.una.saturating_sub(1)), 0);
        assert_eq!(self.index_at(self.high_data), self.segs.len());
        assert!(boundaries.contains(&self.loss_scan), "scan pointer on a segment boundary");
        assert!(boundaries.contains(&self.rtx_cursor), "retransmission cursor on a segment boundary");
        assert_eq!(
            (sacked, lost, retrans, below_scan),
            (self.sacked_bytes, self.lost_bytes, self.retrans_bytes, self.sacked_below_scan)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MSS: u32 = 1000;

    fn board(n: u32) -> Scoreboard {
        let mut b = Scoreboard::new(MSS);
        for i in 0..n {
            b.push(MSS, SimTime(i as u64), TxStamp::default());
        }
        b
    }

    fn r(a: u64, b: u64) -> SeqRange {
        SeqRange::new(a, b)
    }

    #[test]
    fn test_open_cumulative_ack_pops_and_samples_newest() {
        let mut b = board(5);
        let acked = b.ack(3000);
        assert_eq!((acked.bytes, acked.segments), (3000, 3));
        assert_eq!(acked.newest_clean_send, Some(SimTime(2)));
        assert_eq!(b.una(), 3000);
        assert_eq!(b.pipe(), 2000);
        b.check_invariants();
    }

    #[test]
    fn test_sack_three_above_hole_marks_it_lost() {
        let mut b = board(10);
        // Segment 0 lost; 1 and 2 SACKed: 2 MSS above → not lost yet (needs > 2 MSS).
        b.sack(r(1000, 3000));
        b.detect_losses(3, MSS);
        assert!(!b.head_is_lost());
        assert_eq!(b.pipe(), 8000);
        b.sack(r(1000, 4000));
        b.detect_losses(3, MSS);
        assert!(b.head_is_lost());
        // pipe = 10 − 3 SACKed − 1 lost = 6 segments
        assert_eq!(b.pipe(), 6000);
        assert_eq!(b.next_retransmission(), Some(0));
        b.retransmit(0, SimTime(100), TxStamp::default());
        assert_eq!(b.pipe(), 7000);
        assert_eq!(b.next_retransmission(), None);
        b.check_invariants();
    }

    #[test]
    fn test_recovery_cumulative_ack_after_retransmission() {
        let mut b = board(10);
        b.sack(r(1000, 4000));
        b.detect_losses(3, MSS);
        b.retransmit(0, SimTime(100), TxStamp::default());
        let acked = b.ack(4000);
        // Only segment 0 is newly acknowledged; 1–3 were SACKed already. It was retransmitted:
        // no RTT sample (Karn).
        assert_eq!(acked.bytes, 1000);
        assert_eq!(acked.newest_clean_send, None);
        assert_eq!(b.pipe(), 6000);
        b.check_invariants();
    }

    #[test]
    fn test_repeated_sack_block_is_idempotent() {
        let mut b = board(10);
        let first = b.sack(r(2000, 5000));
        let again = b.sack(r(2000, 5000));
        assert_eq!(first.bytes, 3000);
        assert_eq!(again.bytes, 0);
        b.check_invariants();
    }

    #[test]
    fn test_timeout_marks_all_unsacked_lost_and_restarts_at_una() {
        let mut b = board(6);
        b.sack(r(3000, 4000));
        b.on_timeout();
        assert_eq!(b.pipe(), 0);
        let mut order = Vec::new();
        while let Some(seq) = b.next_retransmission() {
            b.retransmit(seq, SimTime(50), TxStamp::default());
            order.push(seq);
        }
        assert_eq!(order, vec![0, 1000, 2000, 4000, 5000], "SACKed segment skipped");
        assert_eq!(b.pipe(), 5000);
        b.check_invariants();
    }

    #[test]
    fn test_no_sack_dupacks_inflate_like_rfc6582() {
        let mut b = board(10);
        for _ in 0..3 {
            b.add_reno_dupack(MSS);
        }
        b.mark_lost_below(1000);
        // 10 outstanding − 3 departed − 1 lost = 6
        assert_eq!(b.pipe(), 6000);
        b.retransmit(0, SimTime(20), TxStamp::default());
        assert_eq!(b.pipe(), 7000);
        // Partial ACK of the retransmission plus the 3 dupacked segments.
        b.ack(4000);
        assert_eq!(b.pipe(), 6000);
        b.check_invariants();
    }

    #[test]
    fn test_recovery_lost_retransmission_is_detected_by_later_sacks() {
        let mut b = board(10);
        b.sack(r(1000, 4000));
        b.detect_losses(3, MSS);
        b.retransmit(0, SimTime(100), TxStamp::default());
        // New data sent after the retransmission: segments 10..14.
        for t in 0..4 {
            b.push(MSS, SimTime(101 + t), TxStamp::default());
        }
        // SACKs for two of them: not enough to condemn the retransmission.
        b.sack(r(10_000, 12_000));
        assert_eq!(b.detect_lost_retransmissions(3, MSS), 0);
        assert_eq!(b.next_retransmission(), None);
        // A third: more than 2 MSS sent after the retransmission arrived, it did not.
        b.sack(r(10_000, 13_000));
        assert_eq!(b.detect_lost_retransmissions(3, MSS), 1);
        assert_eq!(b.next_retransmission(), Some(0));
        b.check_invariants();
    }

    #[derive(Clone, Debug)]
    enum Op {
        Send(u32),
        /// A segment shorter than the MSS: lookups above it cannot index directly.
        SendShort(u32),
        Ack(u64),
        Sack(u64, u64),
        Detect,
        Retransmit,
        Timeout,
        Dupack,
        LostRetransmissions,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (1u32..3).prop_map(Op::Send),
            (1u32..MSS).prop_map(Op::SendShort),
            (0u64..40).prop_map(Op::Ack),
            (0u64..40, 1u64..8).prop_map(|(a, l)| Op::Sack(a, l)),
            Just(Op::Detect),
            Just(Op::Retransmit),
            Just(Op::Timeout),
            Just(Op::Dupack),
            Just(Op::LostRetransmissions),
        ]
    }

    /// RFC 6675 `IsLost` by its definition: more than `(3 − 1)·MSS` bytes above `seg` are SACKed.
    fn is_lost_by_definition(b: &Scoreboard, seg: &Segment) -> bool {
        let above: u64 =
            b.segs.iter().filter(|s| s.start > seg.start && s.is_sacked()).map(|s| s.len as u64).sum();
        above > 2 * MSS as u64
    }

    /// `NextSeg` rule 1 by its definition: the first segment lost, not SACKed, not retransmitted.
    fn next_by_definition(b: &Scoreboard) -> Option<u64> {
        b.segs.iter().find(|s| s.flags & (LOST | SACKED | RETRANS) == LOST).map(|s| s.start)
    }

    proptest! {
        /// Whatever happens, the incrementally kept counters equal a recount, lookups find the
        /// segment holding a byte (directly or by search), pipe never exceeds outstanding +
        /// retransmitted bytes, loss detection and `NextSeg` (with their shortcuts) agree with
        /// the RFC's definitions, and a segment is retransmitted only if lost.
        #[test]
        fn counters_match_recount(ops in proptest::collection::vec(op(), 1..200)) {
            let mut b = Scoreboard::new(MSS);
            let mut t = 0u64;
            for op in ops {
                t += 1;
                match op {
                    Op::Send(n) => for _ in 0..n { b.push(MSS, SimTime(t), TxStamp::default()); },
                    Op::SendShort(len) => b.push(len, SimTime(t), TxStamp::default()),
                    Op::Ack(k) => { let a = b.una() + k / 4 * MSS as u64; b.ack(a.min(b.high_data())); },
                    Op::Sack(a, l) => { let s = b.una() + a * MSS as u64; b.sack(r(s, s + l * MSS as u64)); },
                    Op::Detect => {
                        b.detect_losses(3, MSS);
                        for seg in b.segs.iter().filter(|s| !s.is_sacked()) {
                            prop_assert!(seg.is_lost() || !is_lost_by_definition(&b, seg), "{:?}", seg);
                        }
                    }
                    Op::Retransmit => {
                        let expected = next_by_definition(&b);
                        let next = b.next_retransmission();
                        prop_assert_eq!(next, expected);
                        if let Some(seq) = next {
                            prop_assert!(b.get(seq).unwrap().is_lost());
                            b.retransmit(seq, SimTime(t), TxStamp::default());
                        }
                    }
                    Op::Timeout => b.on_timeout(),
                    Op::Dupack => b.add_reno_dupack(MSS),
                    Op::LostRetransmissions => { b.detect_lost_retransmissions(3, MSS); }
                }
                b.check_invariants();
                prop_assert!(b.pipe() <= b.outstanding() + b.retrans_bytes);
            }
        }
    }
}
