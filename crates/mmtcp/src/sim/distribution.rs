//! How a duration with a configured length is drawn: exactly, or exponentially around it.
//! Used by the LOS/NLOS blockage process and by on/off applications.

use super::{Duration, Rng};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DurationDistribution {
    /// Exactly the configured duration.
    #[default]
    Fixed,
    /// Exponential with the configured duration as its mean.
    Exponential,
}

impl DurationDistribution {
    /// A duration with the given length (or mean); at least 1 ps, so that a period that starts
    /// now ends strictly later.
    pub fn draw(self, mean: Duration, rng: &mut Rng) -> Duration {
        match self {
            DurationDistribution::Fixed => mean,
            DurationDistribution::Exponential => {
                Duration::from_secs_f64(rng.exponential(mean.as_secs_f64())).max(Duration::from_picos(1))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_is_exact_and_exponential_has_the_mean() {
        let mut rng = Rng::for_component(1, "d");
        let mean = Duration::from_millis(10);
        assert_eq!(DurationDistribution::Fixed.draw(mean, &mut rng), mean);
        let n = 100_000;
        let total: f64 =
            (0..n).map(|_| DurationDistribution::Exponential.draw(mean, &mut rng).as_secs_f64()).sum();
        assert!((total / n as f64 - 0.010).abs() < 0.0002);
    }
}
