//! A stand-in for Wu et al.'s measured 802.11ad channels (COTAG, §5.2.2): two access points, AP1
//! and AP2, serve one user who carries two devices, D1 (associated with AP1) and D2 (with AP2),
//! and moves between random spots along a line. Each AP's link runs this module's chain:
//!
//! ```text
//!   user position x(t) (random-waypoint walk on [−travel, travel], dwell, walking speed)
//!   ─► per AP, per beam pair: Σ over paths (LOS + floor, ceiling, four walls; image method)
//!        Pt + G_AP(beam) + G_dev(beam) − 20·log10(4π·L/λ) − reflection loss      (room.rs)
//!   ─► + N(0, jitter²) dB per pair and sample ─► best pair ─► SNR = P − P_noise(500 MHz)
//!   ─► AMC table ieee80211ad_sc at the target BLER ─► rate = SE × 500 MHz (Drago et al. §IV-B)
//!   ─► both traces × one factor: mean(rate₁ + rate₂) over time = mean_total_rate (§5.2.3)
//! ```
//!
//! Stated by Wu et al. §5.2.2: line-of-sight distance ≈ 2 m between the APs and the user; D1 and
//! D2 move together up to 1 m to the right or left of the centre; the distances to the APs vary
//! between 1.5 and 2.8 m; distance, angle of arrival and multipath change the link quality;
//! measurements at different locations. §5.2.3: "the average total bandwidth is 1.3 Gbps".
//!
//! The layout that gives these numbers (derived, docs/models/ieee80211ad.md): user centre at the
//! origin, travel along x ∈ [−1, 1] m, AP1 at (−a, b) and AP2 at (a, b). The near and far ends
//! of AP1's distance, √((a − 1)² + b²) = 1.5 m and √((a + 1)² + b²) = 2.8 m, give
//! 4a = 2.8² − 1.5², a = 1.3975 m, and b = √(1.5² − (a − 1)²) = 1.446 m; rounded to the centimetre,
//! AP1 at (−1.40, 1.45) m and AP2 at (1.40, 1.45) m: distances 1.504 … 2.804 m, and 2.016 m at the
//! centre (the paper's "approximately 2 meters", which the derivation does not use, comes out). AP2's distance is
//! AP1's mirror image: moving left nearer AP1 is moving farther from AP2 (§5.1's negative
//! correlation). Each AP's boresight points at the user's centre; each device faces its own AP
//! from the centre and keeps that orientation unless `rotation_deg` turns the user, so the arrival
//! angle moves by −28.6° … +14.9° off boresight over the travel — inside the ±30° beam range.
//!
//! Ours (assumed, every value documented in docs/models/ieee80211ad.md): antennas of Drago et al.'s
//! model (AP: horn, device: patch array, `antenna.rs`), all at 1 m above the floor; ceiling
//! 2.7 m; side walls 1 m beyond the farthest AP or travel end, front wall 1 m behind the APs,
//! back wall 1.5 m behind the user's line, every surface losing `reflection_loss_db`; the walk
//! (speed, dwell), the transmit power, the jitter. The two devices stand at one point (their few
//! cm apart is ignored); each link is alone on its channel (no interference between the links).

use super::antenna::{Antenna, RX_ANTENNA, TX_ANTENNA};
use super::beam_pairs::{BEAM_ANGLES_DEG, PAIRS};
use super::power::{from_db, thermal_noise_dbm};
use super::room::SPEED_OF_LIGHT;
use crate::error::{InputContext, InputError};
use crate::radio::amc::{Amc, AmcConfig, McsTable};
use crate::sim::{Duration, Rng};
use crate::units::{Frequency, Rate, Time};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::f64::consts::PI;
use std::fmt::{self, Write as _};

/// Height of every antenna (APs and devices) above the floor, m (assumed: a desk or stand).
const ANTENNA_HEIGHT: f64 = 1.0;
/// Ceiling height, m (assumed: a common office ceiling).
const CEILING_HEIGHT: f64 = 2.7;
/// Side walls stand this far beyond the farthest AP or travel end, and the front wall this far
/// behind the APs, m (assumed).
const WALL_MARGIN: f64 = 1.0;
/// Distance of the back wall behind the user's line, m (assumed).
const BACK_WALL: f64 = 1.5;
/// Noise bandwidth and rate multiplier, Hz: Drago et al. §IV-B takes rate = SE × 500 MHz (`amc.rs`).
const BANDWIDTH_HZ: f64 = 500e6;
/// Most samples a trace may have (10⁷: 28 h at 10 ms), to bound memory.
const MAX_SAMPLES: u64 = 10_000_000;

/// The generator's keys (`mmtcp ieee80211ad-dual-trace --set key=value`); every key has a default.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DualApConfig {
    /// AP1's position in the plan, [x, y] m, y > 0 (the user's line is y = 0). Default
    /// [−1.40, 1.45] (the module header's derivation).
    pub ap1: [f64; 2],
    /// AP2's position, [x, y] m, y > 0. Default [1.40, 1.45].
    pub ap2: [f64; 2],
    /// The user walks along x ∈ [−travel, travel], m, > 0. Default 1 (Wu et al. §5.2.2).
    pub travel: f64,
    /// Walking speed between spots, m/s, > 0. Default 0.5 (ours: a slow walk carrying devices).
    pub speed: f64,
    /// The dwell at each spot is uniform in [dwell_min, dwell_max]. Default 1 s … 5 s (ours).
    pub dwell_min: Time,
    pub dwell_max: Time,
    /// At each new spot the user faces a heading uniform in ±rotation_deg about the initial one,
    /// turning linearly while walking there, degrees in [0, 180]. Default 0 (Wu et al. §5.2.2
    /// moves the devices without turning them).
    pub rotation_deg: f64,
    /// Length of the traces, a whole number of intervals. Default 120 s.
    pub duration: Time,
    /// Sampling interval of position, powers and rates. Default 10 ms.
    pub interval: Time,
    /// Transmit power of each AP, dBm. Default −31 (ours: SNR 18.8 dB at the centre, MCS 11; MCS 12
    /// at the near end of the travel, MCS 7–8 at the far end).
    pub tx_power_dbm: f64,
    /// Standard deviation of the independent per-sample, per-pair power variation, dB, ≥ 0.
    /// Default 0.3 (as the synthetic source of `synthetic.rs`).
    pub jitter_db: f64,
    /// Reflection loss of the floor, the ceiling and the walls, dB, ≥ 0. Default 10 (the strong
    /// end of the ITU-R P.2040 range of docs/models/ieee80211ad.md).
    pub reflection_loss_db: f64,
    /// The AMC's target BLER, in (0, 1). Default 0.1 (`amc.rs`).
    pub target_bler: f64,
    /// Carrier frequency. Default 60.48 GHz (802.11ad channel 2).
    pub frequency: Frequency,
    /// Time-average of the sum of the two rates after scaling, or the PHY rates unscaled.
    /// Default 1.3 Gbit/s (Wu et al. §5.2.3).
    pub mean_total_rate: TotalRate,
    /// Seed of the walk and the jitter. Default 1.
    pub seed: u64,
}

impl Default for DualApConfig {
    fn default() -> DualApConfig {
        DualApConfig {
            ap1: [-1.40, 1.45],
            ap2: [1.40, 1.45],
            travel: 1.0,
            speed: 0.5,
            dwell_min: Time(Duration::from_secs(1)),
            dwell_max: Time(Duration::from_secs(5)),
            rotation_deg: 0.0,
            duration: Time(Duration::from_secs(120)),
            interval: Time(Duration::from_millis(10)),
            tx_power_dbm: -31.0,
            jitter_db: 0.3,
            reflection_loss_db: 10.0,
            target_bler: 0.1,
            frequency: Frequency(60_480_000_000),
            mean_total_rate: TotalRate::Mean(Rate(1_300_000_000)),
            seed: 1,
        }
    }
}

/// `mean_total_rate`: `"1.3Gbps"` (scale both traces to that mean sum) or `"none"` (PHY rates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TotalRate {
    Phy,
    Mean(Rate),
}

impl<'de> Deserialize<'de> for TotalRate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TotalRate, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = TotalRate;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a rate with a unit, e.g. \"1.3Gbps\", or \"none\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<TotalRate, E> {
                if v == "none" {
                    return Ok(TotalRate::Phy);
                }
                Rate::parse(v).map(TotalRate::Mean).map_err(|e| E::custom(format!("{e}, or \"none\"")))
            }
        }
        d.deserialize_str(V)
    }
}

/// The two generated rate traces, one rate per sample.
#[derive(Clone, Debug, PartialEq)]
pub struct DualApTraces {
    interval: Duration,
    /// Rate of AP1's and AP2's link at each sample, bit/s.
    rates_bps: [Vec<u64>; 2],
    /// The factor applied to the PHY rates (`None`: `mean_total_rate = "none"`).
    scale: Option<f64>,
}

impl DualApTraces {
    /// The rates of AP `ap` (0: AP1, 1: AP2) at every sample, bit/s.
    pub fn rates_bps(&self, ap: usize) -> &[u64] {
        &self.rates_bps[ap]
    }

    /// The time-average rate of AP `ap`, bit/s.
    pub fn mean_bps(&self, ap: usize) -> f64 {
        let rates = &self.rates_bps[ap];
        rates.iter().map(|&r| r as f64).sum::<f64>() / rates.len() as f64
    }

    /// Pearson correlation of the two links' per-sample rates (0 when either does not vary).
    pub fn correlation(&self) -> f64 {
        let (m1, m2) = (self.mean_bps(0), self.mean_bps(1));
        let (mut c, mut v1, mut v2) = (0.0, 0.0, 0.0);
        for (&a, &b) in self.rates_bps[0].iter().zip(&self.rates_bps[1]) {
            let (a, b) = (a as f64 - m1, b as f64 - m2);
            c += a * b;
            v1 += a * a;
            v2 += b * b;
        }
        if v1 > 0.0 && v2 > 0.0 {
            c / libm::sqrt(v1 * v2)
        } else {
            0.0
        }
    }

    /// The factor on the PHY rates, `None` when they are unscaled.
    pub fn scale(&self) -> Option<f64> {
        self.scale
    }

    /// AP `ap`'s trace in the csv rate format of a `trace` channel (`channel/trace.rs`): `time,rate`
    /// rows where the rate changes, closed by a row at the end time (which `fit-markov` and the
    /// channel read as where the trace ends) with the first row's rate, so that it can loop.
    pub fn csv(&self, ap: usize) -> String {
        let rates = &self.rates_bps[ap];
        let mut text = format!(
            "# AP{} of mmtcp's stand-in for Wu et al.'s measured 802.11ad links, written by\n\
             # `mmtcp ieee80211ad-dual-trace` (docs/models/ieee80211ad.md): generated, not measured.\n\
             time,rate\n",
            ap + 1
        );
        let mut last = None;
        for (k, &rate) in rates.iter().enumerate() {
            if last != Some(rate) {
                let _ = writeln!(text, "{},{rate}", Time(self.interval.saturating_mul(k as u64)));
                last = Some(rate);
            }
        }
        // The last row ends the pass; it carries the first row's rate so that the trace may loop
        // (`repeat = true` asks for that), which does not change the pass itself.
        let end = Time(self.interval.saturating_mul(rates.len() as u64));
        let _ = writeln!(text, "{end},{}", rates.first().copied().unwrap_or(0));
        text
    }
}

/// One propagation path of a link: its unfolded length and the directions at both ends.
struct Path {
    length: f64,
    /// Departure azimuth and elevation at the AP, radians.
    departure: (f64, f64),
    /// Arrival azimuth and elevation at the device (the direction the power comes from), radians.
    arrival: (f64, f64),
    loss_db: f64,
}

/// The room, the APs and the orientations of every antenna.
struct Layout {
    aps: [[f64; 3]; 2],
    /// Boresight azimuths, radians: each AP towards the user's centre, each device towards its AP.
    ap_boresight: [f64; 2],
    device_boresight: [f64; 2],
    /// Reflecting planes: (axis 0 = x, 1 = y, 2 = z; coordinate, m).
    planes: [(usize, f64); 6],
    reflection_loss_db: f64,
    wavelength: f64,
    tx_power_dbm: f64,
}

impl Layout {
    fn new(config: &DualApConfig) -> Layout {
        let aps = [config.ap1, config.ap2].map(|[x, y]| [x, y, ANTENNA_HEIGHT]);
        let side = aps.iter().map(|a| a[0].abs()).fold(config.travel, f64::max) + WALL_MARGIN;
        let front = aps.iter().map(|a| a[1]).fold(0.0, f64::max) + WALL_MARGIN;
        Layout {
            aps,
            ap_boresight: aps.map(|a| libm::atan2(-a[1], -a[0])),
            device_boresight: aps.map(|a| libm::atan2(a[1], a[0])),
            planes: [(2, 0.0), (2, CEILING_HEIGHT), (0, -side), (0, side), (1, -BACK_WALL), (1, front)],
            reflection_loss_db: config.reflection_loss_db,
            wavelength: SPEED_OF_LIGHT / config.frequency.hz(),
            tx_power_dbm: config.tx_power_dbm,
        }
    }

    /// The user's (both devices') position at lateral offset `x`.
    fn user(x: f64) -> [f64; 3] {
        [x, 0.0, ANTENNA_HEIGHT]
    }

    /// Line-of-sight distance from AP `ap` to the user at `x`, m.
    fn distance(&self, ap: usize, x: f64) -> f64 {
        norm(sub(Layout::user(x), self.aps[ap]))
    }

    /// The LOS and the first-order reflection off each plane (image method: the path unfolds into
    /// the straight line from the AP's mirror image to the device).
    fn paths(&self, ap: usize, x: f64) -> impl Iterator<Item = Path> + '_ {
        let (tx, rx) = (self.aps[ap], Layout::user(x));
        let los = Path {
            length: self.distance(ap, x),
            departure: direction(sub(rx, tx)),
            arrival: direction(sub(tx, rx)),
            loss_db: 0.0,
        };
        let reflections = self.planes.iter().map(move |&(axis, at)| {
            let (tx_image, rx_image) = (mirror(tx, axis, at), mirror(rx, axis, at));
            Path {
                length: norm(sub(rx, tx_image)),
                departure: direction(sub(rx_image, tx)),
                arrival: direction(sub(tx_image, rx)),
                loss_db: self.reflection_loss_db,
            }
        });
        std::iter::once(los).chain(reflections)
    }

    /// Received power (dBm) of AP `ap`'s link per beam pair (pair `i`: AP beam
    /// `BEAM_ANGLES_DEG[i / 7]`, device beam `BEAM_ANGLES_DEG[i % 7]`) with the user at `x`, turned
    /// by `yaw_deg` (counter-clockwise); powers add over paths in mW (no phases, as `room.rs`).
    fn powers_dbm(&self, ap: usize, x: f64, yaw_deg: f64) -> [f64; PAIRS] {
        let mut mw = [0.0; PAIRS];
        for path in self.paths(ap, x) {
            let fspl_db = 20.0 * libm::log10(4.0 * PI * path.length / self.wavelength);
            let base = from_db(self.tx_power_dbm - fspl_db - path.loss_db);
            let gains = |boresight: f64, (az, el): (f64, f64), antenna: &Antenna| {
                BEAM_ANGLES_DEG.map(|beam| {
                    let off = wrap_deg((az - boresight).to_degrees() - beam);
                    from_db(antenna.gain_db(off, el.to_degrees()))
                })
            };
            let tx = gains(self.ap_boresight[ap], path.departure, &TX_ANTENNA);
            let rx = gains(self.device_boresight[ap] + yaw_deg.to_radians(), path.arrival, &RX_ANTENNA);
            for (i, m) in mw.iter_mut().enumerate() {
                *m += base * tx[i / 7] * rx[i % 7];
            }
        }
        mw.map(|m| 10.0 * libm::log10(m))
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn norm(v: [f64; 3]) -> f64 {
    libm::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
}

/// `p` mirrored in the plane `axis` = `at`.
fn mirror(mut p: [f64; 3], axis: usize, at: f64) -> [f64; 3] {
    p[axis] = 2.0 * at - p[axis];
    p
}

/// Azimuth and elevation of `v`, radians.
fn direction(v: [f64; 3]) -> (f64, f64) {
    (libm::atan2(v[1], v[0]), libm::atan2(v[2], libm::hypot(v[0], v[1])))
}

/// An angle in degrees brought into (−180, 180].
fn wrap_deg(a: f64) -> f64 {
    let r = a - 360.0 * libm::floor((a + 180.0) / 360.0);
    if r == -180.0 {
        180.0
    } else {
        r
    }
}

/// One stretch of the walk: the user goes from `from` to `to` (m; equal while dwelling) and turns
/// from heading `yaw_from` to `yaw_to` (degrees) between `start` and `end`, s.
#[derive(Clone, Copy)]
struct Leg {
    start: f64,
    end: f64,
    from: f64,
    to: f64,
    yaw_from: f64,
    yaw_to: f64,
}

/// The random-waypoint walk along the line, from the centre facing the APs, until `until` s:
/// dwell uniform in [dwell_min, dwell_max], then walk at `speed` to a spot uniform in
/// [−travel, travel] while turning to a heading uniform in ±rotation_deg, again.
fn walk(config: &DualApConfig, rng: &mut Rng, until: f64) -> Vec<Leg> {
    let (lo, hi) = (config.dwell_min.0.as_secs_f64(), config.dwell_max.0.as_secs_f64());
    let (mut legs, mut t, mut x, mut yaw) = (Vec::new(), 0.0, 0.0, 0.0);
    while t < until {
        let dwell = lo + (hi - lo) * rng.uniform();
        legs.push(Leg { start: t, end: t + dwell, from: x, to: x, yaw_from: yaw, yaw_to: yaw });
        t += dwell;
        let to = config.travel * (2.0 * rng.uniform() - 1.0);
        // Drawn whatever rotation_deg is, so that turning leaves the path unchanged.
        let heading = config.rotation_deg * (2.0 * rng.uniform() - 1.0);
        let end = t + (to - x).abs() / config.speed;
        legs.push(Leg { start: t, end, from: x, to, yaw_from: yaw, yaw_to: heading });
        (t, x, yaw) = (end, to, heading);
    }
    legs
}

/// Validates `config` (errors name its keys under `ctx.field`) and generates the two traces.
pub fn generate(config: &DualApConfig, ctx: &InputContext) -> Result<DualApTraces, InputError> {
    for (name, [x, y]) in [("ap1", config.ap1), ("ap2", config.ap2)] {
        if !(x.is_finite() && y.is_finite() && y > 0.0) {
            return Err(ctx.error(
                name,
                format!(
                    "[{x}, {y}] is not allowed; must be [x, y] in m with y > 0 (the user walks along y = 0)"
                ),
            ));
        }
    }
    for (name, value) in [("travel", config.travel), ("speed", config.speed)] {
        if !(value.is_finite() && value > 0.0) {
            return Err(ctx.error(name, format!("{value} is not allowed; must be a number > 0")));
        }
    }
    if !(0.0..=180.0).contains(&config.rotation_deg) {
        return Err(ctx.error(
            "rotation_deg",
            format!("{} is not allowed; must be a number of degrees in [0, 180]", config.rotation_deg),
        ));
    }
    if config.dwell_max.0 == Duration::ZERO {
        return Err(ctx.error("dwell_max", "must be a time greater than zero, e.g. \"5s\""));
    }
    if config.dwell_min > config.dwell_max {
        return Err(ctx.error(
            "dwell_min",
            format!("{} is not allowed; must be at most dwell_max ({})", config.dwell_min, config.dwell_max),
        ));
    }
    let interval = config.interval.0;
    if interval == Duration::ZERO {
        return Err(ctx.error("interval", "must be a time greater than zero, e.g. \"10ms\""));
    }
    let (duration, step) = (config.duration.0.as_picos(), interval.as_picos());
    if duration == 0 || duration % step != 0 {
        return Err(ctx.error(
            "duration",
            format!(
                "{} is not allowed; must be a whole number (≥ 1) of intervals ({})",
                config.duration, config.interval
            ),
        ));
    }
    let samples = duration / step;
    if samples > MAX_SAMPLES {
        return Err(ctx.error(
            "interval",
            format!(
                "gives {samples} samples over {}; at most {MAX_SAMPLES}: use a longer interval",
                config.duration
            ),
        ));
    }
    if !config.tx_power_dbm.is_finite() {
        return Err(ctx.error("tx_power_dbm", "must be a finite number of dBm"));
    }
    for (name, value) in [("jitter_db", config.jitter_db), ("reflection_loss_db", config.reflection_loss_db)]
    {
        if !(value.is_finite() && value >= 0.0) {
            return Err(ctx.error(name, format!("{value} is not allowed; must be a number of dB ≥ 0")));
        }
    }
    if config.frequency.0 == 0 {
        return Err(ctx.error("frequency", "must be greater than zero, e.g. \"60.48GHz\""));
    }
    if config.mean_total_rate == TotalRate::Mean(Rate(0)) {
        return Err(ctx.error("mean_total_rate", "must be a rate > 0, e.g. \"1.3Gbps\", or \"none\""));
    }
    let amc_config =
        AmcConfig { target_bler: config.target_bler, ..AmcConfig::for_table(McsTable::Ieee80211adSc) };
    let amc = Amc::new(&amc_config, ctx)?;

    let layout = Layout::new(config);
    let noise_dbm = thermal_noise_dbm(BANDWIDTH_HZ);
    let interval_s = interval.as_secs_f64();
    let legs =
        walk(config, &mut Rng::for_component(config.seed, "ieee80211ad-dual/walk"), duration as f64 * 1e-12);
    let mut jitter = [1, 2].map(|n| Rng::for_component(config.seed, &format!("ieee80211ad-dual/ap{n}")));
    let mut rates_bps = [Vec::with_capacity(samples as usize), Vec::with_capacity(samples as usize)];
    let mut leg = 0;
    for k in 0..samples {
        let t = k as f64 * interval_s;
        while legs[leg].end <= t {
            leg += 1;
        }
        let Leg { start, end, from, to, yaw_from, yaw_to } = legs[leg];
        let progress = (t - start) / (end - start);
        let (x, yaw) = (from + (to - from) * progress, yaw_from + (yaw_to - yaw_from) * progress);
        for (ap, rates) in rates_bps.iter_mut().enumerate() {
            let mut powers = layout.powers_dbm(ap, x, yaw);
            if config.jitter_db > 0.0 {
                for p in powers.iter_mut() {
                    *p += config.jitter_db * jitter[ap].standard_normal();
                }
            }
            let best_dbm = powers.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            rates.push(amc.select(best_dbm - noise_dbm).map_or(0, |mcs| amc.rate_bps(mcs, BANDWIDTH_HZ)));
        }
    }

    let scale = match config.mean_total_rate {
        TotalRate::Phy => None,
        TotalRate::Mean(Rate(target)) => {
            let total: f64 = rates_bps.iter().flatten().map(|&r| r as f64).sum();
            if total == 0.0 {
                return Err(ctx.error(
                    "mean_total_rate",
                    "cannot scale: both links are in outage the whole time (raise tx_power_dbm)",
                ));
            }
            let factor = target as f64 * samples as f64 / total;
            for r in rates_bps.iter_mut().flatten() {
                *r = libm::round(*r as f64 * factor) as u64;
            }
            Some(factor)
        }
    };
    Ok(DualApTraces { interval, rates_bps, scale })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::RateTrace;
    use std::path::Path as FilePath;

    fn ctx() -> InputContext<'static> {
        InputContext { scenario_file: "ieee80211ad_dual_trace", field: "", base_dir: FilePath::new(".") }
    }

    /// The default layout without jitter, over `seconds` sampled every 100 ms.
    fn short(seconds: u64) -> DualApConfig {
        DualApConfig {
            duration: Time(Duration::from_secs(seconds)),
            interval: Time(Duration::from_millis(100)),
            ..DualApConfig::default()
        }
    }

    fn best_dbm(layout: &Layout, ap: usize, x: f64, yaw_deg: f64) -> f64 {
        layout.powers_dbm(ap, x, yaw_deg).into_iter().fold(f64::NEG_INFINITY, f64::max)
    }

    #[test]
    fn test_layout_distances_are_seed_000s() {
        let layout = Layout::new(&DualApConfig::default());
        // §5.2.2: 1.5 to 2.8 m over the travel, ≈ 2 m at the centre.
        assert!((layout.distance(0, -1.0) - 1.5).abs() < 0.01, "{}", layout.distance(0, -1.0));
        assert!((layout.distance(0, 1.0) - 2.8).abs() < 0.01, "{}", layout.distance(0, 1.0));
        assert!((layout.distance(0, 0.0) - 2.0).abs() < 0.02, "{}", layout.distance(0, 0.0));
        for x in [-1.0, -0.3, 0.0, 0.6, 1.0] {
            assert!((layout.distance(1, x) - layout.distance(0, -x)).abs() < 1e-12, "AP2 mirrors AP1 at {x}");
        }
    }

    #[test]
    fn test_centre_snr_is_free_space_plus_aligned_beams() {
        // At the centre both boresights are aligned on the LOS: pair (0°, 0°) receives
        // Pt + 20 + 17 dBi − FSPL(2.016 m); the reflections arrive outside both main lobes.
        let config = DualApConfig::default();
        let layout = Layout::new(&config);
        let d = libm::hypot(1.40, 1.45);
        let fspl = 20.0 * libm::log10(4.0 * PI * d * 60.48e9 / SPEED_OF_LIGHT);
        let expected = config.tx_power_dbm + 37.0 - fspl;
        for ap in [0, 1] {
            let powers = layout.powers_dbm(ap, 0.0, 0.0);
            let los = 3 * 7 + 3;
            assert_eq!(powers.iter().copied().fold(f64::NEG_INFINITY, f64::max), powers[los], "AP{}", ap + 1);
            assert!((powers[los] - expected).abs() < 0.05, "AP{}: {} vs {expected}", ap + 1, powers[los]);
        }
        // The default power puts the centre at MCS 11 (18.57 dB to MCS 12's 19.56 dB).
        let snr = expected - thermal_noise_dbm(BANDWIDTH_HZ);
        assert!((18.57..19.56).contains(&snr), "{snr}");
    }

    #[test]
    fn test_reflections_arrive_outside_the_main_lobes() {
        // Floor and ceiling at 45° and 59° elevation, walls behind or beside the antennas: each
        // reflection meets the 25 dB pattern floor at one end at least, so over the whole travel
        // they move the best pair by less than 0.05 dB; a mirror in the wrong plane would not.
        let walls = Layout::new(&DualApConfig::default());
        let bare = Layout::new(&DualApConfig { reflection_loss_db: 300.0, ..DualApConfig::default() });
        for i in 0..=40 {
            let x = -1.0 + 0.05 * i as f64;
            for ap in [0, 1] {
                let added = best_dbm(&walls, ap, x, 0.0) - best_dbm(&bare, ap, x, 0.0);
                assert!((0.0..0.05).contains(&added), "AP{} at {x}: {added} dB", ap + 1);
            }
        }
        let paths: Vec<Path> = walls.paths(0, 0.0).collect();
        assert_eq!(paths.len(), 7);
        // The floor's image path: 2 m horizontally, 2 m down and up again.
        let floor = &paths[1];
        assert!((floor.length - libm::hypot(walls.distance(0, 0.0), 2.0)).abs() < 1e-12);
        // It leaves the AP downwards and arrives at the device from below, at atan(2 m / 2.016 m).
        let el = libm::atan2(2.0, walls.distance(0, 0.0));
        assert!((floor.departure.1 + el).abs() < 1e-12 && (floor.arrival.1 + el).abs() < 1e-12);
    }

    #[test]
    fn test_moving_towards_ap1_raises_its_snr_and_lowers_ap2s() {
        let layout = Layout::new(&DualApConfig::default());
        let ap1: Vec<f64> = [1.0, 0.0, -1.0].iter().map(|&x| best_dbm(&layout, 0, x, 0.0)).collect();
        let ap2: Vec<f64> = [1.0, 0.0, -1.0].iter().map(|&x| best_dbm(&layout, 1, x, 0.0)).collect();
        assert!(ap1[0] < ap1[1] && ap1[1] < ap1[2], "AP1 {ap1:?}");
        assert!(ap2[0] > ap2[1] && ap2[1] > ap2[2], "AP2 {ap2:?}");
        // Over 1.54 → 2.80 m free space alone loses 5.2 dB; the beam grid adds its scalloping.
        assert!(ap1[2] - ap1[0] > 5.2, "{ap1:?}");
    }

    #[test]
    fn test_turning_past_the_beam_range_costs_the_device_patterns_loss() {
        let layout = Layout::new(&DualApConfig::default());
        for ap in [0, 1] {
            let facing = best_dbm(&layout, ap, 0.0, 0.0);
            // 10° is one beam step: the next beam takes over without loss.
            assert!((best_dbm(&layout, ap, 0.0, 10.0) - facing).abs() < 0.05, "AP{}", ap + 1);
            // 40°: the outermost beam (30°) is 10° off, 12·(10/11)² = 9.92 dB down the patch's lobe.
            let turned = best_dbm(&layout, ap, 0.0, 40.0);
            assert!((facing - turned - 9.92).abs() < 0.1, "AP{}: {facing} → {turned}", ap + 1);
        }
    }

    #[test]
    fn test_rotation_turns_the_user_without_changing_the_path() {
        let still = walk(&DualApConfig::default(), &mut Rng::for_component(7, "w"), 300.0);
        let config = DualApConfig { rotation_deg: 45.0, ..DualApConfig::default() };
        let turning = walk(&config, &mut Rng::for_component(7, "w"), 300.0);
        assert_eq!(still.len(), turning.len());
        for (a, b) in still.iter().zip(&turning) {
            assert_eq!((a.start, a.end, a.from, a.to), (b.start, b.end, b.from, b.to));
            assert_eq!((a.yaw_from, a.yaw_to), (0.0, 0.0));
            assert!(b.yaw_to.abs() <= 45.0, "{}", b.yaw_to);
        }
        let wide = turning.iter().filter(|l| l.yaw_to.abs() > 30.0).count();
        assert!(wide > 10, "a third of the headings lie beyond ±30°: {wide} of {}", turning.len());
    }

    #[test]
    fn test_walk_stays_on_the_line_at_walking_speed() {
        let config = DualApConfig::default();
        let legs = walk(&config, &mut Rng::for_component(7, "w"), 600.0);
        let (mut spots, mut moves) = (0, 0);
        for (a, b) in legs.iter().zip(legs.iter().skip(1)) {
            assert_eq!((a.end, a.to), (b.start, b.from), "legs join");
        }
        for leg in &legs {
            assert!(leg.to.abs() <= config.travel, "{}", leg.to);
            if leg.from == leg.to {
                spots += 1;
                assert!((1.0..=5.0).contains(&(leg.end - leg.start)), "dwell {}", leg.end - leg.start);
            } else {
                moves += 1;
                let speed = (leg.to - leg.from).abs() / (leg.end - leg.start);
                assert!((speed - 0.5).abs() < 1e-9, "{speed}");
            }
        }
        assert_eq!(legs[0].from, 0.0, "the walk starts at the centre");
        assert!(spots > 50 && moves > 50, "{spots} spots, {moves} moves in 600 s");
    }

    #[test]
    fn test_mean_total_rate_scales_both_links_by_one_factor() {
        let raw = generate(&DualApConfig { mean_total_rate: TotalRate::Phy, ..short(60) }, &ctx()).unwrap();
        assert_eq!(raw.scale(), None);
        // PHY rates are SE × 500 MHz of the SC MCSs: multiples of 62.5 Mbit/s.
        assert!(raw.rates_bps(0).iter().chain(raw.rates_bps(1)).all(|r| r % 62_500_000 == 0));
        for target in [1_300_000_000u64, 400_000_000] {
            let config = DualApConfig { mean_total_rate: TotalRate::Mean(Rate(target)), ..short(60) };
            let scaled = generate(&config, &ctx()).unwrap();
            let factor = scaled.scale().unwrap();
            let raw_total = raw.mean_bps(0) + raw.mean_bps(1);
            assert!((factor - target as f64 / raw_total).abs() < 1e-12, "{factor}");
            for ap in [0, 1] {
                for (&s, &r) in scaled.rates_bps(ap).iter().zip(raw.rates_bps(ap)) {
                    assert_eq!(s, libm::round(r as f64 * factor) as u64);
                }
            }
            // Exact up to the rounding of each rate to a whole bit/s.
            let total = scaled.mean_bps(0) + scaled.mean_bps(1);
            assert!((total - target as f64).abs() <= 1.0, "{total}");
            assert!((scaled.correlation() - raw.correlation()).abs() < 1e-6);
        }
    }

    #[test]
    fn test_same_seed_same_traces_and_links_move_against_each_other() {
        let a = generate(&short(600), &ctx()).unwrap();
        assert_eq!(a, generate(&short(600), &ctx()).unwrap());
        let other = generate(&DualApConfig { seed: 2, ..short(600) }, &ctx()).unwrap();
        assert_ne!(a.rates_bps(0), other.rates_bps(0));
        // §5.1: walking towards one AP is walking away from the other (over 600 s, ≈ 140 spots;
        // the long-run correlation is ≈ −0.44, the beam grid's scalloping and the jitter keep it
        // from −1).
        assert!(a.correlation() < -0.3, "{}", a.correlation());
        assert!(other.correlation() < -0.3, "{}", other.correlation());
    }

    #[test]
    fn test_csv_reads_back_as_the_generated_rates() {
        let traces = generate(&short(30), &ctx()).unwrap();
        let path = std::env::temp_dir().join(format!("mmtcp-dual-ap-{}.csv", std::process::id()));
        std::fs::write(&path, traces.csv(1)).unwrap();
        let read = RateTrace::read(&path, None, "test");
        std::fs::remove_file(&path).unwrap();
        let read = read.unwrap();
        assert_eq!(read.end, Duration::from_secs(30));
        let mut step = 0;
        for (k, &rate) in traces.rates_bps(1).iter().enumerate() {
            let at = Duration::from_millis(100 * k as u64);
            while step + 1 < read.steps.len() && read.steps[step + 1].0 <= at {
                step += 1;
            }
            assert_eq!(read.steps[step].1, rate, "at {at:?}");
        }
        assert!(read.steps.windows(2).all(|w| w[0].1 != w[1].1), "equal neighbours merge");
        // The closing row repeats the first rate, as a looping (`repeat = true`) trace must.
        let text = traces.csv(1);
        let rates: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
            .map(|l| l.split(',').nth(1).expect("time,rate"))
            .collect();
        assert_eq!(rates.first(), rates.last());
        assert_ne!(rates[rates.len() - 2], rates[0], "this walk does not end where it began");
    }

    #[test]
    fn test_errors_name_the_key() {
        let ms = |m| Time(Duration::from_millis(m));
        for (config, key) in [
            (DualApConfig { ap1: [0.0, -1.0], ..short(10) }, "ap1"),
            (DualApConfig { ap2: [f64::NAN, 1.0], ..short(10) }, "ap2"),
            (DualApConfig { speed: 0.0, ..short(10) }, "speed"),
            (DualApConfig { rotation_deg: 200.0, ..short(10) }, "rotation_deg"),
            (DualApConfig { travel: -1.0, ..short(10) }, "travel"),
            (DualApConfig { dwell_min: ms(6000), ..short(10) }, "dwell_min"),
            (DualApConfig { dwell_min: ms(0), dwell_max: ms(0), ..short(10) }, "dwell_max"),
            (DualApConfig { duration: ms(1050), ..short(10) }, "duration"),
            (DualApConfig { interval: ms(0), ..short(10) }, "interval"),
            (DualApConfig { jitter_db: -0.1, ..short(10) }, "jitter_db"),
            (DualApConfig { reflection_loss_db: f64::INFINITY, ..short(10) }, "reflection_loss_db"),
            (DualApConfig { target_bler: 1.0, ..short(10) }, "target_bler"),
            (DualApConfig { mean_total_rate: TotalRate::Mean(Rate(0)), ..short(10) }, "mean_total_rate"),
            (DualApConfig { tx_power_dbm: -120.0, ..short(10) }, "mean_total_rate"),
        ] {
            let err = generate(&config, &ctx()).unwrap_err();
            assert_eq!(err.field, key, "{err}");
        }
    }

    #[test]
    fn test_keys_parse_with_defaults_and_unknown_keys_are_named() {
        let parse = |text: &str| toml::from_str::<DualApConfig>(text).map_err(|e| e.to_string());
        assert_eq!(parse("").unwrap(), DualApConfig::default());
        let c = parse("mean_total_rate = \"none\"\nap1 = [-1, 2]\nduration = \"10s\"").unwrap();
        assert_eq!(
            (c.mean_total_rate, c.ap1, c.duration),
            (TotalRate::Phy, [-1.0, 2.0], Time(Duration::from_secs(10)))
        );
        assert_eq!(
            parse("mean_total_rate = \"2Gbps\"").unwrap().mean_total_rate,
            TotalRate::Mean(Rate(2_000_000_000))
        );
        let err = parse("mean_total_rate = \"fast\"").unwrap_err();
        assert!(err.contains("\"none\""), "{err}");
        let err = parse("sped = 1").unwrap_err();
        assert!(err.contains("sped") && err.contains("speed"), "{err}");
    }
}
