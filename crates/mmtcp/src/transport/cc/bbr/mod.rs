//! BBR v1 congestion control, as Linux's net/ipv4/tcp_bbr.c implements it.
//!
//! Sources: Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR: Congestion-Based Congestion
//! Control", ACM Queue 14(5), 2016; draft-cardwell-iccrg-bbr-congestion-control-00 (2017); and,
//! where those leave details open, Linux's `tcp_bbr.c`, which this module follows: the version of
//! mainline development in March 2026 (net-next after v7.0, with the `cwnd_event_tx_start` hook).
//! Its model is that of every release since v5.10 (ACK aggregation since v5.1, the strict `<`
//! in the min_rtt refresh since v5.10); later commits changed only the TSO goal's caps (a GSO
//! limit of 8 × 65535 bytes and no 127-segment cap, followed here) and the hook interfaces.
//!
//! # The model
//!
//! BBR estimates the path's bottleneck bandwidth (BtlBw) and round-trip propagation time
//! (RTprop) from ACKs, and sends at a rate and with a window derived from them:
//!
//! ```text
//! BtlBw    = windowed max over 10 packet-timed rounds of delivery-rate samples
//!            (application-limited samples only when they exceed the current max)
//! RTprop   = min_rtt: the lowest RTT sample, replaced by any sample once 10 s old
//! BDP      = ⌈BtlBw × min_rtt / MSS⌉ segments (10 segments while min_rtt is unknown)
//! pacing   = pacing_gain × BtlBw × (1 − 1 %)
//! target   = cwnd_gain × BDP + extra_acked (once the pipe is full) + quantization budget
//! budget   = 3 × TSO goal, rounded up to an even number of segments, + 2 in PROBE_BW's 5/4 phase
//! TSO goal = max(⌊min(pacing / 2^10, GSO cap) / MSS⌋, 1 below 1.2 Mbit/s of pacing else 2)
//! cwnd     = per ACK: pipe full → min(cwnd + acked, target); else grow by acked while
//!            below target (or fewer than 10 segments delivered); never below 4 segments
//! ```
//!
//! A round trip ends when an ACK's sample was sent after the previous round's end
//! (`prior_delivered ≥ next_round_delivered`), so rounds are counted in data, not time.
//!
//! ```text
//!            │ pacing 2.885, cwnd 2.885
//!            ▼
//!   ┌──► STARTUP ── BtlBw grew < 25 % in 3 rounds (pipe full) ──┐
//!   │        │                                                  ▼
//!   │        │                                  DRAIN  pacing 1/2.885, cwnd 2.885
//!   │        │                                    │ in_flight ≤ 1·BDP + budget
//!   │        │                                    ▼
//!   │        │     ┌────────────────────────► PROBE_BW  cwnd 2, pacing cycling
//!   │        │     │ pipe full                    │      [5/4, 3/4, 1, 1, 1, 1, 1, 1]
//!   │        ▼     │                              │      from a random phase ≠ 3/4
//!   │     PROBE_RTT ◄─ min_rtt 10 s old ──────────┘      (from any state, not after idle)
//!   └──── cwnd 4 segments for max(200 ms, 1 round); pipe not full
//! ```
//!
//! In PROBE_BW each phase lasts one min_rtt, except that the 5/4 phase also waits until
//! in_flight reaches 5/4·BDP + budget (or the ACK reports a loss), and the 3/4 phase ends early
//! once in_flight falls to BDP + budget. Losses do not change the model; they cut cwnd by the
//! bytes lost, and the first round of fast recovery follows packet conservation
//! (cwnd = in_flight + acked), after which cwnd grows again by the bytes acked; leaving recovery
//! restores the cwnd saved on entry. A retransmission timeout saves cwnd and sets it to one
//! segment. Long-term sampling (`long_term`) detects token-bucket policers and then paces at the
//! policed rate; ACK-aggregation tracking (`aggregation`) adds the ACKed bytes seen beyond the
//! bandwidth estimate to the cwnd target.
//!
//! # What the sender must do (`wants_all_acks` is true)
//!
//! - Call `on_ack` for every ACK that acknowledges or SACKs anything, in every state, with the
//!   connection's `delivered`/`lost` totals, `in_flight` after the ACK, its [`AckState`] after
//!   the ACK's loss processing, and the rate sample of tcp_rate.c: `prior_delivered`,
//!   `delivered`, `interval`, `is_app_limited` and `rtt` from the most recently sent segment
//!   the ACK delivered; `newly_acked`, `newly_lost` and `prior_in_flight` of the ACK. A sample
//!   whose interval is zero or shorter than `AckSample::min_rtt` is no bandwidth observation
//!   (Linux's `tcp_rate_gen` rule, applied here); its other fields still count.
//! - Apply no recovery window reduction of its own. On the ACK that starts fast recovery, call
//!   `on_congestion_event` and then `on_ack` (state `Recovery`) for that same ACK; on a timeout
//!   call `on_rto`, and report the ACKs that follow with state `Loss` until the repair ends.
//! - Keep Linux's app-limited mark (`tcp_rate_check_app_limited`) and set it also when
//!   [`requests_app_limited`](CongestionControl::requests_app_limited) says so after an ACK;
//!   call [`on_tx_start`](CongestionControl::on_tx_start) when sending with nothing in flight.
//! - Pace as Linux's `tcp_update_skb_after_send` does: each segment leaves no earlier than the
//!   previous departure time plus `size / pacing_rate()`; the connection's first 10 data
//!   segments are not paced, and a rate of 0 means no pacing.
//!
//! # Deviations from tcp_bbr.c
//!
//! - Units: windows, BDP, in-flight, ACKed and lost amounts are bytes; Linux counts packets. The
//!   BDP and the cwnd target are computed in whole MSS-sized segments as Linux does, then
//!   converted to bytes; growth adds ACKed bytes. Bandwidth is bytes per second, truncated to
//!   whole bytes (Linux: packets/µs scaled by 2^24, about 90 B/s of resolution at a 1500-byte
//!   MSS); times are the simulator's picoseconds, so the 10 s and 200 ms deadlines are exact
//!   rather than jiffy-granular.
//! - No TSO/GSO and no qdisc: the TSO goal only sizes the quantization budget, from the pacing
//!   rate as `bbr_tso_segs_goal` does with the default `sk_pacing_shift` of 10 (about 1 ms of
//!   data) and a GSO cap of 8 × 65535 − 1 − 320 bytes (`MAX_TCP_HEADER` = 320 on a typical
//!   x86-64 build; the cap only binds above 4 Gbit/s). Our segments are single MSS-sized
//!   packets, so the budget is 3 × goal × MSS bytes.
//! - Earliest departure time: `bbr_packets_in_net_at_edt` subtracts what the bottleneck drains
//!   until the next scheduled departure; the controller does not see the sender's schedule and
//!   takes that departure to be now, so in-network = in_flight (+ one TSO goal while probing
//!   with a gain above 1). With per-segment pacing the error is what the bottleneck delivers
//!   in one pacing interval: under one segment at a pacing gain ≥ 1, about three in DRAIN.
//! - `is_ack_delayed` is taken as false (the sender does not flag ACKs that may have been
//!   delayed), so an expired min_rtt accepts any RTT sample.
//! - The min_rtt window starts at the first RTT sample: the controller is built before the
//!   connection has one (Linux's `bbr_init` runs once the handshake has given an RTT).
//! - No undo (`bbr_undo_cwnd`): the sender has no spurious-loss detection. No `snd_cwnd_clamp`
//!   and no `sk_max_pacing_rate`.
//! - The loss-state transitions are read from [`AckState`] on each ACK, as
//!   `bbr_set_cwnd_to_recover_or_restore` reads `icsk_ca_state`; `on_recovery_exit` does
//!   nothing because the ACK that leaves recovery, reported with state `Open`, restores cwnd.
//! - On a timeout the long-term sampler's pseudo-sample (`bbr_set_state`) sees the lost total
//!   of the latest ACK: the timeout's own loss marking reaches the controller with the next ACK.
//! - `on_tx_start` does not move the time of the latest delivery (Linux resets
//!   `tp->delivered_mstamp` to the send time when nothing at all is outstanding), so a PROBE_BW
//!   phase begun by an idle restart is timed from the last ACK.

mod aggregation;
mod long_term;
pub mod minmax;

#[cfg(test)]
mod tests;

use self::aggregation::AckAggregation;
use self::long_term::{LongTermBw, LtInput, LtVerdict};
use self::minmax::{Extremum, WindowedFilter};
use super::{AckSample, AckState, CongestionControl, RateSample};
use crate::sim::rng::Rng;
use crate::sim::{Duration, SimTime, PS_PER_SEC};

/// Gains are fixed-point fractions of this unit (tcp_bbr.c `BBR_UNIT`, 1 << `BBR_SCALE` = 8), so
/// that they take exactly Linux's values.
const UNIT: u32 = 256;
/// STARTUP's pacing and cwnd gain, 2/ln 2 ≈ 2.885: the smallest gain that doubles the sending
/// rate every round trip, as slow start does (paper §"Startup"; tcp_bbr.c `bbr_high_gain`,
/// 256 · 2885/1000 + 1 = 739, i.e. 2.887).
const HIGH_GAIN: u32 = UNIT * 2885 / 1000 + 1;
/// DRAIN's pacing gain, 1/2.885, meant to drain STARTUP's queue in about one round
/// (tcp_bbr.c `bbr_drain_gain`, 88/256).
const DRAIN_GAIN: u32 = UNIT * 1000 / 2885;
/// PROBE_BW's cwnd gain: two BDPs, tolerating delayed and stretched ACKs (tcp_bbr.c
/// `bbr_cwnd_gain`).
const CWND_GAIN: u32 = UNIT * 2;
/// PROBE_BW's pacing-gain cycle: probe at 5/4, drain what that queued at 3/4, cruise at 1 for six
/// phases (paper §"ProbeBW"; tcp_bbr.c `bbr_pacing_gain`).
const PACING_GAIN_CYCLE: [u32; 8] = [UNIT * 5 / 4, UNIT * 3 / 4, UNIT, UNIT, UNIT, UNIT, UNIT, UNIT];
/// The starting phase of the cycle is drawn uniformly among this many: all but the 3/4 one
/// (tcp_bbr.c `bbr_cycle_rand`).
const CYCLE_RAND: u64 = 7;
/// The BtlBw max filter covers this many round trips: a whole gain cycle plus two (tcp_bbr.c
/// `bbr_bw_rtts`).
const BW_WINDOW_ROUNDS: u64 = PACING_GAIN_CYCLE.len() as u64 + 2;
/// A min_rtt older than this has expired (tcp_bbr.c `bbr_min_rtt_win_sec`).
const MIN_RTT_WINDOW: Duration = Duration::from_secs(10);
/// PROBE_RTT holds cwnd at the minimum for at least this long (tcp_bbr.c
/// `bbr_probe_rtt_mode_ms`): about 2 % of the 10 s window.
const PROBE_RTT_DURATION: Duration = Duration::from_millis(200);
/// Below this pacing rate the TSO goal is one segment instead of two (tcp_bbr.c
/// `bbr_min_tso_rate`, 1.2 Mbit/s, here in bytes per second).
const MIN_TSO_RATE_BYTES_PER_SEC: u64 = 1_200_000 / 8;
/// Pace this many percent below the bandwidth estimate, to keep the bottleneck queue low
/// (tcp_bbr.c `bbr_pacing_margin_percent`).
const PACING_MARGIN_PERCENT: u64 = 1;
/// The smallest cwnd, and PROBE_RTT's cwnd, in segments: two delayed-ACK pairs in flight
/// (tcp_bbr.c `bbr_cwnd_min_target`).
const CWND_MIN_TARGET_SEGMENTS: u64 = 4;
/// STARTUP continues while BtlBw grows by at least this factor per round, 5/4 (tcp_bbr.c
/// `bbr_full_bw_thresh`)…
const FULL_BW_THRESH: u64 = UNIT as u64 * 5 / 4;
/// …and ends after this many rounds without such growth (tcp_bbr.c `bbr_full_bw_cnt`).
const FULL_BW_ROUNDS: u32 = 3;
/// Gain applied to the ACK-aggregation estimate in the cwnd target (tcp_bbr.c
/// `bbr_extra_acked_gain`: 1).
const EXTRA_ACKED_GAIN: u32 = UNIT;
/// The ACK-aggregation allowance is capped at this much data at the estimated bandwidth
/// (tcp_bbr.c `bbr_extra_acked_max_us`).
const EXTRA_ACKED_MAX_DURATION: Duration = Duration::from_millis(100);
/// Linux's default initial window, `TCP_INIT_CWND`, in segments: the BDP used while no RTT is
/// known, and the delivered amount below which STARTUP grows cwnd unconditionally.
const TCP_INIT_CWND_SEGMENTS: u64 = 10;
/// RTT assumed for the initial pacing rate before any RTT sample (tcp_bbr.c
/// `bbr_init_pacing_rate_from_rtt`: `USEC_PER_MSEC`).
const NOMINAL_RTT: Duration = Duration::from_millis(1);
/// Smallest RTT used for the initial pacing rate (Linux's 1 µs floor on `srtt_us >> 3`).
const MIN_PACING_RTT: Duration = Duration::from_micros(1);
/// The TSO budget is this power of two's fraction of a second of data at the pacing rate (the
/// default `sk_pacing_shift`, ~1 ms).
const PACING_SHIFT: u32 = 10;
/// The largest TSO/GSO burst, bytes: `GSO_MAX_SIZE` (8 × 65535) − 1 − `MAX_TCP_HEADER` (320).
const GSO_MAX_BURST_BYTES: u64 = 8 * 65_535 - 1 - 320;

/// BBR's state machine (tcp_bbr.c `enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Ramp up the sending rate until the bandwidth estimate stops growing.
    Startup,
    /// Drain the queue STARTUP built.
    Drain,
    /// Steady state: cycle the pacing gain around the bandwidth estimate.
    ProbeBw,
    /// Cut in-flight data to a minimum to measure the propagation delay again.
    ProbeRtt,
}

/// What the model update needs from one ACK, read once from the [`AckSample`].
#[derive(Clone, Copy, Debug)]
struct AckView {
    now: SimTime,
    /// Bytes newly ACKed or SACKed.
    acked: u64,
    /// Bytes newly marked lost.
    losses: u64,
    prior_in_flight: u64,
    /// The rate sample, if it is a valid bandwidth observation.
    sample: Option<RateSample>,
    /// Delivered bytes of the rate sample, valid or not (0 without one).
    sample_delivered: u64,
    is_app_limited: bool,
    rtt: Option<Duration>,
    srtt: Option<Duration>,
    state: AckState,
}

/// BBR v1. See the module header for the model, the sender's duties and the deviations.
#[derive(Clone, Debug)]
pub struct Bbr {
    /// Sender maximum segment size (SMSS), bytes.
    mss_bytes: u64,
    /// The flow's random stream, for the starting phase of the gain cycle.
    rng: Rng,
    /// Congestion window, bytes.
    cwnd_bytes: u64,
    /// Informational only: `u64::MAX` until DRAIN sets it to the in-flight target (Linux).
    ssthresh_bytes: u64,
    /// Bytes per second.
    pacing_rate: u64,
    mode: Mode,
    /// Current gains, in `UNIT`ths.
    pacing_gain: u32,
    cwnd_gain: u32,

    /// Packet-timed round trips so far (tcp_bbr.c `rtt_cnt`).
    round_count: u64,
    /// The delivered total that ends the current round.
    next_round_delivered: u64,
    /// This ACK started a round.
    round_start: bool,

    /// BtlBw: windowed max of delivery rates, bytes per second, over rounds.
    max_bw: WindowedFilter,
    long_term: LongTermBw,
    aggregation: AckAggregation,

    /// RTprop estimate.
    min_rtt: Option<Duration>,
    /// When `min_rtt` was last set; `None` before the first RTT sample.
    min_rtt_stamp: Option<SimTime>,
    /// End of PROBE_RTT's minimum stay, once in_flight has fallen to the minimum.
    probe_rtt_done_at: Option<SimTime>,
    /// A round trip has passed at the minimum in PROBE_RTT.
    probe_rtt_round_done: bool,
    /// The flow restarted from idle and has not had an ACK for new data since.
    idle_restart: bool,
    /// The latest ACK asked the sender to mark itself application-limited (PROBE_RTT).
    app_limited_request: bool,

    /// STARTUP has filled the pipe.
    full_bw_reached: bool,
    /// BtlBw at the last round that grew it by 25 %, bytes/s.
    full_bw: u64,
    /// Rounds since then.
    full_bw_count: u32,

    /// Index into `PACING_GAIN_CYCLE`.
    cycle_index: usize,
    /// Start of the current gain-cycle phase (a delivery time).
    cycle_start: SimTime,
    /// The pacing rate has been initialised from a smoothed RTT.
    has_seen_rtt: bool,

    /// The sender's state at the previous ACK (Linux's `prev_ca_state`).
    prev_state: AckState,
    /// First round of fast recovery: cwnd follows packet conservation.
    packet_conservation: bool,
    /// cwnd saved on entering recovery, a timeout or PROBE_RTT, restored on leaving them.
    prior_cwnd: u64,

    /// The connection's totals and state as of the latest ACK.
    delivered: u64,
    lost: u64,
    in_flight: u64,
    /// Time of the latest ACK that delivered data (Linux's `tp->delivered_mstamp`).
    delivered_at: SimTime,
}

impl Bbr {
    /// A controller in STARTUP with `initial_window_bytes`, pacing at the high gain over the
    /// initial window per nominal 1 ms RTT until an RTT is known. `rng` is the flow's own stream
    /// (the engine derives it from the master seed and the flow).
    pub fn new(mss: u32, initial_window_bytes: u64, rng: Rng) -> Self {
        debug_assert!(mss > 0, "zero MSS");
        let mut bbr = Bbr {
            mss_bytes: u64::from(mss),
            rng,
            cwnd_bytes: initial_window_bytes,
            ssthresh_bytes: u64::MAX,
            pacing_rate: 0,
            mode: Mode::Startup,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            max_bw: WindowedFilter::new(Extremum::Max, BW_WINDOW_ROUNDS, 0, 0),
            long_term: LongTermBw::new(),
            aggregation: AckAggregation::new(SimTime::ZERO),
            min_rtt: None,
            min_rtt_stamp: None,
            probe_rtt_done_at: None,
            probe_rtt_round_done: false,
            idle_restart: false,
            app_limited_request: false,
            full_bw_reached: false,
            full_bw: 0,
            full_bw_count: 0,
            cycle_index: 0,
            cycle_start: SimTime::ZERO,
            has_seen_rtt: false,
            prev_state: AckState::Open,
            packet_conservation: false,
            prior_cwnd: 0,
            delivered: 0,
            lost: 0,
            in_flight: 0,
            delivered_at: SimTime::ZERO,
        };
        bbr.init_pacing_rate(None);
        bbr
    }

    /// The state machine's mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The bandwidth estimate in use, bytes per second: the policed rate while long-term
    /// sampling has found a policer, else BtlBw.
    pub fn bandwidth(&self) -> u64 {
        self.long_term.policed_bw().unwrap_or_else(|| self.max_bw.get())
    }

    /// The RTprop estimate.
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }

    /// The current pacing gain.
    pub fn pacing_gain(&self) -> f64 {
        f64::from(self.pacing_gain) / f64::from(UNIT)
    }

    // ---- rates and windows ------------------------------------------------------------------

    /// `bw` × `gain`, less the pacing margin, bytes/s (tcp_bbr.c `bbr_rate_bytes_per_sec`).
    fn rate_with_margin(bw: u64, gain: u32) -> u64 {
        let with_gain = u128::from(bw) * u128::from(gain) / u128::from(UNIT);
        let rate = with_gain * u128::from(100 - PACING_MARGIN_PERCENT) / 100;
        u64::try_from(rate).unwrap_or(u64::MAX)
    }

    /// Pacing at the high gain over the current cwnd per `srtt` (or the nominal RTT).
    fn init_pacing_rate(&mut self, srtt: Option<Duration>) {
        let rtt = match srtt {
            Some(srtt) => {
                self.has_seen_rtt = true;
                srtt.max(MIN_PACING_RTT)
            }
            None => NOMINAL_RTT,
        };
        let bw = u128::from(self.cwnd_bytes) * u128::from(PS_PER_SEC) / u128::from(rtt.as_picos());
        self.pacing_rate = Self::rate_with_margin(u64::try_from(bw).unwrap_or(u64::MAX), HIGH_GAIN);
    }

    /// tcp_bbr.c `bbr_set_pacing_rate`: before the pipe is full the rate only rises, so that a
    /// low early estimate cannot slow STARTUP down.
    fn set_pacing_rate(&mut self, bw: u64, gain: u32, srtt: Option<Duration>) {
        let rate = Self::rate_with_margin(bw, gain);
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate(srtt);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// Segments per TSO burst Linux would budget at the current pacing rate (tcp_bbr.c
    /// `bbr_tso_segs_goal`).
    fn tso_segs_goal(&self) -> u64 {
        let bytes = (self.pacing_rate >> PACING_SHIFT).min(GSO_MAX_BURST_BYTES);
        let min_segs = if self.pacing_rate < MIN_TSO_RATE_BYTES_PER_SEC { 1 } else { 2 };
        (bytes / self.mss_bytes).max(min_segs)
    }

    /// ⌈bw × min_rtt × gain⌉ in segments (tcp_bbr.c `bbr_bdp`), or the default initial window
    /// while no RTT is known.
    fn bdp_segments(&self, bw: u64, gain: u32) -> u64 {
        let Some(min_rtt) = self.min_rtt else {
            return TCP_INIT_CWND_SEGMENTS;
        };
        let bytes_ps = u128::from(bw) * u128::from(min_rtt.as_picos()) * u128::from(gain) / u128::from(UNIT);
        let segments = bytes_ps.div_ceil(u128::from(PS_PER_SEC) * u128::from(self.mss_bytes));
        u64::try_from(segments).unwrap_or(u64::MAX)
    }

    /// Adds the allowance for end-host batching to a window in segments (tcp_bbr.c
    /// `bbr_quantization_budget`).
    fn quantization_budget(&self, segments: u64) -> u64 {
        let mut cwnd = segments + 3 * self.tso_segs_goal();
        cwnd = (cwnd + 1) & !1; // an even number, for delayed ACKs
        if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
            cwnd += 2; // so that the probing phase can push in_flight above the BDP
        }
        cwnd
    }

    /// In-flight target for `bw` and `gain`, bytes (tcp_bbr.c `bbr_inflight`).
    fn inflight_target(&self, bw: u64, gain: u32) -> u64 {
        self.quantization_budget(self.bdp_segments(bw, gain)) * self.mss_bytes
    }

    /// The ACK-aggregation allowance, segments: extra_acked capped at 100 ms of bandwidth, only
    /// once the pipe is full (tcp_bbr.c `bbr_ack_aggregation_cwnd`).
    fn aggregation_segments(&self) -> u64 {
        if !self.full_bw_reached {
            return 0;
        }
        let max_bytes = u128::from(self.bandwidth()) * u128::from(EXTRA_ACKED_MAX_DURATION.as_picos())
            / u128::from(PS_PER_SEC);
        let max_segments = u64::try_from(max_bytes / u128::from(self.mss_bytes)).unwrap_or(u64::MAX);
        let extra_bytes =
            u128::from(self.aggregation.extra_acked()) * u128::from(EXTRA_ACKED_GAIN) / u128::from(UNIT);
        let extra_segments =
            u64::try_from(extra_bytes.div_ceil(u128::from(self.mss_bytes))).unwrap_or(u64::MAX);
        extra_segments.min(max_segments)
    }

    /// The cwnd BBR grows toward, bytes (tcp_bbr.c `bbr_set_cwnd`'s `target_cwnd`).
    fn cwnd_target(&self, bw: u64, gain: u32) -> u64 {
        let segments = self.bdp_segments(bw, gain) + self.aggregation_segments();
        self.quantization_budget(segments) * self.mss_bytes
    }

    /// What is in the network at the next departure, bytes (tcp_bbr.c
    /// `bbr_packets_in_net_at_edt`, with that departure taken to be now).
    fn in_network_at_next_departure(&self, in_flight: u64) -> u64 {
        if self.pacing_gain > UNIT {
            in_flight + self.tso_segs_goal() * self.mss_bytes
        } else {
            in_flight
        }
    }

    // ---- the model ----------------------------------------------------------------------------

    /// Round counting, long-term sampling and the BtlBw filter (tcp_bbr.c `bbr_update_bw`).
    fn update_bw(&mut self, ack: &AckView) {
        self.round_start = false;
        let Some(sample) = ack.sample else {
            return;
        };
        if sample.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = self.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }

        self.long_term_sample(ack.losses > 0, sample.is_app_limited);

        let bw =
            u128::from(sample.delivered) * u128::from(PS_PER_SEC) / u128::from(sample.interval.as_picos());
        let bw = u64::try_from(bw).unwrap_or(u64::MAX);
        // An application-limited sample says more about the application than the path, unless
        // it beats the current estimate.
        if !sample.is_app_limited || bw >= self.max_bw.get() {
            self.max_bw.update(self.round_count, bw);
        }
    }

    /// Feeds the long-term sampler and acts on its verdict.
    fn long_term_sample(&mut self, losses: bool, app_limited: bool) {
        let verdict = self.long_term.on_sample(&LtInput {
            round_start: self.round_start,
            in_probe_bw: self.mode == Mode::ProbeBw,
            losses,
            app_limited,
            delivered: self.delivered,
            lost: self.lost,
            delivered_at: self.delivered_at,
        });
        match verdict {
            LtVerdict::Nothing => {}
            LtVerdict::Policed => self.pacing_gain = UNIT,
            LtVerdict::Expired => self.enter_probe_bw(),
        }
    }

    /// tcp_bbr.c `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, ack: &AckView) -> bool {
        let full_length =
            self.min_rtt.is_some_and(|m| self.delivered_at.saturating_since(self.cycle_start) > m);
        if self.pacing_gain == UNIT {
            return full_length;
        }
        let in_network = self.in_network_at_next_departure(ack.prior_in_flight);
        let bw = self.max_bw.get();
        if self.pacing_gain > UNIT {
            // Probing: hold the phase until in_flight reaches gain × BDP, unless that seems not
            // to fit (a loss).
            full_length && (ack.losses > 0 || in_network >= self.inflight_target(bw, self.pacing_gain))
        } else {
            // Draining: stop as soon as the queue the probe built is gone.
            full_length || in_network <= self.inflight_target(bw, UNIT)
        }
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.cycle_start = self.delivered_at;
    }

    /// Enters PROBE_BW at a random phase other than the 3/4 one (tcp_bbr.c
    /// `bbr_reset_probe_bw_mode`): the index is drawn from 1..=7 and then advanced.
    fn enter_probe_bw(&mut self) {
        self.mode = Mode::ProbeBw;
        self.cycle_index = PACING_GAIN_CYCLE.len() - 1 - self.rng.below(CYCLE_RAND) as usize;
        self.advance_cycle_phase();
    }

    /// STARTUP if the pipe has not been filled yet, else PROBE_BW (tcp_bbr.c `bbr_reset_mode`).
    fn reset_mode(&mut self) {
        if self.full_bw_reached {
            self.enter_probe_bw();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// tcp_bbr.c `bbr_check_full_bw_reached`.
    fn check_full_bw_reached(&mut self, ack: &AckView) {
        if self.full_bw_reached || !self.round_start || ack.is_app_limited {
            return;
        }
        let threshold = u128::from(self.full_bw) * u128::from(FULL_BW_THRESH) / u128::from(UNIT);
        if u128::from(self.max_bw.get()) >= threshold {
            self.full_bw = self.max_bw.get();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= FULL_BW_ROUNDS;
    }

    /// tcp_bbr.c `bbr_check_drain`.
    fn check_drain(&mut self) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.ssthresh_bytes = self.inflight_target(self.max_bw.get(), UNIT);
        }
        if self.mode == Mode::Drain
            && self.in_network_at_next_departure(self.in_flight)
                <= self.inflight_target(self.max_bw.get(), UNIT)
        {
            self.enter_probe_bw();
        }
    }

    /// Leaves PROBE_RTT once its minimum stay and round are over (tcp_bbr.c
    /// `bbr_check_probe_rtt_done`).
    fn check_probe_rtt_done(&mut self, now: SimTime) {
        if self.probe_rtt_done_at.is_none_or(|done_at| now <= done_at) {
            return;
        }
        self.min_rtt_stamp = Some(now); // the next PROBE_RTT is 10 s away
        self.cwnd_bytes = self.cwnd_bytes.max(self.prior_cwnd);
        self.reset_mode();
    }

    /// The min_rtt filter and PROBE_RTT (tcp_bbr.c `bbr_update_min_rtt`).
    fn update_min_rtt(&mut self, ack: &AckView) {
        let expired = self.min_rtt_stamp.is_some_and(|stamp| ack.now > stamp + MIN_RTT_WINDOW);
        if let Some(rtt) = ack.rtt {
            if self.min_rtt.is_none_or(|m| rtt < m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = Some(ack.now);
            }
        }

        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done_at = None;
        }

        if self.mode == Mode::ProbeRtt {
            // The low delivery rate of this phase says nothing about the path.
            self.app_limited_request = true;
            if self.probe_rtt_done_at.is_none() && self.in_flight <= CWND_MIN_TARGET_SEGMENTS * self.mss_bytes
            {
                self.probe_rtt_done_at = Some(ack.now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = self.delivered;
            } else if self.probe_rtt_done_at.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(ack.now);
                }
            }
        }
        if ack.sample_delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// tcp_bbr.c `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => {
                let pacing = if self.long_term.policed_bw().is_some() {
                    UNIT
                } else {
                    PACING_GAIN_CYCLE[self.cycle_index]
                };
                (pacing, CWND_GAIN)
            }
            Mode::ProbeRtt => (UNIT, UNIT),
        };
    }

    /// Remembers the last good cwnd (tcp_bbr.c `bbr_save_cwnd`): during recovery or PROBE_RTT
    /// the current cwnd is a temporary cut, so the saved one is only raised.
    fn save_cwnd(&mut self) {
        if !matches!(self.prev_state, AckState::Recovery | AckState::Loss) && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd_bytes;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd_bytes);
        }
    }

    /// Loss response (tcp_bbr.c `bbr_set_cwnd_to_recover_or_restore`): returns the cwnd after
    /// losses and state transitions, and whether packet conservation decides it.
    fn recover_or_restore(&mut self, ack: &AckView) -> (u64, bool) {
        let mut cwnd = self.cwnd_bytes;
        // An ACK should release at most twice what it acknowledged: first deduct the losses,
        // then (in `set_cwnd`) grow by the bytes acknowledged.
        if ack.losses > 0 {
            cwnd = cwnd.saturating_sub(ack.losses).max(self.mss_bytes);
        }
        let was_repairing = matches!(self.prev_state, AckState::Recovery | AckState::Loss);
        if ack.state == AckState::Recovery && self.prev_state != AckState::Recovery {
            // First round of recovery: packet conservation, and the round starts now.
            self.packet_conservation = true;
            self.next_round_delivered = self.delivered;
            cwnd = self.in_flight + ack.acked;
        } else if was_repairing && ack.state == AckState::Open {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_state = ack.state;
        if self.packet_conservation {
            (cwnd.max(self.in_flight + ack.acked), true)
        } else {
            (cwnd, false)
        }
    }

    /// tcp_bbr.c `bbr_set_cwnd`.
    fn set_cwnd(&mut self, ack: &AckView, bw: u64) {
        if ack.acked > 0 {
            let (mut cwnd, conserving) = self.recover_or_restore(ack);
            if !conserving {
                let target = self.cwnd_target(bw, self.cwnd_gain);
                if self.full_bw_reached {
                    // Grow toward the target, or snap down to it.
                    cwnd = (cwnd + ack.acked).min(target);
                } else if cwnd < target || self.delivered < TCP_INIT_CWND_SEGMENTS * self.mss_bytes {
                    cwnd += ack.acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET_SEGMENTS * self.mss_bytes);
            }
            self.cwnd_bytes = cwnd;
        }
        if self.mode == Mode::ProbeRtt {
            self.cwnd_bytes = self.cwnd_bytes.min(CWND_MIN_TARGET_SEGMENTS * self.mss_bytes);
        }
    }

    fn view(ack: &AckSample) -> AckView {
        let rate = ack.rate;
        let acked = rate.map_or(ack.acked_bytes, |r| r.newly_acked);
        // tcp_rate_gen: no interval, or one shorter than the connection's minimum RTT, is no
        // bandwidth observation.
        let valid = rate.filter(|r| {
            r.interval > Duration::ZERO && ack.min_rtt.is_none_or(|min_rtt| r.interval >= min_rtt)
        });
        AckView {
            now: ack.now,
            acked,
            losses: rate.map_or(0, |r| r.newly_lost),
            prior_in_flight: rate.map_or(ack.in_flight + acked, |r| r.prior_in_flight),
            sample: valid,
            sample_delivered: rate.map_or(0, |r| r.delivered),
            is_app_limited: rate.is_some_and(|r| r.is_app_limited),
            rtt: rate.and_then(|r| r.rtt),
            srtt: ack.srtt,
            state: ack.state,
        }
    }
}

impl CongestionControl for Bbr {
    fn cwnd(&self) -> u64 {
        self.cwnd_bytes
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh_bytes
    }

    /// tcp_bbr.c `bbr_main`: update the model, then the pacing rate, then cwnd.
    fn on_ack(&mut self, sample: &AckSample) {
        let ack = Self::view(sample);
        self.delivered = sample.delivered;
        self.lost = sample.lost;
        self.in_flight = sample.in_flight;
        if ack.acked > 0 {
            self.delivered_at = ack.now;
        }
        self.app_limited_request = false;

        self.update_bw(&ack);
        if ack.sample.is_some() && ack.acked > 0 {
            let bw = self.bandwidth();
            self.aggregation.update(
                self.round_start,
                bw,
                self.delivered_at,
                ack.acked,
                self.cwnd_bytes,
                self.mss_bytes,
            );
        }
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(&ack) {
            self.advance_cycle_phase();
        }
        self.check_full_bw_reached(&ack);
        self.check_drain();
        self.update_min_rtt(&ack);
        self.update_gains();

        let bw = self.bandwidth();
        self.set_pacing_rate(bw, self.pacing_gain, ack.srtt);
        self.set_cwnd(&ack, bw);
    }

    /// Entering fast recovery (tcp_bbr.c `bbr_ssthresh`): save cwnd. The window itself is set
    /// by the `on_ack` of the same ACK, which reports `AckState::Recovery`.
    fn on_congestion_event(&mut self, _now: SimTime, _in_flight: u64) {
        self.save_cwnd();
    }

    /// Retransmission timeout (Linux's `tcp_enter_loss` and tcp_bbr.c `bbr_set_state`): save
    /// cwnd unless this loss episode already did, collapse cwnd to one segment, restart the
    /// full-pipe growth reference, and count the timeout as a lossy round end for long-term
    /// sampling.
    fn on_rto(&mut self, _now: SimTime, _in_flight: u64, already_reduced: bool) {
        if !already_reduced {
            self.save_cwnd();
        }
        self.cwnd_bytes = self.mss_bytes;
        self.prev_state = AckState::Loss;
        self.full_bw = 0;
        self.round_start = true;
        self.long_term_sample(true, false);
    }

    /// Nothing here: the ACK that ends recovery reaches `on_ack` with `AckState::Open`, which
    /// restores the saved cwnd.
    fn on_recovery_exit(&mut self, _now: SimTime) {}

    fn set_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd_bytes = cwnd;
        self.ssthresh_bytes = ssthresh;
    }

    fn pacing_rate(&self) -> Option<u64> {
        Some(self.pacing_rate)
    }

    fn wants_all_acks(&self) -> bool {
        true
    }

    fn requests_app_limited(&self) -> bool {
        self.app_limited_request
    }

    /// tcp_bbr.c `bbr_cwnd_event` on `CA_EVENT_TX_START`: restarting from an application
    /// pause, pace at the estimated bandwidth (no need to probe) and do not let an expired
    /// min_rtt send the flow into PROBE_RTT before it has had an ACK.
    fn on_tx_start(&mut self, now: SimTime, app_limited: bool) {
        if !app_limited {
            return;
        }
        self.idle_restart = true;
        self.aggregation.restart_epoch(now);
        match self.mode {
            Mode::ProbeBw => self.set_pacing_rate(self.bandwidth(), UNIT, None),
            Mode::ProbeRtt => self.check_probe_rtt_done(now),
            Mode::Startup | Mode::Drain => {}
        }
    }
}
