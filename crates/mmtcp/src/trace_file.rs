//! Step-wise trace files: reading them, their line syntax, and replaying their steps.
//!
//! Shared by the rate traces (`channel::trace`), the SINR traces (`radio::sinr_trace`) and the
//! 802.11ad beam-pair traces (`radio::ieee80211ad`). Conventions: `#` starts a comment, blank
//! lines are skipped, the first data line is a header if its first field starts with a letter;
//! a time is a bare number of seconds (exact for plain decimals) or a time with a unit. Errors
//! name the trace file and line, and the scenario field that referenced the trace.

use crate::error::InputContext;
use crate::error::InputError;
use crate::input_file::{read_text, MAX_TRACE_BYTES};
use crate::sim::{Duration, SimTime};
use crate::units::Time;

/// Builds errors located in a trace file: `<file>: line N: <what> (<which scenario field>)`.
pub(crate) struct TraceFileErrors {
    /// The trace's path as the scenario's folder resolves it (usable from the current folder).
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

    /// The first data row, at line `line`, is at `time` instead of 0.
    pub(crate) fn not_at_zero(&self, line: usize, time: Duration) -> InputError {
        let message =
            format!("the first row is at {}; it must be at time 0, where the trace starts", Time(time));
        self.at_line(line, message)
    }
}

/// Reads the trace named by key `key` of the channel table (`file` resolved against
/// `ctx.base_dir`); returns its text and the error builder for its lines.
pub(crate) fn read_trace(
    ctx: &InputContext,
    key: &str,
    file: &str,
) -> Result<(String, TraceFileErrors), InputError> {
    let path = ctx.base_dir.join(file);
    let text = read_text(&path, MAX_TRACE_BYTES)
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

/// Reads a bare number in the unit `bare_unit` (exactly if it is a plain decimal, else as a
/// float through `from_f64`) or a quantity with a unit through `parse`.
pub(crate) fn parse_number_or_quantity<Q>(
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

/// A time: a bare number of seconds or a time with a unit (`250ms`).
pub(crate) fn parse_time(text: &str) -> Result<Duration, String> {
    parse_number_or_quantity(text, "a time", "s", |t| Time::parse(t).map(|t| t.0), Duration::from_secs_f64)
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

/// How to read the value column of a two-column `time,<value>` trace.
pub(crate) struct ValueColumn<'a, V> {
    /// Column name in messages: `rate`, `sinr_db`.
    pub(crate) name: &'a str,
    /// A valid first line, for the empty-trace message: `0,1Gbps`.
    pub(crate) example: &'a str,
    pub(crate) parse: &'a dyn Fn(&str) -> Result<V, String>,
    /// How a value is written in messages.
    pub(crate) show: &'a dyn Fn(V) -> String,
}

/// The rows `(line, time, value)` of a `time,<value>` trace: the first at time 0, times strictly
/// increasing, at least one row.
pub(crate) fn parse_rows<V: Copy>(
    text: &str,
    errors: &TraceFileErrors,
    column: &ValueColumn<V>,
) -> Result<Vec<(usize, Duration, V)>, InputError> {
    let mut rows: Vec<(usize, Duration, V)> = Vec::new();
    for (index, (line, content)) in data_lines(text).enumerate() {
        let fields: Vec<&str> = content.split(',').map(str::trim).collect();
        if index == 0 && is_header(&fields) {
            continue;
        }
        let [time, value] = fields[..] else {
            return Err(errors.at_line(
                line,
                format!("expected two fields `time,{}`, found {}", column.name, fields.len()),
            ));
        };
        let time = parse_time(time).map_err(|m| errors.at_line(line, m))?;
        let value = (column.parse)(value).map_err(|m| errors.at_line(line, m))?;
        match rows.last() {
            None if time != Duration::ZERO => return Err(errors.not_at_zero(line, time)),
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
            _ => rows.push((line, time, value)),
        }
    }
    if rows.is_empty() {
        return Err(errors.whole_file(format!(
            "the trace has no rows; expected lines `time,{}`, e.g. `{}`",
            column.name, column.example
        )));
    }
    Ok(rows)
}

/// Parses a step-wise `time,<value>` trace ([`parse_rows`]). With `repeat` the last row's time
/// is the period and its value must equal the first row's. Equal neighbouring values merge, so
/// the steps hold only changes.
pub(crate) fn parse_steps<V: Copy + PartialEq>(
    text: &str,
    repeat: bool,
    errors: &TraceFileErrors,
    column: &ValueColumn<V>,
) -> Result<Steps<V>, InputError> {
    let mut rows = parse_rows(text, errors, column)?;
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
                    "with repeat = true the last row ends the period and begins the next repetition, so its {} \
                     must equal the first row's {} (found {}); or set repeat = false",
                    column.name,
                    (column.show)(first),
                    (column.show)(last)
                ),
            ));
        }
        Some(period)
    } else {
        None
    };
    let mut steps = Steps::new(period);
    for (_, at, value) in rows {
        steps.push(at, value);
    }
    Ok(steps)
}

/// A piecewise-constant value replayed from a trace: offsets into one period with their values
/// (neighbours differ), optionally repeating, and where the replay has got to.
#[derive(Clone, Debug)]
pub(crate) struct Steps<V> {
    steps: Vec<(Duration, V)>,
    /// Some(P) when the steps repeat every P.
    period: Option<Duration>,
    /// The step that begins at the next call to `next`.
    next: usize,
    /// When the current repetition began.
    cycle_start: SimTime,
}

impl<V: Copy + PartialEq> Steps<V> {
    pub(crate) fn new(period: Option<Duration>) -> Steps<V> {
        Steps { steps: Vec::new(), period, next: 0, cycle_start: SimTime::ZERO }
    }

    /// Appends a step at offset `at` (after the previous one) unless it repeats its value.
    pub(crate) fn push(&mut self, at: Duration, value: V) {
        if self.steps.last().map(|s| s.1) != Some(value) {
            self.steps.push((at, value));
        }
    }

    /// The period of a repeating trace.
    pub(crate) fn period(&self) -> Option<Duration> {
        self.period
    }

    /// The steps of one period (offset, value; neighbours differ) and the period, if any.
    pub(crate) fn into_parts(self) -> (Vec<(Duration, V)>, Option<Duration>) {
        (self.steps, self.period)
    }

    /// Called at time zero and then at each announced change: the value from `now` on and when
    /// it next changes. A single value never changes, repeated or not.
    pub(crate) fn next(&mut self, now: SimTime) -> (V, Option<SimTime>) {
        debug_assert_eq!(now, self.cycle_start + self.steps[self.next].0, "trace stepped off its schedule");
        self.advance()
    }

    /// The first call, at any time `at` (not only a step's start): the value at `at` and when it
    /// next changes; later calls go to [`Self::next`] at each announced change.
    pub(crate) fn first_at(&mut self, at: SimTime) -> (V, Option<SimTime>) {
        let (cycle_start, within) = match self.period.filter(|p| *p > Duration::ZERO) {
            Some(period) => {
                let cycles = at.0 / period.as_picos();
                (SimTime(cycles * period.as_picos()), Duration(at.0 % period.as_picos()))
            }
            None => (SimTime::ZERO, Duration(at.0)),
        };
        self.cycle_start = cycle_start;
        self.next = self.steps.partition_point(|&(offset, _)| offset <= within).max(1) - 1;
        self.advance()
    }

    /// The value of the step at the cursor, and the start of the next step with another value.
    fn advance(&mut self) -> (V, Option<SimTime>) {
        let value = self.steps[self.next].1;
        // Neighbouring steps differ, so this finds a change within one repetition; only the wrap
        // from the last step to the first can repeat a value.
        loop {
            if self.next + 1 < self.steps.len() {
                self.next += 1;
            } else if let Some(period) = self.period.filter(|_| self.steps.len() > 1) {
                self.next = 0;
                self.cycle_start += period;
            } else {
                return (value, None);
            }
            if self.steps[self.next].1 != value {
                return (value, Some(self.cycle_start + self.steps[self.next].0));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_and_db_fields() {
        assert_eq!(parse_time("0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_time("1.5e-3"), Ok(Duration::from_micros(1500)));
        assert_eq!(parse_time("250ms"), Ok(Duration::from_millis(250)));
        assert!(parse_time("-0.5").unwrap_err().contains("negative"));
        assert_eq!(parse_db("-inf", "a SINR"), Ok(f64::NEG_INFINITY));
        assert_eq!(parse_db("OUTAGE", "a SINR"), Ok(f64::NEG_INFINITY));
        assert_eq!(parse_db("-7.25", "a SINR"), Ok(-7.25));
        assert!(parse_db("nan", "a SINR").is_err());
    }

    #[test]
    fn steps_merge_equal_neighbours_and_wrap_over_the_period() {
        let mut steps = Steps::new(Some(Duration::from_millis(30)));
        for (ms, v) in [(0, 1u64), (10, 1), (20, 2)] {
            steps.push(Duration::from_millis(ms), v);
        }
        let at = |ms| SimTime::ZERO + Duration::from_millis(ms);
        assert_eq!(steps.next(at(0)), (1, Some(at(20))));
        assert_eq!(steps.next(at(20)), (2, Some(at(30))));
        assert_eq!(steps.next(at(30)), (1, Some(at(50))));
        let mut single = Steps::new(Some(Duration::from_millis(30)));
        single.push(Duration::ZERO, 7u64);
        assert_eq!(single.next(at(0)), (7, None), "one value never changes, repeated or not");
    }
}
