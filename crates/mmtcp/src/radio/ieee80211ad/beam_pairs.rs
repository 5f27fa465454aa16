//! The beam pairs of Drago et al. (§III, §IV): beams steered in azimuth at −30°…30° in 10° steps at
//! both ends, 7 × 7 TX/RX pairs, the best of which is used at each time. Angles are positive
//! towards +y at both ends, so a reflection off a wall at +y is seen by pair (+θ, +θ).

/// Beam steering angles at each end, degrees (Drago et al.: −30°…30° in 10° steps).
pub const BEAM_ANGLES_DEG: [f64; 7] = [-30.0, -20.0, -10.0, 0.0, 10.0, 20.0, 30.0];
/// Number of TX × RX beam pairs; pair `i` is (BEAM_ANGLES_DEG[i / 7], BEAM_ANGLES_DEG[i % 7]).
pub const PAIRS: usize = 49;

/// The (TX, RX) angles of pair `index`.
pub fn pair_angles(index: usize) -> (f64, f64) {
    (BEAM_ANGLES_DEG[index / 7], BEAM_ANGLES_DEG[index % 7])
}
