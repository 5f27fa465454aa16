//! COTAG's four-state Markov model of two correlated mmWave links (Wu et al., Ahmad/COTAG §5.1,
//! Figs. 6–7, §5.2.3 and §5.3.1).
//!
//! Each link's rate is quantised into two levels, High and Low; the pair is in one of four states
//! HH, HL, LH, LL (link 1's level first). Every `step` (100 ms in §5.3.1):
//!
//! 1. link 1 flips its level (H↔L) with probability p, else keeps it;
//! 2. link 2 takes link 1's *new* level with probability q, else the other level.
//!
//! This reading reproduces every row of Fig. 7: from HH or HL (link 1 high) the next state is
//! HH with (1−p)·q, HL with (1−p)·(1−q), LL with p·q, LH with p·(1−q); from LH or LL (link 1
//! low) it is LL with (1−p)·q, LH with (1−p)·(1−q), HH with p·q, HL with p·(1−q). The next state
//! does not depend on link 2's current level.
//!
//! Link 1's level is a symmetric two-state chain, so in steady state each level has probability
//! ½; with H = +1 and L = −1, E[X₁X₂] = q − (1 − q), hence the correlation of the two levels is
//! 2q − 1 (the paper's link correlations −0.34 / 0 / +0.34 are q = 0.33 / 0.5 / 0.67). Link 2's
//! level is also a Markov chain: it equals link 1's with probability q at every step.
//!
//! Within a state, the rates are Gaussian (§5.3.1): Low mean 3 Gbit/s, High mean 10 Gbit/s, with
//! spreads 0.3 and 1 Gbit/s (the paper says "variances"; read as standard deviations, since a
//! variance in Gbit/s is not a rate), drawn afresh every step, clamped at 0 and rounded to whole
//! bit/s. `rate_correlation` ρ correlates the two links' draws within a step:
//! z₂ = ρ·z₁ + √(1−ρ²)·z′. p is not stated by the seed: a parameter (default 0.1, a mean sojourn
//! of 1 s per level of link 1 at 100 ms steps).
//!
//! The measurement-fitted variant (§5.2.3) has a joint Gaussian per *state* — each link's mean
//! and standard deviation and the two rates' correlation in HH, HL, LH and LL — which `states`
//! gives in place of the per-level keys; `mmtcp fit-markov` estimates it from two rate traces.
//! Ours, not the paper's: `transitions`, a full 4×4 transition matrix in place of p and q, for
//! traces the symmetric (p, q) chain fits badly (link 2 then keeps a memory of its own level).
//! Draws per step, in order: the transition (two Bernoulli draws for p and q, each skipped when
//! its probability is 0 or 1; one uniform draw for `transitions`), then two normal deviates.

use crate::error::InputContext;
use crate::error::InputError;
use crate::sim::{Duration, Rng, SimTime};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

/// The rate level of one link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Low,
    High,
}

impl Level {
    fn other(self) -> Level {
        match self {
            Level::Low => Level::High,
            Level::High => Level::Low,
        }
    }
}

/// The state at time zero: link 1's level, then link 2's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairStart {
    #[default]
    Hh,
    Hl,
    Lh,
    Ll,
}

impl PairStart {
    fn levels(self) -> [Level; 2] {
        match self {
            PairStart::Hh => [Level::High, Level::High],
            PairStart::Hl => [Level::High, Level::Low],
            PairStart::Lh => [Level::Low, Level::High],
            PairStart::Ll => [Level::Low, Level::Low],
        }
    }
}

/// The states in the order of `transitions`' rows and columns.
pub const STATE_NAMES: [&str; 4] = ["hh", "hl", "lh", "ll"];

/// Index of a state in [`STATE_NAMES`] order.
fn state_index(levels: [Level; 2]) -> usize {
    match levels {
        [Level::High, Level::High] => 0,
        [Level::High, Level::Low] => 1,
        [Level::Low, Level::High] => 2,
        [Level::Low, Level::Low] => 3,
    }
}

/// The levels of the state at `index` in [`STATE_NAMES`] order.
fn state_levels(index: usize) -> [Level; 2] {
    let level = |high: bool| if high { Level::High } else { Level::Low };
    [level(index < 2), level(index % 2 == 0)]
}

/// The joint Gaussian of the two links' rates in one state (§5.2.3): `{ mean = ["9Gbps",
/// "8Gbps"], std = ["1Gbps", "0.5Gbps"], correlation = 0.3 }`, link 1 first. Every key is required.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateRates {
    /// Mean rate of link 1 and of link 2.
    pub mean: [Rate; 2],
    /// Standard deviation of link 1's and of link 2's rate.
    pub std: [Rate; 2],
    /// Correlation of the two rates within a step, in [−1, 1].
    pub correlation: f64,
}

/// `states = { hh = {...}, hl = {...}, lh = {...}, ll = {...} }`: all four states.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerStateRates {
    pub hh: StateRates,
    pub hl: StateRates,
    pub lh: StateRates,
    pub ll: StateRates,
}

impl PerStateRates {
    /// The four states in [`STATE_NAMES`] order.
    fn in_order(&self) -> [StateRates; 4] {
        [self.hh, self.hl, self.lh, self.ll]
    }
}

/// `{ kind = "markov_pair", p = 0.1, q = 0.67 }` under one link's `channel`; it drives that link
/// and a second one jointly. `states` replaces the per-level keys (`low_mean`, `low_std`,
/// `high_mean`, `high_std`, `rate_correlation`) and `transitions` replaces p and q: giving a
/// replaced key too is an error, and the resolved form leaves the replaced keys out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawMarkovPairConfig", into = "RawMarkovPairConfig")]
pub struct MarkovPairConfig {
    /// Name shared by the two links the pair drives (required); both links give the same
    /// parameters.
    pub group: String,
    /// Which link of the pair this is: 1 (the link that flips with probability p) or 2
    /// (required).
    pub member: u8,
    /// Probability that link 1 flips its level at a step, in [0, 1]. Default 0.1.
    pub p: f64,
    /// Probability that link 2 takes link 1's new level, in [0, 1]; the level correlation is
    /// 2q − 1. Default 0.5 (independent levels).
    pub q: f64,
    /// Time between transitions (and rate draws), > 0. Default `"100ms"`.
    pub step: Time,
    /// Mean rate in the Low level. Default `"3Gbps"`.
    pub low_mean: Rate,
    /// Standard deviation of the rate in the Low level. Default `"0.3Gbps"`.
    pub low_std: Rate,
    /// Mean rate in the High level. Default `"10Gbps"`.
    pub high_mean: Rate,
    /// Standard deviation of the rate in the High level. Default `"1Gbps"`.
    pub high_std: Rate,
    /// Correlation of the two links' rate draws within a step, in [−1, 1]. Default 0.
    pub rate_correlation: f64,
    /// State at time zero: `"hh"`, `"hl"`, `"lh"` or `"ll"`. Default `"hh"`.
    pub start: PairStart,
    /// Per-state joint Gaussians (§5.2.3) in place of the per-level keys. Default: none.
    /// (Boxed, as `transitions`, to keep `ChannelConfig` small.)
    pub states: Option<Box<PerStateRates>>,
    /// Transition matrix in place of p and q (ours): row = from, column = to, both in the order
    /// hh, hl, lh, ll; entries in [0, 1], rows summing to 1. Default: none.
    pub transitions: Option<Box<[[f64; 4]; 4]>>,
}

fn default_p() -> f64 {
    0.1
}
fn default_q() -> f64 {
    0.5
}
fn default_step() -> Time {
    Time(Duration::from_millis(100))
}
fn default_low_mean() -> Rate {
    Rate(3_000_000_000)
}
fn default_low_std() -> Rate {
    Rate(300_000_000)
}
fn default_high_mean() -> Rate {
    Rate(10_000_000_000)
}
fn default_high_std() -> Rate {
    Rate(1_000_000_000)
}

impl Default for MarkovPairConfig {
    fn default() -> MarkovPairConfig {
        MarkovPairConfig {
            group: "pair".into(),
            member: 1,
            p: default_p(),
            q: default_q(),
            step: default_step(),
            low_mean: default_low_mean(),
            low_std: default_low_std(),
            high_mean: default_high_mean(),
            high_std: default_high_std(),
            rate_correlation: 0.0,
            start: PairStart::Hh,
            states: None,
            transitions: None,
        }
    }
}

/// A `markov_pair` table as written: the keys that `states` or `transitions` replace are
/// optional, so that giving both can be refused and the resolved form can leave them out.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMarkovPairConfig {
    group: String,
    member: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    p: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    q: Option<f64>,
    #[serde(default = "default_step")]
    step: Time,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    low_mean: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    low_std: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    high_mean: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    high_std: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rate_correlation: Option<f64>,
    #[serde(default)]
    start: PairStart,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    states: Option<Box<PerStateRates>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    transitions: Option<Box<[[f64; 4]; 4]>>,
}

/// The names of the keys that were given.
fn given<const N: usize>(keys: [(&'static str, bool); N]) -> Vec<&'static str> {
    keys.into_iter().filter_map(|(name, present)| present.then_some(name)).collect()
}

impl TryFrom<RawMarkovPairConfig> for MarkovPairConfig {
    type Error = String;

    fn try_from(raw: RawMarkovPairConfig) -> Result<MarkovPairConfig, String> {
        let replaced = |by: &str, what: &str, keys: Vec<&str>| -> Result<(), String> {
            if keys.is_empty() {
                return Ok(());
            }
            let them = if keys.len() == 1 { "it" } else { "them" };
            Err(format!("{} cannot be given with {by}, which gives {what}; remove {them}", keys.join(", ")))
        };
        if raw.states.is_some() {
            let keys = given([
                ("low_mean", raw.low_mean.is_some()),
                ("low_std", raw.low_std.is_some()),
                ("high_mean", raw.high_mean.is_some()),
                ("high_std", raw.high_std.is_some()),
                ("rate_correlation", raw.rate_correlation.is_some()),
            ]);
            replaced("states", "the rates of every state", keys)?;
        }
        if raw.transitions.is_some() {
            let keys = given([("p", raw.p.is_some()), ("q", raw.q.is_some())]);
            replaced("transitions", "every transition probability", keys)?;
        }
        Ok(MarkovPairConfig {
            group: raw.group,
            member: raw.member,
            p: raw.p.unwrap_or_else(default_p),
            q: raw.q.unwrap_or_else(default_q),
            step: raw.step,
            low_mean: raw.low_mean.unwrap_or_else(default_low_mean),
            low_std: raw.low_std.unwrap_or_else(default_low_std),
            high_mean: raw.high_mean.unwrap_or_else(default_high_mean),
            high_std: raw.high_std.unwrap_or_else(default_high_std),
            rate_correlation: raw.rate_correlation.unwrap_or(0.0),
            start: raw.start,
            states: raw.states,
            transitions: raw.transitions,
        })
    }
}

impl From<MarkovPairConfig> for RawMarkovPairConfig {
    /// The resolved form: every key in effect, none that `states` or `transitions` replace.
    fn from(c: MarkovPairConfig) -> RawMarkovPairConfig {
        let levels = c.states.is_none();
        let seed = c.transitions.is_none();
        RawMarkovPairConfig {
            group: c.group,
            member: c.member,
            p: seed.then_some(c.p),
            q: seed.then_some(c.q),
            step: c.step,
            low_mean: levels.then_some(c.low_mean),
            low_std: levels.then_some(c.low_std),
            high_mean: levels.then_some(c.high_mean),
            high_std: levels.then_some(c.high_std),
            rate_correlation: levels.then_some(c.rate_correlation),
            start: c.start,
            states: c.states,
            transitions: c.transitions,
        }
    }
}

/// How much a row of `transitions` may differ from summing to 1 (rounding in hand-written or
/// printed matrices); the last column takes whatever the others leave.
const ROW_SUM_TOLERANCE: f64 = 1e-6;

/// The rates of both links from `now` until `next_change`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairStep {
    /// Bit rates of link 1 and link 2, bit/s.
    pub rates_bps: [u64; 2],
    /// Levels of link 1 and link 2.
    pub levels: [Level; 2],
    /// When the rates change next; `None` when they never change again.
    pub next_change: Option<SimTime>,
}

/// How the state moves at each step.
#[derive(Clone, Debug)]
enum Transitions {
    /// The paper's chain (§5.1): link 1 flips with p, link 2 takes link 1's level with q.
    Seed { p: f64, q: f64 },
    /// A full transition matrix, rows and columns in [`STATE_NAMES`] order.
    Matrix([[f64; 4]; 4]),
}

/// Fig. 7 of Wu et al.: P(from → to) over the states HH, HL, LH, LL.
fn fig7(p: f64, q: f64) -> [[f64; 4]; 4] {
    let from_high = [(1.0 - p) * q, (1.0 - p) * (1.0 - q), p * (1.0 - q), p * q];
    let from_low = [p * q, p * (1.0 - q), (1.0 - p) * (1.0 - q), (1.0 - p) * q];
    [from_high, from_high, from_low, from_low]
}

/// The process of a [`MarkovPairConfig`].
#[derive(Clone, Debug)]
pub struct MarkovPair {
    transitions: Transitions,
    /// P(s → s) per state, to know when nothing can change any more.
    stay: [f64; 4],
    step: Duration,
    /// Per state (HH, HL, LH, LL) and link: (mean, standard deviation) of the rate in bit/s.
    rates: [[(f64, f64); 2]; 4],
    /// Per state: correlation of the two links' rate draws.
    rho: [f64; 4],
    /// Levels from the next call to `step` on.
    levels: [Level; 2],
    /// False before the first call (time zero keeps the start state).
    started: bool,
}

impl MarkovPair {
    pub fn new(config: &MarkovPairConfig, ctx: &InputContext) -> Result<MarkovPair, InputError> {
        let correlation = |key: &str, value: f64| {
            if (-1.0..=1.0).contains(&value) {
                Ok(value)
            } else {
                Err(ctx.error(key, format!("{value} is not a correlation; must be in [-1, 1]")))
            }
        };
        for (name, value) in [("p", config.p), ("q", config.q)] {
            if !(0.0..=1.0).contains(&value) {
                return Err(ctx.error(name, format!("{value} is not a probability; must be in [0, 1]")));
            }
        }
        correlation("rate_correlation", config.rate_correlation)?;
        if config.step.0 == Duration::ZERO {
            return Err(ctx.error("step", "must be a time greater than zero, e.g. \"100ms\""));
        }
        let (rates, rho) = match &config.states {
            None => {
                let low = (config.low_mean.0 as f64, config.low_std.0 as f64);
                let high = (config.high_mean.0 as f64, config.high_std.0 as f64);
                let of = |level| if level == Level::High { high } else { low };
                let rates = [0, 1, 2, 3].map(|s| state_levels(s).map(of));
                (rates, [config.rate_correlation; 4])
            }
            Some(states) => {
                let states = states.in_order();
                let mut rho = [0.0; 4];
                for (s, state) in states.iter().enumerate() {
                    let key = format!("states.{}.correlation", STATE_NAMES[s]);
                    rho[s] = correlation(&key, state.correlation)?;
                }
                let rates =
                    states.map(|state| [0, 1].map(|i| (state.mean[i].0 as f64, state.std[i].0 as f64)));
                (rates, rho)
            }
        };
        let (transitions, matrix) = match config.transitions.as_deref() {
            None => (Transitions::Seed { p: config.p, q: config.q }, fig7(config.p, config.q)),
            Some(&matrix) => {
                check_matrix(&matrix, ctx)?;
                (Transitions::Matrix(matrix), matrix)
            }
        };
        Ok(MarkovPair {
            transitions,
            stay: [0, 1, 2, 3].map(|s| matrix[s][s]),
            step: config.step.0,
            rates,
            rho,
            levels: config.start.levels(),
            started: false,
        })
    }

    /// Called once at time zero (the start state) and then at each `next_change`: moves to the
    /// next state (after time zero) and draws both rates. `rng` is the pair's own stream.
    pub fn step(&mut self, now: SimTime, rng: &mut Rng) -> PairStep {
        if self.started {
            self.levels = match &self.transitions {
                Transitions::Seed { p, q } => {
                    let first = if rng.bernoulli(*p) { self.levels[0].other() } else { self.levels[0] };
                    let second = if rng.bernoulli(*q) { first } else { first.other() };
                    [first, second]
                }
                Transitions::Matrix(matrix) => {
                    let row = matrix[state_index(self.levels)];
                    let u = rng.uniform();
                    let mut below = 0.0;
                    let next = (0..3).find(|&to| {
                        below += row[to];
                        u < below
                    });
                    state_levels(next.unwrap_or(3))
                }
            };
        }
        self.started = true;
        let s = state_index(self.levels);
        let rho = self.rho[s];
        let (z1, z2) = (rng.standard_normal(), rng.standard_normal());
        let z = [z1, rho * z1 + libm::sqrt(1.0 - rho * rho) * z2];
        let rates_bps = [0, 1].map(|i| {
            let (mean, std) = self.rates[s][i];
            // `as` saturates beyond u64::MAX; the clamp keeps it at 0 below.
            libm::round((mean + std * z[i]).max(0.0)) as u64
        });
        // Nothing changes any more once the state cannot be left and its rates do not spread.
        let settled = self.stay[s] == 1.0 && self.rates[s].iter().all(|&(_, std)| std == 0.0);
        let next_change = (!settled).then(|| now + self.step);
        PairStep { rates_bps, levels: self.levels, next_change }
    }
}

/// Entries of `transitions` in [0, 1], each row summing to 1.
fn check_matrix(matrix: &[[f64; 4]; 4], ctx: &InputContext) -> Result<(), InputError> {
    for (from, row) in matrix.iter().enumerate() {
        for (to, &value) in row.iter().enumerate() {
            if !(0.0..=1.0).contains(&value) {
                return Err(ctx.error(
                    &format!("transitions[{from}][{to}]"),
                    format!(
                        "{value} is not a probability; must be in [0, 1] (row {from} is from {}, column {to} to {})",
                        STATE_NAMES[from], STATE_NAMES[to]
                    ),
                ));
            }
        }
        let sum: f64 = row.iter().sum();
        if (sum - 1.0).abs() > ROW_SUM_TOLERANCE {
            return Err(ctx.error(
                &format!("transitions[{from}]"),
                format!(
                    "the probabilities from {} sum to {sum}; each row (from one state to hh, hl, lh, ll) must sum to 1",
                    STATE_NAMES[from]
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn ctx() -> InputContext<'static> {
        InputContext { scenario_file: "s.toml", field: "link[2].channel", base_dir: Path::new(".") }
    }

    fn pair(p: f64, q: f64) -> MarkovPair {
        MarkovPair::new(&MarkovPairConfig { p, q, ..MarkovPairConfig::default() }, &ctx()).unwrap()
    }

    /// `n` steps as the links would drive them.
    fn run(process: &mut MarkovPair, seed: u64, n: usize) -> Vec<PairStep> {
        let mut rng = Rng::for_component(seed, "link/ap1-d+ap2-d/channel");
        let mut now = SimTime::ZERO;
        (0..n)
            .map(|_| {
                let step = process.step(now, &mut rng);
                now = step.next_change.unwrap_or(now);
                step
            })
            .collect()
    }

    fn state(levels: [Level; 2]) -> usize {
        match levels {
            [Level::High, Level::High] => 0,
            [Level::High, Level::Low] => 1,
            [Level::Low, Level::High] => 2,
            [Level::Low, Level::Low] => 3,
        }
    }

    /// Fig. 7 of Wu et al.: P(from → to) over the states HH, HL, LH, LL.
    fn fig7(p: f64, q: f64) -> [[f64; 4]; 4] {
        let from_high = [(1.0 - p) * q, (1.0 - p) * (1.0 - q), p * (1.0 - q), p * q];
        let from_low = [p * q, p * (1.0 - q), (1.0 - p) * (1.0 - q), (1.0 - p) * q];
        [from_high, from_high, from_low, from_low]
    }

    #[test]
    fn test_transition_frequencies_match_fig7() {
        for (p, q) in [(0.3, 0.67), (0.1, 0.33), (0.5, 0.5)] {
            let steps = run(&mut pair(p, q), 11, 100_001);
            let mut counts = [[0u32; 4]; 4];
            for w in steps.windows(2) {
                counts[state(w[0].levels)][state(w[1].levels)] += 1;
            }
            let expected = fig7(p, q);
            for from in 0..4 {
                let total: u32 = counts[from].iter().sum();
                assert!(total > 10_000, "state {from} visited {total} times");
                for to in 0..4 {
                    let freq = counts[from][to] as f64 / total as f64;
                    assert!(
                        (freq - expected[from][to]).abs() < 0.02,
                        "p {p} q {q}: {from}→{to} {freq} vs {}",
                        expected[from][to]
                    );
                }
            }
        }
    }

    #[test]
    fn test_level_correlation_is_2q_minus_1() {
        for q in [0.33, 0.5, 0.67] {
            let steps = run(&mut pair(0.2, q), 5, 100_000);
            let x = |l: Level| if l == Level::High { 1.0 } else { -1.0 };
            let n = steps.len() as f64;
            let (m1, m2) =
                steps.iter().fold((0.0, 0.0), |(a, b), s| (a + x(s.levels[0]) / n, b + x(s.levels[1]) / n));
            let cov = steps.iter().map(|s| (x(s.levels[0]) - m1) * (x(s.levels[1]) - m2)).sum::<f64>() / n;
            let v1 = steps.iter().map(|s| (x(s.levels[0]) - m1).powi(2)).sum::<f64>() / n;
            let v2 = steps.iter().map(|s| (x(s.levels[1]) - m2).powi(2)).sum::<f64>() / n;
            let corr = cov / libm::sqrt(v1 * v2);
            assert!((corr - (2.0 * q - 1.0)).abs() < 0.02, "q {q}: correlation {corr}");
        }
    }

    #[test]
    fn test_rates_per_level_have_the_stated_mean_and_spread() {
        let config =
            MarkovPairConfig { p: 0.3, q: 0.5, rate_correlation: 0.6, ..MarkovPairConfig::default() };
        let steps = run(&mut MarkovPair::new(&config, &ctx()).unwrap(), 9, 100_000);
        for (level, mean, std) in [(Level::Low, 3e9, 0.3e9), (Level::High, 10e9, 1e9)] {
            for link in 0..2 {
                let rates: Vec<f64> = steps
                    .iter()
                    .filter(|s| s.levels[link] == level)
                    .map(|s| s.rates_bps[link] as f64)
                    .collect();
                let n = rates.len() as f64;
                let m = rates.iter().sum::<f64>() / n;
                let sd = libm::sqrt(rates.iter().map(|r| (r - m) * (r - m)).sum::<f64>() / n);
                // Standard error of the mean is sd/√n ≈ sd/220: allow 5 of them; the spread within 2 %.
                assert!((m - mean).abs() < 5.0 * std / libm::sqrt(n), "{level:?} link {link}: mean {m}");
                assert!((sd / std - 1.0).abs() < 0.02, "{level:?} link {link}: sd {sd}");
            }
        }
        // Within-step correlation of the draws, measured where both links are High.
        let both: Vec<(f64, f64)> = steps
            .iter()
            .filter(|s| s.levels == [Level::High, Level::High])
            .map(|s| ((s.rates_bps[0] as f64 - 10e9) / 1e9, (s.rates_bps[1] as f64 - 10e9) / 1e9))
            .collect();
        let corr = both.iter().map(|(a, b)| a * b).sum::<f64>() / both.len() as f64;
        assert!((corr - 0.6).abs() < 0.03, "rate correlation {corr}");
    }

    #[test]
    fn test_start_state_schedule_and_determinism() {
        let config = MarkovPairConfig { start: PairStart::Lh, ..MarkovPairConfig::default() };
        let mut process = MarkovPair::new(&config, &ctx()).unwrap();
        let steps = run(&mut process, 1, 3);
        assert_eq!(steps[0].levels, [Level::Low, Level::High]);
        assert_eq!(steps[0].next_change, Some(SimTime::ZERO + Duration::from_millis(100)));
        assert_eq!(steps[2].next_change, Some(SimTime::ZERO + Duration::from_millis(300)));
        assert_eq!(run(&mut pair(0.3, 0.6), 4, 200), run(&mut pair(0.3, 0.6), 4, 200));
        assert_ne!(run(&mut pair(0.3, 0.6), 4, 200), run(&mut pair(0.3, 0.6), 5, 200));
        // No randomness left: constant.
        let fixed = MarkovPairConfig {
            p: 0.0,
            q: 1.0,
            low_std: Rate(0),
            high_std: Rate(0),
            start: PairStart::Hh,
            ..MarkovPairConfig::default()
        };
        let step =
            MarkovPair::new(&fixed, &ctx()).unwrap().step(SimTime::ZERO, &mut Rng::for_component(1, "c"));
        assert_eq!(
            step,
            PairStep { rates_bps: [10_000_000_000; 2], levels: [Level::High; 2], next_change: None }
        );
    }

    #[test]
    fn test_config_defaults_and_errors_name_the_key() {
        let c: MarkovPairConfig = toml::from_str("group = \"pair\"\nmember = 1").unwrap();
        assert_eq!(c, MarkovPairConfig::default());
        assert!(toml::from_str::<MarkovPairConfig>("").unwrap_err().to_string().contains("group"));
        assert_eq!(
            (c.p, c.q, c.step, c.low_std),
            (0.1, 0.5, Time(Duration::from_millis(100)), Rate(300_000_000))
        );
        let text = "group = \"g\"\nmember = 2\nq = 0.67\nstart = \"ll\"\nlow_std = \"0.3Gbps\"";
        let c: MarkovPairConfig = toml::from_str(text).unwrap();
        assert_eq!((c.q, c.start), (0.67, PairStart::Ll));
        let resolved = toml::to_string(&c).unwrap();
        assert_eq!(toml::from_str::<MarkovPairConfig>(&resolved).unwrap(), c, "{resolved}");
        let err = toml::from_str::<MarkovPairConfig>("group = \"g\"\nmember = 1\npp = 0.3")
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `pp`"), "{err}");

        for (config, field, needle) in [
            (MarkovPairConfig { p: 1.5, ..MarkovPairConfig::default() }, "link[2].channel.p", "[0, 1]"),
            (MarkovPairConfig { p: -0.1, ..MarkovPairConfig::default() }, "link[2].channel.p", "[0, 1]"),
            (MarkovPairConfig { q: 2.0, ..MarkovPairConfig::default() }, "link[2].channel.q", "[0, 1]"),
            (MarkovPairConfig { q: f64::NAN, ..MarkovPairConfig::default() }, "link[2].channel.q", "[0, 1]"),
            (
                MarkovPairConfig { rate_correlation: 1.1, ..MarkovPairConfig::default() },
                "link[2].channel.rate_correlation",
                "[-1, 1]",
            ),
            (
                MarkovPairConfig { step: Time(Duration::ZERO), ..MarkovPairConfig::default() },
                "link[2].channel.step",
                "greater than zero",
            ),
        ] {
            let err = MarkovPair::new(&config, &ctx()).unwrap_err();
            assert_eq!((err.file.as_str(), err.field.as_str()), ("s.toml", field));
            assert!(err.message.contains(needle), "{}", err.message);
        }
    }

    // ---- per-state rates (§5.2.3) and the transition matrix ----------------------------------

    /// A joint Gaussian with each link's mean and standard deviation in Gbit/s.
    fn gauss(mean: [f64; 2], std: [f64; 2], correlation: f64) -> StateRates {
        let rate = |gbps: f64| Rate(libm::round(gbps * 1e9) as u64);
        StateRates { mean: mean.map(rate), std: std.map(rate), correlation }
    }

    /// Four states with different means, spreads and correlations (means ≥ 10σ: no clamping).
    fn fitted_states() -> PerStateRates {
        PerStateRates {
            hh: gauss([9.0, 8.0], [0.9, 0.4], 0.6),
            hl: gauss([7.0, 2.0], [0.5, 0.2], -0.5),
            lh: gauss([3.0, 6.0], [0.3, 0.6], 0.0),
            ll: gauss([2.5, 3.5], [0.2, 0.3], 0.9),
        }
    }

    /// Mean, standard deviation and correlation of the two links' rates over `steps` in state `s`.
    fn moments(steps: &[PairStep], s: usize) -> ([f64; 2], [f64; 2], f64, usize) {
        let rows: Vec<[f64; 2]> = steps
            .iter()
            .filter(|step| state(step.levels) == s)
            .map(|step| step.rates_bps.map(|r| r as f64))
            .collect();
        let n = rows.len() as f64;
        let mean = [0, 1].map(|i| rows.iter().map(|r| r[i]).sum::<f64>() / n);
        let cov =
            |i: usize, j: usize| rows.iter().map(|r| (r[i] - mean[i]) * (r[j] - mean[j])).sum::<f64>() / n;
        let std = [libm::sqrt(cov(0, 0)), libm::sqrt(cov(1, 1))];
        (mean, std, cov(0, 1) / (std[0] * std[1]), rows.len())
    }

    #[test]
    fn test_per_state_rates_have_the_stated_means_spreads_and_correlations() {
        // p = 0.3, q = 0.5: each state holds about a quarter of 10⁵ steps, n ≈ 25 000.
        let config = MarkovPairConfig {
            p: 0.3,
            q: 0.5,
            states: Some(Box::new(fitted_states())),
            ..MarkovPairConfig::default()
        };
        let steps = run(&mut MarkovPair::new(&config, &ctx()).unwrap(), 21, 100_000);
        for (s, expected) in fitted_states().in_order().iter().enumerate() {
            let (mean, std, corr, n) = moments(&steps, s);
            assert!(n > 20_000, "state {s} visited {n} times");
            for i in 0..2 {
                let (m, sd) = (expected.mean[i].0 as f64, expected.std[i].0 as f64);
                // The mean within 5 standard errors sd/√n; the spread within 3 % (its standard
                // error is about 1/√(2n) ≈ 0.45 %).
                assert!(
                    (mean[i] - m).abs() < 5.0 * sd / libm::sqrt(n as f64),
                    "state {s} link {i}: mean {}",
                    mean[i]
                );
                assert!((std[i] / sd - 1.0).abs() < 0.03, "state {s} link {i}: sd {}", std[i]);
            }
            // The standard error of a correlation is about (1 − ρ²)/√n ≤ 0.0063: allow 0.03.
            assert!((corr - expected.correlation).abs() < 0.03, "state {s}: correlation {corr}");
        }
    }

    #[test]
    fn test_per_level_keys_draw_as_before_and_as_the_equivalent_states() {
        // Pinned from the model before per-state rates existed: the per-level keys keep their
        // draws, their order and the arithmetic bit for bit.
        let config = MarkovPairConfig {
            p: 0.3,
            q: 0.6,
            rate_correlation: 0.5,
            start: PairStart::Lh,
            ..MarkovPairConfig::default()
        };
        let steps = run(&mut MarkovPair::new(&config, &ctx()).unwrap(), 42, 8);
        let (h, l) = (Level::High, Level::Low);
        let pinned = [
            ([3418570493, 10779423389], [l, h]),
            ([2530378251, 2518101164], [l, l]),
            ([2724485045, 9034979146], [l, h]),
            ([8790240340, 9367217802], [h, h]),
            ([8886755811, 9429099453], [h, h]),
            ([10085485296, 2984118194], [h, l]),
            ([9169211736, 8498070789], [h, h]),
            ([10168628267, 3096364778], [h, l]),
        ];
        assert_eq!(steps.iter().map(|s| (s.rates_bps, s.levels)).collect::<Vec<_>>(), pinned);
        // The same model written per state draws the same numbers.
        let (high, low) = (gauss([10.0, 10.0], [1.0, 1.0], 0.5), gauss([3.0, 3.0], [0.3, 0.3], 0.5));
        let mixed = |a: StateRates, b: StateRates| StateRates {
            mean: [a.mean[0], b.mean[1]],
            std: [a.std[0], b.std[1]],
            ..a
        };
        let states = PerStateRates { hh: high, hl: mixed(high, low), lh: mixed(low, high), ll: low };
        let per_state = MarkovPairConfig { states: Some(Box::new(states)), ..config.clone() };
        assert_eq!(
            run(&mut MarkovPair::new(&per_state, &ctx()).unwrap(), 42, 2000),
            run(&mut MarkovPair::new(&config, &ctx()).unwrap(), 42, 2000)
        );
    }

    #[test]
    fn test_transition_matrix_frequencies() {
        // Not a (p, q) chain: link 2 keeps its own level with 0.8 whatever link 1 does.
        let matrix = [
            [0.72, 0.08, 0.18, 0.02],
            [0.08, 0.72, 0.02, 0.18],
            [0.18, 0.02, 0.72, 0.08],
            [0.02, 0.18, 0.08, 0.72 - 1e-7],
        ];
        let config = MarkovPairConfig { transitions: Some(Box::new(matrix)), ..MarkovPairConfig::default() };
        let steps = run(&mut MarkovPair::new(&config, &ctx()).unwrap(), 3, 100_001);
        let mut counts = [[0u32; 4]; 4];
        for w in steps.windows(2) {
            counts[state(w[0].levels)][state(w[1].levels)] += 1;
        }
        for from in 0..4 {
            let total: u32 = counts[from].iter().sum();
            assert!(total > 20_000, "state {from} visited {total} times");
            for to in 0..4 {
                let freq = counts[from][to] as f64 / total as f64;
                assert!(
                    (freq - matrix[from][to]).abs() < 0.02,
                    "{from}→{to}: {freq} vs {}",
                    matrix[from][to]
                );
            }
        }
    }

    #[test]
    fn test_settles_only_in_a_state_it_cannot_leave() {
        // p = 0, q = 0 from HH: link 2 must move to L once; then HL holds and nothing spreads.
        let config = MarkovPairConfig {
            p: 0.0,
            q: 0.0,
            low_std: Rate(0),
            high_std: Rate(0),
            start: PairStart::Hh,
            ..MarkovPairConfig::default()
        };
        let steps = run(&mut MarkovPair::new(&config, &ctx()).unwrap(), 1, 3);
        assert_eq!(steps[0].levels, [Level::High, Level::High]);
        assert_eq!(steps[0].next_change, Some(SimTime::ZERO + Duration::from_millis(100)));
        assert_eq!(steps[1].levels, [Level::High, Level::Low]);
        assert_eq!(steps[1].rates_bps, [10_000_000_000, 3_000_000_000]);
        assert_eq!(steps[1].next_change, None);
        // An absorbing state of a matrix whose rates spread keeps stepping.
        let mut identity = [[0.0; 4]; 4];
        (0..4).for_each(|s| identity[s][s] = 1.0);
        let config =
            MarkovPairConfig { transitions: Some(Box::new(identity)), ..MarkovPairConfig::default() };
        let steps = run(&mut MarkovPair::new(&config, &ctx()).unwrap(), 1, 3);
        assert!(steps.iter().all(|s| s.levels == [Level::High; 2] && s.next_change.is_some()));
    }

    #[test]
    fn test_states_and_transitions_keys() {
        let text = r#"
group = "g"
member = 2
transitions = [[0.7, 0.1, 0.1, 0.1], [0, 1, 0, 0], [0.25, 0.25, 0.25, 0.25], [0.1, 0.2, 0.3, 0.4]]
[states]
hh = { mean = ["9Gbps", "8Gbps"], std = ["0.9Gbps", "0.4Gbps"], correlation = 0.6 }
hl = { mean = ["7Gbps", "2Gbps"], std = ["0.5Gbps", "0.2Gbps"], correlation = -0.5 }
lh = { mean = ["3Gbps", "6Gbps"], std = ["0.3Gbps", "0.6Gbps"], correlation = 0 }
ll = { mean = ["2.5Gbps", "3.5Gbps"], std = ["0.2Gbps", "0.3Gbps"], correlation = 0.9 }
"#;
        let c: MarkovPairConfig = toml::from_str(text).unwrap();
        assert_eq!(c.states.as_deref(), Some(&fitted_states()));
        assert_eq!(c.transitions.as_deref().unwrap()[1], [0.0, 1.0, 0.0, 0.0]);
        assert!(MarkovPair::new(&c, &ctx()).is_ok());
        // The resolved form holds the keys in effect only, and reads back the same.
        let resolved = toml::to_string(&c).unwrap();
        for replaced in ["p =", "q =", "low_mean", "high_std", "rate_correlation"] {
            assert!(!resolved.lines().any(|l| l.starts_with(replaced)), "{replaced} in {resolved}");
        }
        assert_eq!(toml::from_str::<MarkovPairConfig>(&resolved).unwrap(), c, "{resolved}");
        let plain = toml::to_string(&MarkovPairConfig::default()).unwrap();
        assert!(
            !plain.contains("states") && !plain.contains("transitions") && plain.contains("low_mean"),
            "{plain}"
        );

        // A replaced key given too, a missing state, an unknown key in a state.
        for (extra, needle) in [
            (
                "low_mean = \"3Gbps\"\nrate_correlation = 0.1\n",
                "low_mean, rate_correlation cannot be given with states",
            ),
            ("p = 0.2\n", "p cannot be given with transitions"),
        ] {
            let err = toml::from_str::<MarkovPairConfig>(&format!("{extra}{text}")).unwrap_err().to_string();
            assert!(err.contains(needle), "{err}");
        }
        let err =
            toml::from_str::<MarkovPairConfig>(&text.replace("hl = ", "hx = ")).unwrap_err().to_string();
        assert!(err.contains("hx"), "{err}");
        let err = toml::from_str::<MarkovPairConfig>(&text.replace(", correlation = 0 }", " }"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("correlation"), "{err}");
    }

    #[test]
    fn test_bad_states_and_transitions_name_the_key() {
        let with_state = |correlation: f64| {
            let mut states = fitted_states();
            states.lh.correlation = correlation;
            MarkovPairConfig { states: Some(Box::new(states)), ..MarkovPairConfig::default() }
        };
        let with_matrix = |from: usize, row: [f64; 4]| {
            let mut matrix = [[0.25; 4]; 4];
            matrix[from] = row;
            MarkovPairConfig { transitions: Some(Box::new(matrix)), ..MarkovPairConfig::default() }
        };
        for (config, field, message) in [
            (
                with_state(1.5),
                "link[2].channel.states.lh.correlation",
                "1.5 is not a correlation; must be in [-1, 1]",
            ),
            (with_state(f64::NAN), "link[2].channel.states.lh.correlation", "NaN is not a correlation"),
            (
                with_matrix(2, [0.5, 0.5, 1.5, -1.5]),
                "link[2].channel.transitions[2][2]",
                "1.5 is not a probability; must be in [0, 1] (row 2 is from lh, column 2 to lh)",
            ),
            (
                with_matrix(1, [0.5, 0.5, 0.5, 0.0]),
                "link[2].channel.transitions[1]",
                "the probabilities from hl sum to 1.5",
            ),
            (with_matrix(3, [0.3, 0.3, 0.3, 0.0]), "link[2].channel.transitions[3]", "from ll sum to 0.8"),
        ] {
            let err = MarkovPair::new(&config, &ctx()).unwrap_err();
            assert_eq!((err.file.as_str(), err.field.as_str()), ("s.toml", field));
            assert!(err.message.contains(message), "{}", err.message);
        }
    }
}
