//! Transport protocols: TCP and its congestion controllers.

pub mod cc;
pub mod tcp;
