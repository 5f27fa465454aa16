//! Radio Link Control: the transparent (TM), unacknowledged (UM) and acknowledged (AM) modes of
//! 3GPP TS 38.322 (NR RLC), with the in-sequence delivery and t-Reordering of TS 36.322 (LTE RLC).
//!
//! ```text
//!   offer(sn) ─► SDU buffer (drop-tail or CoDel) ─► RlcTx::fill(TB of N bytes) ─► MAC/HARQ
//!                                                     ▲                            │ decoded TB
//!                         on_status(STATUS) ◄── control path (delay, lossless)     ▼
//!                                                     └──────────────── RlcRx::on_segment
//!                                                                         │ Deliver(sn) / Lost(sn)
//! ```
//!
//! RLC never sees packets. An SDU is a sequence number (`u64`, assigned in order by
//! [`RlcTx::offer`]) and a length; the owner of the link keeps the table SN → packet and acts on
//! the outcomes the receiving entity reports. A transport block carries [`RlcSegment`]s: bytes
//! `[start, end)` of SDU `sn`, each costing `header_bytes` of RLC header.
//!
//! * **TM** (38.322 §5.2.1): whole SDUs, no header, no segmentation, delivered as they arrive.
//! * **UM** (38.322 §5.2.2 for segmentation, 36.322 §5.1.2.2 for reordering): SDUs are segmented
//!   to fill transport blocks and reassembled; complete SDUs are delivered in SN order; a gap
//!   starts t-Reassembly (the t-Reordering of 36.322), whose expiry declares the missing SDUs
//!   below the reordering point lost. No retransmission.
//! * **AM** (38.322 §5.2.3, §5.3): as UM, plus ARQ: polling (§5.3.3), STATUS reports with ACK_SN,
//!   NACK_SN and SOstart/SOend byte ranges (§5.3.4, §6.2.2.5), retransmission of NACKed bytes with
//!   priority over new data, a retransmission limit (maxRetxThreshold, §5.3.2) and the
//!   transmitting window (§5.2.3.1.1).
//!
//! Sequence numbers: real RLC uses 12- or 18-bit SNs modulo 2^n (§6.2.3.3) with windows of half
//! the SN space (§7.2). Here SNs are unbounded `u64` (they never wrap); the window *limit* is
//! modelled (AM transmitter stalls, UM receiver pushes its window), the modular arithmetic is not.
//!
//! Every entity is a plain state machine: time comes in as `now`, timers are exposed as
//! deadlines (`next_deadline`, `on_timer`), and buffers are reused so that nothing is allocated
//! per SDU or segment once they have grown to the run's peak.
//!
//! See `docs/models/rlc.md` for defaults, their sources, and every simplification.

mod am;
mod sdu_buffer;
mod tm;
mod um;

use crate::error::InputError;
use crate::sim::{Duration, SimTime};
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Bytes `[start, end)` of SDU `sn`, whose total length is `sdu_len`, as carried in one RLC PDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RlcSegment {
    pub sn: u64,
    pub start: u32,
    pub end: u32,
    pub sdu_len: u32,
    /// AM poll bit (38.322 §6.2.3.7): the receiver is asked for a STATUS report.
    pub poll: bool,
    /// A retransmission (for statistics; the receiver does not look at it).
    pub retx: bool,
}

impl RlcSegment {
    /// Payload bytes.
    pub fn len(&self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// One negative acknowledgement of a STATUS report: the whole SDU (`range = None`, a NACK_SN
/// without SOstart/SOend) or bytes `[start, end)` of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nack {
    pub sn: u64,
    pub range: Option<(u32, u32)>,
}

/// An AM STATUS report (38.322 §6.2.2.5). `ack_sn` is the first SN not completely received and
/// not reported as missing: every SN below it that is not in `nacks` is acknowledged. `nacks` is
/// sorted by SN, then by byte offset. Reuse one report (and its `Vec`) across calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatusReport {
    pub ack_sn: u64,
    pub nacks: Vec<Nack>,
}

/// What the receiving entity tells the layer above about SDU `sn`: exactly one of these per SDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxOutcome {
    /// The SDU goes up the stack (in SN order in UM and AM).
    Deliver(u64),
    /// The SDU will never be delivered; its packet can be freed.
    Lost(u64),
}

impl RxOutcome {
    pub fn sn(self) -> u64 {
        match self {
            RxOutcome::Deliver(sn) | RxOutcome::Lost(sn) => sn,
        }
    }
}

/// `"tm"`, `"um"` or `"am"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RlcMode {
    Tm,
    Um,
    #[default]
    Am,
}

/// What the SDU buffer does when it is full or its delay grows: `"droptail"` or `"codel"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferPolicy {
    /// Refuse an SDU that does not fit in `buffer` bytes.
    #[default]
    Droptail,
    /// Drop-tail at `buffer` bytes, plus CoDel (RFC 8289) at the head of the buffer.
    Codel,
}

/// The `rlc` table of a radio link:
/// `{ mode = "am", buffer = "20MB", t_reassembly = "5ms", max_retx = 8 }`.
///
/// Defaults are chosen for a 28 GHz link with 1 GHz of bandwidth, 125 µs slots and HARQ round
/// trips of 0.5–2 ms; `docs/models/rlc.md` gives the source of each.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RlcConfig {
    /// `"tm"`, `"um"` or `"am"`. Default `"am"`.
    pub mode: RlcMode,
    /// Bytes of new SDUs awaiting their first transmission (retransmissions are not counted).
    /// Default `"20MB"`, the larger of the two RLC buffers of Polese et al. 2017a §V (2 MB and 20 MB).
    pub buffer: Bytes,
    /// `"droptail"` or `"codel"`. Default `"droptail"`.
    pub policy: BufferPolicy,
    /// CoDel target sojourn time. Default `"5ms"` (RFC 8289 §4.3 "Setting TARGET").
    pub codel_target: Time,
    /// CoDel interval. Default `"100ms"` (RFC 8289 §4.2 "Setting INTERVAL").
    pub codel_interval: Time,
    /// RLC header bytes per PDU (one per segment) in UM and AM; TM PDUs have no header. Default
    /// 3: the AMD PDU header with an 18-bit SN (38.322 §6.2.2.4). The 2-byte SO field of
    /// non-first segments is not charged separately.
    pub header_bytes: u32,
    /// t-Reassembly (AM, 38.322 §7.3) / t-Reordering (UM, 36.322 §7.3): how long the receiver
    /// waits for a missing SDU before reporting it (AM) or declaring it lost (UM). Must exceed
    /// the span of HARQ retransmissions. Default `"5ms"` (the smallest non-zero NR value, ms5).
    pub t_reassembly: Time,
    /// UM's t-Reordering, when it differs from AM's `t_reassembly`: the ns-3 mmWave module of 2017
    /// runs AM with 10 ms (`LteRlcAm`) and its low-latency UM with 100 ms (`LteRlcUmLowLat`,
    /// docs/models/ns3-mmwave-2017.md §9). Default: absent (`t_reassembly` in both modes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_reassembly_um: Option<Time>,
    /// t-PollRetransmit (AM, 38.322 §7.3): how long the transmitter waits for a STATUS report
    /// after a poll before polling again with a retransmission. Default `"10ms"` (NR ms10).
    pub t_poll_retransmit: Time,
    /// t-StatusProhibit (AM, 38.322 §7.3): the least time between two STATUS reports. Default
    /// `"1ms"`, as the example scenarios of the ns-3 mmWave module (Polese et al. 2017a's simulator) set.
    pub t_status_prohibit: Time,
    /// pollPDU (AM, 38.322 §7.4): poll after this many new AMD PDUs. Default 64 (NR p64).
    pub poll_pdu: u32,
    /// pollByte (AM, 38.322 §7.4): poll after this many new payload bytes. Default `"500KB"`
    /// (NR kB500).
    pub poll_byte: Bytes,
    /// maxRetxThreshold (AM, 38.322 §7.4): retransmissions of one SDU before the transmitter gives
    /// up on it, or `"never"`: the ns-3 mmWave module of 2017 (`LteRlcAm`, MaxRetxThreshold 5)
    /// only logs when the count is reached and keeps retransmitting
    /// (docs/models/ns3-mmwave-2017.md §9). Default 8 (NR t8).
    pub max_retx: MaxRetx,
    /// AM_Window_Size / UM reordering window in SDUs (38.322 §7.2). Default 131072 = 2^17, the
    /// AM window with 18-bit SNs; at most that.
    pub window: u32,
    /// discardTimer (PDCP, 3GPP TS 38.323 §5.2.2.1, §7.3): an SDU that has waited this long in
    /// the SDU buffer without any of it having been sent is discarded (TS 38.322 §5.4: RLC
    /// discards an SDU only while no segment of it was submitted to the lower layers). Checked
    /// at the head of the buffer. Default: absent (off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discard_timer: Option<Time>,
}

impl Default for RlcConfig {
    fn default() -> Self {
        RlcConfig {
            mode: RlcMode::Am,
            buffer: Bytes(20_000_000),
            policy: BufferPolicy::Droptail,
            codel_target: Time(Duration::from_millis(5)),
            codel_interval: Time(Duration::from_millis(100)),
            header_bytes: 3,
            t_reassembly: Time(Duration::from_millis(5)),
            t_reassembly_um: None,
            t_poll_retransmit: Time(Duration::from_millis(10)),
            t_status_prohibit: Time(Duration::from_millis(1)),
            poll_pdu: 64,
            poll_byte: Bytes(500_000),
            max_retx: MaxRetx::After(8),
            window: MAX_WINDOW,
            discard_timer: None,
        }
    }
}

/// When an AM transmitter gives up on an SDU: `max_retx = 8` or `max_retx = "never"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxRetx {
    /// After this many retransmissions of the SDU.
    After(u32),
    /// Never: the SDU is retransmitted until it is acknowledged.
    Never,
}

impl Serialize for MaxRetx {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            MaxRetx::After(n) => serializer.serialize_u32(*n),
            MaxRetx::Never => serializer.serialize_str("never"),
        }
    }
}

impl<'de> Deserialize<'de> for MaxRetx {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<MaxRetx, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = MaxRetx;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number of retransmissions (0 or more) or \"never\"")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<MaxRetx, E> {
                u32::try_from(v)
                    .map(MaxRetx::After)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<MaxRetx, E> {
                u32::try_from(v)
                    .map(MaxRetx::After)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<MaxRetx, E> {
                match v {
                    "never" => Ok(MaxRetx::Never),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl MaxRetx {
    /// Whether an SDU retransmitted `retx_count` times has exceeded the threshold.
    pub fn exceeded_by(self, retx_count: u32) -> bool {
        match self {
            MaxRetx::After(max) => retx_count > max,
            MaxRetx::Never => false,
        }
    }
}

impl RlcConfig {
    /// t-Reordering of a UM receiver: `t_reassembly_um` if given, else `t_reassembly`.
    pub fn um_t_reordering(&self) -> Time {
        self.t_reassembly_um.unwrap_or(self.t_reassembly)
    }
}

/// The largest AM window of NR: half of the 18-bit SN space (38.322 §7.2).
pub const MAX_WINDOW: u32 = 1 << 17;

/// The largest header allowed: NR headers are 1 to 5 bytes (38.322 §6.2.2).
const MAX_HEADER_BYTES: u32 = 16;

impl RlcConfig {
    /// Range checks. `field` is the dotted path of the `rlc` table (`link[0].radio.rlc`); errors
    /// name the offending key under it.
    pub fn validate(&self, file: &str, field: &str) -> Result<(), InputError> {
        let err = |key: &str, message: &str| Err(InputError::new(file, format!("{field}.{key}"), message));
        if self.buffer.0 == 0 {
            return err("buffer", "must be a size greater than zero, e.g. \"20MB\"");
        }
        if self.policy == BufferPolicy::Codel {
            if self.codel_target.0 == Duration::ZERO {
                return err("codel_target", "must be a time greater than zero, e.g. \"5ms\"");
            }
            if self.codel_interval.0 <= self.codel_target.0 {
                return err(
                    "codel_interval",
                    &format!("must be longer than codel_target ({}), e.g. \"100ms\"", self.codel_target),
                );
            }
        }
        if self.header_bytes > MAX_HEADER_BYTES {
            return err(
                "header_bytes",
                &format!("{} is too large; RLC headers are 0 to {MAX_HEADER_BYTES} bytes", self.header_bytes),
            );
        }
        if self.t_reassembly_um.is_some_and(|t| t.0 == Duration::ZERO) {
            return err("t_reassembly_um", "must be a time greater than zero, e.g. \"100ms\"");
        }
        if self.t_poll_retransmit.0 == Duration::ZERO {
            return err("t_poll_retransmit", "must be a time greater than zero, e.g. \"10ms\"");
        }
        if self.poll_pdu == 0 {
            return err("poll_pdu", "must be a whole number of PDUs, at least 1, e.g. 64");
        }
        if self.poll_byte.0 == 0 {
            return err("poll_byte", "must be a size greater than zero, e.g. \"500KB\"");
        }
        if self.discard_timer.is_some_and(|t| t.0 == Duration::ZERO) {
            return err("discard_timer", "must be a time greater than zero, e.g. \"100ms\"");
        }
        if self.window == 0 || self.window > MAX_WINDOW {
            return err(
                "window",
                &format!("{} is out of range; the window is 1 to {MAX_WINDOW} SDUs", self.window),
            );
        }
        Ok(())
    }
}

/// Counters of a transmitting entity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RlcTxStats {
    /// SDUs offered, admitted or not.
    pub sdus_offered: u64,
    /// SDUs refused because the buffer was full.
    pub drops_buffer: u64,
    /// SDUs dropped by CoDel at the head of the buffer.
    pub drops_codel: u64,
    /// SDUs discarded at the head of the buffer after waiting `discard_timer` (PDCP
    /// discardTimer, TS 38.323 §5.2.2.1).
    pub drops_discard_timer: u64,
    /// RLC PDUs (segments) sent, first transmissions and retransmissions.
    pub segments_sent: u64,
    /// Bytes sent, headers included.
    pub bytes_sent: u64,
    /// Of `segments_sent`, retransmissions (AM).
    pub retx_segments: u64,
    /// Of `bytes_sent`, retransmissions, headers included (AM).
    pub retx_bytes: u64,
    /// SDUs given up after `max_retx` retransmissions: radio-link-failure events (AM).
    pub discards_max_retx: u64,
    /// PDUs sent with the poll bit set (AM).
    pub polls: u64,
}

/// Counters of a receiving entity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RlcRxStats {
    pub segments_received: u64,
    pub sdus_delivered: u64,
    pub sdus_lost: u64,
    /// Segments none of whose bytes were new.
    pub duplicate_segments: u64,
    /// Segments of SDUs already delivered or declared lost, or outside the AM receiving window.
    pub late_segments: u64,
    /// STATUS reports handed out by `take_status` (AM).
    pub reports_sent: u64,
}

/// The transmitting entity of one direction.
#[derive(Debug)]
pub struct RlcTx {
    buffer: sdu_buffer::SduBuffer,
    stats: RlcTxStats,
    inner: TxInner,
}

#[derive(Debug)]
enum TxInner {
    Tm,
    Um(um::UmTx),
    Am(am::AmTx),
}

impl RlcTx {
    /// A transmitting entity. `config` is assumed valid ([`RlcConfig::validate`]).
    pub fn new(config: &RlcConfig) -> RlcTx {
        let codel = (config.policy == BufferPolicy::Codel)
            .then_some((config.codel_target.0, config.codel_interval.0));
        let inner = match config.mode {
            RlcMode::Tm => TxInner::Tm,
            RlcMode::Um => TxInner::Um(um::UmTx::new(config)),
            RlcMode::Am => TxInner::Am(am::AmTx::new(config)),
        };
        RlcTx {
            buffer: sdu_buffer::SduBuffer::new(config.buffer.0, codel, config.discard_timer.map(|t| t.0)),
            stats: RlcTxStats::default(),
            inner,
        }
    }

    /// A new SDU of `len` bytes (> 0) from the layer above: `Some(sn)` if the buffer admits it,
    /// `None` if it is full (drop-tail; the caller drops the packet).
    pub fn offer(&mut self, now: SimTime, len: u32) -> Option<u64> {
        assert!(len > 0, "an RLC SDU has at least one byte");
        self.stats.sdus_offered += 1;
        let sn = self.buffer.offer(now, len);
        if sn.is_none() {
            self.stats.drops_buffer += 1;
        }
        sn
    }

    /// Like [`Self::offer`], but the SDU joins the SDUs waiting for their first transmission at
    /// `position` (0: the head; AM retransmissions still go first). It takes the SN of the SDU it
    /// goes ahead of, and the SNs behind it grow by one; the caller renumbers what it keeps per
    /// SN the same way.
    pub fn offer_at(&mut self, now: SimTime, len: u32, position: usize) -> Option<u64> {
        assert!(len > 0, "an RLC SDU has at least one byte");
        self.stats.sdus_offered += 1;
        let sn = self.buffer.offer_at(now, len, position);
        if sn.is_none() {
            self.stats.drops_buffer += 1;
        }
        sn
    }

    /// Appends to `out` the segments of a transport block of `tb_bytes` and returns the bytes
    /// used, headers included (never more than `tb_bytes`). AM retransmissions go first, then new
    /// data; UM and AM segment SDUs to fill the block and put several in it, TM sends only whole
    /// SDUs that fit.
    ///
    /// `dropped` receives the SNs the transmitter gave up on during this call without the peer
    /// knowing: CoDel drops at the head of the buffer and, in AM, SDUs discarded after
    /// `max_retx` at the last t-PollRetransmit expiry. Pass each to the peer's
    /// [`RlcRx::on_discard`], which yields its outcome.
    pub fn fill(
        &mut self,
        now: SimTime,
        tb_bytes: u32,
        out: &mut Vec<RlcSegment>,
        dropped: &mut Vec<u64>,
    ) -> u32 {
        let first = out.len();
        let used = match &mut self.inner {
            TxInner::Tm => tm::fill(now, tb_bytes, &mut self.buffer, out, dropped),
            TxInner::Um(um) => um.fill(now, tb_bytes, &mut self.buffer, out, dropped),
            TxInner::Am(am) => am.fill(now, tb_bytes, &mut self.buffer, &mut self.stats, out, dropped),
        };
        debug_assert!(used <= tb_bytes, "transport block overfilled: {used} > {tb_bytes}");
        let header = self.header_bytes();
        for seg in &out[first..] {
            self.stats.segments_sent += 1;
            self.stats.bytes_sent += (seg.len() + header) as u64;
            if seg.retx {
                self.stats.retx_segments += 1;
                self.stats.retx_bytes += (seg.len() + header) as u64;
            }
        }
        self.stats.drops_codel = self.buffer.codel_drops();
        self.stats.drops_discard_timer = self.buffer.timer_discards();
        used
    }

    /// Discards the SDUs at the head of the buffer that have waited `discard_timer` (PDCP
    /// discardTimer, TS 38.323 §5.2.2.1), appending their SNs to `dropped` (pass each to the
    /// peer's [`RlcRx::on_discard`]). [`Self::fill`] does this too; calling it in slots that
    /// send nothing (an outage) lets the timer act while the link cannot. A no-op without the
    /// timer; O(1) when the head is young.
    pub fn discard_expired(&mut self, now: SimTime, dropped: &mut Vec<u64>) {
        if self.buffer.discard_expired(now, dropped) > 0 {
            self.stats.drops_discard_timer = self.buffer.timer_discards();
        }
    }

    /// RLC re-establishment (3GPP TS 38.322 §5.1.2): discards every SDU and PDU — the SDU
    /// buffer, the SDU being segmented, AM's SDUs awaiting acknowledgement and retransmission —
    /// stops the timers and resets the state variables. SNs are not restarted from 0 (they are
    /// unbounded here, see the module header): numbering continues from the returned SN, which
    /// the peer's [`RlcRx::reestablish`] must be given. Counters are kept.
    pub fn reestablish(&mut self) -> u64 {
        self.buffer.clear();
        let next = self.buffer.next_sn();
        match &mut self.inner {
            TxInner::Tm => {}
            TxInner::Um(um) => um.reestablish(),
            TxInner::Am(am) => am.reestablish(next),
        }
        next
    }

    fn header_bytes(&self) -> u32 {
        match &self.inner {
            TxInner::Tm => 0,
            TxInner::Um(um) => um.header(),
            TxInner::Am(am) => am.header(),
        }
    }

    /// AM: a STATUS report from the peer (38.322 §5.3.2, §5.3.3.3). `discarded` receives the SDUs
    /// whose next retransmission would exceed `max_retx`; pass each to the peer's
    /// [`RlcRx::on_discard`]. TM and UM ignore reports.
    pub fn on_status(&mut self, now: SimTime, report: &StatusReport, discarded: &mut Vec<u64>) {
        if let TxInner::Am(am) = &mut self.inner {
            am.on_status(now, report, &mut self.stats, discarded);
        }
    }

    /// Runs the timers due at `now` (AM t-PollRetransmit, 38.322 §5.3.3.4).
    pub fn on_timer(&mut self, now: SimTime) {
        if let TxInner::Am(am) = &mut self.inner {
            am.on_timer(now, &self.buffer, &mut self.stats);
        }
    }

    /// When `on_timer` must next be called.
    pub fn next_deadline(&self) -> Option<SimTime> {
        match &self.inner {
            TxInner::Am(am) => am.next_deadline(),
            _ => None,
        }
    }

    /// Payload bytes waiting: new data (including the unsent rest of a segmented SDU) and pending
    /// retransmissions. Headers are not counted.
    pub fn buffered_bytes(&self) -> u64 {
        self.buffer.bytes()
            + match &self.inner {
                TxInner::Tm => 0,
                TxInner::Um(um) => um.buffered_bytes(),
                TxInner::Am(am) => am.buffered_bytes(),
            }
    }

    /// Free bytes in the SDU buffer: [`Self::offer`] admits an SDU no longer than that.
    pub fn room_bytes(&self) -> u64 {
        self.buffer.room()
    }

    /// Whether `fill` has something to do now (data the window allows, retransmissions, or
    /// discards to report). The MAC schedules this direction only while it is true.
    pub fn has_pending(&self) -> bool {
        match &self.inner {
            TxInner::Tm => !self.buffer.is_empty(),
            TxInner::Um(um) => um.has_pending(&self.buffer),
            TxInner::Am(am) => am.has_pending(&self.buffer),
        }
    }

    pub fn stats(&self) -> &RlcTxStats {
        &self.stats
    }
}

/// The receiving entity of one direction.
#[derive(Debug)]
pub struct RlcRx {
    stats: RlcRxStats,
    inner: RxInner,
}

#[derive(Debug)]
enum RxInner {
    Tm,
    Um(um::UmRx),
    Am(am::AmRx),
}

impl RlcRx {
    pub fn new(config: &RlcConfig) -> RlcRx {
        let inner = match config.mode {
            RlcMode::Tm => RxInner::Tm,
            RlcMode::Um => RxInner::Um(um::UmRx::new(config)),
            RlcMode::Am => RxInner::Am(am::AmRx::new(config)),
        };
        RlcRx { stats: RlcRxStats::default(), inner }
    }

    /// A segment of a decoded transport block. Outcomes are appended to `out`. In AM, call
    /// [`RlcRx::take_status`] afterwards: a poll or a gap may have triggered a report.
    pub fn on_segment(&mut self, now: SimTime, seg: &RlcSegment, out: &mut Vec<RxOutcome>) {
        debug_assert!(seg.start < seg.end && seg.end <= seg.sdu_len, "malformed segment {seg:?}");
        let first = out.len();
        self.stats.segments_received += 1;
        match &mut self.inner {
            RxInner::Tm => tm::on_segment(seg, out),
            RxInner::Um(um) => um.on_segment(now, seg, &mut self.stats, out),
            RxInner::Am(am) => am.on_segment(now, seg, &mut self.stats, out),
        }
        self.count(out, first);
    }

    /// Runs the timers due at `now` (t-Reassembly; in AM also the end of t-StatusProhibit).
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<RxOutcome>) {
        let first = out.len();
        match &mut self.inner {
            RxInner::Tm => {}
            RxInner::Um(um) => um.on_timer(now, out),
            RxInner::Am(am) => am.on_timer(now, out),
        }
        self.count(out, first);
    }

    /// When `on_timer` must next be called.
    pub fn next_deadline(&self) -> Option<SimTime> {
        match &self.inner {
            RxInner::Tm => None,
            RxInner::Um(um) => um.next_deadline(),
            RxInner::Am(am) => am.next_deadline(),
        }
    }

    /// AM: if a STATUS report is triggered and t-StatusProhibit is not running, fills `report`,
    /// starts t-StatusProhibit and returns true (38.322 §5.3.4). Otherwise returns false and
    /// leaves `report` alone. TM and UM never report.
    pub fn take_status(&mut self, now: SimTime, report: &mut StatusReport) -> bool {
        let taken = match &mut self.inner {
            RxInner::Am(am) => am.take_status(now, report),
            _ => false,
        };
        if taken {
            self.stats.reports_sent += 1;
        }
        taken
    }

    /// The transmitter gave up on `sn` (CoDel drop, or AM discard after `max_retx`). The receiver
    /// stops waiting for it: it becomes `Lost(sn)` in its turn (unless it was already complete,
    /// in which case it is delivered) and what follows is delivered in order. This models NR's
    /// rule that a discarded SDU leaves no SN gap (38.322 §5.4) and, for AM, the "move receiving
    /// window" of UMTS RLC (25.322 §11.6) in place of a radio-link-failure recovery.
    pub fn on_discard(&mut self, sn: u64, out: &mut Vec<RxOutcome>) {
        let first = out.len();
        match &mut self.inner {
            RxInner::Tm => out.push(RxOutcome::Lost(sn)),
            RxInner::Um(um) => um.on_discard(sn, out),
            RxInner::Am(am) => am.on_discard(sn, out),
        }
        self.count(out, first);
    }

    /// RLC re-establishment (3GPP TS 38.322 §5.1.2) of the receiving side: discards every
    /// segment and partly received SDU, stops t-Reassembly and t-StatusProhibit, and resets the
    /// state variables so that the next SDU expected is `next_sn` (from [`RlcTx::reestablish`]).
    /// No outcome is reported for the discarded SDUs: the owner frees their packets itself.
    pub fn reestablish(&mut self, next_sn: u64) {
        match &mut self.inner {
            RxInner::Tm => {}
            RxInner::Um(um) => um.reestablish(next_sn),
            RxInner::Am(am) => am.reestablish(next_sn),
        }
    }

    fn count(&mut self, out: &[RxOutcome], first: usize) {
        for outcome in &out[first..] {
            match outcome {
                RxOutcome::Deliver(_) => self.stats.sdus_delivered += 1,
                RxOutcome::Lost(_) => self.stats.sdus_lost += 1,
            }
        }
    }

    pub fn stats(&self) -> &RlcRxStats {
        &self.stats
    }
}

// ---------------------------------------------------------------------------------------------
// Shared pieces: byte ranges of one SDU, and the receiving window of UM and AM.

/// Disjoint, non-adjacent byte ranges `[start, end)` of one SDU, sorted. SDUs are split in a
/// handful of segments, so a sorted vector beats a tree; its capacity is kept when cleared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ByteRanges(Vec<(u32, u32)>);

impl ByteRanges {
    /// Adds `[start, end)` and returns how many of its bytes were not covered before.
    pub(crate) fn insert(&mut self, start: u32, end: u32) -> u32 {
        if start >= end {
            return 0;
        }
        // The first range that overlaps or touches [start, end).
        let i = self.0.partition_point(|&(_, e)| e < start);
        let (mut lo, mut hi, mut already) = (start, end, 0);
        let mut j = i;
        while j < self.0.len() && self.0[j].0 <= end {
            let (s, e) = self.0[j];
            already += e.min(end).saturating_sub(s.max(start));
            lo = lo.min(s);
            hi = hi.max(e);
            j += 1;
        }
        if i == j {
            self.0.insert(i, (lo, hi));
        } else {
            self.0[i] = (lo, hi);
            self.0.drain(i + 1..j);
        }
        (end - start) - already
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }

    pub(crate) fn first(&self) -> Option<(u32, u32)> {
        self.0.first().copied()
    }

    /// Whether the ranges are exactly `[0, len)`.
    pub(crate) fn covers(&self, len: u32) -> bool {
        self.0.len() == 1 && self.0[0] == (0, len)
    }

    /// Bytes covered.
    pub(crate) fn total(&self) -> u64 {
        self.0.iter().map(|&(s, e)| (e - s) as u64).sum()
    }

    /// Removes the first `n` bytes of the first range.
    pub(crate) fn take_front(&mut self, n: u32) {
        let first = &mut self.0[0];
        debug_assert!(n <= first.1 - first.0);
        first.0 += n;
        if first.0 == first.1 {
            self.0.remove(0);
        }
    }

    /// Whether some byte before the last covered byte is missing (38.322 §5.2.3.2.3: "at least
    /// one missing byte segment of the SDU before the last byte of all received segments").
    pub(crate) fn has_hole(&self) -> bool {
        !self.0.is_empty() && (self.0[0].0 > 0 || self.0.len() > 1)
    }

    /// Calls `f` with each gap of `[0, len)` not covered, in order.
    pub(crate) fn gaps(&self, len: u32, mut f: impl FnMut(u32, u32)) {
        let mut cursor = 0;
        for &(s, e) in &self.0 {
            if s > cursor {
                f(cursor, s);
            }
            cursor = e;
        }
        if cursor < len {
            f(cursor, len);
        }
    }
}

/// The receiving state of one SDU.
#[derive(Debug, Default)]
struct RxSlot {
    /// Length of the SDU, known once one of its segments arrived (0 before).
    len: u32,
    /// Bytes received so far (emptied once complete).
    ranges: ByteRanges,
    complete: bool,
    /// The transmitter gave up on it ([`RlcRx::on_discard`]).
    abandoned: bool,
}

impl RxSlot {
    fn done(&self) -> bool {
        self.complete || self.abandoned
    }
}

/// What became of a segment offered to the window.
enum Placed {
    /// No new byte: a duplicate, or the SDU is already complete or abandoned.
    Duplicate,
    /// New bytes; `complete` says whether the SDU is now whole.
    New { complete: bool },
}

/// SDUs from `base` (the lowest SN not yet delivered or declared lost) up, indexed by
/// `sn - base`. Slots leaving at the front give their range buffers to a spare list that slots
/// joining at the back take from, so a steady flow allocates nothing.
#[derive(Debug, Default)]
struct RxWindow {
    base: u64,
    slots: VecDeque<RxSlot>,
    spare: Vec<ByteRanges>,
}

impl RxWindow {
    fn slot(&self, sn: u64) -> Option<&RxSlot> {
        sn.checked_sub(self.base).and_then(|i| self.slots.get(i as usize))
    }

    fn slot_mut(&mut self, sn: u64) -> &mut RxSlot {
        debug_assert!(sn >= self.base);
        let i = (sn - self.base) as usize;
        while self.slots.len() <= i {
            let ranges = self.spare.pop().unwrap_or_default();
            self.slots.push_back(RxSlot { ranges, ..RxSlot::default() });
        }
        &mut self.slots[i]
    }

    /// Whether `sn` is delivered, declared lost, complete or abandoned.
    fn done(&self, sn: u64) -> bool {
        sn < self.base || self.slot(sn).is_some_and(RxSlot::done)
    }

    /// The first SN at or after `sn` that is not done.
    fn first_not_done_from(&self, mut sn: u64) -> u64 {
        while self.done(sn) {
            sn += 1;
        }
        sn
    }

    /// Whether SDU `sn` has a hole before its last received byte.
    fn has_hole(&self, sn: u64) -> bool {
        self.slot(sn).is_some_and(|s| !s.done() && s.ranges.has_hole())
    }

    fn place(&mut self, seg: &RlcSegment) -> Placed {
        let slot = self.slot_mut(seg.sn);
        if slot.done() {
            return Placed::Duplicate;
        }
        slot.len = seg.sdu_len;
        if slot.ranges.insert(seg.start, seg.end) == 0 {
            return Placed::Duplicate;
        }
        if slot.ranges.covers(slot.len) {
            slot.complete = true;
            slot.ranges.clear();
        }
        Placed::New { complete: slot.complete }
    }

    /// Marks `sn` abandoned unless it is done already; returns whether it changed.
    fn abandon(&mut self, sn: u64) -> bool {
        if sn < self.base {
            return false;
        }
        let slot = self.slot_mut(sn);
        if slot.done() {
            return false;
        }
        slot.abandoned = true;
        slot.ranges.clear();
        true
    }

    /// Resolves the SDU at `base`: delivered if complete, lost otherwise.
    fn pop_front(&mut self, out: &mut Vec<RxOutcome>) {
        let sn = self.base;
        match self.slots.pop_front() {
            Some(mut slot) => {
                out.push(if slot.complete { RxOutcome::Deliver(sn) } else { RxOutcome::Lost(sn) });
                slot.ranges.clear();
                self.spare.push(slot.ranges);
            }
            None => out.push(RxOutcome::Lost(sn)),
        }
        self.base += 1;
    }

    /// Resolves SDUs from `base` while they are done (in-sequence delivery).
    fn pop_done(&mut self, out: &mut Vec<RxOutcome>) {
        while self.slots.front().is_some_and(RxSlot::done) {
            self.pop_front(out);
        }
    }

    /// Forgets every SDU (re-establishment): the window starts empty at `base`. The range
    /// buffers are kept for reuse.
    fn reset(&mut self, base: u64) {
        for mut slot in self.slots.drain(..) {
            slot.ranges.clear();
            self.spare.push(slot.ranges);
        }
        self.base = base;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_ranges_report_new_bytes_and_merge() {
        let mut r = ByteRanges::default();
        assert_eq!(r.insert(10, 20), 10);
        assert_eq!(r.insert(30, 40), 10);
        assert_eq!(r.insert(15, 35), 10);
        assert_eq!(r.0, vec![(10, 40)]);
        assert_eq!(r.insert(0, 10), 10, "adjacent ranges merge");
        assert!(r.covers(40));
        assert_eq!(r.insert(5, 25), 0);
        assert!(!r.has_hole());
        r.insert(50, 60);
        assert!(r.has_hole());
        let mut gaps = Vec::new();
        r.gaps(70, |a, b| gaps.push((a, b)));
        assert_eq!(gaps, vec![(40, 50), (60, 70)]);
        r.take_front(40);
        assert_eq!(r.first(), Some((50, 60)));
        assert_eq!(r.total(), 10);
    }

    #[test]
    fn config_defaults_parse_from_an_empty_table_and_round_trip() {
        let c: RlcConfig = toml::from_str("").unwrap();
        assert_eq!(c, RlcConfig::default());
        let text = toml::to_string(&c).unwrap();
        assert_eq!(toml::from_str::<RlcConfig>(&text).unwrap(), c);
        let um: RlcConfig =
            toml::from_str("mode = \"um\"\npolicy = \"codel\"\nt_reassembly = \"2ms\"").unwrap();
        assert_eq!(um.mode, RlcMode::Um);
        assert_eq!(um.policy, BufferPolicy::Codel);
        assert!(toml::from_str::<RlcConfig>("mode = \"xx\"").is_err());
        let never: RlcConfig = toml::from_str("max_retx = \"never\"").unwrap();
        assert_eq!(never.max_retx, MaxRetx::Never);
        assert_eq!(toml::from_str::<RlcConfig>(&toml::to_string(&never).unwrap()).unwrap(), never);
        assert_eq!(toml::from_str::<RlcConfig>("max_retx = 5").unwrap().max_retx, MaxRetx::After(5));
        for bad in ["max_retx = \"forever\"", "max_retx = -1", "max_retx = 1.5"] {
            let e = toml::from_str::<RlcConfig>(bad).unwrap_err().to_string();
            assert!(e.contains("or \"never\""), "{bad}: {e}");
        }
        assert!(toml::from_str::<RlcConfig>("max_retx = 3\nbogus = 1")
            .unwrap_err()
            .to_string()
            .contains("bogus"));
    }

    #[test]
    fn validation_names_the_field() {
        assert!(RlcConfig::default().validate("s.toml", "link[0].radio.rlc").is_ok());
        let bad = |c: RlcConfig| c.validate("s.toml", "link[0].radio.rlc").unwrap_err().to_string();
        let e = bad(RlcConfig { window: 0, ..RlcConfig::default() });
        assert!(e.starts_with("s.toml: link[0].radio.rlc.window: "), "{e}");
        let e = bad(RlcConfig { window: MAX_WINDOW + 1, ..RlcConfig::default() });
        assert!(e.contains("131072"), "{e}");
        assert!(bad(RlcConfig { poll_pdu: 0, ..RlcConfig::default() }).contains(".poll_pdu: "));
        assert!(bad(RlcConfig { buffer: Bytes(0), ..RlcConfig::default() }).contains(".buffer: "));
        assert!(bad(RlcConfig { header_bytes: 99, ..RlcConfig::default() }).contains(".header_bytes: "));
        let codel = RlcConfig {
            policy: BufferPolicy::Codel,
            codel_interval: Time(Duration::from_millis(5)),
            ..RlcConfig::default()
        };
        assert!(bad(codel).contains(".codel_interval: "));
        let e = bad(RlcConfig { t_poll_retransmit: Time(Duration::ZERO), ..RlcConfig::default() });
        assert!(e.contains(".t_poll_retransmit: ") && !e.contains('\n'), "{e}");
        let e = bad(RlcConfig { t_reassembly_um: Some(Time(Duration::ZERO)), ..RlcConfig::default() });
        assert!(e.contains(".t_reassembly_um: "), "{e}");
    }
}
