//! The upper tail of the standard normal distribution, Q(z), and its inverse: the shape of the
//! radio's BLER curves. `amc.rs` uses BLER = Q((s − s₅₀)/w) for the 3GPP tables
//! (docs/models/amc.md) and Q⁻¹ to place them; the IEEE 802.11ad link-to-system mapping of seed
//! 001 (eq. 4) is BLER = ½·[1 − erf((MMIB − X₁)/(√2·X₂))] = Q((MMIB − X₁)/X₂), fitted with
//! Q⁻¹(0.01) (`ieee80211ad/bler.rs`). Shared here so that neither of the two depends on the other
//! for it.

/// The upper tail of the standard normal distribution, Q(z) = ½·erfc(z/√2).
pub(super) fn gaussian_tail(z: f64) -> f64 {
    0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
}

/// Q⁻¹(p) for p in (0, 1), by bisection on Q (construction time only).
pub(super) fn gaussian_tail_inverse(p: f64) -> f64 {
    assert!(p > 0.0 && p < 1.0, "Q⁻¹({p})");
    let (mut lo, mut hi) = (-40.0, 40.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if gaussian_tail(mid) > p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}
