//! Helpers shared by the scenario tests: run a TOML scenario held in a string.
#![allow(dead_code)] // each test crate uses a different subset

use mmtcp::api::{run, Column, RunOptions, ScenarioSource};
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
    pub columns: Vec<Column>,
    pub resolved: String,
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
    Ran { summary, columns: out.columns, resolved: out.resolved }
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
