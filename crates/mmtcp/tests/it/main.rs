//! The scenario and property tests of the crate, one test binary: each module was a test crate
//! of its own, and 22 binaries, each linking the whole simulator, took most of `make test`'s Rust
//! build. `steady_state_allocation.rs` stays apart: it installs a counting global allocator and
//! must not share its process with other tests.

mod common;

mod autotune;
mod bad_input;
mod burst;
mod cotag;
mod determinism;
mod exactly_once;
mod lte_p1411;
mod module_graph;
mod mptcp;
mod mptcp_schedulers;
mod paths;
mod processors;
mod proxies;
mod radio_link;
mod relay;
mod rlc_properties;
mod steady;
mod tcp_models;
mod trace_offset;
mod window_update;
