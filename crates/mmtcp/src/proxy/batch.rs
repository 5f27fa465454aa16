//! The size of mmPEP's batch retransmission (Kim et al. §III-B, Eq. 1).
//!
//! ```text
//!   N = α·β·(1 + γ)                                                        (1)
//!   γ = inf{ ω ∈ ℝ : ½·[1 + erf(α·β·ω / (β·σ·√2))] ≥ 1 − ε }
//! ```
//!
//! α is the mean number of packets sent per slot while the channel is available, β the HARQ
//! feedback delay in slots (everything sent during β slots is lost once the channel turns NLOS:
//! α·β packets on average), σ the standard deviation of the number of packets arriving in β
//! slots, and 1 − ε the confidence that the batch covers the loss. The left side of the
//! condition is the normal CDF Φ(αω/σ), so γ = σ·z₁₋ε/α in closed form (z the standard normal
//! quantile); the code evaluates the paper's infimum as written, by bisection on `libm::erf`, so
//! the value is the same on every platform. With the paper's numbers (α = 1.12, β = 10, σ = 0.1,
//! 1 − ε = 0.99): γ = 0.1·2.3263/1.12 = 0.2077 (the seed rounds to 0.2) and
//! N = 11.2·1.2077 = 13.53, rounded up to 14 segments (the paper does not say how to round;
//! rounding up keeps the batch at least as large as the expected loss, and the paper's own γ = 0.2
//! also gives 13.44 → 14).

/// γ of Kim et al. §III-B for `alpha` packets/slot, `beta` slots, standard deviation `sigma`
/// (packets) and error `epsilon` (0 < ε < ½, so γ > 0).
pub fn gamma(alpha: f64, beta: f64, sigma: f64, epsilon: f64) -> f64 {
    debug_assert!(alpha > 0.0 && beta > 0.0 && sigma > 0.0 && epsilon > 0.0 && epsilon < 0.5);
    let meets = |omega: f64| {
        0.5 * (1.0 + libm::erf(alpha * beta * omega / (beta * sigma * std::f64::consts::SQRT_2)))
            >= 1.0 - epsilon
    };
    // At ω = 0 the left side is ½ < 1 − ε; it rises monotonically to 1 (which `erf` reaches
    // exactly in f64 for arguments above ~6), so doubling finds an upper end.
    let mut lo = 0.0_f64;
    let mut hi = 1.0_f64;
    while !meets(hi) {
        lo = hi;
        hi *= 2.0;
    }
    // Invariant: the condition fails at `lo` and holds at `hi`; stop when no float lies between.
    loop {
        let mid = lo + (hi - lo) / 2.0;
        if mid <= lo || mid >= hi {
            return hi;
        }
        if meets(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
}

/// N = ⌈α·β·(1 + γ)⌉ segments (Eq. 1, rounded up).
pub fn batch_size(alpha: f64, beta: f64, gamma: f64) -> f64 {
    libm::ceil(alpha * beta * (1.0 + gamma))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// z₀.₉₉, the 99 % quantile of the standard normal distribution.
    const Z_99: f64 = 2.326_347_874_040_841;

    #[test]
    fn test_gamma_seed_values() {
        let g = gamma(1.12, 10.0, 0.1, 0.01);
        assert!((g - 0.21).abs() <= 0.01, "γ = {g}");
        // The closed form σ·z₁₋ε/α.
        assert!((g - 0.1 * Z_99 / 1.12).abs() < 1e-9, "γ = {g}");
    }

    #[test]
    fn test_batch_size_seed_values() {
        let n = batch_size(1.12, 10.0, gamma(1.12, 10.0, 0.1, 0.01));
        assert_eq!(n, 14.0);
        assert!((13.0..=14.0).contains(&n));
        // The paper's rounded γ = 0.2 gives the same batch.
        assert_eq!(batch_size(1.12, 10.0, 0.2), 14.0);
        assert_eq!(batch_size(1.0, 10.0, 0.0), 10.0, "an exact product is not rounded up");
    }

    #[test]
    fn test_gamma_is_the_infimum() {
        let (a, b, s, e) = (1.12, 10.0, 0.1, 0.01);
        let g = gamma(a, b, s, e);
        let meets =
            |w: f64| 0.5 * (1.0 + libm::erf(a * b * w / (b * s * std::f64::consts::SQRT_2))) >= 1.0 - e;
        assert!(meets(g));
        assert!(!meets(g - 1e-12));
    }

    #[test]
    fn test_gamma_grows_with_sigma_and_falls_with_epsilon() {
        let base = gamma(1.12, 10.0, 0.1, 0.01);
        assert!(gamma(1.12, 10.0, 0.2, 0.01) > base);
        assert!((gamma(1.12, 10.0, 0.2, 0.01) - 2.0 * base).abs() < 1e-9, "γ is linear in σ");
        assert!(gamma(1.12, 10.0, 0.1, 0.05) < base);
        assert!(gamma(1.12, 10.0, 0.1, 0.001) > base);
        assert!(gamma(2.24, 10.0, 0.1, 0.01) < base, "γ falls as α grows");
    }

    #[test]
    fn test_gamma_tiny_epsilon_terminates() {
        let g = gamma(1.0, 1.0, 1.0, 1e-300);
        assert!(g.is_finite() && g > 5.0 && g < 10.0, "γ = {g}");
    }
}
