//! Measurement: latency histograms, per-flow and per-link counters, sampled time series, and the
//! column tables a run's per-entity outputs are written as.

pub mod burst;
pub mod histogram;
pub mod series;
pub mod table;

pub use histogram::LogHistogram;
pub use series::{EntitySeries, KeyValues};
pub use table::{Table, TableColumn, Values};
