//! Large-scale propagation: link-state probabilities (LOS / NLOS / outage), mean path loss per
//! state and the shadowing spread per state. Pure functions of distance, frequency and antenna
//! heights; nothing here draws random numbers.
//!
//! ```text
//!   PL_total(d) = PL_state(d) + σ_state·X      X ~ N(0, 1), in dB
//!   state ∈ {LOS, NLOS, outage} with probabilities p_LOS(d), p_NLOS(d), p_out(d)
//! ```
//!
//! Three families:
//!
//! - **NYU** — M. R. Akdeniz, Y. Liu, M. K. Samimi, S. Sun, S. Rangan, T. S. Rappaport, E. Erkip,
//!   "Millimeter Wave Channel Modeling and Cellular Capacity Evaluation", IEEE JSAC 32(6), 2014:
//!   the three-state (outage / LOS / NLOS) link model and the fitted path loss α + 10β·log10(d)
//!   summarised in their Table I, at 28 and 73 GHz. It is the statistical channel of the ns-3 mmWave module used by
//!   Polese et al. 2017a/004 (Polese et al.).
//! - **3GPP TR 38.901** (v16/v17), "Study on channel model for frequencies from 0.5 to 100 GHz":
//!   path loss and shadowing of Table 7.4.1-1 and LOS probability of Table 7.4.2-1 for the
//!   UMi-Street Canyon, InH-Office (mixed office) and UMa scenarios. These models have no outage
//!   state. UMa at 2.1 GHz is what the LTE companion link of Polese et al. 2017a use here.
//! - **ITU-R P.1411** — Recommendation ITU-R P.1411, "Propagation data and prediction methods for
//!   the planning of short-range outdoor radiocommunication systems and radio local area networks
//!   in the frequency range 300 MHz to 100 GHz", the two-slope line-of-sight model for street
//!   canyons at UHF (§4.1 of P.1411-4, "LoS situations within street canyons"), as ns-3
//!   evaluates it (`src/propagation/model/itu-r-1411-los-propagation-loss-model.cc`). This is the
//!   loss ns-3's `HybridBuildingsPropagationLossModel` gives two outdoor nodes closer than 200 m,
//!   i.e. the LTE link of Polese et al. 2017a/b. Line of sight only.
//!
//! Distances are in metres, frequencies in Hz, heights in metres, losses in dB.

use serde::{Deserialize, Serialize};

/// Speed of light used by TR 38.901 for the breakpoint distance (Table 7.4.1-1, note 1), m/s.
const C_M_PER_S: f64 = 3.0e8;

/// Speed of light in vacuum, m/s: the wavelength of the ITU-R P.1411 model (ns-3 uses this value).
const SPEED_OF_LIGHT_M_PER_S: f64 = 299_792_458.0;

/// Which propagation model a cellular channel uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Propagation {
    /// Akdeniz et al. 2014 (NYU measurements in New York City), 28 or 73 GHz.
    #[default]
    Nyu,
    /// TR 38.901 UMi-Street Canyon (BS 10 m, UT 1.5–22.5 m).
    UmiStreetCanyon,
    /// TR 38.901 InH-Office with the mixed-office LOS probability (BS 3 m, UT 1 m).
    InhOffice,
    /// TR 38.901 UMa (BS 25 m, UT 1.5–13 m here).
    Uma,
    /// ITU-R P.1411 line of sight within a street canyon (eNB 3 m, UE 1 m nominal), as ns-3's
    /// `ItuR1411LosPropagationLossModel`. No NLOS state.
    #[serde(rename = "itu_r_p1411_los")]
    ItuRP1411Los,
}

impl Propagation {
    /// The name used in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Propagation::Nyu => "nyu",
            Propagation::UmiStreetCanyon => "umi_street_canyon",
            Propagation::InhOffice => "inh_office",
            Propagation::Uma => "uma",
            Propagation::ItuRP1411Los => "itu_r_p1411_los",
        }
    }

    /// Nominal (BS, UT) antenna heights in metres: TR 38.901 Table 7.4.1-1 for the 3GPP models;
    /// for ITU-R P.1411 the eNB (3 m) and UE (1 m) heights of the ns-3 DCE script of Polese et al.
    /// (`src/mmwave/examples/dce-example-mptcp-mmwave.cc`). `None` for NYU, whose fits depend on
    /// distance only.
    pub fn nominal_heights_m(self) -> Option<(f64, f64)> {
        match self {
            Propagation::Nyu => None,
            Propagation::UmiStreetCanyon => Some((10.0, 1.5)),
            Propagation::InhOffice => Some((3.0, 1.0)),
            Propagation::Uma => Some((25.0, 1.5)),
            Propagation::ItuRP1411Los => Some((3.0, 1.0)),
        }
    }

    /// Whether the model has only a line-of-sight state (then `visibility` must be `"los"`).
    pub fn los_only(self) -> bool {
        matches!(self, Propagation::ItuRP1411Los)
    }
}

/// The large-scale state of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkState {
    /// Line of sight.
    Los,
    /// Non-line of sight: reflected / diffracted paths only.
    Nlos,
    /// No path at all (NYU model only): no signal is received.
    Outage,
}

/// Probabilities of the three link states at one distance; they sum to 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StateProbabilities {
    pub los: f64,
    pub nlos: f64,
    pub outage: f64,
}

impl StateProbabilities {
    /// Inverse-CDF draw from a uniform `u` in [0, 1): LOS on [0, p_LOS), NLOS on
    /// [p_LOS, p_LOS + p_NLOS), outage on the rest.
    pub fn pick(&self, u: f64) -> LinkState {
        if u < self.los {
            LinkState::Los
        } else if u < self.los + self.nlos {
            LinkState::Nlos
        } else {
            LinkState::Outage
        }
    }

    /// The probability of `state`.
    pub fn of(&self, state: LinkState) -> f64 {
        match state {
            LinkState::Los => self.los,
            LinkState::Nlos => self.nlos,
            LinkState::Outage => self.outage,
        }
    }

    /// A two-state model: LOS with probability `p_los`, NLOS otherwise, never outage.
    fn two_state(p_los: f64) -> StateProbabilities {
        let los = p_los.clamp(0.0, 1.0);
        StateProbabilities { los, nlos: 1.0 - los, outage: 0.0 }
    }
}

// ---------------------------------------------------------------------------------------------
// NYU (Akdeniz et al., JSAC 2014)
// ---------------------------------------------------------------------------------------------

/// 1/a_out of the NYU outage probability, m (Akdeniz et al. Table I).
pub const NYU_OUTAGE_LENGTH_M: f64 = 30.0;
/// b_out of the NYU outage probability (dimensionless): no outage up to 5.2·30 = 156 m.
pub const NYU_OUTAGE_OFFSET: f64 = 5.2;
/// 1/a_LOS of the NYU LOS probability, m.
pub const NYU_LOS_LENGTH_M: f64 = 67.1;

/// NYU outage probability at 2-D distance `d_m`:
/// p_out(d) = max(0, 1 − exp(−a_out·d + b_out)).
pub fn nyu_outage_probability(d_m: f64) -> f64 {
    (1.0 - libm::exp(-d_m / NYU_OUTAGE_LENGTH_M + NYU_OUTAGE_OFFSET)).max(0.0)
}

/// NYU LOS probability at 2-D distance `d_m`: p_LOS(d) = (1 − p_out(d))·exp(−a_LOS·d).
pub fn nyu_los_probability(d_m: f64) -> f64 {
    (1.0 - nyu_outage_probability(d_m)) * libm::exp(-d_m / NYU_LOS_LENGTH_M)
}

/// One NYU path-loss fit: PL(d) = α + 10β·log10(d) dB, shadowing N(0, σ²) dB.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NyuFit {
    pub alpha_db: f64,
    pub beta: f64,
    pub sigma_db: f64,
}

impl NyuFit {
    /// Mean path loss at distance `d_m` (d in metres, as in the paper's fit).
    pub fn mean_db(&self, d_m: f64) -> f64 {
        self.alpha_db + 10.0 * self.beta * libm::log10(d_m)
    }
}

/// The LOS and NLOS fits of one NYU carrier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NyuBand {
    pub los: NyuFit,
    pub nlos: NyuFit,
}

/// Akdeniz et al. Table I, 28 GHz.
pub const NYU_28GHZ: NyuBand = NyuBand {
    los: NyuFit { alpha_db: 61.4, beta: 2.0, sigma_db: 5.8 },
    nlos: NyuFit { alpha_db: 72.0, beta: 2.92, sigma_db: 8.7 },
};

/// Akdeniz et al. Table I, 73 GHz.
pub const NYU_73GHZ: NyuBand = NyuBand {
    los: NyuFit { alpha_db: 69.8, beta: 2.0, sigma_db: 5.8 },
    nlos: NyuFit { alpha_db: 82.7, beta: 2.69, sigma_db: 7.7 },
};

/// The NYU fits for a carrier: 28 GHz parameters for 26.5–29.5 GHz (the 28 GHz band the
/// measurements were made in), 73 GHz parameters for the 71–76 GHz E-band; `None` otherwise,
/// since the fits are not frequency laws and must not be extrapolated.
pub fn nyu_band(frequency_hz: f64) -> Option<NyuBand> {
    let ghz = frequency_hz / 1e9;
    if (26.5..=29.5).contains(&ghz) {
        Some(NYU_28GHZ)
    } else if (71.0..=76.0).contains(&ghz) {
        Some(NYU_73GHZ)
    } else {
        None
    }
}

// ---------------------------------------------------------------------------------------------
// 3GPP TR 38.901
// ---------------------------------------------------------------------------------------------

/// TR 38.901 Table 7.4.2-1, UMi-Street Canyon:
/// p_LOS = 1 for d ≤ 18 m, else 18/d + exp(−d/36)·(1 − 18/d).
pub fn umi_los_probability(d2d_m: f64) -> f64 {
    if d2d_m <= 18.0 {
        1.0
    } else {
        18.0 / d2d_m + libm::exp(-d2d_m / 36.0) * (1.0 - 18.0 / d2d_m)
    }
}

/// TR 38.901 Table 7.4.2-1, UMa: p_LOS = 1 for d ≤ 18 m, else
/// [18/d + exp(−d/63)·(1 − 18/d)]·[1 + C'(h_UT)·(5/4)·(d/100)³·exp(−d/150)],
/// C'(h_UT) = 0 for h_UT ≤ 13 m, ((h_UT − 13)/10)^1.5 above.
pub fn uma_los_probability(d2d_m: f64, h_ut_m: f64) -> f64 {
    if d2d_m <= 18.0 {
        return 1.0;
    }
    let c = if h_ut_m <= 13.0 { 0.0 } else { libm::pow((h_ut_m - 13.0) / 10.0, 1.5) };
    let base = 18.0 / d2d_m + libm::exp(-d2d_m / 63.0) * (1.0 - 18.0 / d2d_m);
    let height = 1.0 + c * 1.25 * libm::pow(d2d_m / 100.0, 3.0) * libm::exp(-d2d_m / 150.0);
    (base * height).min(1.0)
}

/// TR 38.901 Table 7.4.2-1, InH-Office, mixed office: p_LOS = 1 for d ≤ 1.2 m,
/// exp(−(d − 1.2)/4.7) for 1.2 < d < 6.5 m, 0.32·exp(−(d − 6.5)/32.6) from 6.5 m.
pub fn inh_mixed_office_los_probability(d2d_m: f64) -> f64 {
    if d2d_m <= 1.2 {
        1.0
    } else if d2d_m < 6.5 {
        libm::exp(-(d2d_m - 1.2) / 4.7)
    } else {
        0.32 * libm::exp(-(d2d_m - 6.5) / 32.6)
    }
}

/// Breakpoint distance d'_BP = 4·h'_BS·h'_UT·f_c/c of TR 38.901 Table 7.4.1-1 note 1, with the
/// effective environment height h_E = 1 m (h' = h − h_E). For UMa h_E = 1 m holds with certainty
/// only for h_UT ≤ 13 m, which is why UMa is limited to such terminals here.
pub fn breakpoint_distance_m(h_bs_m: f64, h_ut_m: f64, frequency_hz: f64) -> f64 {
    4.0 * (h_bs_m - 1.0) * (h_ut_m - 1.0) * frequency_hz / C_M_PER_S
}

fn distance_3d_m(d2d_m: f64, h_bs_m: f64, h_ut_m: f64) -> f64 {
    let dh = h_bs_m - h_ut_m;
    libm::sqrt(d2d_m * d2d_m + dh * dh)
}

/// The two-slope LOS path loss shared by UMi and UMa (TR 38.901 Table 7.4.1-1), with the
/// scenario's constants `(a, n1, c)`: PL1 = a + n1·log10(d_3D) + 20·log10(f_c) up to the
/// breakpoint d'_BP, PL2 = a + 40·log10(d_3D) + 20·log10(f_c) − c·log10(d'_BP² + (h_BS − h_UT)²)
/// beyond it.
fn dual_slope_los_db(
    (a, n1, c): (f64, f64, f64),
    d2d_m: f64,
    h_bs_m: f64,
    h_ut_m: f64,
    frequency_hz: f64,
) -> f64 {
    let d3d = distance_3d_m(d2d_m, h_bs_m, h_ut_m);
    let lf = libm::log10(frequency_hz / 1e9);
    let d_bp = breakpoint_distance_m(h_bs_m, h_ut_m, frequency_hz);
    if d2d_m <= d_bp {
        a + n1 * libm::log10(d3d) + 20.0 * lf
    } else {
        let dh = h_bs_m - h_ut_m;
        a + 40.0 * libm::log10(d3d) + 20.0 * lf - c * libm::log10(d_bp * d_bp + dh * dh)
    }
}

/// TR 38.901 Table 7.4.1-1, UMi-Street Canyon, f_c in GHz, d_3D in m:
/// LOS  PL1 = 32.4 + 21·log10(d_3D) + 20·log10(f_c) for 10 m ≤ d_2D ≤ d'_BP,
///      PL2 = 32.4 + 40·log10(d_3D) + 20·log10(f_c) − 9.5·log10(d'_BP² + (h_BS − h_UT)²) beyond;
/// NLOS max(PL_LOS, 35.3·log10(d_3D) + 22.4 + 21.3·log10(f_c) − 0.3·(h_UT − 1.5)).
/// `Outage` gives +∞.
pub fn umi_path_loss_db(state: LinkState, d2d_m: f64, h_bs_m: f64, h_ut_m: f64, frequency_hz: f64) -> f64 {
    let d3d = distance_3d_m(d2d_m, h_bs_m, h_ut_m);
    let lf = libm::log10(frequency_hz / 1e9);
    let los = dual_slope_los_db((32.4, 21.0, 9.5), d2d_m, h_bs_m, h_ut_m, frequency_hz);
    match state {
        LinkState::Los => los,
        LinkState::Nlos => los.max(35.3 * libm::log10(d3d) + 22.4 + 21.3 * lf - 0.3 * (h_ut_m - 1.5)),
        LinkState::Outage => f64::INFINITY,
    }
}

/// TR 38.901 Table 7.4.1-1, UMa, f_c in GHz, d_3D in m:
/// LOS  PL1 = 28.0 + 22·log10(d_3D) + 20·log10(f_c) for 10 m ≤ d_2D ≤ d'_BP,
///      PL2 = 28.0 + 40·log10(d_3D) + 20·log10(f_c) − 9·log10(d'_BP² + (h_BS − h_UT)²) beyond;
/// NLOS max(PL_LOS, 13.54 + 39.08·log10(d_3D) + 20·log10(f_c) − 0.6·(h_UT − 1.5)).
/// `Outage` gives +∞.
pub fn uma_path_loss_db(state: LinkState, d2d_m: f64, h_bs_m: f64, h_ut_m: f64, frequency_hz: f64) -> f64 {
    let d3d = distance_3d_m(d2d_m, h_bs_m, h_ut_m);
    let lf = libm::log10(frequency_hz / 1e9);
    let los = dual_slope_los_db((28.0, 22.0, 9.0), d2d_m, h_bs_m, h_ut_m, frequency_hz);
    match state {
        LinkState::Los => los,
        LinkState::Nlos => los.max(13.54 + 39.08 * libm::log10(d3d) + 20.0 * lf - 0.6 * (h_ut_m - 1.5)),
        LinkState::Outage => f64::INFINITY,
    }
}

/// TR 38.901 Table 7.4.1-1, InH-Office, f_c in GHz, d_3D in m (1 m ≤ d_3D ≤ 150 m):
/// LOS  32.4 + 17.3·log10(d_3D) + 20·log10(f_c);
/// NLOS max(PL_LOS, 38.3·log10(d_3D) + 17.30 + 24.9·log10(f_c)).
/// `Outage` gives +∞.
pub fn inh_office_path_loss_db(
    state: LinkState,
    d2d_m: f64,
    h_bs_m: f64,
    h_ut_m: f64,
    frequency_hz: f64,
) -> f64 {
    let ld = libm::log10(distance_3d_m(d2d_m, h_bs_m, h_ut_m));
    let lf = libm::log10(frequency_hz / 1e9);
    let los = 32.4 + 17.3 * ld + 20.0 * lf;
    match state {
        LinkState::Los => los,
        LinkState::Nlos => los.max(38.3 * ld + 17.30 + 24.9 * lf),
        LinkState::Outage => f64::INFINITY,
    }
}

// ---------------------------------------------------------------------------------------------
// ITU-R P.1411, line of sight within street canyons (UHF), as ns-3 evaluates it
// ---------------------------------------------------------------------------------------------

/// Shadowing standard deviation of the `itu_r_p1411_los` model, dB. P.1411 gives loss bounds, not
/// a shadowing spread; this is the default of ns-3's `BuildingsPropagationLossModel`
/// `ShadowSigmaOutdoor` attribute (`src/buildings/model/buildings-propagation-loss-model.cc`),
/// which the buildings models wrapping P.1411 (`HybridBuildingsPropagationLossModel`) draw for two
/// outdoor nodes. The DCE script of Polese et al. 2017 sets it to 6 dB instead; a scenario says so
/// with `shadowing_sigma_db = 6.0`.
pub const P1411_SHADOWING_SIGMA_DB: f64 = 7.0;

/// Lowest and highest carrier of ITU-R P.1411 ("300 MHz to 100 GHz", its title), Hz. ns-3
/// states the same range for its model and checks only that the frequency is positive.
pub const P1411_FREQUENCY_RANGE_HZ: (f64, f64) = (0.3e9, 100e9);

fn wavelength_m(frequency_hz: f64) -> f64 {
    SPEED_OF_LIGHT_M_PER_S / frequency_hz
}

/// ITU-R P.1411 breakpoint distance R_bp = 4·h_b·h_m/λ, m, with h_b and h_m the heights of the
/// two antennas above the ground (not above an effective environment height, unlike TR 38.901)
/// and λ = c/f, c = 299 792 458 m/s. 1.93 GHz, 3 m and 1 m: 77.25 m.
pub fn p1411_breakpoint_distance_m(h_b_m: f64, h_m_m: f64, frequency_hz: f64) -> f64 {
    4.0 * h_b_m * h_m_m / wavelength_m(frequency_hz)
}

/// ITU-R P.1411 basic transmission loss at the breakpoint,
/// L_bp = |20·log10(λ²/(8π·h_b·h_m))| dB. 1.93 GHz, 3 m and 1 m: 69.90 dB.
pub fn p1411_breakpoint_loss_db(h_b_m: f64, h_m_m: f64, frequency_hz: f64) -> f64 {
    let lambda = wavelength_m(frequency_hz);
    libm::fabs(20.0 * libm::log10(lambda * lambda / (8.0 * core::f64::consts::PI * h_b_m * h_m_m)))
}

/// The lower and upper bounds of the ITU-R P.1411 UHF line-of-sight loss at the direct
/// (3-D) distance `d_m`, dB:
///
/// ```text
///   d ≤ R_bp:  L_low = L_bp + 20·log10(d/R_bp)    L_up = L_bp + 20 + 25·log10(d/R_bp)
///   d > R_bp:  L_low = L_bp + 40·log10(d/R_bp)    L_up = L_bp + 20 + 40·log10(d/R_bp)
/// ```
pub fn p1411_los_bounds_db(d_m: f64, h_b_m: f64, h_m_m: f64, frequency_hz: f64) -> (f64, f64) {
    let r_bp = p1411_breakpoint_distance_m(h_b_m, h_m_m, frequency_hz);
    let l_bp = p1411_breakpoint_loss_db(h_b_m, h_m_m, frequency_hz);
    let x = libm::log10(d_m / r_bp);
    if d_m <= r_bp {
        (l_bp + 20.0 * x, l_bp + 20.0 + 25.0 * x)
    } else {
        (l_bp + 40.0 * x, l_bp + 20.0 + 40.0 * x)
    }
}

/// The ITU-R P.1411 line-of-sight loss as ns-3's `ItuR1411LosPropagationLossModel::GetLoss`
/// computes it (`src/propagation/model/itu-r-1411-los-propagation-loss-model.cc`): the mean, in
/// dB, of the lower and upper bounds ([`p1411_los_bounds_db`]) at the 3-D distance between a BS
/// at height `h_b_m` and a UE at height `h_m_m`, 2-D distance `d2d_m` apart:
///
/// ```text
///   L = L_bp + 10 + 22.5·log10(d_3D/R_bp)    d_3D ≤ R_bp
///   L = L_bp + 10 + 40·log10(d_3D/R_bp)      d_3D > R_bp
/// ```
///
/// Beyond the breakpoint the loss no longer depends on the frequency (L_bp grows by
/// 40·log10 f, R_bp by 10·log10 f). ns-3 takes this mean of the bounds rather than the separate
/// median formula of the Recommendation; this simulator follows ns-3.
pub fn p1411_los_path_loss_db(d2d_m: f64, h_b_m: f64, h_m_m: f64, frequency_hz: f64) -> f64 {
    let (low, up) = p1411_los_bounds_db(distance_3d_m(d2d_m, h_b_m, h_m_m), h_b_m, h_m_m, frequency_hz);
    0.5 * (low + up)
}

// ---------------------------------------------------------------------------------------------
// A configured model
// ---------------------------------------------------------------------------------------------

/// A configuration problem: which key is wrong and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    /// `"frequency"`, `"bs_height_m"` or `"ue_height_m"`.
    pub key: &'static str,
    pub message: String,
}

/// A propagation model bound to its carrier and antenna heights, validated once so that the
/// per-step evaluation is a handful of floating-point operations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathLossModel {
    propagation: Propagation,
    frequency_hz: f64,
    bs_height_m: f64, // 0 for NYU (unused)
    ue_height_m: f64, // 0 for NYU (unused)
    nyu: NyuBand,     // used only by NYU
}

impl PathLossModel {
    /// Validates the carrier and heights for `propagation`. Heights default to the scenario's
    /// nominal values ([`Propagation::nominal_heights_m`]); NYU takes no heights.
    ///
    /// Ranges: NYU 26.5–29.5 or 71–76 GHz; TR 38.901 0.5–100 GHz; ITU-R P.1411 0.3–100 GHz;
    /// UMi/UMa BS height > 1 m (above the effective environment height), UMi UT 1.5–22.5 m, UMa UT
    /// 1.5–13 m (see [`breakpoint_distance_m`]); InH and P.1411 heights > 0.
    pub fn new(
        propagation: Propagation,
        frequency_hz: f64,
        bs_height_m: Option<f64>,
        ue_height_m: Option<f64>,
    ) -> Result<PathLossModel, ModelError> {
        let err = |key, message: String| Err(ModelError { key, message });
        let Some((nominal_bs, nominal_ue)) = propagation.nominal_heights_m() else {
            let nyu = match nyu_band(frequency_hz) {
                Some(band) => band,
                None => {
                    return err(
                        "frequency",
                        format!(
                            "the NYU model has fits for 28 GHz (26.5–29.5 GHz) and 73 GHz \
                             (71–76 GHz) only, not {} GHz; use a 3GPP model (umi_street_canyon, \
                             inh_office, uma) or itu_r_p1411_los elsewhere",
                            frequency_hz / 1e9
                        ),
                    )
                }
            };
            for (key, value) in [("bs_height_m", bs_height_m), ("ue_height_m", ue_height_m)] {
                if value.is_some() {
                    return err(
                        key,
                        "the NYU model does not use antenna heights; remove the key (heights apply to \
                         umi_street_canyon, inh_office, uma and itu_r_p1411_los)"
                            .to_string(),
                    );
                }
            }
            return Ok(PathLossModel { propagation, frequency_hz, bs_height_m: 0.0, ue_height_m: 0.0, nyu });
        };
        let (source, (f_min, f_max)) = match propagation {
            Propagation::ItuRP1411Los => ("ITU-R P.1411", P1411_FREQUENCY_RANGE_HZ),
            _ => ("TR 38.901", (0.5e9, 100e9)),
        };
        if !(f_min..=f_max).contains(&frequency_hz) {
            return err(
                "frequency",
                format!(
                    "{source} ({}) is valid from {} to {} GHz, not {} GHz",
                    propagation.name(),
                    f_min / 1e9,
                    f_max / 1e9,
                    frequency_hz / 1e9
                ),
            );
        }
        let h_bs = bs_height_m.unwrap_or(nominal_bs);
        let h_ut = ue_height_m.unwrap_or(nominal_ue);
        let (bs_ok, bs_allowed, ue_ok, ue_allowed) = match propagation {
            Propagation::UmiStreetCanyon => {
                (h_bs > 1.0, "greater than 1 m (nominal 10 m)", (1.5..=22.5).contains(&h_ut), "1.5 to 22.5 m")
            }
            Propagation::Uma => (
                h_bs > 1.0,
                "greater than 1 m (nominal 25 m)",
                (1.5..=13.0).contains(&h_ut),
                "1.5 to 13 m (taller terminals need a random effective environment height, not modelled)",
            ),
            Propagation::InhOffice | Propagation::ItuRP1411Los | Propagation::Nyu => {
                (h_bs > 0.0, "greater than 0 m (nominal 3 m)", h_ut > 0.0, "greater than 0 m (nominal 1 m)")
            }
        };
        if !(h_bs.is_finite() && bs_ok) {
            return err(
                "bs_height_m",
                format!("{h_bs} is out of range for {}: {bs_allowed}", propagation.name()),
            );
        }
        if !(h_ut.is_finite() && ue_ok) {
            return err(
                "ue_height_m",
                format!("{h_ut} is out of range for {}: {ue_allowed}", propagation.name()),
            );
        }
        Ok(PathLossModel { propagation, frequency_hz, bs_height_m: h_bs, ue_height_m: h_ut, nyu: NYU_28GHZ })
    }

    pub fn propagation(&self) -> Propagation {
        self.propagation
    }

    /// (BS, UT) heights in metres; `None` for NYU.
    pub fn heights_m(&self) -> Option<(f64, f64)> {
        self.propagation.nominal_heights_m().map(|_| (self.bs_height_m, self.ue_height_m))
    }

    /// Shortest 2-D distance the path-loss formulas are evaluated at, m: closer terminals get the
    /// loss at this distance. NYU 1 m (far field; the fits came from 30–200 m links), UMi and UMa
    /// 10 m (Table 7.4.1-1 validity), InH 1 m, P.1411 1 m (the formula diverges as the 3-D
    /// distance goes to 0).
    pub fn min_distance_m(&self) -> f64 {
        match self.propagation {
            Propagation::Nyu | Propagation::InhOffice | Propagation::ItuRP1411Los => 1.0,
            Propagation::UmiStreetCanyon | Propagation::Uma => 10.0,
        }
    }

    /// State probabilities at 2-D distance `d2d_m`.
    pub fn state_probabilities(&self, d2d_m: f64) -> StateProbabilities {
        match self.propagation {
            Propagation::Nyu => {
                let outage = nyu_outage_probability(d2d_m);
                let los = nyu_los_probability(d2d_m);
                StateProbabilities { los, nlos: (1.0 - outage - los).max(0.0), outage }
            }
            Propagation::UmiStreetCanyon => StateProbabilities::two_state(umi_los_probability(d2d_m)),
            Propagation::InhOffice => StateProbabilities::two_state(inh_mixed_office_los_probability(d2d_m)),
            Propagation::Uma => StateProbabilities::two_state(uma_los_probability(d2d_m, self.ue_height_m)),
            Propagation::ItuRP1411Los => StateProbabilities::two_state(1.0),
        }
    }

    /// Mean path loss in `state` at 2-D distance `d2d_m` (clamped below at
    /// [`min_distance_m`](Self::min_distance_m)); +∞ in outage.
    ///
    /// # Panics
    ///
    /// For `LinkState::Nlos` with `itu_r_p1411_los`, which has no NLOS loss (a channel with that
    /// model refuses any `visibility` but `"los"`, and its state probabilities give LOS only).
    pub fn path_loss_db(&self, state: LinkState, d2d_m: f64) -> f64 {
        let d = d2d_m.max(self.min_distance_m());
        let (h_bs, h_ut, f) = (self.bs_height_m, self.ue_height_m, self.frequency_hz);
        match self.propagation {
            Propagation::Nyu => match state {
                LinkState::Los => self.nyu.los.mean_db(d),
                LinkState::Nlos => self.nyu.nlos.mean_db(d),
                LinkState::Outage => f64::INFINITY,
            },
            Propagation::UmiStreetCanyon => umi_path_loss_db(state, d, h_bs, h_ut, f),
            Propagation::InhOffice => inh_office_path_loss_db(state, d, h_bs, h_ut, f),
            Propagation::Uma => uma_path_loss_db(state, d, h_bs, h_ut, f),
            Propagation::ItuRP1411Los => match state {
                LinkState::Los => p1411_los_path_loss_db(d, h_bs, h_ut, f),
                LinkState::Nlos => panic!("itu_r_p1411_los is a line-of-sight model: it has no NLOS loss"),
                LinkState::Outage => f64::INFINITY,
            },
        }
    }

    /// Shadowing standard deviation in `state`, dB (0 in outage). NYU: Akdeniz Table I;
    /// TR 38.901 Table 7.4.1-1: UMi 4 / 7.82, InH 3 / 8.03, UMa 4 / 6 (LOS / NLOS); P.1411: ns-3's
    /// outdoor default, [`P1411_SHADOWING_SIGMA_DB`] = 7 dB. A channel's `shadowing_sigma_db`
    /// overrides these.
    pub fn shadowing_std_db(&self, state: LinkState) -> f64 {
        let (los, nlos) = match self.propagation {
            Propagation::Nyu => (self.nyu.los.sigma_db, self.nyu.nlos.sigma_db),
            Propagation::UmiStreetCanyon => (4.0, 7.82),
            Propagation::InhOffice => (3.0, 8.03),
            Propagation::Uma => (4.0, 6.0),
            Propagation::ItuRP1411Los => (P1411_SHADOWING_SIGMA_DB, P1411_SHADOWING_SIGMA_DB),
        };
        match state {
            LinkState::Los => los,
            LinkState::Nlos => nlos,
            LinkState::Outage => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    // ---- NYU ------------------------------------------------------------------------------

    #[test]
    fn test_nyu_state_probabilities_known_answers() {
        // p_out = 0 while −d/30 + 5.2 ≥ 0, i.e. up to 156 m; then p_LOS = exp(−d/67.1).
        for d in [10.0, 50.0, 100.0, 150.0, 156.0] {
            assert_eq!(nyu_outage_probability(d), 0.0, "d = {d}");
        }
        assert!(close(nyu_los_probability(50.0), 0.47466, 1e-4));
        assert!(close(nyu_los_probability(100.0), 0.22530, 1e-4));
        assert!(close(nyu_los_probability(150.0), 0.10694, 1e-4));
        // Beyond 156 m: p_out(170) = 1 − exp(−0.46667) = 0.37291, p_LOS = 0.62709·exp(−2.53353).
        assert!(close(nyu_outage_probability(170.0), 0.37291, 1e-4));
        assert!(close(nyu_los_probability(170.0), 0.049777, 1e-5));

        let model = PathLossModel::new(Propagation::Nyu, 28e9, None, None).unwrap();
        let p = model.state_probabilities(170.0);
        assert!(close(p.nlos, 0.57731, 1e-4), "{p:?}");
        assert!(close(p.los + p.nlos + p.outage, 1.0, 1e-12));
        assert_eq!(p.pick(0.0), LinkState::Los);
        assert_eq!(p.pick(0.05), LinkState::Nlos);
        assert_eq!(p.pick(0.99), LinkState::Outage);
    }

    #[test]
    fn test_nyu_path_loss_known_answers() {
        // PL = α + 10β·log10(d): log10 50 = 1.69897, log10 150 = 2.17609.
        let m28 = PathLossModel::new(Propagation::Nyu, 28e9, None, None).unwrap();
        let m73 = PathLossModel::new(Propagation::Nyu, 73e9, None, None).unwrap();
        let cases = [
            // (d, 28 LOS, 28 NLOS, 73 LOS, 73 NLOS)
            (50.0, 95.3794, 121.6099, 103.7794, 128.4023),
            (100.0, 101.4, 130.4, 109.8, 136.5),
            (150.0, 104.9218, 135.5419, 113.3218, 141.2369),
        ];
        for (d, l28, n28, l73, n73) in cases {
            assert!(close(m28.path_loss_db(LinkState::Los, d), l28, 1e-3), "28 LOS {d}");
            assert!(close(m28.path_loss_db(LinkState::Nlos, d), n28, 1e-3), "28 NLOS {d}");
            assert!(close(m73.path_loss_db(LinkState::Los, d), l73, 1e-3), "73 LOS {d}");
            assert!(close(m73.path_loss_db(LinkState::Nlos, d), n73, 1e-3), "73 NLOS {d}");
        }
        assert_eq!(m28.path_loss_db(LinkState::Outage, 100.0), f64::INFINITY);
        assert_eq!(m28.shadowing_std_db(LinkState::Nlos), 8.7);
        assert_eq!(m73.shadowing_std_db(LinkState::Nlos), 7.7);
        assert_eq!(m73.shadowing_std_db(LinkState::Los), 5.8);
        // The NLOS − LOS gap at 28 GHz, 100 m is 29 dB (Polese et al. 2017b: "can exceed 30 dB").
        let gap = m28.path_loss_db(LinkState::Nlos, 100.0) - m28.path_loss_db(LinkState::Los, 100.0);
        assert!(close(gap, 29.0, 1e-9));
    }

    #[test]
    fn test_nyu_band_selection_and_errors() {
        assert_eq!(nyu_band(28e9), Some(NYU_28GHZ));
        assert_eq!(nyu_band(27.5e9), Some(NYU_28GHZ));
        assert_eq!(nyu_band(73e9), Some(NYU_73GHZ));
        assert_eq!(nyu_band(60e9), None);
        let err = PathLossModel::new(Propagation::Nyu, 60e9, None, None).unwrap_err();
        assert_eq!(err.key, "frequency");
        assert!(err.message.contains("28 GHz") && err.message.contains("60 GHz"), "{}", err.message);
        let err = PathLossModel::new(Propagation::Nyu, 28e9, Some(10.0), None).unwrap_err();
        assert_eq!(err.key, "bs_height_m");
        let err = PathLossModel::new(Propagation::Nyu, 28e9, None, Some(1.5)).unwrap_err();
        assert_eq!(err.key, "ue_height_m");
    }

    // ---- TR 38.901 ------------------------------------------------------------------------

    #[test]
    fn test_38901_los_probabilities_known_answers() {
        // UMi: 18/50 + exp(−50/36)·(1 − 18/50) = 0.36 + 0.24935·0.64.
        assert_eq!(umi_los_probability(10.0), 1.0);
        assert!(close(umi_los_probability(50.0), 0.519585, 1e-5));
        assert!(close(umi_los_probability(100.0), 0.230985, 1e-5));
        // UMa, h_UT ≤ 13 m: 18/50 + exp(−50/63)·0.64 = 0.36 + 0.45219·0.64.
        assert_eq!(uma_los_probability(15.0, 1.5), 1.0);
        assert!(close(uma_los_probability(50.0, 1.5), 0.649402, 1e-5));
        assert!(close(uma_los_probability(100.0, 1.5), 0.347671, 1e-5));
        // h_UT = 20 m: C' = 0.7^1.5 = 0.58566; factor 1 + 0.58566·1.25·1·exp(−2/3) = 1.37586.
        assert!(close(uma_los_probability(100.0, 20.0), 0.478347, 1e-5));
        // InH mixed office: three pieces.
        assert_eq!(inh_mixed_office_los_probability(1.0), 1.0);
        assert!(close(inh_mixed_office_los_probability(3.0), 0.681827, 1e-5));
        assert!(close(inh_mixed_office_los_probability(6.5), 0.32, 1e-12));
        assert!(close(inh_mixed_office_los_probability(20.0), 0.211497, 1e-5));

        let umi = PathLossModel::new(Propagation::UmiStreetCanyon, 28e9, None, None).unwrap();
        let p = umi.state_probabilities(50.0);
        assert_eq!(p.outage, 0.0, "38.901 has no outage state");
        assert!(close(p.los + p.nlos, 1.0, 1e-12));
    }

    #[test]
    fn test_38901_breakpoint_distance() {
        // 4·(10 − 1)·(1.5 − 1)·28e9/3e8 = 1680 m; UMa at 2.1 GHz: 4·24·0.5·7 = 336 m.
        assert!(close(breakpoint_distance_m(10.0, 1.5, 28e9), 1680.0, 1e-9));
        assert!(close(breakpoint_distance_m(25.0, 1.5, 2.1e9), 336.0, 1e-9));
        assert!(close(breakpoint_distance_m(10.0, 1.5, 2.1e9), 126.0, 1e-9));
    }

    #[test]
    fn test_umi_path_loss_known_answers() {
        let umi = |f, hbs| PathLossModel::new(Propagation::UmiStreetCanyon, f, Some(hbs), None).unwrap();
        let m28 = umi(28e9, 10.0);
        // d_3D(50) = √(2500 + 8.5²) = 50.7174: 32.4 + 21·1.70515 + 20·1.44716 = 97.151.
        assert!(close(m28.path_loss_db(LinkState::Los, 50.0), 97.1514, 1e-3));
        // NLOS: 35.3·1.70515 + 22.4 + 21.3·1.44716 − 0 = 113.416 > LOS.
        assert!(close(m28.path_loss_db(LinkState::Nlos, 50.0), 113.4165, 1e-3));
        assert!(close(m28.path_loss_db(LinkState::Los, 200.0), 109.6730, 1e-3));
        assert!(close(m28.path_loss_db(LinkState::Nlos, 200.0), 134.4647, 1e-3));
        // 2.1 GHz: 200 m is beyond d'_BP = 126 m, so LOS uses PL2.
        let m2 = umi(2.1e9, 10.0);
        assert!(close(m2.path_loss_db(LinkState::Los, 50.0), 74.6527, 1e-3));
        assert!(close(m2.path_loss_db(LinkState::Los, 200.0), 90.9755, 1e-3));
        assert!(close(m2.path_loss_db(LinkState::Nlos, 200.0), 110.5035, 1e-3));
        assert_eq!(m28.shadowing_std_db(LinkState::Los), 4.0);
        assert_eq!(m28.shadowing_std_db(LinkState::Nlos), 7.82);
        // Below 10 m the loss at 10 m is used.
        assert_eq!(m28.path_loss_db(LinkState::Los, 3.0), m28.path_loss_db(LinkState::Los, 10.0));
    }

    #[test]
    fn test_uma_path_loss_known_answers() {
        let uma = |f| PathLossModel::new(Propagation::Uma, f, None, None).unwrap();
        let lte = uma(2.1e9);
        assert_eq!(lte.heights_m(), Some((25.0, 1.5)));
        // d_3D(100) = √(10000 + 23.5²) = 102.724: 28 + 22·2.01167 + 20·0.32222 = 78.701.
        assert!(close(lte.path_loss_db(LinkState::Los, 100.0), 78.7012, 1e-3));
        assert!(close(lte.path_loss_db(LinkState::Nlos, 100.0), 98.6005, 1e-3));
        // 500 m > d'_BP = 336 m: PL2.
        assert!(close(lte.path_loss_db(LinkState::Los, 500.0), 96.9292, 1e-3));
        assert!(close(lte.path_loss_db(LinkState::Nlos, 500.0), 125.4789, 1e-3));
        let mm = uma(28e9);
        assert!(close(mm.path_loss_db(LinkState::Los, 100.0), 101.2000, 1e-3));
        assert!(close(mm.path_loss_db(LinkState::Nlos, 100.0), 121.0993, 1e-3));
        assert_eq!(lte.shadowing_std_db(LinkState::Nlos), 6.0);
    }

    #[test]
    fn test_inh_path_loss_known_answers() {
        let inh = PathLossModel::new(Propagation::InhOffice, 28e9, None, None).unwrap();
        assert_eq!(inh.heights_m(), Some((3.0, 1.0)));
        // d_3D(5) = √29: 32.4 + 17.3·0.73119 + 28.9432 = 73.993.
        assert!(close(inh.path_loss_db(LinkState::Los, 5.0), 73.9929, 1e-3));
        assert!(close(inh.path_loss_db(LinkState::Nlos, 5.0), 81.3392, 1e-3));
        assert!(close(inh.path_loss_db(LinkState::Los, 20.0), 83.8884, 1e-3));
        assert!(close(inh.path_loss_db(LinkState::Nlos, 20.0), 103.2464, 1e-3));
        // At d_2D = 1 m (d_3D = √5) the NLOS formula is below LOS, so NLOS = LOS (the max).
        assert_eq!(inh.path_loss_db(LinkState::Nlos, 1.0), inh.path_loss_db(LinkState::Los, 1.0));
        assert_eq!(inh.shadowing_std_db(LinkState::Nlos), 8.03);
    }

    #[test]
    fn test_38901_range_errors_name_the_key() {
        let new = |p, f, hbs, hut| PathLossModel::new(p, f, hbs, hut).unwrap_err().key;
        assert_eq!(new(Propagation::Uma, 0.3e9, None, None), "frequency");
        assert_eq!(new(Propagation::UmiStreetCanyon, 120e9, None, None), "frequency");
        assert_eq!(new(Propagation::Uma, 2.1e9, None, Some(20.0)), "ue_height_m");
        assert_eq!(new(Propagation::UmiStreetCanyon, 28e9, None, Some(1.0)), "ue_height_m");
        assert_eq!(new(Propagation::UmiStreetCanyon, 28e9, Some(1.0), None), "bs_height_m");
        assert_eq!(new(Propagation::InhOffice, 28e9, Some(f64::NAN), None), "bs_height_m");
        let err = PathLossModel::new(Propagation::Uma, 2.1e9, None, Some(20.0)).unwrap_err();
        assert!(err.message.contains("1.5 to 13 m"), "{}", err.message);
    }

    // ---- ITU-R P.1411 LOS ------------------------------------------------------------------

    #[test]
    fn test_p1411_breakpoint_known_answers() {
        // 1.93 GHz: λ = 299 792 458 / 1.93e9 = 0.1553329 m; R_bp = 4·3·1/λ = 77.2534 m;
        // L_bp = |20·log10(λ²/(8π·3·1))| = |20·log10(0.0241283/75.3982)| = 69.8967 dB.
        assert!(close(p1411_breakpoint_distance_m(3.0, 1.0, 1.93e9), 77.2534, 1e-3));
        assert!(close(p1411_breakpoint_loss_db(3.0, 1.0, 1.93e9), 69.8967, 1e-3));
        // 2.12 GHz: λ = 0.1414115 m; R_bp = 84.8587 m; L_bp = 71.5278 dB.
        assert!(close(p1411_breakpoint_distance_m(3.0, 1.0, 2.12e9), 84.8587, 1e-3));
        assert!(close(p1411_breakpoint_loss_db(3.0, 1.0, 2.12e9), 71.5278, 1e-3));
        // At the breakpoint both branches give the bounds L_bp and L_bp + 20, so the loss is
        // continuous and equals L_bp + 10.
        let (r_bp, l_bp) = (77.25344444789201, 69.89668653130865);
        let (low, up) = p1411_los_bounds_db(r_bp, 3.0, 1.0, 1.93e9);
        assert!(close(low, l_bp, 1e-9) && close(up, l_bp + 20.0, 1e-9), "{low} {up}");
        let (low, up) = p1411_los_bounds_db(r_bp * (1.0 + 1e-12), 3.0, 1.0, 1.93e9);
        assert!(close(low, l_bp, 1e-6) && close(up, l_bp + 20.0, 1e-6), "{low} {up}");
        // The model compares the 3-D distance with R_bp: d_2D = √(R_bp² − 2²) puts the UE on it.
        let model = PathLossModel::new(Propagation::ItuRP1411Los, 1.93e9, None, None).unwrap();
        let d2d = (r_bp * r_bp - 4.0_f64).sqrt();
        assert!(close(model.path_loss_db(LinkState::Los, d2d), l_bp + 10.0, 1e-9));
        // Slopes: 22.5 dB/decade inside (mean of 20 and 25), 40 beyond.
        let pl = |d: f64| p1411_los_path_loss_db(d, 3.0, 1.0, 1.93e9);
        let d3 = |d3d: f64| (d3d * d3d - 4.0_f64).sqrt();
        assert!(close(pl(d3(r_bp / 10.0)), l_bp + 10.0 - 22.5, 1e-9));
        assert!(close(pl(d3(r_bp * 10.0)), l_bp + 10.0 + 40.0, 1e-9));
    }

    #[test]
    fn test_p1411_path_loss_known_answers() {
        // eNB 3 m, UE 1 m (the defaults), 1.93 GHz (the LTE uplink of the ns-3 DCE script).
        // d_3D = √(d² + 4); x = log10(d_3D/R_bp); L = L_bp + 10 + 22.5·x (d_3D ≤ 77.25 m) or
        // L_bp + 10 + 40·x:
        //   50 m:  d_3D 50.0400,  x −0.188601, L = 69.8967 + 10 − 4.2435 = 75.6532
        //   75 m:  d_3D 75.0267,  x −0.012702, L = 69.8967 + 10 − 0.2858 = 79.6109
        //   100 m: d_3D 100.0200, x  0.112169, L = 69.8967 + 10 + 4.4868 = 84.3834
        //   150 m: d_3D 150.0133, x  0.288212, L = 69.8967 + 10 + 11.5285 = 91.4252
        let ul = PathLossModel::new(Propagation::ItuRP1411Los, 1.93e9, None, None).unwrap();
        assert_eq!(ul.heights_m(), Some((3.0, 1.0)));
        for (d, expect) in [(50.0, 75.6532), (75.0, 79.6109), (100.0, 84.3834), (150.0, 91.4252)] {
            let got = ul.path_loss_db(LinkState::Los, d);
            assert!(close(got, expect, 1e-3), "1.93 GHz, {d} m: {got}");
        }
        // 2.12 GHz (downlink): R_bp = 84.86 m, so 75 m is still before the breakpoint and 100 m
        // beyond it; beyond R_bp the loss does not depend on the frequency.
        let dl = PathLossModel::new(Propagation::ItuRP1411Los, 2.12e9, None, None).unwrap();
        for (d, expect) in [(50.0, 76.3668), (75.0, 80.3245), (100.0, 84.3834), (150.0, 91.4252)] {
            let got = dl.path_loss_db(LinkState::Los, d);
            assert!(close(got, expect, 1e-3), "2.12 GHz, {d} m: {got}");
        }
        assert!(close(dl.path_loss_db(LinkState::Los, 150.0), ul.path_loss_db(LinkState::Los, 150.0), 1e-9));
        // ns-3's own reference values (src/propagation/test/itu-r-1411-los-test-suite.cc, from
        // its Octave script): h_b 30 m, h_m 1 m, 100 m at 2114 MHz → 81.005 dB; 200 m at
        // 1999 MHz → 87.060 dB. They match only with the 3-D distance, as ns-3 uses.
        let ns3 = |f, d| {
            PathLossModel::new(Propagation::ItuRP1411Los, f, Some(30.0), Some(1.0))
                .unwrap()
                .path_loss_db(LinkState::Los, d)
        };
        assert!(close(ns3(2.114e9, 100.0), 81.005, 1e-3), "{}", ns3(2.114e9, 100.0));
        assert!(close(ns3(1.999e9, 200.0), 87.060, 1e-3), "{}", ns3(1.999e9, 200.0));
        // LOS only, ns-3's outdoor shadowing σ, loss at 1 m below 1 m, +∞ in outage.
        let p = ul.state_probabilities(150.0);
        assert_eq!((p.los, p.nlos, p.outage), (1.0, 0.0, 0.0));
        assert_eq!(ul.shadowing_std_db(LinkState::Los), 7.0);
        assert_eq!(ul.path_loss_db(LinkState::Los, 0.2), ul.path_loss_db(LinkState::Los, 1.0));
        assert_eq!(ul.path_loss_db(LinkState::Outage, 50.0), f64::INFINITY);
        assert!(Propagation::ItuRP1411Los.los_only() && !Propagation::Uma.los_only());
    }

    #[test]
    #[should_panic(expected = "no NLOS loss")]
    fn test_p1411_has_no_nlos_loss() {
        let model = PathLossModel::new(Propagation::ItuRP1411Los, 1.93e9, None, None).unwrap();
        model.path_loss_db(LinkState::Nlos, 50.0);
    }

    #[test]
    fn test_p1411_range_errors_name_the_key() {
        let new = |f, hbs, hut| PathLossModel::new(Propagation::ItuRP1411Los, f, hbs, hut);
        // 0.4 GHz is inside P.1411's range (300 MHz–100 GHz) though outside TR 38.901's.
        assert!(new(0.4e9, None, None).is_ok());
        let err = new(0.2e9, None, None).unwrap_err();
        assert_eq!(err.key, "frequency");
        assert!(err.message.contains("0.3 to 100 GHz") && err.message.contains("P.1411"), "{}", err.message);
        assert_eq!(new(120e9, None, None).unwrap_err().key, "frequency");
        assert_eq!(new(1.93e9, Some(0.0), None).unwrap_err().key, "bs_height_m");
        assert_eq!(new(1.93e9, None, Some(-1.0)).unwrap_err().key, "ue_height_m");
        assert_eq!(new(1.93e9, None, Some(f64::INFINITY)).unwrap_err().key, "ue_height_m");
    }

    #[test]
    fn test_propagation_names_parse() {
        #[derive(Deserialize)]
        struct S {
            p: Propagation,
        }
        for p in [
            Propagation::Nyu,
            Propagation::UmiStreetCanyon,
            Propagation::InhOffice,
            Propagation::Uma,
            Propagation::ItuRP1411Los,
        ] {
            let s: S = toml::from_str(&format!("p = \"{}\"", p.name())).unwrap();
            assert_eq!(s.p, p);
        }
        assert!(toml::from_str::<S>("p = \"umi\"").is_err());
    }
}
