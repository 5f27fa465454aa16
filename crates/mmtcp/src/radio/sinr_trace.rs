//! A SINR replayed from a trace file: a step-wise SINR s(t) in dB read from disk.
//!
//! Format (csv, the same conventions as the rate traces of `channel/trace.rs`): one `time,sinr_db`
//! row per line; the SINR holds from its time until the next row's. `#` starts a comment; blank
//! lines are ignored; the first data line is a header, and skipped, if its first field starts with
//! a letter (`time,sinr_db`). A time is a bare number of seconds (`0.25`, `1.5e-3`) or a time with
//! a unit (`250ms`); bare decimals are read exactly, scientific notation is rounded to the nearest
//! picosecond. A SINR is a decimal number of dB (`12.5`, `-3`, `1e1`), or `-inf` / `outage` for
//! no signal at all. Exactly two fields per row; the first row must be at time 0; times must be
//! strictly increasing.
//!
//! `repeat` (default `false`): without it the last row's SINR holds forever. With it the trace
//! loops with period P = the last row's time: that row ends the period and begins the next
//! repetition, so its SINR must equal the first row's (as for csv rate traces).
//!
//! Equal neighbouring rows merge, so the process announces only changes.
//!
//! The trace syntax and its errors (file and line named) are those of every step-wise trace
//! (`crate::trace_file`).

use super::{RadioContext, SinrProcess, SinrStep};
use crate::error::InputError;
use crate::sim::{Rng, SimTime};
use crate::trace_file::{parse_db, parse_steps, read_trace, Steps, ValueColumn};
use serde::{Deserialize, Serialize};

/// `{ kind = "sinr_trace", file = "traces/walk_sinr.csv" }`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinrTraceConfig {
    /// Path of the trace, relative to the scenario file's directory unless absolute (required).
    pub file: String,
    /// Whether the trace loops, with the last row's time as the period. Default `false`.
    #[serde(default)]
    pub repeat: bool,
}

/// The process of a [`SinrTraceConfig`].
#[derive(Clone, Debug)]
pub struct SinrTraceChannel {
    /// SINRs in dB over one period (see [`Steps`]).
    steps: Steps<f64>,
}

impl SinrTraceChannel {
    /// Reads and parses the trace of `config`; relative paths resolve against
    /// `ctx.channel.base_dir`.
    pub fn load(config: &SinrTraceConfig, ctx: &RadioContext) -> Result<SinrTraceChannel, InputError> {
        let (text, errors) = read_trace(&ctx.channel, "file", &config.file)?;
        let column = ValueColumn {
            name: "sinr_db",
            example: "0,12.5",
            parse: &|text| parse_db(text, "a SINR"),
            show: &|sinr| format!("{sinr} dB"),
        };
        let steps = parse_steps(&text, config.repeat, &errors, &column)?;
        Ok(SinrTraceChannel { steps })
    }
}

impl SinrProcess for SinrTraceChannel {
    fn step(&mut self, now: SimTime, _rng: &mut Rng) -> SinrStep {
        let (sinr_db, next_change) = self.steps.next(now);
        SinrStep { sinr_db, next_change }
    }
}

/// Drives `process` as the radio link does (at zero, then at each announced change) and returns
/// the steps, stopping after `max_steps` or at a step that never changes again.
#[cfg(test)]
pub(crate) fn drive(
    process: &mut impl SinrProcess,
    rng: &mut Rng,
    max_steps: usize,
) -> Vec<(SimTime, SinrStep)> {
    crate::sim::drive_steps(max_steps, SimTime(u64::MAX), |now| {
        let step = process.step(now, rng);
        (step, step.next_change)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::InputContext;
    use crate::sim::Duration;
    use std::path::{Path, PathBuf};

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/radio")
    }

    fn load(file: &str, repeat: bool) -> Result<SinrTraceChannel, InputError> {
        let base_dir = fixtures();
        let ctx = RadioContext {
            channel: InputContext {
                scenario_file: "scenarios/x.toml",
                field: "link[1].radio.channel",
                base_dir: &base_dir,
            },
            bandwidth_hz: 1e9,
        };
        SinrTraceChannel::load(&SinrTraceConfig { file: file.into(), repeat }, &ctx)
    }

    fn at_ms(ms: u64) -> SimTime {
        SimTime::ZERO + Duration::from_millis(ms)
    }

    /// (time in ms, SINR in dB) of the first `n` steps.
    fn steps_ms(channel: &mut SinrTraceChannel, n: usize) -> Vec<(u64, f64)> {
        drive(channel, &mut Rng::for_component(1, "t"), n)
            .into_iter()
            .map(|(t, s)| (t.0 / 1_000_000_000, s.sinr_db))
            .collect()
    }

    #[test]
    fn test_config_defaults_and_unknown_keys() {
        let c: SinrTraceConfig = toml::from_str("file = \"a.csv\"").unwrap();
        assert_eq!(c, SinrTraceConfig { file: "a.csv".into(), repeat: false });
        let err = toml::from_str::<SinrTraceConfig>("file = \"a.csv\"\nrepat = true").unwrap_err();
        assert!(err.to_string().contains("unknown field `repat`"), "{err}");
    }

    #[test]
    fn test_known_steps_with_units_outage_and_merging() {
        // sinr_steps.csv: header, comment, bare seconds, a unit, -inf and `outage`, a repeated
        // value that merges, scientific notation.
        let mut channel = load("sinr_steps.csv", false).unwrap();
        let steps = drive(&mut channel, &mut Rng::for_component(1, "t"), 10);
        let step = |sinr_db, next: Option<u64>| SinrStep { sinr_db, next_change: next.map(at_ms) };
        assert_eq!(
            steps,
            vec![
                (at_ms(0), step(20.0, Some(500))),
                (at_ms(500), step(f64::NEG_INFINITY, Some(1250))),
                (at_ms(1250), step(-3.5, Some(2000))),
                (at_ms(2000), step(10.0, None)),
            ]
        );
    }

    #[test]
    fn test_repeat_loops_with_the_last_row_as_period() {
        // sinr_loop.csv: 0 → 5 dB, 1 s → 15 dB, 1.5 s → outage, period 2 s (last row 2 s, 5 dB).
        let mut channel = load("sinr_loop.csv", true).unwrap();
        let ninf = f64::NEG_INFINITY;
        assert_eq!(
            steps_ms(&mut channel, 7),
            vec![(0, 5.0), (1000, 15.0), (1500, ninf), (2000, 5.0), (3000, 15.0), (3500, ninf), (4000, 5.0)]
        );
        let mut once = load("sinr_loop.csv", false).unwrap();
        assert_eq!(steps_ms(&mut once, 10), vec![(0, 5.0), (1000, 15.0), (1500, ninf), (2000, 5.0)]);
    }

    #[test]
    fn test_malformed_traces_name_file_and_line() {
        for (file, repeat, line, needle) in [
            ("sinr_bad_value.csv", false, "line 3", "\"great\" is not a SINR"),
            ("sinr_plus_inf.csv", false, "line 2", "\"inf\" is not a SINR"),
            ("sinr_decreasing.csv", false, "line 4", "time 1s is not after the previous row's 2s"),
            ("sinr_late_start.csv", false, "line 1", "must be at time 0"),
            ("sinr_three_fields.csv", false, "line 2", "expected two fields"),
            ("sinr_loop_mismatch.csv", true, "line 3", "must equal the first row's 5 dB (found 7 dB)"),
        ] {
            let err = load(file, repeat).unwrap_err();
            assert!(!err.to_string().contains('\n'));
            assert!(err.file.ends_with(&format!("tests/data/radio/{file}")), "resolved path: {}", err.file);
            assert_eq!(err.field, line, "{}", err.message);
            assert!(err.message.contains(needle), "{file}: {}", err.message);
            assert!(
                err.message.ends_with("(trace of link[1].radio.channel.file in scenarios/x.toml)"),
                "{}",
                err.message
            );
        }
        let err = load("sinr_empty.csv", false).unwrap_err();
        assert_eq!(err.field, "");
        assert!(err.message.contains("has no rows"), "{}", err.message);
    }

    #[test]
    fn test_missing_file_is_an_error_of_the_scenario_field() {
        let err = load("no_such_sinr.csv", false).unwrap_err();
        assert_eq!(
            (err.file.as_str(), err.field.as_str()),
            ("scenarios/x.toml", "link[1].radio.channel.file")
        );
        assert!(err.message.contains("cannot read trace"), "{}", err.message);
    }
}
