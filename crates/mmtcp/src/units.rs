//! Quantities with units, as written in scenario files: `"10ms"`, `"1Gbps"`, `"6MB"`, `"1000pkt"`.
//!
//! Values are parsed from decimal text without going through floating point where the unit makes
//! the result an integer (`"1.5ms"` is exactly 1_500_000_000 ps), and print back in a canonical
//! form, so a resolved scenario re-reads to the same values. Decimal prefixes are powers of ten
//! (`MB` = 10^6 bytes, `Mbps` = 10^6 bit/s); binary prefixes are spelled `KiB`, `MiB`, `GiB`.

use crate::sim::Duration;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// `"<decimal><unit>"` split into the decimal's text and the scale of its unit (one of `units`).
fn number_and_scale<'a>(text: &'a str, units: &[(&str, u64)]) -> Option<(&'a str, u64)> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let scale = units.iter().find(|(u, _)| *u == unit.trim())?.1;
    Some((number, scale))
}

/// Parses `"<decimal><unit>"` where `units` lists `(suffix, scale)`; the result is
/// `decimal × scale`, which must be an integer no larger than `u64::MAX`.
fn parse_scaled(text: &str, units: &[(&str, u64)]) -> Option<u64> {
    let (number, scale) = number_and_scale(text, units)?;
    let (int_part, frac_part) = match number.split_once('.') {
        Some((i, f)) => (i, f),
        None => (number, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    if !int_part.chars().all(|c| c.is_ascii_digit()) || !frac_part.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut value: u128 = 0;
    for c in int_part.chars() {
        value = value.checked_mul(10)?.checked_add(c as u128 - '0' as u128)?;
    }
    value = value.checked_mul(scale as u128)?;
    let mut frac_scale = scale as u128;
    for c in frac_part.chars() {
        let digit = c as u128 - '0' as u128;
        if frac_scale % 10 != 0 {
            // More decimal places than the unit resolves: only trailing zeros are allowed.
            if digit != 0 {
                return None;
            }
            continue;
        }
        frac_scale /= 10;
        value = value.checked_add(digit * frac_scale)?;
    }
    u64::try_from(value).ok()
}

/// For a well-formed `"<decimal><unit>"` whose value exceeds `u64::MAX`, that maximum.
fn too_large(text: &str, units: &[(&str, u64)]) -> Option<u64> {
    let (number, scale) = number_and_scale(text, units)?;
    let value: f64 = number.parse().ok()?;
    (value * scale as f64 >= u64::MAX as f64).then_some(u64::MAX)
}

fn is_power_of_ten(mut n: u64) -> bool {
    while n >= 10 && n % 10 == 0 {
        n /= 10;
    }
    n == 1
}

/// Prints `value` (in base units) exactly, choosing the shortest spelling among the units (ties
/// go to the unit listed first in `units`): `"1448B"`, `"1.5ms"`, `"64MiB"`, `"90s"`. Decimals
/// are used only with power-of-ten units, where they terminate.
fn format_scaled(value: u64, units: &[(&str, u64)]) -> String {
    let mut best: Option<String> = None;
    for &(suffix, scale) in units {
        let candidate = if value % scale == 0 {
            format!("{}{}", value / scale, suffix)
        } else if value >= scale && is_power_of_ten(scale) {
            let mut frac = format!("{:0width$}", value % scale, width = scale.ilog10() as usize);
            while frac.ends_with('0') {
                frac.pop();
            }
            format!("{}.{}{}", value / scale, frac, suffix)
        } else {
            continue;
        };
        if best.as_ref().is_none_or(|b| candidate.len() < b.len()) {
            best = Some(candidate);
        }
    }
    best.expect("the smallest unit has scale 1 and divides every value")
}

macro_rules! quantity {
    ($name:ident, $inner:ty, $what:literal, $example:literal, $units:expr, $to:expr, $from:expr) => {
        impl $name {
            /// Parses text such as
            #[doc = concat!("`\"", $example, "\"`.")]
            pub fn parse(text: &str) -> Result<Self, String> {
                parse_scaled(text, $units).map($from).ok_or_else(|| {
                    if let Some(largest) = too_large(text, $units) {
                        return format!(
                            "\"{}\" is more than {} can hold (at most {})",
                            text,
                            $what,
                            $from(largest)
                        );
                    }
                    let suffixes: Vec<&str> = $units.iter().map(|(u, _)| *u).collect();
                    format!(
                        "\"{}\" is not {}; expected a non-negative number with a unit ({}), e.g. \"{}\"",
                        text,
                        $what,
                        suffixes.join(", "),
                        $example
                    )
                })
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let base: u64 = $to(*self);
                f.write_str(&format_scaled(base, $units))
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(f, "{} as a string with a unit, e.g. \"{}\"", $what, $example)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$name, E> {
                        $name::parse(v).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            "{} is a bare number; {} needs a unit, e.g. \"{}\"",
                            v, $what, $example
                        )))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        self.visit_i64(v as i64)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            "{} is a bare number; {} needs a unit, e.g. \"{}\"",
                            v, $what, $example
                        )))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

/// A span of time. Units: `ps`, `ns`, `us`, `ms`, `s`, `min`, `h`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Time(pub Duration);

const TIME_UNITS: &[(&str, u64)] = &[
    ("min", 60_000_000_000_000),
    ("s", 1_000_000_000_000),
    // After `s`, so that zero still prints as "0s" (the shortest form wins, ties the earlier unit).
    ("h", 3_600_000_000_000_000),
    ("ms", 1_000_000_000),
    ("us", 1_000_000),
    ("ns", 1_000),
    ("ps", 1),
];
quantity!(Time, Duration, "a time", "10ms", TIME_UNITS, |t: Time| t.0 .0, |ps| Time(Duration(ps)));

/// A bit rate in bit/s. Units: `bps`, `kbps` (also `Kbps`), `Mbps`, `Gbps`, `Tbps`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rate(pub u64);

const RATE_UNITS: &[(&str, u64)] = &[
    ("Tbps", 1_000_000_000_000),
    ("Gbps", 1_000_000_000),
    ("Mbps", 1_000_000),
    ("kbps", 1_000),
    ("Kbps", 1_000),
    ("bps", 1),
];
quantity!(Rate, u64, "a rate", "1Gbps", RATE_UNITS, |r: Rate| r.0, Rate);

/// A frequency or bandwidth in Hz. Units: `Hz`, `kHz`, `MHz`, `GHz`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Frequency(pub u64);

const FREQUENCY_UNITS: &[(&str, u64)] =
    &[("GHz", 1_000_000_000), ("MHz", 1_000_000), ("kHz", 1_000), ("Hz", 1)];
quantity!(Frequency, u64, "a frequency", "28GHz", FREQUENCY_UNITS, |f: Frequency| f.0, Frequency);

impl Frequency {
    /// The value in Hz as a float, for link-budget formulas.
    pub fn hz(self) -> f64 {
        self.0 as f64
    }
}

/// A size in bytes. Units: `B`, `KB`, `MB`, `GB` (powers of 10), `KiB`, `MiB`, `GiB` (powers of 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes(pub u64);

const BYTE_UNITS: &[(&str, u64)] = &[
    ("GiB", 1 << 30),
    ("GB", 1_000_000_000),
    ("MiB", 1 << 20),
    ("MB", 1_000_000),
    ("KiB", 1 << 10),
    ("KB", 1_000),
    ("kB", 1_000),
    ("B", 1),
];
quantity!(Bytes, u64, "a size", "6MB", BYTE_UNITS, |b: Bytes| b.0, Bytes);

impl Bytes {
    /// The allowed units, for error messages of types built on sizes.
    pub const UNITS: &'static str = "B, KB, kB, MB, GB, KiB, MiB, GiB";
}

/// A queue or buffer limit: either a number of packets (`"1000pkt"`) or a size in bytes
/// (`"2MB"`, with the units of [`Bytes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferLimit {
    Packets(u64),
    Bytes(u64),
}

impl BufferLimit {
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        for suffix in ["pkt", "packets"] {
            if let Some(number) = t.strip_suffix(suffix) {
                let number = number.trim();
                if !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()) {
                    if let Ok(n) = number.parse() {
                        return Ok(BufferLimit::Packets(n));
                    }
                }
            }
        }
        match Bytes::parse(t) {
            Ok(b) => Ok(BufferLimit::Bytes(b.0)),
            Err(_) => Err(format!(
                "\"{text}\" is not a buffer limit; expected a whole number of packets (\"1000pkt\") or a size ({}), e.g. \"2MB\"",
                Bytes::UNITS
            )),
        }
    }
}

impl fmt::Display for BufferLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BufferLimit::Packets(n) => write!(f, "{n}pkt"),
            BufferLimit::Bytes(b) => write!(f, "{}", Bytes(*b)),
        }
    }
}

impl Serialize for BufferLimit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for BufferLimit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BufferLimit;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a buffer limit such as \"1000pkt\" or \"2MB\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<BufferLimit, E> {
                BufferLimit::parse(v).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<BufferLimit, E> {
                Err(E::custom(format!(
                    "{v} is a bare number; a buffer limit needs a unit, e.g. \"{v}pkt\" or \"2MB\""
                )))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<BufferLimit, E> {
                self.visit_i64(v as i64)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_exactly() {
        assert_eq!(Time::parse("10ms").unwrap().0, Duration::from_millis(10));
        assert_eq!(Time::parse("1.5ms").unwrap().0, Duration::from_micros(1500));
        assert_eq!(Time::parse("0.000001us").unwrap().0, Duration(1));
        assert_eq!(Time::parse("2min").unwrap().0, Duration::from_secs(120));
        assert_eq!(Time::parse(" 3 s ").unwrap().0, Duration::from_secs(3));
        assert_eq!(Time::parse(".5s").unwrap().0, Duration::from_millis(500));
    }

    #[test]
    fn bad_times_are_rejected_with_the_allowed_units() {
        for bad in ["10", "-5ms", "ms", "1.2.3s", "10 parsecs", "0.0000001us", ""] {
            let err = Time::parse(bad).unwrap_err();
            assert!(err.contains("ps, ns, us, ms") || err.contains("expected"), "{bad}: {err}");
        }
        assert!(Time::parse("-5ms").unwrap_err().contains("\"-5ms\" is not a time"));
    }

    #[test]
    fn rates_and_sizes() {
        assert_eq!(Rate::parse("1Gbps").unwrap(), Rate(1_000_000_000));
        assert_eq!(Rate::parse("2.5Mbps").unwrap(), Rate(2_500_000));
        assert_eq!(Rate::parse("0bps").unwrap(), Rate(0));
        assert!(Rate::parse("-1Gbps").is_err());
        assert!(Rate::parse("1GBps").is_err());
        assert_eq!(Bytes::parse("6MB").unwrap(), Bytes(6_000_000));
        assert_eq!(Bytes::parse("64MiB").unwrap(), Bytes(64 << 20));
        assert_eq!(Bytes::parse("1448B").unwrap(), Bytes(1448));
        assert!(Bytes::parse("0.5B").is_err(), "half a byte is not a size");
        assert_eq!(Frequency::parse("28GHz").unwrap(), Frequency(28_000_000_000));
        assert_eq!(Frequency::parse("2.1GHz").unwrap().to_string(), "2.1GHz");
        assert!(Frequency::parse("28").is_err());
    }

    #[test]
    fn overflow_is_an_error_not_a_wrap() {
        assert!(Rate::parse("99999999999Tbps").is_err());
        assert!(Time::parse("1000000000min").is_err());
        let e = Time::parse("18446744073709551616ps").unwrap_err();
        assert!(e.contains("is more than a time can hold (at most 18446744.073709551615s)"), "{e}");
        assert!(Bytes::parse("99999999999GiB").unwrap_err().contains("more than a size can hold"));
    }

    #[test]
    fn hours_and_lowercase_kilobytes() {
        assert_eq!(Time::parse("2h").unwrap().0, Duration::from_secs(7200));
        assert_eq!(Time(Duration::from_secs(3600)).to_string(), "1h");
        assert_eq!(Time(Duration::from_secs(90)).to_string(), "90s");
        assert_eq!(Bytes::parse("100kB").unwrap(), Bytes(100_000));
        assert_eq!(Bytes(100_000).to_string(), "100KB", "printed as before");
    }

    #[test]
    fn display_round_trips() {
        for text in ["10ms", "1.5ms", "1Gbps", "2.5Mbps", "6MB", "64MiB", "1448B", "0bps", "7ps", "1.000001s"]
        {
            let t = if let Ok(t) = Time::parse(text) {
                t.to_string()
            } else if let Ok(r) = Rate::parse(text) {
                r.to_string()
            } else {
                Bytes::parse(text).unwrap().to_string()
            };
            assert_eq!(t, text);
        }
        assert_eq!(Time(Duration::from_micros(1500)).to_string(), "1.5ms");
        assert_eq!(Time(Duration::from_secs(90)).to_string(), "90s");
        assert_eq!(Bytes(1_500_000).to_string(), "1.5MB");
        assert_eq!(Bytes(1 << 30).to_string(), "1GiB");
        assert_eq!(Time(Duration::ZERO).to_string(), "0s");
    }

    #[test]
    fn buffer_limits() {
        assert_eq!(BufferLimit::parse("1000pkt").unwrap(), BufferLimit::Packets(1000));
        assert_eq!(BufferLimit::parse("20 packets").unwrap(), BufferLimit::Packets(20));
        assert_eq!(BufferLimit::parse("2MB").unwrap(), BufferLimit::Bytes(2_000_000));
        assert!(BufferLimit::parse("1.5pkt").is_err());
        assert!(BufferLimit::parse("lots").unwrap_err().contains("\"1000pkt\""));
        assert_eq!(BufferLimit::Packets(5).to_string(), "5pkt");
    }

    #[test]
    fn serde_rejects_bare_numbers() {
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct S {
            delay: Time,
        }
        let err = toml::from_str::<S>("delay = 10").unwrap_err().to_string();
        assert!(err.contains("needs a unit"), "{err}");
        let ok: S = toml::from_str("delay = \"10ms\"").unwrap();
        assert_eq!(ok.delay.0, Duration::from_millis(10));
    }
}
