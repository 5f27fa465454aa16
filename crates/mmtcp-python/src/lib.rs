//! `mmtcp._core`: the Python bindings of the simulator, and nothing else.
//!
//! This crate is glue. It turns Python arguments into [`mmtcp::api`] calls and the results back
//! into Python objects; every piece of simulation logic lives in the `mmtcp` crate, which knows
//! nothing of Python. The Python package (`python/mmtcp`) wraps these functions in the public API.
//!
//! Conventions:
//! - Arguments after the first two are keyword-only, as in polars and pydantic-core.
//! - The GIL is released for the whole of a run and taken back only for the progress callback,
//!   which also checks for pending signals so that Ctrl-C stops a run within ~0.1 s.
//! - Tables (time series and per-entity summaries) cross as numpy arrays that take over the Rust
//!   `Vec`s without copying and without one Python object per value; text columns as a list of
//!   their distinct strings and a uint32 code per row.
//! - A scenario problem raises `ScenarioError` (a `ValueError`); anything else that goes wrong in
//!   Rust, including a panic, raises `SimulationError` (a `RuntimeError`). A panic never unwinds
//!   into Python and never aborts the interpreter: every entry point runs under `catch_unwind`.

use mmtcp::api::{self, Progress, RunError, RunOptions, ScenarioSource, Table, Values};
use mmtcp::error::InputError;
use numpy::PyArray1;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;

create_exception!(
    mmtcp,
    ScenarioError,
    PyValueError,
    "The scenario, a trace file or an override is invalid; the message is one line naming the \
     file, the field and what is allowed."
);
create_exception!(
    mmtcp,
    SimulationError,
    PyRuntimeError,
    "The simulator failed internally (a bug, not a problem with the scenario)."
);

/// Stands for the file in error messages about a scenario given as text.
const IN_MEMORY_NAME: &str = "<string>";

/// `InputError` displays as the one line the user sees.
fn scenario_error(e: InputError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

/// Runs `f` and turns a panic into `SimulationError` carrying the panic message.
fn catch_panic<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(panic_error(payload.as_ref())))
}

fn panic_error(payload: &(dyn Any + Send)) -> PyErr {
    let message = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    };
    SimulationError::new_err(format!("the simulator panicked: {message}"))
}

/// Builds the core's `ScenarioSource` from the `(source, kind, name, base_dir)` arguments.
fn scenario_source(
    source: String,
    kind: &str,
    name: Option<String>,
    base_dir: Option<PathBuf>,
) -> PyResult<ScenarioSource> {
    if kind == "path" {
        if name.is_some() || base_dir.is_some() {
            return Err(PyValueError::new_err(
                "name and base_dir apply to kind='toml' and kind='json' only; a file is its own name and base_dir",
            ));
        }
        return Ok(ScenarioSource::File(PathBuf::from(source)));
    }
    let text = source;
    let name = name.unwrap_or_else(|| IN_MEMORY_NAME.to_string());
    let base_dir = match base_dir {
        Some(dir) => dir,
        None => std::env::current_dir()?,
    };
    match kind {
        "toml" => Ok(ScenarioSource::Toml { text, name, base_dir }),
        "json" => Ok(ScenarioSource::Json { text, name, base_dir }),
        other => Err(PyValueError::new_err(format!("kind must be 'path', 'toml' or 'json', not {other:?}"))),
    }
}

/// Runs a scenario with the GIL released; returns `(summary_json, tables, resolved_toml)`:
/// `tables` a list of `(name, rows, columns)`, each column `(name, kind, values, dictionary,
/// valid)` — `kind` one of `f64`, `u64`, `i64`, `bool`, `text`; `values` a numpy array (for text,
/// uint32 codes into the list `dictionary`, else None); `valid` a bool array (False: null) or
/// None; `resolved_toml` None for a scenario too large to list (`metrics.summary_entries`).
///
/// `progress(sim_seconds, stop_seconds, events, wall_seconds)` is called about ten times a
/// wall-second; returning `False` stops the run, which then raises `SimulationError`. A pending
/// signal (Ctrl-C) stops the run too and is raised as its Python exception (`KeyboardInterrupt`).
#[pyfunction]
#[pyo3(signature = (source, kind, *, name=None, base_dir=None, seed=None, overrides=None, progress=None))]
#[allow(clippy::too_many_arguments)] // the Python signature, keyword-only after `kind`
fn run<'py>(
    py: Python<'py>,
    source: String,
    kind: &str,
    name: Option<String>,
    base_dir: Option<PathBuf>,
    seed: Option<u64>,
    overrides: Option<Vec<(String, String)>>,
    progress: Option<Py<PyAny>>,
) -> PyResult<(String, Bound<'py, PyList>, Option<String>)> {
    if let Some(callback) = &progress {
        if !callback.bind(py).is_callable() {
            return Err(PyTypeError::new_err("progress must be callable or None"));
        }
    }
    let source = scenario_source(source, kind, name, base_dir)?;
    let options = RunOptions { seed, overrides: overrides.unwrap_or_default() };
    // The first error raised by the callback (or by a signal handler), re-raised after the run.
    let mut callback_error: Option<PyErr> = None;
    let mut on_progress = |p: &Progress| -> bool {
        Python::attach(|py| {
            report_progress(py, progress.as_ref(), p).unwrap_or_else(|e| {
                callback_error.get_or_insert(e);
                false
            })
        })
    };
    let outcome = py.detach(|| catch_panic(|| Ok(api::run(&source, &options, &mut on_progress))))?;
    let output = match outcome {
        Ok(output) => output,
        Err(RunError::Input(e)) => return Err(scenario_error(e)),
        Err(RunError::Interrupted) => {
            return Err(callback_error.unwrap_or_else(|| {
                SimulationError::new_err("interrupted: the progress callback returned False")
            }))
        }
    };
    let tables = PyList::empty(py);
    for table in output.tables {
        tables.append(table_tuple(py, table)?)?;
    }
    Ok((output.summary_json, tables, output.resolved))
}

/// A table as `(name, rows, [(name, kind, values, dictionary, valid), ...])`.
fn table_tuple(py: Python<'_>, table: Table) -> PyResult<Bound<'_, PyTuple>> {
    let columns = PyList::empty(py);
    for column in table.columns {
        let valid = column.valid.map(|v| PyArray1::from_vec(py, v));
        let (kind, values, dictionary): (&str, Bound<'_, PyAny>, Option<Vec<String>>) = match column.values {
            Values::F64(v) => ("f64", PyArray1::from_vec(py, v).into_any(), None),
            Values::U64(v) => ("u64", PyArray1::from_vec(py, v).into_any(), None),
            Values::I64(v) => ("i64", PyArray1::from_vec(py, v).into_any(), None),
            Values::Bool(v) => ("bool", PyArray1::from_vec(py, v).into_any(), None),
            Values::Text { dictionary, codes } => {
                ("text", PyArray1::from_vec(py, codes).into_any(), Some(dictionary))
            }
        };
        columns.append((column.name, kind, values, dictionary, valid))?;
    }
    PyTuple::new(
        py,
        [
            table.name.into_pyobject(py)?.into_any(),
            table.rows.into_pyobject(py)?.into_any(),
            columns.into_any(),
        ],
    )
}

/// The body of the progress callback, run with the GIL held: signals first, then the user's
/// callback. `Ok(false)` asks the run to stop.
fn report_progress(py: Python<'_>, callback: Option<&Py<PyAny>>, p: &Progress) -> PyResult<bool> {
    py.check_signals()?;
    let Some(callback) = callback else {
        return Ok(true);
    };
    let answer = callback
        .call1(py, (p.sim_time.as_secs_f64(), p.stop_time.as_secs_f64(), p.events, p.wall_seconds))?;
    if answer.is_none(py) {
        Ok(true)
    } else {
        answer.is_truthy(py)
    }
}

/// Loads, overrides and validates a scenario; returns the resolved scenario as TOML text.
#[pyfunction]
#[pyo3(signature = (source, kind, *, name=None, base_dir=None, seed=None, overrides=None))]
fn validate(
    py: Python<'_>,
    source: String,
    kind: &str,
    name: Option<String>,
    base_dir: Option<PathBuf>,
    seed: Option<u64>,
    overrides: Option<Vec<(String, String)>>,
) -> PyResult<String> {
    let source = scenario_source(source, kind, name, base_dir)?;
    let options = RunOptions { seed, overrides: overrides.unwrap_or_default() };
    py.detach(|| catch_panic(|| api::validate(&source, &options).map_err(scenario_error)))
}

/// The engine micro-benchmark: `events` events through the bare event queue.
/// Returns `{"events": int, "wall_seconds": float, "events_per_second": float}`.
#[pyfunction]
#[pyo3(signature = (events))]
fn bench_engine(py: Python<'_>, events: u64) -> PyResult<Bound<'_, PyDict>> {
    let bench = py.detach(|| catch_panic(|| Ok(api::bench_engine(events))))?;
    let result = PyDict::new(py);
    result.set_item("events", bench.events)?;
    result.set_item("wall_seconds", bench.wall_seconds)?;
    result.set_item("events_per_second", bench.events_per_second)?;
    Ok(result)
}

/// Drago et al.'s synthetic 802.11ad beam-pair trace as CSV; `config` is the TOML of the synthetic
/// source's keys (`scenario = "b"`, ...).
#[pyfunction]
#[pyo3(signature = (config, *, name=None))]
fn ieee80211ad_trace(py: Python<'_>, config: String, name: Option<String>) -> PyResult<String> {
    let name = name.unwrap_or_else(|| IN_MEMORY_NAME.to_string());
    py.detach(|| catch_panic(|| api::ieee80211ad_trace(&config, &name).map_err(scenario_error)))
}

/// The stand-in for Wu et al.'s measured 802.11ad links: `config` is the TOML of the generator's
/// keys. Returns `{"ap1": csv, "ap2": csv, "mean_bps": (ap1, ap2), "correlation": float,
/// "scale": float | None}`.
#[pyfunction]
#[pyo3(signature = (config, *, name=None))]
fn ieee80211ad_dual_trace(
    py: Python<'_>,
    config: String,
    name: Option<String>,
) -> PyResult<Bound<'_, PyDict>> {
    let name = name.unwrap_or_else(|| IN_MEMORY_NAME.to_string());
    let traces =
        py.detach(|| catch_panic(|| api::ieee80211ad_dual_trace(&config, &name).map_err(scenario_error)))?;
    let result = PyDict::new(py);
    result.set_item("ap1", traces.csv(0))?;
    result.set_item("ap2", traces.csv(1))?;
    result.set_item("mean_bps", (traces.mean_bps(0), traces.mean_bps(1)))?;
    result.set_item("correlation", traces.correlation())?;
    result.set_item("scale", traces.scale())?;
    Ok(result)
}

/// A rate trace as Python gets it: step starts (ps), rates (bit/s), the end (ps).
type RateTraceArrays<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<f64>>, i64);

/// A rate trace read whole for `mmtcp fit-markov` (csv or mahimahi, the syntax of a `trace`
/// channel): `(starts_ps, rates_bps, end_ps)` — each step's start in picoseconds (int64) and
/// rate in bit/s (float64), and where the trace ends. `origin` ends every line error.
#[pyfunction]
#[pyo3(signature = (path, *, format=None, origin=""))]
fn rate_trace<'py>(
    py: Python<'py>,
    path: PathBuf,
    format: Option<String>,
    origin: &str,
) -> PyResult<RateTraceArrays<'py>> {
    let trace = py.detach(|| {
        catch_panic(|| api::rate_trace(&path, format.as_deref(), origin).map_err(scenario_error))
    })?;
    // Picoseconds fit an i64 up to 106 days.
    let picos = |ps: u64| {
        i64::try_from(ps).map_err(|_| {
            ScenarioError::new_err(format!(
                "{}: the trace is longer than 106 days ({origin})",
                path.display()
            ))
        })
    };
    let starts = trace.steps.iter().map(|&(at, _)| picos(at.as_picos())).collect::<PyResult<Vec<i64>>>()?;
    let rates = trace.steps.iter().map(|&(_, rate)| rate as f64).collect();
    Ok((PyArray1::from_vec(py, starts), PyArray1::from_vec(py, rates), picos(trace.end.as_picos())?))
}

/// A time as a scenario writes it (`"100ms"`), in picoseconds; `ScenarioError` if it is not one.
#[pyfunction]
fn time_ps(text: &str) -> PyResult<u64> {
    api::time_ps(text).map_err(ScenarioError::new_err)
}

/// Test hook: panics with `message` inside the same `catch_unwind` guard as the real entry
/// points, so that tests can check a panic surfaces as `SimulationError` and the interpreter
/// survives. Not part of the API.
#[pyfunction]
fn _panic_for_tests(message: &str) -> PyResult<()> {
    catch_panic(|| panic!("{message}"))
}

/// Compiled core of mmtcp: run and validate scenarios, benchmark the engine. Use the `mmtcp`
/// package rather than this module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(bench_engine, m)?)?;
    m.add_function(wrap_pyfunction!(ieee80211ad_trace, m)?)?;
    m.add_function(wrap_pyfunction!(ieee80211ad_dual_trace, m)?)?;
    m.add_function(wrap_pyfunction!(rate_trace, m)?)?;
    m.add_function(wrap_pyfunction!(time_ps, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    Ok(())
}
