//! The synthetic generator of Drago et al.'s two measurement scenarios (§IV),
//! `source = { kind = "synthetic", scenario = "a" | "b" }`: the received power of every beam pair
//! over the paths of a room (`room.rs`, `antenna.rs`; powers add over paths in mW, no phases: a
//! power average over small-scale fading) while a blocker walks back and forth across the link
//! between y = −travel and +travel at `speed`, attenuating each path (`blockage.rs`).
//!
//! | | scenario A (lab, trolley) | scenario B (cubicle aisle, manikin) |
//! |---|---|---|
//! | d, heights TX/RX | 3 m, 1 m / 1 m | 3.5 m, 1.6 m / 1 m |
//! | walls (y, reflection loss) | +0.9 m rack 6 dB; −1.2 m plasterboard 8 dB | ±1 m partitions 10 / 12 dB |
//! | blocker w × h, travel | 0.5 × 1.2 m, ±0.6 m | 0.45 × 1.9 m, ±0.7 m |
//! | motion | 0.2 m/s in 0.2 m steps, interpolated | 0.1 m/s, continuous |
//! | TX power (default) | −22 dBm | −10 dBm |
//!
//! Stated by Drago et al.: distances, heights, 0.2 m steps (A), 1.9 m manikin at 0.1 m/s (B), rich
//! reflections in A, antenna gains and beamwidths. Assumed: wall positions and losses, blocker
//! widths, the trolley's height and speed, the transmit powers (chosen so that the unblocked
//! SNR is 24–27 dB, MCS 12 with a few dB to spare, and blockage moves the link down the MCS
//! range as the paper's Fig. 6a shows). Scenario A's blocker moves in 0.2 m steps like the
//! measurement, and the per-path blockage (dB) is interpolated linearly in time between steps,
//! as the seed interpolates its measurements. Each sample (every `interval`, default 10 ms) adds
//! an independent Gaussian variation of `jitter_db` (default 0.3 dB) to every pair's power, drawn
//! from the link's random stream (by the SINR process, `channel.rs`). Not modelled: the blocker
//! as a reflector, small-scale fading.
//!
//! Two keys move the depths the geometry gives, for the readings the paper leaves open:
//! `blockage_db` scales every path's knife-edge loss by one factor so that the LOS, with the
//! blocker centred on it, loses exactly that many dB (Drago et al. §I: 15 dB for a hand [12] to 35 dB
//! for a whole body [13]; the knife edge alone gives 17.5 / 18.5 dB), and `reflection_loss_db`
//! replaces every wall's reflection loss (docs/models/ieee80211ad.md gives the range a 60 GHz
//! reflection spans). With both deep enough no pair clears the lowest MCS while the blocker
//! stands on the LOS: the link is in outage.

use super::beam_pairs::{pair_angles, PAIRS};
use super::blockage::screen_attenuation_db;
use super::config::{Scenario, SyntheticConfig};
use super::power::from_db;
use super::room::{lay_out, PathGeometry, MAX_PATHS, ROOM_A, ROOM_B, SPEED_OF_LIGHT};
use crate::error::InputContext;
use crate::error::InputError;
use crate::sim::Duration;
use crate::units::Time;
use std::fmt::Write as _;

/// The synthetic beam-pair channel of a [`SyntheticConfig`], validated.
#[derive(Clone, Debug)]
pub struct SyntheticChannel {
    paths: Vec<PathGeometry>,
    wavelength: f64,
    blocker_width: f64,
    blocker_height: f64,
    travel: f64,
    position_step: f64,
    /// Factor on the knife-edge loss of every path: `blockage_db` over the LOS's own knife-edge
    /// depth (1 when `blockage_db` is not given).
    depth_scale: f64,
    interval: Duration,
    /// Samples per period of the back-and-forth walk.
    samples: u64,
    pub(super) jitter_db: f64,
}

impl SyntheticChannel {
    /// Validates `config` (errors name `source.<key>` of the channel table) and lays out the room.
    pub fn new(config: &SyntheticConfig, ctx: &InputContext) -> Result<SyntheticChannel, InputError> {
        let key = |k: &str| format!("source.{k}");
        for (name, value) in [
            ("speed", config.speed),
            ("travel", config.travel),
            ("blocker_width", config.blocker_width),
            ("blocker_height", config.blocker_height),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(ctx.error(&key(name), format!("{value} is not allowed; must be a number > 0")));
            }
        }
        if !(config.position_step.is_finite() && config.position_step >= 0.0) {
            return Err(ctx.error(&key("position_step"), "must be a number ≥ 0 (0 = continuous motion)"));
        }
        if !(config.jitter_db.is_finite() && config.jitter_db >= 0.0) {
            return Err(ctx.error(&key("jitter_db"), "must be a number of dB ≥ 0"));
        }
        for (name, value) in
            [("blockage_db", config.blockage_db), ("reflection_loss_db", config.reflection_loss_db)]
        {
            if let Some(v) = value {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(
                        ctx.error(&key(name), format!("{v} is not allowed; must be a number of dB ≥ 0"))
                    );
                }
            }
        }
        if !config.tx_power_dbm.is_finite() {
            return Err(ctx.error(&key("tx_power_dbm"), "must be a finite number of dBm"));
        }
        if config.interval.0 == Duration::ZERO {
            return Err(ctx.error(&key("interval"), "must be a time greater than zero, e.g. \"10ms\""));
        }
        if config.frequency.0 == 0 {
            return Err(ctx.error(&key("frequency"), "must be greater than zero, e.g. \"60.48GHz\""));
        }
        let period_s = 4.0 * config.travel / config.speed;
        let samples = libm::round(period_s / config.interval.0.as_secs_f64()).max(2.0);
        if samples > 1e8 {
            return Err(ctx.error(
                &key("interval"),
                format!("gives {samples} samples per {period_s} s walk; use a longer interval"),
            ));
        }
        let room = match config.scenario {
            Scenario::A => &ROOM_A,
            Scenario::B => &ROOM_B,
        };
        let wavelength = SPEED_OF_LIGHT / config.frequency.hz();
        let paths = lay_out(room, config.tx_power_dbm, wavelength, config.reflection_loss_db);
        let own_depth =
            screen_attenuation_db(&paths[0], 0.0, config.blocker_width, config.blocker_height, wavelength);
        let depth_scale = match config.blockage_db {
            None => 1.0,
            // Below 1 dB the blocker misses the LOS (too short for it): no profile to scale.
            Some(_) if own_depth < 1.0 => {
                return Err(ctx.error(
                    &key("blockage_db"),
                    format!(
                        "cannot be set: the blocker barely crosses the LOS ({own_depth:.2} dB at its centre)"
                    ),
                ))
            }
            Some(depth) => depth / own_depth,
        };
        Ok(SyntheticChannel {
            paths,
            wavelength,
            blocker_width: config.blocker_width,
            blocker_height: config.blocker_height,
            travel: config.travel,
            position_step: config.position_step,
            depth_scale,
            interval: config.interval.0,
            samples: samples as u64,
            jitter_db: config.jitter_db,
        })
    }

    /// The sampling interval.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// Samples per period (the blocker walks to +travel and back in one period).
    pub fn samples_per_period(&self) -> u64 {
        self.samples
    }

    /// The blocker's lateral position (m) at sample `k`: −travel at k = 0, +travel half a period
    /// later, continuous (before quantisation to `position_step`).
    pub fn blocker_position(&self, k: u64) -> f64 {
        let u = (k % self.samples) as f64 / self.samples as f64;
        if u < 0.5 {
            -self.travel + 4.0 * self.travel * u
        } else {
            self.travel - 4.0 * self.travel * (u - 0.5)
        }
    }

    /// Blockage (dB) of each path (LOS first, then the walls' reflections in the order of the
    /// module header's table) with the blocker at lateral position `y_b`.
    pub fn blockage_db(&self, y_b: f64) -> Vec<f64> {
        self.paths.iter().map(|p| self.path_blockage_db(p, y_b)).collect()
    }

    /// The (scaled) knife-edge loss of `path` with the blocker at `y_b`.
    fn path_blockage_db(&self, path: &PathGeometry, y_b: f64) -> f64 {
        self.depth_scale
            * screen_attenuation_db(path, y_b, self.blocker_width, self.blocker_height, self.wavelength)
    }

    /// Per-path blockage at sample `k`, with quantised motion interpolated between steps.
    fn blockage_at(&self, k: u64, out: &mut [f64]) {
        let y = self.blocker_position(k);
        let step = self.position_step;
        let at = |y_b: f64, out: &mut [f64]| {
            for (o, p) in out.iter_mut().zip(&self.paths) {
                *o = self.path_blockage_db(p, y_b);
            }
        };
        if step <= 0.0 {
            at(y, out);
            return;
        }
        // Quantised motion: the blockage of the grid positions either side, interpolated.
        let offset = (y + self.travel) / step;
        let below = libm::floor(offset);
        let frac = offset - below;
        let y0 = (-self.travel + below * step).min(self.travel);
        let y1 = (y0 + step).min(self.travel);
        at(y0, out);
        if frac > 0.0 && y1 > y0 {
            let mut upper = [0.0; MAX_PATHS];
            let upper = &mut upper[..out.len()];
            at(y1, upper);
            for (o, u) in out.iter_mut().zip(upper.iter()) {
                *o += frac * (u - *o);
            }
        }
    }

    /// Received power (dBm) per beam pair at sample `k`, without the random variation.
    pub fn powers_dbm(&self, k: u64) -> [f64; PAIRS] {
        let mut blockage = [0.0; MAX_PATHS];
        let blockage = &mut blockage[..self.paths.len()];
        self.blockage_at(k, blockage);
        let mut mw = [0.0; PAIRS];
        for (path, loss_db) in self.paths.iter().zip(blockage.iter()) {
            let factor = from_db(-loss_db);
            for (m, p) in mw.iter_mut().zip(&path.pair_mw) {
                *m += p * factor;
            }
        }
        mw.map(|m| 10.0 * libm::log10(m))
    }

    /// One period of the generated powers (without the random variation) as a beam-pair trace
    /// (`time,tx_deg,rx_deg,power_dbm`, the format of `beam_trace.rs`), plus the closing time
    /// that equals the start, so that it replays with `repeat = true`.
    pub fn to_csv(&self) -> String {
        let mut text = String::from("time,tx_deg,rx_deg,power_dbm\n");
        for k in 0..=self.samples {
            let powers = self.powers_dbm(k);
            let time = Time(self.interval.saturating_mul(k));
            for (i, p) in powers.iter().enumerate() {
                let (tx, rx) = pair_angles(i);
                let _ = writeln!(text, "{time},{tx},{rx},{p:.4}");
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::super::beam_trace::parse_beam_trace;
    use super::super::channel::Ieee80211adChannel;
    use super::super::config::{BeamSource, Ieee80211adConfig};
    use super::super::power::thermal_noise_dbm;
    use super::super::test_support::{ctx_in, quiet, synthetic};
    use super::*;
    use crate::radio::sinr_trace::drive;
    use crate::sim::{Rng, SimTime};
    use crate::trace_file::TraceFileErrors;
    use std::path::PathBuf;

    #[test]
    fn test_validation_errors_name_the_key() {
        let base = PathBuf::from(".");
        for (config, field) in [
            (SyntheticConfig { speed: 0.0, ..quiet(Scenario::B) }, "link[0].radio.channel.source.speed"),
            (
                SyntheticConfig { jitter_db: -1.0, ..quiet(Scenario::B) },
                "link[0].radio.channel.source.jitter_db",
            ),
            (
                SyntheticConfig { interval: Time(Duration::ZERO), ..quiet(Scenario::A) },
                "link[0].radio.channel.source.interval",
            ),
        ] {
            let config = Ieee80211adConfig { source: BeamSource::Synthetic(config), noise_figure_db: 0.0 };
            let err = Ieee80211adChannel::new(&config, &ctx_in(&base)).unwrap_err();
            assert_eq!((err.file.as_str(), err.field.as_str()), ("s.toml", field), "{}", err.message);
        }
    }

    /// The sample at which the blocker stands on the LOS (a quarter period in).
    fn centred(channel: &SyntheticChannel) -> u64 {
        channel.samples_per_period() / 4
    }

    #[test]
    fn test_blockage_attenuates_los_by_the_knife_edge_model_and_switches_beam() {
        for scenario in [Scenario::A, Scenario::B] {
            let base = PathBuf::from(".");
            let geometry = SyntheticChannel::new(&quiet(scenario), &ctx_in(&base).channel).unwrap();
            let k = centred(&geometry);
            assert!(geometry.blocker_position(k).abs() < 1e-9);
            let clear = geometry.powers_dbm(0);
            let blocked = geometry.powers_dbm(k);
            let los = 3 * 7 + 3; // pair (0°, 0°)
            let drop = clear[los] - blocked[los];
            let los_blockage = geometry.blockage_db(0.0)[0];
            assert!((15.0..=35.0).contains(&los_blockage), "{scenario:?}: {los_blockage}");
            assert!((drop - los_blockage).abs() < 0.3, "{scenario:?}: drop {drop} vs {los_blockage}");

            let mut channel = synthetic(quiet(scenario));
            let steps = drive(&mut channel, &mut Rng::for_component(1, "c"), k as usize + 1);
            let before = steps[0].1.sinr_db;
            let during = steps[k as usize].1.sinr_db;
            // The best pair is now the reflection off the +y wall, seen at (+30°, +30°).
            assert_eq!(channel.best_pair(), Some((30.0, 30.0)), "{scenario:?}");
            assert!(during < before - 3.0 && during > before - drop, "{scenario:?}: {before} → {during}");
        }
    }

    #[test]
    fn test_blockage_db_sets_the_los_depth_and_reflection_loss_the_walls() {
        let base = PathBuf::from(".");
        let los = 3 * 7 + 3; // pair (0°, 0°)
        let side = 6 * 7 + 6; // pair (+30°, +30°): the +y wall's reflection
        for scenario in [Scenario::A, Scenario::B] {
            let own = SyntheticChannel::new(&quiet(scenario), &ctx_in(&base).channel).unwrap();
            let k = centred(&own);
            let own_depth = own.blockage_db(0.0)[0];
            for depth in [15.0, 25.0, 35.0] {
                let config = SyntheticConfig { blockage_db: Some(depth), ..quiet(scenario) };
                let scaled = SyntheticChannel::new(&config, &ctx_in(&base).channel).unwrap();
                let per_path = scaled.blockage_db(0.0);
                assert!((per_path[0] - depth).abs() < 1e-9, "{scenario:?}: LOS {} dB", per_path[0]);
                // Every path scaled alike, and the profile keeps its shape in time.
                for (p, o) in per_path.iter().zip(own.blockage_db(0.0)) {
                    assert!((p - o * depth / own_depth).abs() < 1e-9, "{scenario:?}: {p} vs {o}");
                }
                assert!(scaled.blockage_db(0.5)[0] < 0.5 * depth, "{scenario:?}: the blocker has left");
                let drop = scaled.powers_dbm(0)[los] - scaled.powers_dbm(k)[los];
                // The LOS pair also receives the reflections through its side lobes: they cap the drop.
                assert!(
                    drop > depth.min(own_depth + 5.0) - 1.0 && drop <= depth + 0.3,
                    "{scenario:?}: {drop}"
                );
            }
            // Walls at 30 dB instead of the table's 6–12 dB: the reflection pair loses the difference.
            let weak = SyntheticConfig { reflection_loss_db: Some(30.0), ..quiet(scenario) };
            let weak = SyntheticChannel::new(&weak, &ctx_in(&base).channel).unwrap();
            let table = if scenario == Scenario::A { 6.0 } else { 10.0 };
            let lost = own.powers_dbm(k)[side] - weak.powers_dbm(k)[side];
            assert!((lost - (30.0 - table)).abs() < 1.0, "{scenario:?}: {lost} dB");
        }
    }

    #[test]
    fn test_csv_of_the_generator_replays_to_the_same_snr() {
        let config = SyntheticConfig { interval: Time(Duration::from_millis(200)), ..quiet(Scenario::A) };
        let base = PathBuf::from(".");
        let generator = SyntheticChannel::new(&config, &ctx_in(&base).channel).unwrap();
        let text = generator.to_csv();
        let n = generator.samples_per_period() as usize;
        assert_eq!(text.lines().count(), 1 + (n + 1) * PAIRS);
        assert!(text.starts_with("time,tx_deg,rx_deg,power_dbm\n0s,-30,-30,"), "{}", &text[..60]);
        let errors = TraceFileErrors { file: "generated.csv".into(), origin: "test".into() };
        let (steps, period) = parse_beam_trace(&text, true, &errors).unwrap();
        assert_eq!(period, Some(Duration::from_millis(200 * n as u64)));
        let mut channel = synthetic(config);
        let generated = drive(&mut channel, &mut Rng::for_component(1, "c"), n);
        let mut replayed = steps.iter();
        let mut current = replayed.next().unwrap();
        for (t, step) in generated {
            if let Some(next) = replayed.clone().next() {
                if SimTime::ZERO + next.at <= t {
                    current = replayed.next().unwrap();
                }
            }
            let snr = current.best_dbm - thermal_noise_dbm(500e6);
            assert!((snr - step.sinr_db).abs() < 1e-4, "at {t}: {snr} vs {}", step.sinr_db);
        }
    }
}
