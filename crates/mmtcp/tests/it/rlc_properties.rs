//! Properties of the RLC entities driven end to end: a transmitter fills transport blocks of
//! random sizes every 125 µs slot; each block is lost with a random probability (HARQ gave up)
//! or arrives after 0–3 HARQ round trips, so blocks overtake each other; STATUS reports and
//! discard notices travel back after a control-path delay; every timer fires at its deadline, in
//! time order.
//!
//! * AM that never gives up (`max_retx = "never"`) delivers every SDU exactly once, in order.
//! * AM with a small `max_retx` (and CoDel) under heavy loss gives every SDU exactly one outcome,
//!   in SN order, and an SDU is lost only if the transmitter gave up on it.
//! * UM delivers in order without duplicates, never sends a byte twice, delivers only SDUs whose
//!   bytes all arrived, and resolves every SDU up to the last one heard of.
//! * TM delivers exactly the SDUs of the decoded blocks.
//! * In every mode a block is never overfilled and its byte count includes one header per PDU.

use mmtcp::radio::rlc::{
    BufferPolicy, MaxRetx, RlcConfig, RlcMode, RlcRx, RlcRxStats, RlcSegment, RlcTx, RlcTxStats, RxOutcome,
    StatusReport, MAX_WINDOW,
};
use mmtcp::sim::{Duration, SimTime};
use mmtcp::units::{Bytes, Time};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

const SLOT: Duration = Duration::from_micros(125);
const HARQ_RTT: Duration = Duration::from_micros(500);

/// One random link and workload.
#[derive(Clone, Debug)]
struct Case {
    seed: u64,
    /// (gap after the previous offer in µs, SDU length).
    sdus: Vec<(u64, u32)>,
    tb_min: u32,
    tb_max: u32,
    /// Probability that a transport block is never decoded.
    loss: f64,
    /// Most HARQ retransmissions a decoded block needed (its delay is 0.25 ms + k × 0.5 ms).
    harq_max: u64,
    status_delay_us: u64,
    window: u32,
    poll_pdu: u32,
    poll_byte: u64,
    t_status_prohibit_us: u64,
    codel: bool,
}

fn case(max_loss: f64) -> impl Strategy<Value = Case> {
    (
        any::<u64>(),
        prop::collection::vec((0u64..400, 1u32..3000), 1..100),
        (4u32..600, 0u32..4000),
        0.0..max_loss,
        0u64..4,
        0u64..2000,
        prop::sample::select(vec![3u32, 16, 100, MAX_WINDOW]),
        (1u32..40, 200u64..20_000),
        prop::sample::select(vec![0u64, 500, 2000]),
        any::<bool>(),
    )
        .prop_map(
            |(
                seed,
                sdus,
                (tb_min, extra),
                loss,
                harq_max,
                status_delay_us,
                window,
                poll,
                prohibit,
                codel,
            )| Case {
                seed,
                sdus,
                tb_min,
                tb_max: tb_min + extra,
                loss,
                harq_max,
                status_delay_us,
                window,
                poll_pdu: poll.0,
                poll_byte: poll.1,
                t_status_prohibit_us: prohibit,
                codel,
            },
        )
}

fn config(mode: RlcMode, c: &Case, max_retx: MaxRetx, codel: bool) -> RlcConfig {
    let config = RlcConfig {
        mode,
        buffer: Bytes(100_000_000),
        policy: if codel { BufferPolicy::Codel } else { BufferPolicy::Droptail },
        codel_target: Time(Duration::from_micros(500)),
        codel_interval: Time(Duration::from_millis(5)),
        header_bytes: 3,
        // Above the 1.5 ms reordering span of the HARQ delays.
        t_reassembly: Time(Duration::from_millis(2)),
        t_reassembly_um: None,
        t_poll_retransmit: Time(Duration::from_millis(8)),
        t_status_prohibit: Time(Duration::from_micros(c.t_status_prohibit_us)),
        poll_pdu: c.poll_pdu,
        poll_byte: Bytes(c.poll_byte),
        max_retx,
        window: c.window,
        discard_timer: None,
    };
    config.validate("test", "rlc").unwrap();
    config
}

/// SplitMix64: the test's own random stream, seeded by the case.
struct Rand(u64);

impl Rand {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

enum Event {
    Block(Vec<RlcSegment>),
    Status(StatusReport),
    Discard(u64),
}

/// What happened in one run.
#[derive(Debug, Default)]
struct Run {
    /// (sn, len) of each admitted SDU.
    admitted: Vec<(u64, u32)>,
    outcomes: Vec<RxOutcome>,
    sent: Vec<RlcSegment>,
    decoded: Vec<RlcSegment>,
    /// SNs the transmitter gave up on: CoDel drops and max-retx discards.
    given_up: BTreeSet<u64>,
    tx: RlcTxStats,
    rx: RlcRxStats,
}

fn simulate(config: &RlcConfig, c: &Case) -> Run {
    let mut rng = Rand(c.seed);
    let mut tx = RlcTx::new(config);
    let mut rx = RlcRx::new(config);
    let header = if config.mode == RlcMode::Tm { 0 } else { config.header_bytes };
    let status_delay = Duration::from_micros(c.status_delay_us);
    let mut run = Run::default();

    let mut offer_at = Vec::new();
    let mut t = SimTime::ZERO;
    for &(gap_us, len) in &c.sdus {
        t += Duration::from_micros(gap_us);
        offer_at.push((t, len));
    }
    let mut next_offer = 0;
    let mut events: Vec<Option<Event>> = Vec::new();
    let mut heap: BinaryHeap<Reverse<(SimTime, usize)>> = BinaryHeap::new();
    let schedule = |events: &mut Vec<Option<Event>>, heap: &mut BinaryHeap<_>, at: SimTime, e: Event| {
        heap.push(Reverse((at, events.len())));
        events.push(Some(e));
    };
    let mut report = StatusReport::default();
    let (mut segs, mut given_up) = (Vec::new(), Vec::new());
    let mut next_slot = SimTime::ZERO;
    let mut now = SimTime::ZERO;
    let mut steps_at_now = 0;

    loop {
        // The earliest thing that can happen; ties in a fixed order.
        let slot_at = tx.has_pending().then(|| {
            let grid = now.0.div_ceil(SLOT.0) * SLOT.0;
            next_slot.max(SimTime(grid))
        });
        let candidates = [
            offer_at.get(next_offer).map(|o| o.0),
            heap.peek().map(|Reverse((at, _))| *at),
            tx.next_deadline(),
            rx.next_deadline(),
            slot_at,
        ];
        let Some((kind, at)) =
            candidates.iter().enumerate().filter_map(|(k, t)| t.map(|t| (k, t))).min_by_key(|&(k, t)| (t, k))
        else {
            break;
        };
        assert!(at >= now, "time went backwards");
        steps_at_now = if at == now { steps_at_now + 1 } else { 0 };
        assert!(steps_at_now < 100_000, "stuck at {now}");
        assert!(at < SimTime::ZERO + Duration::from_secs(600), "no end in sight");
        now = at;
        given_up.clear();
        match kind {
            0 => {
                let len = offer_at[next_offer].1;
                next_offer += 1;
                if let Some(sn) = tx.offer(now, len) {
                    assert_eq!(sn, run.admitted.len() as u64, "SNs are assigned in order");
                    run.admitted.push((sn, len));
                }
            }
            1 => {
                let Reverse((_, i)) = heap.pop().unwrap();
                match events[i].take().unwrap() {
                    Event::Block(block) => {
                        for seg in &block {
                            rx.on_segment(now, seg, &mut run.outcomes);
                        }
                        run.decoded.extend(block);
                    }
                    Event::Status(r) => tx.on_status(now, &r, &mut given_up),
                    Event::Discard(sn) => rx.on_discard(sn, &mut run.outcomes),
                }
            }
            2 => tx.on_timer(now),
            3 => rx.on_timer(now, &mut run.outcomes),
            _ => {
                next_slot = now + SLOT;
                let tb = c.tb_min + rng.below((c.tb_max - c.tb_min + 1) as u64) as u32;
                segs.clear();
                let used = tx.fill(now, tb, &mut segs, &mut given_up);
                assert!(used <= tb, "transport block overfilled: {used} > {tb}");
                assert_eq!(used, segs.iter().map(|s| s.len() + header).sum::<u32>(), "header accounting");
                assert!(segs.iter().all(|s| s.start < s.end && s.end <= s.sdu_len));
                run.sent.extend_from_slice(&segs);
                if !segs.is_empty() && !rng.chance(c.loss) {
                    let delay =
                        Duration::from_micros(250) + HARQ_RTT.saturating_mul(rng.below(c.harq_max + 1));
                    schedule(&mut events, &mut heap, now + delay, Event::Block(segs.clone()));
                }
            }
        }
        for &sn in &given_up {
            assert!(run.given_up.insert(sn), "SN {sn} given up twice");
            schedule(&mut events, &mut heap, now + status_delay, Event::Discard(sn));
        }
        if rx.take_status(now, &mut report) {
            schedule(&mut events, &mut heap, now + status_delay, Event::Status(report.clone()));
        }
    }
    assert_eq!(next_offer, offer_at.len());
    run.tx = tx.stats().clone();
    run.rx = rx.stats().clone();
    assert_eq!(tx.buffered_bytes(), 0, "the transmitter finished");
    run
}

/// Outcomes cover SNs 0, 1, 2, ... once each, in order.
fn assert_in_order_exactly_once(run: &Run) {
    for (i, o) in run.outcomes.iter().enumerate() {
        assert_eq!(o.sn(), i as u64, "outcome {i} is {o:?}: out of order, duplicated or skipped");
    }
}

fn delivered(run: &Run) -> BTreeSet<u64> {
    run.outcomes.iter().filter_map(|o| matches!(o, RxOutcome::Deliver(_)).then_some(o.sn())).collect()
}

/// SNs all of whose bytes were in decoded blocks.
fn fully_decoded(run: &Run) -> BTreeSet<u64> {
    let mut bytes: BTreeMap<u64, Vec<bool>> = BTreeMap::new();
    for s in &run.decoded {
        let b = bytes.entry(s.sn).or_insert_with(|| vec![false; s.sdu_len as usize]);
        b[s.start as usize..s.end as usize].iter_mut().for_each(|x| *x = true);
    }
    bytes.into_iter().filter(|(_, b)| b.iter().all(|&x| x)).map(|(sn, _)| sn).collect()
}

fn proptest_config() -> Config {
    Config {
        cases: 64,
        rng_seed: RngSeed::Fixed(0x524c_4300),
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn am_that_never_gives_up_delivers_everything_once_in_order(c in case(0.5)) {
        let run = simulate(&config(RlcMode::Am, &c, MaxRetx::Never, false), &c);
        prop_assert_eq!(run.admitted.len(), c.sdus.len());
        assert_in_order_exactly_once(&run);
        prop_assert_eq!(delivered(&run).len(), c.sdus.len(), "every SDU delivered");
        prop_assert!(run.given_up.is_empty());
        prop_assert_eq!(run.rx.sdus_delivered, c.sdus.len() as u64);
        prop_assert_eq!(run.rx.sdus_lost, 0);
        if c.loss > 0.2 && c.sdus.len() > 20 {
            prop_assert!(run.tx.retx_segments > 0, "heavy loss but no retransmission");
        }
    }

    #[test]
    fn am_with_small_max_retx_loses_only_what_the_transmitter_gave_up(
        c in case(0.5).prop_filter("heavy loss", |c| c.loss >= 0.2),
        max_retx in 0u32..3,
    ) {
        let run = simulate(&config(RlcMode::Am, &c, MaxRetx::After(max_retx), c.codel), &c);
        assert_in_order_exactly_once(&run);
        prop_assert_eq!(run.outcomes.len(), run.admitted.len(), "every SDU has an outcome");
        for o in &run.outcomes {
            if let RxOutcome::Lost(sn) = o {
                prop_assert!(run.given_up.contains(sn), "SN {} lost but never given up", sn);
            }
        }
        let delivered = delivered(&run);
        prop_assert!(delivered.is_subset(&fully_decoded(&run)));
        prop_assert_eq!(
            run.tx.discards_max_retx + run.tx.drops_codel,
            run.given_up.len() as u64
        );
        if !c.codel {
            prop_assert_eq!(run.tx.drops_codel, 0);
        }
    }

    #[test]
    fn um_delivers_in_order_without_duplicates_and_never_retransmits(c in case(0.5)) {
        let run = simulate(&config(RlcMode::Um, &c, MaxRetx::After(0), c.codel), &c);
        prop_assert_eq!(run.tx.retx_segments, 0);
        prop_assert!(run.sent.iter().all(|s| !s.retx && !s.poll));
        // No byte sent twice.
        let mut sent: BTreeMap<u64, Vec<bool>> = BTreeMap::new();
        for s in &run.sent {
            let b = sent.entry(s.sn).or_insert_with(|| vec![false; s.sdu_len as usize]);
            for x in &mut b[s.start as usize..s.end as usize] {
                prop_assert!(!*x, "a byte of SN {} sent twice", s.sn);
                *x = true;
            }
        }
        // In order, each SN at most once, from 0 without gaps.
        assert_in_order_exactly_once(&run);
        // Delivered only when every byte arrived. An SDU sent in one PDU that arrived is never
        // lost: t-Reassembly exceeds the HARQ reordering span, and a window of 100 SDUs is never
        // pushed by these workloads. (A segmented SDU can be: its tail may be sent after the
        // timer started.)
        let decoded = fully_decoded(&run);
        prop_assert!(delivered(&run).is_subset(&decoded));
        let mut pieces: BTreeMap<u64, u32> = BTreeMap::new();
        for s in &run.sent {
            *pieces.entry(s.sn).or_default() += 1;
        }
        for o in &run.outcomes {
            if let RxOutcome::Lost(sn) = o {
                let whole = pieces.get(sn) == Some(&1);
                prop_assert!(!(whole && decoded.contains(sn) && c.window >= 100),
                    "SN {} sent whole and decoded, but lost", sn);
            }
        }
        // Every SDU up to the last one heard of (a segment or a discard) is resolved.
        let heard = run.decoded.iter().map(|s| s.sn).chain(run.given_up.iter().copied()).max();
        if let Some(last) = heard {
            prop_assert!(run.outcomes.len() as u64 > last, "SN {} heard of but unresolved", last);
        }
        prop_assert_eq!(run.rx.sdus_delivered + run.rx.sdus_lost, run.outcomes.len() as u64);
    }

    #[test]
    fn tm_delivers_exactly_the_sdus_of_decoded_blocks(
        // TM does not segment: blocks must hold the largest SDU (2999 bytes).
        c in case(0.5).prop_map(|c| Case { tb_min: c.tb_min + 3000, tb_max: c.tb_max + 3000, ..c }),
    ) {
        let run = simulate(&config(RlcMode::Tm, &c, MaxRetx::After(0), c.codel), &c);
        prop_assert!(run.sent.iter().all(|s| s.start == 0 && s.end == s.sdu_len), "TM never segments");
        let mut want: Vec<u64> = run.decoded.iter().map(|s| s.sn).collect();
        let mut got: Vec<u64> =
            run.outcomes.iter().filter(|o| matches!(o, RxOutcome::Deliver(_))).map(|o| o.sn()).collect();
        want.sort_unstable();
        got.sort_unstable();
        prop_assert_eq!(got, want);
        let lost: BTreeSet<u64> =
            run.outcomes.iter().filter(|o| matches!(o, RxOutcome::Lost(_))).map(|o| o.sn()).collect();
        prop_assert_eq!(lost, run.given_up.clone(), "TM loses only what CoDel dropped");
        let mut sent: Vec<u64> = run.sent.iter().map(|s| s.sn).collect();
        sent.dedup();
        prop_assert_eq!(sent.len(), run.sent.len(), "each SDU sent once");
    }
}
