//! Transparent mode (38.322 §5.2.1): an SDU goes into a transport block unchanged, whole, with no
//! header, and is delivered as soon as its block is decoded. No SN is carried on the air; the SN
//! of a segment here is only the bookkeeping key of the layer above. Nothing is reordered,
//! reassembled or retransmitted, and the SDUs of a block HARQ gives up on simply never arrive.

use super::sdu_buffer::SduBuffer;
use super::{RlcSegment, RxOutcome};
use crate::sim::SimTime;

/// Whole SDUs that fit, in order; stops at the first that does not (no segmentation, so a
/// smaller SDU behind it waits too).
pub(super) fn fill(
    now: SimTime,
    tb_bytes: u32,
    buffer: &mut SduBuffer,
    out: &mut Vec<RlcSegment>,
    dropped: &mut Vec<u64>,
) -> u32 {
    let mut used = 0;
    loop {
        let room = tb_bytes - used;
        let Some(sdu) = buffer.dequeue(now, dropped, |s| s.len <= room) else { break };
        out.push(RlcSegment {
            sn: sdu.sn,
            start: 0,
            end: sdu.len,
            sdu_len: sdu.len,
            poll: false,
            retx: false,
        });
        used += sdu.len;
    }
    used
}

pub(super) fn on_segment(seg: &RlcSegment, out: &mut Vec<RxOutcome>) {
    debug_assert!(seg.start == 0 && seg.end == seg.sdu_len, "TM carries whole SDUs: {seg:?}");
    out.push(RxOutcome::Deliver(seg.sn));
}

#[cfg(test)]
mod tests {
    use super::super::*;

    fn tm() -> RlcConfig {
        RlcConfig { mode: RlcMode::Tm, ..RlcConfig::default() }
    }

    #[test]
    fn test_tm_sends_whole_sdus_that_fit_without_header() {
        let mut tx = RlcTx::new(&tm());
        for len in [1000, 500, 2000] {
            tx.offer(SimTime::ZERO, len);
        }
        let (mut out, mut dropped) = (Vec::new(), Vec::new());
        assert_eq!(tx.fill(SimTime::ZERO, 1600, &mut out, &mut dropped), 1500);
        assert_eq!(
            out.iter().map(|s| (s.sn, s.start, s.end)).collect::<Vec<_>>(),
            vec![(0, 0, 1000), (1, 0, 500)]
        );
        out.clear();
        assert_eq!(tx.fill(SimTime::ZERO, 1999, &mut out, &mut dropped), 0, "2000 bytes do not fit in 1999");
        assert!(out.is_empty() && tx.has_pending());
        assert_eq!(tx.fill(SimTime::ZERO, 2000, &mut out, &mut dropped), 2000);
        assert!(!tx.has_pending());
        assert_eq!(tx.stats().bytes_sent, 3500);
    }

    #[test]
    fn test_tm_delivers_on_arrival_in_any_order() {
        let mut rx = RlcRx::new(&tm());
        let mut out = Vec::new();
        for sn in [3, 1, 2] {
            let seg = RlcSegment { sn, start: 0, end: 100, sdu_len: 100, poll: false, retx: false };
            rx.on_segment(SimTime::ZERO, &seg, &mut out);
        }
        assert_eq!(out, vec![RxOutcome::Deliver(3), RxOutcome::Deliver(1), RxOutcome::Deliver(2)]);
        rx.on_discard(7, &mut out);
        assert_eq!(out[3], RxOutcome::Lost(7));
        assert_eq!(rx.next_deadline(), None);
    }
}
