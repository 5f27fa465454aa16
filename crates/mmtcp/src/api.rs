//! The library's front door: load a scenario, run it, get a summary and time series back.
//! The Python glue (`crates/mmtcp-python`) calls only what is here.

pub use crate::channel::RateTrace;
use crate::channel::TraceFormat;
use crate::error::InputError;
pub use crate::metrics::{Table, TableColumn, Values};
pub use crate::radio::ieee80211ad::DualApTraces;
use crate::report;
use crate::scenario;
pub use crate::scenario::{RunOptions, ScenarioSource};
use crate::sim::SimTime;
use crate::units::Time;
use crate::world::Stop;
use std::path::Path;
use std::time::Instant;

/// Progress of a run, reported to the caller's callback about ten times a wall-second.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub sim_time: SimTime,
    pub stop_time: SimTime,
    pub events: u64,
    pub wall_seconds: f64,
}

/// What a run produces.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// `summary.json`'s content, as JSON text.
    pub summary_json: String,
    /// The per-entity tables (docs/metrics.md): the long-form time series `flows`, `links` and
    /// `proxies`, then the summaries `flow_summary`, `link_summary` and `flow_drops`.
    pub tables: Vec<Table>,
    /// The scenario as run, every default filled in, as TOML (see [`validate`]); `None` for a
    /// scenario with more flows or links than `metrics.summary_entries` (ask [`validate`]).
    pub resolved: Option<String>,
}

/// Why a run did not finish.
#[derive(Debug)]
pub enum RunError {
    /// The scenario, a trace or an override is wrong (exit code 2).
    Input(InputError),
    /// The progress callback asked to stop (for example on Ctrl-C).
    Interrupted,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Input(e) => e.fmt(f),
            RunError::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<InputError> for RunError {
    fn from(e: InputError) -> Self {
        RunError::Input(e)
    }
}

/// Result of the engine micro-benchmark.
#[derive(Clone, Copy, Debug)]
pub struct EngineBench {
    pub events: u64,
    pub wall_seconds: f64,
    pub events_per_second: f64,
}

/// Loads, overrides and validates a scenario; returns the resolved scenario (every default
/// filled in, trace paths absolute so that the text runs from any folder) as TOML text.
pub fn validate(source: &ScenarioSource, options: &RunOptions) -> Result<String, InputError> {
    let loaded = scenario::load(source, options)?;
    // Building checks what only construction can: trace files, routes between flow endpoints.
    scenario::build::build(
        &loaded.scenario,
        &loaded.file,
        &loaded.base_dir,
        loaded.scenario.simulation.seed,
    )?;
    Ok(resolved_toml(&loaded))
}

fn resolved_toml(loaded: &scenario::Loaded) -> String {
    toml::to_string_pretty(&loaded.scenario.with_absolute_trace_paths(&loaded.base_dir))
        .expect("a scenario always serialises to TOML")
}

/// Runs a scenario to its stop time. `progress` is called about ten times a wall-second; when it
/// returns `false` the run stops with [`RunError::Interrupted`].
pub fn run(
    source: &ScenarioSource,
    options: &RunOptions,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<RunOutput, RunError> {
    let setup = Instant::now();
    let loaded = scenario::load(source, options)?;
    let seed = loaded.scenario.simulation.seed;
    let mut world = scenario::build::build(&loaded.scenario, &loaded.file, &loaded.base_dir, seed)?;
    let setup_seconds = setup.elapsed().as_secs_f64();
    let stop_time = world.stop_time();
    let wall = Instant::now();
    let stop = world.run(&mut |sim_time, events| {
        progress(&Progress { sim_time, stop_time, events, wall_seconds: wall.elapsed().as_secs_f64() })
    });
    let wall_seconds = wall.elapsed().as_secs_f64();
    if stop == Stop::Interrupted {
        return Err(RunError::Interrupted);
    }
    let report = report::report(&world, &loaded, stop, (setup_seconds, wall_seconds));
    let mut tables = world.take_series();
    tables.extend(report.tables);
    let resolved = report.lists_entities.then(|| resolved_toml(&loaded));
    Ok(RunOutput { summary_json: report.summary_json, tables, resolved })
}

/// The bare event engine with a realistic mix of timer and packet events: `events` events.
pub fn bench_engine(events: u64) -> EngineBench {
    let (events, wall_seconds) = crate::bench::run_engine(events);
    EngineBench {
        events,
        wall_seconds,
        events_per_second: if wall_seconds > 0.0 { events as f64 / wall_seconds } else { 0.0 },
    }
}

/// Drago et al.'s synthetic 802.11ad received-power trace (one period of the blocker's walk) as CSV
/// `time,tx_deg,rx_deg,power_dbm`, the format `{ kind = "ieee80211ad", source = { kind =
/// "trace" } }` reads. `config_toml` holds the keys of the synthetic source (`scenario = "a"` or
/// `"b"`, and any of its other keys); `name` stands for it in error messages.
pub fn ieee80211ad_trace(config_toml: &str, name: &str) -> Result<String, InputError> {
    use crate::radio::ieee80211ad::{SyntheticChannel, SyntheticConfig};
    let doc = scenario::load::parse_toml(config_toml, name)?;
    let config: SyntheticConfig = scenario::load::deserialize_as(&doc, name)?;
    let ctx =
        crate::error::InputContext { scenario_file: name, field: "", base_dir: std::path::Path::new(".") };
    Ok(SyntheticChannel::new(&config, &ctx)?.to_csv())
}

/// The stand-in for Wu et al.'s measured 802.11ad links (docs/models/ieee80211ad.md): the rate
/// traces of two APs serving a user who walks between them. `config_toml` holds any of the
/// generator's keys (`duration = "60s"`, `mean_total_rate = "none"`, ...); `name` stands for it
/// in error messages.
pub fn ieee80211ad_dual_trace(config_toml: &str, name: &str) -> Result<DualApTraces, InputError> {
    use crate::radio::ieee80211ad::{generate_dual_ap, DualApConfig};
    let doc = scenario::load::parse_toml(config_toml, name)?;
    let config: DualApConfig = scenario::load::deserialize_as(&doc, name)?;
    let ctx =
        crate::error::InputContext { scenario_file: name, field: "", base_dir: std::path::Path::new(".") };
    generate_dual_ap(&config, &ctx)
}

/// A rate trace read whole, in the syntax a `trace` channel reads (csv or mahimahi), for
/// `mmtcp fit-markov`: its steps and where it ends ([`RateTrace`]). `format` is `"csv"`,
/// `"mahimahi"` or `None` (from the file name); `origin` ends every line error, in parentheses.
pub fn rate_trace(path: &Path, format: Option<&str>, origin: &str) -> Result<RateTrace, InputError> {
    let format = match format {
        None => None,
        Some("csv") => Some(TraceFormat::Csv),
        Some("mahimahi") => Some(TraceFormat::Mahimahi),
        Some(other) => {
            return Err(InputError::new(
                path.display().to_string(),
                "",
                format!("trace format \"{other}\" is not \"csv\" or \"mahimahi\" ({origin})"),
            ))
        }
    };
    RateTrace::read(path, format, origin)
}

/// A time as the scenario reads it (`"100ms"`), in picoseconds.
pub fn time_ps(text: &str) -> Result<u64, String> {
    Time::parse(text).map(|t| t.0.as_picos())
}
