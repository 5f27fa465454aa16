//! Power levels: the thermal noise power of Drago et al. eq. (1), P_noise = −174 + 10·log10(B) dBm
//! (−87.01 dBm over the paper's 500 MHz), and the dB → linear conversion that the MMIB (of a MER)
//! and the synthetic channel (of powers and losses) need.

/// Thermal noise power over `bandwidth_hz` at −174 dBm/Hz, dBm (Drago et al. eq. 1).
pub fn thermal_noise_dbm(bandwidth_hz: f64) -> f64 {
    -174.0 + 10.0 * libm::log10(bandwidth_hz)
}

/// dB to linear.
pub(super) fn from_db(db: f64) -> f64 {
    libm::pow(10.0, db / 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_noise_power_at_500_mhz_is_seed_001_value() {
        assert!((thermal_noise_dbm(500e6) - (-87.01)).abs() < 0.005, "{}", thermal_noise_dbm(500e6));
    }
}
