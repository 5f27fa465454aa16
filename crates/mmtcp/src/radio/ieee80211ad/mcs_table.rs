//! The single-carrier (SC) MCSs of the IEEE 802.11ad DMG PHY, MCS 1–12 (the SC MCS table of
//! IEEE 802.11ad-2012 clause 21), with the receiver sensitivities of IEEE 802.11ad-2012
//! Table 21-3 (= IEEE 802.11-2016 Table 20-3) and the MER each sensitivity implies.
//!
//! Spectral efficiency = bits per symbol × code rate ÷ repetition, 0.25 (MCS 1, π/2-BPSK ½
//! repeated twice) … 3.0 (MCS 12, π/2-16-QAM ¾); Drago et al. multiply it by 500 MHz (MCS 12:
//! 1.5 Gbit/s).
//!
//! A sensitivity S is the minimum input level for a packet error rate below 1 % with 4096-octet
//! PSDUs, stated for a 10 dB noise figure and 5 dB implementation loss. For each MCS the required
//! MER is `S − (−174 + 10·log10(1.76 GHz) + 10) − 5` dB, the noise taken over the SC symbol rate
//! so that the MER is Es/N0 (MCS 1: −1.46 dB … MCS 12: 13.54 dB); the implementation loss is
//! removed because Δ (Drago et al. eq. 3, the AMC's `mer_offset_db`) already models the receiver.

use super::power::thermal_noise_dbm;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_sc_table_spectral_efficiencies() {
        let se: Vec<f64> = SC_MCS.iter().map(ScMcs::spectral_efficiency).collect();
        assert_eq!(se, [0.25, 0.5, 0.625, 0.75, 0.8125, 1.0, 1.25, 1.5, 1.625, 2.0, 2.5, 3.0]);
        assert_eq!(SC_MCS.iter().map(|m| m.mcs).collect::<Vec<_>>(), (1..=12).collect::<Vec<_>>());
    }

    #[test]
    fn test_required_mer_from_sensitivity() {
        // −174 + 10·log10(1.76e9) = −81.545 dBm; + 10 dB noise figure; − 5 dB implementation loss.
        assert!((required_mer_db(1) - (-1.4551)).abs() < 1e-3, "{}", required_mer_db(1));
        assert!((required_mer_db(12) - 13.5449).abs() < 1e-3, "{}", required_mer_db(12));
    }
}
