//! Passive minimum-RTT measurement of one flow at a node on its path (Drago et al. §III: the proxy
//! knows "the minimum round-trip time T of the flow"; in the control deployment it measures it
//! from the packets crossing it).
//!
//! Each data segment is timed when it is first seen; the first cumulative ACK that covers its
//! end gives the sample `ack seen − segment first seen`. Segments seen more than once (a
//! retransmission, or a retransmission overlapping them) give no sample, since the ACK cannot
//! tell which copy it answers (Karn's algorithm, Karn & Partridge 1987; RFC 6298 §3). With the
//! proxy next to the server, the samples measure the proxy–UE round trip: the flow's RTT less the
//! server–proxy link's two-way delay. SACK blocks give no samples (a simplification: the minimum
//! needs many samples, not every one).

use crate::sim::{Duration, SimTime};
use std::collections::VecDeque;

/// Segments timed at once; beyond this the oldest are forgotten (they then give no sample).
/// 65 536 segments of 1448 B are 95 MB in flight, far above any send buffer of the scenarios.
const MAX_TIMED: usize = 1 << 16;

#[derive(Clone, Copy, Debug)]
struct Timed {
    start: u64,
    end: u64,
    /// When the segment was first seen.
    seen_at: SimTime,
    /// Seen more than once: no sample (Karn).
    again: bool,
}

/// The RTT probe of one flow.
#[derive(Clone, Debug, Default)]
pub struct RttProbe {
    /// Segments seen and not yet acknowledged, by increasing sequence number. Grows to the most
    /// segments in flight, then reused.
    timed: VecDeque<Timed>,
    /// One past the highest byte seen.
    high: u64,
    min: Option<Duration>,
    /// Samples taken.
    pub samples: u64,
    /// Acknowledged segments that gave no sample because they were seen twice.
    pub karn_skipped: u64,
}

impl RttProbe {
    /// The smallest sample so far.
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min
    }

    /// A data segment `[seq, seq + len)` crossed the node at `now`.
    pub fn on_data(&mut self, now: SimTime, seq: u64, len: u32) {
        let end = seq + len as u64;
        if seq < self.high {
            // Bytes seen before: every timed segment they overlap is ambiguous.
            let first = self.timed.partition_point(|t| t.end <= seq);
            for t in self.timed.range_mut(first..) {
                if t.start >= end {
                    break;
                }
                t.again = true;
            }
        }
        if end > self.high {
            if self.timed.len() == MAX_TIMED {
                self.timed.pop_front();
            }
            let start = seq.max(self.high);
            self.timed.push_back(Timed { start, end, seen_at: now, again: false });
            self.high = end;
        }
    }

    /// A cumulative ACK for `ack` crossed the node at `now`.
    pub fn on_ack(&mut self, now: SimTime, ack: u64) {
        while let Some(t) = self.timed.front().copied().filter(|t| t.end <= ack) {
            self.timed.pop_front();
            if t.again {
                self.karn_skipped += 1;
                continue;
            }
            let sample = now - t.seen_at;
            self.samples += 1;
            self.min = Some(self.min.map_or(sample, |m| m.min(sample)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + Duration::from_millis(ms)
    }

    fn seg(p: &mut RttProbe, ms: u64, k: u64) {
        p.on_data(at(ms), k * MSS as u64, MSS);
    }

    #[test]
    fn test_probe_ack_covering_a_segment_gives_its_sample() {
        let mut p = RttProbe::default();
        assert_eq!(p.min_rtt(), None);
        seg(&mut p, 0, 0);
        seg(&mut p, 5, 1);
        p.on_ack(at(30), 500);
        assert_eq!((p.min_rtt(), p.samples), (None, 0), "a partial ACK covers no whole segment");
        p.on_ack(at(40), 1000);
        assert_eq!(p.min_rtt(), Some(Duration::from_millis(40)));
        // A delayed ACK covering two segments: both give samples; the later one is smaller.
        seg(&mut p, 50, 2);
        p.on_ack(at(70), 3000);
        assert_eq!(p.min_rtt(), Some(Duration::from_millis(20)), "segment 2: 70 − 50");
        assert_eq!(p.samples, 3);
        p.on_ack(at(80), 3000);
        assert_eq!(p.samples, 3, "a duplicate ACK gives nothing");
    }

    #[test]
    fn test_probe_karn_skips_segments_seen_twice() {
        let mut p = RttProbe::default();
        seg(&mut p, 0, 0);
        seg(&mut p, 1, 1);
        seg(&mut p, 2, 2);
        // Segment 1 is retransmitted at 50 ms; the ACK at 55 ms would claim 5 ms (or 54 ms).
        seg(&mut p, 50, 1);
        p.on_ack(at(55), 3000);
        assert_eq!(p.min_rtt(), Some(Duration::from_millis(53)), "segments 0 and 2 only");
        assert_eq!((p.samples, p.karn_skipped), (2, 1));
        // A retransmission overlapping two segments (different boundaries) taints both.
        seg(&mut p, 60, 3);
        seg(&mut p, 61, 4);
        p.on_data(at(70), 3 * MSS as u64 + 500, MSS);
        p.on_ack(at(71), 5000);
        assert_eq!((p.samples, p.karn_skipped), (2, 3));
        // A segment that is partly new is timed for its new bytes.
        seg(&mut p, 80, 5);
        p.on_data(at(90), 5 * MSS as u64 + 500, MSS);
        p.on_ack(at(92), 6500);
        assert_eq!(p.min_rtt(), Some(Duration::from_millis(2)), "bytes 6000..6500 first seen at 90 ms");
        assert_eq!(p.karn_skipped, 4);
    }
}
