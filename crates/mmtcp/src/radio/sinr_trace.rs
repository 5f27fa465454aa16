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
//! The helpers for trace files (data lines, times, dB values, errors that name the file and the
//! line) are shared with the beam-pair traces of [`super::ieee80211ad`].

use super::{RadioContext, SinrProcess, SinrStep};
use crate::channel::ChannelContext;
use crate::error::InputError;
use crate::sim::{Duration, Rng, SimTime};
use crate::units::Time;
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

/// Builds errors located in a trace file: `<file>: line N: <what> (<which scenario field>)`.
pub(crate) struct TraceFileErrors {
    /// The trace's path as the scenario's folder resolves it.
    pub(crate) file: String,
    /// Which scenario field referenced the trace, appended to every message.
    pub(crate) origin: String,
}

impl TraceFileErrors {
    pub(crate) fn at_line(&self, line: usize, message: impl std::fmt::Display) -> InputError {
        InputError::new(&self.file, format!("line {line}"), format!("{message} ({})", self.origin))
    }

    pub(crate) fn whole_file(&self, message: impl std::fmt::Display) -> InputError {
        InputError::new(&self.file, "", format!("{message} ({})", self.origin))
    }
}

/// Reads the trace named by key `key` of the channel table (`file` resolved against
/// `ctx.base_dir`); returns its text and the error builder for its lines.
pub(crate) fn read_trace(
    ctx: &ChannelContext,
    key: &str,
    file: &str,
) -> Result<(String, TraceFileErrors), InputError> {
    let path = ctx.base_dir.join(file);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| ctx.error(key, format!("cannot read trace {}: {e}", path.display())))?;
    let errors = TraceFileErrors {
        file: path.display().to_string(),
        origin: format!("trace of {} in {}", ctx.path_of(key), ctx.scenario_file),
    };
    Ok((text, errors))
}

/// The non-blank lines of `text` without comments, with their 1-based line numbers.
pub(crate) fn data_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let content = line.split('#').next().unwrap_or("").trim();
        (!content.is_empty()).then_some((i + 1, content))
    })
}

/// True if `fields` is a header row (its first field starts with a letter).
pub(crate) fn is_header(fields: &[&str]) -> bool {
    fields.first().is_some_and(|f| f.starts_with(|c: char| c.is_ascii_alphabetic()))
}

/// A time: a bare number of seconds (exact for plain decimals) or a time with a unit.
pub(crate) fn parse_time(text: &str) -> Result<Duration, String> {
    if !text.ends_with(|c: char| c.is_ascii_digit() || c == '.') {
        return Time::parse(text).map(|t| t.0);
    }
    if let Ok(t) = Time::parse(&format!("{text}s")) {
        return Ok(t.0);
    }
    match text.parse::<f64>() {
        Ok(v) if v < 0.0 => Err(format!("{text} is negative; a time must be ≥ 0")),
        Ok(v) if v.is_finite() => Ok(Duration::from_secs_f64(v)),
        _ => Err(format!(
            "\"{text}\" is not a time; expected a bare number (in s) or a quantity with a unit, e.g. 250ms"
        )),
    }
}

/// A level in dB (SINR or power): a finite number, or `-inf` / `outage` for no signal.
pub(crate) fn parse_db(text: &str, what: &str) -> Result<f64, String> {
    if text.eq_ignore_ascii_case("-inf") || text.eq_ignore_ascii_case("outage") {
        return Ok(f64::NEG_INFINITY);
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!(
            "\"{text}\" is not {what}; expected a number of dB, or -inf (or outage) for no signal"
        )),
    }
}

/// The SINR from `at` (an offset into the trace) until the next step.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Step {
    at: Duration,
    sinr_db: f64,
}

/// The process of a [`SinrTraceConfig`].
#[derive(Clone, Debug)]
pub struct SinrTraceChannel {
    /// Offsets into one period, starting at zero; neighbouring SINRs differ.
    steps: Vec<Step>,
    /// Some(P) when the steps repeat every P.
    period: Option<Duration>,
    /// The step that begins at the next call to `step`.
    next: usize,
    /// When the current repetition began.
    cycle_start: SimTime,
}

/// Steps and period (when `repeat`) of a `time,sinr_db` trace.
fn parse(
    text: &str,
    repeat: bool,
    errors: &TraceFileErrors,
) -> Result<(Vec<Step>, Option<Duration>), InputError> {
    let mut rows: Vec<(usize, Duration, f64)> = Vec::new(); // (line, time, SINR in dB)
    for (index, (line, content)) in data_lines(text).enumerate() {
        let fields: Vec<&str> = content.split(',').map(str::trim).collect();
        if index == 0 && is_header(&fields) {
            continue;
        }
        let [time, sinr] = fields[..] else {
            return Err(
                errors.at_line(line, format!("expected two fields `time,sinr_db`, found {}", fields.len()))
            );
        };
        let time = parse_time(time).map_err(|m| errors.at_line(line, m))?;
        let sinr = parse_db(sinr, "a SINR").map_err(|m| errors.at_line(line, m))?;
        match rows.last() {
            None if time != Duration::ZERO => {
                return Err(errors.at_line(
                    line,
                    format!(
                        "the first row is at {}; it must be at time 0, where the trace starts",
                        Time(time)
                    ),
                ));
            }
            Some(&(_, previous, _)) if time <= previous => {
                return Err(errors.at_line(
                    line,
                    format!(
                        "time {} is not after the previous row's {}; times must be strictly increasing",
                        Time(time),
                        Time(previous)
                    ),
                ));
            }
            _ => rows.push((line, time, sinr)),
        }
    }
    if rows.is_empty() {
        return Err(errors.whole_file("the trace has no rows; expected lines `time,sinr_db`, e.g. `0,12.5`"));
    }
    let period = if repeat {
        let (line, period, last) = rows.pop().expect("rows is not empty");
        let Some(&(_, _, first)) = rows.first() else {
            return Err(errors.at_line(
                line,
                "with repeat = true the last row's time is the period, so the trace needs at least two rows",
            ));
        };
        if last != first {
            return Err(errors.at_line(
                line,
                format!(
                    "with repeat = true the last row ends the period and begins the next repetition, so its SINR \
                     must equal the first row's {first} dB (found {last} dB); or set repeat = false"
                ),
            ));
        }
        Some(period)
    } else {
        None
    };
    let mut steps: Vec<Step> = Vec::new();
    for (_, at, sinr_db) in rows {
        if steps.last().map(|s| s.sinr_db) != Some(sinr_db) {
            steps.push(Step { at, sinr_db });
        }
    }
    Ok((steps, period))
}

impl SinrTraceChannel {
    /// Reads and parses the trace of `config`; relative paths resolve against
    /// `ctx.channel.base_dir`.
    pub fn load(config: &SinrTraceConfig, ctx: &RadioContext) -> Result<SinrTraceChannel, InputError> {
        let (text, errors) = read_trace(&ctx.channel, "file", &config.file)?;
        let (steps, period) = parse(&text, config.repeat, &errors)?;
        // A single SINR never changes, repeated or not.
        let period = period.filter(|_| steps.len() > 1);
        Ok(SinrTraceChannel { steps, period, next: 0, cycle_start: SimTime::ZERO })
    }
}

impl SinrProcess for SinrTraceChannel {
    fn step(&mut self, now: SimTime, _rng: &mut Rng) -> SinrStep {
        debug_assert_eq!(now, self.cycle_start + self.steps[self.next].at, "trace stepped off its schedule");
        let sinr_db = self.steps[self.next].sinr_db;
        // Neighbouring steps differ, so this finds a change within one repetition; only the wrap
        // from the last step to the first can repeat a SINR.
        loop {
            if self.next + 1 < self.steps.len() {
                self.next += 1;
            } else if let Some(period) = self.period {
                self.next = 0;
                self.cycle_start += period;
            } else {
                return SinrStep { sinr_db, next_change: None };
            }
            if self.steps[self.next].sinr_db != sinr_db {
                let next_change = self.cycle_start + self.steps[self.next].at;
                return SinrStep { sinr_db, next_change: Some(next_change) };
            }
        }
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
    let mut steps = Vec::new();
    let mut now = SimTime::ZERO;
    while steps.len() < max_steps {
        let step = process.step(now, rng);
        steps.push((now, step));
        match step.next_change {
            Some(t) => {
                assert!(t > now, "next change {t} not after {now}");
                now = t;
            }
            None => break,
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/radio")
    }

    fn load(file: &str, repeat: bool) -> Result<SinrTraceChannel, InputError> {
        let base_dir = fixtures();
        let ctx = RadioContext {
            channel: ChannelContext {
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

    #[test]
    fn test_time_and_db_fields() {
        assert_eq!(parse_time("0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_time("1.5e-3"), Ok(Duration::from_micros(1500)));
        assert_eq!(parse_time("250ms"), Ok(Duration::from_millis(250)));
        assert!(parse_time("-1").unwrap_err().contains("negative"));
        assert_eq!(parse_db("-inf", "a SINR"), Ok(f64::NEG_INFINITY));
        assert_eq!(parse_db("OUTAGE", "a SINR"), Ok(f64::NEG_INFINITY));
        assert_eq!(parse_db("-7.25", "a SINR"), Ok(-7.25));
        assert!(parse_db("nan", "a SINR").is_err());
    }
}
