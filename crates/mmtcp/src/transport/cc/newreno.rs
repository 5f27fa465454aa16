//! PLACEHOLDER — replaced by the congestion-control helper.
use super::{AckSample, CongestionControl};
use crate::sim::SimTime;

#[derive(Clone, Debug)]
pub struct NewReno {
    cwnd: u64,
}

impl NewReno {
    pub fn new(_mss: u32, initial_window_bytes: u64) -> Self {
        NewReno { cwnd: initial_window_bytes }
    }
}

impl CongestionControl for NewReno {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        u64::MAX
    }
    fn on_ack(&mut self, _ack: &AckSample) {}
    fn on_congestion_event(&mut self, _now: SimTime, _in_flight: u64) {}
    fn on_rto(&mut self, _now: SimTime, _in_flight: u64) {}
    fn on_recovery_exit(&mut self, _now: SimTime) {}
}
