//! `metrics.steady_from` on whole runs: every flow's and subflow's goodput over the steady-state
//! window (`steady_goodput_bps`, `subflows[k].steady_share`), against known rates, the time
//! series, and a slow start the window leaves out.

use crate::common::{f64_of, run_toml, two_path_connection, PathSpec};
use serde_json::Value;

/// One flow `x` over a `rate`, `delay` link (`buffer` of queue) with `app`, for `duration`;
/// `metrics` keys first.
fn single(metrics: &str, duration: &str, link: &str, app: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[metrics]
interval = "10ms"
{metrics}
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
name = "l"
between = ["a", "b"]
{link}
[[flow]]
name = "x"
from = "a"
to = "b"
app = {app}
transport = {{ send_buffer = "16MiB", receive_buffer = "16MiB" }}
"#
    )
}

#[test]
fn a_rate_limited_flow_reports_its_rate() {
    // A 200 Mbit/s application on an uncongested 1 Gbit/s link: the steady-state goodput is the
    // application's rate; the whole run's is a little lower for the handshake and first RTT.
    let app = r#"{ kind = "bulk", rate_limit = "200Mbps" }"#;
    let out = run_toml(&single("steady_from = \"1s\"", "4s", "rate = \"1Gbps\"\ndelay = \"5ms\"", app));
    let x = &out.summary["flows"][0];
    let steady = f64_of(&x["steady_goodput_bps"]);
    assert!((steady - 200e6).abs() < 0.005 * 200e6, "{steady}");
    assert!(f64_of(&x["goodput_bps"]) < steady, "{x}");
    // The bytes of the window are the time series' from the 1 s row to the last.
    let delivered = out.column("flow.x.delivered_bytes");
    let rows = delivered.len();
    let in_window = delivered[rows - 1] - delivered[99];
    assert!((steady * 3.0 / 8.0 - in_window).abs() <= 1500.0, "{steady} vs {in_window} bytes");
}

#[test]
fn the_window_leaves_out_a_slow_start_on_a_long_path() {
    // 100 Mbit/s with a 400 ms round trip: slow start takes seconds to fill a 5 MB pipe.
    let link = "rate = \"100Mbps\"\ndelay = \"200ms\"\nbuffer = \"5000pkt\"";
    let out = run_toml(&single("steady_from = \"10s\"", "20s", link, r#"{ kind = "bulk" }"#));
    let x = &out.summary["flows"][0];
    let (steady, whole) = (f64_of(&x["steady_goodput_bps"]), f64_of(&x["goodput_bps"]));
    assert!(steady > 1.2 * whole, "steady {steady} against {whole} over the run");
    assert!(steady > 80e6 && steady <= 100e6, "{steady}");
}

#[test]
fn without_the_key_there_is_no_steady_goodput_and_the_run_is_the_same() {
    let app = r#"{ kind = "bulk", rate_limit = "300Mbps" }"#;
    let link = "rate = \"1Gbps\"\ndelay = \"5ms\"";
    let without = run_toml(&single("", "1s", link, app));
    let with = run_toml(&single("steady_from = \"0.35s\"", "1s", link, app));
    let (a, b) = (&without.summary["flows"][0], &with.summary["flows"][0]);
    assert!(a.get("steady_goodput_bps").is_none(), "{a}");
    assert!(b["steady_goodput_bps"].is_f64(), "{b}");
    // The window's event notes counters and changes nothing else.
    for key in ["goodput_bps", "bytes_delivered", "segments_sent", "rtt_ms"] {
        assert_eq!(a[key], b[key], "{key}");
    }
    assert_eq!(with.summary["events"].as_u64(), without.summary["events"].as_u64().map(|e| e + 1));
    assert!(with.resolved.contains("steady_from = \"350ms\""), "{}", with.resolved);
}

#[test]
fn a_run_stopped_before_the_window_reports_null() {
    let app = r#"{ kind = "bulk" }"#;
    let text = single("steady_from = \"0.5s\"", "1s", "rate = \"1Gbps\"", app)
        .replace("duration = \"1s\"", "duration = \"1s\"\nmax_events = 1000");
    let out = run_toml(&text);
    assert_eq!(out.summary["stopped_by"], "max_events");
    assert!(out.summary["flows"][0]["steady_goodput_bps"].is_null(), "{}", out.summary["flows"][0]);
}

#[test]
fn a_flow_starting_after_the_window_opens_counts_from_its_start() {
    let app = r#"{ kind = "bulk", rate_limit = "100Mbps" }"#;
    let text = single("steady_from = \"0.2s\"", "2s", "rate = \"1Gbps\"\ndelay = \"1ms\"", app)
        .replace("to = \"b\"\n", "to = \"b\"\nstart = \"1s\"\n");
    let x = &run_toml(&text).summary["flows"][0];
    // From its start (1 s), as goodput_bps: not diluted by the 0.8 s before it.
    let steady = f64_of(&x["steady_goodput_bps"]);
    assert_eq!(steady, f64_of(&x["goodput_bps"]), "{x}");
    assert!(steady > 95e6, "{steady}");
}

#[test]
fn mptcp_subflows_report_their_window_and_share() {
    let path = |rate| PathSpec { rate, delay: "10ms", core_rate: "1Gbps" };
    let text = two_path_connection("6s", [path("50Mbps"), path("150Mbps")], "", r#"{ kind = "bulk" }"#)
        .replace("[[node]]\nname = \"ue\"", "[metrics]\nsteady_from = \"3s\"\n[[node]]\nname = \"ue\"");
    let out = run_toml(&text);
    let mp = &out.summary["flows"][0];
    let subflows = mp["subflows"].as_array().expect("subflows");
    let shares: Vec<f64> = subflows.iter().map(|s| f64_of(&s["steady_share"])).collect();
    assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{shares:?}");
    // Uncoupled CUBIC fills both paths in the window: 50 and 150 Mbit/s, a quarter and three.
    let rates: Vec<f64> = subflows.iter().map(|s| f64_of(&s["steady_goodput_bps"])).collect();
    assert!((rates[0] - 50e6).abs() < 0.05 * 50e6 && (rates[1] - 150e6).abs() < 0.05 * 150e6, "{rates:?}");
    assert!((shares[0] - 0.25).abs() < 0.02, "{shares:?}");
    // Each subflow's share is its part of the window's bytes, as `share` is of the run's.
    let bytes: Vec<f64> = rates.iter().map(|r| r * 3.0 / 8.0).collect();
    assert!((shares[0] - bytes[0] / (bytes[0] + bytes[1])).abs() < 1e-9, "{shares:?} {bytes:?}");
    // The connection delivers in the window what its subflows carried in it, plus what its
    // reordering buffer held when the window opened, less what it holds at the end (nothing is
    // sent twice here).
    assert_eq!(mp["mptcp"]["duplicate_bytes"], 0, "{mp}");
    let held = out.column("flow.mp.reorder_buffer_bytes");
    let connection = f64_of(&mp["steady_goodput_bps"]) * 3.0 / 8.0;
    let expected = bytes.iter().sum::<f64>() + held[299] - held[held.len() - 1];
    assert!((connection - expected).abs() <= 1.0, "{connection} bytes against {expected}");
    let without: Value = run_toml(&text.replace("steady_from = \"3s\"\n", "")).summary;
    let sf = &without["flows"][0]["subflows"][0];
    assert!(sf.get("steady_goodput_bps").is_none() && sf.get("steady_share").is_none(), "{sf}");
}
