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
//! Serves Drago et al., whose 60 GHz link replays rates derived from measured traces,
//! and replays of recorded mmWave or cellular links in general.

use super::{ChannelProcess, ChannelStep};
use crate::error::InputContext;
use crate::error::InputError;
use crate::input_file::{read_text, MAX_TRACE_BYTES};
use crate::sim::{Duration, Rng, SimTime};
use crate::trace_file::{
    data_lines, parse_number_or_quantity, parse_rows, parse_steps, read_trace, Steps, TraceFileErrors,
    ValueColumn,
};
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
    pub fn infer(file: &str) -> TraceFormat {
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
    /// Where in the trace the run starts (default: its beginning).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<TraceOffset>,
}

/// `offset`: the trace time the run's time 0 replays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceOffset {
    /// This far into the trace (wrapped by the period of a repeating trace).
    At(Time),
    /// `"random"`: a fraction u of the period, u uniform and drawn once per run from the master
    /// seed (stream `trace/offset`), the same u for every trace channel of the run, so that traces
    /// recorded together (COTAG's two access points) stay aligned. Needs `repeat = true`.
    Random,
}

impl Serialize for TraceOffset {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TraceOffset::At(t) => t.serialize(s),
            TraceOffset::Random => s.serialize_str("random"),
        }
    }
}

impl<'de> Deserialize<'de> for TraceOffset {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text == "random" {
            return Ok(TraceOffset::Random);
        }
        Time::parse(&text)
            .map(TraceOffset::At)
            .map_err(|e| serde::de::Error::custom(format!("{e}, or \"random\"")))
    }
}

/// A `trace` table as written, before its defaults (which depend on `file`) are filled in.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTraceConfig {
    file: String,
    format: Option<TraceFormat>,
    repeat: Option<bool>,
    offset: Option<TraceOffset>,
}

impl From<RawTraceConfig> for TraceConfig {
    fn from(raw: RawTraceConfig) -> TraceConfig {
        let format = raw.format.unwrap_or_else(|| TraceFormat::infer(&raw.file));
        let repeat = raw.repeat.unwrap_or(format == TraceFormat::Mahimahi);
        TraceConfig { file: raw.file, format, repeat, offset: raw.offset }
    }
}

/// Bits of one mahimahi delivery opportunity: 1500 bytes, an Ethernet MTU.
const OPPORTUNITY_BITS: u64 = 1500 * 8;
/// Picoseconds in a millisecond.
const PS_PER_MS: u64 = 1_000_000_000;

/// The process of a [`TraceConfig`].
#[derive(Clone, Debug)]
pub struct TraceChannel {
    /// Rates in bit/s over one period (see [`Steps`]).
    steps: Steps<u64>,
    /// The trace time replayed at the run's time 0.
    offset: Duration,
    /// Whether the offset is still to be drawn (`offset = "random"`).
    random_offset: bool,
    started: bool,
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

fn show_rate(rate: u64) -> String {
    Rate(rate).to_string()
}

/// The value column of a csv trace.
const RATE_COLUMN: ValueColumn<'static, u64> =
    ValueColumn { name: "rate", example: "0,1Gbps", parse: &parse_rate, show: &show_rate };

/// The steps of a csv trace.
fn parse_csv(text: &str, repeat: bool, errors: &TraceFileErrors) -> Result<Steps<u64>, InputError> {
    parse_steps(text, repeat, errors, &RATE_COLUMN)
}

/// Steps and period of a mahimahi trace, binned per millisecond (see the module header).
fn parse_mahimahi(text: &str, repeat: bool, errors: &TraceFileErrors) -> Result<Steps<u64>, InputError> {
    let mut steps = Vec::new();
    let mut filled_ms = 0; // milliseconds [0, filled_ms) have their steps
    let mut flush = |steps: &mut Vec<(Duration, u64)>, bin_ms: u64, opportunities: u64| {
        if bin_ms > filled_ms {
            steps.push((Duration::from_millis(filled_ms), 0));
        }
        steps.push((Duration::from_millis(bin_ms), opportunities * OPPORTUNITY_BITS * 1000));
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
    let mut replay = Steps::new(repeat.then_some(Duration::from_millis(period_ms)));
    for (at, rate) in steps {
        replay.push(at, rate);
    }
    Ok(replay)
}

impl TraceChannel {
    /// Reads and parses the trace of `config`; relative paths resolve against `ctx.base_dir`.
    pub fn load(config: &TraceConfig, ctx: &InputContext) -> Result<TraceChannel, InputError> {
        let (text, errors) = read_trace(ctx, "file", &config.file)?;
        let steps = match config.format {
            TraceFormat::Csv => parse_csv(&text, config.repeat, &errors)?,
            TraceFormat::Mahimahi => parse_mahimahi(&text, config.repeat, &errors)?,
        };
        let (offset, random_offset) = match config.offset {
            None => (Duration::ZERO, false),
            Some(TraceOffset::At(t)) => (t.0, false),
            Some(TraceOffset::Random) if !config.repeat => {
                return Err(ctx.error("offset", "\"random\" needs a repeating trace (repeat = true)"));
            }
            Some(TraceOffset::Random) => (Duration::ZERO, true),
        };
        Ok(TraceChannel { steps, offset, random_offset, started: false })
    }

    /// Whether the offset waits for [`Self::draw_offset`] (`offset = "random"`).
    pub fn needs_random_offset(&self) -> bool {
        self.random_offset
    }

    /// Sets a random offset to the fraction `u` ∈ [0, 1) of the trace's period.
    pub fn draw_offset(&mut self, u: f64) {
        let period = self.steps.period().expect("a random offset needs a repeating trace");
        self.offset = Duration((u * period.as_picos() as f64) as u64);
        self.random_offset = false;
    }
}

/// A rate trace read whole for analysis rather than replayed (`mmtcp fit-markov`): one pass as
/// steps, and where the pass ends. A csv trace ends at its last row's time — the row that ends
/// the period under `repeat = true`; its rate is not part of the pass — so it needs two rows. A
/// mahimahi trace ends at its period, the last timestamp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateTrace {
    /// (offset from the start, bit/s) of each step: the first at 0, offsets increasing.
    pub steps: Vec<(Duration, u64)>,
    /// Where the pass ends, after the last step's offset.
    pub end: Duration,
}

impl RateTrace {
    /// Reads `path` in `format` (`None`: from the file name, as a `trace` channel does).
    /// `origin` says what the trace is for; line errors end with it in parentheses.
    pub fn read(path: &Path, format: Option<TraceFormat>, origin: &str) -> Result<RateTrace, InputError> {
        let file = path.display().to_string();
        let text = read_text(path, MAX_TRACE_BYTES)
            .map_err(|e| InputError::new(&file, "", format!("cannot read the trace: {e} ({origin})")))?;
        let format = format.unwrap_or_else(|| TraceFormat::infer(&file));
        let errors = TraceFileErrors { file, origin: origin.to_string() };
        match format {
            TraceFormat::Csv => {
                let mut rows = parse_rows(&text, &errors, &RATE_COLUMN)?;
                let (line, end, _) = rows.pop().expect("parse_rows returns at least one row");
                if rows.is_empty() {
                    return Err(errors.at_line(
                        line,
                        "the last row's time is where the trace ends, so it needs at least two rows",
                    ));
                }
                Ok(RateTrace { steps: rows.into_iter().map(|(_, at, rate)| (at, rate)).collect(), end })
            }
            TraceFormat::Mahimahi => {
                let (steps, period) = parse_mahimahi(&text, true, &errors)?.into_parts();
                Ok(RateTrace { steps, end: period.expect("a repeating mahimahi trace has a period") })
            }
        }
    }
}

impl ChannelProcess for TraceChannel {
    fn step(&mut self, now: SimTime, _rng: &mut Rng) -> ChannelStep {
        debug_assert!(!self.random_offset, "the random offset is drawn when the scenario is built");
        let trace_now = now + self.offset;
        let (rate_bps, next_change) = if self.started {
            self.steps.next(trace_now)
        } else {
            self.started = true;
            self.steps.first_at(trace_now)
        };
        ChannelStep { rate_bps, next_change: next_change.map(|t| SimTime(t.0 - self.offset.as_picos())) }
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
        load_from(file, format, repeat, None)
    }

    fn load_from(
        file: &str,
        format: TraceFormat,
        repeat: bool,
        offset: Option<TraceOffset>,
    ) -> Result<TraceChannel, InputError> {
        let base_dir = fixtures();
        let ctx =
            InputContext { scenario_file: "scenarios/x.toml", field: "link[1].channel", base_dir: &base_dir };
        TraceChannel::load(&TraceConfig { file: file.into(), format, repeat, offset }, &ctx)
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
        let expect =
            |file: &str, format, repeat| TraceConfig { file: file.into(), format, repeat, offset: None };
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
    fn test_offset_starts_the_replay_inside_a_step_and_wraps() {
        // loop.csv: 0 → 100, 1 s → 0, 1.5 s → 200, period 2 s. From 1.2 s: 0 for 0.3 s, then 200
        // until the wrap at 0.8 s, 100 for a second, 0 again at 1.8 s.
        let at = |ms| Some(TraceOffset::At(Time(Duration::from_millis(ms))));
        let mut channel = load_from("loop.csv", TraceFormat::Csv, true, at(1200)).unwrap();
        assert_eq!(steps_ms(&mut channel, 5), vec![(0, 0), (300, 200), (800, 100), (1800, 0), (2300, 200)]);
        // A whole period further is the same replay.
        let mut later = load_from("loop.csv", TraceFormat::Csv, true, at(3200)).unwrap();
        assert_eq!(
            steps_ms(&mut later, 5),
            steps_ms(&mut load_from("loop.csv", TraceFormat::Csv, true, at(1200)).unwrap(), 5)
        );
        // Without repeat, past the last row the last rate holds.
        let mut once = load_from("loop.csv", TraceFormat::Csv, false, at(5000)).unwrap();
        assert_eq!(steps_ms(&mut once, 5), vec![(0, 100)]);
    }

    #[test]
    fn test_random_offset_is_a_fraction_of_the_period_and_needs_repeat() {
        let mut channel = load_from("loop.csv", TraceFormat::Csv, true, Some(TraceOffset::Random)).unwrap();
        assert!(channel.needs_random_offset());
        channel.draw_offset(0.6);
        assert!(!channel.needs_random_offset());
        // 0.6 of the 2 s period: 1.2 s, as in the test above.
        assert_eq!(steps_ms(&mut channel, 2), vec![(0, 0), (300, 200)]);
        let e = load_from("loop.csv", TraceFormat::Csv, false, Some(TraceOffset::Random)).unwrap_err();
        assert_eq!(e.field, "link[1].channel.offset");
        assert!(e.message.contains("repeat = true"), "{e}");
        let config = |text: &str| toml::from_str::<TraceConfig>(text);
        assert_eq!(
            config("file = \"a.csv\"\noffset = \"random\"").unwrap().offset,
            Some(TraceOffset::Random)
        );
        let e = config("file = \"a.csv\"\noffset = \"soon\"").unwrap_err().to_string();
        assert!(e.contains("\"random\""), "{e}");
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
    fn test_rate_trace_read_whole_ends_at_the_last_row_or_the_period() {
        let read = |file: &str, format| RateTrace::read(&fixtures().join(file), format, "trace of link 1");
        let ms = Duration::from_millis;
        // loop.csv: 0 → 100 Mbit/s, 1 s → 0, 1.5 s → 200 Mbit/s, last row 2 s.
        let csv = read("loop.csv", None).unwrap();
        assert_eq!(csv.steps, vec![(ms(0), 100 * MBPS), (ms(1000), 0), (ms(1500), 200 * MBPS)]);
        assert_eq!(csv.end, ms(2000));
        // steps.csv ends at its last row, 2.5 s; flat.csv's equal rows make one step.
        assert_eq!(read("steps.csv", Some(TraceFormat::Csv)).unwrap().end, ms(2500));
        let flat = read("flat.csv", None).unwrap();
        assert_eq!((flat.steps, flat.end), (vec![(ms(0), 300 * MBPS)], ms(5000)));
        let mahimahi = read("tiny.mahimahi", None).unwrap();
        assert_eq!(
            mahimahi.steps,
            vec![(ms(0), 24 * MBPS), (ms(1), 12 * MBPS), (ms(2), 0), (ms(3), 12 * MBPS)]
        );
        assert_eq!(mahimahi.end, ms(4));
        for (file, field, needle) in [
            ("single_row.csv", "line 2", "needs at least two rows"),
            ("bad_rate.csv", "line 3", "\"fast\" is not a rate"),
            ("empty.csv", "", "has no rows"),
            ("no_such_trace.csv", "", "cannot read the trace"),
        ] {
            let err = read(file, None).unwrap_err();
            assert!(err.file.ends_with(file), "{err}");
            assert_eq!(err.field, field, "{err}");
            assert!(err.message.contains(needle) && err.message.ends_with("(trace of link 1)"), "{err}");
        }
    }

    #[test]
    fn test_bare_numbers_and_quantities() {
        assert_eq!(parse_rate("1000000000"), Ok(1_000_000_000));
        assert_eq!(parse_rate("1.000000000000000000e+09"), Ok(1_000_000_000));
        assert_eq!(parse_rate("1Gbps"), Ok(1_000_000_000));
        assert!(parse_rate("-1Gbps").is_err());
        assert!(parse_rate("1e999").unwrap_err().contains("not a rate"));
    }
}
