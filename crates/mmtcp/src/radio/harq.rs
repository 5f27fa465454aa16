//! Hybrid ARQ at the MAC: stop-and-wait processes with a bounded number of retransmissions.
//!
//! Each transport block (TB) occupies one HARQ process from its first transmission until the
//! transmitter learns that it was decoded or that the last allowed attempt failed. The
//! receiver's ACK/NACK reaches the transmitter `feedback_delay` after the end of the slot that
//! carried the attempt (the HARQ round trip; Kim et al. use β = 10 slots). A NACKed TB is sent
//! again, with priority over new data, in the next slot after its feedback — at the MCS of its
//! first transmission, as LTE/NR do for non-adaptive retransmissions. With `processes` processes
//! at most that many TBs can be in flight: if every process waits for feedback, the MAC sends
//! nothing new (the stall that sizes the process count: processes ≥ 1 + round trip in slots).
//!
//! Decoding (documented simplification of soft combining, after Chase, "Code combining",
//! IEEE Trans. Commun. 1985, and the LTE/NR link abstractions that add per-attempt SINRs): with
//! `combining = "chase"` the receiver keeps the soft bits of every attempt of a TB and decodes at
//! the sum of the attempts' linear SINRs, so attempt k fails with probability
//! BLER(mcs, 10·log10(Σᵢ≤ₖ sinrᵢ)); with `combining = "none"` each attempt is decoded on its own,
//! at its own SINR. Incremental redundancy (which gains a little more than Chase) is not modelled.
//! With i.i.d. attempts failing with probability b and no combining, a TB is lost after all
//! `max_retx + 1` attempts with probability b^(max_retx+1) — the residual loss that RLC AM or TCP
//! must repair (Polese et al., Polese et al. 2017a §III: "typically only 3 attempts").
//!
//! `enabled = false` models "no HARQ": every TB is sent once, and no process limit applies.

use crate::error::InputError;
use crate::sim::{Duration, Rng, SimTime};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// How the receiver combines the attempts of one transport block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Combining {
    /// Soft combining of identical retransmissions: SINRs add in linear scale.
    #[default]
    Chase,
    /// Every attempt is decoded on its own.
    None,
}

/// `[link.radio.harq]`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HarqConfig {
    /// HARQ on or off. Default `true`.
    pub enabled: bool,
    /// Stop-and-wait processes per direction. Default 16 (NR allows up to 16).
    pub processes: u32,
    /// Retransmissions after the first attempt before the TB is given up. Default 3.
    pub max_retx: u32,
    /// From the end of an attempt's slot to its ACK/NACK at the transmitter. Default 0.5 ms
    /// (4 slots of 125 µs).
    pub feedback_delay: Time,
    /// `"chase"` (default) or `"none"`.
    pub combining: Combining,
}

impl Default for HarqConfig {
    fn default() -> Self {
        HarqConfig {
            enabled: true,
            processes: 16,
            max_retx: 3,
            feedback_delay: Time(Duration::from_micros(500)),
            combining: Combining::Chase,
        }
    }
}

impl HarqConfig {
    pub fn validate(&self, file: &str, field: &str) -> Result<(), InputError> {
        if self.enabled && !(1..=64).contains(&self.processes) {
            return Err(InputError::new(
                file,
                format!("{field}.processes"),
                format!("{} processes; expected 1 to 64", self.processes),
            ));
        }
        if self.max_retx > 32 {
            return Err(InputError::new(
                file,
                format!("{field}.max_retx"),
                format!("{} retransmissions; expected 0 to 32", self.max_retx),
            ));
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ProcState {
    Idle,
    /// An attempt is in the air or its feedback is on its way back.
    AwaitingFeedback,
    /// NACKed: to be sent again at the next opportunity.
    Retransmit,
}

#[derive(Clone, Copy, Debug)]
struct Process {
    state: ProcState,
    /// The MAC's handle of the TB this process carries.
    tb: u32,
    mcs: u8,
    /// Attempts made so far (1 after the first transmission).
    attempts: u32,
    /// Σ linear SINR of the attempts so far (Chase combining).
    combined: f64,
    decoded: bool,
    feedback_at: SimTime,
    /// When the process first carried this TB, to retransmit the oldest NACK first.
    since: SimTime,
}

/// What happened to one attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// The receiver decoded the TB with this attempt.
    pub decoded: bool,
    /// The attempt's number: 1 for the first transmission.
    pub number: u32,
}

/// A TB whose HARQ process was released.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finished {
    pub tb: u32,
    pub decoded: bool,
}

/// Counters of one direction's HARQ entity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HarqStats {
    pub first_attempts: u64,
    pub retransmissions: u64,
    /// TBs given up after the last allowed attempt (residual loss).
    pub failed: u64,
    /// Slots in which a TB could not be sent because every process awaited feedback.
    pub stalls: u64,
}

/// The HARQ processes of one link direction.
#[derive(Clone, Debug)]
pub struct Harq {
    enabled: bool,
    max_retx: u32,
    feedback_delay: Duration,
    combining: Combining,
    procs: Vec<Process>,
    busy: usize,
    pub stats: HarqStats,
}

fn linear(db: f64) -> f64 {
    libm::pow(10.0, db / 10.0)
}

fn to_db(linear: f64) -> f64 {
    if linear > 0.0 {
        10.0 * libm::log10(linear)
    } else {
        f64::NEG_INFINITY
    }
}

impl Harq {
    pub fn new(config: &HarqConfig) -> Harq {
        let idle = Process {
            state: ProcState::Idle,
            tb: 0,
            mcs: 0,
            attempts: 0,
            combined: 0.0,
            decoded: false,
            feedback_at: SimTime::ZERO,
            since: SimTime::ZERO,
        };
        let n = if config.enabled { config.processes as usize } else { 0 };
        Harq {
            enabled: config.enabled,
            max_retx: if config.enabled { config.max_retx } else { 0 },
            feedback_delay: config.feedback_delay.0,
            combining: config.combining,
            procs: vec![idle; n],
            busy: 0,
            stats: HarqStats::default(),
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Processes waiting for feedback or for a retransmission.
    pub fn busy(&self) -> usize {
        self.busy
    }

    /// Applies every ACK/NACK that has reached the transmitter by `now`. Each TB whose process
    /// is released goes to `finished` with whether it was decoded; a TB given up after its last
    /// attempt is finished undecoded (its contents are lost).
    pub fn collect_feedback(&mut self, now: SimTime, finished: &mut Vec<Finished>) {
        if self.busy == 0 {
            return;
        }
        for p in &mut self.procs {
            if p.state != ProcState::AwaitingFeedback || p.feedback_at > now {
                continue;
            }
            if p.decoded {
                p.state = ProcState::Idle;
                self.busy -= 1;
                finished.push(Finished { tb: p.tb, decoded: true });
            } else if p.attempts <= self.max_retx {
                p.state = ProcState::Retransmit;
            } else {
                p.state = ProcState::Idle;
                self.busy -= 1;
                self.stats.failed += 1;
                finished.push(Finished { tb: p.tb, decoded: false });
            }
        }
    }

    /// MAC reset (3GPP TS 38.321 §5.12: "flush the soft buffers for all DL HARQ processes",
    /// "flush all UL HARQ buffers"): every busy process becomes idle and its TB goes to
    /// `flushed`, undecoded, whatever its attempts had achieved. Not counted as `failed`.
    pub fn flush(&mut self, flushed: &mut Vec<Finished>) {
        for p in &mut self.procs {
            if p.state != ProcState::Idle {
                p.state = ProcState::Idle;
                flushed.push(Finished { tb: p.tb, decoded: false });
            }
        }
        self.busy = 0;
    }

    /// The process whose NACKed TB should go out now (the oldest), if any: `(process, tb, mcs)`.
    pub fn retransmission(&self) -> Option<(usize, u32, u8)> {
        self.procs
            .iter()
            .enumerate()
            .filter(|(_, p)| p.state == ProcState::Retransmit)
            .min_by_key(|(_, p)| p.since)
            .map(|(i, p)| (i, p.tb, p.mcs))
    }

    /// Whether a new TB can be sent now (a free process, or HARQ disabled). Counts a stall when
    /// not.
    pub fn can_send_new(&mut self) -> bool {
        if !self.enabled || self.busy < self.procs.len() {
            return true;
        }
        self.stats.stalls += 1;
        false
    }

    /// Sends a new TB `tb` at `mcs` in the slot ending at `slot_end`; `sinr_db` is the actual
    /// SINR during the slot and `bler(sinr_db)` the TB's error probability at an SINR.
    pub fn send_new(
        &mut self,
        tb: u32,
        mcs: u8,
        slot_end: SimTime,
        sinr_db: f64,
        bler: impl Fn(f64) -> f64,
        rng: &mut Rng,
    ) -> Attempt {
        self.stats.first_attempts += 1;
        let decoded = !rng.bernoulli(bler(sinr_db));
        if !self.enabled {
            return Attempt { decoded, number: 1 };
        }
        let slot = self.procs.iter().position(|p| p.state == ProcState::Idle).expect("can_send_new checked");
        self.busy += 1;
        self.procs[slot] = Process {
            state: ProcState::AwaitingFeedback,
            tb,
            mcs,
            attempts: 1,
            combined: linear(sinr_db),
            decoded,
            feedback_at: slot_end + self.feedback_delay,
            since: slot_end,
        };
        Attempt { decoded, number: 1 }
    }

    /// Sends process `proc`'s TB again (see [`Harq::retransmission`]).
    pub fn send_again(
        &mut self,
        proc: usize,
        slot_end: SimTime,
        sinr_db: f64,
        bler: impl Fn(f64) -> f64,
        rng: &mut Rng,
    ) -> Attempt {
        self.stats.retransmissions += 1;
        let p = &mut self.procs[proc];
        debug_assert_eq!(p.state, ProcState::Retransmit);
        p.attempts += 1;
        let effective = match self.combining {
            Combining::Chase => {
                p.combined += linear(sinr_db);
                to_db(p.combined)
            }
            Combining::None => sinr_db,
        };
        p.decoded = !rng.bernoulli(bler(effective));
        p.state = ProcState::AwaitingFeedback;
        p.feedback_at = slot_end + self.feedback_delay;
        Attempt { decoded: p.decoded, number: p.attempts }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(max_retx: u32, combining: Combining) -> HarqConfig {
        HarqConfig {
            enabled: true,
            processes: 4,
            max_retx,
            feedback_delay: Time(Duration::from_micros(500)),
            combining,
        }
    }

    /// Runs `n` TBs one at a time through every allowed attempt; returns (lost, attempts).
    fn residual(harq: &mut Harq, n: u32, bler: impl Fn(f64) -> f64 + Copy, rng: &mut Rng) -> (u64, u64) {
        let slot = Duration::from_micros(125);
        let mut now = SimTime::ZERO;
        let mut failed = Vec::new();
        let mut attempts = 0;
        for tb in 0..n {
            now += slot;
            let mut a = harq.send_new(tb, 5, now, 10.0, bler, rng);
            attempts += 1;
            loop {
                now += Duration::from_micros(500);
                harq.collect_feedback(now, &mut failed);
                match harq.retransmission() {
                    Some((p, t, mcs)) => {
                        assert!(!a.decoded, "a decoded TB is never retransmitted");
                        assert_eq!((t, mcs), (tb, 5));
                        now += slot;
                        a = harq.send_again(p, now, 10.0, bler, rng);
                        attempts += 1;
                    }
                    None => break,
                }
            }
            assert_eq!(harq.busy(), 0);
        }
        assert!(failed.iter().all(|f| f.tb < n));
        (failed.iter().filter(|f| !f.decoded).count() as u64, attempts)
    }

    #[test]
    fn residual_loss_is_b_to_the_attempts() {
        // i.i.d. attempts failing with b, N retransmissions: P(lost) = b^(N+1), and the mean
        // number of attempts is (1 − b^(N+1)) / (1 − b).
        let mut rng = Rng::for_component(7, "harq-residual");
        for (b, n_retx) in [(0.3, 3u32), (0.5, 2), (0.1, 1), (0.5, 0)] {
            let mut harq = Harq::new(&config(n_retx, Combining::None));
            let n = 200_000;
            let (lost, attempts) = residual(&mut harq, n, |_| b, &mut rng);
            let p = b.powi(n_retx as i32 + 1);
            let sd = (p * (1.0 - p) / n as f64).sqrt();
            let measured = lost as f64 / n as f64;
            assert!((measured - p).abs() < 4.0 * sd + 1e-9, "b {b} N {n_retx}: {measured} vs {p}");
            let mean_attempts = (1.0 - p) / (1.0 - b);
            let m = attempts as f64 / n as f64;
            assert!((m - mean_attempts).abs() < 0.01 * mean_attempts, "{m} vs {mean_attempts}");
            assert_eq!(harq.stats.failed, lost);
        }
    }

    #[test]
    fn chase_combining_adds_linear_sinr() {
        // A TB that fails below 13 dB: sent at 10 dB, the second attempt combines to 13.01 dB.
        let threshold = |sinr: f64| if sinr >= 13.0 { 0.0 } else { 1.0 };
        let mut rng = Rng::for_component(1, "chase");
        let mut chase = Harq::new(&config(3, Combining::Chase));
        let (lost, attempts) = residual(&mut chase, 10, threshold, &mut rng);
        assert_eq!((lost, attempts), (0, 20));
        let mut plain = Harq::new(&config(3, Combining::None));
        let (lost, attempts) = residual(&mut plain, 10, threshold, &mut rng);
        assert_eq!((lost, attempts), (10, 40));
    }

    #[test]
    fn processes_limit_tbs_in_flight_until_feedback() {
        let mut harq = Harq::new(&config(3, Combining::Chase));
        let mut rng = Rng::for_component(1, "stall");
        let t = SimTime::ZERO + Duration::from_micros(125);
        for tb in 0..4 {
            assert!(harq.can_send_new());
            harq.send_new(tb, 1, t, 30.0, |_| 0.0, &mut rng);
        }
        assert!(!harq.can_send_new());
        assert_eq!(harq.stats.stalls, 1);
        let mut failed = Vec::new();
        harq.collect_feedback(t + Duration::from_micros(499), &mut failed);
        assert!(!harq.can_send_new(), "feedback not back yet");
        harq.collect_feedback(t + Duration::from_micros(500), &mut failed);
        assert!(harq.can_send_new() && harq.busy() == 0);
        assert_eq!(failed, (0..4).map(|tb| Finished { tb, decoded: true }).collect::<Vec<_>>());
    }

    #[test]
    fn oldest_nack_goes_first() {
        let mut harq = Harq::new(&config(3, Combining::None));
        let mut rng = Rng::for_component(1, "order");
        let slot = Duration::from_micros(125);
        let t1 = SimTime::ZERO + slot;
        harq.send_new(10, 3, t1, 0.0, |_| 1.0, &mut rng);
        harq.send_new(11, 4, t1 + slot, 0.0, |_| 1.0, &mut rng);
        let mut failed = Vec::new();
        harq.collect_feedback(t1 + slot + Duration::from_millis(1), &mut failed);
        let (p, tb, mcs) = harq.retransmission().unwrap();
        assert_eq!((tb, mcs), (10, 3));
        harq.send_again(p, t1 + Duration::from_millis(2), 0.0, |_| 0.0, &mut rng);
        assert_eq!(harq.retransmission().map(|r| r.1), Some(11));
    }

    #[test]
    fn disabled_sends_once_without_process_limit() {
        let mut harq = Harq::new(&HarqConfig { enabled: false, ..HarqConfig::default() });
        let mut rng = Rng::for_component(1, "off");
        let mut lost = 0;
        for tb in 0..1000 {
            assert!(harq.can_send_new());
            if !harq.send_new(tb, 1, SimTime::ZERO, 0.0, |_| 0.25, &mut rng).decoded {
                lost += 1;
            }
        }
        let mut failed = Vec::new();
        harq.collect_feedback(SimTime::ZERO + Duration::from_secs(1), &mut failed);
        assert!(failed.is_empty() && harq.retransmission().is_none() && harq.busy() == 0);
        assert!((200..300).contains(&lost), "{lost}");
    }

    #[test]
    fn bad_values_name_the_key() {
        let bad = HarqConfig { processes: 0, ..HarqConfig::default() };
        let e = bad.validate("s.toml", "link[0].radio.harq").unwrap_err().to_string();
        assert!(e.contains("link[0].radio.harq.processes") && e.contains("1 to 64"), "{e}");
    }
}
