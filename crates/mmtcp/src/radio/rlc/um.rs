//! Unacknowledged mode: segmentation as in NR (38.322 §5.2.2.1), reassembly and in-sequence
//! delivery with the reordering of LTE (36.322 §5.1.2.2), applied to SDU sequence numbers.
//!
//! Transmitter: each transport block takes the rest of the SDU being segmented, then whole SDUs,
//! then the head of the next one, each piece costing a header. Nothing is ever sent twice.
//!
//! Receiver state (36.322 §7.1, with an SDU counting as received once all its bytes are):
//!
//! ```text
//!   VR(UR)  lowest SN not yet delivered or declared lost      (= RxWindow::base)
//!   VR(UX)  SN following the one that started t-Reordering
//!   VR(UH)  highest SN of which any byte was received, plus one
//! ```
//!
//! * A segment of an SN below VR(UR), or with no new byte, is discarded (§5.1.2.2.2).
//! * A segment at or above VR(UH) moves VR(UH) past it; SDUs that fall out of the reordering
//!   window `[VR(UH) − window, VR(UH))` are resolved: delivered if complete, lost otherwise.
//! * Complete SDUs from VR(UR) on are delivered in order (§5.1.2.2.3).
//! * t-Reordering (our `t_reassembly`) runs while VR(UH) > VR(UR): started with VR(UX) = VR(UH),
//!   stopped once VR(UR) reaches VR(UX). On expiry every SDU below VR(UX) not complete is lost,
//!   and what follows is delivered up to the next incomplete SDU; the timer restarts if data
//!   beyond it remains (§5.1.2.2.4).
//!
//! An SDU none of whose segments arrive, with nothing after it ever arriving, is never resolved:
//! there is nothing to tell the receiver it existed.

use super::sdu_buffer::SduBuffer;
use super::{Placed, RlcConfig, RlcRxStats, RlcSegment, RxOutcome, RxWindow};
use crate::sim::{Duration, SimTime};

#[derive(Debug)]
pub(super) struct UmTx {
    header: u32,
    /// The SDU being segmented: (sn, len, bytes sent).
    partial: Option<(u64, u32, u32)>,
}

impl UmTx {
    pub(super) fn new(config: &RlcConfig) -> UmTx {
        UmTx { header: config.header_bytes, partial: None }
    }

    pub(super) fn header(&self) -> u32 {
        self.header
    }

    pub(super) fn fill(
        &mut self,
        now: SimTime,
        tb_bytes: u32,
        buffer: &mut SduBuffer,
        out: &mut Vec<RlcSegment>,
        dropped: &mut Vec<u64>,
    ) -> u32 {
        let mut used = 0;
        while tb_bytes - used > self.header {
            let (sn, len, sent) = match self.partial {
                Some(p) => p,
                None => match buffer.dequeue(now, dropped, |_| true) {
                    Some(sdu) => (sdu.sn, sdu.len, 0),
                    None => break,
                },
            };
            let n = (len - sent).min(tb_bytes - used - self.header);
            out.push(RlcSegment { sn, start: sent, end: sent + n, sdu_len: len, poll: false, retx: false });
            used += self.header + n;
            self.partial = (sent + n < len).then_some((sn, len, sent + n));
        }
        used
    }

    /// The unsent rest of the SDU being segmented.
    pub(super) fn buffered_bytes(&self) -> u64 {
        self.partial.map_or(0, |(_, len, sent)| (len - sent) as u64)
    }

    pub(super) fn has_pending(&self, buffer: &SduBuffer) -> bool {
        self.partial.is_some() || !buffer.is_empty()
    }

    /// Re-establishment (38.322 §5.1.2): the SDU being segmented is discarded.
    pub(super) fn reestablish(&mut self) {
        self.partial = None;
    }
}

#[derive(Debug)]
pub(super) struct UmRx {
    window: u64,
    t_reordering: Duration,
    /// VR(UR) is `win.base`.
    win: RxWindow,
    vr_ux: u64,
    vr_uh: u64,
    /// t-Reordering expiry, when running.
    deadline: Option<SimTime>,
}

impl UmRx {
    pub(super) fn new(config: &RlcConfig) -> UmRx {
        UmRx {
            window: config.window as u64,
            t_reordering: config.um_t_reordering().0,
            win: RxWindow::default(),
            vr_ux: 0,
            vr_uh: 0,
            deadline: None,
        }
    }

    pub(super) fn on_segment(
        &mut self,
        now: SimTime,
        seg: &RlcSegment,
        stats: &mut RlcRxStats,
        out: &mut Vec<RxOutcome>,
    ) {
        let x = seg.sn;
        // 36.322 §5.1.2.2.2: already delivered or declared lost.
        if x < self.win.base {
            stats.late_segments += 1;
            return;
        }
        if self.win.done(x) {
            stats.duplicate_segments += 1;
            return;
        }
        // 36.322 §5.1.2.2.3: x beyond the reordering window moves it; SDUs falling out of it are
        // resolved now (done before placing x so the window never holds more than `window` SDUs).
        if x >= self.vr_uh {
            self.vr_uh = x + 1;
            while self.win.base + self.window < self.vr_uh {
                self.win.pop_front(out);
            }
        }
        if let Placed::Duplicate = self.win.place(seg) {
            stats.duplicate_segments += 1;
        }
        self.win.pop_done(out);
        self.update_timer(now);
    }

    /// Stops or starts t-Reordering after VR(UR) or VR(UH) moved (36.322 §5.1.2.2.3).
    fn update_timer(&mut self, now: SimTime) {
        self.vr_uh = self.vr_uh.max(self.win.base);
        if self.deadline.is_some() && self.vr_ux <= self.win.base {
            self.deadline = None;
        }
        if self.deadline.is_none() && self.vr_uh > self.win.base {
            self.deadline = Some(now + self.t_reordering);
            self.vr_ux = self.vr_uh;
        }
    }

    /// 36.322 §5.1.2.2.4: t-Reordering expiry.
    pub(super) fn on_timer(&mut self, now: SimTime, out: &mut Vec<RxOutcome>) {
        let Some(deadline) = self.deadline else { return };
        if now < deadline {
            return;
        }
        self.deadline = None;
        while self.win.base < self.vr_ux {
            self.win.pop_front(out);
        }
        self.win.pop_done(out);
        self.update_timer(now);
    }

    pub(super) fn next_deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    /// Re-establishment (38.322 §5.1.2): discard everything, stop t-Reassembly, and expect
    /// `next_sn` next (RX_Next = RX_Next_Highest = `next_sn`, the counterpart of resetting them
    /// to 0 with SNs that restart).
    pub(super) fn reestablish(&mut self, next_sn: u64) {
        self.win.reset(next_sn);
        self.vr_ux = next_sn;
        self.vr_uh = next_sn;
        self.deadline = None;
    }

    /// The transmitter dropped `sn` before sending it (CoDel): do not wait for it.
    ///
    /// The timer is left as it is. If VR(UH) > VR(UR) now, t-Reordering was already running (it
    /// runs whenever VR(UH) > VR(UR) after a reception or an expiry, and VR(UR) only grew); a run
    /// made stale by the move (VR(UX) ≤ VR(UR)) expires harmlessly and restarts for the next gap.
    /// So no timer has to start here, where no time is given.
    pub(super) fn on_discard(&mut self, sn: u64, out: &mut Vec<RxOutcome>) {
        if self.win.abandon(sn) {
            self.win.pop_done(out);
            self.vr_uh = self.vr_uh.max(self.win.base);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;

    fn um(header: u32) -> RlcConfig {
        RlcConfig {
            mode: RlcMode::Um,
            header_bytes: header,
            t_reassembly: Time(Duration::from_millis(5)),
            ..RlcConfig::default()
        }
    }

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + Duration::from_millis(x)
    }

    fn seg(sn: u64, start: u32, end: u32, len: u32) -> RlcSegment {
        RlcSegment { sn, start, end, sdu_len: len, poll: false, retx: false }
    }

    // --- transmitter -------------------------------------------------------------------------

    #[test]
    fn test_um_tx_segments_across_tbs_with_header_accounting() {
        let mut tx = RlcTx::new(&um(2));
        tx.offer(ms(0), 1000);
        tx.offer(ms(0), 300);
        let (mut out, mut dropped) = (Vec::new(), Vec::new());
        // 600-byte TB: 2 header + 598 bytes of SDU 0.
        assert_eq!(tx.fill(ms(0), 600, &mut out, &mut dropped), 600);
        assert_eq!(out, vec![seg(0, 0, 598, 1000)]);
        assert_eq!(tx.buffered_bytes(), 402 + 300);
        out.clear();
        // 500-byte TB: the rest of SDU 0 (2 + 402) and the head of SDU 1 (2 + 94).
        assert_eq!(tx.fill(ms(0), 500, &mut out, &mut dropped), 500);
        assert_eq!(out, vec![seg(0, 598, 1000, 1000), seg(1, 0, 94, 300)]);
        out.clear();
        // A TB with room for the header only carries nothing.
        assert_eq!(tx.fill(ms(0), 2, &mut out, &mut dropped), 0);
        assert!(out.is_empty());
        // The rest of SDU 1 needs 2 + 206 bytes of a 1000-byte TB.
        assert_eq!(tx.fill(ms(0), 1000, &mut out, &mut dropped), 208);
        assert_eq!(out, vec![seg(1, 94, 300, 300)]);
        assert!(!tx.has_pending());
        assert_eq!(tx.stats().segments_sent, 4);
        assert_eq!(tx.stats().bytes_sent, 1300 + 4 * 2);
        assert_eq!(tx.stats().retx_segments, 0);
    }

    #[test]
    fn test_um_tx_never_overfills() {
        let mut tx = RlcTx::new(&um(3));
        for i in 0..200u32 {
            tx.offer(ms(0), 1 + (i * 37) % 1500);
        }
        let (mut out, mut dropped) = (Vec::new(), Vec::new());
        for tb in (0..400u32).map(|i| (i * 97) % 2000) {
            out.clear();
            let used = tx.fill(ms(0), tb, &mut out, &mut dropped);
            let sum: u32 = out.iter().map(|s| s.len() + 3).sum();
            assert_eq!(used, sum);
            assert!(used <= tb, "{used} > {tb}");
            assert!(out.iter().all(|s| !s.is_empty()));
        }
    }

    // --- receiver ----------------------------------------------------------------------------

    #[test]
    fn test_um_rx_reassembles_and_delivers_in_order() {
        let mut rx = RlcRx::new(&um(2));
        let mut out = Vec::new();
        rx.on_segment(ms(0), &seg(0, 0, 500, 1000), &mut out);
        assert!(out.is_empty());
        rx.on_segment(ms(0), &seg(1, 0, 10, 10), &mut out);
        assert!(out.is_empty(), "SDU 1 waits for SDU 0");
        rx.on_segment(ms(1), &seg(0, 500, 1000, 1000), &mut out);
        assert_eq!(out, vec![RxOutcome::Deliver(0), RxOutcome::Deliver(1)]);
        assert_eq!(rx.next_deadline(), None, "no gap left, t-Reordering stopped");
        rx.on_segment(ms(1), &seg(0, 0, 1000, 1000), &mut out);
        assert_eq!(rx.stats().late_segments, 1);
    }

    #[test]
    fn test_um_rx_reordering_expiry_declares_lost_and_releases_what_follows() {
        let mut rx = RlcRx::new(&um(2));
        let mut out = Vec::new();
        rx.on_segment(ms(0), &seg(0, 0, 100, 100), &mut out);
        // SDU 1 missing, 2 complete, 3 half there.
        rx.on_segment(ms(1), &seg(2, 0, 100, 100), &mut out);
        rx.on_segment(ms(1), &seg(3, 0, 50, 100), &mut out);
        assert_eq!(out, vec![RxOutcome::Deliver(0)]);
        assert_eq!(rx.next_deadline(), Some(ms(6)), "started at the gap, VR(UX) = 3");
        rx.on_timer(ms(5), &mut out);
        assert_eq!(out.len(), 1, "not yet");
        rx.on_timer(ms(6), &mut out);
        assert_eq!(out, vec![RxOutcome::Deliver(0), RxOutcome::Lost(1), RxOutcome::Deliver(2)]);
        // SDU 3 (partial, at VR(UH) − 1 = 3) is now VR(UR); the timer restarts for it.
        assert_eq!(rx.next_deadline(), Some(ms(11)));
        rx.on_timer(ms(11), &mut out);
        assert_eq!(out[3], RxOutcome::Lost(3));
        assert_eq!(rx.next_deadline(), None);
        // A late segment of SDU 1 is ignored.
        rx.on_segment(ms(12), &seg(1, 0, 100, 100), &mut out);
        assert_eq!(out.len(), 4);
        assert_eq!(rx.stats().sdus_lost, 2);
        assert_eq!(rx.stats().sdus_delivered, 2);
    }

    #[test]
    fn test_um_rx_arrival_before_expiry_stops_the_timer() {
        let mut rx = RlcRx::new(&um(2));
        let mut out = Vec::new();
        rx.on_segment(ms(0), &seg(1, 0, 100, 100), &mut out);
        assert_eq!(rx.next_deadline(), Some(ms(5)));
        rx.on_segment(ms(3), &seg(0, 0, 100, 100), &mut out);
        assert_eq!(out, vec![RxOutcome::Deliver(0), RxOutcome::Deliver(1)]);
        assert_eq!(rx.next_deadline(), None);
    }

    #[test]
    fn test_um_rx_uses_its_own_reordering_timer_when_given() {
        // ns-3 mmWave 2017: AM t-Reordering 10 ms, UM 100 ms; the UM receiver takes the UM one.
        let config = RlcConfig {
            t_reassembly: Time(Duration::from_millis(10)),
            t_reassembly_um: Some(Time(Duration::from_millis(100))),
            ..um(2)
        };
        let mut rx = RlcRx::new(&config);
        let mut out = Vec::new();
        rx.on_segment(ms(0), &seg(1, 0, 100, 100), &mut out);
        assert_eq!(rx.next_deadline(), Some(ms(100)));
        rx.on_timer(ms(99), &mut out);
        assert!(out.is_empty(), "SDU 1 still held behind the gap");
        rx.on_timer(ms(100), &mut out);
        assert_eq!(out, vec![RxOutcome::Lost(0), RxOutcome::Deliver(1)]);
    }

    #[test]
    fn test_um_rx_window_push_resolves_old_sdus() {
        let config = RlcConfig { window: 4, ..um(2) };
        let mut rx = RlcRx::new(&config);
        let mut out = Vec::new();
        rx.on_segment(ms(0), &seg(1, 0, 100, 100), &mut out);
        rx.on_segment(ms(0), &seg(2, 0, 50, 100), &mut out);
        // SN 6 moves VR(UH) to 7: the window is [3, 7), so 0, 1, 2 are resolved now.
        rx.on_segment(ms(0), &seg(6, 0, 100, 100), &mut out);
        assert_eq!(out, vec![RxOutcome::Lost(0), RxOutcome::Deliver(1), RxOutcome::Lost(2)]);
    }

    #[test]
    fn test_um_rx_discard_skips_a_dropped_sdu() {
        let mut rx = RlcRx::new(&um(2));
        let mut out = Vec::new();
        rx.on_segment(ms(0), &seg(1, 0, 100, 100), &mut out);
        rx.on_discard(0, &mut out);
        assert_eq!(out, vec![RxOutcome::Lost(0), RxOutcome::Deliver(1)]);
        // The timer started for the gap is left running; its expiry finds nothing to do.
        assert_eq!(rx.next_deadline(), Some(ms(5)));
        rx.on_timer(ms(5), &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(rx.next_deadline(), None);
        // Ahead of anything received: resolved in its turn.
        rx.on_discard(3, &mut out);
        rx.on_segment(ms(1), &seg(2, 0, 100, 100), &mut out);
        assert_eq!(&out[2..], &[RxOutcome::Deliver(2), RxOutcome::Lost(3)]);
        rx.on_discard(3, &mut out);
        assert_eq!(out.len(), 4, "a second discard of the same SDU changes nothing");
    }
}
