//! Channel processes: what a radio link can carry over time.
//!
//! A channel process is a piecewise-constant capacity: at time zero and then at each change it
//! says the rate from now on and when it next changes. The radio link schedules one event per
//! change, so a constant channel costs nothing and a trace costs one event per step.
//!
//! Later channel models (statistical SINR processes, 802.11ad link-to-system mapping) slot in
//! behind the same trait; adaptive modulation and coding will then turn their SINR into a rate.

use crate::sim::{Rng, SimTime};

/// The capacity of a channel from `now` until `next_change`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelStep {
    /// Bit rate in bit/s; 0 means outage (nothing is transmitted, packets wait in the buffer).
    pub rate_bps: u64,
    /// When the rate changes next; `None` when it never changes again.
    pub next_change: Option<SimTime>,
}

/// One channel model.
pub trait ChannelProcess {
    /// Called once at time zero and then at each `next_change` the previous step announced.
    /// `rng` is the channel's own stream (derived from the master seed and the link's id).
    fn step(&mut self, now: SimTime, rng: &mut Rng) -> ChannelStep;
}
