//! The rooms of Drago et al.'s scenarios A and B (§IV) and their propagation paths. TX at x = 0, RX
//! at x = d, both facing each other along x; side reflectors are walls parallel to the link.
//! Paths: the LOS and one first-order reflection off each wall (image method). Per path and beam
//! pair: free-space loss 20·log10(4π·L·f/c) over the unfolded 3-D length L (f = 60.48 GHz,
//! 802.11ad channel 2, unless configured), the wall's reflection loss, and the antenna gains of
//! the pair (`antenna.rs`). Link lengths and heights are stated by Drago et al.; wall positions and
//! losses are assumed (the table in `synthetic.rs`). Not modelled: floor/ceiling reflections,
//! oxygen absorption (≈ 0.05 dB over 3.5 m).

use super::antenna::{RX_ANTENNA, TX_ANTENNA};
use super::beam_pairs::{pair_angles, PAIRS};
use super::power::from_db;
use std::f64::consts::PI;

pub(super) const SPEED_OF_LIGHT: f64 = 299_792_458.0;
/// Paths per room: the LOS and one reflection per wall.
pub(super) const MAX_PATHS: usize = 3;

/// A room: link length, antenna heights, and side walls (y position, reflection loss in dB).
pub(super) struct Room {
    distance: f64,
    tx_height: f64,
    rx_height: f64,
    walls: &'static [(f64, f64)],
}

pub(super) const ROOM_A: Room =
    Room { distance: 3.0, tx_height: 1.0, rx_height: 1.0, walls: &[(0.9, 6.0), (-1.2, 8.0)] };
pub(super) const ROOM_B: Room =
    Room { distance: 3.5, tx_height: 1.6, rx_height: 1.0, walls: &[(1.0, 10.0), (-1.0, 12.0)] };

/// One propagation path: its unblocked power per beam pair and where it crosses the plane of the
/// blocker (x = d/2).
#[derive(Clone, Debug)]
pub(super) struct PathGeometry {
    /// Received power per beam pair without blockage, mW.
    pub(super) pair_mw: [f64; PAIRS],
    /// Lateral position and height of the crossing, m.
    pub(super) y_cross: f64,
    pub(super) z_cross: f64,
    /// Path length from TX to the crossing and from the crossing to RX, m.
    pub(super) to_cross: f64,
    pub(super) from_cross: f64,
}

/// The paths of `room` (LOS, then one reflection per wall) with their unblocked pair powers;
/// `reflection_loss_db`, when given, replaces every wall's own loss.
pub(super) fn lay_out(
    room: &Room,
    tx_power_dbm: f64,
    wavelength: f64,
    reflection_loss_db: Option<f64>,
) -> Vec<PathGeometry> {
    let d = room.distance;
    let dh = room.tx_height - room.rx_height;
    debug_assert!(room.walls.len() < MAX_PATHS);
    let mut walls: Vec<(Option<f64>, f64)> = vec![(None, 0.0)];
    walls.extend(room.walls.iter().map(|&(y, loss)| (Some(y), reflection_loss_db.unwrap_or(loss))));
    walls
        .into_iter()
        .map(|(wall, reflection_loss_db)| {
            // Image method: the RX mirrored in the wall; the unfolded path is a straight line.
            let y_image = wall.map_or(0.0, |w| 2.0 * w);
            let horizontal = libm::hypot(d, y_image);
            let length = libm::hypot(horizontal, dh);
            let az = libm::atan2(y_image, d).to_degrees();
            let el = libm::atan2(dh.abs(), horizontal).to_degrees();
            let fspl_db = 20.0 * libm::log10(4.0 * PI * length / wavelength);
            let mut pair_mw = [0.0; PAIRS];
            for (i, mw) in pair_mw.iter_mut().enumerate() {
                let (tx, rx) = pair_angles(i);
                let gains = TX_ANTENNA.gain_db(tx - az, el) + RX_ANTENNA.gain_db(rx - az, el);
                *mw = from_db(tx_power_dbm + gains - fspl_db - reflection_loss_db);
            }
            // Crossing with the blocker's plane at mid-path: half-way along the unfolded line.
            let y_unfolded = 0.5 * y_image;
            let y_cross = match wall {
                Some(w) if y_unfolded.abs() > w.abs() => 2.0 * w - y_unfolded,
                _ => y_unfolded,
            };
            PathGeometry {
                pair_mw,
                y_cross,
                z_cross: room.tx_height - 0.5 * dh,
                to_cross: 0.5 * length,
                from_cross: 0.5 * length,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::config::{Scenario, SyntheticConfig};
    use super::super::power::thermal_noise_dbm;
    use super::super::test_support::{quiet, synthetic};
    use super::*;
    use crate::radio::SinrProcess;
    use crate::sim::{Rng, SimTime};

    #[test]
    fn test_unblocked_snr_is_free_space_plus_beam_gain() {
        // Blocker far away (travel 5 m): the LOS pair's SNR is Pt + G_tx + G_rx − elevation
        // pattern loss − free-space loss − P_noise, up to the reflections' side-lobe leakage.
        for (scenario, d, dh, tx_power) in [(Scenario::A, 3.0, 0.0, -22.0), (Scenario::B, 3.5, 0.6, -10.0)] {
            let config = SyntheticConfig { travel: 5.0, ..quiet(scenario) };
            let mut channel = synthetic(config);
            let step = channel.step(SimTime::ZERO, &mut Rng::for_component(1, "c"));
            let length = libm::hypot(d, dh);
            let wavelength = SPEED_OF_LIGHT / 60.48e9;
            let el = libm::atan2(dh, d).to_degrees();
            let gains = 20.0 - 12.0 * (el / 14.0) * (el / 14.0) + 17.0 - 12.0 * (el / 24.0) * (el / 24.0);
            let fspl = 20.0 * libm::log10(4.0 * PI * length / wavelength);
            let expected = tx_power + gains - fspl - thermal_noise_dbm(500e6);
            assert_eq!(channel.best_pair(), Some((0.0, 0.0)), "{scenario:?}");
            assert!((step.sinr_db - expected).abs() < 0.02, "{scenario:?}: {} vs {expected}", step.sinr_db);
        }
    }
}
