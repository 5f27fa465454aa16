//! A channel replayed from a trace file: a step-wise rate r(t) read from disk.
//!
//! Two formats:
//!
//! - **csv**: one `time,rate` row per line; the rate holds from its time until the next row's.
//!   `#` starts a comment; blank lines are ignored; the first data line is a header, and skipped,
//!   if its first field starts with a letter (`time,rate`). A time is a bare number of seconds
//!   (`0.25`, `1.5e-3`) or a time with a unit (`250ms`); a rate is a bare number of bit/s
//!   (`1000000000`, `1e9`) or a rate with a unit (`1Gbps`). Bare decimals are read exactly;
//!   scientific notation is rounded to the nearest picosecond or bit/s. Exactly two fields per
//!   row; the first row must be at time 0; times must be strictly increasing.
//! - **mahimahi** (Netravali et al., "Mahimahi: Accurate Record-and-Replay for HTTP", USENIX ATC
//!   2015; `mm-link`): one integer millisecond timestamp per line, non-decreasing; each line is one
//!   delivery opportunity of 1500 bytes at that millisecond, repeated lines are several
//!   opportunities. As in `mm-link` (`link_queue.cc`, `use_a_delivery_opportunity`), the trace
//!   repeats with period P = the last timestamp, which must be > 0: the opportunity at timestamp
//!   m of repetition k is at k·P + m.
//!
//!   Conversion (an approximation): an opportunity at m ms counts towards the millisecond
//!   (m − 1, m], so that the capacity offered by time m ms equals the bytes mahimahi has released
//!   by then; the n opportunities of one millisecond become the rate n·1500·8 bit/ms = n·12 Mbit/s
//!   over it, and equal neighbouring milliseconds merge into one step. Timestamp 0 counts towards
//!   the first millisecond. Within a millisecond, bytes thus flow smoothly rather than in 1500-byte
//!   bursts at its end: a packet can leave up to 1 ms earlier than under `mm-link`.
//!
//! `repeat`: with `repeat = false`, the last step's rate holds forever. With `repeat = true`, the
//! trace loops with period P: for mahimahi, the last timestamp; for csv, the last row's time —
//! that row ends the period and begins the next repetition, so its rate must equal the first
//! row's. Defaults: format `mahimahi` for files ending in `.mahimahi`, `.up` or `.down` (mahimahi's
//! own naming), else `csv`; repeat `true` for mahimahi (as `mm-link`), `false` for csv.
//!
//! Serves seed 001 (Drago et al.), whose 60 GHz link replays rates derived from measured traces,
//! and replays of recorded mmWave or cellular links in general.

use super::{ChannelContext, ChannelProcess, ChannelStep};
use crate::error::InputError;
use crate::sim::{Duration, Rng, SimTime};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// How a trace file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormat {
    /// `time,rate` rows.
    Csv,
    /// Mahimahi delivery opportunities, one millisecond timestamp per line.
    Mahimahi,
}

impl TraceFormat {
    /// The default format of `file`: mahimahi for `.mahimahi`, `.up` and `.down`, else csv.
    fn infer(file: &str) -> TraceFormat {
        match Path::new(file).extension().and_then(|e| e.to_str()) {
            Some("mahimahi" | "up" | "down") => TraceFormat::Mahimahi,
            _ => TraceFormat::Csv,
        }
    }
}

/// `{ kind = "trace", file = "traces/walk.csv" }`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "RawTraceConfig")]
pub struct TraceConfig {
    /// Path of the trace, relative to the scenario file's directory unless absolute (required).
    pub file: String,
    /// `"csv"` or `"mahimahi"`. Default: `"mahimahi"` if `file` ends in `.mahimahi`, `.up` or
    /// `.down`, else `"csv"`.
    pub format: TraceFormat,
    /// Whether the trace loops. Default: `true` for mahimahi, `false` for csv.
    pub repeat: bool,
}

/// A `trace` table as written, before its defaults (which depend on `file`) are filled in.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTraceConfig {
    file: String,
    format: Option<TraceFormat>,
    repeat: Option<bool>,
}

impl From<RawTraceConfig> for TraceConfig {
    fn from(raw: RawTraceConfig) -> TraceConfig {
        let format = raw.format.unwrap_or_else(|| TraceFormat::infer(&raw.file));
        let repeat = raw.repeat.unwrap_or(format == TraceFormat::Mahimahi);
        TraceConfig { file: raw.file, format, repeat }
    }
}

/// Bits of one mahimahi delivery opportunity: 1500 bytes, an Ethernet MTU.
const OPPORTUNITY_BITS: u64 = 1500 * 8;
/// Picoseconds in a millisecond.
const PS_PER_MS: u64 = 1_000_000_000;

/// The rate from `at` (an offset into the trace) until the next step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TraceStep {
    at: Duration,
    rate_bps: u64, // bit/s
}

/// Appends a step unless it repeats the previous rate.
fn push_step(steps: &mut Vec<TraceStep>, at: Duration, rate_bps: u64) {
    if steps.last().map(|s| s.rate_bps) != Some(rate_bps) {
        steps.push(TraceStep { at, rate_bps });
    }
}

/// The process of a [`TraceConfig`].
#[derive(Clone, Debug)]
pub struct TraceChannel {
    /// Offsets into one period, starting at zero; neighbouring rates differ.
    steps: Vec<TraceStep>,
    /// Some(P) when the steps repeat every P.
    period: Option<Duration>,
    /// The step that begins at the next call to `step`.
    next: usize,
    /// When the current repetition began.
    cycle_start: SimTime,
}

/// Builds errors located in a trace file.
struct TraceErrors {
    /// The trace's path as the scenario's folder resolves it (usable from the current folder).
    file: String,
    /// Which scenario field referenced the trace, appended to every message.
    origin: String,
}

impl TraceErrors {
    fn at_line(&self, line: usize, message: impl std::fmt::Display) -> InputError {
        InputError::new(&self.file, format!("line {line}"), format!("{message} ({})", self.origin))
    }

    fn whole_file(&self, message: impl std::fmt::Display) -> InputError {
        InputError::new(&self.file, "", format!("{message} ({})", self.origin))
    }
}

/// The non-blank lines of `text` without comments, with their 1-based line numbers.
fn data_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let content = line.split('#').next().unwrap_or("").trim();
        (!content.is_empty()).then_some((i + 1, content))
    })
}

/// Reads a bare number in the unit `bare_unit` (exactly if it is a plain decimal, else as a
/// float through `from_f64`) or a quantity with a unit through `parse`.
fn parse_number_or_quantity<Q>(
    text: &str,
    what: &str,
    bare_unit: &str,
    parse: impl Fn(&str) -> Result<Q, String>,
    from_f64: impl Fn(f64) -> Q,
) -> Result<Q, String> {
    if !text.ends_with(|c: char| c.is_ascii_digit() || c == '.') {
        return parse(text);
    }
    if let Ok(q) = parse(&format!("{text}{bare_unit}")) {
        return Ok(q);
    }
    match text.parse::<f64>() {
        Ok(v) if v < 0.0 => Err(format!("{text} is negative; {what} must be ≥ 0")),
        Ok(v) if v.is_finite() => Ok(from_f64(v)),
        _ => Err(format!(
            "\"{text}\" is not {what}; expected a bare number (in {bare_unit}) or a quantity with a unit"
        )),
    }
}

fn parse_time(text: &str) -> Result<Duration, String> {
    parse_number_or_quantity(text, "a time", "s", |t| Time::parse(t).map(|t| t.0), Duration::from_secs_f64)
}

fn parse_rate(text: &str) -> Result<u64, String> {
    // `as` saturates rates beyond u64::MAX bit/s.
    parse_number_or_quantity(
        text,
        "a rate",
        "bps",
        |t| Rate::parse(t).map(|r| r.0),
        |v| libm::round(v) as u64,
    )
}

/// Steps and period (when `repeat`) of a csv trace.
fn parse_csv(
    text: &str,
    repeat: bool,
    errors: &TraceErrors,
) -> Result<(Vec<TraceStep>, Option<Duration>), InputError> {
    let mut rows: Vec<(usize, Duration, u64)> = Vec::new(); // (line, time, rate in bit/s)
    for (index, (line, content)) in data_lines(text).enumerate() {
        let fields: Vec<&str> = content.split(',').map(str::trim).collect();
        if index == 0 && fields[0].starts_with(|c: char| c.is_ascii_alphabetic()) {
            continue; // header
        }
        let [time, rate] = fields[..] else {
            return Err(
                errors.at_line(line, format!("expected two fields `time,rate`, found {}", fields.len()))
            );
        };
        let time = parse_time(time).map_err(|m| errors.at_line(line, m))?;
        let rate = parse_rate(rate).map_err(|m| errors.at_line(line, m))?;
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
            _ => rows.push((line, time, rate)),
        }
    }
    if rows.is_empty() {
        return Err(errors.whole_file("the trace has no rows; expected lines `time,rate`, e.g. `0,1Gbps`"));
    }
    let period = if repeat {
        let (line, period, last_rate) = rows.pop().expect("rows is not empty");
        let Some(&(_, _, first_rate)) = rows.first() else {
            return Err(errors.at_line(
                line,
                "with repeat = true the last row's time is the period, so the trace needs at least two rows",
            ));
        };
        if last_rate != first_rate {
            return Err(errors.at_line(
                line,
                format!(
                    "with repeat = true the last row ends the period and begins the next repetition, so its rate \
                     must equal the first row's {} (found {}); or set repeat = false",
                    Rate(first_rate),
                    Rate(last_rate)
                ),
            ));
        }
        Some(period)
    } else {
        None
    };
    let mut steps = Vec::new();
    for (_, time, rate) in rows {
        push_step(&mut steps, time, rate);
    }
    Ok((steps, period))
}

/// Steps and period of a mahimahi trace, binned per millisecond (see the module header).
fn parse_mahimahi(text: &str, errors: &TraceErrors) -> Result<(Vec<TraceStep>, Duration), InputError> {
    let mut steps = Vec::new();
    let mut filled_ms = 0; // milliseconds [0, filled_ms) have their steps
    let mut flush = |steps: &mut Vec<TraceStep>, bin_ms: u64, opportunities: u64| {
        if bin_ms > filled_ms {
            push_step(steps, Duration::from_millis(filled_ms), 0);
        }
        push_step(steps, Duration::from_millis(bin_ms), opportunities * OPPORTUNITY_BITS * 1000);
        filled_ms = bin_ms + 1;
    };
    let mut bin: Option<(u64, u64)> = None; // (millisecond index, opportunities in it)
    let mut last: Option<(usize, u64)> = None; // (line, timestamp in ms)
    for (line, content) in data_lines(text) {
        if !content.bytes().all(|b| b.is_ascii_digit()) {
            return Err(errors.at_line(line, format!("\"{content}\" is not a whole number of milliseconds")));
        }
        let ms = content.parse::<u64>().ok().filter(|ms| ms.checked_mul(PS_PER_MS).is_some()).ok_or_else(
            || errors.at_line(line, format!("timestamp {content} ms is beyond the simulator's range")),
        )?;
        if let Some((_, previous)) = last {
            if ms < previous {
                return Err(errors.at_line(
                    line,
                    format!("timestamp {ms} is before the previous one ({previous}); timestamps must be non-decreasing"),
                ));
            }
        }
        last = Some((line, ms));
        let bin_ms = ms.max(1) - 1;
        bin = match bin {
            Some((b, n)) if b == bin_ms => Some((b, n + 1)),
            Some((b, n)) => {
                flush(&mut steps, b, n);
                Some((bin_ms, 1))
            }
            None => Some((bin_ms, 1)),
        };
    }
    let (Some((line, period_ms)), Some((b, n))) = (last, bin) else {
        return Err(
            errors.whole_file("the trace has no timestamps; expected one millisecond timestamp per line")
        );
    };
    if period_ms == 0 {
        return Err(
            errors.at_line(line, "the last timestamp is the trace's period and must be greater than 0")
        );
    }
    flush(&mut steps, b, n);
    Ok((steps, Duration::from_millis(period_ms)))
}

impl TraceChannel {
    /// Reads and parses the trace of `config`; relative paths resolve against `ctx.base_dir`.
    pub fn load(config: &TraceConfig, ctx: &ChannelContext) -> Result<TraceChannel, InputError> {
        let path = ctx.base_dir.join(&config.file);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| ctx.error("file", format!("cannot read trace {}: {e}", path.display())))?;
        let errors = TraceErrors {
            file: path.display().to_string(),
            origin: format!("trace of {} in {}", ctx.path_of("file"), ctx.scenario_file),
        };
        let (steps, period) = match config.format {
            TraceFormat::Csv => parse_csv(&text, config.repeat, &errors)?,
            TraceFormat::Mahimahi => {
                let (steps, period) = parse_mahimahi(&text, &errors)?;
                (steps, config.repeat.then_some(period))
            }
        };
        // A single rate never changes, repeated or not.
        let period = period.filter(|_| steps.len() > 1);
        Ok(TraceChannel { steps, period, next: 0, cycle_start: SimTime::ZERO })
    }
}

impl ChannelProcess for TraceChannel {
    fn step(&mut self, now: SimTime, _rng: &mut Rng) -> ChannelStep {
        debug_assert_eq!(now, self.cycle_start + self.steps[self.next].at, "trace stepped off its schedule");
        let rate_bps = self.steps[self.next].rate_bps;
        // Neighbouring steps differ, so this finds a change within one repetition; only the wrap
        // from the last step to the first can repeat a rate.
        loop {
            if self.next + 1 < self.steps.len() {
                self.next += 1;
            } else if let Some(period) = self.period {
                self.next = 0;
                self.cycle_start += period;
            } else {
                return ChannelStep { rate_bps, next_change: None };
            }
            if self.steps[self.next].rate_bps != rate_bps {
                let next_change = self.cycle_start + self.steps[self.next].at;
                return ChannelStep { rate_bps, next_change: Some(next_change) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::drive;
    use super::*;
    use std::path::PathBuf;

    const MBPS: u64 = 1_000_000;

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/traces")
    }

    fn load(file: &str, format: TraceFormat, repeat: bool) -> Result<TraceChannel, InputError> {
        let base_dir = fixtures();
        let ctx = ChannelContext {
            scenario_file: "scenarios/x.toml",
            field: "link[1].channel",
            base_dir: &base_dir,
        };
        TraceChannel::load(&TraceConfig { file: file.into(), format, repeat }, &ctx)
    }

    fn at_ms(ms: u64) -> SimTime {
        SimTime::ZERO + Duration::from_millis(ms)
    }

    /// (time in ms, rate in Mbit/s) of the first `n` steps.
    fn steps_ms(channel: &mut TraceChannel, n: usize) -> Vec<(u64, u64)> {
        drive(channel, &mut Rng::for_component(1, "t"), n)
            .into_iter()
            .map(|(t, s)| (t.0 / PS_PER_MS, s.rate_bps / MBPS))
            .collect()
    }

    #[test]
    fn test_format_and_repeat_defaults() {
        let config = |text: &str| toml::from_str::<TraceConfig>(text).unwrap();
        let expect = |file: &str, format, repeat| TraceConfig { file: file.into(), format, repeat };
        assert_eq!(config("file = \"a/b.down\""), expect("a/b.down", TraceFormat::Mahimahi, true));
        assert_eq!(config("file = \"b.up\""), expect("b.up", TraceFormat::Mahimahi, true));
        assert_eq!(config("file = \"b.mahimahi\""), expect("b.mahimahi", TraceFormat::Mahimahi, true));
        assert_eq!(config("file = \"b.csv\""), expect("b.csv", TraceFormat::Csv, false));
        assert_eq!(config("file = \"b.txt\"\nrepeat = true"), expect("b.txt", TraceFormat::Csv, true));
        assert_eq!(config("file = \"b.up\"\nformat = \"csv\""), expect("b.up", TraceFormat::Csv, false));
    }

    #[test]
    fn test_csv_known_steps_with_units_and_header() {
        // steps.csv: header, comments, bare seconds and bit/s, units, scientific notation, and a
        // repeated rate that must merge.
        let mut channel = load("steps.csv", TraceFormat::Csv, false).unwrap();
        let steps = drive(&mut channel, &mut Rng::for_component(1, "t"), 10);
        let step = |rate_bps, next: Option<u64>| ChannelStep { rate_bps, next_change: next.map(at_ms) };
        assert_eq!(
            steps,
            vec![
                (at_ms(0), step(1_000 * MBPS, Some(500))),
                (at_ms(500), step(0, Some(750))),
                (at_ms(750), step(250 * MBPS, Some(1500))),
                (at_ms(1500), step(2_500_000, Some(2001))),
                (at_ms(2001), step(1_000 * MBPS, None)),
            ]
        );
    }

    #[test]
    fn test_csv_repeat_loops_with_the_last_row_as_period() {
        // loop.csv: 0 → 100 Mbit/s, 1 s → 0, 1.5 s → 200 Mbit/s, period 2 s (last row 2 s, 100 Mbit/s).
        let mut channel = load("loop.csv", TraceFormat::Csv, true).unwrap();
        assert_eq!(
            steps_ms(&mut channel, 7),
            vec![(0, 100), (1000, 0), (1500, 200), (2000, 100), (3000, 0), (3500, 200), (4000, 100)]
        );
        let mut once = load("loop.csv", TraceFormat::Csv, false).unwrap();
        assert_eq!(steps_ms(&mut once, 10), vec![(0, 100), (1000, 0), (1500, 200), (2000, 100)]);
    }

    #[test]
    fn test_csv_repeat_skips_a_wrap_without_change() {
        // wrap.csv: 0 → 100, 1 s → 0, 2 s → 100, period 3 s: the step at 3 s would repeat 100.
        let mut channel = load("wrap.csv", TraceFormat::Csv, true).unwrap();
        assert_eq!(steps_ms(&mut channel, 5), vec![(0, 100), (1000, 0), (2000, 100), (4000, 0), (5000, 100)]);
    }

    #[test]
    fn test_mahimahi_binning_and_period() {
        // tiny.mahimahi: 1, 1, 2, 4 → ms (0,1]: 2 opportunities, (1,2]: 1, (2,3]: 0, (3,4]: 1; period 4 ms.
        let mut channel = load("tiny.mahimahi", TraceFormat::Mahimahi, true).unwrap();
        assert_eq!(
            steps_ms(&mut channel, 8),
            vec![(0, 24), (1, 12), (2, 0), (3, 12), (4, 24), (5, 12), (6, 0), (7, 12)]
        );
        let mut once = load("tiny.mahimahi", TraceFormat::Mahimahi, false).unwrap();
        assert_eq!(steps_ms(&mut once, 8), vec![(0, 24), (1, 12), (2, 0), (3, 12)]);
    }

    #[test]
    fn test_mahimahi_capacity_per_period_matches_opportunities() {
        // gaps.mahimahi: 0, 3, 3, 3, 10, 10 → ms 1 (timestamp 0), ms 3 (three), ms 10 (two); 6 in all.
        let mut channel = load("gaps.mahimahi", TraceFormat::Mahimahi, true).unwrap();
        let steps = drive(&mut channel, &mut Rng::for_component(1, "t"), 100);
        let period = Duration::from_millis(10);
        let bits: u64 = steps
            .iter()
            .take_while(|(t, _)| t.0 < period.as_picos())
            .map(|(t, s)| {
                let end = s.next_change.unwrap().min(SimTime::ZERO + period);
                (end - *t).bits_at(s.rate_bps)
            })
            .sum();
        assert_eq!(bits, 6 * OPPORTUNITY_BITS);
        assert_eq!(
            steps_ms(&mut load("gaps.mahimahi", TraceFormat::Mahimahi, true).unwrap(), 5)[..4],
            [(0, 12), (1, 0), (2, 36), (3, 0)]
        );
    }

    #[test]
    fn test_single_rate_trace_is_constant_even_when_repeating() {
        let mut channel = load("flat.csv", TraceFormat::Csv, true).unwrap();
        assert_eq!(steps_ms(&mut channel, 5), vec![(0, 300)]);
    }

    /// Loads a malformed fixture and returns the error's (file, field, message).
    fn error_of(file: &str, format: TraceFormat, repeat: bool) -> (String, String, String) {
        let err = load(file, format, repeat).unwrap_err();
        assert!(!err.to_string().contains('\n'));
        (err.file, err.field, err.message)
    }

    #[test]
    fn test_malformed_csv_names_trace_file_and_line() {
        for (file, line, needle) in [
            ("bad_rate.csv", "line 3", "\"fast\" is not a rate"),
            ("negative_rate.csv", "line 2", "-5 is negative"),
            ("decreasing.csv", "line 4", "time 1s is not after the previous row's 2s"),
            ("late_start.csv", "line 1", "must be at time 0"),
            ("three_fields.csv", "line 2", "expected two fields"),
            ("loop_mismatch.csv", "line 3", "must equal the first row's 100Mbps (found 0bps)"),
        ] {
            let repeat = file == "loop_mismatch.csv";
            let (f, field, message) = error_of(file, TraceFormat::Csv, repeat);
            assert!(f.ends_with(&format!("tests/data/traces/{file}")), "the resolved trace path: {f}");
            assert_eq!(field, line, "{message}");
            assert!(message.contains(needle), "{file}: {message}");
            assert!(message.ends_with("(trace of link[1].channel.file in scenarios/x.toml)"), "{message}");
        }
    }

    #[test]
    fn test_empty_traces_are_whole_file_errors() {
        for (file, format) in [
            ("empty.csv", TraceFormat::Csv),
            ("header_only.csv", TraceFormat::Csv),
            ("empty.csv", TraceFormat::Mahimahi),
        ] {
            let (f, field, message) = error_of(file, format, false);
            assert!(f.ends_with(&format!("tests/data/traces/{file}")), "the resolved trace path: {f}");
            assert_eq!(field, "");
            assert!(message.contains("has no"), "{message}");
        }
    }

    #[test]
    fn test_malformed_mahimahi_names_trace_file_and_line() {
        for (file, line, needle) in [
            ("decreasing.mahimahi", "line 3", "timestamp 2 is before the previous one (5)"),
            ("fractional.mahimahi", "line 2", "not a whole number of milliseconds"),
            ("zero.mahimahi", "line 2", "must be greater than 0"),
        ] {
            let (f, field, message) = error_of(file, TraceFormat::Mahimahi, true);
            assert!(f.ends_with(&format!("tests/data/traces/{file}")), "the resolved trace path: {f}");
            assert_eq!(field, line, "{message}");
            assert!(message.contains(needle), "{file}: {message}");
        }
    }

    #[test]
    fn test_missing_file_is_an_error_of_the_scenario_field() {
        let err = load("no_such_trace.csv", TraceFormat::Csv, false).unwrap_err();
        assert_eq!((err.file.as_str(), err.field.as_str()), ("scenarios/x.toml", "link[1].channel.file"));
        assert!(
            err.message.contains("cannot read trace") && err.message.contains("no_such_trace.csv"),
            "{}",
            err.message
        );
    }

    #[test]
    fn test_bare_numbers_and_quantities() {
        assert_eq!(parse_time("0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_time("1.5e-3"), Ok(Duration::from_micros(1500)));
        assert_eq!(parse_time("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_rate("1000000000"), Ok(1_000_000_000));
        assert_eq!(parse_rate("1.000000000000000000e+09"), Ok(1_000_000_000));
        assert_eq!(parse_rate("1Gbps"), Ok(1_000_000_000));
        assert!(parse_rate("-1Gbps").is_err());
        assert!(parse_rate("1e999").unwrap_err().contains("not a rate"));
        assert!(parse_time("-0.5").unwrap_err().contains("negative"));
    }
}
