//! Transport protocols: TCP, its congestion controllers, and Multipath TCP over TCP subflows.

pub mod cc;
pub mod mptcp;
pub mod tcp;
