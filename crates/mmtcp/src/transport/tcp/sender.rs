//! The data sender: handshake, transmission, ACK processing, loss recovery and the RTO.
//!
//! ```text
//!            3 dupACKs, or head IsLost (RFC 6675 §5)
//!   Open ────────────────────────────────────────► Recovery ── ACK ≥ recovery point ──► Open
//!    ▲  ╲                                              │
//!    │   ╲ RTO                                   RTO   │
//!    │    ▼                                            ▼
//!    └── Loss (slow start from one segment, ◄──────────┘
//!         retransmitting every lost segment) ── ACK ≥ recovery point ──► Open
//! ```
//!
//! In Recovery the window is PRR's pipe + sndcnt (RFC 6937), or with `recovery = "classic"` the
//! controller's post-loss cwnd, and segments are chosen by RFC 6675
//! `NextSeg` rules 1 and 2 (lost segments first, then new data) while `pipe` < cwnd. Rules 3 and 4
//! (retransmitting segments not yet deemed lost, rescue retransmission) are not modelled: a
//! retransmission that is lost again is recovered by the RTO, as in RFC 6675 without RACK.
//! Without SACK the same machinery runs with duplicate ACKs counted as departed segments, which
//! is RFC 6582 NewReno: the first unacknowledged segment is retransmitted on entering recovery
//! and after each partial ACK.
//!
//! Zero-window probing (RFC 9293 §3.8.6.1): when the peer's window is too small for the next
//! segment and nothing is in flight to bring an ACK that would reopen it, the retransmission
//! timer runs as the persist timer (Linux's `ICSK_TIME_PROBE0` shares the retransmission timer
//! too, the two are never needed at once). On expiry a probe — a segment without data one byte
//! below `snd_una`, which the receiver answers with an ACK carrying its window (Linux
//! `tcp_xmit_probe_skb`) — goes out and the timer backs off; once the window lets data out the
//! back-off is cleared (Linux `tcp_ack_probe`). A lost window update then delays the flow by a
//! probe interval instead of stalling it. Probing is on only where the world turns it on
//! ([`TcpSender::enable_window_probes`]: the upstream flow of a relay, whose window closes by
//! design): elsewhere a window closes with nothing in flight only behind the early-ACK proxies,
//! which send their own window updates, and their pinned results predate the probe.

use super::config::Recovery;
use super::dss_map::DssMap;
use super::rto::RttEstimator;
use super::scoreboard::{Acked, Scoreboard, TxStamp};
use super::{Endpoint, Opener, TcpConfig, TcpCtx};
use crate::event::TcpTimer;
use crate::metrics::LogHistogram;
use crate::net::{Dss, Packet, Side, TcpFlags, TcpHeader, TcpOptions, NO_ECHO, TCP_IP_HEADER_BYTES};
use crate::sim::rng::Rng;
use crate::sim::{Duration, SimTime, Timer};
use crate::transport::cc::{
    AckSample, AckState, AnyCc, CongestionControl, RateSample, Siblings, SubflowView,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handshake {
    /// Waiting for the flow to start (or, as passive end, for a SYN).
    Closed,
    /// Our SYN (active open) or SYN-ACK (passive open) is out, first sent at `sent_at`.
    Opening {
        sent: TcpFlags,
        sent_at: SimTime,
        retransmitted: bool,
    },
    Established,
}

/// Congestion state (Linux's `tcp_ca_state`, reduced to what the RFCs need).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    Open,
    /// Fast recovery until the cumulative ACK reaches `point` (RFC 6675 RecoveryPoint).
    Recovery {
        point: u64,
    },
    /// After a timeout, until the cumulative ACK reaches `point`.
    Loss {
        point: u64,
    },
}

/// Proportional Rate Reduction's counters for one recovery episode (RFC 6937 §3; the
/// variables of Linux's `tcp_cwnd_reduction`).
#[derive(Clone, Copy, Debug)]
struct Prr {
    /// RecoverFS: what the window was when recovery began (Linux's `prior_cwnd`).
    recover_fs: u64,
    /// Bytes delivered to the receiver since recovery began.
    delivered: u64,
    /// Bytes sent since recovery began.
    out: u64,
    /// The window PRR allows after the latest ACK: pipe + sndcnt.
    cwnd: u64,
}

/// The delivery-rate estimator's connection state (Linux's `tp->delivered`,
/// `delivered_mstamp`, `first_tx_mstamp`, `app_limited`).
#[derive(Clone, Copy, Debug, Default)]
struct RateState {
    /// Bytes delivered (cumulatively ACKed or SACKed) so far.
    delivered: u64,
    /// When `delivered` last grew, or the send phase began.
    delivered_time: SimTime,
    /// Send time of the most recently delivered segment: the current send phase's start.
    first_tx: SimTime,
    /// Non-zero while application-limited: the `delivered` count that ends it.
    app_limited: u64,
}

/// The first data segments of a connection leave unpaced (Linux, after sch_fq: the first 10
/// segments are not paced).
const UNPACED_SEGMENTS: u64 = 10;

/// Counters and latency samples of a sender.
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    /// Data segments transmitted, retransmissions included.
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub rto_count: u64,
    pub fast_recoveries: u64,
    /// Times an MP-TCP scheduler halved this subflow's window ([`TcpSender::penalise`]).
    pub penalisations: u64,
    /// Segments an MP-TCP scheduler had sent again at once after a timeout ([`TcpSender::probe`]).
    pub probes: u64,
    /// Zero-window probes sent.
    pub window_probes: u64,
    /// RTT samples (picoseconds).
    pub rtt: LogHistogram,
    /// Sum and count of RTT samples since the time series last read them.
    pub rtt_interval_sum: Duration,
    pub rtt_interval_count: u64,
}

pub struct TcpSender {
    ends: Endpoint,
    opener: Opener,
    mss: u32,
    sack: bool,
    dupthresh: u32,
    send_buffer: u64,
    hs: Handshake,
    ca: CaState,
    sb: Scoreboard,
    /// Sequence number one past the last byte the application has written.
    app_end: u64,
    /// Receiver's advertised window, bytes.
    rwnd: u64,
    cc: AnyCc,
    rtt: RttEstimator,
    /// The retransmission timer; the persist timer while `persist` is set.
    rto_timer: Timer,
    /// Whether this sender probes a closed window ([`Self::enable_window_probes`]).
    probes_window: bool,
    /// The peer's window held back unsent data while nothing was in flight, and no data has
    /// gone since: the retransmission timer, when armed, runs as the persist timer.
    persist: bool,
    dupacks: u32,
    /// Timestamps (RFC 7323) are on: an ACK's echo gives an RTT sample when Karn's rule does not.
    timestamps: bool,
    recovery: Recovery,
    /// PRR's state while in fast recovery with `recovery = "prr"`.
    prr: Option<Prr>,
    /// Bytes of new data sent on duplicate ACKs before recovery began (limited transmit,
    /// RFC 3042): RFC 5681 §3.2 step 2 leaves them out of the FlightSize that sets ssthresh.
    limited_transmit: u64,
    /// The delivery-rate estimator (draft-cheng-iccrg-delivery-rate-estimation, Linux
    /// `tcp_rate.c`), for controllers that model the path from delivery rates (BBR).
    rate: RateState,
    /// Pacing (Linux `tcp_update_skb_after_send`): the earliest departure of the next segment,
    /// and the timer that waits for it, while the controller gives a pacing rate.
    next_departure: SimTime,
    pacing_timer: Timer,
    /// Whether the last transmission attempt stopped because of the congestion window.
    cwnd_limited: bool,
    /// The next retransmission goes out whatever the window: the fast retransmit on entering
    /// recovery (RFC 6675 §5 step 4.3, RFC 5681 §3.2 step 4) and the retransmission on a NewReno
    /// partial ACK (RFC 6582 §3.2 step 5).
    force_retransmit: bool,
    /// A window set from outside the sender (a cross-layer proxy's control message), used
    /// instead of the congestion controller's while set. The controller keeps running beneath.
    pinned_cwnd: Option<u64>,
    /// The delivered count (`rate.delivered`) at the last congestion event and at the one
    /// before: the loss history coupled controllers read (OLIA's ℓ).
    delivered_at_loss: [u64; 2],
    /// Set when this sender is an MP-TCP subflow.
    subflow: Option<Subflow>,
    pub stats: SenderStats,
}

/// What an MP-TCP subflow adds to a TCP sender: its index in the connection and the mapping of
/// its sequence space to the connection's. The connection's receive window, not the subflow's,
/// limits what is sent (RFC 8684 §3.3.5), and the connection checks it before handing data over.
#[derive(Clone, Debug)]
struct Subflow {
    index: u8,
    map: DssMap,
}

impl TcpSender {
    /// The sender of `ends`; `cc_rng` is the flow's own random stream for its congestion
    /// control (BBR's gain cycle starts at a random phase).
    pub fn new(ends: Endpoint, opener: Opener, cfg: &TcpConfig, cc_rng: Rng) -> Self {
        let mss = cfg.mss_u32();
        TcpSender {
            ends,
            opener,
            mss,
            sack: cfg.sack,
            dupthresh: cfg.dupthresh,
            send_buffer: cfg.send_buffer.0,
            hs: Handshake::Closed,
            ca: CaState::Open,
            sb: Scoreboard::new(mss),
            app_end: 0,
            rwnd: cfg.receive_buffer.window_before_first_ack(),
            cc: AnyCc::new(
                cfg.cc,
                mss,
                cfg.initial_window as u64 * mss as u64,
                (&cfg.cubic, cfg.hystart_kind(), cfg.variant, cfg.newreno_counting()),
                cc_rng,
            ),
            rtt: RttEstimator::new(cfg.rto, cfg.initial_rto.0, cfg.min_rto.0, cfg.max_rto.0),
            rto_timer: Timer::default(),
            probes_window: false,
            persist: false,
            dupacks: 0,
            timestamps: cfg.timestamps,
            recovery: cfg.recovery,
            prr: None,
            limited_transmit: 0,
            rate: RateState::default(),
            next_departure: SimTime::ZERO,
            pacing_timer: Timer::default(),
            cwnd_limited: false,
            force_retransmit: false,
            pinned_cwnd: None,
            delivered_at_loss: [0; 2],
            subflow: None,
            stats: SenderStats::default(),
        }
    }

    /// Subflow `index` of an MP-TCP connection: its data comes from the connection
    /// ([`Self::write_mapped`]), whose send buffer and receive window bound it.
    pub fn new_subflow(ends: Endpoint, opener: Opener, cfg: &TcpConfig, cc_rng: Rng, index: u8) -> Self {
        let mut sender = TcpSender::new(ends, opener, cfg, cc_rng);
        sender.send_buffer = u64::MAX;
        sender.subflow = Some(Subflow { index, map: DssMap::new() });
        sender
    }

    // ----------------------------------------------------------------------------------------
    // Observation (metrics, applications)

    /// The congestion window in force: the pinned one if a proxy set it, else PRR's during
    /// fast recovery, else the controller's.
    pub fn cwnd(&self) -> u64 {
        self.pinned_cwnd.or(self.prr.map(|p| p.cwnd)).unwrap_or_else(|| self.cc.cwnd())
    }
    /// The smallest RTT sample so far.
    pub fn min_rtt(&self) -> Option<Duration> {
        self.rtt.min_rtt()
    }
    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }
    pub fn pipe(&self) -> u64 {
        self.sb.pipe()
    }
    pub fn snd_una(&self) -> u64 {
        self.sb.una()
    }
    pub fn ca_state(&self) -> CaState {
        self.ca
    }
    pub fn srtt(&self) -> Option<Duration> {
        self.rtt.srtt()
    }
    /// RTTVAR (RFC 6298; with the Linux rule, its mean deviation).
    pub fn rttvar(&self) -> Duration {
        self.rtt.rttvar()
    }
    pub fn is_established(&self) -> bool {
        self.hs == Handshake::Established
    }
    /// Bytes the application may still write before the send buffer is full.
    pub fn buffer_space(&self) -> u64 {
        self.send_buffer.saturating_sub(self.app_end - self.sb.una())
    }
    /// Bytes written by the application so far.
    pub fn app_written(&self) -> u64 {
        self.app_end
    }
    /// Bytes written and not yet sent once.
    pub fn unsent(&self) -> u64 {
        self.app_end - self.sb.high_data()
    }
    /// Bytes the congestion window lets out beyond what is in flight.
    pub fn window_room(&self) -> u64 {
        self.cwnd().saturating_sub(self.sb.pipe())
    }
    pub fn mss(&self) -> u32 {
        self.mss
    }
    /// What a coupled controller of a sibling subflow may read of this one.
    pub fn view(&self) -> SubflowView {
        let [last, before] = self.delivered_at_loss;
        SubflowView {
            cwnd: self.cwnd(),
            ssthresh: self.cc.ssthresh(),
            srtt: self.rtt.srtt(),
            mss: self.mss,
            delivered_since_loss: self.rate.delivered - last,
            delivered_between_losses: last - before,
            in_recovery: self.ca != CaState::Open,
            established: self.is_established(),
        }
    }
    /// The data-sequence mappings of this subflow's unacknowledged bytes (MP-TCP subflows).
    pub fn dss_map(&self) -> Option<&DssMap> {
        self.subflow.as_ref().map(|s| &s.map)
    }

    // ----------------------------------------------------------------------------------------
    // MP-TCP subflow inputs

    /// Hands this subflow the connection's bytes `dsn .. dsn + len` (at most one segment) to
    /// send as its next segment. Nothing is sent until [`Self::send_pending`].
    pub fn write_mapped(&mut self, dsn: u64, len: u16) {
        let sub = self.subflow.as_mut().expect("write_mapped on a subflow");
        debug_assert!(len > 0 && u32::from(len) <= self.mss);
        sub.map.push(dsn, len);
        self.app_end += u64::from(len);
    }

    /// Sends what the window allows of what was written.
    pub fn send_pending(&mut self, ctx: &mut TcpCtx) {
        self.try_send(ctx);
    }

    /// The connection has no more data for this subflow while its window has room: rate samples
    /// of what is in flight now understate the path (as `try_send` notes for a single-path
    /// sender whose application ran dry).
    pub fn note_app_limited(&mut self) {
        let pipe = self.sb.pipe();
        if self.unsent() == 0 && pipe < self.cwnd() {
            self.rate.app_limited = (self.rate.delivered + pipe).max(1);
            self.cwnd_limited = false;
        }
    }

    /// Halves this subflow's window, as Linux MP-TCP's default scheduler penalises a slow
    /// subflow that holds up the connection (`mptcp_rcv_buf_optimization`): cwnd := max(cwnd / 2,
    /// 1 segment) and, unless in slow start, ssthresh := max(ssthresh / 2, 2 segments).
    pub fn penalise(&mut self) {
        let mss = u64::from(self.mss);
        let (cwnd, ssthresh) = (self.cc.cwnd(), self.cc.ssthresh());
        let ssthresh = if cwnd >= ssthresh { (ssthresh / 2).max(2 * mss) } else { ssthresh };
        self.cc.set_window((cwnd / 2).max(mss), ssthresh);
        self.stats.penalisations += 1;
    }

    /// Sends the first unacknowledged segment again now, whatever the window, leaving the
    /// retransmission timer and its back-off as they are: an MP-TCP scheduler's probe of a
    /// subflow whose path may be back after a timeout (MuSher; as Linux's `tcp_write_wakeup`,
    /// which the authors' code calls, one segment goes out past the window). Its ACK, if it
    /// comes, clears the back-off as any ACK of new data does. Nothing is sent before the
    /// handshake or with nothing outstanding.
    pub fn probe(&mut self, ctx: &mut TcpCtx) {
        let Some(head) = self.sb.head().map(|s| s.start).filter(|_| self.is_established()) else {
            return;
        };
        let stamp = self.tx_stamp(ctx.now);
        let seg = self.sb.retransmit(head, ctx.now, stamp);
        self.stats.retransmitted_segments += 1;
        self.stats.probes += 1;
        self.emit_data(ctx, seg.start, seg.len, seg.first_sent_at);
    }

    /// The path is back after a timeout (an MP-TCP scheduler learnt it, MuSher): the window
    /// before the timeout returns — cwnd := max(cwnd, `cwnd`), ssthresh := max(ssthresh,
    /// `ssthresh`) — and a sender still in loss recovery goes on in fast recovery towards the same
    /// recovery point, so that new data may follow its retransmissions (the authors' code: cwnd
    /// from the controller's `undo_cwnd`, ssthresh from `prior_ssthresh` if larger, state
    /// `TCP_CA_Recovery`). Then it sends what the window allows.
    pub fn undo_timeout(&mut self, ctx: &mut TcpCtx, cwnd: u64, ssthresh: u64) {
        let (now_cwnd, now_ssthresh) = (self.cc.cwnd(), self.cc.ssthresh());
        self.cc.set_window(now_cwnd.max(cwnd), now_ssthresh.max(ssthresh));
        if let CaState::Loss { point } = self.ca {
            self.ca = CaState::Recovery { point };
            self.prr = None;
        }
        self.try_send(ctx);
    }

    /// The controller reads its connection's subflows (see [`crate::transport::cc::coupling`]).
    pub fn couple(&mut self, siblings: &Siblings) {
        self.cc.couple(siblings);
    }

    // ----------------------------------------------------------------------------------------
    // Inputs

    /// The flow starts: an active opener sends its SYN.
    pub fn open(&mut self, ctx: &mut TcpCtx) {
        if self.opener == Opener::Sender && self.hs == Handshake::Closed {
            self.send_handshake(ctx, TcpFlags::SYN);
        }
    }

    /// The application wrote `bytes` more (never more than [`Self::buffer_space`]).
    pub fn write(&mut self, ctx: &mut TcpCtx, bytes: u64) {
        debug_assert!(bytes <= self.buffer_space());
        self.app_end += bytes;
        self.try_send(ctx);
    }

    /// From now on a window too small for the next segment, with nothing in flight, is probed
    /// (RFC 9293 §3.8.6.1; see the module header).
    pub fn enable_window_probes(&mut self) {
        self.probes_window = true;
    }

    /// Pins the congestion window to `cwnd` bytes (`None` hands it back to the congestion
    /// controller) and sends what the new window allows. Loss detection, retransmission and the
    /// RTO stay with the sender; only the amount in flight follows the pin (Drago et al. §III-A: the
    /// proxy "only modifies the value of the congestion window"). A pin of 0 stops new
    /// transmissions (the proactive policy during an outage).
    pub fn pin_cwnd(&mut self, ctx: &mut TcpCtx, cwnd: Option<u64>) {
        self.pinned_cwnd = cwnd;
        self.try_send(ctx);
    }

    /// A packet addressed to this sender arrived, with its TCP `options`.
    pub fn on_packet(&mut self, ctx: &mut TcpCtx, pkt: &Packet, options: &TcpOptions) {
        let flags = pkt.tcp.flags;
        let syn = flags.contains(TcpFlags::SYN) && !flags.contains(TcpFlags::ACK);
        match self.hs {
            Handshake::Closed if syn => self.send_handshake(ctx, TcpFlags::SYN_ACK),
            // Our SYN-ACK was lost and the receiver retried.
            Handshake::Opening { sent: TcpFlags::SYN_ACK, .. } if syn => {
                self.send_control(ctx, TcpFlags::SYN_ACK)
            }
            Handshake::Opening { sent: TcpFlags::SYN, sent_at, retransmitted }
                if flags.contains(TcpFlags::SYN_ACK) =>
            {
                self.establish(ctx, sent_at, retransmitted)
            }
            Handshake::Opening { sent: TcpFlags::SYN_ACK, sent_at, retransmitted }
                if !flags.contains(TcpFlags::SYN) =>
            {
                self.establish(ctx, sent_at, retransmitted)
            }
            Handshake::Established if !flags.contains(TcpFlags::SYN) => self.on_ack(ctx, pkt, options),
            _ => {}
        }
    }

    /// Sends our SYN or SYN-ACK and arms the timer that repeats it.
    fn send_handshake(&mut self, ctx: &mut TcpCtx, flags: TcpFlags) {
        self.hs = Handshake::Opening { sent: flags, sent_at: ctx.now, retransmitted: false };
        self.send_control(ctx, flags);
        let at = self.rto_timer.set(ctx.now + self.rtt.rto());
        ctx.arm(at, TcpTimer::SenderRto);
    }

    fn establish(&mut self, ctx: &mut TcpCtx, sent_at: SimTime, retransmitted: bool) {
        self.hs = Handshake::Established;
        if !retransmitted {
            // RFC 6298 §2: the handshake gives the first RTT sample.
            self.rtt.on_sample(ctx.now - sent_at, 0, 0);
        }
        self.rtt.reset_backoff();
        self.rto_timer.cancel();
        self.try_send(ctx);
    }

    /// A timer of this sender fired: the retransmission timer, or the pacing timer.
    pub fn on_timer(&mut self, ctx: &mut TcpCtx, timer: TcpTimer) {
        if timer == TcpTimer::SenderPacing {
            if ctx.expired(&mut self.pacing_timer, TcpTimer::SenderPacing) {
                self.try_send(ctx);
            }
            return;
        }
        if !ctx.expired(&mut self.rto_timer, TcpTimer::SenderRto) {
            return;
        }
        match self.hs {
            Handshake::Opening { sent, sent_at, .. } => {
                // RFC 6298 §5.5: back off, and repeat the SYN or SYN-ACK.
                self.hs = Handshake::Opening { sent, sent_at, retransmitted: true };
                self.rtt.back_off();
                self.send_control(ctx, sent);
                let at = self.rto_timer.set(ctx.now + self.rtt.rto());
                ctx.arm(at, TcpTimer::SenderRto);
            }
            Handshake::Established => self.on_rto(ctx),
            Handshake::Closed => {}
        }
    }

    // ----------------------------------------------------------------------------------------
    // ACK processing

    fn on_ack(&mut self, ctx: &mut TcpCtx, pkt: &Packet, options: &TcpOptions) {
        let ack = pkt.tcp.ack;
        if ack > self.sb.high_data() || ack < self.sb.una() {
            return; // acknowledges data never sent, or older than what we know
        }
        self.rwnd = u64::from(pkt.tcp.window);
        let prior_una = self.sb.una();
        let was_cwnd_limited = self.cwnd_limited;
        let prior_in_flight = self.sb.pipe();
        let prior_lost = self.sb.lost_total();

        let mut acked = Acked::default();
        if self.sack {
            for &block in options.sack.as_slice() {
                acked.merge(self.sb.sack(block));
            }
        }
        let sacked_new = acked.bytes;
        acked.merge(self.sb.ack(ack));
        let advanced = ack > prior_una;
        if let Some(sub) = self.subflow.as_mut() {
            sub.map.release_below(ack);
        }
        self.on_delivered(ctx.now, &acked);

        // Karn's rule gives no sample when retransmitted data was acknowledged; the timestamp
        // echo then does (RFC 7323 §4; Linux `tcp_ack_update_rtt`), on an ACK of new data.
        let ts_sample = || {
            let echo = pkt.ts_echo().filter(|_| self.timestamps && advanced)?;
            (echo <= ctx.now).then(|| ctx.now - echo)
        };
        let rtt_sample = acked.rtt_sample(ctx.now).or_else(ts_sample);
        if let Some(sample) = rtt_sample {
            self.rtt.on_sample(sample, ack, self.sb.high_data());
            self.stats.rtt.record(sample.as_picos());
            self.stats.rtt_interval_sum += sample;
            self.stats.rtt_interval_count += 1;
        }

        // RFC 5681 §2 / RFC 6675 §2: a duplicate ACK acknowledges nothing new, carries no data,
        // arrives while data is outstanding and — with SACK — reports newly SACKed data.
        let dupack =
            !advanced && !pkt.is_data() && self.sb.outstanding() > 0 && (!self.sack || sacked_new > 0);
        if advanced {
            self.rtt.reset_backoff();
        }
        if dupack && !self.sack {
            self.sb.add_reno_dupack(self.mss);
        }
        let lost_before = self.sb.lost_bytes();
        if self.sack {
            self.sb.detect_losses(self.dupthresh, self.mss);
            self.sb.detect_lost_retransmissions(self.dupthresh, self.mss);
        }
        let newly_lost = self.sb.lost_bytes() > lost_before;
        // RFC 6937 DeliveredData: bytes cumulatively acknowledged or SACKed by this ACK; without
        // SACK a duplicate ACK stands for one segment delivered.
        let delivered = acked.bytes + if dupack && !self.sack { self.mss as u64 } else { 0 };

        match self.ca {
            CaState::Open => {
                if dupack {
                    self.dupacks += 1;
                } else if advanced {
                    self.dupacks = 0;
                }
                let lost = self.sack && self.sb.head_is_lost();
                if self.dupacks >= self.dupthresh || lost {
                    self.enter_recovery(ctx.now);
                    self.prr_on_ack(delivered, advanced && !newly_lost);
                } else if advanced && !self.cc.wants_all_acks() {
                    // RFC 5681 §3.1: the window grows on ACKs of new data (and, as in Linux,
                    // by everything that ACK newly acknowledged, SACKed bytes included); a
                    // duplicate ACK does not raise it.
                    let sample = self.ack_sample(ctx.now, &acked, (rtt_sample, prior_in_flight, prior_lost));
                    self.cc.on_ack(&AckSample { cwnd_limited: was_cwnd_limited, ..sample });
                }
            }
            CaState::Recovery { point } => {
                if ack >= point {
                    self.ca = CaState::Open;
                    self.dupacks = 0;
                    self.limited_transmit = 0;
                    self.prr = None;
                    self.sb.clear_reno_dupacks();
                    self.cc.on_recovery_exit(ctx.now);
                } else {
                    if advanced && !self.sack {
                        // RFC 6582 §3.2 step 5: a partial ACK; the next hole is lost.
                        let head_end = self.sb.head().map(|s| s.end()).unwrap_or(ack);
                        self.sb.mark_lost_below(head_end);
                        self.force_retransmit = true;
                    }
                    self.prr_on_ack(delivered, advanced && !newly_lost);
                }
            }
            CaState::Loss { point } => {
                if ack >= point {
                    self.ca = CaState::Open;
                    self.dupacks = 0;
                    self.limited_transmit = 0;
                }
                if advanced && !self.cc.wants_all_acks() {
                    let sample = self.ack_sample(ctx.now, &acked, (rtt_sample, prior_in_flight, prior_lost));
                    self.cc.on_ack(&AckSample { cwnd_limited: was_cwnd_limited, ..sample });
                }
            }
        }
        // A controller that sees every ACK (BBR) gets it once its events (recovery entered or
        // left) have been told, with the state they left (Linux `tcp_cong_control`).
        if self.cc.wants_all_acks() && acked.bytes > 0 {
            let sample = self.ack_sample(ctx.now, &acked, (rtt_sample, prior_in_flight, prior_lost));
            self.cc.on_ack(&AckSample { cwnd_limited: was_cwnd_limited, ..sample });
        }
        if self.cc.requests_app_limited() {
            self.rate.app_limited = (self.rate.delivered + self.sb.pipe()).max(1);
        }

        // RFC 6298 §5.2–5.3: stop the timer when all is acknowledged, restart it on progress.
        // (A persist timer stopped here starts again in `try_send` if the window still holds
        // data back, with its back-off.)
        if self.sb.outstanding() == 0 {
            self.rto_timer.cancel();
        } else if advanced {
            let at = self.rto_timer.set(ctx.now + self.rtt.rto());
            ctx.arm(at, TcpTimer::SenderRto);
        }
        self.try_send(ctx);
    }

    /// The delivery-rate estimator on an ACK (Linux `tcp_rate_skb_delivered`, the first part of
    /// `tcp_rate_gen`): the delivered count grows by what the ACK newly covered, the mark of
    /// an application-limited phase ends once the data sent in it is delivered, and the send
    /// phase restarts at the most recently sent segment the ACK delivered.
    fn on_delivered(&mut self, now: SimTime, acked: &Acked) {
        if acked.bytes == 0 {
            return;
        }
        let r = &mut self.rate;
        r.delivered += acked.bytes;
        r.delivered_time = now;
        if r.app_limited != 0 && r.delivered > r.app_limited {
            r.app_limited = 0;
        }
        if let Some((sent_at, _)) = acked.newest {
            r.first_tx = sent_at;
        }
    }

    /// What this ACK tells the controller. `rtt` is the ACK's RTT sample; `prior_in_flight`
    /// and `prior_lost` are the pipe and the lost total before the ACK. The rate sample comes
    /// from the most recently sent segment the ACK delivered (Linux `tcp_rate_gen`): the bytes
    /// delivered since it was sent, over the longer of its send phase and its ACK phase.
    fn ack_sample(
        &self,
        now: SimTime,
        acked: &Acked,
        (rtt, prior_in_flight, prior_lost): (Option<Duration>, u64, u64),
    ) -> AckSample {
        let lost = self.sb.lost_total();
        let rate = acked.newest.map(|(sent_at, stamp)| RateSample {
            delivered: self.rate.delivered - stamp.delivered,
            interval: (sent_at - stamp.first_tx).max(now - stamp.delivered_time),
            prior_delivered: stamp.delivered,
            is_app_limited: stamp.app_limited,
            rtt,
            newly_acked: acked.bytes,
            newly_lost: lost - prior_lost,
            prior_in_flight,
        });
        AckSample {
            now,
            acked_bytes: acked.bytes,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            rtt,
            una: self.sb.una(),
            nxt: self.sb.high_data(),
            cwnd_limited: self.cwnd_limited,
            rate,
            delivered: self.rate.delivered,
            lost,
            in_flight: self.sb.pipe(),
            state: match self.ca {
                CaState::Open => AckState::Open,
                CaState::Recovery { .. } => AckState::Recovery,
                CaState::Loss { .. } => AckState::Loss,
            },
        }
    }

    /// The rate estimator's stamp for a segment sent now (Linux `tcp_rate_skb_sent`): with
    /// nothing in flight a new send phase begins.
    fn tx_stamp(&mut self, now: SimTime) -> TxStamp {
        if self.sb.outstanding() == 0 {
            self.rate.first_tx = now;
            self.rate.delivered_time = now;
        }
        TxStamp {
            delivered: self.rate.delivered,
            delivered_time: self.rate.delivered_time,
            first_tx: self.rate.first_tx,
            app_limited: self.rate.app_limited != 0,
        }
    }

    /// Pacing: whether a segment may leave now; if not, the pacing timer is armed for when it
    /// may. No pacing without a rate from the controller, for the first [`UNPACED_SEGMENTS`]
    /// data segments, or at a rate of 0.
    fn may_depart(&mut self, ctx: &mut TcpCtx) -> bool {
        let paced = self.cc.pacing_rate().is_some_and(|r| r > 0);
        if !paced || self.stats.segments_sent < UNPACED_SEGMENTS || ctx.now >= self.next_departure {
            return true;
        }
        let at = self.pacing_timer.set(self.next_departure);
        ctx.arm(at, TcpTimer::SenderPacing);
        false
    }

    /// After a segment of `len` payload bytes left: the next may leave its wire time at the
    /// pacing rate later (Linux `tcp_update_skb_after_send`).
    fn paced(&mut self, now: SimTime, len: u32) {
        let Some(rate) = self.cc.pacing_rate().filter(|r| *r > 0) else { return };
        let bytes = u64::from(len + TCP_IP_HEADER_BYTES);
        let gap = Duration::transmission(bytes * 8, rate.saturating_mul(8));
        self.next_departure = self.next_departure.max(now) + gap;
    }

    /// RFC 6675 §5 step 4 (RFC 6582 §3.2 step 2 without SACK).
    fn enter_recovery(&mut self, now: SimTime) {
        self.ca = CaState::Recovery { point: self.sb.high_data() };
        self.stats.fast_recoveries += 1;
        self.delivered_at_loss = [self.rate.delivered, self.delivered_at_loss[0]];
        let prior_cwnd = self.cc.cwnd();
        // RFC 5681 §3.2 step 2: FlightSize without what limited transmit sent.
        let flight = self.sb.outstanding().saturating_sub(self.limited_transmit);
        self.limited_transmit = 0;
        self.cc.on_congestion_event(now, flight);
        if self.recovery == Recovery::Prr && !self.cc.wants_all_acks() {
            self.prr =
                Some(Prr { recover_fs: prior_cwnd.max(1), delivered: 0, out: 0, cwnd: self.cc.cwnd() });
        }
        let head_end = self.sb.head().map(|s| s.end()).unwrap_or(self.sb.una());
        self.sb.mark_lost_below(head_end);
        self.force_retransmit = true;
    }

    /// PRR (RFC 6937 §3.1 as Linux's `tcp_cwnd_reduction` runs it): after an ACK that
    /// delivered `delivered` bytes, the window becomes pipe + sndcnt, where sndcnt keeps what is
    /// sent in proportion to what is delivered (ssthresh / RecoverFS) while pipe is above
    /// ssthresh, and below it lets pipe grow back toward ssthresh: by what was delivered
    /// (conservative reduction bound), plus one segment on a `safe` ACK — one that advances
    /// SND.UNA and reveals no new loss (the slow-start reduction bound, which RFC 9937 applies
    /// only to such ACKs). The first call after entering recovery lets the fast retransmit out.
    fn prr_on_ack(&mut self, delivered: u64, safe: bool) {
        let Some(prr) = self.prr.as_mut() else { return };
        if delivered == 0 {
            return;
        }
        prr.delivered += delivered;
        let pipe = self.sb.pipe();
        let ssthresh = self.cc.ssthresh();
        let mss = self.mss as u64;
        let sndcnt = if pipe > ssthresh {
            // ⌈ssthresh · prr_delivered / RecoverFS⌉ in whole segments, as Linux counts packets.
            let allowed = (u128::from(ssthresh) * u128::from(prr.delivered))
                .div_ceil(u128::from(prr.recover_fs) * u128::from(mss))
                * u128::from(mss);
            (allowed as u64).saturating_sub(prr.out)
        } else {
            let bound = prr.delivered.saturating_sub(prr.out).max(delivered) + if safe { mss } else { 0 };
            bound.min(ssthresh - pipe)
        };
        let sndcnt = if prr.out == 0 { sndcnt.max(mss) } else { sndcnt };
        prr.cwnd = pipe + sndcnt;
    }

    /// RFC 6298 §5.4–5.6 and RFC 5681 §3.1: retransmit from the first unacknowledged segment
    /// in slow start from one segment, with the timer backed off.
    fn on_rto(&mut self, ctx: &mut TcpCtx) {
        if self.sb.outstanding() == 0 {
            if self.persist {
                self.probe_window(ctx);
            }
            return;
        }
        self.stats.rto_count += 1;
        let already_reduced = self.ca != CaState::Open;
        if !already_reduced {
            self.delivered_at_loss = [self.rate.delivered, self.delivered_at_loss[0]];
        }
        self.prr = None;
        self.limited_transmit = 0;
        self.cc.on_rto(ctx.now, self.sb.outstanding(), already_reduced);
        self.sb.on_timeout();
        self.ca = CaState::Loss { point: self.sb.high_data() };
        self.dupacks = 0;
        self.rtt.back_off();
        let at = self.rto_timer.set(ctx.now + self.rtt.rto());
        ctx.arm(at, TcpTimer::SenderRto);
        self.try_send(ctx);
    }

    // ----------------------------------------------------------------------------------------
    // Transmission

    /// Sends while the window allows: lost segments first, then new data (RFC 6675 NextSeg
    /// rules 1 and 2).
    fn try_send(&mut self, ctx: &mut TcpCtx) {
        if self.hs != Handshake::Established {
            return;
        }
        let mut sent = false;
        loop {
            let cwnd = self.cwnd();
            let pipe = self.sb.pipe();
            if let Some(seq) = self.sb.next_retransmission() {
                let len = self.sb.get(seq).map_or(0, |s| s.len) as u64;
                if pipe + len > cwnd && !self.force_retransmit {
                    self.cwnd_limited = true;
                    break;
                }
                if !self.may_depart(ctx) {
                    break;
                }
                self.force_retransmit = false;
                let stamp = self.tx_stamp(ctx.now);
                let seg = self.sb.retransmit(seq, ctx.now, stamp);
                self.stats.retransmitted_segments += 1;
                self.paced(ctx.now, seg.len);
                if let Some(prr) = self.prr.as_mut() {
                    prr.out += len;
                }
                self.emit_data(ctx, seg.start, seg.len, seg.first_sent_at);
                sent = true;
                continue;
            }
            let high = self.sb.high_data();
            let avail = self.app_end - high;
            if avail == 0 {
                // A subflow is fed by its connection up to its window: a full window means the
                // window, not the application, held it back.
                // Whether it is application-limited only the connection knows, after it has
                // handed out what it has (`Self::note_app_limited`).
                if self.subflow.is_some() {
                    self.cwnd_limited = pipe + u64::from(self.mss) > cwnd;
                    break;
                }
                self.cwnd_limited = false;
                // The application has nothing more while the window has room: rate samples of
                // what is in flight now understate the path (Linux `tcp_rate_check_app_limited`;
                // nothing waits for retransmission, or the branch above would have sent it).
                if pipe < cwnd {
                    self.rate.app_limited = (self.rate.delivered + pipe).max(1);
                }
                break;
            }
            // A subflow sends each chunk its connection mapped as one segment.
            let len = match &self.subflow {
                None => avail.min(self.mss as u64),
                Some(sub) => sub.map.at(high).map_or(avail, |m| u64::from(m.len)),
            };
            if self.subflow.is_none() && high + len > self.sb.una() + self.rwnd {
                self.cwnd_limited = false;
                if self.probes_window && self.sb.outstanding() == 0 && !self.rto_timer.is_armed() {
                    self.persist = true;
                    let at = self.rto_timer.set(ctx.now + self.rtt.rto());
                    ctx.arm(at, TcpTimer::SenderRto);
                }
                break;
            }
            if pipe + len > cwnd {
                self.cwnd_limited = true;
                break;
            }
            if !self.may_depart(ctx) {
                break;
            }
            if self.sb.outstanding() == 0 {
                self.cc.on_tx_start(ctx.now, self.rate.app_limited != 0);
            }
            let stamp = self.tx_stamp(ctx.now);
            self.sb.push(len as u32, ctx.now, stamp);
            self.paced(ctx.now, len as u32);
            if let Some(prr) = self.prr.as_mut() {
                prr.out += len;
            }
            if self.ca == CaState::Open && self.dupacks > 0 {
                self.limited_transmit += len;
            }
            self.emit_data(ctx, high, len as u32, ctx.now);
            sent = true;
        }
        if sent && self.persist {
            // The window opened: the persist timer's back-off goes, the timer becomes the
            // retransmission timer of what was just sent.
            self.persist = false;
            self.rtt.reset_backoff();
            self.rto_timer.cancel();
        }
        if sent && !self.rto_timer.is_armed() {
            let at = self.rto_timer.set(ctx.now + self.rtt.rto());
            ctx.arm(at, TcpTimer::SenderRto);
        }
    }

    /// The persist timer expired: a zero-window probe, and the timer again, backed off.
    fn probe_window(&mut self, ctx: &mut TcpCtx) {
        self.stats.window_probes += 1;
        let tcp =
            TcpHeader { seq: self.sb.una().saturating_sub(1), flags: TcpFlags::ACK, ..Default::default() };
        ctx.emit(self.ends, Side::Receiver, (tcp, &TcpOptions::NONE), NO_ECHO);
        self.rtt.back_off();
        let at = self.rto_timer.set(ctx.now + self.rtt.rto());
        ctx.arm(at, TcpTimer::SenderRto);
    }

    fn emit_data(&mut self, ctx: &mut TcpCtx, seq: u64, len: u32, first_sent_at: SimTime) {
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        // MSS ≤ 65 483 B (TcpConfig::validate): a segment's length fits the header's 16 bits.
        let tcp = TcpHeader { seq, len: len as u16, flags: TcpFlags::ACK, ..Default::default() };
        match &self.subflow {
            None => ctx.emit(self.ends, Side::Receiver, (tcp, &TcpOptions::NONE), first_sent_at),
            Some(sub) => {
                let mapping = sub.map.at(seq);
                debug_assert!(mapping.is_some_and(|m| u32::from(m.len) == len), "a segment is one mapping");
                let dss = Dss { subflow: sub.index, mapping, data_ack: None };
                let options = TcpOptions { dss: Some(dss), ..TcpOptions::NONE };
                ctx.emit(self.ends, Side::Receiver, (tcp, &options), first_sent_at);
            }
        }
    }

    fn send_control(&mut self, ctx: &mut TcpCtx, flags: TcpFlags) {
        let tcp = TcpHeader { flags, ..Default::default() };
        ctx.emit(self.ends, Side::Receiver, (tcp, &TcpOptions::NONE), NO_ECHO);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId, PacketId};
    use crate::net::{PacketArena, SackBlocks, SeqRange};
    use crate::transport::cc::CcKind;
    use crate::units::Bytes;

    const MSS: u64 = 1000;
    const ENDS: Endpoint = Endpoint { flow: FlowId(0), local: NodeId(0), remote: NodeId(1) };

    struct Harness {
        tx: TcpSender,
        packets: PacketArena,
        out: Vec<PacketId>,
        timers: Vec<(SimTime, TcpTimer)>,
        now: SimTime,
    }

    impl Harness {
        /// An established NewReno sender with 10 segments of initial window and `app` bytes
        /// written.
        fn established(sack: bool, app: u64) -> Harness {
            let cfg = TcpConfig {
                cc: CcKind::NewReno,
                hystart: false,
                mss: Bytes(MSS),
                sack,
                ..TcpConfig::default()
            };
            Harness::established_with(&cfg, app)
        }

        fn established_with(cfg: &TcpConfig, app: u64) -> Harness {
            let mut h = Harness {
                tx: TcpSender::new(ENDS, Opener::Sender, cfg, Rng::for_component(1, "test")),
                packets: PacketArena::with_capacity(64),
                out: Vec::new(),
                timers: Vec::new(),
                now: SimTime::ZERO,
            };
            h.call(|tx, ctx| tx.open(ctx));
            assert_eq!(h.sent(), vec![(0, 0)], "a SYN");
            h.now = SimTime::ZERO + Duration::from_millis(100);
            h.reply(TcpHeader { flags: TcpFlags::SYN_ACK, ..Default::default() });
            h.call(|tx, ctx| tx.write(ctx, app));
            h
        }

        fn call(&mut self, f: impl FnOnce(&mut TcpSender, &mut TcpCtx)) {
            let mut ctx = TcpCtx {
                now: self.now,
                packets: &mut self.packets,
                out: &mut self.out,
                timers: &mut self.timers,
            };
            f(&mut self.tx, &mut ctx);
        }

        fn reply(&mut self, tcp: TcpHeader) {
            self.reply_with(tcp, &TcpOptions::NONE);
        }

        fn reply_with(&mut self, tcp: TcpHeader, options: &TcpOptions) {
            self.reply_echoing(tcp, options, NO_ECHO);
        }

        fn reply_echoing(&mut self, tcp: TcpHeader, options: &TcpOptions, echo: SimTime) {
            let pkt = Packet::new(FlowId(0), (NodeId(1), NodeId(0)), Side::Sender, tcp, (self.now, echo));
            self.call(|tx, ctx| tx.on_packet(ctx, &pkt, options));
        }

        /// An ACK for `ack` segments with SACK blocks given in segments.
        fn ack(&mut self, ack: u64, sack: &[(u64, u64)]) {
            let mut blocks = SackBlocks::default();
            for &(a, b) in sack {
                blocks.push(SeqRange::new(a * MSS, b * MSS));
            }
            let tcp =
                TcpHeader { ack: ack * MSS, window: 1 << 30, flags: TcpFlags::ACK, ..Default::default() };
            self.reply_with(tcp, &TcpOptions { sack: blocks, dss: None });
        }

        /// (first segment, length in segments) of every packet emitted since the last call.
        fn sent(&mut self) -> Vec<(u64, u64)> {
            let sent = self
                .out
                .drain(..)
                .map(|id| self.packets.get(id).tcp)
                .map(|t| (t.seq / MSS, t.len as u64 / MSS))
                .collect();
            sent
        }

        fn segments_sent(&mut self) -> Vec<u64> {
            self.sent().into_iter().map(|(s, _)| s).collect()
        }
    }

    #[test]
    fn test_syn_sent_synack_establishes_and_sends_the_initial_window() {
        let mut h = Harness::established(true, 100 * MSS);
        assert!(h.tx.is_established());
        assert_eq!(h.tx.srtt(), Some(Duration::from_millis(100)), "handshake RTT sample");
        assert_eq!(h.segments_sent(), (0..10).collect::<Vec<_>>());
        assert_eq!(h.tx.pipe(), 10 * MSS);
    }

    #[test]
    fn test_syn_sent_timeout_repeats_the_syn_with_back_off() {
        let cfg = TcpConfig::default();
        let mut h = Harness {
            tx: TcpSender::new(ENDS, Opener::Sender, &cfg, Rng::for_component(1, "test")),
            packets: PacketArena::with_capacity(8),
            out: Vec::new(),
            timers: Vec::new(),
            now: SimTime::ZERO,
        };
        h.call(|tx, ctx| tx.open(ctx));
        let (at, _) = h.timers.pop().unwrap();
        assert_eq!(at, SimTime::ZERO + Duration::from_secs(1));
        h.now = at;
        h.out.clear();
        h.call(|tx, ctx| tx.on_timer(ctx, TcpTimer::SenderRto));
        assert_eq!(h.packets.get(h.out[0]).tcp.flags, TcpFlags::SYN);
        assert_eq!(h.timers.pop().unwrap().0, at + Duration::from_secs(2));
    }

    #[test]
    fn test_open_new_ack_slides_the_window() {
        let mut h = Harness::established(true, 100 * MSS);
        h.sent();
        h.ack(2, &[]);
        // Slow start: +2 MSS of window for 2 MSS acknowledged, plus the 2 that left.
        assert_eq!(h.segments_sent(), vec![10, 11, 12, 13]);
    }

    #[test]
    fn test_open_receive_window_limits_new_data() {
        let mut h = Harness::established(true, 100 * MSS);
        h.sent();
        h.reply(TcpHeader {
            ack: 2 * MSS,
            window: 9 * MSS as u32,
            flags: TcpFlags::ACK,
            ..Default::default()
        });
        // Window 9 from 2: up to segment 10 only.
        assert_eq!(h.segments_sent(), vec![10]);
    }

    #[test]
    fn test_open_three_dupacks_without_sack_fast_retransmit() {
        let mut h = Harness::established(false, 100 * MSS);
        h.sent();
        h.ack(1, &[]); // segment 0 arrives; 1 is lost
        assert_eq!(h.segments_sent(), vec![10, 11], "slow start: one acknowledged, two sent");
        h.ack(1, &[]);
        h.ack(1, &[]);
        assert_eq!(h.tx.ca_state(), CaState::Open);
        assert_eq!(h.segments_sent(), vec![12, 13], "limited transmit (RFC 3042)");
        h.ack(1, &[]);
        assert_eq!(h.tx.ca_state(), CaState::Recovery { point: 14 * MSS });
        assert_eq!(h.segments_sent(), vec![1], "the lost segment, and nothing else yet");
        assert_eq!(h.tx.stats.retransmitted_segments, 1);
        // ssthresh = FlightSize / 2, FlightSize without the two segments limited transmit sent
        // (RFC 5681 §3.2 step 2): 11 / 2 segments.
        assert_eq!(h.tx.ssthresh(), 11 * MSS / 2);
    }

    #[test]
    fn test_recovery_partial_ack_without_sack_retransmits_the_next_hole() {
        let mut h = Harness::established(false, 100 * MSS);
        h.sent();
        // Segments 1 and 3 are lost. The receiver acknowledges 0, then repeats ACK 1 for each of
        // 2 and 4..=13 (10..=13 were sent by slow start and limited transmit).
        h.ack(1, &[]);
        for _ in [2, 4, 5] {
            h.ack(1, &[]);
        }
        assert!(matches!(h.tx.ca_state(), CaState::Recovery { .. }));
        for _ in 6..=13 {
            h.ack(1, &[]);
        }
        h.sent();
        // The retransmission of 1 arrives: a partial ACK up to the hole at 3, which is sent at once.
        h.ack(3, &[]);
        assert!(matches!(h.tx.ca_state(), CaState::Recovery { .. }));
        assert_eq!(h.segments_sent().first(), Some(&3));
        assert_eq!(h.tx.stats.retransmitted_segments, 2);
    }

    #[test]
    fn test_open_sack_marks_hole_lost_after_three_segments_above() {
        let mut h = Harness::established(true, 100 * MSS);
        h.sent();
        h.ack(0, &[(1, 2)]);
        h.ack(0, &[(1, 3)]);
        assert_eq!(h.tx.ca_state(), CaState::Open);
        assert_eq!(h.segments_sent(), vec![10, 11], "each SACKed segment lets one new one out");
        h.ack(0, &[(1, 4)]);
        assert_eq!(h.tx.ca_state(), CaState::Recovery { point: 12 * MSS });
        assert_eq!(h.segments_sent().first(), Some(&0));
        // Recovery ends with the ACK that covers the recovery point.
        h.ack(12, &[]);
        assert_eq!(h.tx.ca_state(), CaState::Open);
        assert_eq!(h.tx.stats.fast_recoveries, 1);
    }

    #[test]
    fn test_established_rto_retransmits_the_head_from_one_segment() {
        let mut h = Harness::established(true, 100 * MSS);
        h.sent();
        let (at, _) = *h.timers.last().unwrap();
        h.now = at;
        h.call(|tx, ctx| tx.on_timer(ctx, TcpTimer::SenderRto));
        assert_eq!(h.tx.stats.rto_count, 1);
        assert_eq!(h.tx.cwnd(), MSS);
        assert_eq!(h.segments_sent(), vec![0]);
        assert!(matches!(h.tx.ca_state(), CaState::Loss { .. }));
        // The next timeout is twice as far.
        let (next, _) = *h.timers.last().unwrap();
        assert_eq!(next - at, Duration::from_millis(600));
    }

    #[test]
    fn test_loss_probe_resends_the_head_at_once_and_undo_gives_back_the_window() {
        let mut h = Harness::established(true, 100 * MSS);
        h.sent();
        let before = (h.tx.cwnd(), h.tx.ssthresh());
        // A blocked path: two timeouts, nothing answered; one segment of window, the timer
        // backed off twice.
        for _ in 0..2 {
            h.now = h.timers.last().unwrap().0;
            h.call(|tx, ctx| tx.on_timer(ctx, TcpTimer::SenderRto));
        }
        assert_eq!(h.segments_sent(), vec![0, 0]);
        assert_eq!(h.tx.cwnd(), MSS);
        let timer = h.timers.last().copied();
        // The probe resends the head now, beyond the window, and leaves the timer alone.
        h.now += Duration::from_millis(50);
        h.call(|tx, ctx| tx.probe(ctx));
        assert_eq!(h.sent(), vec![(0, 1)]);
        assert_eq!(h.timers.last().copied(), timer, "no timer armed");
        assert_eq!((h.tx.stats.probes, h.tx.stats.retransmitted_segments), (1, 3));
        // Its ACK: loss recovery would go on in slow start from one segment (two now)...
        h.ack(1, &[]);
        assert_eq!(h.segments_sent(), vec![1, 2]);
        // ...the undo gives back the window before the timeouts, in fast recovery: the lost
        // segments 3-9 go at once, then new data up to the window of 10 (pipe 2 + 7 + 1).
        h.call(|tx, ctx| tx.undo_timeout(ctx, before.0, before.1));
        assert_eq!((h.tx.cwnd(), h.tx.ssthresh()), before);
        assert!(matches!(h.tx.ca_state(), CaState::Recovery { .. }));
        assert_eq!(h.segments_sent(), (3..=10).collect::<Vec<_>>());
        // An undo never shrinks a window.
        h.call(|tx, ctx| tx.undo_timeout(ctx, MSS, 2 * MSS));
        assert_eq!((h.tx.cwnd(), h.tx.ssthresh()), before);
    }

    #[test]
    fn test_established_all_acked_stops_the_timer_and_frees_the_buffer() {
        let mut h = Harness::established(true, 5 * MSS);
        h.sent();
        let before = h.tx.buffer_space();
        h.ack(5, &[]);
        assert_eq!(h.tx.buffer_space(), before + 5 * MSS);
        assert_eq!(h.tx.pipe(), 0);
        let timers = h.timers.len();
        h.now += Duration::from_secs(5);
        h.call(|tx, ctx| tx.on_timer(ctx, TcpTimer::SenderRto));
        assert!(h.out.is_empty(), "a stopped timer retransmits nothing");
        assert_eq!(h.timers.len(), timers);
    }

    /// The timers armed since the last call, emptied.
    fn armed(h: &mut Harness) -> Vec<SimTime> {
        h.timers.drain(..).map(|(at, _)| at).collect()
    }

    #[test]
    fn test_established_zero_window_with_nothing_in_flight_probes_with_back_off() {
        let mut h = Harness::established(true, 20 * MSS);
        h.tx.enable_window_probes();
        h.sent();
        let close = |h: &mut Harness, window: u64| {
            let tcp = TcpHeader {
                ack: 10 * MSS,
                window: window as u32,
                flags: TcpFlags::ACK,
                ..Default::default()
            };
            h.reply(tcp);
        };
        // Everything in flight is acknowledged with half a segment of window: nothing may go,
        // and the timer runs as the persist timer, one RTO away.
        h.timers.clear();
        close(&mut h, MSS / 2);
        assert!(h.sent().is_empty());
        let first = armed(&mut h);
        assert_eq!(first.len(), 1, "the persist timer");
        let rto = first[0] - h.now;
        h.now = first[0];
        h.call(|tx, ctx| tx.on_timer(ctx, TcpTimer::SenderRto));
        let probe = h.packets.get(h.out[0]).tcp;
        assert_eq!(
            (probe.seq, probe.len, probe.flags),
            (10 * MSS - 1, 0, TcpFlags::ACK),
            "a probe below snd_una"
        );
        h.out.clear();
        assert_eq!(h.tx.stats.window_probes, 1);
        assert_eq!(h.tx.stats.rto_count, 0, "a probe is no timeout");
        let second = armed(&mut h);
        assert_eq!(second, vec![h.now + rto.saturating_mul(2)], "backed off");
        // The probe's answer still shows a closed window: the timer keeps its deadline and
        // probes again, backed off once more.
        close(&mut h, 0);
        assert!(h.sent().is_empty());
        h.now = second[0];
        h.call(|tx, ctx| tx.on_timer(ctx, TcpTimer::SenderRto));
        assert_eq!(h.sent(), vec![(9, 0)], "the second probe");
        assert_eq!(armed(&mut h), vec![h.now + rto.saturating_mul(4)]);
        // The window reopens: data goes, and the timer is a retransmission timer without back-off.
        close(&mut h, 3 * MSS);
        assert_eq!(h.segments_sent(), vec![10, 11, 12]);
        let timer = armed(&mut h);
        assert_eq!(timer, vec![h.now + rto]);
        h.now = timer[0];
        h.call(|tx, ctx| tx.on_timer(ctx, TcpTimer::SenderRto));
        assert_eq!(h.segments_sent(), vec![10], "a timeout retransmits, no probe");
        assert_eq!((h.tx.stats.window_probes, h.tx.stats.rto_count), (2, 1));
    }

    #[test]
    fn test_pinned_window_limits_flight_and_unpinning_restores_the_controller() {
        let mut h = Harness::established(true, 100 * MSS);
        h.sent();
        h.ack(2, &[]);
        h.sent();
        let controller = h.tx.cwnd();
        assert_eq!(controller, 12 * MSS);
        h.call(|tx, ctx| tx.pin_cwnd(ctx, Some(3 * MSS)));
        assert_eq!(h.tx.cwnd(), 3 * MSS);
        assert!(h.segments_sent().is_empty(), "12 in flight is already above 3");
        h.ack(12, &[]);
        assert_eq!(h.segments_sent(), vec![14], "two left in flight, one more fits");
        h.call(|tx, ctx| tx.pin_cwnd(ctx, Some(0)));
        h.ack(15, &[]);
        assert!(h.segments_sent().is_empty(), "a zero pin stops new data");
        h.call(|tx, ctx| tx.pin_cwnd(ctx, None));
        assert!(h.tx.cwnd() > controller, "the controller kept growing beneath the pin");
        assert_eq!(h.segments_sent().len() as u64, h.tx.cwnd() / MSS);
    }

    /// A NewReno sender with SACK and 20 segments in flight (segments 10..30) after slow start
    /// from 10; segment 10 is then lost and the receiver SACKs 11, 12, 13: limited transmit
    /// sends 30 and 31 on the first two, and the third starts recovery with ssthresh = 10
    /// segments (FlightSize 20, limited transmit excluded) — RFC 6937 §5's example.
    fn in_recovery(recovery: Recovery) -> Harness {
        let cfg = TcpConfig {
            cc: CcKind::NewReno,
            hystart: false,
            recovery,
            mss: Bytes(MSS),
            ..TcpConfig::default()
        };
        let mut h = Harness::established_with(&cfg, 1000 * MSS);
        h.sent();
        for k in 1..=10 {
            h.ack(k, &[]);
        }
        assert_eq!(h.segments_sent(), (10..30).collect::<Vec<_>>());
        assert_eq!(h.tx.cwnd(), 20 * MSS);
        h.ack(10, &[(11, 12)]);
        h.ack(10, &[(11, 13)]);
        assert_eq!(h.segments_sent(), vec![30, 31], "limited transmit");
        h.ack(10, &[(11, 14)]);
        assert!(matches!(h.tx.ca_state(), CaState::Recovery { .. }));
        assert_eq!(h.tx.ssthresh(), 10 * MSS);
        assert_eq!(h.segments_sent(), vec![10], "the fast retransmit");
        h
    }

    /// Segments sent on each of the next `n` ACKs, each SACKing one more segment from 14 on.
    fn sent_per_ack(h: &mut Harness, n: u64) -> Vec<u64> {
        (0..n)
            .map(|i| {
                h.ack(10, &[(11, 15 + i)]);
                h.segments_sent().len() as u64
            })
            .collect()
    }

    #[test]
    fn test_prr_sends_one_segment_for_every_two_delivered_as_rfc_6937_example() {
        let mut h = in_recovery(Recovery::Prr);
        // ssthresh / RecoverFS = 10 / 20: sndcnt = ⌈prr_delivered · 1/2⌉ − prr_out, which is 1 on
        // every second ACK (RFC 6937 §5, the PRR rows of the example).
        assert_eq!(sent_per_ack(&mut h, 12), vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
        // pipe falls by half a segment per ACK: 19 at entry, 13 after 12 ACKs.
        assert_eq!(h.tx.pipe(), 13 * MSS);
    }

    #[test]
    fn test_classic_recovery_sends_nothing_until_pipe_falls_below_ssthresh() {
        let mut h = in_recovery(Recovery::Classic);
        // cwnd = ssthresh = 10 at once with 19 in pipe: silent for 9 ACKs, then one per ACK
        // (RFC 6937 §5, the RFC 6675 rows of the example).
        assert_eq!(sent_per_ack(&mut h, 12), vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
    }

    #[test]
    fn test_prr_ends_recovery_at_ssthresh() {
        let mut h = in_recovery(Recovery::Prr);
        sent_per_ack(&mut h, 18);
        assert_eq!(h.tx.pipe(), 10 * MSS, "pipe has come down to ssthresh");
        // The retransmission arrives: everything up to what was sent is acknowledged.
        let high = h.tx.sb.high_data() / MSS;
        h.ack(high, &[]);
        assert_eq!(h.tx.ca_state(), CaState::Open);
        assert_eq!(h.tx.cwnd(), 10 * MSS, "cwnd = ssthresh on leaving recovery");
    }

    #[test]
    fn test_timestamps_give_an_rtt_sample_for_a_retransmitted_segment() {
        for timestamps in [true, false] {
            let cfg = TcpConfig {
                cc: CcKind::NewReno,
                hystart: false,
                timestamps,
                mss: Bytes(MSS),
                ..TcpConfig::default()
            };
            let mut h = Harness::established_with(&cfg, 5 * MSS);
            h.sent();
            let srtt = h.tx.srtt();
            let (at, _) = *h.timers.last().unwrap();
            h.now = at;
            h.call(|tx, ctx| tx.on_timer(ctx, TcpTimer::SenderRto));
            assert_eq!(h.segments_sent(), vec![0], "the timeout resends the head");
            // Its ACK, 250 ms later, echoes the retransmission's send time.
            h.now = at + Duration::from_millis(250);
            let tcp = TcpHeader { ack: MSS, window: 1 << 30, flags: TcpFlags::ACK, ..Default::default() };
            h.reply_echoing(tcp, &TcpOptions::NONE, at);
            if timestamps {
                // SRTT = 7/8 · 100 + 1/8 · 250 ms.
                assert_eq!(h.tx.srtt(), Some(Duration::from_micros(118_750)));
                assert_eq!(h.tx.stats.rtt.count(), 1);
            } else {
                assert_eq!(h.tx.srtt(), srtt, "Karn's rule: no sample");
                assert_eq!(h.tx.stats.rtt.count(), 0);
            }
        }
    }
}
