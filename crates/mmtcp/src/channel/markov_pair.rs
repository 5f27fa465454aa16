//! COTAG's four-state Markov model of two correlated mmWave links (seed 000, Ahmad/COTAG §5.1,
//! Figs. 6–7, and §5.3.1).
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
//! 2q − 1 (the seed's link correlations −0.34 / 0 / +0.34 are q = 0.33 / 0.5 / 0.67). Link 2's
//! level is also a Markov chain: it equals link 1's with probability q at every step.
//!
//! Within a state, the rates are Gaussian (§5.3.1): Low mean 3 Gbit/s, High mean 10 Gbit/s, with
//! spreads 0.3 and 1 Gbit/s (the seed says "variances"; read as standard deviations, since a
//! variance in Gbit/s is not a rate), drawn afresh every step, clamped at 0 and rounded to whole
//! bit/s. `rate_correlation` ρ correlates the two links' draws within a step (the seed's
//! measurement-based model used a joint Gaussian per state, §5.2.1; its value is not given:
//! default 0). p is not stated by the seed: a parameter (default 0.1, a mean sojourn of 1 s per
//! level of link 1 at 100 ms steps).

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

/// `{ kind = "markov_pair", p = 0.1, q = 0.67 }` under one link's `channel`; it drives that link
/// and a second one jointly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkovPairConfig {
    /// Name shared by the two links the pair drives (required); both links give the same
    /// parameters.
    pub group: String,
    /// Which link of the pair this is: 1 (the link that flips with probability p) or 2
    /// (required).
    pub member: u8,
    /// Probability that link 1 flips its level at a step, in [0, 1]. Default 0.1.
    #[serde(default = "default_p")]
    pub p: f64,
    /// Probability that link 2 takes link 1's new level, in [0, 1]; the level correlation is
    /// 2q − 1. Default 0.5 (independent levels).
    #[serde(default = "default_q")]
    pub q: f64,
    /// Time between transitions (and rate draws), > 0. Default `"100ms"`.
    #[serde(default = "default_step")]
    pub step: Time,
    /// Mean rate in the Low level. Default `"3Gbps"`.
    #[serde(default = "default_low_mean")]
    pub low_mean: Rate,
    /// Standard deviation of the rate in the Low level. Default `"0.3Gbps"`.
    #[serde(default = "default_low_std")]
    pub low_std: Rate,
    /// Mean rate in the High level. Default `"10Gbps"`.
    #[serde(default = "default_high_mean")]
    pub high_mean: Rate,
    /// Standard deviation of the rate in the High level. Default `"1Gbps"`.
    #[serde(default = "default_high_std")]
    pub high_std: Rate,
    /// Correlation of the two links' rate draws within a step, in [−1, 1]. Default 0.
    #[serde(default)]
    pub rate_correlation: f64,
    /// State at time zero: `"hh"`, `"hl"`, `"lh"` or `"ll"`. Default `"hh"`.
    #[serde(default)]
    pub start: PairStart,
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
        }
    }
}

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

/// The process of a [`MarkovPairConfig`].
#[derive(Clone, Debug)]
pub struct MarkovPair {
    p: f64,
    q: f64,
    step: Duration,
    /// (mean, standard deviation) in bit/s of Low and High.
    low: (f64, f64),
    high: (f64, f64),
    rho: f64,
    /// Levels from the next call to `step` on.
    levels: [Level; 2],
    /// False before the first call (time zero keeps the start state).
    started: bool,
}

impl MarkovPair {
    pub fn new(config: &MarkovPairConfig, ctx: &InputContext) -> Result<MarkovPair, InputError> {
        for (name, value) in [("p", config.p), ("q", config.q)] {
            if !(0.0..=1.0).contains(&value) {
                return Err(ctx.error(name, format!("{value} is not a probability; must be in [0, 1]")));
            }
        }
        if !(-1.0..=1.0).contains(&config.rate_correlation) {
            return Err(ctx.error(
                "rate_correlation",
                format!("{} is not a correlation; must be in [-1, 1]", config.rate_correlation),
            ));
        }
        if config.step.0 == Duration::ZERO {
            return Err(ctx.error("step", "must be a time greater than zero, e.g. \"100ms\""));
        }
        Ok(MarkovPair {
            p: config.p,
            q: config.q,
            step: config.step.0,
            low: (config.low_mean.0 as f64, config.low_std.0 as f64),
            high: (config.high_mean.0 as f64, config.high_std.0 as f64),
            rho: config.rate_correlation,
            levels: config.start.levels(),
            started: false,
        })
    }

    /// True when neither the levels nor the rates can ever change.
    fn is_constant(&self) -> bool {
        let levels_fixed = self.p == 0.0 && (self.q == 0.0 || self.q == 1.0);
        levels_fixed && self.low.1 == 0.0 && self.high.1 == 0.0
    }

    /// Called once at time zero (the start state) and then at each `next_change`: moves to the
    /// next state (after time zero) and draws both rates. `rng` is the pair's own stream.
    pub fn step(&mut self, now: SimTime, rng: &mut Rng) -> PairStep {
        if self.started {
            let first = if rng.bernoulli(self.p) { self.levels[0].other() } else { self.levels[0] };
            let second = if rng.bernoulli(self.q) { first } else { first.other() };
            self.levels = [first, second];
        }
        self.started = true;
        let (z1, z2) = (rng.standard_normal(), rng.standard_normal());
        let z = [z1, self.rho * z1 + libm::sqrt(1.0 - self.rho * self.rho) * z2];
        let rates_bps = [0, 1].map(|i| {
            let (mean, std) = match self.levels[i] {
                Level::Low => self.low,
                Level::High => self.high,
            };
            // `as` saturates beyond u64::MAX; the clamp keeps it at 0 below.
            libm::round((mean + std * z[i]).max(0.0)) as u64
        });
        let next_change = (!self.is_constant()).then(|| now + self.step);
        PairStep { rates_bps, levels: self.levels, next_change }
    }
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

    /// Fig. 7 of seed 000: P(from → to) over the states HH, HL, LH, LL.
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
}
