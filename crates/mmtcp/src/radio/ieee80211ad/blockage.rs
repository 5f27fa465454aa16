//! The blocker's attenuation of a path: the double knife-edge model of 3GPP TR 38.901 §7.6.4.2
//! (blockage model B) for a screen of width w and height h standing on the floor, perpendicular
//! to the link at mid-path: L = −20·log10(1 − (F_h1 + F_h2)(F_w1 + F_w2)) dB, each edge
//! contributing atan(±(π/2)·√((π/λ)(D1 + D2 − r)))/π with D1 + D2 − r the detour of the path over
//! that edge (the path unfolded at its crossing with the blocker's plane) and the sign + when the
//! screen covers the path on that edge's side. The attenuation thus rises smoothly as the blocker
//! enters the first Fresnel zone and reaches 17–19 dB with the path at the centre of the default
//! blockers of Drago et al.'s scenarios (Drago et al. cite 15–35 dB for a human body).

use super::room::PathGeometry;
use std::f64::consts::PI;

/// Attenuation (dB) of a floor-standing screen [y_b ± w/2] × [0, h] in the plane the path
/// crosses at (y, z), the path being `a` and `b` long on either side (TR 38.901 §7.6.4.2, model B).
pub(super) fn screen_attenuation_db(
    path: &PathGeometry,
    y_b: f64,
    width: f64,
    height: f64,
    wavelength: f64,
) -> f64 {
    let (a, b) = (path.to_cross, path.from_cross);
    // One edge at signed offset `delta` = edge − path position: ±A(|delta|), the sign saying on
    // which side of the path the edge lies.
    let edge = |delta: f64| -> f64 {
        let detour = libm::sqrt(a * a + delta * delta) + libm::sqrt(b * b + delta * delta) - a - b;
        let f = libm::atan(PI / 2.0 * libm::sqrt(PI / wavelength * detour.max(0.0))) / PI;
        if delta > 0.0 {
            f
        } else {
            -f
        }
    };
    // Fraction of the Fresnel zone the strip between two edges covers, in each dimension: the
    // path is covered by the strip on an edge's side when the signed offset says so.
    let strip = |low: f64, high: f64| edge(high) - edge(low);
    let lateral = strip(y_b - width / 2.0 - path.y_cross, y_b + width / 2.0 - path.y_cross);
    let vertical = strip(-path.z_cross, height - path.z_cross);
    let field = (1.0 - lateral * vertical).max(1e-12);
    -20.0 * libm::log10(field)
}

#[cfg(test)]
mod tests {
    use super::super::config::Scenario;
    use super::super::synthetic::SyntheticChannel;
    use super::super::test_support::{ctx_in, quiet};
    use std::path::PathBuf;

    #[test]
    fn test_knife_edge_rises_smoothly_as_the_blocker_enters() {
        let base = PathBuf::from(".");
        let geometry = SyntheticChannel::new(&quiet(Scenario::B), &ctx_in(&base).channel).unwrap();
        let mut previous = f64::INFINITY;
        for i in 0..=70 {
            let y = i as f64 * 0.01; // from the centre outwards
            let los = geometry.blockage_db(y)[0];
            assert!(los <= previous + 1e-12, "not decreasing at {y}: {los}");
            previous = los;
        }
        assert!(previous < 0.2, "{previous}");
    }
}
