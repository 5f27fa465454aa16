//! Traces of measured received powers per beam pair, the form of Drago et al.'s measurements (§IV),
//! `source = { kind = "trace", file }`: long csv format, one row per measured pair,
//! `time,tx_deg,rx_deg,power_dbm`; rows of one time are contiguous, times are non-decreasing and
//! start at 0; a time is bare seconds or a time with a unit, a power is dBm or `-inf`; pairs not
//! listed at a time are not received. Optional header, `#` comments (the line syntax of
//! `crate::trace_file`). With `repeat = true` the last time is the period and its best power must
//! equal the first time's (as for rate traces). Of each time only the best pair is kept.

use crate::error::InputError;
use crate::sim::Duration;
use crate::trace_file::{data_lines, is_header, parse_db, parse_time, TraceFileErrors};
use crate::units::Time;

/// The best pair of one time of a trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct TraceStep {
    pub(super) at: Duration,
    pub(super) best_dbm: f64,
    pub(super) best_pair: Option<(f64, f64)>,
}

/// Steps (best power per time, equal neighbours merged) and period of a beam-pair trace.
pub(super) fn parse_beam_trace(
    text: &str,
    repeat: bool,
    errors: &TraceFileErrors,
) -> Result<(Vec<TraceStep>, Option<Duration>), InputError> {
    /// The rows of one time: its first line, its best pair, the pairs seen.
    type Group = (usize, TraceStep, Vec<(f64, f64)>);
    let mut groups: Vec<Group> = Vec::new();
    for (index, (line, content)) in data_lines(text).enumerate() {
        let fields: Vec<&str> = content.split(',').map(str::trim).collect();
        if index == 0 && is_header(&fields) {
            continue;
        }
        let [time, tx, rx, power] = fields[..] else {
            return Err(errors.at_line(
                line,
                format!("expected four fields `time,tx_deg,rx_deg,power_dbm`, found {}", fields.len()),
            ));
        };
        let time = parse_time(time).map_err(|m| errors.at_line(line, m))?;
        let angle = |text: &str, what: &str| match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(errors.at_line(line, format!("\"{text}\" is not {what}; expected a number of degrees"))),
        };
        let pair = (angle(tx, "a TX angle")?, angle(rx, "an RX angle")?);
        let power = parse_db(power, "a power").map_err(|m| errors.at_line(line, m))?;
        let new_group = match groups.last() {
            None if time != Duration::ZERO => return Err(errors.not_at_zero(line, time)),
            None => true,
            Some((_, step, _)) if time < step.at => {
                return Err(errors.at_line(
                    line,
                    format!(
                        "time {} is before the previous row's {}; times must be non-decreasing, the rows of one \
                         time together",
                        Time(time),
                        Time(step.at)
                    ),
                ));
            }
            Some((_, step, _)) => time > step.at,
        };
        if new_group {
            let step = TraceStep { at: time, best_dbm: f64::NEG_INFINITY, best_pair: None };
            groups.push((line, step, Vec::new()));
        }
        let (_, step, seen) = groups.last_mut().expect("a group was just ensured");
        if seen.contains(&pair) {
            return Err(errors.at_line(
                line,
                format!("pair ({}°, {}°) appears twice at time {}", pair.0, pair.1, Time(time)),
            ));
        }
        seen.push(pair);
        if power > step.best_dbm {
            step.best_dbm = power;
            step.best_pair = Some(pair);
        }
    }
    if groups.is_empty() {
        return Err(errors.whole_file(
            "the trace has no rows; expected lines `time,tx_deg,rx_deg,power_dbm`, e.g. `0,-10,0,-60.5`",
        ));
    }
    let period = if repeat {
        let (line, last, _) = groups.pop().expect("groups is not empty");
        let Some((_, first, _)) = groups.first() else {
            return Err(errors.at_line(
                line,
                "with repeat = true the last time is the period, so the trace needs at least two times",
            ));
        };
        if last.best_dbm != first.best_dbm {
            return Err(errors.at_line(
                line,
                format!(
                    "with repeat = true the last time ends the period and begins the next repetition, so its best \
                     power must equal the first time's {} dBm (found {} dBm); or set repeat = false",
                    first.best_dbm, last.best_dbm
                ),
            ));
        }
        Some(last.at)
    } else {
        None
    };
    let mut steps: Vec<TraceStep> = Vec::new();
    for (_, step, _) in groups {
        if steps.last().map(|s| s.best_dbm) != Some(step.best_dbm) {
            steps.push(step);
        }
    }
    Ok((steps, period))
}

#[cfg(test)]
mod tests {
    use super::super::channel::Ieee80211adChannel;
    use super::super::config::{BeamSource, BeamTraceConfig, Ieee80211adConfig};
    use super::super::power::thermal_noise_dbm;
    use super::super::test_support::ctx_in;
    use crate::radio::{SinrProcess, SinrStep};
    use crate::sim::{Duration, Rng, SimTime};
    use std::path::{Path, PathBuf};

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/radio")
    }

    #[test]
    fn test_trace_known_best_pairs() {
        // beams.csv: at 0 s pair (0,0) is best at −60 dBm; at 1 s (−10, 10) at −70 dBm; at 2 s the
        // same −70 dBm (merged); at 3 s nothing is received.
        let config = Ieee80211adConfig {
            source: BeamSource::Trace(BeamTraceConfig { file: "beams.csv".into(), repeat: false }),
            noise_figure_db: 0.0,
        };
        let base = fixtures();
        let mut channel = Ieee80211adChannel::new(&config, &ctx_in(&base)).unwrap();
        let noise = thermal_noise_dbm(500e6);
        let s = |ms| SimTime::ZERO + Duration::from_millis(ms);
        let mut rng = Rng::for_component(1, "c");
        let first = channel.step(s(0), &mut rng);
        assert_eq!(first, SinrStep { sinr_db: -60.0 - noise, next_change: Some(s(1000)) });
        assert_eq!(channel.best_pair(), Some((0.0, 0.0)));
        let second = channel.step(s(1000), &mut rng);
        assert_eq!(second, SinrStep { sinr_db: -70.0 - noise, next_change: Some(s(3000)) });
        assert_eq!(channel.best_pair(), Some((-10.0, 10.0)));
        let third = channel.step(s(3000), &mut rng);
        assert_eq!(third, SinrStep { sinr_db: f64::NEG_INFINITY, next_change: None });
        assert_eq!(channel.best_pair(), None);
    }

    #[test]
    fn test_malformed_beam_traces_name_file_and_line() {
        let base = fixtures();
        for (file, repeat, line, needle) in [
            ("beams_bad_power.csv", false, "line 3", "\"loud\" is not a power"),
            ("beams_bad_angle.csv", false, "line 2", "\"left\" is not a TX angle"),
            ("beams_decreasing.csv", false, "line 4", "time 500ms is before the previous row's 1s"),
            ("beams_duplicate.csv", false, "line 3", "pair (0°, 10°) appears twice"),
            ("beams_three_fields.csv", false, "line 2", "expected four fields"),
            ("beams.csv", true, "line 8", "must equal the first time's -60 dBm"),
        ] {
            let config = Ieee80211adConfig {
                source: BeamSource::Trace(BeamTraceConfig { file: file.into(), repeat }),
                noise_figure_db: 0.0,
            };
            let err = Ieee80211adChannel::new(&config, &ctx_in(&base)).unwrap_err();
            assert!(err.file.ends_with(&format!("tests/data/radio/{file}")), "{}", err.file);
            assert_eq!(err.field, line, "{file}: {}", err.message);
            assert!(err.message.contains(needle), "{file}: {}", err.message);
            assert!(err.message.ends_with("(trace of link[0].radio.channel.source.file in s.toml)"));
        }
    }
}
