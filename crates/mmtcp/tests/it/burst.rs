//! `[metrics.burst]` on whole runs: the window's bytes, short-term throughput and time to a
//! target agree with the time series' delivered bytes, for TCP and MP-TCP flows.

use crate::common::{f64_of, run_toml};
use serde_json::Value;

/// Two flows over a 1 Gbit/s chain, each application capped at 200 Mbit/s from 0.1 s; a third
/// flow (`other`) the window leaves out unless `flows` is absent.
fn chain(burst: &str) -> String {
    format!(
        r#"
[simulation]
duration = "2s"
[metrics]
interval = "10ms"
burst = {burst}
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
name = "l"
between = ["a", "b"]
rate = "1Gbps"
delay = "5ms"
[[flow]]
name = "x"
from = "a"
to = "b"
start = "0.1s"
app = {{ kind = "bulk", rate_limit = "200Mbps" }}
[[flow]]
name = "y"
from = "a"
to = "b"
start = "0.1s"
app = {{ kind = "bulk", rate_limit = "200Mbps" }}
[[flow]]
name = "other"
from = "a"
to = "b"
start = "0.1s"
app = {{ kind = "bulk", rate_limit = "100Mbps" }}
"#
    )
}

#[test]
fn window_bytes_and_throughput_match_the_time_series() {
    let out = run_toml(&chain(r#"{ start = "0.5s", length = "1s", flows = ["x", "y"], target = "10MB" }"#));
    let b: &Value = &out.summary["burst"];
    // Rows are at 10 ms, 20 ms, ...: row i is at (i + 1)·10 ms.
    let delivered =
        |flow: &str, t_ms: usize| out.column(&format!("flow.{flow}.delivered_bytes"))[t_ms / 10 - 1];
    let in_window = |f: &str| delivered(f, 1500) - delivered(f, 500);
    let expected = in_window("x") + in_window("y");
    assert_eq!(f64_of(&b["bytes_delivered"]), expected);
    assert_eq!(f64_of(&b["throughput_bps"]), expected * 8.0);
    // Two 200 Mbit/s applications: 400 Mbit/s in all, not 500 with `other`.
    assert!((f64_of(&b["throughput_bps"]) - 400e6).abs() < 8e6, "{b}");
    let st = &b["short_term_bps"];
    assert_eq!(st["samples"], 100);
    assert!(f64_of(&st["p5"]) <= f64_of(&st["p50"]) && f64_of(&st["p50"]) <= f64_of(&st["p95"]), "{st}");
    // 10 MB at 400 Mbit/s: 0.2 s after the window opens.
    let t = f64_of(&b["time_to_target_seconds"]);
    assert!((t - 0.2).abs() < 0.011, "{b}");
    let at_start = delivered("x", 500) + delivered("y", 500);
    let row = ((500.0 + t * 1000.0) / 10.0).ceil() as usize * 10;
    let crossed = delivered("x", row) + delivered("y", row) - at_start;
    assert!(crossed >= 10e6, "the target is reached by the row after the reported time");
    let before = delivered("x", row - 10) + delivered("y", row - 10) - at_start;
    assert!(before < 10e6, "and not by the row before it");
}

#[test]
fn without_flows_every_flow_counts_and_without_target_there_is_no_time() {
    let out = run_toml(&chain(r#"{ start = "0.5s", length = "1s" }"#));
    let b = &out.summary["burst"];
    assert!((f64_of(&b["throughput_bps"]) - 500e6).abs() < 10e6, "{b}");
    assert!(b["time_to_target_seconds"].is_null() && b["target_bytes"].is_null(), "{b}");
}

#[test]
fn a_summary_without_the_table_has_no_burst() {
    let text = chain("{ length = \"1s\" }").replace("burst = { length = \"1s\" }\n", "");
    let out = run_toml(&text);
    assert!(out.summary.get("burst").is_none());
}

#[test]
fn an_mptcp_flow_counts_its_connection_once() {
    let text = r#"
[simulation]
duration = "1s"
[metrics]
burst = { start = "0.2s", length = "0.5s" }
[[node]]
name = "a"
[[node]]
name = "m1"
[[node]]
name = "m2"
[[node]]
name = "b"
[[link]]
between = ["a", "m1"]
rate = "1Gbps"
[[link]]
between = ["a", "m2"]
rate = "1Gbps"
[[link]]
between = ["m1", "b"]
rate = "100Mbps"
delay = "2ms"
[[link]]
between = ["m2", "b"]
rate = "100Mbps"
delay = "2ms"
[[flow]]
name = "mp"
from = "a"
to = "b"
transport = { kind = "mptcp", subflows = [{ path = ["a", "m1", "b"] }, { path = ["a", "m2", "b"] }] }
"#;
    let out = run_toml(text);
    let b = &out.summary["burst"];
    // Two 100 Mbit/s paths: about 200 Mbit/s, which counting subflows as well would double.
    let bps = f64_of(&b["throughput_bps"]);
    assert!(bps > 150e6 && bps < 200e6, "{b}");
}
