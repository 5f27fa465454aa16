//! The block error rate of the SC MCSs (Drago et al. §IV-A, eq. 4):
//! BLER = ½·[1 − erf((MMIB − X₁)/(√2·X₂))] = Q((MMIB − X₁)/X₂), the MMIB of the MCS's modulation
//! taken at the MER, X₁ and X₂ per MCS.
//!
//! Drago et al. take X₁, X₂ from the MiWEBA D4.1 simulator specification, whose tables are not
//! available to us. They are *fitted* here to the receiver sensitivities of the standard
//! (IEEE 802.11ad-2012 Table 21-3, = IEEE 802.11-2016 Table 20-3; the MER each requires is in
//! `mcs_table.rs`). The BLER curve must pass 1 % at that MER and 50 % at `waterfall_db` (default
//! 1 dB, the typical 50 %→1 % width of LDPC-672 packet error curves in AWGN) below it:
//! X₁ = MMIB(MER₁% − waterfall), X₂ = (MMIB(MER₁%) − X₁)/Q⁻¹(0.01). The BLER is thus the error
//! probability of a 4096-octet packet. Users with the MiWEBA values can give X₁, X₂ explicitly
//! (`x1`, `x2` of the AMC table).
//!
//! MCS 5 (BPSK 13/16) needs 1 dB more than MCS 6 (QPSK 1/2) in the standard's table, so BLER is
//! not monotone in the MCS index across that pair; MCS selection is unaffected (MCS 6 is both
//! faster and more robust).

use super::mcs_table::{required_mer_db, sc_mcs, SC_MCS, SENSITIVITY_PER};
use super::mmib::mmib;
use super::power::from_db;
use crate::radio::gaussian::{gaussian_tail, gaussian_tail_inverse};

/// The BLER model of the 12 SC MCSs: X₁ and X₂ per MCS (Drago et al. eq. 4).
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
