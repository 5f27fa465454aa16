//! Adaptive modulation and coding (AMC): MCS tables, the block error rate (BLER) of each MCS as a
//! function of SINR, and the choice of the fastest MCS that meets a target BLER.
//!
//! # Tables
//!
//! * `nr`: 3GPP TS 38.214 Table 5.1.3.1-1 (PDSCH MCS index table 1, up to 64-QAM), MCS 0–28.
//! * `nr256`: TS 38.214 Table 5.1.3.1-2 (up to 256-QAM), MCS 0–27.
//! * `lte`: 3GPP TS 36.213 Table 7.2.3-1 (4-bit CQI table), CQI 1–15 used as the MCS index.
//! * `ieee80211ad_sc`: IEEE 802.11ad single-carrier MCS 1–12 ([`super::ieee80211ad`]).
//!
//! For the 3GPP tables the spectral efficiency is Qm × R (R = target code rate × 1024 / 1024),
//! e.g. NR MCS 28: 6 × 948/1024 = 5.5547 bit/s/Hz.
//!
//! # BLER model
//!
//! **3GPP tables** — a modelling choice, documented in `docs/models/amc.md`:
//! BLER(s) = Q((s − s₅₀)/w) = ½·erfc((s − s₅₀)/(√2·w)), s the SINR in dB. The SINR at which an MCS
//! has 10 % BLER follows the attenuated Shannon bound of 3GPP TR 36.942 Annex A.2,
//! SE = α·log₂(1 + SINR), i.e. s₁₀ = 10·log₁₀(2^(SE/α) − 1) dB, with α = `shannon_attenuation`
//! (default 0.75: with it the 10 % points span −6.2 dB (NR MCS 0) to 22.3 dB (MCS 28), within
//! about 1.5 dB of the AWGN SNR–CQI mapping often quoted for LTE from the Vienna link-level
//! simulator, roughly −7 dB for CQI 1 to 23 dB for CQI 15 — quoted from memory, not re-checked;
//! TR 36.942's own α = 0.6 (downlink) is a system-level fit that also absorbs fading, so it is
//! not the default). s₅₀ = s₁₀ − w·Q⁻¹(0.1).
//! The width w = `bler_width_db` (default 0.5 dB) gives a 10 %→90 % transition of 2.56·w =
//! 1.3 dB, between the ≈0.5 dB of long LDPC code blocks and the ≈1.5 dB of short ones in the
//! AWGN link-level BLER tables of 5G-LENA (as shipped in ns3-mmwave's NR error model).
//! `required_sinr_db` replaces the Shannon-derived 10 % points by measured ones.
//!
//! **802.11ad SC** — Drago et al.'s link-to-system mapping: MER = SNR − Δ (`mer_offset_db`, default
//! 6.5 dB), MMIB of the MCS's modulation at that MER, BLER = ½·[1 − erf((MMIB − X₁)/(√2·X₂))],
//! with X₁, X₂ fitted to the standard's sensitivity table (`waterfall_db`) or given (`x1`, `x2`).
//!
//! # Selection
//!
//! The BLER curves do not depend on the target: the target only decides which MCS is chosen.
//! At construction each MCS gets its threshold, the SINR at which its BLER equals the target
//! (closed form for the 3GPP tables; bisection on the MMIB for 802.11ad). `select(s)` returns
//! the highest MCS index whose threshold is ≤ s, by binary search over the thresholds sorted
//! with the running highest index — no transcendental function per call.
//!
//! # Rate
//!
//! rate = ⌊SE × bandwidth × (1 − overhead)⌋ bit/s. Default overheads: `nr`/`nr256` 0.22 =
//! 1 − (1 − 0.18) × 0.95 (TS 38.306 §4.1.2 overhead for FR2 downlink, times the share of the
//! channel that resource blocks occupy, e.g. 264 RBs × 12 × 120 kHz = 380 MHz of 400 MHz, TS
//! 38.101-2 Table 5.3.2-1); `lte` 0.29 = 1 − 0.786 × 0.9 (2 control symbols and 2-port CRS take
//! 36 of 168 resource elements per RB pair, and 100 RBs fill 18 of 20 MHz, TS 36.101 Table
//! 5.6-1; PBCH, synchronisation and CSI-RS ignored); `ieee80211ad_sc` 0 (Drago et al. use SE ×
//! 500 MHz as the rate; MCS 12 gives 1.5 Gbit/s).

use super::gaussian::{gaussian_tail, gaussian_tail_inverse};
use super::ieee80211ad::{self, ScBlerModel};
use crate::error::InputContext;
use crate::error::InputError;
use serde::{Deserialize, Serialize};

/// Which MCS table the AMC uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum McsTable {
    /// TS 38.214 Table 5.1.3.1-1, MCS 0–28.
    #[default]
    #[serde(rename = "nr")]
    Nr,
    /// TS 38.214 Table 5.1.3.1-2, MCS 0–27.
    #[serde(rename = "nr256")]
    Nr256,
    /// TS 36.213 Table 7.2.3-1, CQI 1–15.
    #[serde(rename = "lte")]
    Lte,
    /// IEEE 802.11ad SC MCS 1–12.
    #[serde(rename = "ieee80211ad_sc")]
    Ieee80211adSc,
}

impl McsTable {
    fn name(self) -> &'static str {
        match self {
            McsTable::Nr => "nr",
            McsTable::Nr256 => "nr256",
            McsTable::Lte => "lte",
            McsTable::Ieee80211adSc => "ieee80211ad_sc",
        }
    }

    /// Default fraction of the PHY rate lost to control, reference signals and guard bands.
    fn default_overhead(self) -> f64 {
        match self {
            McsTable::Nr | McsTable::Nr256 => 0.22,
            McsTable::Lte => 0.29,
            McsTable::Ieee80211adSc => 0.0,
        }
    }

    /// (modulation order Qm, target code rate × 1024) of each row, lowest MCS first.
    fn rows(self) -> &'static [(u8, f64)] {
        match self {
            McsTable::Nr => &NR_QAM64,
            McsTable::Nr256 => &NR_QAM256,
            McsTable::Lte => &LTE_CQI,
            McsTable::Ieee80211adSc => &[],
        }
    }

    fn lowest(self) -> u8 {
        match self {
            McsTable::Nr | McsTable::Nr256 => 0,
            McsTable::Lte | McsTable::Ieee80211adSc => 1,
        }
    }
}

/// TS 38.214 Table 5.1.3.1-1: (Qm, R × 1024) for MCS 0–28.
const NR_QAM64: [(u8, f64); 29] = [
    (2, 120.0),
    (2, 157.0),
    (2, 193.0),
    (2, 251.0),
    (2, 308.0),
    (2, 379.0),
    (2, 449.0),
    (2, 526.0),
    (2, 602.0),
    (2, 679.0),
    (4, 340.0),
    (4, 378.0),
    (4, 434.0),
    (4, 490.0),
    (4, 553.0),
    (4, 616.0),
    (4, 658.0),
    (6, 438.0),
    (6, 466.0),
    (6, 517.0),
    (6, 567.0),
    (6, 616.0),
    (6, 666.0),
    (6, 719.0),
    (6, 772.0),
    (6, 822.0),
    (6, 873.0),
    (6, 910.0),
    (6, 948.0),
];

/// TS 38.214 Table 5.1.3.1-2: (Qm, R × 1024) for MCS 0–27.
const NR_QAM256: [(u8, f64); 28] = [
    (2, 120.0),
    (2, 193.0),
    (2, 308.0),
    (2, 449.0),
    (2, 602.0),
    (4, 378.0),
    (4, 434.0),
    (4, 490.0),
    (4, 553.0),
    (4, 616.0),
    (4, 658.0),
    (6, 466.0),
    (6, 517.0),
    (6, 567.0),
    (6, 616.0),
    (6, 666.0),
    (6, 719.0),
    (6, 772.0),
    (6, 822.0),
    (6, 873.0),
    (8, 682.5),
    (8, 711.0),
    (8, 754.0),
    (8, 797.0),
    (8, 841.0),
    (8, 885.0),
    (8, 916.5),
    (8, 948.0),
];

/// TS 36.213 Table 7.2.3-1: (Qm, R × 1024) for CQI 1–15.
const LTE_CQI: [(u8, f64); 15] = [
    (2, 78.0),
    (2, 120.0),
    (2, 193.0),
    (2, 308.0),
    (2, 449.0),
    (2, 602.0),
    (4, 378.0),
    (4, 490.0),
    (4, 616.0),
    (6, 466.0),
    (6, 567.0),
    (6, 666.0),
    (6, 772.0),
    (6, 873.0),
    (6, 948.0),
];

/// The `amc` table of a radio link. Keys that belong to another table's BLER model are
/// rejected by [`Amc::new`]; serialising writes every default of the chosen table out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "RawAmcConfig")]
pub struct AmcConfig {
    /// `"nr"`, `"nr256"`, `"lte"` or `"ieee80211ad_sc"`. Default `"nr"`.
    pub table: McsTable,
    /// The highest BLER a chosen MCS may have at the SINR it is chosen for, in (0, 1).
    /// Default 0.1.
    pub target_bler: f64,
    /// Fraction of the PHY rate lost to control, reference signals and guard bands, in [0, 1).
    /// Default: `nr`/`nr256` 0.22, `lte` 0.29, `ieee80211ad_sc` 0 (module header).
    pub overhead: f64,
    /// 3GPP tables: α of the attenuated Shannon bound placing each MCS's 10 % BLER point,
    /// in (0, 1]. Default 0.75.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shannon_attenuation: Option<f64>,
    /// 3GPP tables: width w of the BLER curve (Gaussian in dB), > 0. Default 0.5.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bler_width_db: Option<f64>,
    /// 3GPP tables: the SINR (dB) of 10 % BLER of each MCS, lowest first, replacing the Shannon
    /// relation. Default: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required_sinr_db: Option<Vec<f64>>,
    /// 802.11ad: Δ, the SNR − MER difference of the receiver, dB. Default 6.5 (Drago et al.).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mer_offset_db: Option<f64>,
    /// 802.11ad: MER distance between the 50 % and 1 % BLER points of the fitted curves, dB,
    /// > 0. Default 1.0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waterfall_db: Option<f64>,
    /// 802.11ad: X₁ of MCS 1–12 (each in (0, 1)), replacing the fit; needs `x2`. Default: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub x1: Option<Vec<f64>>,
    /// 802.11ad: X₂ of MCS 1–12 (each > 0), replacing the fit; needs `x1`. Default: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub x2: Option<Vec<f64>>,
}

/// An `amc` table as written, before its per-table defaults are filled in.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawAmcConfig {
    #[serde(default)]
    table: McsTable,
    target_bler: Option<f64>,
    overhead: Option<f64>,
    shannon_attenuation: Option<f64>,
    bler_width_db: Option<f64>,
    required_sinr_db: Option<Vec<f64>>,
    mer_offset_db: Option<f64>,
    waterfall_db: Option<f64>,
    x1: Option<Vec<f64>>,
    x2: Option<Vec<f64>>,
}

impl From<RawAmcConfig> for AmcConfig {
    fn from(raw: RawAmcConfig) -> AmcConfig {
        let shannon = raw.table != McsTable::Ieee80211adSc;
        AmcConfig {
            table: raw.table,
            target_bler: raw.target_bler.unwrap_or(0.1),
            overhead: raw.overhead.unwrap_or(raw.table.default_overhead()),
            shannon_attenuation: raw.shannon_attenuation.or(shannon.then_some(0.75)),
            bler_width_db: raw.bler_width_db.or(shannon.then_some(0.5)),
            required_sinr_db: raw.required_sinr_db,
            mer_offset_db: raw.mer_offset_db.or((!shannon).then_some(6.5)),
            waterfall_db: raw.waterfall_db.or((!shannon).then_some(1.0)),
            x1: raw.x1,
            x2: raw.x2,
        }
    }
}

impl Default for AmcConfig {
    /// The NR table (64-QAM), target BLER 0.1, and that table's defaults.
    fn default() -> AmcConfig {
        RawAmcConfig::default().into()
    }
}

impl AmcConfig {
    /// The defaults of `table`.
    pub fn for_table(table: McsTable) -> AmcConfig {
        RawAmcConfig { table, ..Default::default() }.into()
    }
}

/// The BLER curves of a table.
#[derive(Clone, Debug)]
enum Curve {
    /// BLER = Q((s − s₅₀)/w), one s₅₀ per MCS.
    Gaussian { s50_db: Vec<f64>, width_db: f64 },
    /// 802.11ad link-to-system mapping at MER = SNR − Δ.
    Mmib { model: ScBlerModel, mer_offset_db: f64 },
}

/// Adaptive modulation and coding for one radio link, precomputed from an [`AmcConfig`].
#[derive(Clone, Debug)]
pub struct Amc {
    lowest: u8,
    /// Spectral efficiency per MCS, bit/s/Hz, lowest MCS first.
    efficiency: Vec<f64>,
    overhead: f64,
    curve: Curve,
    /// Per MCS: the SINR (dB) at which its BLER equals the target (+∞: never).
    threshold_db: Vec<f64>,
    /// Thresholds in increasing order, and the highest MCS whose threshold is ≤ each of them.
    sorted_db: Vec<f64>,
    best: Vec<u8>,
}

impl Amc {
    /// Validates `config` and precomputes the thresholds. Errors name the key of the `amc` table
    /// (`ctx.field` is the table's path, e.g. `link[0].radio.amc`).
    pub fn new(config: &AmcConfig, ctx: &InputContext) -> Result<Amc, InputError> {
        let table = config.table;
        if !(config.target_bler > 0.0 && config.target_bler < 1.0) {
            return Err(
                ctx.error("target_bler", format!("{} is not allowed; must be in (0, 1)", config.target_bler))
            );
        }
        if !(config.overhead >= 0.0 && config.overhead < 1.0) {
            return Err(
                ctx.error("overhead", format!("{} is not allowed; must be in [0, 1)", config.overhead))
            );
        }
        let foreign = |name: &str, other: &str| {
            ctx.error(name, format!("applies only to {other}, not to table = \"{}\"", table.name()))
        };
        let positive = |name: &str, value: f64| {
            if value.is_finite() && value > 0.0 {
                Ok(value)
            } else {
                Err(ctx.error(name, format!("{value} is not allowed; must be a number > 0")))
            }
        };
        let (efficiency, curve) = if table == McsTable::Ieee80211adSc {
            for (name, given) in [
                ("shannon_attenuation", config.shannon_attenuation.is_some()),
                ("bler_width_db", config.bler_width_db.is_some()),
                ("required_sinr_db", config.required_sinr_db.is_some()),
            ] {
                if given {
                    return Err(foreign(name, "the 3GPP tables (nr, nr256, lte)"));
                }
            }
            let mer_offset_db = config.mer_offset_db.unwrap_or(6.5);
            if !mer_offset_db.is_finite() {
                return Err(ctx.error("mer_offset_db", "must be a finite number of dB"));
            }
            let model = match (&config.x1, &config.x2) {
                (None, None) => {
                    ScBlerModel::fitted(positive("waterfall_db", config.waterfall_db.unwrap_or(1.0))?)
                }
                (Some(x1), Some(x2)) => {
                    let x1 = twelve(x1, "x1", ctx, |v| v > 0.0 && v < 1.0, "in (0, 1)")?;
                    let x2 = twelve(x2, "x2", ctx, |v| v > 0.0 && v.is_finite(), "> 0")?;
                    ScBlerModel::from_parameters(x1, x2)
                }
                (Some(_), None) => return Err(ctx.error("x2", "is required when x1 is given")),
                (None, Some(_)) => return Err(ctx.error("x1", "is required when x2 is given")),
            };
            let efficiency = ieee80211ad::SC_MCS.iter().map(|m| m.spectral_efficiency()).collect();
            (efficiency, Curve::Mmib { model, mer_offset_db })
        } else {
            for (name, given) in [
                ("mer_offset_db", config.mer_offset_db.is_some()),
                ("waterfall_db", config.waterfall_db.is_some()),
                ("x1", config.x1.is_some()),
                ("x2", config.x2.is_some()),
            ] {
                if given {
                    return Err(foreign(name, "table = \"ieee80211ad_sc\""));
                }
            }
            let alpha = config.shannon_attenuation.unwrap_or(0.75);
            if !(alpha > 0.0 && alpha <= 1.0) {
                return Err(
                    ctx.error("shannon_attenuation", format!("{alpha} is not allowed; must be in (0, 1]"))
                );
            }
            let width_db = positive("bler_width_db", config.bler_width_db.unwrap_or(0.5))?;
            let efficiency: Vec<f64> = table.rows().iter().map(|&(qm, r)| qm as f64 * r / 1024.0).collect();
            let s10_db: Vec<f64> = match &config.required_sinr_db {
                Some(given) => {
                    if given.len() != efficiency.len() {
                        return Err(ctx.error(
                            "required_sinr_db",
                            format!(
                                "has {} values; table \"{}\" has {} MCSs (one value each, lowest first)",
                                given.len(),
                                table.name(),
                                efficiency.len()
                            ),
                        ));
                    }
                    if let Some(bad) = given.iter().find(|v| !v.is_finite()) {
                        return Err(
                            ctx.error("required_sinr_db", format!("{bad} is not a finite number of dB"))
                        );
                    }
                    given.clone()
                }
                None => {
                    efficiency.iter().map(|&se| 10.0 * libm::log10(libm::exp2(se / alpha) - 1.0)).collect()
                }
            };
            let shift = width_db * gaussian_tail_inverse(0.1);
            (efficiency, Curve::Gaussian { s50_db: s10_db.iter().map(|s| s - shift).collect(), width_db })
        };

        let lowest = table.lowest();
        let threshold_db: Vec<f64> = match &curve {
            Curve::Gaussian { s50_db, width_db } => {
                let z = gaussian_tail_inverse(config.target_bler);
                s50_db.iter().map(|s| s + width_db * z).collect()
            }
            Curve::Mmib { model, mer_offset_db } => {
                (1..=12u8).map(|mcs| model.mer_at_bler_db(mcs, config.target_bler) + mer_offset_db).collect()
            }
        };
        let mut order: Vec<usize> = (0..threshold_db.len()).collect();
        order.sort_by(|&a, &b| threshold_db[a].total_cmp(&threshold_db[b]).then(a.cmp(&b)));
        let (mut sorted_db, mut best) = (Vec::new(), Vec::new());
        let mut highest: Option<usize> = None;
        for i in order {
            if threshold_db[i] == f64::INFINITY {
                break;
            }
            highest = Some(highest.map_or(i, |h| h.max(i)));
            sorted_db.push(threshold_db[i]);
            best.push(lowest + highest.expect("just set") as u8);
        }
        Ok(Amc { lowest, efficiency, overhead: config.overhead, curve, threshold_db, sorted_db, best })
    }

    /// The highest MCS whose BLER at `sinr_db` is ≤ the target; `None` if even the lowest fails
    /// (then nothing is sent), and at −∞ or NaN.
    #[inline]
    pub fn select(&self, sinr_db: f64) -> Option<u8> {
        if sinr_db.is_nan() || sinr_db == f64::NEG_INFINITY {
            return None;
        }
        let n = self.sorted_db.partition_point(|&t| t <= sinr_db);
        n.checked_sub(1).map(|i| self.best[i])
    }

    /// Block error probability of one transport block sent at `mcs` when the actual SINR is
    /// `sinr_db`: decreasing in SINR, 1 at −∞.
    pub fn bler(&self, mcs: u8, sinr_db: f64) -> f64 {
        let i = self.index(mcs);
        if sinr_db == f64::NEG_INFINITY {
            return 1.0;
        }
        match &self.curve {
            Curve::Gaussian { s50_db, width_db } => gaussian_tail((sinr_db - s50_db[i]) / width_db),
            Curve::Mmib { model, mer_offset_db } => model.bler(mcs, sinr_db - mer_offset_db),
        }
    }

    /// Spectral efficiency of `mcs`, bit/s/Hz.
    pub fn spectral_efficiency(&self, mcs: u8) -> f64 {
        self.efficiency[self.index(mcs)]
    }

    /// ⌊spectral efficiency × bandwidth × (1 − overhead)⌋, bit/s.
    pub fn rate_bps(&self, mcs: u8, bandwidth_hz: f64) -> u64 {
        libm::floor(self.spectral_efficiency(mcs) * bandwidth_hz * (1.0 - self.overhead)) as u64
    }

    /// The SINR (dB) at which `mcs` meets the target BLER (+∞ if it never does).
    pub fn threshold_db(&self, mcs: u8) -> f64 {
        self.threshold_db[self.index(mcs)]
    }

    pub fn mcs_count(&self) -> usize {
        self.efficiency.len()
    }

    pub fn lowest_mcs(&self) -> u8 {
        self.lowest
    }

    pub fn highest_mcs(&self) -> u8 {
        self.lowest + (self.efficiency.len() - 1) as u8
    }

    /// Position of `mcs` in the tables; panics on an MCS outside the table (a caller bug).
    fn index(&self, mcs: u8) -> usize {
        assert!(
            (self.lowest..=self.highest_mcs()).contains(&mcs),
            "MCS {mcs} is outside {}..={}",
            self.lowest,
            self.highest_mcs()
        );
        (mcs - self.lowest) as usize
    }
}

/// `values` as the twelve per-MCS parameters of 802.11ad, each satisfying `ok`.
fn twelve(
    values: &[f64],
    name: &str,
    ctx: &InputContext,
    ok: impl Fn(f64) -> bool,
    allowed: &str,
) -> Result<[f64; 12], InputError> {
    let array: [f64; 12] = values.try_into().map_err(|_| {
        ctx.error(name, format!("has {} values; expected 12, one per MCS 1–12", values.len()))
    })?;
    if let Some(bad) = array.iter().find(|&&v| !ok(v)) {
        return Err(ctx.error(name, format!("{bad} is not allowed; each value must be {allowed}")));
    }
    Ok(array)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::path::Path;

    fn ctx() -> InputContext<'static> {
        InputContext { scenario_file: "s.toml", field: "link[0].radio.amc", base_dir: Path::new(".") }
    }

    fn amc(table: McsTable) -> Amc {
        Amc::new(&AmcConfig::for_table(table), &ctx()).unwrap()
    }

    const TABLES: [McsTable; 4] = [McsTable::Nr, McsTable::Nr256, McsTable::Lte, McsTable::Ieee80211adSc];

    #[test]
    fn test_nr_table_spot_values() {
        let a = amc(McsTable::Nr);
        assert_eq!((a.mcs_count(), a.lowest_mcs(), a.highest_mcs()), (29, 0, 28));
        assert_eq!(a.spectral_efficiency(0), 2.0 * 120.0 / 1024.0); // 0.2344
        assert_eq!(a.spectral_efficiency(10), 4.0 * 340.0 / 1024.0); // 1.3281
        assert_eq!(a.spectral_efficiency(27), 6.0 * 910.0 / 1024.0); // 5.3320
        assert_eq!(a.spectral_efficiency(28), 6.0 * 948.0 / 1024.0); // 5.5547
        assert!((a.spectral_efficiency(28) - 5.5547).abs() < 5e-5);
        let b = amc(McsTable::Nr256);
        assert_eq!((b.mcs_count(), b.lowest_mcs(), b.highest_mcs()), (28, 0, 27));
        assert!((b.spectral_efficiency(20) - 5.3320).abs() < 5e-5);
        assert!((b.spectral_efficiency(27) - 7.4063).abs() < 5e-5);
    }

    #[test]
    fn test_lte_cqi_spot_values() {
        let a = amc(McsTable::Lte);
        assert_eq!((a.mcs_count(), a.lowest_mcs(), a.highest_mcs()), (15, 1, 15));
        assert!((a.spectral_efficiency(1) - 0.1523).abs() < 5e-5);
        assert!((a.spectral_efficiency(7) - 1.4766).abs() < 5e-5);
        assert!((a.spectral_efficiency(15) - 5.5547).abs() < 5e-5);
    }

    #[test]
    fn test_80211ad_spectral_efficiency_and_rate() {
        let a = amc(McsTable::Ieee80211adSc);
        assert_eq!((a.mcs_count(), a.lowest_mcs(), a.highest_mcs()), (12, 1, 12));
        assert_eq!(a.spectral_efficiency(1), 0.25);
        assert_eq!(a.spectral_efficiency(5), 0.8125);
        assert_eq!(a.spectral_efficiency(12), 3.0);
        assert_eq!(a.rate_bps(12, 500e6), 1_500_000_000);
        assert_eq!(a.rate_bps(1, 500e6), 125_000_000);
    }

    #[test]
    fn test_rate_applies_overhead_and_floors() {
        let config = AmcConfig { overhead: 0.25, ..AmcConfig::default() };
        let a = Amc::new(&config, &ctx()).unwrap();
        // 5.5546875 × 100 MHz × 0.75 = 416 601 562.5
        assert_eq!(a.rate_bps(28, 100e6), 416_601_562);
        assert_eq!(amc(McsTable::Nr).rate_bps(28, 100e6), libm::floor(5.5546875e8 * 0.78) as u64);
    }

    #[test]
    fn test_ns3_mmwave_frame_overhead_gives_its_top_rate() {
        // ns-3 mmWave 2017 (docs/models/ns3-mmwave-2017.md §2): MCS 28 (5.52 bit per RE) on 21
        // of 24 symbols of 2592 data REs per 100 µs, less the code blocks' CRCs, is 2.993 Gbit/s;
        // the NR table's top MCS over 1 GHz at overhead 0.46 is 5.5546875 × 0.54 = 2.9995 Gbit/s,
        // within 0.3 % of it.
        let a = Amc::new(&AmcConfig { overhead: 0.46, ..AmcConfig::default() }, &ctx()).unwrap();
        assert_eq!(a.rate_bps(28, 1e9), 2_999_531_250);
        assert!((a.rate_bps(28, 1e9) as f64 / 2.993e9 - 1.0).abs() < 0.003);
    }

    #[test]
    fn test_nr_threshold_is_the_attenuated_shannon_point() {
        let a = amc(McsTable::Nr);
        for mcs in [0u8, 10, 28] {
            let se = a.spectral_efficiency(mcs);
            let expected = 10.0 * libm::log10(libm::exp2(se / 0.75) - 1.0);
            assert!((a.threshold_db(mcs) - expected).abs() < 1e-9, "MCS {mcs}");
            assert!((a.bler(mcs, expected) - 0.1).abs() < 1e-12);
        }
        assert!((a.threshold_db(0) - (-6.17)).abs() < 0.01, "{}", a.threshold_db(0));
        assert!((a.threshold_db(28) - 22.27).abs() < 0.01, "{}", a.threshold_db(28));
        // The target moves the thresholds along fixed curves: 1 % needs (Q⁻¹(0.01) − Q⁻¹(0.1))·w more.
        let strict = Amc::new(&AmcConfig { target_bler: 0.01, ..AmcConfig::default() }, &ctx()).unwrap();
        let shift = 0.5 * (gaussian_tail_inverse(0.01) - gaussian_tail_inverse(0.1));
        assert!((strict.threshold_db(28) - a.threshold_db(28) - shift).abs() < 1e-9);
        assert_eq!(strict.bler(28, 20.0), a.bler(28, 20.0));
    }

    #[test]
    fn test_bler_is_monotone_in_sinr_and_efficiency() {
        for table in TABLES {
            let a = amc(table);
            for mcs in a.lowest_mcs()..=a.highest_mcs() {
                assert_eq!(a.bler(mcs, f64::NEG_INFINITY), 1.0, "{table:?} {mcs}");
                let mut previous = 1.0;
                for i in 0..=8000 {
                    let s = -30.0 + i as f64 * 0.01;
                    let b = a.bler(mcs, s);
                    assert!(
                        (0.0..=1.0).contains(&b) && b <= previous,
                        "{table:?} MCS {mcs} at {s}: {b} > {previous}"
                    );
                    previous = b;
                }
                assert!(previous < 1e-6, "{table:?} MCS {mcs}");
            }
            // Across MCSs: a faster MCS never has a lower BLER — except 802.11ad MCS 5 (BPSK 13/16),
            // which the standard's sensitivity table makes 1 dB less robust than MCS 6 (QPSK 1/2).
            for m in a.lowest_mcs()..a.highest_mcs() {
                let exception = table == McsTable::Ieee80211adSc && m == 5;
                for i in 0..=600 {
                    let s = -10.0 + i as f64 * 0.05;
                    let (lo, hi) = (a.bler(m, s), a.bler(m + 1, s));
                    let se_order = a.spectral_efficiency(m) <= a.spectral_efficiency(m + 1);
                    if lo.max(hi) < 1e-5 {
                        // 802.11ad MCS 5 and 9 have BLER floors of ≈6·10⁻⁷ (MMIB saturation).
                        continue;
                    }
                    if exception {
                        assert!(hi <= lo, "MCS 6 is the more robust at {s}");
                    } else if se_order {
                        assert!(hi >= lo, "{table:?} MCS {m}→{} at {s}: {lo} > {hi}", m + 1);
                    } else {
                        // NR MCS 17 (64-QAM) is slightly slower than MCS 16 (16-QAM).
                        assert!(hi <= lo, "{table:?} MCS {m}→{} at {s}", m + 1);
                    }
                }
            }
        }
    }

    /// The highest MCS meeting the target at `s`, by trying every MCS.
    fn brute_force(a: &Amc, target: f64, s: f64) -> Option<u8> {
        (a.lowest_mcs()..=a.highest_mcs()).filter(|&m| a.bler(m, s) <= target).max()
    }

    #[test]
    fn test_select_is_the_highest_mcs_meeting_the_target_on_a_grid() {
        for table in TABLES {
            for target in [0.01, 0.1, 0.3] {
                let config = AmcConfig { target_bler: target, ..AmcConfig::for_table(table) };
                let a = Amc::new(&config, &ctx()).unwrap();
                let thresholds: Vec<f64> =
                    (a.lowest_mcs()..=a.highest_mcs()).map(|m| a.threshold_db(m)).collect();
                for i in 0..=7000 {
                    let s = -30.003 + i as f64 * 0.01;
                    if thresholds.iter().any(|t| (t - s).abs() < 1e-6) {
                        continue;
                    }
                    assert_eq!(
                        a.select(s),
                        brute_force(&a, target, s),
                        "{table:?} target {target} at {s} dB"
                    );
                }
            }
        }
    }

    proptest! {
        #[test]
        fn select_matches_brute_force(s in -40.0f64..60.0, target in 0.001f64..0.9, t in 0usize..4) {
            let config = AmcConfig { target_bler: target, ..AmcConfig::for_table(TABLES[t]) };
            let a = Amc::new(&config, &ctx()).unwrap();
            let near = (a.lowest_mcs()..=a.highest_mcs()).any(|m| (a.threshold_db(m) - s).abs() < 1e-6);
            prop_assume!(!near);
            prop_assert_eq!(a.select(s), brute_force(&a, target, s));
        }
    }

    #[test]
    fn test_select_edges() {
        for table in TABLES {
            let a = amc(table);
            assert_eq!(a.select(f64::NEG_INFINITY), None);
            assert_eq!(a.select(f64::NAN), None);
            assert_eq!(a.select(-40.0), None);
            assert_eq!(a.select(f64::INFINITY), Some(a.highest_mcs()));
        }
    }

    #[test]
    fn test_80211ad_known_answers() {
        // Δ = 6.5 dB, target 0.1, X₁/X₂ fitted with waterfall 1 dB. Thresholds (SNR at BLER 0.1),
        // computed independently from the same model (docs/models/ieee80211ad.md): MCS 1 4.60,
        // 2 6.59, 3 7.58, 4 8.57, 5 10.54, 6 9.59, 7 10.58, 8 11.57, 9 13.54, 10 17.58,
        // 11 18.57, 12 19.56 dB. Every probe below is ≥ 0.4 dB from a threshold.
        let a = amc(McsTable::Ieee80211adSc);
        let expected_thresholds = [
            4.5994, 6.5876, 7.5794, 8.5692, 10.5411, 9.5877, 10.5795, 11.5693, 13.5413, 17.5828, 18.5743,
            19.5637,
        ];
        for (mcs, t) in (1..=12u8).zip(expected_thresholds) {
            assert!((a.threshold_db(mcs) - t).abs() < 1e-3, "MCS {mcs}: {} vs {t}", a.threshold_db(mcs));
        }
        let chosen: Vec<Option<u8>> = [-5.0, 0.0, 5.0, 10.0, 15.0, 20.0, 25.0].map(|s| a.select(s)).to_vec();
        assert_eq!(chosen, [None, None, Some(1), Some(6), Some(9), Some(12), Some(12)]);
        // Δ shifts every threshold one for one.
        let config = AmcConfig { mer_offset_db: Some(8.5), ..AmcConfig::for_table(McsTable::Ieee80211adSc) };
        let shifted = Amc::new(&config, &ctx()).unwrap();
        assert!((shifted.threshold_db(12) - 21.5637).abs() < 1e-3);
        assert_eq!(shifted.select(20.0), Some(10));
    }

    #[test]
    fn test_config_defaults_and_resolved_form() {
        let parse = |text: &str| toml::from_str::<AmcConfig>(text).map_err(|e| e.to_string());
        assert_eq!(parse("").unwrap(), AmcConfig::default());
        let d = AmcConfig::default();
        assert_eq!((d.table, d.target_bler, d.overhead), (McsTable::Nr, 0.1, 0.22));
        assert_eq!((d.shannon_attenuation, d.bler_width_db, d.mer_offset_db), (Some(0.75), Some(0.5), None));
        let ad = parse("table = \"ieee80211ad_sc\"").unwrap();
        assert_eq!((ad.overhead, ad.mer_offset_db, ad.waterfall_db), (0.0, Some(6.5), Some(1.0)));
        assert_eq!((ad.shannon_attenuation, ad.bler_width_db), (None, None));
        assert_eq!(parse("table = \"lte\"").unwrap().overhead, 0.29);
        for config in [d, ad, parse("table = \"nr256\"\nrequired_sinr_db = [1, 2]").unwrap()] {
            let resolved = toml::to_string(&config).unwrap();
            assert_eq!(parse(&resolved).unwrap(), config, "{resolved}");
        }
        let err = parse("tabel = \"nr\"").unwrap_err();
        assert!(err.contains("unknown field `tabel`"), "{err}");
        let err = parse("table = \"wifi\"").unwrap_err();
        assert!(err.contains("ieee80211ad_sc"), "{err}");
    }

    #[test]
    fn test_validation_errors_name_the_key() {
        let nr = AmcConfig::default;
        let ad = || AmcConfig::for_table(McsTable::Ieee80211adSc);
        for (config, key, needle) in [
            (AmcConfig { target_bler: 0.0, ..nr() }, "target_bler", "(0, 1)"),
            (AmcConfig { target_bler: 1.0, ..nr() }, "target_bler", "(0, 1)"),
            (AmcConfig { overhead: 1.0, ..nr() }, "overhead", "[0, 1)"),
            (AmcConfig { overhead: -0.1, ..nr() }, "overhead", "[0, 1)"),
            (AmcConfig { shannon_attenuation: Some(1.5), ..nr() }, "shannon_attenuation", "(0, 1]"),
            (AmcConfig { bler_width_db: Some(0.0), ..nr() }, "bler_width_db", "> 0"),
            (AmcConfig { required_sinr_db: Some(vec![1.0; 3]), ..nr() }, "required_sinr_db", "29 MCSs"),
            (AmcConfig { mer_offset_db: Some(6.5), ..nr() }, "mer_offset_db", "ieee80211ad_sc"),
            (AmcConfig { bler_width_db: Some(1.0), ..ad() }, "bler_width_db", "3GPP tables"),
            (AmcConfig { waterfall_db: Some(-1.0), ..ad() }, "waterfall_db", "> 0"),
            (AmcConfig { x1: Some(vec![0.5; 12]), ..ad() }, "x2", "required"),
            (AmcConfig { x1: Some(vec![0.5; 12]), x2: Some(vec![0.1; 11]), ..ad() }, "x2", "expected 12"),
            (AmcConfig { x1: Some(vec![1.5; 12]), x2: Some(vec![0.1; 12]), ..ad() }, "x1", "(0, 1)"),
        ] {
            let err = Amc::new(&config, &ctx()).unwrap_err();
            assert_eq!(err.field, format!("link[0].radio.amc.{key}"), "{}", err.message);
            assert!(err.message.contains(needle), "{key}: {}", err.message);
        }
    }

    #[test]
    fn test_explicit_parameters_replace_the_models() {
        let mut required = vec![0.0; 15];
        required[14] = 30.0;
        let config = AmcConfig { required_sinr_db: Some(required), ..AmcConfig::for_table(McsTable::Lte) };
        let a = Amc::new(&config, &ctx()).unwrap();
        assert!((a.threshold_db(15) - 30.0).abs() < 1e-9);
        assert_eq!(a.select(29.0), Some(14));
        let model = ScBlerModel::fitted(1.0);
        let x1: Vec<f64> = (1..=12).map(|m| model.x1(m)).collect();
        let x2: Vec<f64> = (1..=12).map(|m| model.x2(m)).collect();
        let config =
            AmcConfig { x1: Some(x1), x2: Some(x2), ..AmcConfig::for_table(McsTable::Ieee80211adSc) };
        let explicit = Amc::new(&config, &ctx()).unwrap();
        assert_eq!(explicit.threshold_db(7), amc(McsTable::Ieee80211adSc).threshold_db(7));
    }
}
