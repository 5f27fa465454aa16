//! Simulated time: integer picoseconds.
//!
//! A `u64` of picoseconds spans 213 days and represents the serialisation time of one byte at
//! 100 Gbit/s (80 ps) exactly, the choice htsim made for the same reasons. Instants (`SimTime`) and
//! spans (`Duration`) are distinct types so that adding two instants does not compile.

use std::fmt;
use std::ops::{Add, AddAssign, Div, Sub};

/// Picoseconds in one second.
pub const PS_PER_SEC: u64 = 1_000_000_000_000;

/// An instant of simulated time, in picoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time, in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }

    /// The span from `earlier` to `self`, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: SimTime) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Duration {
    pub const ZERO: Duration = Duration(0);
    pub const MAX: Duration = Duration(u64::MAX);

    pub const fn from_picos(ps: u64) -> Duration {
        Duration(ps)
    }
    pub const fn from_nanos(ns: u64) -> Duration {
        Duration(ns * 1_000)
    }
    pub const fn from_micros(us: u64) -> Duration {
        Duration(us * 1_000_000)
    }
    pub const fn from_millis(ms: u64) -> Duration {
        Duration(ms * 1_000_000_000)
    }
    pub const fn from_secs(s: u64) -> Duration {
        Duration(s * PS_PER_SEC)
    }

    /// Rounds to the nearest picosecond; negative and NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Duration {
        if s.is_nan() || s <= 0.0 {
            return Duration::ZERO;
        }
        let ps = s * PS_PER_SEC as f64;
        if ps >= u64::MAX as f64 {
            Duration::MAX
        } else {
            Duration(libm::round(ps) as u64)
        }
    }

    pub fn as_picos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    pub fn saturating_mul(self, k: u64) -> Duration {
        Duration(self.0.saturating_mul(k))
    }

    /// Time to serialise `bits` at `rate_bps`, rounded up to the next picosecond so that a
    /// transmitter is never faster than its nominal rate. `rate_bps` must be non-zero.
    pub fn transmission(bits: u64, rate_bps: u64) -> Duration {
        debug_assert!(rate_bps > 0, "transmission time at zero rate");
        let num = bits as u128 * PS_PER_SEC as u128;
        let ps = num.div_ceil(rate_bps as u128);
        Duration(u64::try_from(ps).unwrap_or(u64::MAX))
    }

    /// Bits a transmitter at `rate_bps` serialises in this span, rounded down.
    pub fn bits_at(self, rate_bps: u64) -> u64 {
        let bits = self.0 as u128 * rate_bps as u128 / PS_PER_SEC as u128;
        u64::try_from(bits).unwrap_or(u64::MAX)
    }
}

impl Add<Duration> for SimTime {
    type Output = SimTime;
    fn add(self, d: Duration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

impl AddAssign<Duration> for SimTime {
    fn add_assign(&mut self, d: Duration) {
        self.0 = self.0.saturating_add(d.0);
    }
}

impl Sub<SimTime> for SimTime {
    type Output = Duration;
    fn sub(self, earlier: SimTime) -> Duration {
        debug_assert!(earlier <= self, "time went backwards: {earlier:?} > {self:?}");
        Duration(self.0 - earlier.0)
    }
}

impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0.saturating_add(d.0))
    }
}

impl AddAssign for Duration {
    fn add_assign(&mut self, d: Duration) {
        self.0 = self.0.saturating_add(d.0);
    }
}

impl Sub for Duration {
    type Output = Duration;
    fn sub(self, d: Duration) -> Duration {
        Duration(self.0.saturating_sub(d.0))
    }
}

impl Div<u64> for Duration {
    type Output = Duration;
    /// Integer division, rounding down. `k` must be non-zero.
    fn div(self, k: u64) -> Duration {
        Duration(self.0 / k)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_is_exact_at_100_gbps() {
        // One byte at 100 Gbit/s is exactly 80 ps; a 1500-byte packet is 120 ns.
        assert_eq!(Duration::transmission(8, 100_000_000_000), Duration(80));
        assert_eq!(Duration::transmission(12_000, 100_000_000_000), Duration::from_nanos(120));
    }

    #[test]
    fn transmission_time_rounds_up() {
        // 1 bit at 3 bit/s is 333_333_333_333.33 ps: rounding down would make the link fast.
        assert_eq!(Duration::transmission(1, 3), Duration(333_333_333_334));
    }

    #[test]
    fn bits_at_inverts_transmission() {
        let d = Duration::transmission(12_000, 1_000_000_000);
        assert_eq!(d, Duration::from_micros(12));
        assert_eq!(d.bits_at(1_000_000_000), 12_000);
    }

    #[test]
    fn from_secs_f64_rounds_and_clamps() {
        assert_eq!(Duration::from_secs_f64(0.001), Duration::from_millis(1));
        assert_eq!(Duration::from_secs_f64(-1.0), Duration::ZERO);
        assert_eq!(Duration::from_secs_f64(f64::NAN), Duration::ZERO);
        assert_eq!(Duration::from_secs_f64(1e30), Duration::MAX);
    }

    #[test]
    fn instant_arithmetic_saturates() {
        assert_eq!(SimTime::MAX + Duration::from_secs(1), SimTime::MAX);
        assert_eq!(SimTime(5).saturating_since(SimTime(9)), Duration::ZERO);
        assert_eq!(SimTime(9) - SimTime(5), Duration(4));
    }
}
