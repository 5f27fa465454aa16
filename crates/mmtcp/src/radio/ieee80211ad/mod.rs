//! IEEE 802.11ad at 60 GHz as Drago et al. (Drago et al., "QoS Provisioning in 60 GHz Communications
//! by Physical and Transport Layer Coordination", IEEE MASS 2019) models it: a channel of
//! per-beam-pair received powers whose best pair gives the SNR (§III, §IV), and the
//! link-to-system mapping (LSM) of the single-carrier (SC) MCSs that turns an SNR into a block
//! error rate per MCS (§IV-A/B, eqs. 1–4). The whole model: docs/models/ieee80211ad.md.
//!
//! ```text
//!   P (dBm, best TX/RX beam pair) ─► SNR = P − P_noise,  P_noise = −174 + 10·log10(B) dBm
//!   ─► MER = SNR − Δ  (Δ = 6.5 dB: the demodulation chain's extra noise, measured)
//!   ─► MMIB of the MCS's modulation at MER
//!   ─► BLER = ½·[1 − erf((MMIB − X₁)/(√2·X₂))]
//! ```
//!
//! One job per file:
//!
//! * `mcs_table`: the SC MCS table (IEEE 802.11ad-2012 clause 21), the receiver sensitivities of
//!   its Table 21-3 and the MER each one requires.
//! * `power`: the thermal noise P_noise (eq. 1) and dB → linear.
//! * `mmib`: the MMIB of the SC modulations (IEEE 802.16m Evaluation Methodology Document).
//! * `bler`: [`ScBlerModel`], the BLER of eq. 4 with X₁, X₂ fitted to the sensitivities.
//! * `config`: [`Ieee80211adConfig`], the `[link.radio.channel]` table of `kind = "ieee80211ad"`.
//! * `channel`: [`Ieee80211adChannel`], the SINR process: the SNR of the best beam pair.
//! * `beam_pairs`: the 7 × 7 TX/RX beam pairs.
//! * `beam_trace`: traces of measured received powers per beam pair.
//! * `synthetic`: [`SyntheticChannel`], the generator of Drago et al.'s scenarios A and B, over
//!   `room` (the propagation paths), `antenna` (the antenna patterns) and `blockage` (the
//!   blocker's knife-edge loss).
//! * `dual_ap`: [`generate_dual_ap`], two rate traces of a user walking between two APs, the
//!   stand-in for Wu et al.'s (COTAG's) measured 802.11ad links.
//!
//! Δ is applied by the AMC (`radio::amc`, `mer_offset_db`), which also picks the MCS.

mod antenna;
mod beam_pairs;
mod beam_trace;
mod bler;
mod blockage;
mod channel;
mod config;
mod dual_ap;
mod mcs_table;
mod mmib;
mod power;
mod room;
mod synthetic;
#[cfg(test)]
mod test_support;

pub use beam_pairs::{pair_angles, BEAM_ANGLES_DEG, PAIRS};
pub use bler::ScBlerModel;
pub use channel::Ieee80211adChannel;
pub use config::{BeamSource, BeamTraceConfig, Ieee80211adConfig, Scenario, SyntheticConfig};
pub use dual_ap::{generate as generate_dual_ap, DualApConfig, DualApTraces, TotalRate};
pub use mcs_table::{
    required_mer_db, sc_mcs, Modulation, ScMcs, SC_MCS, SENSITIVITY_IMPLEMENTATION_LOSS_DB,
    SENSITIVITY_NOISE_BANDWIDTH_HZ, SENSITIVITY_NOISE_FIGURE_DB, SENSITIVITY_PER,
};
pub use mmib::{j_function, mmib};
pub use power::thermal_noise_dbm;
pub use synthetic::SyntheticChannel;
