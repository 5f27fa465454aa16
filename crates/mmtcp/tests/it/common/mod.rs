//! Helpers shared by the scenario tests: run a TOML scenario held in a string.
#![allow(dead_code)] // each test crate uses a different subset

use mmtcp::api::{run, RunOptions, ScenarioSource, Table, Values};
use mmtcp::world::World;
use serde_json::Value;
use std::path::PathBuf;

/// A scenario held in a string, with `tests/data` as its folder (for trace files).
pub fn source(text: &str) -> ScenarioSource {
    ScenarioSource::Toml {
        text: text.to_string(),
        name: "<test>".into(),
        base_dir: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data"),
    }
}

/// The world a scenario builds (seed 1), for tests that add components or look inside.
pub fn world(text: &str) -> World {
    let loaded = mmtcp::scenario::load(&source(text), &RunOptions::default()).unwrap();
    mmtcp::scenario::build::build(&loaded.scenario, &loaded.file, &loaded.base_dir, 1).unwrap()
}

/// What a run produced, its summary parsed for indexing.
pub struct Ran {
    pub summary: Value,
    /// The wide view of the time series (`time_s`, then `flow.<name>.<metric>`, ...).
    pub columns: Vec<Column>,
    pub tables: Vec<Table>,
    pub resolved: String,
}

/// A column of the wide time series.
pub struct Column {
    pub name: String,
    pub values: Vec<f64>,
}

fn f64s(table: &Table, name: &str) -> Vec<f64> {
    match &table.column(name).unwrap_or_else(|| panic!("{}: no column {name}", table.name)).values {
        Values::F64(v) => v.clone(),
        other => panic!("{}.{name} is not f64: {other:?}", table.name),
    }
}

/// The first `rows` values of a text column.
fn texts(table: &Table, name: &str, rows: usize) -> Vec<String> {
    match &table.column(name).unwrap_or_else(|| panic!("{}: no column {name}", table.name)).values {
        Values::Text { dictionary, codes } => {
            codes[..rows].iter().map(|&c| dictionary[c as usize].clone()).collect()
        }
        other => panic!("{}.{name} is not text: {other:?}", table.name),
    }
}

/// The wide time series of a run's long-form tables, as `python/mmtcp/tables.py` builds it: per
/// entity of `flows`, `links` and `proxies` (in that order), a column per metric that applies to
/// it (its rows are not null).
pub fn wide_columns(tables: &[Table]) -> Vec<Column> {
    let series: Vec<&Table> =
        ["flows", "links", "proxies"].iter().map(|n| tables.iter().find(|t| t.name == *n).unwrap()).collect();
    let mut out = Vec::new();
    let mut samples = 0;
    for t in &series {
        if t.rows > 0 {
            let time = f64s(t, "time_s");
            let entities = time.iter().take_while(|&&x| x == time[0]).count();
            samples = t.rows / entities;
            out.push(Column {
                name: "time_s".into(),
                values: time.iter().step_by(entities).copied().collect(),
            });
            break;
        }
    }
    for t in series {
        if t.rows == 0 {
            continue;
        }
        let entities = t.rows / samples;
        let (first, second) = match t.name.as_str() {
            "flows" => ("flow", "subflow"),
            "links" => ("link", "direction"),
            _ => ("processor", "metric"),
        };
        let names = texts(t, first, entities);
        let seconds = if t.name == "flows" { Vec::new() } else { texts(t, second, entities) };
        let metrics: Vec<_> =
            t.columns.iter().filter(|c| !["time_s", first, second].contains(&c.name.as_str())).collect();
        for e in 0..entities {
            let prefix = match t.name.as_str() {
                "flows" => {
                    let sub = t.column("subflow").unwrap();
                    match (&sub.values, sub.is_valid(e)) {
                        (Values::I64(k), true) => format!("flow.{}.sf{}", names[e], k[e]),
                        _ => format!("flow.{}", names[e]),
                    }
                }
                "links" => format!("link.{}.{}", names[e], seconds[e]),
                _ => format!("proxy.{}", names[e]),
            };
            for m in metrics.iter().filter(|m| m.is_valid(e)) {
                let Values::F64(v) = &m.values else { panic!("metrics are f64") };
                let label = if t.name == "proxies" { seconds[e].clone() } else { m.name.clone() };
                let values = (0..samples).map(|s| v[s * entities + e]).collect();
                out.push(Column { name: format!("{prefix}.{label}"), values });
            }
        }
    }
    out
}

impl Ran {
    /// The time-series column `name`; panics naming the columns there are if it is missing.
    pub fn column(&self, name: &str) -> &[f64] {
        match self.columns.iter().find(|c| c.name == name) {
            Some(c) => &c.values,
            None => panic!(
                "no column {name}; have {:?}",
                self.columns.iter().map(|c| &c.name).collect::<Vec<_>>()
            ),
        }
    }
}

pub fn run_toml(text: &str) -> Ran {
    run_toml_with(text, &[])
}

pub fn run_toml_with(text: &str, overrides: &[(&str, &str)]) -> Ran {
    let source = source(text);
    let options = RunOptions {
        seed: None,
        overrides: overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    let out = run(&source, &options, &mut |_| true).unwrap_or_else(|e| panic!("scenario failed: {e}"));
    let summary = serde_json::from_str(&out.summary_json).expect("the summary is JSON");
    let resolved = out.resolved.expect("a test scenario lists its flows and links");
    Ran { summary, columns: wide_columns(&out.tables), tables: out.tables, resolved }
}

/// The first flow's entry in the summary.
pub fn flow(out: &Ran) -> &Value {
    &out.summary["flows"][0]
}

pub fn f64_of(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// One path of [`two_path_connection`]: the access link's rate and one-way delay, and the
/// router's link to the server.
pub struct PathSpec<'a> {
    pub rate: &'a str,
    pub delay: &'a str,
    pub core_rate: &'a str,
}

/// An MP-TCP flow `mp` from `ue` to `server` over two disjoint paths (`ue`–`r0`–`server` and
/// `ue`–`r1`–`server`, the router's link 1 ms), `app` writing, `transport` keys added after the
/// subflows, for `duration`.
pub fn two_path_connection(duration: &str, paths: [PathSpec; 2], transport: &str, app: &str) -> String {
    let [p0, p1] = paths;
    format!(
        r#"
[simulation]
duration = "{duration}"
[[node]]
name = "ue"
[[node]]
name = "r0"
[[node]]
name = "r1"
[[node]]
name = "server"
[[link]]
between = ["ue", "r0"]
rate = "{}"
delay = "{}"
[[link]]
between = ["r0", "server"]
rate = "{}"
delay = "1ms"
[[link]]
between = ["ue", "r1"]
rate = "{}"
delay = "{}"
[[link]]
between = ["r1", "server"]
rate = "{}"
delay = "1ms"
[[flow]]
name = "mp"
from = "ue"
to = "server"
app = {app}
transport = {{ kind = "mptcp", subflows = [{{ path = ["ue", "r0", "server"] }}, {{ path = ["ue", "r1", "server"] }}]{transport} }}
"#,
        p0.rate, p0.delay, p0.core_rate, p1.rate, p1.delay, p1.core_rate
    )
}
