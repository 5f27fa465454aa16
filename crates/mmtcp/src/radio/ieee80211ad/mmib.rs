//! Mean mutual information per coded bit (MMIB) of the SC modulations: the quality measure that
//! Drago et al.'s BLER mapping (§IV-A, eq. 4) takes at the MER.
//!
//! The approximations of the IEEE 802.16m Evaluation Methodology Document (IEEE 802.16m-08/004r5,
//! §4.3.2.1): the function J(x) of eq. (52) — the mutual information of a bit whose
//! log-likelihood ratio is Gaussian with standard deviation x — and the per-modulation mixtures
//! of its MMIB table (Table 29): QPSK I(γ) = J(2√γ); 16-QAM I(γ) = ½·J(0.8√γ) + ¼·J(2.17√γ) +
//! ¼·J(0.965√γ). The table has no BPSK row; a BPSK bit carries the whole symbol energy, so its
//! LLR has twice the QPSK variance: I(γ) = J(√8·√γ) (derived here; π/2-BPSK is BPSK rotated, the
//! same). γ is the linear MER.
//!
//! The two branches of J meet with a small step (0.3653 below x = 1.6363, 0.3647 above); J is
//! held at 0.3653 across the 0.002-wide gap, clamped to [0, 1] near 0, and set to 1 above
//! x = 20 (where the published form is already 1 to double precision and would later turn
//! down), so that the BLER is monotone in SNR.

use super::mcs_table::Modulation;

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

#[cfg(test)]
mod tests {
    use super::super::power::from_db;
    use super::*;

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
}
