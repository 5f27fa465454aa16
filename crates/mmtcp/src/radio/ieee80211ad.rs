//! IEEE 802.11ad at 60 GHz as seed 001 (Drago et al.) models it: the link-to-system mapping (LSM)
//! of the single-carrier (SC) MCSs, and a channel of per-beam-pair received powers.
//!
//! # Link-to-system mapping (seed 001 §IV-A/B, eqs. 1–4)
//!
//! ```text
//!   P (dBm, best TX/RX beam pair) ─► SNR = P − P_noise,  P_noise = −174 + 10·log10(B) dBm
//!   ─► MER = SNR − Δ  (Δ = 6.5 dB: the demodulation chain's extra noise, measured)
//!   ─► MMIB of the MCS's modulation at MER
//!   ─► BLER = ½·[1 − erf((MMIB − X₁)/(√2·X₂))]
//! ```
//!
//! * **MMIB** (mean mutual information per coded bit): the approximations of the IEEE 802.16m
//!   Evaluation Methodology Document (IEEE 802.16m-08/004r5, §4.3.2.1): the function J(x) of
//!   eq. (52) — the mutual information of a bit whose log-likelihood ratio is Gaussian with
//!   standard deviation x — and the per-modulation mixtures of its MMIB table (Table 29):
//!   QPSK I(γ) = J(2√γ); 16-QAM I(γ) = ½·J(0.8√γ) + ¼·J(2.17√γ) + ¼·J(0.965√γ). The table has no
//!   BPSK row; a BPSK bit carries the whole symbol energy, so its LLR has twice the QPSK variance:
//!   I(γ) = J(√8·√γ) (derived here; π/2-BPSK is BPSK rotated, the same). γ is the linear MER.
//!   The two branches of J meet with a small step (0.3653 below x = 1.6363, 0.3647 above); J is
//!   held at 0.3653 across the 0.002-wide gap, clamped to [0, 1] near 0, and set to 1 above
//!   x = 20 (where the published form is already 1 to double precision and would later turn
//!   down), so that the BLER is monotone in SNR.
//! * **X₁, X₂**: seed 001 takes them from the MiWEBA D4.1 simulator specification, whose tables are
//!   not available to us. They are *fitted* here to the receiver sensitivities of the standard
//!   (IEEE 802.11ad-2012 Table 21-3, = IEEE 802.11-2016 Table 20-3: the minimum input level for a
//!   packet error rate below 1 % with 4096-octet PSDUs, stated for a 10 dB noise figure and 5 dB
//!   implementation loss). For each MCS the required MER is
//!   `S − (−174 + 10·log10(1.76 GHz) + 10) − 5` dB, the noise taken over the SC symbol rate so
//!   that the MER is Es/N0 (MCS 1: −1.46 dB … MCS 12: 13.54 dB); the implementation loss is
//!   removed because Δ already models the receiver. The BLER curve must pass 1 % at that MER and
//!   50 % at `waterfall_db` (default 1 dB, the typical 50 %→1 % width of LDPC-672 packet error
//!   curves in AWGN) below it: X₁ = MMIB(MER₁% − waterfall), X₂ = (MMIB(MER₁%) − X₁)/Q⁻¹(0.01).
//!   The BLER is thus the error probability of a 4096-octet packet. Users with the MiWEBA values
//!   can give X₁, X₂ explicitly (`x1`, `x2` of the AMC table).
//! * MCS 5 (BPSK 13/16) needs 1 dB more than MCS 6 (QPSK 1/2) in the standard's table, so BLER is
//!   not monotone in the MCS index across that pair; MCS selection is unaffected (MCS 6 is both
//!   faster and more robust).
//!
//! SC MCS 1–12 (the SC MCS table of IEEE 802.11ad-2012 clause 21, the DMG PHY): spectral efficiency
//! = bits per symbol × code rate ÷ repetition, 0.25 (MCS 1, π/2-BPSK ½ repeated twice) … 3.0
//! (MCS 12, π/2-16-QAM ¾); seed 001 multiplies it by 500 MHz (MCS 12: 1.5 Gbit/s).
//!
//! # The channel: received power per beam pair
//!
//! A [`SinrProcess`] emitting the SNR of the best TX/RX beam pair (seed 001 §III, §IV: beams at
//! −30°…30° in 10° steps at both ends, 7 × 7 pairs; at each time the best pair is used;
//! P_noise = −174 + 10·log10(B) dBm, −87.01 dBm at 500 MHz, eq. 1, plus an optional noise figure).
//! The powers come from a trace file or from a synthetic generator of seed 001's two scenarios.
//!
//! **Trace** (`source = { kind = "trace", file }`): long csv format, one row per measured pair,
//! `time,tx_deg,rx_deg,power_dbm`; rows of one time are contiguous, times are non-decreasing and
//! start at 0; a time is bare seconds or a time with a unit, a power is dBm or `-inf`; pairs not
//! listed at a time are not received. Optional header, `#` comments. With `repeat = true` the last
//! time is the period and its best power must equal the first time's (as for rate traces).
//!
//! **Synthetic** (`source = { kind = "synthetic", scenario = "a" | "b" }`): geometric. TX at
//! x = 0, RX at x = d, both facing each other along x; side reflectors are walls parallel to the
//! link. Paths: the LOS and one first-order reflection off each wall (image method). Per path:
//! free-space loss 20·log10(4π·L·f/c) over the unfolded 3-D length L at f = 60.48 GHz (802.11ad
//! channel 2), the wall's reflection loss, and the antenna gains of the beam pair. Antennas
//! (seed 001 §IV): TX horn 20 dBi, half-power beamwidths 15° in azimuth (H-plane) and 14° in
//! elevation (E-plane); RX patch array 17 dBi, 11° azimuth, 24° elevation; pattern
//! G − min(12·(Δaz/θaz)² + 12·(Δel/θel)², 25 dB) (the parabolic main lobe of 3GPP TR 38.901
//! Table 7.3-1 with a 25 dB floor), boresight horizontal, beams steered in azimuth. Angles are
//! positive towards +y at both ends, so a reflection off the +y wall is seen by pair (+θ, +θ).
//! Pair powers add over paths in mW (no phases: a power average over small-scale fading).
//!
//! A blocker — a screen of width w and height h standing on the floor, perpendicular to the link
//! at mid-path — walks back and forth across the link between y = −travel and +travel at
//! `speed`. Its attenuation of each path is the double knife-edge model of 3GPP TR 38.901
//! §7.6.4.2 (blockage model B): L = −20·log10(1 − (F_h1 + F_h2)(F_w1 + F_w2)) dB, each edge
//! contributing atan(±(π/2)·√((π/λ)(D1 + D2 − r)))/π with D1 + D2 − r the detour of the path
//! over that edge (the path unfolded at its crossing with the blocker's plane) and the sign +
//! when the screen covers the path on that edge's side. The attenuation thus rises smoothly as
//! the blocker enters the first Fresnel zone and reaches 17–19 dB with the path at the centre of
//! the default blockers (seed 001 cites 15–35 dB for a human body).
//!
//! | | scenario A (lab, trolley) | scenario B (cubicle aisle, manikin) |
//! |---|---|---|
//! | d, heights TX/RX | 3 m, 1 m / 1 m | 3.5 m, 1.6 m / 1 m |
//! | walls (y, reflection loss) | +0.9 m rack 6 dB; −1.2 m plasterboard 8 dB | ±1 m partitions 10 / 12 dB |
//! | blocker w × h, travel | 0.5 × 1.2 m, ±0.6 m | 0.45 × 1.9 m, ±0.7 m |
//! | motion | 0.2 m/s in 0.2 m steps, interpolated | 0.1 m/s, continuous |
//! | TX power (default) | −22 dBm | −10 dBm |
//!
//! Stated by seed 001: distances, heights, 0.2 m steps (A), 1.9 m manikin at 0.1 m/s (B), rich
//! reflections in A, antenna gains and beamwidths. Assumed: wall positions and losses, blocker
//! widths, the trolley's height and speed, the transmit powers (chosen so that the unblocked
//! SNR is 24–27 dB, MCS 12 with a few dB to spare, and blockage moves the link down the MCS
//! range as the seed's Fig. 6a shows). Scenario A's blocker moves in 0.2 m steps like the
//! measurement, and the per-path blockage (dB) is interpolated linearly in time between steps,
//! as the seed interpolates its measurements. Each sample (every `interval`, default 10 ms) adds
//! an independent Gaussian variation of `jitter_db` (default 0.3 dB) to every pair's power, drawn
//! from the link's random stream. Not modelled: floor/ceiling reflections, the blocker as a
//! reflector, oxygen absorption (≈ 0.05 dB over 3.5 m), small-scale fading.

use super::gaussian::{gaussian_tail, gaussian_tail_inverse};
use super::{RadioContext, SinrProcess, SinrStep};
use crate::error::InputContext;
use crate::error::InputError;
use crate::sim::{Duration, Rng, SimTime};
use crate::trace_file::{data_lines, is_header, parse_db, parse_time, read_trace, TraceFileErrors};
use crate::units::{Frequency, Time};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;
use std::fmt::Write as _;

// ---------------------------------------------------------------------------------------------
// Link-to-system mapping
// ---------------------------------------------------------------------------------------------

/// The constellation of an SC MCS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modulation {
    /// π/2-BPSK.
    Bpsk,
    /// π/2-QPSK.
    Qpsk,
    /// π/2-16-QAM.
    Qam16,
}

impl Modulation {
    /// Coded bits per symbol.
    pub fn bits(self) -> u8 {
        match self {
            Modulation::Bpsk => 1,
            Modulation::Qpsk => 2,
            Modulation::Qam16 => 4,
        }
    }
}

/// One SC MCS of IEEE 802.11ad.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScMcs {
    pub mcs: u8,
    pub modulation: Modulation,
    /// LDPC code rate.
    pub code_rate: f64,
    /// Repetition factor (2 for MCS 1, else 1).
    pub repetition: u8,
    /// Receiver sensitivity, dBm (IEEE 802.11ad-2012 Table 21-3).
    pub sensitivity_dbm: f64,
}

impl ScMcs {
    /// Bits per symbol × code rate ÷ repetition.
    pub fn spectral_efficiency(&self) -> f64 {
        self.modulation.bits() as f64 * self.code_rate / self.repetition as f64
    }
}

const fn sc(mcs: u8, modulation: Modulation, code_rate: f64, repetition: u8, sensitivity_dbm: f64) -> ScMcs {
    ScMcs { mcs, modulation, code_rate, repetition, sensitivity_dbm }
}

/// SC MCS 1–12 (IEEE 802.11ad-2012 clause 21; sensitivities from Table 21-3).
pub const SC_MCS: [ScMcs; 12] = [
    sc(1, Modulation::Bpsk, 0.5, 2, -68.0),
    sc(2, Modulation::Bpsk, 0.5, 1, -66.0),
    sc(3, Modulation::Bpsk, 0.625, 1, -65.0),
    sc(4, Modulation::Bpsk, 0.75, 1, -64.0),
    sc(5, Modulation::Bpsk, 0.8125, 1, -62.0),
    sc(6, Modulation::Qpsk, 0.5, 1, -63.0),
    sc(7, Modulation::Qpsk, 0.625, 1, -62.0),
    sc(8, Modulation::Qpsk, 0.75, 1, -61.0),
    sc(9, Modulation::Qpsk, 0.8125, 1, -59.0),
    sc(10, Modulation::Qam16, 0.5, 1, -55.0),
    sc(11, Modulation::Qam16, 0.625, 1, -54.0),
    sc(12, Modulation::Qam16, 0.75, 1, -53.0),
];

/// Noise bandwidth used to turn a sensitivity into an Es/N0: the SC symbol rate, 1.76 GHz.
pub const SENSITIVITY_NOISE_BANDWIDTH_HZ: f64 = 1.76e9;
/// Noise figure the standard's sensitivities assume, dB.
pub const SENSITIVITY_NOISE_FIGURE_DB: f64 = 10.0;
/// Implementation loss the standard's sensitivities assume, dB.
pub const SENSITIVITY_IMPLEMENTATION_LOSS_DB: f64 = 5.0;
/// Packet error rate at the sensitivity level.
pub const SENSITIVITY_PER: f64 = 0.01;

/// Thermal noise power over `bandwidth_hz` at −174 dBm/Hz, dBm (seed 001 eq. 1).
pub fn thermal_noise_dbm(bandwidth_hz: f64) -> f64 {
    -174.0 + 10.0 * libm::log10(bandwidth_hz)
}

/// The SC MCS `mcs` (1–12). Panics outside that range: a caller bug.
pub fn sc_mcs(mcs: u8) -> &'static ScMcs {
    assert!((1..=12).contains(&mcs), "802.11ad SC MCS {mcs} is not in 1..=12");
    &SC_MCS[mcs as usize - 1]
}

/// The MER (dB) at which `mcs` reaches the standard's 1 % packet error rate: its sensitivity
/// less the noise over 1.76 GHz, the 10 dB noise figure and the 5 dB implementation loss.
pub fn required_mer_db(mcs: u8) -> f64 {
    sc_mcs(mcs).sensitivity_dbm
        - (thermal_noise_dbm(SENSITIVITY_NOISE_BANDWIDTH_HZ) + SENSITIVITY_NOISE_FIGURE_DB)
        - SENSITIVITY_IMPLEMENTATION_LOSS_DB
}

const J_BREAK: f64 = 1.6363;

fn j_cubic(x: f64) -> f64 {
    -0.04210661 * x * x * x + 0.209252 * x * x - 0.00640081 * x
}

/// J(x) of the IEEE 802.16m EMD (eq. 52), made monotone (see the module header).
pub fn j_function(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else if x < J_BREAK {
        j_cubic(x).max(0.0)
    } else if x >= 20.0 {
        1.0
    } else {
        let upper = 1.0 - libm::exp(0.00181492 * x * x * x - 0.142675 * x * x - 0.0822054 * x + 0.0549608);
        upper.max(j_cubic(J_BREAK))
    }
}

/// Mean mutual information per coded bit of `modulation` at linear SNR (Es/N0) `snr`.
pub fn mmib(modulation: Modulation, snr: f64) -> f64 {
    if snr == f64::INFINITY {
        return 1.0;
    }
    let s = libm::sqrt(snr.max(0.0));
    match modulation {
        Modulation::Bpsk => j_function(libm::sqrt(8.0) * s),
        Modulation::Qpsk => j_function(2.0 * s),
        Modulation::Qam16 => {
            0.5 * j_function(0.8 * s) + 0.25 * j_function(2.17 * s) + 0.25 * j_function(0.965 * s)
        }
    }
}

/// dB to linear.
fn from_db(db: f64) -> f64 {
    libm::pow(10.0, db / 10.0)
}

/// The BLER model of the 12 SC MCSs: X₁ and X₂ per MCS (seed 001 eq. 4).
#[derive(Clone, Debug, PartialEq)]
pub struct ScBlerModel {
    x1: [f64; 12],
    x2: [f64; 12],
}

impl ScBlerModel {
    /// X₁, X₂ fitted to the standard's sensitivities (module header): BLER 1 % at
    /// [`required_mer_db`] and 50 % `waterfall_db` below it. `waterfall_db` must be > 0.
    pub fn fitted(waterfall_db: f64) -> ScBlerModel {
        assert!(waterfall_db > 0.0, "waterfall_db must be > 0");
        let z = gaussian_tail_inverse(SENSITIVITY_PER);
        let mut model = ScBlerModel { x1: [0.0; 12], x2: [0.0; 12] };
        for (i, row) in SC_MCS.iter().enumerate() {
            let mer = required_mer_db(row.mcs);
            let x1 = mmib(row.modulation, from_db(mer - waterfall_db));
            let at_target = mmib(row.modulation, from_db(mer));
            model.x1[i] = x1;
            model.x2[i] = (at_target - x1) / z;
        }
        model
    }

    /// Explicit X₁ (in (0, 1)) and X₂ (> 0) for MCS 1–12.
    pub fn from_parameters(x1: [f64; 12], x2: [f64; 12]) -> ScBlerModel {
        ScBlerModel { x1, x2 }
    }

    pub fn x1(&self, mcs: u8) -> f64 {
        self.x1[sc_mcs(mcs).mcs as usize - 1]
    }

    pub fn x2(&self, mcs: u8) -> f64 {
        self.x2[sc_mcs(mcs).mcs as usize - 1]
    }

    /// Block (packet) error probability of `mcs` at MER `mer_db` (1 at −∞).
    pub fn bler(&self, mcs: u8, mer_db: f64) -> f64 {
        if mer_db == f64::NEG_INFINITY {
            return 1.0;
        }
        let row = sc_mcs(mcs);
        let i = row.mcs as usize - 1;
        let m = mmib(row.modulation, from_db(mer_db));
        gaussian_tail((m - self.x1[i]) / self.x2[i])
    }

    /// The MER (dB) at which the BLER of `mcs` falls to `bler`: +∞ if it never does, −∞ if it
    /// is below `bler` at any MER. Found by bisection (construction time only).
    pub fn mer_at_bler_db(&self, mcs: u8, bler: f64) -> f64 {
        let row = sc_mcs(mcs);
        let i = row.mcs as usize - 1;
        let needed = self.x1[i] + self.x2[i] * gaussian_tail_inverse(bler);
        let meets = |mer: f64| mmib(row.modulation, from_db(mer)) >= needed;
        let (mut lo, mut hi) = (-100.0, 100.0);
        if !meets(hi) {
            return f64::INFINITY;
        }
        if meets(lo) {
            return f64::NEG_INFINITY;
        }
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if meets(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }
}

// ---------------------------------------------------------------------------------------------
// Channel configuration
// ---------------------------------------------------------------------------------------------

/// `[link.radio.channel]` with `kind = "ieee80211ad"`: `{ source = { kind = "synthetic",
/// scenario = "b" } }` or `{ source = { kind = "trace", file = "beams.csv" } }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ieee80211adConfig {
    /// Where the per-beam-pair received powers come from (required).
    pub source: BeamSource,
    /// Receiver noise figure added to the thermal noise, dB, ≥ 0. Default 0: seed 001's eq. (1)
    /// has none (the demodulator's losses are in the AMC's Δ).
    #[serde(default)]
    pub noise_figure_db: f64,
}

/// The received powers per beam pair, selected by `kind`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BeamSource {
    /// `{ kind = "trace", file, repeat }`.
    Trace(BeamTraceConfig),
    /// `{ kind = "synthetic", scenario, ... }`.
    Synthetic(SyntheticConfig),
}

/// A beam-pair power trace (format in the module header).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeamTraceConfig {
    /// Path of the trace, relative to the scenario file's directory unless absolute (required).
    pub file: String,
    /// Whether the trace loops, with the last time as the period. Default `false`.
    #[serde(default)]
    pub repeat: bool,
}

/// Seed 001's measurement scenarios.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scenario {
    /// Laboratory, trolley crossing in 0.2 m steps, rich reflections.
    A,
    /// Cubicle aisle, 1.9 m manikin crossing at 0.1 m/s.
    #[default]
    B,
}

/// The synthetic generator. Every key but `scenario` has a per-scenario default (module header).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "RawSyntheticConfig")]
pub struct SyntheticConfig {
    /// `"a"` or `"b"` (required).
    pub scenario: Scenario,
    /// Transmit power, dBm. Default A −22, B −10.
    pub tx_power_dbm: f64,
    /// Blocker speed, m/s, > 0. Default A 0.2, B 0.1.
    pub speed: f64,
    /// The blocker walks between y = −travel and +travel (m, > 0). Default A 0.6, B 0.7.
    pub travel: f64,
    /// The blocker moves in steps of this size (m), interpolated in between; 0 = continuous.
    /// Default A 0.2, B 0.
    pub position_step: f64,
    /// Blocker width, m, > 0. Default A 0.5, B 0.45.
    pub blocker_width: f64,
    /// Blocker height, m, > 0. Default A 1.2, B 1.9.
    pub blocker_height: f64,
    /// Sampling interval of the powers (and of SNR changes), > 0. Default `"10ms"`.
    pub interval: Time,
    /// Standard deviation of the independent per-sample, per-pair power variation, dB, ≥ 0.
    /// Default 0.3.
    pub jitter_db: f64,
    /// Carrier frequency. Default `"60.48GHz"` (802.11ad channel 2).
    pub frequency: Frequency,
}

/// A `synthetic` table as written, before its per-scenario defaults are filled in.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawSyntheticConfig {
    scenario: Scenario,
    tx_power_dbm: Option<f64>,
    speed: Option<f64>,
    travel: Option<f64>,
    position_step: Option<f64>,
    blocker_width: Option<f64>,
    blocker_height: Option<f64>,
    interval: Option<Time>,
    jitter_db: Option<f64>,
    frequency: Option<Frequency>,
}

impl From<RawSyntheticConfig> for SyntheticConfig {
    fn from(raw: RawSyntheticConfig) -> SyntheticConfig {
        let (tx_power_dbm, speed, travel, position_step, blocker_width, blocker_height) = match raw.scenario {
            Scenario::A => (-22.0, 0.2, 0.6, 0.2, 0.5, 1.2),
            Scenario::B => (-10.0, 0.1, 0.7, 0.0, 0.45, 1.9),
        };
        SyntheticConfig {
            scenario: raw.scenario,
            tx_power_dbm: raw.tx_power_dbm.unwrap_or(tx_power_dbm),
            speed: raw.speed.unwrap_or(speed),
            travel: raw.travel.unwrap_or(travel),
            position_step: raw.position_step.unwrap_or(position_step),
            blocker_width: raw.blocker_width.unwrap_or(blocker_width),
            blocker_height: raw.blocker_height.unwrap_or(blocker_height),
            interval: raw.interval.unwrap_or(Time(Duration::from_millis(10))),
            jitter_db: raw.jitter_db.unwrap_or(0.3),
            frequency: raw.frequency.unwrap_or(Frequency(60_480_000_000)),
        }
    }
}

impl SyntheticConfig {
    /// The defaults of `scenario`.
    pub fn for_scenario(scenario: Scenario) -> SyntheticConfig {
        RawSyntheticConfig { scenario, ..Default::default() }.into()
    }
}

// ---------------------------------------------------------------------------------------------
// Synthetic geometry
// ---------------------------------------------------------------------------------------------

/// Beam steering angles at each end, degrees (seed 001: −30°…30° in 10° steps).
pub const BEAM_ANGLES_DEG: [f64; 7] = [-30.0, -20.0, -10.0, 0.0, 10.0, 20.0, 30.0];
/// Number of TX × RX beam pairs; pair `i` is (BEAM_ANGLES_DEG[i / 7], BEAM_ANGLES_DEG[i % 7]).
pub const PAIRS: usize = 49;

/// The (TX, RX) angles of pair `index`.
pub fn pair_angles(index: usize) -> (f64, f64) {
    (BEAM_ANGLES_DEG[index / 7], BEAM_ANGLES_DEG[index % 7])
}

const SPEED_OF_LIGHT: f64 = 299_792_458.0;
/// Paths per room: the LOS and one reflection per wall.
const MAX_PATHS: usize = 3;
/// Side-lobe floor of the antenna patterns, dB below the peak.
const PATTERN_FLOOR_DB: f64 = 25.0;

/// An antenna: peak gain and half-power beamwidths.
struct Antenna {
    gain_dbi: f64,
    hpbw_az_deg: f64,
    hpbw_el_deg: f64,
}

/// Seed 001 §IV: the TX horn and the RX patch array.
const TX_ANTENNA: Antenna = Antenna { gain_dbi: 20.0, hpbw_az_deg: 15.0, hpbw_el_deg: 14.0 };
const RX_ANTENNA: Antenna = Antenna { gain_dbi: 17.0, hpbw_az_deg: 11.0, hpbw_el_deg: 24.0 };

impl Antenna {
    /// Gain (dBi) towards a direction `az`, `el` degrees off the beam's boresight.
    fn gain_db(&self, az: f64, el: f64) -> f64 {
        let a = 12.0 * (az / self.hpbw_az_deg) * (az / self.hpbw_az_deg)
            + 12.0 * (el / self.hpbw_el_deg) * (el / self.hpbw_el_deg);
        self.gain_dbi - a.min(PATTERN_FLOOR_DB)
    }
}

/// A room: link length, antenna heights, and side walls (y position, reflection loss in dB).
struct Room {
    distance: f64,
    tx_height: f64,
    rx_height: f64,
    walls: &'static [(f64, f64)],
}

const ROOM_A: Room =
    Room { distance: 3.0, tx_height: 1.0, rx_height: 1.0, walls: &[(0.9, 6.0), (-1.2, 8.0)] };
const ROOM_B: Room =
    Room { distance: 3.5, tx_height: 1.6, rx_height: 1.0, walls: &[(1.0, 10.0), (-1.0, 12.0)] };

/// One propagation path: its unblocked power per beam pair and where it crosses the plane of the
/// blocker (x = d/2).
#[derive(Clone, Debug)]
struct PathGeometry {
    /// Received power per beam pair without blockage, mW.
    pair_mw: [f64; PAIRS],
    /// Lateral position and height of the crossing, m.
    y_cross: f64,
    z_cross: f64,
    /// Path length from TX to the crossing and from the crossing to RX, m.
    to_cross: f64,
    from_cross: f64,
}

/// Attenuation (dB) of a floor-standing screen [y_b ± w/2] × [0, h] in the plane the path
/// crosses at (y, z), the path being `a` and `b` long on either side (TR 38.901 §7.6.4.2, model B).
fn screen_attenuation_db(path: &PathGeometry, y_b: f64, width: f64, height: f64, wavelength: f64) -> f64 {
    let (a, b) = (path.to_cross, path.from_cross);
    // One edge at signed offset `delta` = edge − path position: ±A(|delta|), the sign saying on
    // which side of the path the edge lies.
    let edge = |delta: f64| -> f64 {
        let detour = libm::sqrt(a * a + delta * delta) + libm::sqrt(b * b + delta * delta) - a - b;
        let f = libm::atan(PI / 2.0 * libm::sqrt(PI / wavelength * detour.max(0.0))) / PI;
        if delta > 0.0 {
            f
        } else {
            -f
        }
    };
    // Fraction of the Fresnel zone the strip between two edges covers, in each dimension: the
    // path is covered by the strip on an edge's side when the signed offset says so.
    let strip = |low: f64, high: f64| edge(high) - edge(low);
    let lateral = strip(y_b - width / 2.0 - path.y_cross, y_b + width / 2.0 - path.y_cross);
    let vertical = strip(-path.z_cross, height - path.z_cross);
    let field = (1.0 - lateral * vertical).max(1e-12);
    -20.0 * libm::log10(field)
}

/// The synthetic beam-pair channel of a [`SyntheticConfig`], validated.
#[derive(Clone, Debug)]
pub struct SyntheticChannel {
    paths: Vec<PathGeometry>,
    wavelength: f64,
    blocker_width: f64,
    blocker_height: f64,
    travel: f64,
    position_step: f64,
    interval: Duration,
    /// Samples per period of the back-and-forth walk.
    samples: u64,
    jitter_db: f64,
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
        Ok(SyntheticChannel {
            paths: lay_out(room, config.tx_power_dbm, wavelength),
            wavelength,
            blocker_width: config.blocker_width,
            blocker_height: config.blocker_height,
            travel: config.travel,
            position_step: config.position_step,
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
        self.paths
            .iter()
            .map(|p| screen_attenuation_db(p, y_b, self.blocker_width, self.blocker_height, self.wavelength))
            .collect()
    }

    /// Per-path blockage at sample `k`, with quantised motion interpolated between steps.
    fn blockage_at(&self, k: u64, out: &mut [f64]) {
        let y = self.blocker_position(k);
        let step = self.position_step;
        let at = |y_b: f64, out: &mut [f64]| {
            for (o, p) in out.iter_mut().zip(&self.paths) {
                *o = screen_attenuation_db(p, y_b, self.blocker_width, self.blocker_height, self.wavelength);
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
    /// (`time,tx_deg,rx_deg,power_dbm`, module header), plus the closing time that equals the
    /// start, so that it replays with `repeat = true`.
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

/// The paths of `room` (LOS, then one reflection per wall) with their unblocked pair powers.
fn lay_out(room: &Room, tx_power_dbm: f64, wavelength: f64) -> Vec<PathGeometry> {
    let d = room.distance;
    let dh = room.tx_height - room.rx_height;
    debug_assert!(room.walls.len() < MAX_PATHS);
    let mut walls: Vec<(Option<f64>, f64)> = vec![(None, 0.0)];
    walls.extend(room.walls.iter().map(|&(y, loss)| (Some(y), loss)));
    walls
        .into_iter()
        .map(|(wall, reflection_loss_db)| {
            // Image method: the RX mirrored in the wall; the unfolded path is a straight line.
            let y_image = wall.map_or(0.0, |w| 2.0 * w);
            let horizontal = libm::hypot(d, y_image);
            let length = libm::hypot(horizontal, dh);
            let az = libm::atan2(y_image, d).to_degrees();
            let el = libm::atan2(dh.abs(), horizontal).to_degrees();
            let fspl_db = 20.0 * libm::log10(4.0 * PI * length / wavelength);
            let mut pair_mw = [0.0; PAIRS];
            for (i, mw) in pair_mw.iter_mut().enumerate() {
                let (tx, rx) = pair_angles(i);
                let gains = TX_ANTENNA.gain_db(tx - az, el) + RX_ANTENNA.gain_db(rx - az, el);
                *mw = from_db(tx_power_dbm + gains - fspl_db - reflection_loss_db);
            }
            // Crossing with the blocker's plane at mid-path: half-way along the unfolded line.
            let y_unfolded = 0.5 * y_image;
            let y_cross = match wall {
                Some(w) if y_unfolded.abs() > w.abs() => 2.0 * w - y_unfolded,
                _ => y_unfolded,
            };
            PathGeometry {
                pair_mw,
                y_cross,
                z_cross: room.tx_height - 0.5 * dh,
                to_cross: 0.5 * length,
                from_cross: 0.5 * length,
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Beam-pair traces
// ---------------------------------------------------------------------------------------------

/// The best pair of one time of a trace.
#[derive(Clone, Copy, Debug, PartialEq)]
struct TraceStep {
    at: Duration,
    best_dbm: f64,
    best_pair: Option<(f64, f64)>,
}

/// Steps (best power per time, equal neighbours merged) and period of a beam-pair trace.
fn parse_beam_trace(
    text: &str,
    repeat: bool,
    errors: &TraceFileErrors,
) -> Result<(Vec<TraceStep>, Option<Duration>), InputError> {
    /// The rows of one time: its first line, its best pair, the pairs seen.
    type Group = (usize, TraceStep, Vec<(f64, f64)>);
    let mut groups: Vec<Group> = Vec::new();
    for (index, (line, content)) in data_lines(text).enumerate() {
        let fields: Vec<&str> = content.split(',').map(str::trim).collect();
        if index == 0 && is_header(&fields) {
            continue;
        }
        let [time, tx, rx, power] = fields[..] else {
            return Err(errors.at_line(
                line,
                format!("expected four fields `time,tx_deg,rx_deg,power_dbm`, found {}", fields.len()),
            ));
        };
        let time = parse_time(time).map_err(|m| errors.at_line(line, m))?;
        let angle = |text: &str, what: &str| match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(errors.at_line(line, format!("\"{text}\" is not {what}; expected a number of degrees"))),
        };
        let pair = (angle(tx, "a TX angle")?, angle(rx, "an RX angle")?);
        let power = parse_db(power, "a power").map_err(|m| errors.at_line(line, m))?;
        let new_group = match groups.last() {
            None if time != Duration::ZERO => return Err(errors.not_at_zero(line, time)),
            None => true,
            Some((_, step, _)) if time < step.at => {
                return Err(errors.at_line(
                    line,
                    format!(
                        "time {} is before the previous row's {}; times must be non-decreasing, the rows of one \
                         time together",
                        Time(time),
                        Time(step.at)
                    ),
                ));
            }
            Some((_, step, _)) => time > step.at,
        };
        if new_group {
            let step = TraceStep { at: time, best_dbm: f64::NEG_INFINITY, best_pair: None };
            groups.push((line, step, Vec::new()));
        }
        let (_, step, seen) = groups.last_mut().expect("a group was just ensured");
        if seen.contains(&pair) {
            return Err(errors.at_line(
                line,
                format!("pair ({}°, {}°) appears twice at time {}", pair.0, pair.1, Time(time)),
            ));
        }
        seen.push(pair);
        if power > step.best_dbm {
            step.best_dbm = power;
            step.best_pair = Some(pair);
        }
    }
    if groups.is_empty() {
        return Err(errors.whole_file(
            "the trace has no rows; expected lines `time,tx_deg,rx_deg,power_dbm`, e.g. `0,-10,0,-60.5`",
        ));
    }
    let period = if repeat {
        let (line, last, _) = groups.pop().expect("groups is not empty");
        let Some((_, first, _)) = groups.first() else {
            return Err(errors.at_line(
                line,
                "with repeat = true the last time is the period, so the trace needs at least two times",
            ));
        };
        if last.best_dbm != first.best_dbm {
            return Err(errors.at_line(
                line,
                format!(
                    "with repeat = true the last time ends the period and begins the next repetition, so its best \
                     power must equal the first time's {} dBm (found {} dBm); or set repeat = false",
                    first.best_dbm, last.best_dbm
                ),
            ));
        }
        Some(last.at)
    } else {
        None
    };
    let mut steps: Vec<TraceStep> = Vec::new();
    for (_, step, _) in groups {
        if steps.last().map(|s| s.best_dbm) != Some(step.best_dbm) {
            steps.push(step);
        }
    }
    Ok((steps, period))
}

// ---------------------------------------------------------------------------------------------
// The SINR process
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Source {
    Trace { steps: Vec<TraceStep>, period: Option<Duration>, cycle_start: SimTime },
    Synthetic(SyntheticChannel),
}

/// The SINR process of an [`Ieee80211adConfig`]: the SNR of the best beam pair.
#[derive(Clone, Debug)]
pub struct Ieee80211adChannel {
    noise_dbm: f64,
    source: Source,
    /// Trace: the step that begins at the next call. Synthetic: the next sample's index.
    next: u64,
    best_pair: Option<(f64, f64)>,
}

impl Ieee80211adChannel {
    /// Validates `config`, reads a trace (relative to `ctx.channel.base_dir`) or lays out the
    /// synthetic room; noise is computed over `ctx.bandwidth_hz`.
    pub fn new(config: &Ieee80211adConfig, ctx: &RadioContext) -> Result<Ieee80211adChannel, InputError> {
        let channel = &ctx.channel;
        if !(config.noise_figure_db.is_finite() && config.noise_figure_db >= 0.0) {
            return Err(channel.error("noise_figure_db", "must be a number of dB ≥ 0"));
        }
        if !(ctx.bandwidth_hz.is_finite() && ctx.bandwidth_hz > 0.0) {
            let message = format!("the link's bandwidth ({} Hz) must be > 0", ctx.bandwidth_hz);
            return Err(InputError::new(channel.scenario_file, channel.field, message));
        }
        let source = match &config.source {
            BeamSource::Trace(trace) => {
                let (text, errors) = read_trace(channel, "source.file", &trace.file)?;
                let (steps, period) = parse_beam_trace(&text, trace.repeat, &errors)?;
                let period = period.filter(|_| steps.len() > 1);
                Source::Trace { steps, period, cycle_start: SimTime::ZERO }
            }
            BeamSource::Synthetic(synthetic) => Source::Synthetic(SyntheticChannel::new(synthetic, channel)?),
        };
        Ok(Ieee80211adChannel {
            noise_dbm: thermal_noise_dbm(ctx.bandwidth_hz) + config.noise_figure_db,
            source,
            next: 0,
            best_pair: None,
        })
    }

    /// Noise power over the link's bandwidth, dBm.
    pub fn noise_dbm(&self) -> f64 {
        self.noise_dbm
    }

    /// The (TX, RX) angles of the pair chosen at the last step; `None` before the first step
    /// or when nothing is received.
    pub fn best_pair(&self) -> Option<(f64, f64)> {
        self.best_pair
    }
}

impl SinrProcess for Ieee80211adChannel {
    fn step(&mut self, now: SimTime, rng: &mut Rng) -> SinrStep {
        match &mut self.source {
            Source::Synthetic(synthetic) => {
                let k = self.next;
                let mut powers = synthetic.powers_dbm(k);
                if synthetic.jitter_db > 0.0 {
                    for p in powers.iter_mut() {
                        *p += synthetic.jitter_db * rng.standard_normal();
                    }
                }
                let (best, best_dbm) = powers
                    .iter()
                    .enumerate()
                    .fold((0, f64::NEG_INFINITY), |acc, (i, &p)| if p > acc.1 { (i, p) } else { acc });
                self.best_pair = Some(pair_angles(best));
                self.next = k + 1;
                let next_change = SimTime::ZERO + synthetic.interval.saturating_mul(k + 1);
                debug_assert!(next_change > now, "synthetic 802.11ad channel stepped off its schedule");
                SinrStep { sinr_db: best_dbm - self.noise_dbm, next_change: Some(next_change) }
            }
            Source::Trace { steps, period, cycle_start } => {
                let mut next = self.next as usize;
                debug_assert_eq!(now, *cycle_start + steps[next].at, "trace stepped off its schedule");
                let current = steps[next];
                self.best_pair = current.best_pair;
                let sinr_db = current.best_dbm - self.noise_dbm;
                let next_change = loop {
                    if next + 1 < steps.len() {
                        next += 1;
                    } else if let Some(period) = *period {
                        next = 0;
                        *cycle_start += period;
                    } else {
                        break None;
                    }
                    if steps[next].best_dbm != current.best_dbm {
                        break Some(*cycle_start + steps[next].at);
                    }
                };
                self.next = next as u64;
                SinrStep { sinr_db, next_change }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::sinr_trace::drive;
    use super::*;
    use std::path::{Path, PathBuf};

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/radio")
    }

    fn ctx_in(base_dir: &Path) -> RadioContext<'_> {
        RadioContext {
            channel: InputContext { scenario_file: "s.toml", field: "link[0].radio.channel", base_dir },
            bandwidth_hz: 500e6,
        }
    }

    fn synthetic(config: SyntheticConfig) -> Ieee80211adChannel {
        let config = Ieee80211adConfig { source: BeamSource::Synthetic(config), noise_figure_db: 0.0 };
        Ieee80211adChannel::new(&config, &ctx_in(Path::new("."))).unwrap()
    }

    fn quiet(scenario: Scenario) -> SyntheticConfig {
        SyntheticConfig { jitter_db: 0.0, ..SyntheticConfig::for_scenario(scenario) }
    }

    #[test]
    fn test_sc_table_spectral_efficiencies() {
        let se: Vec<f64> = SC_MCS.iter().map(ScMcs::spectral_efficiency).collect();
        assert_eq!(se, [0.25, 0.5, 0.625, 0.75, 0.8125, 1.0, 1.25, 1.5, 1.625, 2.0, 2.5, 3.0]);
        assert_eq!(SC_MCS.iter().map(|m| m.mcs).collect::<Vec<_>>(), (1..=12).collect::<Vec<_>>());
    }

    #[test]
    fn test_noise_power_at_500_mhz_is_seed_001_value() {
        assert!((thermal_noise_dbm(500e6) - (-87.01)).abs() < 0.005, "{}", thermal_noise_dbm(500e6));
    }

    #[test]
    fn test_required_mer_from_sensitivity() {
        // −174 + 10·log10(1.76e9) = −81.545 dBm; + 10 dB noise figure; − 5 dB implementation loss.
        assert!((required_mer_db(1) - (-1.4551)).abs() < 1e-3, "{}", required_mer_db(1));
        assert!((required_mer_db(12) - 13.5449).abs() < 1e-3, "{}", required_mer_db(12));
    }

    #[test]
    fn test_j_and_mmib_are_monotone_between_0_and_1() {
        assert_eq!(j_function(0.0), 0.0);
        assert_eq!(j_function(25.0), 1.0);
        // Published points of the approximation (either branch).
        assert!((j_function(1.0) - 0.16074).abs() < 1e-5);
        assert!(
            (j_function(3.0) - (1.0 - libm::exp(0.00181492 * 27.0 - 0.142675 * 9.0 - 0.2466162 + 0.0549608)))
                .abs()
                < 1e-12
        );
        let mut previous = [0.0; 3];
        for i in 0..=6000 {
            let db = -30.0 + i as f64 * 0.01;
            for (m, modulation) in
                [Modulation::Bpsk, Modulation::Qpsk, Modulation::Qam16].into_iter().enumerate()
            {
                let v = mmib(modulation, from_db(db));
                assert!((0.0..=1.0).contains(&v) && v >= previous[m], "{modulation:?} at {db} dB: {v}");
                previous[m] = v;
            }
        }
        // At a given SNR, denser constellations carry less information per bit.
        let s = from_db(5.0);
        assert!(mmib(Modulation::Bpsk, s) > mmib(Modulation::Qpsk, s));
        assert!(mmib(Modulation::Qpsk, s) > mmib(Modulation::Qam16, s));
        assert_eq!(mmib(Modulation::Qam16, f64::INFINITY), 1.0);
    }

    #[test]
    fn test_fit_meets_sensitivity_points() {
        let model = ScBlerModel::fitted(1.0);
        for mcs in 1..=12 {
            let mer = required_mer_db(mcs);
            assert!((model.bler(mcs, mer) - 0.01).abs() < 1e-9, "MCS {mcs}");
            assert!((model.bler(mcs, mer - 1.0) - 0.5).abs() < 1e-9, "MCS {mcs}");
            assert!((model.mer_at_bler_db(mcs, 0.01) - mer).abs() < 1e-9, "MCS {mcs}");
            assert_eq!(model.bler(mcs, f64::NEG_INFINITY), 1.0);
            // X₁ exceeds the code rate per coded bit: a code needs more information than it carries.
            let row = sc_mcs(mcs);
            assert!(model.x1(mcs) > row.code_rate / row.repetition as f64, "MCS {mcs}");
        }
    }

    #[test]
    fn test_config_parses_with_scenario_defaults_and_round_trips() {
        let c: Ieee80211adConfig =
            toml::from_str("source = { kind = \"synthetic\", scenario = \"a\" }").unwrap();
        let BeamSource::Synthetic(s) = &c.source else { panic!("{c:?}") };
        assert_eq!(s, &SyntheticConfig::for_scenario(Scenario::A));
        assert_eq!((s.tx_power_dbm, s.speed, s.position_step, s.blocker_height), (-22.0, 0.2, 0.2, 1.2));
        assert_eq!(s.interval, Time(Duration::from_millis(10)));
        let resolved = toml::to_string(&c).unwrap();
        assert_eq!(toml::from_str::<Ieee80211adConfig>(&resolved).unwrap(), c, "{resolved}");

        let c: Ieee80211adConfig =
            toml::from_str("noise_figure_db = 7\n[source]\nkind = \"trace\"\nfile = \"b.csv\"").unwrap();
        assert_eq!(c.source, BeamSource::Trace(BeamTraceConfig { file: "b.csv".into(), repeat: false }));
        assert_eq!(c.noise_figure_db, 7.0);

        for text in [
            "source = { kind = \"synthetic\", scenario = \"b\", sped = 1 }",
            "source = { kind = \"trace\", file = \"b.csv\", sped = 1 }",
            "sped = 1\nsource = { kind = \"trace\", file = \"b.csv\" }",
        ] {
            let err = toml::from_str::<Ieee80211adConfig>(text).unwrap_err().to_string();
            assert!(err.contains("sped"), "{err}");
        }
    }

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

    #[test]
    fn test_unblocked_snr_is_free_space_plus_beam_gain() {
        // Blocker far away (travel 5 m): the LOS pair's SNR is Pt + G_tx + G_rx − elevation
        // pattern loss − free-space loss − P_noise, up to the reflections' side-lobe leakage.
        for (scenario, d, dh, tx_power) in [(Scenario::A, 3.0, 0.0, -22.0), (Scenario::B, 3.5, 0.6, -10.0)] {
            let config = SyntheticConfig { travel: 5.0, ..quiet(scenario) };
            let mut channel = synthetic(config);
            let step = channel.step(SimTime::ZERO, &mut Rng::for_component(1, "c"));
            let length = libm::hypot(d, dh);
            let wavelength = SPEED_OF_LIGHT / 60.48e9;
            let el = libm::atan2(dh, d).to_degrees();
            let gains = 20.0 - 12.0 * (el / 14.0) * (el / 14.0) + 17.0 - 12.0 * (el / 24.0) * (el / 24.0);
            let fspl = 20.0 * libm::log10(4.0 * PI * length / wavelength);
            let expected = tx_power + gains - fspl - thermal_noise_dbm(500e6);
            assert_eq!(channel.best_pair(), Some((0.0, 0.0)), "{scenario:?}");
            assert!((step.sinr_db - expected).abs() < 0.02, "{scenario:?}: {} vs {expected}", step.sinr_db);
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
    fn test_knife_edge_rises_smoothly_as_the_blocker_enters() {
        let base = PathBuf::from(".");
        let geometry = SyntheticChannel::new(&quiet(Scenario::B), &ctx_in(&base).channel).unwrap();
        let mut previous = f64::INFINITY;
        for i in 0..=70 {
            let y = i as f64 * 0.01; // from the centre outwards
            let los = geometry.blockage_db(y)[0];
            assert!(los <= previous + 1e-12, "not decreasing at {y}: {los}");
            previous = los;
        }
        assert!(previous < 0.2, "{previous}");
    }

    #[test]
    fn test_synthetic_is_deterministic_per_seed_and_periodic() {
        let run = |seed| {
            let mut channel = synthetic(SyntheticConfig::for_scenario(Scenario::B));
            drive(&mut channel, &mut Rng::for_component(seed, "link/ap-ue/channel"), 300)
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
        let mut channel = synthetic(quiet(Scenario::A));
        let n = {
            let Source::Synthetic(s) = &channel.source else { unreachable!() };
            s.samples_per_period() as usize
        };
        let steps = drive(&mut channel, &mut Rng::for_component(1, "c"), n + 1);
        assert_eq!(steps[n].1.sinr_db, steps[0].1.sinr_db);
        assert_eq!(steps[1].0, SimTime::ZERO + Duration::from_millis(10));
    }

    #[test]
    fn test_trace_known_best_pairs() {
        // beams.csv: at 0 s pair (0,0) is best at −60 dBm; at 1 s (−10, 10) at −70 dBm; at 2 s the
        // same −70 dBm (merged); at 3 s nothing is received.
        let config = Ieee80211adConfig {
            source: BeamSource::Trace(BeamTraceConfig { file: "beams.csv".into(), repeat: false }),
            noise_figure_db: 0.0,
        };
        let base = fixtures();
        let mut channel = Ieee80211adChannel::new(&config, &ctx_in(&base)).unwrap();
        let noise = thermal_noise_dbm(500e6);
        let s = |ms| SimTime::ZERO + Duration::from_millis(ms);
        let mut rng = Rng::for_component(1, "c");
        let first = channel.step(s(0), &mut rng);
        assert_eq!(first, SinrStep { sinr_db: -60.0 - noise, next_change: Some(s(1000)) });
        assert_eq!(channel.best_pair(), Some((0.0, 0.0)));
        let second = channel.step(s(1000), &mut rng);
        assert_eq!(second, SinrStep { sinr_db: -70.0 - noise, next_change: Some(s(3000)) });
        assert_eq!(channel.best_pair(), Some((-10.0, 10.0)));
        let third = channel.step(s(3000), &mut rng);
        assert_eq!(third, SinrStep { sinr_db: f64::NEG_INFINITY, next_change: None });
        assert_eq!(channel.best_pair(), None);
    }

    #[test]
    fn test_malformed_beam_traces_name_file_and_line() {
        let base = fixtures();
        for (file, repeat, line, needle) in [
            ("beams_bad_power.csv", false, "line 3", "\"loud\" is not a power"),
            ("beams_bad_angle.csv", false, "line 2", "\"left\" is not a TX angle"),
            ("beams_decreasing.csv", false, "line 4", "time 500ms is before the previous row's 1s"),
            ("beams_duplicate.csv", false, "line 3", "pair (0°, 10°) appears twice"),
            ("beams_three_fields.csv", false, "line 2", "expected four fields"),
            ("beams.csv", true, "line 8", "must equal the first time's -60 dBm"),
        ] {
            let config = Ieee80211adConfig {
                source: BeamSource::Trace(BeamTraceConfig { file: file.into(), repeat }),
                noise_figure_db: 0.0,
            };
            let err = Ieee80211adChannel::new(&config, &ctx_in(&base)).unwrap_err();
            assert!(err.file.ends_with(&format!("tests/data/radio/{file}")), "{}", err.file);
            assert_eq!(err.field, line, "{file}: {}", err.message);
            assert!(err.message.contains(needle), "{file}: {}", err.message);
            assert!(err.message.ends_with("(trace of link[0].radio.channel.source.file in s.toml)"));
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
