//! A cellular link whose SINR follows from a link budget: path loss by link state (LOS / NLOS /
//! outage), time-correlated shadowing, block fading, a terminal that may move, and a link state
//! that is either a random process or decided by obstacles.
//!
//! ```text
//!   SINR_dB(t) = P_tx + G_bf − PL(state(t), d(t)) − σ_state·Z(t) + 10·log10 g(t) − N
//!   G_bf = 10·log10(N_tx·N_rx)           ideal beamforming gain
//!   N    = −174 dBm/Hz + 10·log10(B) + NF thermal noise at 290 K over the link's bandwidth B
//!   outage ⇒ SINR = −∞
//! ```
//!
//! - **Path loss and state probabilities**: [`super::propagation`] (NYU / TR 38.901 / ITU-R
//!   P.1411 line of sight, the last with `visibility = "los"` only).
//! - **Link state**, one of
//!   - `statistical`: redrawn from the model's probabilities at the current distance, by
//!     `state_redraw`: at the epochs of a Poisson process of mean spacing `state_dwell` (a
//!     continuous-time Markov chain whose stationary law is the model's, and whose state persists
//!     across many fading blocks), every `state_dwell` exactly, or once per run (ns-3 mmWave 2017,
//!     `MmWavePropagationLossModel`, which caches its draw per UE–eNB pair);
//!   - `obstacles`: LOS iff the BS–UE segment crosses no obstacle ([`super::geometry`]), switched
//!     at the exact instants the geometry changes;
//!   - `los` / `nlos`: fixed.
//! - **Shadowing**: Z is one standard-normal AR(1) state (Gudmundson, Electron. Lett. 1991):
//!   Z ← ρZ + √(1 − ρ²)·W with ρ = exp(−Δd/d_corr) for a moving UE (Δd the distance it moved) and
//!   ρ = exp(−Δt/τ) for a static one. Z is scaled by the σ of the current state, so a LOS↔NLOS
//!   switch changes the spread but does not redraw the shadowing. With `shadowing_update =
//!   "with_state"` Z is instead drawn afresh with each state draw and held (ns-3 mmWave 2017).
//!   σ_state is the model's, or `shadowing_sigma_db` for every state when given.
//! - **Fading**: one power gain g per block of length `block` (and redrawn at a state change),
//!   g ~ Gamma(m, 1/m) (Nakagami-m amplitude, mean power 1) with a shape per state. This stands in
//!   for the NYU cluster/sub-path model with ideal beam tracking, whose beamformed gain fluctuates
//!   around its mean; it is not a fit to measurements.
//!
//! Simplifications: one cell, no interference (the "I" of SINR is zero); ideal beamforming gain
//! N_tx·N_rx (perfect alignment, no beam-search delay or misalignment loss); heights and 3-D
//! effects only through the TR 38.901 formulas; the UE moves on a straight line forever.
//!
//! Cost: O(1) per step and no allocation after the first step (which places the obstacles).

use super::geometry::{visibility_schedule, LinearMotion, ObstacleLayout, Point, Rect};
use super::propagation::{LinkState, PathLossModel, Propagation};
use super::{RadioContext, SinrProcess, SinrStep};
use crate::error::InputError;
use crate::sim::{Duration, Rng, SimTime};
use crate::units::{Frequency, Time};
use serde::{Deserialize, Serialize};

/// Thermal noise density at 290 K, dBm/Hz.
const THERMAL_NOISE_DBM_PER_HZ: f64 = -174.0;

/// Static UE distance when neither `distance_m` nor positions are given, m.
pub const DEFAULT_DISTANCE_M: f64 = 100.0;

/// How the link state (LOS / NLOS / outage) evolves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VisibilityModel {
    /// Redrawn from the model's state probabilities at exponential epochs of mean `state_dwell`.
    #[default]
    Statistical,
    /// LOS iff the BS–UE segment crosses none of the `obstacles`.
    Obstacles,
    /// Always line of sight.
    Los,
    /// Always non-line of sight.
    Nlos,
}

impl VisibilityModel {
    /// The name used in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            VisibilityModel::Statistical => "statistical",
            VisibilityModel::Obstacles => "obstacles",
            VisibilityModel::Los => "los",
            VisibilityModel::Nlos => "nlos",
        }
    }
}

/// When the statistical link state is redrawn (`visibility = "statistical"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StateRedraw {
    /// At the epochs of a Poisson process of mean spacing `state_dwell`.
    #[default]
    Poisson,
    /// Every `state_dwell` exactly, from the first step (the period ns-3's unscheduled
    /// `MmWavePropagationLossModel::UpDataScenarioMap` would have used).
    Periodic,
    /// Once, at the first step, and held for the whole run (ns-3 mmWave 2017 as shipped).
    Once,
}

/// How the shadowing evolves between steps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShadowingUpdate {
    /// A unit-variance AR(1) state (Gudmundson), carried across state changes.
    #[default]
    Correlated,
    /// Drawn afresh with every statistical state draw and held until the next one (ns-3 mmWave
    /// 2017: the draw is cached with the state).
    WithState,
}

/// Small-scale fading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fading {
    /// Nakagami-m per block: power gain Gamma(m, 1/m).
    #[default]
    Nakagami,
    /// No fading (gain 1).
    #[serde(rename = "none")]
    Flat,
}

/// `obstacles = { count, min_size_m, max_size_m, area = [x0, y0, x1, y1] }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObstaclesConfig {
    /// Number of rectangles, 0–200. Default 10 (Polese et al. 2017a §V).
    #[serde(default = "default_obstacle_count")]
    pub count: u32,
    /// Smallest side, m (> 0). Default 2 (Polese et al. 2017a say "small obstacles" without sizes).
    #[serde(default = "default_min_size_m")]
    pub min_size_m: f64,
    /// Largest side, m (≥ `min_size_m`). Default 8.
    #[serde(default = "default_max_size_m")]
    pub max_size_m: f64,
    /// The rectangle they are placed in, `[x0, y0, x1, y1]` in m with x0 < x1 and y0 < y1;
    /// required. Obstacles never cover the BS or the UE's start.
    pub area: [f64; 4],
}

/// `{ kind = "cellular", ... }`: a link-budget SINR channel. Every key is optional.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellularConfig {
    /// `"nyu"`, `"umi_street_canyon"`, `"inh_office"`, `"uma"` or `"itu_r_p1411_los"` (line of
    /// sight only: needs `visibility = "los"`). Default `"nyu"`.
    #[serde(default)]
    pub propagation: Propagation,
    /// Carrier frequency. Default `"28GHz"`. NYU: 26.5–29.5 or 71–76 GHz; 3GPP: 0.5–100 GHz;
    /// ITU-R P.1411: 0.3–100 GHz.
    #[serde(default = "default_frequency")]
    pub frequency: Frequency,
    /// Transmit power, dBm. Default 30 (Polese et al. 2017a Table I, mmWave and LTE downlink).
    #[serde(default = "default_tx_power_dbm")]
    pub tx_power_dbm: f64,
    /// Receiver noise figure, dB (≥ 0). Default 5 (Kim et al. Table I).
    #[serde(default = "default_noise_figure_db")]
    pub noise_figure_db: f64,
    /// Transmit array elements (≥ 1). Default 64.
    #[serde(default = "default_tx_antennas")]
    pub tx_antennas: u32,
    /// Receive array elements (≥ 1). Default 16.
    #[serde(default = "default_rx_antennas")]
    pub rx_antennas: u32,
    /// How far the beamforming gain falls short of the ideal `10·log10(tx_antennas ×
    /// rx_antennas)`, dB (0 to 30). Default 0. The ns-3 mmWave module of 2017 gives 4 dB for
    /// 64 × 16: its beams on the 20-path channel instances average 1.94 dB below the ideal, and
    /// its link adaptation averages mutual information over 72 frequency-selective sub-bands,
    /// which costs about 2 dB more (docs/models/ns3-mmwave-2017.md §1).
    #[serde(default)]
    pub beamforming_loss_db: f64,
    /// BS antenna height, m; 3GPP and P.1411 models only. Default: the scenario's nominal height
    /// (UMi 10, InH 3, UMa 25, P.1411 3: the eNB of the ns-3 DCE script of Polese et al.).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs_height_m: Option<f64>,
    /// UE antenna height, m; 3GPP and P.1411 models only. Default: nominal (UMi 1.5, InH 1,
    /// UMa 1.5, P.1411 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ue_height_m: Option<f64>,
    /// Static UE at this 2-D distance from the BS, m (> 0). Default 100 when no positions are given;
    /// not allowed together with them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance_m: Option<f64>,
    /// BS position `[x, y]`, m. Given together with `ue_start`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs_position: Option<[f64; 2]>,
    /// UE position at time 0 `[x, y]`, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ue_start: Option<[f64; 2]>,
    /// UE velocity `[vx, vy]`, m/s; the UE moves on a straight line for the whole run. Default
    /// `[0, 0]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ue_velocity: Option<[f64; 2]>,
    /// `"statistical"`, `"obstacles"`, `"los"` or `"nlos"`. Default `"statistical"`.
    #[serde(default)]
    pub visibility: VisibilityModel,
    /// Mean time between two draws of the statistical link state (> 0). Default `"1s"`, the period
    /// at which the ns-3 mmWave module redraws its statistical state.
    #[serde(default = "default_state_dwell")]
    pub state_dwell: Time,
    /// `"poisson"`, `"periodic"` or `"once"`: when the statistical state is redrawn. Default
    /// `"poisson"`.
    #[serde(default, deserialize_with = "named_variant")]
    pub state_redraw: StateRedraw,
    /// The obstacle layout; required with `visibility = "obstacles"`, not allowed otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obstacles: Option<ObstaclesConfig>,
    /// Log-normal shadowing on or off. Default `true`.
    #[serde(default = "default_true")]
    pub shadowing: bool,
    /// Shadowing standard deviation for every link state, dB (0 to 30), in place of the
    /// propagation model's own per-state σ. Default: the model's (NYU Akdeniz Table I; TR 38.901
    /// Table 7.4.1-1; P.1411 7 dB, ns-3's `ShadowSigmaOutdoor` default). The ns-3 DCE script of
    /// Polese et al. 2017 sets 6 dB on its LTE link. Not with `shadowing = false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowing_sigma_db: Option<f64>,
    /// Shadowing decorrelation distance for a moving UE, m (> 0). Default 10 (TR 38.901
    /// Table 7.5-6, UMi LOS).
    #[serde(default = "default_shadowing_correlation_m")]
    pub shadowing_correlation_m: f64,
    /// Shadowing decorrelation time for a static UE (> 0). Default `"1s"`.
    #[serde(default = "default_shadowing_correlation_time")]
    pub shadowing_correlation_time: Time,
    /// `"correlated"` or `"with_state"`. Default `"correlated"`.
    #[serde(default, deserialize_with = "named_variant")]
    pub shadowing_update: ShadowingUpdate,
    /// `"nakagami"` or `"none"`. Default `"nakagami"`.
    #[serde(default)]
    pub fading: Fading,
    /// Nakagami shape in LOS (≥ 0.5). Default 3.
    #[serde(default = "default_nakagami_m_los")]
    pub nakagami_m_los: f64,
    /// Nakagami shape in NLOS (≥ 0.5). Default 2.
    #[serde(default = "default_nakagami_m_nlos")]
    pub nakagami_m_nlos: f64,
    /// Coherence block (> 0): fading is redrawn and the UE position, path loss and shadowing are
    /// updated at multiples of it. Default `"1ms"`.
    #[serde(default = "default_block")]
    pub block: Time,
}

/// The keys whose values are a closed set of names, with an error that names the key (serde's
/// own names only the variants once the channel table is flattened).
trait NamedVariant: Sized + Copy + 'static {
    const KEY: &'static str;
    const NAMES: &'static [(&'static str, Self)];
}

impl NamedVariant for StateRedraw {
    const KEY: &'static str = "state_redraw";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("poisson", StateRedraw::Poisson),
        ("periodic", StateRedraw::Periodic),
        ("once", StateRedraw::Once),
    ];
}

impl NamedVariant for ShadowingUpdate {
    const KEY: &'static str = "shadowing_update";
    const NAMES: &'static [(&'static str, Self)] =
        &[("correlated", ShadowingUpdate::Correlated), ("with_state", ShadowingUpdate::WithState)];
}

fn named_variant<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: NamedVariant,
{
    let name = String::deserialize(d)?;
    match T::NAMES.iter().find(|(n, _)| *n == name) {
        Some((_, v)) => Ok(*v),
        None => {
            let allowed: Vec<String> = T::NAMES.iter().map(|(n, _)| format!("\"{n}\"")).collect();
            Err(serde::de::Error::custom(format!(
                "{}: unknown value \"{name}\", expected one of {}",
                T::KEY,
                allowed.join(", ")
            )))
        }
    }
}

fn default_obstacle_count() -> u32 {
    10
}
fn default_min_size_m() -> f64 {
    2.0
}
fn default_max_size_m() -> f64 {
    8.0
}
fn default_frequency() -> Frequency {
    Frequency(28_000_000_000)
}
fn default_tx_power_dbm() -> f64 {
    30.0
}
fn default_noise_figure_db() -> f64 {
    5.0
}
fn default_tx_antennas() -> u32 {
    64
}
fn default_rx_antennas() -> u32 {
    16
}
fn default_state_dwell() -> Time {
    Time(Duration::from_secs(1))
}
fn default_true() -> bool {
    true
}
fn default_shadowing_correlation_m() -> f64 {
    10.0
}
fn default_shadowing_correlation_time() -> Time {
    Time(Duration::from_secs(1))
}
fn default_nakagami_m_los() -> f64 {
    3.0
}
fn default_nakagami_m_nlos() -> f64 {
    2.0
}
fn default_block() -> Time {
    Time(Duration::from_millis(1))
}

impl Default for CellularConfig {
    fn default() -> Self {
        CellularConfig {
            propagation: Propagation::default(),
            frequency: default_frequency(),
            tx_power_dbm: default_tx_power_dbm(),
            noise_figure_db: default_noise_figure_db(),
            tx_antennas: default_tx_antennas(),
            rx_antennas: default_rx_antennas(),
            beamforming_loss_db: 0.0,
            bs_height_m: None,
            ue_height_m: None,
            distance_m: None,
            bs_position: None,
            ue_start: None,
            ue_velocity: None,
            visibility: VisibilityModel::default(),
            state_dwell: default_state_dwell(),
            state_redraw: StateRedraw::default(),
            obstacles: None,
            shadowing: true,
            shadowing_sigma_db: None,
            shadowing_correlation_m: default_shadowing_correlation_m(),
            shadowing_correlation_time: default_shadowing_correlation_time(),
            shadowing_update: ShadowingUpdate::default(),
            fading: Fading::default(),
            nakagami_m_los: default_nakagami_m_los(),
            nakagami_m_nlos: default_nakagami_m_nlos(),
            block: default_block(),
        }
    }
}

/// Power gain of Nakagami-m fading: Gamma(m, 1/m), mean 1, variance 1/m (m ≥ 0.5).
///
/// Marsaglia & Tsang, "A simple method for generating gamma variables", ACM TOMS 26(3), 2000, for
/// shape ≥ 1; below 1 the boost Gamma(m) = Gamma(m + 1)·U^(1/m) of the same paper.
pub fn nakagami_power_gain(m: f64, rng: &mut Rng) -> f64 {
    let (shape, boost) = if m < 1.0 { (m + 1.0, libm::pow(1.0 - rng.uniform(), 1.0 / m)) } else { (m, 1.0) };
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / libm::sqrt(9.0 * d);
    loop {
        let x = rng.standard_normal();
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = rng.uniform();
        let x2 = x * x;
        if u < 1.0 - 0.0331 * x2 * x2 || libm::log(u) < 0.5 * x2 + d * (1.0 - v + libm::log(v)) {
            return d * v * boost / m;
        }
    }
}

/// How the state is decided, resolved from the config.
#[derive(Clone, Debug)]
enum StateSource {
    Fixed,
    /// Spacing of redraw epochs (their mean when Poisson) and when they fall.
    Statistical {
        dwell: Duration,
        redraw: StateRedraw,
    },
    /// The layout to draw at the first step; then the schedule of (from, state) and the index of
    /// the next entry.
    Obstacles {
        layout: ObstacleLayout,
        schedule: Vec<(SimTime, LinkState)>,
        next: usize,
    },
}

/// The process of a [`CellularConfig`].
#[derive(Clone, Debug)]
pub struct CellularChannel {
    model: PathLossModel,
    budget_db: f64, // P_tx + G_bf − N, dB: SINR = budget − PL − shadowing + fading
    bs: Point,
    ue: LinearMotion,
    speed_mps: f64,
    source: StateSource,
    state: LinkState,
    next_epoch: SimTime, // next statistical redraw; MAX if none
    obstacles: Vec<Rect>,
    shadowing: bool,
    shadow_sigma_db: Option<f64>, // shadowing_sigma_db: σ for every state instead of the model's
    shadow_with_state: bool,      // shadowing drawn with each statistical state draw and held
    shadow_z: f64,                // standard-normal shadowing state
    shadow_corr_m: f64,           // decorrelation distance, m
    shadow_corr_s: f64,           // decorrelation time, s
    last_update: SimTime,         // time of the last shadowing update
    fading: Fading,
    m_los: f64,
    m_nlos: f64,
    fading_db: f64,      // current block's gain, dB
    block: Duration,     // coherence block
    block_updates: bool, // does anything change at block boundaries?
    next_block: SimTime, // next block boundary; MAX if no block updates
    started: bool,
    field: String, // dotted path of the channel table, for the one panic message
}

impl CellularChannel {
    /// Validates `config` (one-line errors naming the key) and builds the process.
    pub fn new(config: &CellularConfig, ctx: &RadioContext) -> Result<CellularChannel, InputError> {
        let cx = &ctx.channel;
        let model = PathLossModel::new(
            config.propagation,
            config.frequency.hz(),
            config.bs_height_m,
            config.ue_height_m,
        )
        .map_err(|e| cx.error(e.key, e.message))?;

        if !config.tx_power_dbm.is_finite() {
            return Err(cx.error("tx_power_dbm", "must be a finite power in dBm, e.g. 30.0"));
        }
        if !(config.noise_figure_db.is_finite() && config.noise_figure_db >= 0.0) {
            return Err(cx.error("noise_figure_db", "must be a noise figure in dB, 0 or more, e.g. 5.0"));
        }
        for (key, n) in [("tx_antennas", config.tx_antennas), ("rx_antennas", config.rx_antennas)] {
            if n == 0 {
                return Err(cx.error(key, "must be a whole number of antenna elements, 1 or more"));
            }
        }
        if !(config.beamforming_loss_db.is_finite() && (0.0..=30.0).contains(&config.beamforming_loss_db)) {
            return Err(cx.error("beamforming_loss_db", "must be a loss in dB from 0 to 30, e.g. 4.0"));
        }
        if let Some(sigma) = config.shadowing_sigma_db {
            if !(sigma.is_finite() && (0.0..=30.0).contains(&sigma)) {
                return Err(cx.error(
                    "shadowing_sigma_db",
                    "must be a standard deviation in dB from 0 to 30, e.g. 6.0",
                ));
            }
            if !config.shadowing {
                return Err(cx.error(
                    "shadowing_sigma_db",
                    "sets the spread of the shadowing, which shadowing = false turns off; remove one of them",
                ));
            }
        }
        if config.propagation.los_only() && config.visibility != VisibilityModel::Los {
            return Err(cx.error(
                "visibility",
                format!(
                    "must be \"los\" with propagation = \"{}\", a line-of-sight-only model (got \"{}\")",
                    config.propagation.name(),
                    config.visibility.name()
                ),
            ));
        }
        if !(ctx.bandwidth_hz.is_finite() && ctx.bandwidth_hz > 0.0) {
            return Err(InputError::new(
                cx.scenario_file,
                cx.field,
                format!("the link's bandwidth must be greater than 0 Hz (got {} Hz)", ctx.bandwidth_hz),
            ));
        }

        let (bs, ue) = Self::positions(config, ctx)?;

        let positive_time = |key: &str, t: Time| {
            if t.0 == Duration::ZERO {
                Err(cx.error(key, "must be a time greater than zero, e.g. \"1s\""))
            } else {
                Ok(t.0)
            }
        };
        let dwell = positive_time("state_dwell", config.state_dwell)?;
        let block = positive_time("block", config.block)?;
        let shadow_time = positive_time("shadowing_correlation_time", config.shadowing_correlation_time)?;
        if !(config.shadowing_correlation_m.is_finite() && config.shadowing_correlation_m > 0.0) {
            return Err(cx.error("shadowing_correlation_m", "must be a distance in metres greater than 0"));
        }
        for (key, m) in
            [("nakagami_m_los", config.nakagami_m_los), ("nakagami_m_nlos", config.nakagami_m_nlos)]
        {
            if !(m.is_finite() && m >= 0.5) {
                return Err(cx.error(key, "must be a Nakagami shape of 0.5 or more (1 = Rayleigh)"));
            }
        }

        let source = match config.visibility {
            VisibilityModel::Obstacles => {
                let Some(obstacles) = &config.obstacles else {
                    return Err(cx.error(
                        "obstacles",
                        "required with visibility = \"obstacles\": \
                         { count, min_size_m, max_size_m, area = [x0, y0, x1, y1] }",
                    ));
                };
                if config.bs_position.is_none() {
                    return Err(cx.error(
                        "visibility",
                        "\"obstacles\" needs bs_position and ue_start (obstacles live in the plane)",
                    ));
                }
                let layout = Self::layout(obstacles, ctx)?;
                Self::check_placeable(&layout, bs, ue.start, ctx)?;
                StateSource::Obstacles { layout, schedule: Vec::new(), next: 0 }
            }
            other => {
                if config.obstacles.is_some() {
                    return Err(cx.error("obstacles", "only used with visibility = \"obstacles\"; remove it"));
                }
                match other {
                    VisibilityModel::Statistical => {
                        StateSource::Statistical { dwell, redraw: config.state_redraw }
                    }
                    _ => StateSource::Fixed,
                }
            }
        };
        let state = match config.visibility {
            VisibilityModel::Nlos => LinkState::Nlos,
            _ => LinkState::Los,
        };

        let gain_db = 10.0 * libm::log10(config.tx_antennas as f64 * config.rx_antennas as f64)
            - config.beamforming_loss_db;
        let noise_dbm =
            THERMAL_NOISE_DBM_PER_HZ + 10.0 * libm::log10(ctx.bandwidth_hz) + config.noise_figure_db;
        if config.shadowing_update == ShadowingUpdate::WithState
            && config.visibility == VisibilityModel::Obstacles
        {
            return Err(cx.error(
                "shadowing_update",
                "\"with_state\" needs a drawn or fixed state (visibility = \"statistical\", \"los\" or \"nlos\")",
            ));
        }
        let correlated = config.shadowing && config.shadowing_update == ShadowingUpdate::Correlated;
        let block_updates = config.fading != Fading::Flat || !ue.is_static() || correlated;
        Ok(CellularChannel {
            model,
            budget_db: config.tx_power_dbm + gain_db - noise_dbm,
            bs,
            ue,
            speed_mps: ue.speed(),
            source,
            state,
            next_epoch: SimTime::MAX,
            obstacles: Vec::new(),
            shadowing: config.shadowing,
            shadow_sigma_db: config.shadowing_sigma_db,
            shadow_with_state: config.shadowing_update == ShadowingUpdate::WithState,
            shadow_z: 0.0,
            shadow_corr_m: config.shadowing_correlation_m,
            shadow_corr_s: shadow_time.as_secs_f64(),
            last_update: SimTime::ZERO,
            fading: config.fading,
            m_los: config.nakagami_m_los,
            m_nlos: config.nakagami_m_nlos,
            fading_db: 0.0,
            block,
            block_updates,
            next_block: SimTime::MAX,
            started: false,
            field: cx.field.to_string(),
        })
    }

    /// BS and UE motion from either `distance_m` or the position keys.
    fn positions(config: &CellularConfig, ctx: &RadioContext) -> Result<(Point, LinearMotion), InputError> {
        let cx = &ctx.channel;
        let finite = |key: &str, v: [f64; 2]| {
            if v.iter().all(|c| c.is_finite()) {
                Ok(Point::new(v[0], v[1]))
            } else {
                Err(cx.error(key, "must be [x, y] with finite numbers (metres, or m/s for ue_velocity)"))
            }
        };
        let positioned = config.bs_position.is_some() || config.ue_start.is_some();
        if config.distance_m.is_some() && (positioned || config.ue_velocity.is_some()) {
            return Err(cx.error(
                "distance_m",
                "give either distance_m (static UE) or bs_position and ue_start (with ue_velocity), not both",
            ));
        }
        if !positioned {
            if config.ue_velocity.is_some() {
                return Err(cx.error("ue_velocity", "needs bs_position and ue_start"));
            }
            let d = config.distance_m.unwrap_or(DEFAULT_DISTANCE_M);
            if !(d.is_finite() && d > 0.0) {
                return Err(cx.error("distance_m", "must be a distance in metres greater than 0, e.g. 100.0"));
            }
            return Ok((Point::new(0.0, 0.0), LinearMotion::fixed(Point::new(d, 0.0))));
        }
        let (Some(bs), Some(start)) = (config.bs_position, config.ue_start) else {
            let missing = if config.bs_position.is_none() { "bs_position" } else { "ue_start" };
            return Err(cx.error(missing, "bs_position and ue_start are given together, as [x, y] in metres"));
        };
        let bs = finite("bs_position", bs)?;
        let start = finite("ue_start", start)?;
        let velocity = finite("ue_velocity", config.ue_velocity.unwrap_or([0.0, 0.0]))?;
        Ok((bs, LinearMotion { start, velocity }))
    }

    fn layout(o: &ObstaclesConfig, ctx: &RadioContext) -> Result<ObstacleLayout, InputError> {
        let cx = &ctx.channel;
        let [x0, y0, x1, y1] = o.area;
        if !(o.area.iter().all(|v| v.is_finite()) && x0 < x1 && y0 < y1) {
            return Err(
                cx.error("obstacles.area", "must be [x0, y0, x1, y1] in metres with x0 < x1 and y0 < y1")
            );
        }
        if o.count > 200 {
            return Err(cx.error("obstacles.count", "must be 0 to 200"));
        }
        if !(o.min_size_m.is_finite() && o.min_size_m > 0.0) {
            return Err(cx.error("obstacles.min_size_m", "must be a size in metres greater than 0"));
        }
        if !(o.max_size_m.is_finite() && o.max_size_m >= o.min_size_m) {
            return Err(cx.error("obstacles.max_size_m", "must be a size in metres, at least min_size_m"));
        }
        if o.min_size_m > (x1 - x0).min(y1 - y0) {
            return Err(cx.error(
                "obstacles.min_size_m",
                format!("{} m does not fit in the area ({} × {} m)", o.min_size_m, x1 - x0, y1 - y0),
            ));
        }
        Ok(ObstacleLayout {
            count: o.count as usize,
            min_size_m: o.min_size_m,
            max_size_m: o.max_size_m,
            area: Rect::from_corners(Point::new(x0, y0), Point::new(x1, y1)),
        })
    }

    /// The layout is drawn from the channel's stream at the first step, where no error can be
    /// returned; reject here a layout that fails for any of a few fixed streams (a crowded area).
    fn check_placeable(
        layout: &ObstacleLayout,
        bs: Point,
        ue: Point,
        ctx: &RadioContext,
    ) -> Result<(), InputError> {
        for probe in 0..4 {
            let mut rng = Rng::for_component(probe, "radio/cellular/obstacle-check");
            if let Err(e) = layout.place(&mut rng, &[bs, ue]) {
                return Err(ctx.channel.error("obstacles", e.to_string()));
            }
        }
        Ok(())
    }

    /// The current link state (after the last step).
    pub fn link_state(&self) -> LinkState {
        self.state
    }

    /// The obstacles in use (empty before the first step or without `visibility = "obstacles"`).
    pub fn obstacles(&self) -> &[Rect] {
        &self.obstacles
    }

    /// The configured propagation model.
    pub fn model(&self) -> &PathLossModel {
        &self.model
    }

    /// The shadowing standard deviation in `state`, dB: `shadowing_sigma_db` if given, else the
    /// model's; 0 in outage or with `shadowing = false`.
    pub fn shadowing_std_db(&self, state: LinkState) -> f64 {
        match (self.shadowing, state) {
            (false, _) | (_, LinkState::Outage) => 0.0,
            _ => self.shadow_sigma_db.unwrap_or_else(|| self.model.shadowing_std_db(state)),
        }
    }

    /// P_tx + G_bf − noise power, dB: the SNR a 0 dB path loss would give.
    pub fn budget_db(&self) -> f64 {
        self.budget_db
    }

    /// Position of the UE at `now`.
    pub fn ue_position(&self, now: SimTime) -> Point {
        self.ue.position_at(now.as_secs_f64())
    }

    fn next_grid(&self, now: SimTime) -> SimTime {
        let k = now.0 / self.block.0 + 1;
        SimTime(k.saturating_mul(self.block.0))
    }

    fn draw_fading(&mut self, rng: &mut Rng) {
        self.fading_db = match (self.fading, self.state) {
            (Fading::Flat, _) | (_, LinkState::Outage) => 0.0,
            (Fading::Nakagami, LinkState::Los) => 10.0 * libm::log10(nakagami_power_gain(self.m_los, rng)),
            (Fading::Nakagami, LinkState::Nlos) => 10.0 * libm::log10(nakagami_power_gain(self.m_nlos, rng)),
        };
    }

    /// Draws the statistical state at `now` (with the shadowing, under `with_state`) and
    /// schedules the next draw.
    fn draw_state(&mut self, now: SimTime, d_m: f64, dwell: Duration, redraw: StateRedraw, rng: &mut Rng) {
        self.state = self.model.state_probabilities(d_m).pick(rng.uniform());
        if self.shadow_with_state {
            self.shadow_z = rng.standard_normal();
        }
        self.next_epoch = match redraw {
            StateRedraw::Poisson => {
                now + Duration::from_secs_f64(rng.exponential(dwell.as_secs_f64()))
                    .max(Duration::from_picos(1))
            }
            // On the grid of the first draw, whatever the step that crosses an epoch.
            StateRedraw::Periodic => {
                let first = if self.next_epoch == SimTime::MAX { now } else { self.next_epoch };
                let mut next = first + dwell;
                while next <= now {
                    next += dwell;
                }
                next
            }
            StateRedraw::Once => SimTime::MAX,
        };
    }

    fn start(&mut self, now: SimTime, d_m: f64, rng: &mut Rng) {
        self.started = true;
        match &mut self.source {
            StateSource::Fixed => {}
            StateSource::Statistical { dwell, redraw } => {
                let (dwell, redraw) = (*dwell, *redraw);
                self.draw_state(now, d_m, dwell, redraw, rng);
            }
            StateSource::Obstacles { layout, schedule, next } => {
                self.obstacles = layout.place(rng, &[self.bs, self.ue.start]).unwrap_or_else(|e| {
                    panic!("{}.obstacles: {e} (with this run's random stream)", self.field)
                });
                for (from_s, blocked) in visibility_schedule(self.bs, &self.ue, &self.obstacles) {
                    let at = SimTime::ZERO + Duration::from_secs_f64(from_s);
                    let state = if blocked { LinkState::Nlos } else { LinkState::Los };
                    match schedule.last_mut() {
                        // Changes closer than a picosecond collapse onto one instant.
                        Some(last) if last.0 >= at => last.1 = state,
                        _ => schedule.push((at, state)),
                    }
                }
                self.state = schedule[0].1;
                *next = 1;
                while *next < schedule.len() && schedule[*next].0 <= now {
                    self.state = schedule[*next].1;
                    *next += 1;
                }
            }
        }
        if !(self.shadow_with_state && matches!(self.source, StateSource::Statistical { .. })) {
            self.shadow_z = rng.standard_normal();
        }
        self.last_update = now;
        if self.block_updates {
            self.next_block = self.next_grid(now);
        }
    }
}

impl SinrProcess for CellularChannel {
    fn step(&mut self, now: SimTime, rng: &mut Rng) -> SinrStep {
        let d_m = self.ue.position_at(now.as_secs_f64()).distance(self.bs);
        let before = self.state;
        let mut redraw_fading = !self.started;
        if !self.started {
            self.start(now, d_m, rng);
        } else {
            match &mut self.source {
                StateSource::Fixed => {}
                StateSource::Statistical { dwell, redraw } => {
                    if now >= self.next_epoch {
                        let (dwell, redraw) = (*dwell, *redraw);
                        self.draw_state(now, d_m, dwell, redraw, rng);
                    }
                }
                StateSource::Obstacles { schedule, next, .. } => {
                    while *next < schedule.len() && schedule[*next].0 <= now {
                        self.state = schedule[*next].1;
                        *next += 1;
                    }
                }
            }
            if now >= self.next_block {
                redraw_fading = true;
                self.next_block = self.next_grid(now);
            }
            if self.shadowing && !self.shadow_with_state && now > self.last_update {
                let dt_s = (now - self.last_update).as_secs_f64();
                let rho = if self.speed_mps > 0.0 {
                    libm::exp(-self.speed_mps * dt_s / self.shadow_corr_m)
                } else {
                    libm::exp(-dt_s / self.shadow_corr_s)
                };
                self.shadow_z = rho * self.shadow_z + libm::sqrt(1.0 - rho * rho) * rng.standard_normal();
                self.last_update = now;
            }
        }
        if redraw_fading || self.state != before {
            self.draw_fading(rng);
        }

        let sinr_db = if self.state == LinkState::Outage {
            f64::NEG_INFINITY
        } else {
            let shadow_db = self.shadowing_std_db(self.state) * self.shadow_z;
            self.budget_db - self.model.path_loss_db(self.state, d_m) - shadow_db + self.fading_db
        };

        let mut next = self.next_block.min(self.next_epoch);
        if let StateSource::Obstacles { schedule, next: i, .. } = &self.source {
            if let Some(&(at, _)) = schedule.get(*i) {
                next = next.min(at);
            }
        }
        SinrStep { sinr_db, next_change: (next != SimTime::MAX).then_some(next) }
    }
}

#[cfg(test)]
mod tests {
    use super::super::geometry::is_blocked;
    use super::*;
    use crate::error::InputContext;
    use std::path::Path;

    fn ctx(bandwidth_hz: f64) -> RadioContext<'static> {
        RadioContext {
            channel: InputContext {
                scenario_file: "s.toml",
                field: "link[0].radio.channel",
                base_dir: Path::new("."),
            },
            bandwidth_hz,
        }
    }

    fn build(config: &CellularConfig) -> CellularChannel {
        CellularChannel::new(config, &ctx(1e9)).unwrap()
    }

    fn parse(text: &str) -> CellularConfig {
        toml::from_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    /// Drives a process as the radio link does, until `end` or `max_steps`.
    fn drive(
        channel: &mut CellularChannel,
        seed: u64,
        end: SimTime,
        max_steps: usize,
    ) -> Vec<(SimTime, SinrStep)> {
        let mut rng = Rng::for_component(seed, "link/x/channel");
        crate::sim::drive_steps(max_steps, end, |now| {
            let step = channel.step(now, &mut rng);
            (step, step.next_change)
        })
    }

    fn secs(s: f64) -> SimTime {
        SimTime::ZERO + Duration::from_secs_f64(s)
    }

    /// No shadowing, no fading: the SINR is the mean link budget.
    fn quiet(mut c: CellularConfig) -> CellularConfig {
        c.shadowing = false;
        c.fading = Fading::Flat;
        c
    }

    // ---- link budget ----------------------------------------------------------------------

    #[test]
    fn test_link_budget_known_answer() {
        // 30 dBm + 10·log10(64·16) = 30.103 dB − 101.4 dB (NYU 28 GHz LOS, 100 m)
        // − (−174 + 90 + 5) dBm = 37.703 dB.
        let config = quiet(CellularConfig { visibility: VisibilityModel::Los, ..Default::default() });
        let mut channel = build(&config);
        let steps = drive(&mut channel, 1, secs(1.0), 10);
        assert_eq!(steps.len(), 1, "nothing varies: one step, no next change");
        assert!((steps[0].1.sinr_db - 37.7030).abs() < 1e-3, "{:?}", steps[0]);
        assert_eq!(steps[0].1.next_change, None);

        let config = quiet(CellularConfig { visibility: VisibilityModel::Nlos, ..Default::default() });
        let sinr = drive(&mut build(&config), 1, secs(1.0), 10)[0].1.sinr_db;
        assert!((sinr - (37.7030 - 29.0)).abs() < 1e-3, "{sinr}");

        // ns-3 mmWave 2017's effective beamforming gain: 4 dB below the ideal 30.103 dB.
        let config = quiet(CellularConfig {
            visibility: VisibilityModel::Los,
            beamforming_loss_db: 4.0,
            ..Default::default()
        });
        let sinr = drive(&mut build(&config), 1, secs(1.0), 10)[0].1.sinr_db;
        assert!((sinr - 33.7030).abs() < 1e-3, "{sinr}");

        // LTE companion downlink: UMa 2.1 GHz, 1×1, 20 MHz, NF 9 dB, 100 m LOS:
        // 30 − 78.701 − (−174 + 73.010 + 9) = 43.289 dB.
        let lte = parse(
            "propagation = \"uma\"\nfrequency = \"2.1GHz\"\ntx_antennas = 1\nrx_antennas = 1\n\
             noise_figure_db = 9.0\nvisibility = \"los\"\nshadowing = false\nfading = \"none\"",
        );
        let mut channel = CellularChannel::new(&lte, &ctx(20e6)).unwrap();
        let sinr = channel.step(SimTime::ZERO, &mut Rng::for_component(1, "c")).sinr_db;
        assert!((sinr - 43.289).abs() < 1e-3, "{sinr}");
    }

    #[test]
    fn test_next_change_is_the_next_block_or_state_epoch() {
        let config = CellularConfig { visibility: VisibilityModel::Los, ..Default::default() };
        let steps = drive(&mut build(&config), 1, secs(0.01), 100);
        for (i, (now, step)) in steps.iter().enumerate() {
            assert_eq!(*now, SimTime::ZERO + Duration::from_millis(i as u64));
            assert_eq!(step.next_change, Some(*now + Duration::from_millis(1)));
        }
        // Statistical state, nothing else varying: steps only at the redraw epochs.
        let config =
            quiet(CellularConfig { state_dwell: Time(Duration::from_millis(100)), ..Default::default() });
        let steps = drive(&mut build(&config), 1, secs(100.0), 10_000);
        let n = steps.len() as f64;
        assert!((n - 1000.0).abs() < 4.0 * 1000f64.sqrt(), "{n} epochs in 100 s at 0.1 s mean spacing");
    }

    #[test]
    fn test_outage_is_negative_infinity() {
        // NYU at 200 m: p_out = 0.769; about 1000 redraws in 100 s, so the outage fraction of the
        // draws is within ±0.013 (1 σ) of it.
        let config = quiet(CellularConfig {
            distance_m: Some(200.0),
            state_dwell: Time(Duration::from_millis(100)),
            ..Default::default()
        });
        let steps = drive(&mut build(&config), 5, secs(100.0), 10_000);
        let outages = steps.iter().filter(|(_, s)| s.sinr_db == f64::NEG_INFINITY).count();
        let fraction = outages as f64 / steps.len() as f64;
        assert!((fraction - 0.769).abs() < 0.06, "{outages} of {}", steps.len());
        assert!(steps.iter().all(|(_, s)| s.sinr_db == f64::NEG_INFINITY || s.sinr_db.is_finite()));
    }

    // ---- statistics -----------------------------------------------------------------------

    #[test]
    fn test_statistical_state_time_fractions_match_the_model() {
        // NYU 28 GHz at 170 m: p_LOS 0.0498, p_NLOS 0.5773, p_out 0.3729.
        let d = 170.0;
        let dwell = 0.01;
        let config = quiet(CellularConfig {
            distance_m: Some(d),
            state_dwell: Time(Duration::from_secs_f64(dwell)),
            ..Default::default()
        });
        let mut channel = build(&config);
        let model = *channel.model();
        let expected = model.state_probabilities(d);
        let los_sinr = channel.budget_db() - model.path_loss_db(LinkState::Los, d);
        let end = secs(1000.0);
        let steps = drive(&mut channel, 11, end, usize::MAX);
        let mut time = [0.0; 3];
        let mut changes = 0;
        for (i, (now, step)) in steps.iter().enumerate() {
            let until = step.next_change.unwrap().min(end);
            let k = if step.sinr_db == f64::NEG_INFINITY {
                2
            } else if (step.sinr_db - los_sinr).abs() < 1e-9 {
                0
            } else {
                1
            };
            time[k] += (until - *now).as_secs_f64();
            if i > 0 && steps[i - 1].1.sinr_db != step.sinr_db {
                changes += 1;
            }
        }
        // Each epoch contributes X·1{state = s} with X ~ Exp(dwell); over N epochs the time
        // fraction has variance ≈ (2p − p²)/N. Four standard deviations.
        let n = steps.len() as f64;
        for (k, p) in [expected.los, expected.nlos, expected.outage].into_iter().enumerate() {
            let fraction = time[k] / 1000.0;
            let tol = 4.0 * ((2.0 * p - p * p) / n).sqrt();
            assert!((fraction - p).abs() < tol, "state {k}: {fraction} vs {p} ± {tol}");
        }
        // A redraw changes the state with probability 1 − Σp²: the state persists across epochs
        // (and across fading blocks), it is not drawn afresh per slot.
        let p_change =
            1.0 - [expected.los, expected.nlos, expected.outage].iter().map(|p| p * p).sum::<f64>();
        let expect = n * p_change;
        assert!(
            (changes as f64 - expect).abs() < 4.0 * (expect * (1.0 - p_change)).sqrt(),
            "{changes} changes, expected {expect}"
        );
    }

    #[test]
    fn test_periodic_redraws_fall_on_the_grid_and_only_there() {
        // Fading on 1 ms blocks, state redrawn every 250 ms: the path-loss level (SINR minus the
        // fading, read through the link state) may change only at multiples of 250 ms.
        let config = parse(
            "distance_m = 100.0\nstate_redraw = \"periodic\"\nstate_dwell = \"250ms\"\nshadowing = false\n\
             block = \"1ms\"",
        );
        let mut channel = build(&config);
        let mut rng = Rng::for_component(7, "link/x/channel");
        let mut now = SimTime::ZERO;
        let mut last_state = None;
        let (mut changes, mut epochs_seen) = (0, 0);
        while now < secs(20.0) {
            let step = channel.step(now, &mut rng);
            let state = channel.link_state();
            let on_grid = now.0 % Duration::from_millis(250).0 == Duration::ZERO.0;
            if last_state.is_some_and(|s| s != state) {
                assert!(on_grid, "state changed at {now:?}, off the 250 ms grid");
                changes += 1;
            }
            epochs_seen += on_grid as u32;
            last_state = Some(state);
            now = step.next_change.unwrap();
        }
        // 80 epochs; at 100 m the state changes at a redraw with probability 1 − Σp² ≈ 0.50.
        assert_eq!(epochs_seen, 80);
        assert!((20..=60).contains(&changes), "{changes} changes in 80 epochs");

        // The period is the key's: 1 s gives a quarter of the epochs.
        let config = quiet(parse("distance_m = 100.0\nstate_redraw = \"periodic\"\nstate_dwell = \"1s\""));
        let steps = drive(&mut build(&config), 7, secs(20.0), usize::MAX);
        let times: Vec<SimTime> = steps.iter().map(|(t, _)| *t).collect();
        let expect: Vec<SimTime> = (0..20).map(|k| secs(k as f64)).collect();
        assert_eq!(times, expect);
    }

    #[test]
    fn test_state_drawn_once_holds_for_the_run_and_follows_the_model_across_runs() {
        // ns-3 mmWave 2017: one state and one shadowing draw per run, then nothing changes.
        let d = 100.0;
        let config = parse(
            "distance_m = 100.0\nstate_redraw = \"once\"\nshadowing_update = \"with_state\"\nfading = \"none\"",
        );
        let model = *build(&config).model();
        let expected = model.state_probabilities(d);
        let runs = 4000;
        let mut count = [0usize; 3];
        let mut z_los = Vec::new();
        for seed in 0..runs {
            let mut channel = build(&config);
            let steps = drive(&mut channel, seed, secs(1000.0), 10);
            assert_eq!(steps.len(), 1, "a held state and shadowing never change");
            assert_eq!(steps[0].1.next_change, None);
            match channel.link_state() {
                LinkState::Los => {
                    count[0] += 1;
                    let pl = model.path_loss_db(LinkState::Los, d);
                    z_los.push((channel.budget_db() - pl - steps[0].1.sinr_db) / 5.8);
                }
                LinkState::Nlos => count[1] += 1,
                LinkState::Outage => count[2] += 1,
            }
        }
        for (k, p) in [expected.los, expected.nlos, expected.outage].into_iter().enumerate() {
            let f = count[k] as f64 / runs as f64;
            let tol = 4.0 * (p * (1.0 - p) / runs as f64).sqrt() + 1e-9;
            assert!((f - p).abs() <= tol, "state {k}: {f} vs {p} ± {tol}");
        }
        // The held shadowing is N(0, σ_LOS²): unit spread once divided by σ_LOS = 5.8 dB.
        let sd = std_dev(&z_los);
        assert!((sd - 1.0).abs() < 0.08, "shadowing spread {sd} σ");
    }

    #[test]
    fn test_shadowing_with_state_is_redrawn_at_each_epoch_and_held_between() {
        let config = parse(
            "distance_m = 60.0\nstate_redraw = \"periodic\"\nstate_dwell = \"100ms\"\n\
             shadowing_update = \"with_state\"\nfading = \"none\"",
        );
        let mut channel = build(&config);
        let model = *channel.model();
        let mut rng = Rng::for_component(3, "link/x/channel");
        let mut now = SimTime::ZERO;
        let mut z = Vec::new();
        while now < secs(400.0) {
            let step = channel.step(now, &mut rng);
            // Nothing varies between epochs: the next change is the next epoch.
            assert_eq!(step.next_change, Some(now + Duration::from_millis(100)));
            let state = channel.link_state();
            if state != LinkState::Outage {
                let pl = model.path_loss_db(state, 60.0);
                z.push((channel.budget_db() - pl - step.sinr_db) / model.shadowing_std_db(state));
            }
            now = step.next_change.unwrap();
        }
        // One fresh N(0, 1) per epoch: unit spread, no correlation between epochs.
        assert!((std_dev(&z) - 1.0).abs() < 0.05, "{}", std_dev(&z));
        assert!(autocorrelation(&z, 1).abs() < 0.05, "{}", autocorrelation(&z, 1));
    }

    /// Lag-k autocorrelation of `x`.
    fn autocorrelation(x: &[f64], k: usize) -> f64 {
        let n = x.len();
        let mean = x.iter().sum::<f64>() / n as f64;
        let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>();
        let cov = (0..n - k).map(|i| (x[i] - mean) * (x[i + k] - mean)).sum::<f64>();
        cov / var
    }

    fn std_dev(x: &[f64]) -> f64 {
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        (x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / x.len() as f64).sqrt()
    }

    #[test]
    fn test_shadowing_spread_and_time_correlation_static_ue() {
        // LOS, no fading, static: SINR = const − 5.8·Z with Z an AR(1) of ρ = exp(−1 ms / 10 ms).
        let config = CellularConfig {
            visibility: VisibilityModel::Los,
            fading: Fading::Flat,
            shadowing_correlation_time: Time(Duration::from_millis(10)),
            ..Default::default()
        };
        let steps = drive(&mut build(&config), 21, secs(200.0), usize::MAX);
        let x: Vec<f64> = steps.iter().map(|(_, s)| s.sinr_db).collect();
        assert_eq!(x.len(), 200_000);
        // Effective sample size N(1 − ρ²)/(1 + ρ²) ≈ 20 000: the std is within ±0.03 dB (1 σ) and
        // the lag-10 correlation within ±0.006 (1 σ, Bartlett); tolerances are about 5 σ.
        let sd = std_dev(&x);
        assert!((sd - 5.8).abs() < 0.15, "std {sd}");
        let r1 = autocorrelation(&x, 1);
        let r10 = autocorrelation(&x, 10);
        assert!((r1 - libm::exp(-0.1)).abs() < 0.01, "lag 1: {r1}");
        assert!((r10 - libm::exp(-1.0)).abs() < 0.03, "lag 10: {r10}");
    }

    #[test]
    fn test_shadowing_correlation_follows_distance_for_a_moving_ue() {
        // 10 m/s with d_corr = 0.1 m: ρ = exp(−0.01 m / 0.1 m) per 1 ms block, whatever the
        // (default, 1 s) decorrelation time. The mean path loss changes as the UE moves; it is
        // added back so that only the shadowing remains.
        let config = CellularConfig {
            visibility: VisibilityModel::Los,
            fading: Fading::Flat,
            bs_position: Some([0.0, 0.0]),
            ue_start: Some([50.0, 0.0]),
            ue_velocity: Some([0.0, 10.0]),
            shadowing_correlation_m: 0.1,
            ..Default::default()
        };
        let mut channel = build(&config);
        let steps = drive(&mut channel, 22, secs(200.0), usize::MAX);
        let model = *channel.model();
        let x: Vec<f64> = steps
            .iter()
            .map(|(now, s)| {
                let d = channel.ue_position(*now).distance(Point::new(0.0, 0.0));
                channel.budget_db() - model.path_loss_db(LinkState::Los, d) - s.sinr_db
            })
            .collect();
        let sd = std_dev(&x);
        assert!((sd - 5.8).abs() < 0.15, "std {sd}");
        let r10 = autocorrelation(&x, 10);
        assert!((r10 - libm::exp(-1.0)).abs() < 0.03, "lag 10: {r10}");
    }

    #[test]
    fn test_state_switch_rescales_but_does_not_redraw_shadowing() {
        // A decorrelation time of 10⁴ s keeps Z nearly constant over a 1 ms block (innovation
        // sd 4.5e-4); a redraw at a switch would move Z by ~1.4.
        let config = CellularConfig {
            fading: Fading::Flat,
            state_dwell: Time(Duration::from_millis(50)),
            shadowing_correlation_time: Time(Duration::from_secs(10_000)),
            ..Default::default()
        };
        let mut channel = build(&config);
        let model = *channel.model();
        let budget = channel.budget_db();
        let mut rng = Rng::for_component(31, "c");
        let mut now = SimTime::ZERO;
        let mut previous: Option<(LinkState, f64)> = None;
        let mut switches = 0;
        for _ in 0..20_000 {
            let step = channel.step(now, &mut rng);
            let state = channel.link_state();
            let z =
                (budget - model.path_loss_db(state, 100.0) - step.sinr_db) / model.shadowing_std_db(state);
            if let Some((before, z_before)) = previous {
                if before != state {
                    switches += 1;
                    assert!((z - z_before).abs() < 0.01, "Z jumped from {z_before} to {z} at {now}");
                }
            }
            previous = Some((state, z));
            now = step.next_change.unwrap();
        }
        // 20 s at 50 ms mean spacing is ~400 redraws, each switching with probability
        // 1 − p_LOS² − p_NLOS² = 0.349 at 100 m: 140 ± 12 switches. A state drawn afresh for every
        // 1 ms block would switch thousands of times.
        assert!(switches > 87 && switches < 193, "{switches} switches");
    }

    #[test]
    fn test_nakagami_gain_moments() {
        let mut rng = Rng::for_component(41, "fading");
        for m in [0.6, 1.0, 2.0, 3.0] {
            let n = 200_000;
            let g: Vec<f64> = (0..n).map(|_| nakagami_power_gain(m, &mut rng)).collect();
            assert!(g.iter().all(|&v| v > 0.0 && v.is_finite()));
            let mean = g.iter().sum::<f64>() / n as f64;
            let var = g.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
            // sd of the mean √(1/(m n)) ≤ 0.003; of the variance ≈ √((2/m² + 6/m³)/n) ≤ 0.012.
            assert!((mean - 1.0).abs() < 0.012, "m {m}: mean {mean}");
            assert!((var - 1.0 / m).abs() < 0.06 / m, "m {m}: variance {var}");
        }
    }

    // ---- ITU-R P.1411 LOS and shadowing_sigma_db -------------------------------------------

    /// The LTE link of the ns-3 DCE script of Polese et al. 2017: uplink (UE 23 dBm, eNB NF 5 dB,
    /// 1.93 GHz) or downlink (eNB 30 dBm, UE NF 9 dB, 2.12 GHz), P.1411 LOS, 6 dB shadowing drawn
    /// once and held, no fading, 20 MHz.
    fn lte_p1411(uplink: bool, d: f64) -> CellularConfig {
        let (f, p, nf) = if uplink { ("1.93GHz", 23.0, 5.0) } else { ("2.12GHz", 30.0, 9.0) };
        parse(&format!(
            "propagation = \"itu_r_p1411_los\"\nfrequency = \"{f}\"\ntx_power_dbm = {p:.1}\n\
             noise_figure_db = {nf:.1}\ntx_antennas = 1\nrx_antennas = 1\ndistance_m = {d:.1}\n\
             visibility = \"los\"\nstate_redraw = \"once\"\nshadowing_update = \"with_state\"\n\
             shadowing_sigma_db = 6.0\nfading = \"none\""
        ))
    }

    #[test]
    fn test_p1411_link_budget_known_answers() {
        // N = −174 + 10·log10(20e6) + NF = −100.9897 + NF dBm. Uplink: 23 − PL + 100.9897 − 5;
        // downlink: 30 − PL + 100.9897 − 9, with PL from radio::propagation's known answers
        // (1.93 GHz 75.6532 / 79.6109 / 84.3834 / 91.4252 dB; 2.12 GHz 76.3668 / 80.3245 /
        // 84.3834 / 91.4252 dB).
        let cases = [
            (50.0, 43.3365, 45.6229),
            (75.0, 39.3788, 41.6652),
            (100.0, 34.6063, 37.6063),
            (150.0, 27.5645, 30.5645),
        ];
        for (d, ul, dl) in cases {
            for (uplink, expect) in [(true, ul), (false, dl)] {
                let config = CellularConfig { shadowing_sigma_db: Some(0.0), ..lte_p1411(uplink, d) };
                let mut channel = CellularChannel::new(&config, &ctx(20e6)).unwrap();
                let steps = drive(&mut channel, 1, secs(10.0), 10);
                assert_eq!(steps.len(), 1, "static, LOS, held shadowing, no fading: one step");
                let sinr = steps[0].1.sinr_db;
                assert!((sinr - expect).abs() < 1e-3, "{d} m, uplink {uplink}: {sinr} vs {expect}");
            }
        }
    }

    #[test]
    fn test_shadowing_sigma_db_sets_the_spread_of_the_drawn_shadowing() {
        // One draw per run (seed), held: across 4000 runs the shadowing (budget − PL − SINR) has
        // sample standard deviation σ ± σ/√(2·4000) = σ ± 0.011σ; the tolerance is 4.5 of those.
        let spread = |config: &CellularConfig, state: LinkState| {
            let mut shadows = Vec::new();
            for seed in 0..4000 {
                let mut channel = CellularChannel::new(config, &ctx(20e6)).unwrap();
                let steps = drive(&mut channel, seed, secs(100.0), 10);
                if channel.link_state() == state {
                    let pl = channel.model().path_loss_db(state, 100.0);
                    shadows.extend(steps.iter().map(|(_, step)| channel.budget_db() - pl - step.sinr_db));
                }
            }
            (std_dev(&shadows), shadows)
        };
        for (sigma, expect) in [(Some(6.0), 6.0), (Some(2.5), 2.5), (None, 7.0)] {
            let config = CellularConfig { shadowing_sigma_db: sigma, ..lte_p1411(true, 100.0) };
            let channel = CellularChannel::new(&config, &ctx(20e6)).unwrap();
            assert_eq!(channel.shadowing_std_db(LinkState::Los), expect);
            let (sd, shadows) = spread(&config, LinkState::Los);
            assert_eq!(shadows.len(), 4000, "one held value per run");
            assert!((sd - expect).abs() < 0.05 * expect, "σ {sigma:?}: sample std {sd}");
        }
        // It replaces the model's σ in every state: NYU NLOS (8.7 dB of its own) at 3 dB.
        let nyu = parse(
            "distance_m = 100.0\nvisibility = \"nlos\"\nshadowing_update = \"with_state\"\n\
             fading = \"none\"\nshadowing_sigma_db = 3.0",
        );
        let (sd, _) = spread(&nyu, LinkState::Nlos);
        assert!((sd - 3.0).abs() < 0.15, "NYU NLOS with σ 3: {sd}");
        // 0 gives no shadowing at all: every run is at the mean budget, also with the AR(1)
        // (whose 1 ms steps each carry a fresh innovation).
        for config in [
            CellularConfig { shadowing_sigma_db: Some(0.0), ..lte_p1411(true, 100.0) },
            parse("distance_m = 100.0\nvisibility = \"los\"\nfading = \"none\"\nshadowing_sigma_db = 0.0"),
        ] {
            let (sd, shadows) = spread(&config, LinkState::Los);
            assert_eq!(sd, 0.0);
            assert!(shadows.iter().all(|&x| x.abs() < 1e-9), "{:?}", &shadows[..3]);
        }
    }

    // ---- obstacles ------------------------------------------------------------------------

    fn seed_003_config(speed: f64) -> CellularConfig {
        parse(&format!(
            "bs_position = [-1, 20]\nue_start = [151, 0]\nue_velocity = [0, {speed}]\n\
             visibility = \"obstacles\"\nshadowing = false\nfading = \"none\"\n\
             obstacles = {{ count = 10, min_size_m = 2.0, max_size_m = 8.0, area = [0, 0, 150, 40] }}"
        ))
    }

    #[test]
    fn test_obstacles_switch_exactly_when_the_geometry_says() {
        let bs = Point::new(-1.0, 20.0);
        let mut switches = 0;
        for seed in 0..10 {
            let config = seed_003_config(5.0);
            let mut channel = build(&config);
            let steps = drive(&mut channel, seed, secs(8.0), usize::MAX);
            let obstacles = channel.obstacles().to_vec();
            assert_eq!(obstacles.len(), 10);
            let ue = LinearMotion { start: Point::new(151.0, 0.0), velocity: Point::new(0.0, 5.0) };
            let schedule = visibility_schedule(bs, &ue, &obstacles);
            let change_times: Vec<SimTime> = schedule[1..].iter().map(|&(t, _)| secs(t)).collect();
            let model = *channel.model();
            let mut seen_changes = Vec::new();
            let mut last: Option<LinkState> = None;
            for (now, step) in &steps {
                let d = channel.ue_position(*now).distance(bs);
                let los = channel.budget_db() - model.path_loss_db(LinkState::Los, d);
                let nlos = channel.budget_db() - model.path_loss_db(LinkState::Nlos, d);
                let state = if (step.sinr_db - los).abs() < 1e-9 {
                    LinkState::Los
                } else {
                    assert!((step.sinr_db - nlos).abs() < 1e-9, "{step:?}");
                    LinkState::Nlos
                };
                if last.is_some_and(|l| l != state) {
                    seen_changes.push(*now);
                }
                last = Some(state);
                // Away from a change instant the state is what the segment test says now.
                let t = now.as_secs_f64();
                if schedule.iter().all(|(from, _)| (from - t).abs() > 1e-9) {
                    let blocked = is_blocked(bs, ue.position_at(t), &obstacles);
                    assert_eq!(state == LinkState::Nlos, blocked, "seed {seed} at {now}");
                }
            }
            let in_run: Vec<SimTime> = change_times.into_iter().filter(|t| *t < secs(8.0)).collect();
            assert_eq!(seen_changes, in_run, "seed {seed}: the channel switches at the geometric instants");
            switches += in_run.len();
        }
        assert!(switches > 5, "the layouts should block the UE now and then ({switches})");
    }

    #[test]
    fn test_obstacles_avoid_the_bs_and_the_ue_start() {
        // A crowded area around the BS: no obstacle may cover it.
        let mut config = seed_003_config(2.0);
        config.bs_position = Some([10.0, 10.0]);
        config.obstacles = Some(ObstaclesConfig {
            count: 12,
            min_size_m: 2.0,
            max_size_m: 3.0,
            area: [0.0, 0.0, 20.0, 20.0],
        });
        for seed in 0..20 {
            let mut channel = build(&config);
            channel.step(SimTime::ZERO, &mut Rng::for_component(seed, "c"));
            assert!(channel.obstacles().iter().all(|r| !r.contains(Point::new(10.0, 10.0))));
        }
    }

    // ---- determinism ----------------------------------------------------------------------

    #[test]
    fn test_same_seed_same_sinr_sequence() {
        for config in [CellularConfig::default(), seed_003_config(2.0)] {
            let run = |seed| drive(&mut build(&config), seed, secs(30.0), 5_000);
            let a = run(3);
            assert_eq!(a.len(), 5_000);
            assert_eq!(a, run(3));
            assert_ne!(a, run(4));
        }
    }

    // ---- configuration --------------------------------------------------------------------

    #[test]
    fn test_defaults_and_resolved_form() {
        let c = parse("");
        assert_eq!(c, CellularConfig::default());
        let resolved = toml::to_string(&c).unwrap();
        for line in [
            "propagation = \"nyu\"",
            "frequency = \"28GHz\"",
            "visibility = \"statistical\"",
            "fading = \"nakagami\"",
            "block = \"1ms\"",
            "state_dwell = \"1s\"",
        ] {
            assert!(resolved.contains(line), "{line} missing from {resolved}");
        }
        assert_eq!(parse(&resolved), c);
        let err = toml::from_str::<CellularConfig>("distance = 100").unwrap_err().to_string();
        assert!(err.contains("unknown field `distance`"), "{err}");
        let err = toml::from_str::<CellularConfig>("obstacles = { area = [0, 0, 1, 1], size = 2 }")
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `size`"), "{err}");
        // shadowing_sigma_db is stated only when given, and reads back.
        assert!(!resolved.contains("shadowing_sigma_db"), "{resolved}");
        let c = parse("propagation = \"itu_r_p1411_los\"\nvisibility = \"los\"\nshadowing_sigma_db = 6.0");
        assert_eq!(c.shadowing_sigma_db, Some(6.0));
        let resolved = toml::to_string(&c).unwrap();
        assert!(
            resolved.contains("propagation = \"itu_r_p1411_los\"")
                && resolved.contains("shadowing_sigma_db = 6.0")
        );
        assert_eq!(parse(&resolved), c);
    }

    /// The TOML examples of docs/models/radio-channels.md.
    #[test]
    fn test_documented_examples_build() {
        let examples = [
            "propagation = \"nyu\"\nfrequency = \"28GHz\"\ndistance_m = 100.0",
            "propagation = \"nyu\"\nfrequency = \"73GHz\"\ndistance_m = 50.0",
            "propagation = \"umi_street_canyon\"\nfrequency = \"28GHz\"\ndistance_m = 50.0",
            "propagation = \"uma\"\nfrequency = \"2.1GHz\"\ntx_power_dbm = 30.0\nnoise_figure_db = 9.0\n\
             tx_antennas = 1\nrx_antennas = 1\ndistance_m = 100.0",
            "propagation = \"uma\"\nfrequency = \"1.9GHz\"\ntx_power_dbm = 25.0\nnoise_figure_db = 5.0\n\
             tx_antennas = 1\nrx_antennas = 1\ndistance_m = 100.0",
            "propagation = \"itu_r_p1411_los\"\nfrequency = \"1.93GHz\"\ntx_power_dbm = 23.0\n\
             noise_figure_db = 5.0\ntx_antennas = 1\nrx_antennas = 1\ndistance_m = 100.0\n\
             visibility = \"los\"\nstate_redraw = \"once\"\nshadowing_update = \"with_state\"\n\
             shadowing_sigma_db = 6.0\nfading = \"none\"",
            "propagation = \"itu_r_p1411_los\"\nfrequency = \"2.12GHz\"\ntx_power_dbm = 30.0\n\
             noise_figure_db = 9.0\ntx_antennas = 1\nrx_antennas = 1\ndistance_m = 100.0\n\
             visibility = \"los\"\nstate_redraw = \"once\"\nshadowing_update = \"with_state\"\n\
             shadowing_sigma_db = 6.0\nfading = \"none\"",
            "propagation = \"nyu\"\nfrequency = \"28GHz\"\nbs_position = [-1.0, 20.0]\n\
             ue_start = [151.0, 0.0]\nue_velocity = [0.0, 2.0]\nvisibility = \"obstacles\"\n\
             obstacles = { count = 10, min_size_m = 2.0, max_size_m = 8.0, area = [0.0, 0.0, 150.0, 40.0] }",
        ];
        for text in examples {
            let config = parse(text);
            let mut channel =
                CellularChannel::new(&config, &ctx(1e9)).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let steps = drive(&mut channel, 1, secs(1.0), 100);
            assert!(steps.iter().all(|(_, s)| !s.sinr_db.is_nan()), "{text}");
        }
    }

    #[test]
    fn test_bad_values_are_errors_naming_the_key() {
        let base = CellularConfig::default;
        let with_positions =
            || CellularConfig { bs_position: Some([0.0, 0.0]), ue_start: Some([50.0, 0.0]), ..base() };
        let obstacles =
            |area, min, max, count| ObstaclesConfig { count, min_size_m: min, max_size_m: max, area };
        let p1411 = |visibility| CellularConfig {
            propagation: Propagation::ItuRP1411Los,
            frequency: Frequency(1_930_000_000),
            visibility,
            ..base()
        };
        let obstacle_config = |o| CellularConfig {
            visibility: VisibilityModel::Obstacles,
            obstacles: Some(o),
            ..with_positions()
        };
        let cases: Vec<(CellularConfig, &str, &str)> = vec![
            (CellularConfig { frequency: Frequency(60_000_000_000), ..base() }, "frequency", "28 GHz"),
            (
                CellularConfig {
                    propagation: Propagation::Uma,
                    frequency: Frequency(200_000_000_000),
                    ..base()
                },
                "frequency",
                "0.5 to 100 GHz",
            ),
            (CellularConfig { bs_height_m: Some(10.0), ..base() }, "bs_height_m", "NYU"),
            (
                CellularConfig { propagation: Propagation::Uma, ue_height_m: Some(30.0), ..base() },
                "ue_height_m",
                "1.5 to 13",
            ),
            (CellularConfig { tx_power_dbm: f64::INFINITY, ..base() }, "tx_power_dbm", "finite"),
            (CellularConfig { noise_figure_db: -1.0, ..base() }, "noise_figure_db", "0 or more"),
            (CellularConfig { tx_antennas: 0, ..base() }, "tx_antennas", "1 or more"),
            (CellularConfig { rx_antennas: 0, ..base() }, "rx_antennas", "1 or more"),
            (CellularConfig { beamforming_loss_db: -1.0, ..base() }, "beamforming_loss_db", "0 to 30"),
            (CellularConfig { beamforming_loss_db: f64::NAN, ..base() }, "beamforming_loss_db", "0 to 30"),
            (CellularConfig { distance_m: Some(0.0), ..base() }, "distance_m", "greater than 0"),
            (CellularConfig { distance_m: Some(5.0), ..with_positions() }, "distance_m", "not both"),
            (CellularConfig { bs_position: Some([0.0, 0.0]), ..base() }, "ue_start", "together"),
            (CellularConfig { ue_start: Some([0.0, 0.0]), ..base() }, "bs_position", "together"),
            (CellularConfig { ue_velocity: Some([1.0, 0.0]), ..base() }, "ue_velocity", "bs_position"),
            (CellularConfig { ue_start: Some([f64::NAN, 0.0]), ..with_positions() }, "ue_start", "finite"),
            (
                CellularConfig { state_dwell: Time(Duration::ZERO), ..base() },
                "state_dwell",
                "greater than zero",
            ),
            (CellularConfig { block: Time(Duration::ZERO), ..base() }, "block", "greater than zero"),
            (
                CellularConfig {
                    shadowing_update: ShadowingUpdate::WithState,
                    ..obstacle_config(obstacles([0.0, 0.0, 40.0, 40.0], 2.0, 3.0, 2))
                },
                "shadowing_update",
                "with_state",
            ),
            (
                CellularConfig { shadowing_correlation_time: Time(Duration::ZERO), ..base() },
                "shadowing_correlation_time",
                "greater than zero",
            ),
            (
                CellularConfig { shadowing_correlation_m: -1.0, ..base() },
                "shadowing_correlation_m",
                "greater than 0",
            ),
            (CellularConfig { shadowing_sigma_db: Some(-1.0), ..base() }, "shadowing_sigma_db", "0 to 30"),
            (CellularConfig { shadowing_sigma_db: Some(30.5), ..base() }, "shadowing_sigma_db", "0 to 30"),
            (
                CellularConfig { shadowing_sigma_db: Some(f64::NAN), ..base() },
                "shadowing_sigma_db",
                "0 to 30",
            ),
            (
                CellularConfig { shadowing_sigma_db: Some(6.0), shadowing: false, ..base() },
                "shadowing_sigma_db",
                "shadowing = false",
            ),
            (
                p1411(VisibilityModel::Statistical),
                "visibility",
                "must be \"los\" with propagation = \"itu_r_p1411_los\"",
            ),
            (p1411(VisibilityModel::Nlos), "visibility", "(got \"nlos\")"),
            (
                CellularConfig {
                    obstacles: Some(obstacles([0.0, 0.0, 40.0, 40.0], 2.0, 3.0, 2)),
                    ..CellularConfig {
                        bs_position: Some([0.0, 0.0]),
                        ue_start: Some([50.0, 0.0]),
                        ..p1411(VisibilityModel::Obstacles)
                    }
                },
                "visibility",
                "line-of-sight-only",
            ),
            (
                CellularConfig { frequency: Frequency(200_000_000), ..p1411(VisibilityModel::Los) },
                "frequency",
                "0.3 to 100 GHz",
            ),
            (
                CellularConfig { bs_height_m: Some(0.0), ..p1411(VisibilityModel::Los) },
                "bs_height_m",
                "greater than 0",
            ),
            (CellularConfig { nakagami_m_los: 0.3, ..base() }, "nakagami_m_los", "0.5 or more"),
            (CellularConfig { nakagami_m_nlos: f64::NAN, ..base() }, "nakagami_m_nlos", "0.5 or more"),
            (
                CellularConfig { visibility: VisibilityModel::Obstacles, ..with_positions() },
                "obstacles",
                "required",
            ),
            (
                CellularConfig {
                    visibility: VisibilityModel::Obstacles,
                    obstacles: Some(obstacles([0.0, 0.0, 10.0, 10.0], 1.0, 2.0, 1)),
                    ..base()
                },
                "visibility",
                "bs_position",
            ),
            (
                CellularConfig { obstacles: Some(obstacles([0.0, 0.0, 10.0, 10.0], 1.0, 2.0, 1)), ..base() },
                "obstacles",
                "only used with",
            ),
            (obstacle_config(obstacles([0.0, 0.0, -10.0, 10.0], 1.0, 2.0, 1)), "obstacles.area", "x0 < x1"),
            (
                obstacle_config(obstacles([0.0, 0.0, 10.0, 10.0], 0.0, 2.0, 1)),
                "obstacles.min_size_m",
                "greater",
            ),
            (
                obstacle_config(obstacles([0.0, 0.0, 10.0, 10.0], 3.0, 2.0, 1)),
                "obstacles.max_size_m",
                "at least",
            ),
            (
                obstacle_config(obstacles([0.0, 0.0, 10.0, 10.0], 12.0, 12.0, 1)),
                "obstacles.min_size_m",
                "fit",
            ),
            (
                obstacle_config(obstacles([0.0, 0.0, 10.0, 10.0], 1.0, 2.0, 201)),
                "obstacles.count",
                "0 to 200",
            ),
            (obstacle_config(obstacles([0.0, 0.0, 10.0, 10.0], 6.0, 6.0, 4)), "obstacles", "placed only"),
        ];
        for (config, key, words) in cases {
            let err = match CellularChannel::new(&config, &ctx(1e9)) {
                Ok(_) => panic!("{key}: accepted {config:?}"),
                Err(e) => e,
            };
            assert_eq!(err.file, "s.toml");
            assert_eq!(err.field, format!("link[0].radio.channel.{key}"), "{}", err.message);
            assert!(err.message.contains(words), "{key}: {}", err.message);
        }
        let err = CellularChannel::new(&base(), &ctx(0.0)).unwrap_err();
        assert_eq!(err.field, "link[0].radio.channel");
        assert!(err.message.contains("bandwidth"), "{}", err.message);
    }
}
