//! Acknowledged mode (38.322 §5.2.3 data transfer, §5.3 ARQ), with in-sequence delivery.
//!
//! Transmitter state (38.322 §7.1):
//!
//! ```text
//!   TX_Next_Ack   lowest SN not yet acknowledged (nor given up)   = tx_next_ack
//!   TX_Next       next SN to start transmitting                    = tx_next_ack + sdus.len()
//!   POLL_SN       highest SN submitted when the last poll was sent
//!   window        TX_Next_Ack ≤ SN < TX_Next_Ack + AM_Window_Size  (§5.2.3.1.1)
//! ```
//!
//! * **fill**: retransmissions first (NACKed bytes, re-segmented to fit, §5.3.2), then the rest of
//!   the SDU being segmented, then new SDUs while the window allows.
//! * **Polling** (§5.3.3.2): a new-data PDU counts towards PDU_WITHOUT_POLL / BYTE_WITHOUT_POLL
//!   and carries a poll once either reaches pollPDU / pollByte. The last PDU of a transport block
//!   also carries a poll when, after it, nothing is left to send (new data and retransmissions
//!   exhausted) or the window stalls new data, or when t-PollRetransmit has expired since the
//!   last poll. Sending a poll resets both counters, sets POLL_SN and (re)starts t-PollRetransmit.
//! * **STATUS** (§5.3.2, §5.3.3.3): SNs below ACK_SN not NACKed are acknowledged; NACKed bytes of
//!   submitted SDUs are queued for retransmission. An SDU's retransmission count grows by one
//!   each time it is considered for retransmission while none of it is pending already; when it
//!   would exceed `max_retx` (NR's RETX_COUNT reaching maxRetxThreshold) the SDU is given up and
//!   reported. A report that acknowledges or NACKs POLL_SN stops t-PollRetransmit.
//! * **t-PollRetransmit expiry** (§5.3.3.4): the next PDU carries a poll; if nothing is waiting
//!   to be sent, the highest-SN SDU not yet acknowledged is queued for retransmission whole.
//!
//! Receiver state (38.322 §7.1):
//!
//! ```text
//!   RX_Next                 lowest SN not yet delivered (nor given up)   = win.base
//!   RX_Next_Status_Trigger  RX_Next_Highest when t-Reassembly started
//!   RX_Highest_Status       highest SN a STATUS may report as ACK_SN
//!   RX_Next_Highest         highest SN of which a byte was received, plus one
//! ```
//!
//! * A segment outside `[RX_Next, RX_Next + window)` or without a new byte is discarded
//!   (§5.2.3.2.2). Otherwise RX_Next_Highest, RX_Highest_Status and RX_Next move as in
//!   §5.2.3.2.3, and t-Reassembly is stopped or started by the conditions there.
//! * Delivery is in SN order with head-of-line blocking: NR RLC delivers out of order and leaves
//!   reordering to PDCP (38.323), which this model does not have, so the receiver orders SDUs as
//!   LTE RLC AM did (36.322 §5.1.3.2.3).
//! * A poll triggers a STATUS report at once if the PDU was discarded or its SN is below
//!   RX_Highest_Status, and otherwise once RX_Highest_Status passes it (§5.3.4), so the report
//!   follows HARQ reordering. t-Reassembly expiry (§5.2.3.2.4) moves RX_Highest_Status to the
//!   first incomplete SN at or after RX_Next_Status_Trigger and triggers a report.
//! * A triggered report is handed out when t-StatusProhibit is not running; it NACKs every SN in
//!   `[RX_Next, RX_Highest_Status)` not complete, with byte ranges for partly received SDUs, and
//!   carries ACK_SN = RX_Highest_Status (§5.3.4, §6.2.2.5). Its size is not limited.

use super::sdu_buffer::SduBuffer;
use super::{
    ByteRanges, MaxRetx, Nack, Placed, RlcConfig, RlcRxStats, RlcSegment, RlcTxStats, RxOutcome, RxWindow,
    StatusReport,
};
use crate::sim::{Duration, SimTime};
use std::collections::VecDeque;

// =============================================================================================
// Transmitting side
// =============================================================================================

/// An SDU between its first transmission and its acknowledgement.
#[derive(Debug, Default)]
struct TxSdu {
    len: u32,
    /// Bytes `[0, sent)` have been transmitted at least once.
    sent: u32,
    /// Acknowledged, given up (max_retx), or dropped by CoDel before any transmission.
    done: bool,
    /// Times considered for retransmission (NR RETX_COUNT + 1).
    retx_count: u32,
    /// Bytes waiting for retransmission.
    pending: ByteRanges,
    /// In `retx_queue`.
    queued: bool,
}

#[derive(Debug)]
pub(super) struct AmTx {
    header: u32,
    window: u64,
    poll_pdu: u32,
    poll_byte: u64,
    max_retx: MaxRetx,
    t_poll_retransmit: Duration,
    /// TX_Next_Ack.
    tx_next_ack: u64,
    /// SDUs `[TX_Next_Ack, TX_Next)`, indexed by `sn - tx_next_ack`.
    sdus: VecDeque<TxSdu>,
    /// SNs with bytes pending retransmission, oldest NACK first (entries may be stale).
    retx_queue: VecDeque<u64>,
    /// Sum of the pending retransmission bytes.
    retx_bytes: u64,
    pdu_without_poll: u32,
    byte_without_poll: u64,
    poll_sn: u64,
    highest_submitted: Option<u64>,
    /// t-PollRetransmit expiry, when running.
    poll_deadline: Option<SimTime>,
    /// t-PollRetransmit expired: the next PDU carries a poll.
    poll_pending: bool,
    /// SDUs given up at a t-PollRetransmit expiry, reported by the next `fill`.
    pending_discards: Vec<u64>,
    /// Range buffers of SDUs that left the window, for the SDUs that join it.
    spare: Vec<ByteRanges>,
}

impl AmTx {
    pub(super) fn new(config: &RlcConfig) -> AmTx {
        AmTx {
            header: config.header_bytes,
            window: config.window as u64,
            poll_pdu: config.poll_pdu,
            poll_byte: config.poll_byte.0,
            max_retx: config.max_retx,
            t_poll_retransmit: config.t_poll_retransmit.0,
            tx_next_ack: 0,
            sdus: VecDeque::new(),
            retx_queue: VecDeque::new(),
            retx_bytes: 0,
            pdu_without_poll: 0,
            byte_without_poll: 0,
            poll_sn: 0,
            highest_submitted: None,
            poll_deadline: None,
            poll_pending: false,
            pending_discards: Vec::new(),
            spare: Vec::new(),
        }
    }

    pub(super) fn header(&self) -> u32 {
        self.header
    }

    fn tx_next(&self) -> u64 {
        self.tx_next_ack + self.sdus.len() as u64
    }

    fn index(&self, sn: u64) -> Option<usize> {
        let i = sn.checked_sub(self.tx_next_ack)? as usize;
        (i < self.sdus.len()).then_some(i)
    }

    /// The SDU whose first transmission is under way, if any (always the newest).
    fn partial(&self) -> Option<usize> {
        let i = self.sdus.len().checked_sub(1)?;
        let sdu = &self.sdus[i];
        (!sdu.done && sdu.sent < sdu.len).then_some(i)
    }

    fn stalled(&self) -> bool {
        self.sdus.len() as u64 >= self.window
    }

    fn push_sdu(&mut self, len: u32, done: bool) {
        let pending = self.spare.pop().unwrap_or_default();
        self.sdus.push_back(TxSdu { len, done, pending, ..TxSdu::default() });
    }

    /// Moves TX_Next_Ack past SDUs that are done.
    fn advance(&mut self) {
        while self.sdus.front().is_some_and(|s| s.done) {
            let mut sdu = self.sdus.pop_front().expect("front exists");
            sdu.pending.clear();
            self.spare.push(sdu.pending);
            self.tx_next_ack += 1;
        }
    }

    /// Marks SDU `i` done (acknowledged or given up), forgetting its pending retransmission.
    fn finish(&mut self, i: usize) {
        let sdu = &mut self.sdus[i];
        sdu.done = true;
        self.retx_bytes -= sdu.pending.total();
        sdu.pending.clear();
    }

    /// 38.322 §5.3.2: SDU `i` is considered for retransmission of bytes `[start, end)`. Returns
    /// false if that exceeded `max_retx` and the SDU was given up (its SN pushed to `discarded`).
    fn consider_for_retx(
        &mut self,
        i: usize,
        start: u32,
        end: u32,
        stats: &mut RlcTxStats,
        discarded: &mut Vec<u64>,
    ) -> bool {
        let sn = self.tx_next_ack + i as u64;
        let sdu = &mut self.sdus[i];
        if sdu.pending.is_empty() {
            sdu.retx_count = sdu.retx_count.saturating_add(1);
            if self.max_retx.exceeded_by(sdu.retx_count) {
                self.finish(i);
                stats.discards_max_retx += 1;
                discarded.push(sn);
                return false;
            }
        }
        self.retx_bytes += sdu.pending.insert(start, end) as u64;
        if !sdu.queued {
            sdu.queued = true;
            self.retx_queue.push_back(sn);
        }
        true
    }

    pub(super) fn fill(
        &mut self,
        now: SimTime,
        tb_bytes: u32,
        buffer: &mut SduBuffer,
        stats: &mut RlcTxStats,
        out: &mut Vec<RlcSegment>,
        dropped: &mut Vec<u64>,
    ) -> u32 {
        dropped.append(&mut self.pending_discards);
        let first = out.len();
        let mut used = 0;

        // 1. Retransmissions (38.322 §5.3.2), re-segmented to the room left.
        while let Some(&sn) = self.retx_queue.front() {
            let Some(i) = self.index(sn) else {
                self.retx_queue.pop_front(); // acknowledged or given up since
                continue;
            };
            let sdu = &mut self.sdus[i];
            let Some((start, end)) = sdu.pending.first().filter(|_| !sdu.done) else {
                sdu.queued = false;
                self.retx_queue.pop_front();
                continue;
            };
            let room = tb_bytes - used;
            if room <= self.header {
                break;
            }
            let n = (end - start).min(room - self.header);
            sdu.pending.take_front(n);
            if sdu.pending.is_empty() {
                sdu.queued = false;
                self.retx_queue.pop_front();
            }
            out.push(RlcSegment { sn, start, end: start + n, sdu_len: sdu.len, poll: false, retx: true });
            self.retx_bytes -= n as u64;
            used += self.header + n;
            self.highest_submitted = self.highest_submitted.max(Some(sn));
        }

        // 2. New data: the rest of the SDU being segmented, then new SDUs the window allows.
        while tb_bytes - used > self.header {
            let Some(i) = self.partial() else {
                if self.stalled() {
                    break; // §5.2.3.1.1: no new SN outside the window
                }
                let limit = self.tx_next_ack + self.window;
                let taken = buffer.dequeue(now, dropped, |s| s.sn < limit);
                // SDUs CoDel dropped hold their SNs, already done.
                let upto = taken.map_or(buffer.next_sn(), |s| s.sn);
                while self.tx_next() < upto {
                    self.push_sdu(0, true);
                }
                self.advance();
                match taken {
                    Some(sdu) => self.push_sdu(sdu.len, false),
                    None => break,
                }
                continue;
            };
            let sn = self.tx_next_ack + i as u64;
            let sdu = &mut self.sdus[i];
            let n = (sdu.len - sdu.sent).min(tb_bytes - used - self.header);
            out.push(RlcSegment {
                sn,
                start: sdu.sent,
                end: sdu.sent + n,
                sdu_len: sdu.len,
                poll: false,
                retx: false,
            });
            sdu.sent += n;
            used += self.header + n;
            self.highest_submitted = self.highest_submitted.max(Some(sn));
            // §5.3.3.2: count new PDUs and bytes; poll when either threshold is reached.
            self.pdu_without_poll += 1;
            self.byte_without_poll += n as u64;
            if self.pdu_without_poll >= self.poll_pdu || self.byte_without_poll >= self.poll_byte {
                self.set_poll(now, out.last_mut().expect("just pushed"), stats);
            }
        }

        // §5.3.3.2: poll in the last PDU when the buffers run empty or the window stalls, and
        // §5.3.3.4: after a t-PollRetransmit expiry.
        if out.len() > first {
            let nothing_new = self.partial().is_none() && (buffer.is_empty() || self.stalled());
            let empty_or_stalled = self.retx_bytes == 0 && nothing_new;
            let last = out.last_mut().expect("non-empty");
            if (empty_or_stalled || self.poll_pending) && !last.poll {
                self.set_poll(now, last, stats);
            }
        }
        used
    }

    fn set_poll(&mut self, now: SimTime, seg: &mut RlcSegment, stats: &mut RlcTxStats) {
        seg.poll = true;
        self.pdu_without_poll = 0;
        self.byte_without_poll = 0;
        self.poll_sn = self.highest_submitted.expect("a PDU was submitted");
        self.poll_deadline = Some(now + self.t_poll_retransmit);
        self.poll_pending = false;
        stats.polls += 1;
    }

    pub(super) fn on_status(
        &mut self,
        _now: SimTime,
        report: &StatusReport,
        stats: &mut RlcTxStats,
        discarded: &mut Vec<u64>,
    ) {
        debug_assert!(report.nacks.windows(2).all(|w| w[0].sn <= w[1].sn), "NACKs out of order");
        // §5.3.3.3: a report covering POLL_SN stops t-PollRetransmit.
        if report.ack_sn > self.poll_sn || report.nacks.iter().any(|n| n.sn == self.poll_sn) {
            self.poll_deadline = None;
        }
        // §5.2.3.1.1: positive acknowledgements below ACK_SN.
        let ack_end = report.ack_sn.min(self.tx_next());
        let mut k = 0;
        for sn in self.tx_next_ack..ack_end {
            while k < report.nacks.len() && report.nacks[k].sn < sn {
                k += 1;
            }
            if k < report.nacks.len() && report.nacks[k].sn == sn {
                continue;
            }
            let i = (sn - self.tx_next_ack) as usize;
            if !self.sdus[i].done {
                self.finish(i);
            }
        }
        // §5.3.2: negative acknowledgements of submitted SDUs.
        for nack in &report.nacks {
            let Some(i) = self.index(nack.sn) else { continue };
            let sdu = &self.sdus[i];
            if sdu.done {
                continue;
            }
            let (start, end) = nack.range.unwrap_or((0, sdu.len));
            let end = end.min(sdu.sent); // bytes not yet sent once are new data, not retransmissions
            if start < end {
                self.consider_for_retx(i, start, end, stats, discarded);
            }
        }
        self.advance();
    }

    /// §5.3.3.4: t-PollRetransmit expiry.
    pub(super) fn on_timer(&mut self, now: SimTime, buffer: &SduBuffer, stats: &mut RlcTxStats) {
        match self.poll_deadline {
            Some(deadline) if now >= deadline => self.poll_deadline = None,
            _ => return,
        }
        self.poll_pending = true;
        let nothing_new = self.partial().is_none() && (buffer.is_empty() || self.stalled());
        if self.retx_bytes == 0 && nothing_new {
            // Retransmit the highest SDU not acknowledged (the one with SN = TX_Next − 1 when it
            // is outstanding), so that the poll it carries reveals every gap below it. An SDU
            // given up on the way makes room for the next lower one.
            let mut discards = std::mem::take(&mut self.pending_discards);
            for i in (0..self.sdus.len()).rev() {
                let (done, sent) = (self.sdus[i].done, self.sdus[i].sent);
                if done || sent == 0 {
                    continue;
                }
                if self.consider_for_retx(i, 0, sent, stats, &mut discards) {
                    break;
                }
            }
            self.pending_discards = discards;
            self.advance();
        }
    }

    pub(super) fn next_deadline(&self) -> Option<SimTime> {
        self.poll_deadline
    }

    /// Re-establishment (38.322 §5.1.2): discard every SDU and segment, stop t-PollRetransmit,
    /// reset the state variables; TX_Next_Ack = TX_Next = POLL_SN = `next_sn` (their initial
    /// value, with SNs that continue instead of restarting at 0). Nothing is reported to the
    /// peer, which is re-established too.
    pub(super) fn reestablish(&mut self, next_sn: u64) {
        for mut sdu in self.sdus.drain(..) {
            sdu.pending.clear();
            self.spare.push(sdu.pending);
        }
        self.tx_next_ack = next_sn;
        self.retx_queue.clear();
        self.retx_bytes = 0;
        self.pdu_without_poll = 0;
        self.byte_without_poll = 0;
        self.poll_sn = next_sn;
        self.highest_submitted = None;
        self.poll_deadline = None;
        self.poll_pending = false;
        self.pending_discards.clear();
    }

    pub(super) fn buffered_bytes(&self) -> u64 {
        let rest = self.partial().map_or(0, |i| (self.sdus[i].len - self.sdus[i].sent) as u64);
        rest + self.retx_bytes
    }

    pub(super) fn has_pending(&self, buffer: &SduBuffer) -> bool {
        self.retx_bytes > 0
            || self.partial().is_some()
            || (!buffer.is_empty() && !self.stalled())
            || !self.pending_discards.is_empty()
    }
}

// =============================================================================================
// Receiving side
// =============================================================================================

#[derive(Debug)]
pub(super) struct AmRx {
    window: u64,
    t_reassembly: Duration,
    t_status_prohibit: Duration,
    /// RX_Next is `win.base`.
    win: RxWindow,
    rx_next_highest: u64,
    rx_highest_status: u64,
    rx_next_status_trigger: u64,
    /// t-Reassembly expiry, when running.
    reassembly_deadline: Option<SimTime>,
    /// t-StatusProhibit expiry of the last report.
    prohibit_until: Option<SimTime>,
    status_triggered: bool,
    /// Polls whose report waits for RX_Highest_Status to pass them: (lowest SN, highest SN).
    delayed_poll: Option<(u64, u64)>,
}

impl AmRx {
    pub(super) fn new(config: &RlcConfig) -> AmRx {
        AmRx {
            window: config.window as u64,
            t_reassembly: config.t_reassembly.0,
            t_status_prohibit: config.t_status_prohibit.0,
            win: RxWindow::default(),
            rx_next_highest: 0,
            rx_highest_status: 0,
            rx_next_status_trigger: 0,
            reassembly_deadline: None,
            prohibit_until: None,
            status_triggered: false,
            delayed_poll: None,
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
        // §5.2.3.2.2: outside the receiving window, or no new byte: discard.
        let discarded = if x < self.win.base || x >= self.win.base + self.window {
            stats.late_segments += 1;
            true
        } else {
            match self.win.place(seg) {
                Placed::Duplicate => {
                    stats.duplicate_segments += 1;
                    true
                }
                Placed::New { complete } => {
                    // §5.2.3.2.3.
                    if x >= self.rx_next_highest {
                        self.rx_next_highest = x + 1;
                    }
                    if complete {
                        if x == self.rx_highest_status {
                            self.rx_highest_status = self.win.first_not_done_from(x + 1);
                        }
                        if x == self.win.base {
                            self.win.pop_done(out);
                        }
                    }
                    self.after_move(now);
                    false
                }
            }
        };
        // §5.3.4: a poll triggers a report now, or once RX_Highest_Status has passed it.
        if seg.poll {
            if discarded || x < self.rx_highest_status || x >= self.win.base + self.window {
                self.status_triggered = true;
            } else {
                self.delayed_poll = Some(match self.delayed_poll {
                    Some((lo, hi)) => (lo.min(x), hi.max(x)),
                    None => (x, x),
                });
            }
        }
    }

    /// Keeps the state variables ordered after RX_Next may have moved: RX_Next ≤
    /// RX_Highest_Status ≤ RX_Next_Highest.
    fn order_state(&mut self) {
        self.rx_highest_status = self.rx_highest_status.max(self.win.base);
        self.rx_next_highest = self.rx_next_highest.max(self.rx_highest_status);
    }

    /// After a reception: stops or starts t-Reassembly (§5.2.3.2.3) and releases delayed polls.
    fn after_move(&mut self, now: SimTime) {
        self.order_state();
        let base = self.win.base;
        if self.reassembly_deadline.is_some() {
            let trigger = self.rx_next_status_trigger;
            if trigger <= base || (trigger == base + 1 && !self.win.has_hole(base)) {
                self.reassembly_deadline = None;
            }
        }
        if self.reassembly_deadline.is_none() {
            let highest = self.rx_next_highest;
            if highest > base + 1 || (highest == base + 1 && self.win.has_hole(base)) {
                self.reassembly_deadline = Some(now + self.t_reassembly);
                self.rx_next_status_trigger = highest;
            }
        }
        self.release_delayed_poll();
    }

    fn release_delayed_poll(&mut self) {
        let Some((lo, hi)) = self.delayed_poll else { return };
        let passed = |x: u64| x < self.rx_highest_status || x >= self.win.base + self.window;
        if passed(lo) {
            self.status_triggered = true;
            self.delayed_poll = if passed(hi) { None } else { Some((hi, hi)) };
        }
    }

    /// §5.2.3.2.4: t-Reassembly expiry. (The end of t-StatusProhibit needs no action here:
    /// `take_status` looks at the time.)
    pub(super) fn on_timer(&mut self, now: SimTime, _out: &mut Vec<RxOutcome>) {
        match self.reassembly_deadline {
            Some(deadline) if now >= deadline => self.reassembly_deadline = None,
            _ => return,
        }
        let from = self.rx_next_status_trigger.max(self.win.base);
        self.rx_highest_status = self.rx_highest_status.max(self.win.first_not_done_from(from));
        self.rx_next_highest = self.rx_next_highest.max(self.rx_highest_status);
        self.status_triggered = true;
        let (status, highest) = (self.rx_highest_status, self.rx_next_highest);
        if highest > status + 1 || (highest == status + 1 && self.win.has_hole(status)) {
            self.reassembly_deadline = Some(now + self.t_reassembly);
            self.rx_next_status_trigger = highest;
        }
        self.release_delayed_poll();
    }

    /// Re-establishment (38.322 §5.1.2): discard every segment, stop t-Reassembly and
    /// t-StatusProhibit, reset the state variables to `next_sn` (their initial value, with SNs
    /// that continue instead of restarting at 0).
    pub(super) fn reestablish(&mut self, next_sn: u64) {
        self.win.reset(next_sn);
        self.rx_next_highest = next_sn;
        self.rx_highest_status = next_sn;
        self.rx_next_status_trigger = next_sn;
        self.reassembly_deadline = None;
        self.prohibit_until = None;
        self.status_triggered = false;
        self.delayed_poll = None;
    }

    pub(super) fn next_deadline(&self) -> Option<SimTime> {
        let prohibit = self.prohibit_until.filter(|_| self.status_triggered);
        match (self.reassembly_deadline, prohibit) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// §5.3.4: builds the triggered report unless t-StatusProhibit is running.
    pub(super) fn take_status(&mut self, now: SimTime, report: &mut StatusReport) -> bool {
        if !self.status_triggered || self.prohibit_until.is_some_and(|t| now < t) {
            return false;
        }
        report.nacks.clear();
        for sn in self.win.base..self.rx_highest_status {
            match self.win.slot(sn) {
                Some(slot) if slot.done() => {}
                Some(slot) if !slot.ranges.is_empty() => {
                    slot.ranges.gaps(slot.len, |a, b| report.nacks.push(Nack { sn, range: Some((a, b)) }))
                }
                _ => report.nacks.push(Nack { sn, range: None }),
            }
        }
        report.ack_sn = self.rx_highest_status;
        self.status_triggered = false;
        self.prohibit_until = Some(now + self.t_status_prohibit);
        true
    }

    /// The transmitter gave up on `sn`: count it as done for RX_Next and RX_Highest_Status.
    ///
    /// t-Reassembly is left as it is (no time is given here): 38.322 evaluates it only on
    /// reception and expiry, and the next of either re-evaluates it. A run made stale
    /// (RX_Next_Status_Trigger ≤ RX_Next) expires into one report with nothing new, and restarts
    /// if gaps remain.
    pub(super) fn on_discard(&mut self, sn: u64, out: &mut Vec<RxOutcome>) {
        if !self.win.abandon(sn) {
            return;
        }
        if sn == self.rx_highest_status {
            self.rx_highest_status = self.win.first_not_done_from(sn);
        }
        self.win.pop_done(out);
        self.order_state();
        self.release_delayed_poll();
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;

    fn am() -> RlcConfig {
        RlcConfig {
            mode: RlcMode::Am,
            header_bytes: 3,
            t_reassembly: Time(Duration::from_millis(5)),
            t_poll_retransmit: Time(Duration::from_millis(10)),
            t_status_prohibit: Time(Duration::from_millis(2)),
            poll_pdu: 1000,
            poll_byte: Bytes(1_000_000),
            max_retx: MaxRetx::After(4),
            ..RlcConfig::default()
        }
    }

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + Duration::from_millis(x)
    }

    fn seg(sn: u64, start: u32, end: u32, len: u32, poll: bool) -> RlcSegment {
        RlcSegment { sn, start, end, sdu_len: len, poll, retx: false }
    }

    fn fill(tx: &mut RlcTx, now: SimTime, tb: u32) -> Vec<RlcSegment> {
        let (mut out, mut dropped) = (Vec::new(), Vec::new());
        let used = tx.fill(now, tb, &mut out, &mut dropped);
        assert!(used <= tb);
        assert_eq!(used, out.iter().map(|s| s.len() + 3).sum::<u32>());
        assert!(dropped.is_empty());
        out
    }

    fn report(ack_sn: u64, nacks: &[(u64, Option<(u32, u32)>)]) -> StatusReport {
        StatusReport { ack_sn, nacks: nacks.iter().map(|&(sn, range)| Nack { sn, range }).collect() }
    }

    // --- transmitter: segmentation, retransmission ---------------------------------------------

    #[test]
    fn test_am_tx_segments_and_retransmits_nacked_bytes_first() {
        let mut tx = RlcTx::new(&am());
        tx.offer(ms(0), 1000);
        tx.offer(ms(0), 1000);
        let a = fill(&mut tx, ms(0), 703);
        assert_eq!(a, vec![seg(0, 0, 700, 1000, false)]);
        let b = fill(&mut tx, ms(0), 2000);
        // Rest of SDU 0, all of SDU 1; the buffers are now empty, so the last PDU polls.
        assert_eq!(b, vec![seg(0, 700, 1000, 1000, false), seg(1, 0, 1000, 1000, true)]);
        assert_eq!(tx.next_deadline(), Some(ms(10)));
        // The receiver lost bytes 200..700 of SDU 0.
        let mut discarded = Vec::new();
        tx.on_status(ms(3), &report(2, &[(0, Some((200, 700)))]), &mut discarded);
        assert!(discarded.is_empty());
        assert_eq!(tx.next_deadline(), None, "the report covers POLL_SN = 1");
        assert_eq!(tx.buffered_bytes(), 500);
        tx.offer(ms(3), 100);
        // Retransmission first, re-segmented: 3 + 300 bytes, then 3 + 200 and the new SDU.
        let c = fill(&mut tx, ms(3), 303);
        assert_eq!(c, vec![RlcSegment { retx: true, ..seg(0, 200, 500, 1000, false) }]);
        let d = fill(&mut tx, ms(3), 1000);
        assert_eq!(
            d,
            vec![RlcSegment { retx: true, ..seg(0, 500, 700, 1000, false) }, seg(2, 0, 100, 100, true)]
        );
        assert_eq!(tx.stats().retx_segments, 2);
        assert_eq!(tx.stats().retx_bytes, 500 + 6);
    }

    #[test]
    fn test_am_tx_gives_up_after_max_retx() {
        let mut tx = RlcTx::new(&RlcConfig { max_retx: MaxRetx::After(2), ..am() });
        tx.offer(ms(0), 100);
        fill(&mut tx, ms(0), 1000);
        let mut discarded = Vec::new();
        for round in 0..3u64 {
            tx.on_status(ms(round * 10), &report(1, &[(0, None)]), &mut discarded);
            if round < 2 {
                assert!(discarded.is_empty(), "retransmission {} allowed", round + 1);
                let r = fill(&mut tx, ms(round * 10), 1000);
                assert!(r[0].retx);
            }
        }
        assert_eq!(discarded, vec![0], "a third retransmission would exceed max_retx = 2");
        assert_eq!(tx.stats().discards_max_retx, 1);
        assert!(!tx.has_pending());
        // NACKs of the same SDU in one report count once.
        discarded.clear();
        let mut tx = RlcTx::new(&RlcConfig { max_retx: MaxRetx::After(1), ..am() });
        tx.offer(ms(0), 1000);
        fill(&mut tx, ms(0), 2000);
        tx.on_status(ms(1), &report(1, &[(0, Some((0, 10))), (0, Some((20, 30)))]), &mut discarded);
        assert!(discarded.is_empty());
        assert_eq!(tx.buffered_bytes(), 20);
    }

    #[test]
    fn test_am_tx_that_never_gives_up_keeps_retransmitting() {
        let mut tx = RlcTx::new(&RlcConfig { max_retx: MaxRetx::Never, ..am() });
        tx.offer(ms(0), 100);
        fill(&mut tx, ms(0), 1000);
        let mut discarded = Vec::new();
        for round in 0..50u64 {
            tx.on_status(ms(round * 10), &report(1, &[(0, None)]), &mut discarded);
            let r = fill(&mut tx, ms(round * 10), 1000);
            assert!(r[0].retx, "retransmission {}", round + 1);
        }
        assert!(discarded.is_empty());
        assert_eq!(tx.stats().discards_max_retx, 0);
        assert_eq!(tx.stats().retx_segments, 50);
    }

    // --- transmitter: window and polling -------------------------------------------------------

    #[test]
    fn test_am_tx_window_stall() {
        let mut tx = RlcTx::new(&RlcConfig { window: 2, ..am() });
        for _ in 0..4 {
            tx.offer(ms(0), 100);
        }
        let a = fill(&mut tx, ms(0), 10_000);
        assert_eq!(a.iter().map(|s| s.sn).collect::<Vec<_>>(), vec![0, 1], "window of 2 SDUs");
        assert!(a[1].poll, "window stall polls");
        assert!(!tx.has_pending(), "stalled: nothing to send");
        assert_eq!(tx.buffered_bytes(), 200);
        let mut discarded = Vec::new();
        // SDU 0 acknowledged, 1 not yet: the window moves by one.
        tx.on_status(ms(1), &report(1, &[]), &mut discarded);
        assert!(tx.has_pending());
        let b = fill(&mut tx, ms(1), 10_000);
        assert_eq!(b.iter().map(|s| (s.sn, s.poll)).collect::<Vec<_>>(), vec![(2, true)]);
    }

    #[test]
    fn test_am_tx_polls_every_poll_pdu_and_poll_byte() {
        let mut tx = RlcTx::new(&RlcConfig { poll_pdu: 3, ..am() });
        for _ in 0..10 {
            tx.offer(ms(0), 100);
        }
        let polls: Vec<bool> = fill(&mut tx, ms(0), 103 * 7).iter().map(|s| s.poll).collect();
        assert_eq!(polls, vec![false, false, true, false, false, true, false]);
        let mut tx = RlcTx::new(&RlcConfig { poll_byte: Bytes(250), ..am() });
        for _ in 0..10 {
            tx.offer(ms(0), 100);
        }
        let polls: Vec<bool> = fill(&mut tx, ms(0), 103 * 6).iter().map(|s| s.poll).collect();
        assert_eq!(polls, vec![false, false, true, false, false, true]);
        assert_eq!(tx.stats().polls, 2);
    }

    #[test]
    fn test_am_tx_poll_retransmit_expiry_retransmits_highest_and_polls() {
        let mut tx = RlcTx::new(&am());
        for _ in 0..3 {
            tx.offer(ms(0), 100);
        }
        let a = fill(&mut tx, ms(0), 10_000);
        assert!(a[2].poll && !a[0].poll);
        tx.on_timer(ms(9));
        assert!(!tx.has_pending(), "not expired yet");
        tx.on_timer(ms(10));
        assert!(tx.has_pending());
        let b = fill(&mut tx, ms(10), 10_000);
        assert_eq!(b, vec![RlcSegment { retx: true, ..seg(2, 0, 100, 100, true) }]);
        assert_eq!(tx.next_deadline(), Some(ms(20)));
        // With new data waiting, expiry only puts a poll on the next PDU.
        tx.offer(ms(15), 100);
        tx.on_timer(ms(20));
        let c = fill(&mut tx, ms(20), 50);
        assert_eq!(c, vec![seg(3, 0, 47, 100, true)]);
    }

    #[test]
    fn test_am_tx_poll_retransmit_expiry_counts_towards_max_retx() {
        let mut tx = RlcTx::new(&RlcConfig { max_retx: MaxRetx::After(1), ..am() });
        tx.offer(ms(0), 100);
        fill(&mut tx, ms(0), 1000);
        tx.on_timer(ms(10));
        assert!(fill(&mut tx, ms(10), 1000)[0].retx);
        tx.on_timer(ms(20));
        let (mut out, mut dropped) = (Vec::new(), Vec::new());
        assert!(tx.has_pending(), "a discard to report");
        tx.fill(ms(20), 1000, &mut out, &mut dropped);
        assert!(out.is_empty());
        assert_eq!(dropped, vec![0]);
        assert!(!tx.has_pending());
        assert_eq!(tx.stats().discards_max_retx, 1);
    }

    #[test]
    fn test_am_tx_codel_drops_hold_their_sns() {
        let config = RlcConfig {
            policy: BufferPolicy::Codel,
            codel_target: Time(Duration::from_millis(1)),
            codel_interval: Time(Duration::from_millis(10)),
            window: 4,
            ..am()
        };
        let mut tx = RlcTx::new(&config);
        let (mut out, mut dropped) = (Vec::new(), Vec::new());
        let mut discarded = Vec::new();
        let mut now = ms(0);
        for _ in 0..2000 {
            tx.offer(now, 100);
            tx.offer(now, 100);
            out.clear();
            tx.fill(now, 103, &mut out, &mut dropped);
            // Acknowledge everything sent at once.
            if let Some(last) = out.last() {
                tx.on_status(now, &report(last.sn + 1, &[]), &mut discarded);
            }
            now += Duration::from_micros(100);
        }
        assert!(!dropped.is_empty());
        assert_eq!(tx.stats().drops_codel, dropped.len() as u64);
        assert!(discarded.is_empty());
    }

    // --- receiver ----------------------------------------------------------------------------

    #[test]
    fn test_am_rx_reassembles_in_order_with_head_of_line_blocking() {
        let mut rx = RlcRx::new(&am());
        let mut out = Vec::new();
        rx.on_segment(ms(0), &seg(1, 0, 100, 100, false), &mut out);
        rx.on_segment(ms(0), &seg(0, 500, 1000, 1000, false), &mut out);
        assert!(out.is_empty());
        rx.on_segment(ms(1), &seg(0, 0, 600, 1000, false), &mut out);
        assert_eq!(out, vec![RxOutcome::Deliver(0), RxOutcome::Deliver(1)]);
        rx.on_segment(ms(1), &seg(1, 0, 100, 100, false), &mut out);
        assert_eq!(rx.stats().late_segments, 1);
        rx.on_segment(ms(1), &seg(3, 0, 50, 100, false), &mut out);
        rx.on_segment(ms(1), &seg(3, 10, 40, 100, false), &mut out);
        assert_eq!(rx.stats().duplicate_segments, 1);
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn test_am_rx_poll_triggers_report_with_byte_range_nacks() {
        let mut rx = RlcRx::new(&am());
        let (mut out, mut rep) = (Vec::new(), StatusReport::default());
        rx.on_segment(ms(0), &seg(0, 0, 100, 100, false), &mut out);
        rx.on_segment(ms(0), &seg(2, 0, 300, 1000, false), &mut out);
        rx.on_segment(ms(0), &seg(2, 600, 700, 1000, false), &mut out);
        rx.on_segment(ms(0), &seg(3, 0, 100, 100, true), &mut out);
        // SN 3 ≥ RX_Highest_Status (1): the report waits for HARQ reordering (t-Reassembly).
        assert!(!rx.take_status(ms(0), &mut rep));
        assert_eq!(rx.next_deadline(), Some(ms(5)));
        rx.on_timer(ms(5), &mut out);
        assert!(rx.take_status(ms(5), &mut rep));
        assert_eq!(
            rep,
            report(4, &[(1, None), (2, Some((300, 600))), (2, Some((700, 1000)))]),
            "ACK_SN = RX_Highest_Status = 4"
        );
        assert_eq!(rx.stats().reports_sent, 1);
        // A poll below RX_Highest_Status (a retransmission) triggers at once, but t-StatusProhibit
        // (2 ms) holds it until 7 ms.
        rx.on_segment(ms(6), &RlcSegment { retx: true, ..seg(1, 0, 100, 100, true) }, &mut out);
        assert_eq!(out, vec![RxOutcome::Deliver(0), RxOutcome::Deliver(1)]);
        assert!(!rx.take_status(ms(6), &mut rep));
        assert_eq!(rx.next_deadline(), Some(ms(7)));
        assert!(rx.take_status(ms(7), &mut rep));
        assert_eq!(rep, report(4, &[(2, Some((300, 600))), (2, Some((700, 1000)))]));
    }

    #[test]
    fn test_am_rx_status_prohibit_throttles_reports() {
        let mut rx = RlcRx::new(&am());
        let (mut out, mut rep) = (Vec::new(), StatusReport::default());
        let mut taken = Vec::new();
        // A poll on every complete in-order SDU, every 0.5 ms, for 10 ms.
        for i in 0..20u64 {
            let now = SimTime::ZERO + Duration::from_micros(500 * i);
            rx.on_segment(
                now,
                &RlcSegment { sn: i, start: 0, end: 10, sdu_len: 10, poll: true, retx: false },
                &mut out,
            );
            if rx.take_status(now, &mut rep) {
                taken.push(now);
            }
        }
        assert_eq!(taken, (0..5).map(|k| ms(2 * k)).collect::<Vec<_>>(), "one report per 2 ms");
        assert_eq!(rep.ack_sn, 17);
    }

    #[test]
    fn test_am_rx_duplicate_with_poll_still_triggers() {
        let mut rx = RlcRx::new(&am());
        let (mut out, mut rep) = (Vec::new(), StatusReport::default());
        rx.on_segment(ms(0), &seg(0, 0, 100, 100, false), &mut out);
        rx.on_segment(ms(1), &seg(0, 0, 100, 100, true), &mut out);
        assert!(rx.take_status(ms(1), &mut rep));
        assert_eq!(rep, report(1, &[]));
    }

    #[test]
    fn test_am_rx_discard_moves_the_window() {
        let mut rx = RlcRx::new(&am());
        let (mut out, mut rep) = (Vec::new(), StatusReport::default());
        rx.on_segment(ms(0), &seg(0, 0, 50, 100, false), &mut out);
        rx.on_segment(ms(0), &seg(1, 0, 100, 100, false), &mut out);
        rx.on_segment(ms(0), &seg(3, 0, 100, 100, false), &mut out);
        assert_eq!(rx.next_deadline(), Some(ms(5)));
        rx.on_discard(0, &mut out);
        assert_eq!(out, vec![RxOutcome::Lost(0), RxOutcome::Deliver(1)]);
        rx.on_discard(1, &mut out);
        assert_eq!(out.len(), 2, "already delivered: no second outcome");
        rx.on_discard(2, &mut out);
        assert_eq!(&out[2..], &[RxOutcome::Lost(2), RxOutcome::Deliver(3)]);
        // The t-Reassembly run started for the gap at 2 expires into a report with nothing left
        // to NACK, and does not restart.
        assert_eq!(rx.next_deadline(), Some(ms(5)));
        rx.on_timer(ms(5), &mut out);
        assert!(rx.take_status(ms(5), &mut rep));
        assert_eq!(rep, report(4, &[]));
        assert_eq!(rx.next_deadline(), None);
        assert_eq!(rx.stats().sdus_lost, 2);
    }

    // --- both sides ----------------------------------------------------------------------------

    #[test]
    fn test_am_recovers_a_lost_transport_block() {
        let config = am();
        let (mut tx, mut rx) = (RlcTx::new(&config), RlcRx::new(&config));
        for _ in 0..6 {
            tx.offer(ms(0), 500);
        }
        let (mut delivered, mut rep, mut discarded) = (Vec::new(), StatusReport::default(), Vec::new());
        let tb1 = fill(&mut tx, ms(0), 1200); // SDU 0, 1 and the head of 2
        let _lost = fill(&mut tx, ms(0), 1200); // rest of 2, 3, head of 4: lost
        let tb3 = fill(&mut tx, ms(0), 1200); // rest of 4, 5 (poll: buffers empty)
        assert!(tb3.last().unwrap().poll);
        for s in tb1.iter().chain(&tb3) {
            rx.on_segment(ms(1), s, &mut delivered);
        }
        assert_eq!(delivered, vec![RxOutcome::Deliver(0), RxOutcome::Deliver(1)]);
        rx.on_timer(ms(6), &mut delivered);
        assert!(rx.take_status(ms(6), &mut rep));
        tx.on_status(ms(7), &rep, &mut discarded);
        let retx = fill(&mut tx, ms(7), 5000);
        assert!(retx.iter().all(|s| s.retx));
        for s in &retx {
            rx.on_segment(ms(8), s, &mut delivered);
        }
        assert_eq!(delivered, (0..6).map(RxOutcome::Deliver).collect::<Vec<_>>());
        assert!(rx.take_status(ms(8), &mut rep), "the last retransmission polled");
        tx.on_status(ms(9), &rep, &mut discarded);
        assert!(!tx.has_pending());
        assert_eq!(tx.buffered_bytes(), 0);
        assert_eq!(tx.next_deadline(), None);
    }
}
