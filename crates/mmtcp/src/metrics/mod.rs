//! Measurement: latency histograms, per-flow and per-link counters, sampled time series.

pub mod burst;
pub mod histogram;

pub use histogram::LogHistogram;
pub mod series;

pub use series::TimeSeries;
