//! The antennas of Drago et al. (§IV): TX horn 20 dBi, half-power beamwidths 15° in azimuth
//! (H-plane) and 14° in elevation (E-plane); RX patch array 17 dBi, 11° azimuth, 24° elevation.
//! Pattern G − min(12·(Δaz/θaz)² + 12·(Δel/θel)², 25 dB) (the parabolic main lobe of 3GPP
//! TR 38.901 Table 7.3-1 with a 25 dB floor), boresight horizontal, beams steered in azimuth.

/// Side-lobe floor of the antenna patterns, dB below the peak.
const PATTERN_FLOOR_DB: f64 = 25.0;

/// An antenna: peak gain and half-power beamwidths.
pub(super) struct Antenna {
    gain_dbi: f64,
    hpbw_az_deg: f64,
    hpbw_el_deg: f64,
}

/// Drago et al. §IV: the TX horn and the RX patch array.
pub(super) const TX_ANTENNA: Antenna = Antenna { gain_dbi: 20.0, hpbw_az_deg: 15.0, hpbw_el_deg: 14.0 };
pub(super) const RX_ANTENNA: Antenna = Antenna { gain_dbi: 17.0, hpbw_az_deg: 11.0, hpbw_el_deg: 24.0 };

impl Antenna {
    /// Gain (dBi) towards a direction `az`, `el` degrees off the beam's boresight.
    pub(super) fn gain_db(&self, az: f64, el: f64) -> f64 {
        let a = 12.0 * (az / self.hpbw_az_deg) * (az / self.hpbw_az_deg)
            + 12.0 * (el / self.hpbw_el_deg) * (el / self.hpbw_el_deg);
        self.gain_dbi - a.min(PATTERN_FLOOR_DB)
    }
}
