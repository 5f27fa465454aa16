//! What a subflow's congestion controller may read of its MP-TCP connection: a read-only view of
//! every subflow (itself included), taken just before the subflow handles an ACK or a timeout.
//!
//! Coupled controllers (LIA, RFC 6356; OLIA, Khalili et al. 2013; BALIA, Peng et al. 2016) tie a
//! subflow's increase to its siblings' windows and round-trip times (and OLIA to their loss
//! history); they read this view in [`super::CongestionControl::couple`] and keep what they need
//! until the next call. Uncoupled controllers ignore it, so a single-path flow never builds one.

use crate::sim::Duration;

/// One subflow as its siblings' controllers see it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubflowView {
    /// Congestion window in force, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes (`u64::MAX` before the first congestion event).
    pub ssthresh: u64,
    /// Smoothed round-trip time (RFC 6298 SRTT), once a sample exists.
    pub srtt: Option<Duration>,
    /// The subflow's maximum segment size, bytes.
    pub mss: u32,
    /// Bytes delivered (cumulatively ACKed or SACKed) since the subflow's last congestion event
    /// (fast recovery entered, or a timeout that started a new loss episode); all delivered
    /// bytes before the first one.
    pub delivered_since_loss: u64,
    /// Bytes delivered between the subflow's last two congestion events (0 before the second).
    pub delivered_between_losses: u64,
    /// The subflow is repairing a loss (fast recovery or after a timeout).
    pub in_recovery: bool,
    /// The subflow can carry data: its handshake (MP_JOIN) is complete and it has not been
    /// given up. Linux v0.90 counts only such subflows in its coupled sums.
    pub established: bool,
}

/// Every subflow of a connection, and which of them the controller reading it belongs to.
#[derive(Clone, Copy, Debug)]
pub struct Siblings<'a> {
    pub subflows: &'a [SubflowView],
    /// Index of the reading controller's own subflow in `subflows`.
    pub me: usize,
}

impl Siblings<'_> {
    /// The reading controller's own subflow.
    pub fn own(&self) -> &SubflowView {
        &self.subflows[self.me]
    }
}
