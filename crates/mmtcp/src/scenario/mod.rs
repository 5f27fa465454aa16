//! Scenario files: schema, loading with overrides, validation, and building a `World`.

pub mod build;
pub mod load;
pub mod schema;

pub use schema::Scenario;

use crate::error::InputError;
use crate::input_file::{read_text, MAX_SCENARIO_BYTES};
use std::path::PathBuf;

/// Where a scenario comes from.
#[derive(Clone, Debug)]
pub enum ScenarioSource {
    /// A TOML file; trace paths in it are relative to its folder.
    File(PathBuf),
    /// TOML text; `name` stands for the file in error messages, `base_dir` resolves trace paths.
    Toml { text: String, name: String, base_dir: PathBuf },
    /// JSON text of the same structure (what Python sends for a dict).
    Json { text: String, name: String, base_dir: PathBuf },
}

/// How a run is asked for.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Replaces `simulation.seed` when given.
    pub seed: Option<u64>,
    /// `--set path=value` overrides, applied in order before validation.
    pub overrides: Vec<(String, String)>,
}

/// A scenario ready to build: resolved, with where it came from.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub scenario: Scenario,
    /// The file name used in messages.
    pub file: String,
    /// Folder that relative trace paths start from.
    pub base_dir: PathBuf,
}

/// Reads, overrides, deserialises and resolves a scenario.
pub fn load(source: &ScenarioSource, options: &RunOptions) -> Result<Loaded, InputError> {
    let (mut doc, file, base_dir) = match source {
        ScenarioSource::File(path) => {
            let file = path.display().to_string();
            let text = read_text(path, MAX_SCENARIO_BYTES).map_err(|why| {
                InputError::new(file.clone(), "", format!("cannot read the scenario: {why}"))
            })?;
            let base = path.parent().map(PathBuf::from).unwrap_or_default();
            let doc = if path.extension().is_some_and(|e| e == "json") {
                load::parse_json(&text, &file)?
            } else {
                load::parse_toml(&text, &file)?
            };
            (doc, file, base)
        }
        ScenarioSource::Toml { text, name, base_dir } => {
            (load::parse_toml(text, name)?, name.clone(), base_dir.clone())
        }
        ScenarioSource::Json { text, name, base_dir } => {
            (load::parse_json(text, name)?, name.clone(), base_dir.clone())
        }
    };
    for (path, value) in &options.overrides {
        load::apply_override(&mut doc, path, value, &file)?;
    }
    let mut scenario = load::deserialize(doc, &file)?;
    if let Some(seed) = options.seed {
        scenario.simulation.seed = seed;
    }
    build::resolve(&mut scenario, &file)?;
    Ok(Loaded { scenario, file, base_dir })
}
