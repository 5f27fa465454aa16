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
