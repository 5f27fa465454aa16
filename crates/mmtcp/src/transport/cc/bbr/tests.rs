//! BBR controller tests: known answers computed by hand, the loss responses, and a packet-level
//! loop (one paced flow through one FIFO bottleneck) for the state machine.

use super::*;
use std::collections::VecDeque;

const MSS: u64 = 1500;
/// 100 Mbit/s in bytes per second.
const LINK_BYTES_PER_SEC: u64 = 12_500_000;

fn bbr(seed: u64) -> Bbr {
    Bbr::new(MSS as u32, TCP_INIT_CWND_SEGMENTS * MSS, Rng::for_component(seed, "flow/0/cc"))
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn at(d: Duration) -> SimTime {
    SimTime::ZERO + d
}

// ---- a packet-level loop ------------------------------------------------------------------------

/// A segment in flight, with the delivery-rate snapshot Linux's `tcp_rate_skb_sent` takes.
struct Segment {
    sent_at: SimTime,
    acked_at: SimTime,
    first_tx: SimTime,
    delivered_mstamp: SimTime,
    delivered: u64,
    app_limited: bool,
}

/// One BBR sender with unlimited data, pacing each segment at the controller's rate, through a
/// FIFO bottleneck of `rate_bps` with an unlimited buffer and a fixed propagation RTT, to a
/// receiver that ACKs every segment at once. The sender keeps tcp_rate.c's bookkeeping
/// (delivered count and time, send-phase start, app-limited mark) and honours
/// `requests_app_limited`; it never runs out of data, so that is its only app-limited source.
struct Net {
    bbr: Bbr,
    now: SimTime,
    rate_bps: u64,
    prop_rtt: Duration,
    link_free_at: SimTime,
    next_send_at: SimTime,
    flight: VecDeque<Segment>,
    delivered: u64,
    delivered_mstamp: SimTime,
    first_tx_mstamp: SimTime,
    /// tcp_rate.c's `app_limited`: 0, or the delivered count that ends the app-limited period.
    app_limited_until: u64,
    srtt: Option<Duration>,
    min_rtt: Option<Duration>,
}

impl Net {
    fn new(bbr: Bbr, rate_bps: u64, prop_rtt: Duration) -> Self {
        Net {
            bbr,
            now: SimTime::ZERO,
            rate_bps,
            prop_rtt,
            link_free_at: SimTime::ZERO,
            next_send_at: SimTime::ZERO,
            flight: VecDeque::new(),
            delivered: 0,
            delivered_mstamp: SimTime::ZERO,
            first_tx_mstamp: SimTime::ZERO,
            app_limited_until: 0,
            srtt: None,
            min_rtt: None,
        }
    }

    fn in_flight(&self) -> u64 {
        self.flight.len() as u64 * MSS
    }

    /// RTT of a segment through an empty queue.
    fn base_rtt(&self) -> Duration {
        self.prop_rtt + Duration::transmission(MSS * 8, self.rate_bps)
    }

    /// Runs until `end`; `observe` sees the network after every ACK.
    fn run(&mut self, end: SimTime, mut observe: impl FnMut(&Net)) {
        loop {
            let can_send = self.in_flight() + MSS <= self.bbr.cwnd();
            let send_at = if can_send { self.now.max(self.next_send_at) } else { SimTime::MAX };
            let ack_at = self.flight.front().map_or(SimTime::MAX, |s| s.acked_at);
            if send_at.min(ack_at) > end {
                self.now = end;
                return;
            }
            if ack_at <= send_at {
                self.ack();
                observe(self);
            } else {
                self.send(send_at);
            }
        }
    }

    fn send(&mut self, now: SimTime) {
        self.now = now;
        if self.flight.is_empty() {
            self.bbr.on_tx_start(now, self.app_limited_until != 0);
            self.first_tx_mstamp = now;
            self.delivered_mstamp = now;
        }
        let start = now.max(self.link_free_at);
        self.link_free_at = start + Duration::transmission(MSS * 8, self.rate_bps);
        self.flight.push_back(Segment {
            sent_at: now,
            acked_at: self.link_free_at + self.prop_rtt,
            first_tx: self.first_tx_mstamp,
            delivered_mstamp: self.delivered_mstamp,
            delivered: self.delivered,
            app_limited: self.app_limited_until != 0,
        });
        let pacing = self.bbr.pacing_rate().expect("BBR paces");
        self.next_send_at = now + Duration::from_picos(MSS * PS_PER_SEC / pacing);
    }

    fn ack(&mut self) {
        let seg = self.flight.pop_front().expect("an ACK for a segment in flight");
        self.now = seg.acked_at;
        let prior_in_flight = self.in_flight() + MSS;
        self.delivered += MSS;
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        self.delivered_mstamp = self.now;
        let rtt = self.now - seg.sent_at;
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        self.srtt =
            Some(self.srtt.map_or(rtt, |s| Duration::from_picos((7 * s.as_picos() + rtt.as_picos()) / 8)));
        // tcp_rate_skb_delivered and tcp_rate_gen.
        let send_interval = seg.sent_at - seg.first_tx;
        self.first_tx_mstamp = seg.sent_at;
        let ack_interval = self.now - seg.delivered_mstamp;
        let rate = RateSample {
            delivered: self.delivered - seg.delivered,
            interval: send_interval.max(ack_interval),
            prior_delivered: seg.delivered,
            is_app_limited: seg.app_limited,
            rtt: Some(rtt),
            newly_acked: MSS,
            newly_lost: 0,
            prior_in_flight,
        };
        self.bbr.on_ack(&AckSample {
            now: self.now,
            acked_bytes: MSS,
            srtt: self.srtt,
            min_rtt: self.min_rtt,
            cwnd_limited: true,
            rtt: None,
            una: 0,
            nxt: 0,
            rate: Some(rate),
            delivered: self.delivered,
            lost: 0,
            in_flight: self.in_flight(),
            state: AckState::Open,
        });
        if self.bbr.requests_app_limited() {
            self.app_limited_until = (self.delivered + self.in_flight()).max(1);
        }
    }
}

fn assert_within_one_percent(bw: u64, what: &str) {
    assert!(bw.abs_diff(LINK_BYTES_PER_SEC) * 100 <= LINK_BYTES_PER_SEC, "{what}: {bw} B/s");
}

// ---- STARTUP → DRAIN → PROBE_BW -------------------------------------------------------------

/// A gain-cycle phase as seen on the ACK that began it.
#[derive(Clone, Copy, Debug)]
struct Phase {
    start: SimTime,
    index: usize,
    gain: u32,
}

#[test]
fn test_startup_drain_probe_bw_on_fixed_rate_bottleneck() {
    let mut net = Net::new(bbr(1), 100_000_000, ms(20));
    let base_rtt = net.base_rtt();
    let mut modes = vec![Mode::Startup];
    // BtlBw at each round start until the pipe is found full.
    let mut startup_round_bw = Vec::new();
    let mut full_pipe_seen = false;
    let mut drain_exit_in_flight = None;
    let mut drain_min_in_flight = u64::MAX;
    let mut phases: Vec<Phase> = Vec::new();
    net.run(at(Duration::from_secs(3)), |net| {
        let b = &net.bbr;
        if b.mode != *modes.last().unwrap() {
            if b.mode == Mode::ProbeBw && *modes.last().unwrap() == Mode::Drain {
                drain_exit_in_flight = Some(net.in_flight());
            }
            modes.push(b.mode);
        }
        if b.round_start && !full_pipe_seen {
            startup_round_bw.push(b.max_bw.get());
            full_pipe_seen = b.full_bw_reached;
        }
        match b.mode {
            Mode::Drain => {
                assert_eq!(b.pacing_gain, DRAIN_GAIN);
                drain_min_in_flight = drain_min_in_flight.min(net.in_flight());
            }
            Mode::Startup => assert_eq!((b.pacing_gain, b.cwnd_gain), (HIGH_GAIN, HIGH_GAIN)),
            Mode::ProbeBw => {
                if phases.last().is_none_or(|p| p.index != b.cycle_index) {
                    phases.push(Phase { start: net.now, index: b.cycle_index, gain: b.pacing_gain });
                }
                // Pacing follows the gain and the estimate on every ACK.
                let expected = Bbr::rate_with_margin(b.bandwidth(), b.pacing_gain);
                assert_eq!(b.pacing_rate().unwrap(), expected);
            }
            Mode::ProbeRtt => {}
        }
    });
    let b = &net.bbr;

    assert_eq!(modes, [Mode::Startup, Mode::Drain, Mode::ProbeBw]);
    assert_within_one_percent(b.bandwidth(), "BtlBw");
    assert_eq!(b.min_rtt(), Some(base_rtt));

    // Full pipe: the round that last grew BtlBw by 25 % set full_bw, and the three round starts
    // after it did not beat 5/4 of it.
    let n = startup_round_bw.len();
    assert!(n >= 4, "{startup_round_bw:?}");
    assert_eq!(b.full_bw, startup_round_bw[n - 4], "{startup_round_bw:?}");
    for &bw in &startup_round_bw[n - 3..] {
        assert!(bw * 4 < b.full_bw * 5, "{startup_round_bw:?}");
    }

    // DRAIN ends on the first ACK that leaves in_flight at or below the BDP plus the budget:
    // ⌈166.7⌉ = 167 segments + 3 TSO goals at DRAIN's pacing rate (12.5 MB/s × 88/256 × 0.99 =
    // 4 253 906 B/s, 4154 B per ms: 2 segments) = 173, rounded up to 174.
    let exit_in_flight = drain_exit_in_flight.expect("left DRAIN");
    assert!(exit_in_flight <= 174 * MSS, "left DRAIN at {} segments", exit_in_flight / MSS);
    assert!(drain_min_in_flight > 174 * MSS, "stayed in DRAIN at {} segments", drain_min_in_flight / MSS);

    // The gain cycle: a random first phase other than 3/4, then every phase in order, each with
    // its gain; the phases at 1 last one min_rtt (up to the next ACK, ~121 µs apart), the 3/4
    // phase no longer. The 5/4 phase is held until in_flight reaches 5/4 × BDP + budget
    // (⌈208.3⌉ + 3 × 10 + 2 = 242 segments, 1.45 BDP); pacing 1/4 BDP per round above the
    // delivery rate, that takes more than a round here.
    assert_ne!(phases[0].index, 1, "started in the 3/4 phase");
    assert!(phases.len() > 16, "{} phases", phases.len());
    let min_rtt = b.min_rtt().unwrap();
    let slack = Duration::from_micros(300);
    for pair in phases.windows(2) {
        let (phase, next) = (pair[0], pair[1]);
        assert_eq!(next.index, (phase.index + 1) % 8, "{phases:?}");
        assert_eq!(phase.gain, PACING_GAIN_CYCLE[phase.index]);
        let length = next.start - phase.start;
        match phase.index {
            0 => assert!(length > min_rtt + slack, "5/4 phase of {length}"),
            1 => assert!(length <= min_rtt + slack, "3/4 phase of {length}"),
            _ => assert!(length > min_rtt && length <= min_rtt + slack, "phase {} of {length}", phase.index),
        }
    }
    assert_eq!(PACING_GAIN_CYCLE.map(|g| g as f64 / 256.0), [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
}

#[test]
fn test_probe_bw_phase_ends_early_when_drained_and_probe_ends_on_loss() {
    // The 3/4 phase ends before a full min_rtt once in_flight is down to BDP + budget (192
    // segments at this pacing rate).
    let drain_phase = |in_flight: u64| {
        let mut b = cruising();
        b.cycle_index = 1;
        b.pacing_gain = PACING_GAIN_CYCLE[1];
        b.cycle_start = at(ms(100));
        b.on_ack(&ack_at(at(ms(105)), &b, MSS, 0, in_flight, AckState::Open, 0));
        b.cycle_index
    };
    assert_eq!(drain_phase(250 * MSS), 1);
    assert_eq!(drain_phase(191 * MSS), 2, "prior in flight 192 segments: drained");

    // The 5/4 phase outlasts min_rtt until in_flight + one TSO goal reaches 5/4 × BDP + budget
    // (at 15.47 MB/s the goal is 10 segments: ⌈208.3⌉ + 30 + 2 = 242), or a loss is reported.
    let probe_phase = |in_flight: u64, lost: u64| {
        let mut b = cruising();
        b.cycle_index = 0;
        b.pacing_gain = PACING_GAIN_CYCLE[0];
        b.pacing_rate = Bbr::rate_with_margin(LINK_BYTES_PER_SEC, PACING_GAIN_CYCLE[0]);
        b.cycle_start = at(ms(100));
        b.on_ack(&ack_at(at(ms(125)), &b, MSS, lost, in_flight, AckState::Open, 0));
        b.cycle_index
    };
    assert_eq!(probe_phase(200 * MSS, 0), 0, "held: in flight below target, no loss");
    assert_eq!(probe_phase(231 * MSS, 0), 1, "prior in flight 232 + 10 segments reaches 242");
    assert_eq!(probe_phase(200 * MSS, MSS), 1, "a loss ends the probe");
}

#[test]
fn test_probe_bw_start_phase_never_drain_phase() {
    let mut counts = [0u32; 8];
    for seed in 0..7000 {
        let mut b = bbr(seed);
        b.full_bw_reached = true;
        b.enter_probe_bw();
        counts[b.cycle_index] += 1;
    }
    assert_eq!(counts[1], 0, "{counts:?}");
    // The other seven are equally likely: 1000 each, ±15 %.
    for (index, &count) in counts.iter().enumerate().filter(|&(i, _)| i != 1) {
        assert!((850..=1150).contains(&count), "phase {index}: {counts:?}");
    }
}

// ---- PROBE_RTT --------------------------------------------------------------------------------

/// What a flow did around its first PROBE_RTT.
struct ProbeRttEpisode {
    base_rtt: Duration,
    first_rtt_sample_at: SimTime,
    entered_at: SimTime,
    cwnd_before: u64,
    /// First ACK in PROBE_RTT with in_flight at the 4-segment minimum.
    at_minimum_at: SimTime,
    exited_at: SimTime,
    cwnd_after: u64,
    max_cwnd_inside: u64,
    min_bw: u64,
    final_bw: u64,
    stamp_after: Option<SimTime>,
    mode_after: Mode,
}

fn probe_rtt_episode(rate_bps: u64, prop_rtt: Duration, seed: u64) -> ProbeRttEpisode {
    let mut net = Net::new(bbr(seed), rate_bps, prop_rtt);
    let mut first_rtt_sample_at = None;
    let mut prev_cwnd = 0;
    let mut prev_mode = Mode::Startup;
    let mut entered = None;
    let mut at_minimum_at = None;
    let mut exited = None;
    let mut max_cwnd_inside = 0;
    let mut min_bw = u64::MAX;
    net.run(at(Duration::from_secs(14)), |net| {
        let b = &net.bbr;
        first_rtt_sample_at.get_or_insert(net.now);
        if b.mode == Mode::ProbeRtt {
            if prev_mode != Mode::ProbeRtt && entered.is_none() {
                entered = Some((net.now, prev_cwnd));
            }
            if entered.is_some() && exited.is_none() {
                max_cwnd_inside = max_cwnd_inside.max(b.cwnd());
                assert!(b.requests_app_limited());
                if at_minimum_at.is_none() && net.in_flight() <= 4 * MSS {
                    at_minimum_at = Some(net.now);
                }
            }
        } else if prev_mode == Mode::ProbeRtt && exited.is_none() {
            exited = Some((net.now, b.cwnd(), b.min_rtt_stamp, b.mode));
        }
        if b.full_bw_reached {
            min_bw = min_bw.min(b.bandwidth());
        }
        prev_cwnd = b.cwnd();
        prev_mode = b.mode;
    });
    let (entered_at, cwnd_before) = entered.expect("entered PROBE_RTT");
    let (exited_at, cwnd_after, stamp_after, mode_after) = exited.expect("left PROBE_RTT");
    ProbeRttEpisode {
        base_rtt: net.base_rtt(),
        first_rtt_sample_at: first_rtt_sample_at.unwrap(),
        entered_at,
        cwnd_before,
        at_minimum_at: at_minimum_at.expect("in_flight reached 4 segments"),
        exited_at,
        cwnd_after,
        max_cwnd_inside,
        min_bw,
        final_bw: net.bbr.bandwidth(),
        stamp_after,
        mode_after,
    }
}

#[test]
fn test_probe_rtt_after_ten_seconds_holds_four_segments_then_restores() {
    // The first segment crosses an empty queue, so its RTT is the minimum and no later sample
    // is lower: min_rtt is never refreshed and expires 10 s after that first ACK.
    let e = probe_rtt_episode(100_000_000, ms(20), 1);
    let expiry = e.first_rtt_sample_at + MIN_RTT_WINDOW;
    assert!(e.entered_at > expiry && e.entered_at <= expiry + ms(1), "entered at {}", e.entered_at);
    assert!(e.max_cwnd_inside <= 4 * MSS, "cwnd {} in PROBE_RTT", e.max_cwnd_inside);
    // 200 ms dominates one 20 ms round; leaving takes the first ACK after it (4 per RTT).
    let held = e.exited_at - e.at_minimum_at;
    assert!(held > PROBE_RTT_DURATION && held <= PROBE_RTT_DURATION + e.base_rtt + ms(1), "held {held}");
    assert!(e.cwnd_after >= e.cwnd_before, "cwnd {} restored to {}", e.cwnd_after, e.cwnd_before);
    assert!(e.cwnd_before > 100 * MSS);
    assert_eq!(e.mode_after, Mode::ProbeBw);
    assert_eq!(e.stamp_after, Some(e.exited_at), "the next PROBE_RTT is 10 s away");
    // The app-limited marking keeps PROBE_RTT's delivery rate (4 segments per RTT, 2.4 % of the
    // link) out of BtlBw. PROBE_RTT outlasts the 10-round filter window here, so the first
    // sample after it may restart the filter at the pacing rate (0.99 × BtlBw, as in Linux)
    // until the next 5/4 phase measures the link again.
    assert!(e.min_bw * 100 >= 95 * LINK_BYTES_PER_SEC, "BtlBw fell to {} B/s", e.min_bw);
    assert_within_one_percent(e.final_bw, "BtlBw 3 s after PROBE_RTT");
}

#[test]
fn test_probe_rtt_lasts_at_least_one_round_on_long_paths() {
    // RTT 300 ms > 200 ms: PROBE_RTT waits for an ACK of data sent once in_flight reached the
    // minimum, one round trip later.
    let e = probe_rtt_episode(10_000_000, ms(300), 2);
    let held = e.exited_at - e.at_minimum_at;
    assert!(held >= e.base_rtt && held <= e.base_rtt + ms(100), "held {held}, RTT {}", e.base_rtt);
    assert!(e.max_cwnd_inside <= 4 * MSS);
    assert!(e.cwnd_after >= e.cwnd_before);
}

#[test]
fn test_probe_rtt_exit_needs_both_duration_and_round() {
    // ACKs fed directly, so that the 200 ms and the round end fall apart (in a bulk flow's ACK
    // clock they coincide): an ACK past 200 ms for data sent before in_flight reached the
    // minimum does not end PROBE_RTT; one round trip without 200 ms does not either.
    for round_first in [false, true] {
        let mut b = cruising(); // min_rtt 20 ms stamped at 0, cwnd 300 segments
        b.delivered = 100_000 * MSS;
        let old = b.delivered; // data sent before PROBE_RTT
        let t = |ms_after_ten_s: u64| at(Duration::from_secs(10) + ms(ms_after_ten_s));
        b.on_ack(&ack_at(t(1), &b, MSS, 0, 100 * MSS, AckState::Open, old));
        assert_eq!(b.mode(), Mode::ProbeRtt, "min_rtt expired");
        assert_eq!(b.cwnd(), 4 * MSS);
        b.on_ack(&ack_at(t(2), &b, MSS, 0, 4 * MSS, AckState::Open, old));
        assert_eq!(b.probe_rtt_done_at, Some(t(202)));
        let round_end = b.next_round_delivered;
        if round_first {
            b.on_ack(&ack_at(t(50), &b, MSS, 0, 4 * MSS, AckState::Open, round_end));
            assert_eq!(b.mode(), Mode::ProbeRtt, "a round, but not 200 ms");
            b.on_ack(&ack_at(t(203), &b, MSS, 0, 4 * MSS, AckState::Open, old));
        } else {
            b.on_ack(&ack_at(t(250), &b, MSS, 0, 4 * MSS, AckState::Open, old));
            assert_eq!(b.mode(), Mode::ProbeRtt, "200 ms, but no round");
            b.on_ack(&ack_at(t(260), &b, MSS, 0, 4 * MSS, AckState::Open, round_end));
        }
        assert_eq!(b.mode(), Mode::ProbeBw);
        assert!(b.cwnd() >= 300 * MSS, "cwnd {} restored", b.cwnd() / MSS);
    }
}

// ---- known answers ---------------------------------------------------------------------------

#[test]
fn test_gain_constants_match_linux() {
    assert_eq!(HIGH_GAIN, 739); // 2.887
    assert_eq!(DRAIN_GAIN, 88); // 0.344
    assert_eq!(CWND_GAIN, 512);
    assert_eq!(BW_WINDOW_ROUNDS, 10);
}

#[test]
fn test_pacing_rate_is_gain_times_bw_less_one_percent() {
    // 100 Mbit/s = 12.5 MB/s; 5/4 × 12.5e6 × 0.99 = 15 468 750 B/s, and so on.
    assert_eq!(Bbr::rate_with_margin(LINK_BYTES_PER_SEC, UNIT * 5 / 4), 15_468_750);
    assert_eq!(Bbr::rate_with_margin(LINK_BYTES_PER_SEC, UNIT), 12_375_000);
    assert_eq!(Bbr::rate_with_margin(LINK_BYTES_PER_SEC, UNIT * 3 / 4), 9_281_250);
    // 12.5e6 × 739/256 = 36 083 984.375 → 36 083 984; × 0.99 = 35 723 144.16.
    assert_eq!(Bbr::rate_with_margin(LINK_BYTES_PER_SEC, HIGH_GAIN), 35_723_144);
}

#[test]
fn test_initial_pacing_rate_from_initial_window_over_first_rtt() {
    let mut b = bbr(1);
    // No RTT yet: 10 × 1500 B per 1 ms = 15 MB/s; × 739/256 = 43 300 781; × 0.99 = 42 867 773.
    assert_eq!(b.pacing_rate(), Some(42_867_773));
    // The first ACK brings SRTT = 20 ms: 15 000 B / 20 ms = 750 kB/s; × 739/256 = 2 165 039;
    // × 0.99 = 2 143 388. Its own rate sample (1500 B in 20 ms) is lower and does not count.
    let rtt = ms(20);
    b.on_ack(&AckSample {
        now: at(rtt),
        acked_bytes: MSS,
        srtt: Some(rtt),
        min_rtt: Some(rtt),
        cwnd_limited: true,
        rtt: None,
        una: 0,
        nxt: 0,
        rate: Some(RateSample {
            delivered: MSS,
            interval: rtt,
            prior_delivered: 0,
            is_app_limited: false,
            rtt: Some(rtt),
            newly_acked: MSS,
            newly_lost: 0,
            prior_in_flight: 10 * MSS,
        }),
        delivered: MSS,
        lost: 0,
        in_flight: 9 * MSS,
        state: AckState::Open,
    });
    assert_eq!(b.pacing_rate(), Some(2_143_388));
    assert_eq!(b.cwnd(), 11 * MSS, "STARTUP grows by the bytes acknowledged");
}

/// A BBR in PROBE_BW's first cruising phase on a 100 Mbit/s, 20 ms path, pacing at 1.0.
fn cruising() -> Bbr {
    let mut b = bbr(1);
    b.mode = Mode::ProbeBw;
    b.cycle_index = 2;
    b.pacing_gain = UNIT;
    b.cwnd_gain = CWND_GAIN;
    b.full_bw_reached = true;
    b.max_bw.reset(0, LINK_BYTES_PER_SEC);
    b.min_rtt = Some(ms(20));
    b.min_rtt_stamp = Some(SimTime::ZERO);
    b.has_seen_rtt = true;
    b.pacing_rate = Bbr::rate_with_margin(LINK_BYTES_PER_SEC, UNIT);
    b.cwnd_bytes = 300 * MSS;
    b
}

#[test]
fn test_cwnd_target_two_bdp_plus_quantization_budget() {
    let mut b = cruising();
    // TSO goal: 12 375 000 B/s >> 10 = 12 084 B ≈ 1 ms of data = 8 segments of 1500 B.
    assert_eq!(b.tso_segs_goal(), 8);
    // BDP = 12.5 MB/s × 20 ms = 250 000 B = 166.7 segments. Target: ⌈2 × 166.7⌉ = 334, plus
    // 3 × 8 = 358 segments (already even).
    assert_eq!(b.bdp_segments(LINK_BYTES_PER_SEC, CWND_GAIN), 334);
    assert_eq!(b.cwnd_target(LINK_BYTES_PER_SEC, CWND_GAIN), 358 * MSS);
    // The in-flight target at gain 1: 167 + 24 = 191, rounded up to 192.
    assert_eq!(b.inflight_target(LINK_BYTES_PER_SEC, UNIT), 192 * MSS);
    // In the 5/4 phase, 2 segments more.
    b.cycle_index = 0;
    assert_eq!(b.cwnd_target(LINK_BYTES_PER_SEC, CWND_GAIN), 360 * MSS);
    b.cycle_index = 2;
    // ACK aggregation adds extra_acked (50 segments, under 100 ms × 12.5 MB/s = 833).
    b.aggregation.extra = [50 * MSS, 20 * MSS];
    assert_eq!(b.cwnd_target(LINK_BYTES_PER_SEC, CWND_GAIN), (334 + 50 + 24) * MSS);
    // …but only once the pipe is full.
    b.full_bw_reached = false;
    assert_eq!(b.cwnd_target(LINK_BYTES_PER_SEC, CWND_GAIN), 358 * MSS);
    b.full_bw_reached = true;
    // …capped at 100 ms of bandwidth: 1 MB/s → 100 kB = 66 segments.
    b.max_bw.reset(0, 1_000_000);
    b.aggregation.extra = [500 * MSS, 0];
    b.pacing_rate = Bbr::rate_with_margin(1_000_000, UNIT); // 990 000 B/s: goal 966 B → 2 segments
    assert_eq!(b.tso_segs_goal(), 2);
    // BDP 20 kB × 2 = 40 kB = ⌈26.7⌉ = 27; + 66 + 6 = 99 → 100.
    assert_eq!(b.cwnd_target(1_000_000, CWND_GAIN), 100 * MSS);
    // Below 1.2 Mbit/s of pacing the TSO goal is one segment.
    b.pacing_rate = 149_999;
    assert_eq!(b.tso_segs_goal(), 1);
    // Without an RTT the BDP is Linux's default initial window.
    b.min_rtt = None;
    assert_eq!(b.bdp_segments(LINK_BYTES_PER_SEC, CWND_GAIN), 10);
}

/// An ACK on the 100 Mbit/s path: `acked` and `lost` newly, `in_flight` after it; its rate
/// sample measures the link rate (one BDP over one RTT) from data sent at `prior_delivered`.
fn ack_at(
    now: SimTime,
    b: &Bbr,
    acked: u64,
    lost: u64,
    in_flight: u64,
    state: AckState,
    prior_delivered: u64,
) -> AckSample {
    AckSample {
        now,
        acked_bytes: acked,
        srtt: Some(ms(20)),
        min_rtt: Some(ms(20)),
        cwnd_limited: true,
        rtt: None,
        una: 0,
        nxt: 0,
        rate: Some(RateSample {
            delivered: 250_000,
            interval: ms(20),
            prior_delivered,
            is_app_limited: false,
            rtt: Some(ms(20)),
            newly_acked: acked,
            newly_lost: lost,
            prior_in_flight: in_flight + acked + lost,
        }),
        delivered: b.delivered + acked,
        lost: b.lost + lost,
        in_flight,
        state,
    }
}

#[test]
fn test_full_pipe_cwnd_snaps_down_to_target() {
    let mut b = cruising();
    b.cwnd_bytes = 1000 * MSS;
    let now = at(ms(1));
    b.on_ack(&ack_at(now, &b, MSS, 0, 400 * MSS, AckState::Open, 0));
    assert_eq!(b.cwnd(), b.cwnd_target(LINK_BYTES_PER_SEC, CWND_GAIN));
    assert!(b.cwnd() < 420 * MSS);
}

// ---- losses ----------------------------------------------------------------------------------

#[test]
fn test_recovery_packet_conservation_then_growth_then_restore() {
    let mut b = cruising(); // cwnd 300 segments, target 358
    b.delivered = 100_000 * MSS;
    b.next_round_delivered = b.delivered;
    let round_start_at = b.delivered;
    let mut now = at(ms(1));
    let step = |now: &mut SimTime| {
        *now += ms(1);
        *now
    };

    // Entering recovery saves cwnd; the same ACK (state Recovery) then sets
    // cwnd = in_flight + acked: 250 + 1 segments.
    b.on_congestion_event(now, 280 * MSS);
    assert_eq!(b.prior_cwnd, 300 * MSS);
    b.on_ack(&ack_at(step(&mut now), &b, MSS, 3 * MSS, 250 * MSS, AckState::Recovery, round_start_at - MSS));
    assert_eq!(b.cwnd(), 251 * MSS);
    // For the rest of the round, one segment out per segment in: cwnd follows in_flight + acked,
    // less what is newly lost.
    b.on_ack(&ack_at(step(&mut now), &b, 2 * MSS, 0, 249 * MSS, AckState::Recovery, round_start_at));
    assert_eq!(b.cwnd(), 251 * MSS);
    b.on_ack(&ack_at(step(&mut now), &b, MSS, 5 * MSS, 245 * MSS, AckState::Recovery, round_start_at));
    assert_eq!(b.cwnd(), 246 * MSS);
    assert!(b.packet_conservation);
    // A round after recovery began (a sample sent after that point), growth by the bytes acked.
    let recovery_round_end = b.next_round_delivered;
    b.on_ack(&ack_at(step(&mut now), &b, 2 * MSS, 0, 240 * MSS, AckState::Recovery, recovery_round_end));
    assert!(!b.packet_conservation);
    assert_eq!(b.cwnd(), 248 * MSS);

    // Leaving recovery restores the saved cwnd (then grows it by this ACK's 2 segments).
    b.on_recovery_exit(now);
    b.on_ack(&ack_at(step(&mut now), &b, 2 * MSS, 0, 240 * MSS, AckState::Open, recovery_round_end + MSS));
    assert_eq!(b.cwnd(), 302 * MSS);
    assert_eq!(b.mode(), Mode::ProbeBw, "losses do not change the model's state");
    assert_within_one_percent(b.bandwidth(), "BtlBw after recovery");
}

#[test]
fn test_rto_one_segment_then_restore_on_recovery() {
    let mut b = cruising();
    b.delivered = 100_000 * MSS;
    b.next_round_delivered = b.delivered;
    let now = at(ms(1));
    b.on_rto(now, 300 * MSS, false);
    assert_eq!(b.cwnd(), MSS);
    assert_eq!(b.prior_cwnd, 300 * MSS);
    assert_eq!(b.full_bw, 0, "full-pipe reference restarts");
    // While repairing, cwnd grows by the bytes acknowledged, at least to the 4-segment floor.
    b.on_ack(&ack_at(now + ms(1), &b, MSS, 0, 0, AckState::Loss, b.delivered));
    assert_eq!(b.cwnd(), 4 * MSS);
    b.on_ack(&ack_at(now + ms(2), &b, 2 * MSS, 0, 0, AckState::Loss, b.delivered));
    assert_eq!(b.cwnd(), 6 * MSS);
    // Back to Open: the cwnd saved at the timeout.
    b.on_ack(&ack_at(now + ms(3), &b, MSS, 0, 0, AckState::Open, b.delivered));
    assert_eq!(b.cwnd(), 301 * MSS);
}

#[test]
fn test_rto_during_recovery_keeps_the_cwnd_saved_on_entry() {
    let mut b = cruising();
    b.delivered = 100_000 * MSS;
    b.next_round_delivered = b.delivered;
    let now = at(ms(1));
    b.on_congestion_event(now, 300 * MSS);
    b.on_ack(&ack_at(now, &b, MSS, 0, 100 * MSS, AckState::Recovery, b.delivered - MSS));
    assert_eq!(b.cwnd(), 101 * MSS);
    b.on_rto(now + ms(300), 100 * MSS, true);
    assert_eq!((b.cwnd(), b.prior_cwnd), (MSS, 300 * MSS));
    b.on_ack(&ack_at(now + ms(400), &b, MSS, 0, 0, AckState::Open, b.delivered));
    assert_eq!(b.cwnd(), 301 * MSS);
}

#[test]
fn test_long_term_policed_rate_replaces_max_filter_with_gain_one() {
    let mut b = cruising();
    // Force the sampler into its policed verdict, as two consistent lossy intervals would.
    b.long_term = {
        let mut lt = LongTermBw::new();
        let mut delivered = 0;
        let mut lost = 0;
        for round in 0..9u64 {
            for i in 1..=100u64 {
                delivered += MSS;
                let losses = i == 100;
                if losses {
                    lost += 25 * MSS;
                }
                lt.on_sample(&LtInput {
                    round_start: i == 1,
                    in_probe_bw: true,
                    losses,
                    app_limited: false,
                    delivered,
                    lost,
                    delivered_at: at(ms(round * 10) + Duration::from_micros(100 * i)),
                });
            }
        }
        lt
    };
    let policed = b.long_term.policed_bw().expect("policed");
    assert_eq!(b.bandwidth(), policed);
    b.cycle_index = 0; // even in the probing phase
    b.on_ack(&ack_at(at(ms(100)), &b, MSS, 0, 100 * MSS, AckState::Open, 0));
    assert_eq!(b.pacing_gain, UNIT);
    assert_eq!(b.pacing_rate(), Some(Bbr::rate_with_margin(policed, UNIT)));
}
