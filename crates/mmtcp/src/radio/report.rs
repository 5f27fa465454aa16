//! Link reports: what a radio link tells the components that subscribe to it (the
//! cross-layer proxies of Drago et al. and Kim et al.) about its state.
//!
//! A report carries the SINR, the MCS and rate the SINR allows, and the RLC buffer occupancy of
//! one direction. It is published on every change of the MCS (`mode = "on_change"`; Drago et al.'s
//! AP reports whenever the bandwidth-delay product changes) or every `period`
//! (`mode = "periodic"`). Subscribers get reports synchronously at the publication time; a
//! subscriber that models a signalling delay applies it itself.

use crate::ids::DirId;
use crate::sim::SimTime;

/// The state of one radio direction at `time`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkReport {
    pub time: SimTime,
    pub dir: DirId,
    /// SINR in dB (`-inf` in outage).
    pub sinr_db: f64,
    /// The highest MCS meeting the target BLER at that SINR; `None` when none does.
    pub mcs: Option<u8>,
    /// The rate of that MCS, bit/s (0 when none).
    pub rate_bps: u64,
    /// Bytes waiting in the RLC transmitter (new data and retransmissions).
    pub buffer_bytes: u64,
}

/// A component that receives link reports.
pub trait ReportSubscriber {
    fn on_report(&mut self, report: &LinkReport);
}

/// A subscriber that keeps every report (tests, offline analysis).
#[derive(Clone, Debug, Default)]
pub struct ReportRecorder {
    pub reports: Vec<LinkReport>,
}

impl ReportSubscriber for ReportRecorder {
    fn on_report(&mut self, report: &LinkReport) {
        self.reports.push(*report);
    }
}
