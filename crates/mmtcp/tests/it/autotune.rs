//! Receive-buffer autotuning (`receive_buffer = "auto"`, docs/models/tcp.md) in whole runs: the
//! buffer follows the bandwidth-delay product, stops at its maximum, and the MP-TCP
//! connection's buffer grows from its subflows.

use crate::common::*;

/// server —(10 Gbit/s, 1 ms)— router —(`rate`, `delay`, `buffer`)— ue, one flow of `app`.
fn chain(rate: &str, delay: &str, buffer: &str, transport: &str, app: &str, duration: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[[node]]
name = "server"
[[node]]
name = "router"
[[node]]
name = "ue"
[[link]]
between = ["server", "router"]
rate = "10Gbps"
delay = "1ms"
buffer = "100000pkt"
[[link]]
between = ["router", "ue"]
rate = "{rate}"
delay = "{delay}"
buffer = "{buffer}"
[[flow]]
from = "server"
to = "ue"
transport = {transport}
app = {app}
"#
    )
}

fn receive_buffer(out: &Ran) -> (u64, u64, u64) {
    let b = &flow(out)["receive_buffer"];
    (b["final_bytes"].as_u64().unwrap(), b["max_bytes"].as_u64().unwrap(), b["growths"].as_u64().unwrap())
}

const BULK: &str = r#"{ kind = "bulk" }"#;

#[test]
fn the_buffer_grows_with_the_bdp_on_a_long_fat_chain() {
    // A sender held to 50 Mbit/s on a 1 Gbit/s chain (no queue, no loss) with 50 and 100 ms of
    // RTT, whose initial window (1000 segments) and the receiver's first window (768 KiB) never
    // hold it back: the application reads rate × RTT = 312.5 and 625 kB per receiver RTT, and
    // in the first period also what was written during the handshake, one RTT more. That is
    // far more than the first window's 10 segments, so rcvwin = 2 × (2 × read + 16 segments) —
    // twice what was read, doubled for a sender that may still be doubling — and the periods
    // after read less, so it stays there: proportional to the BDP.
    let run = |delay: &str, rtt: f64| {
        let transport = r#"{ initial_window = 1000, receive_buffer = "auto", receive_buffer_initial = "1536KiB", receive_buffer_max = "64MiB" }"#;
        let app = r#"{ kind = "bulk", rate_limit = "50Mbps" }"#;
        let out = run_toml(&chain("1Gbps", delay, "10000pkt", transport, app, "5s"));
        let (buffer, max, growths) = receive_buffer(&out);
        assert_eq!(max, 64 << 20);
        let goodput = f64_of(&flow(&out)["goodput_bps"]);
        assert!(goodput > 49e6, "the window never holds the flow back: {:.1} Mbit/s", goodput / 1e6);
        let read = 50e6 / 8.0 * 2.0 * rtt;
        let expected = 2.0 * (2.0 * read + 16.0 * 1448.0);
        let window = (buffer / 2) as f64;
        eprintln!("{delay}: window {window} B after {growths} growths, expected {expected:.0}");
        assert_eq!(growths, 1, "one growth, in the first period");
        assert!((window / expected - 1.0).abs() < 0.03, "window {window} B, expected {expected:.0} B");
        window
    };
    let (short, long) = (run("24ms", 0.050), run("49ms", 0.100));
    let ratio = long / short;
    assert!((1.9..=2.1).contains(&ratio), "twice the BDP, about twice the window: {ratio:.2}");
}

#[test]
fn the_buffer_stops_at_its_maximum_and_the_window_at_half_of_it() {
    // 1 Gbit/s × 100 ms = 12.5 MB of BDP, but at most 6 MiB of buffer: a 3 MiB window, so the
    // flow carries 3 MiB per RTT, ≈ 250 Mbit/s (Linux 3.18's defaults on a long fat path).
    let transport = r#"{ send_buffer = "64MiB", receive_buffer = "auto" }"#;
    let out = run_toml(&chain("1Gbps", "49ms", "10000pkt", transport, BULK, "10s"));
    let (buffer, max, _) = receive_buffer(&out);
    assert_eq!((buffer, max), (6 << 20, 6 << 20));
    let goodput = f64_of(&flow(&out)["goodput_bps"]);
    let window_rate = (3u64 << 20) as f64 * 8.0 / 0.100;
    eprintln!("goodput {:.1} Mbit/s, window / RTT {:.1} Mbit/s", goodput / 1e6, window_rate / 1e6);
    assert!(goodput < 1.02 * window_rate && goodput > 0.85 * window_rate, "{goodput}");
}

#[test]
fn a_fixed_buffer_reports_no_autotuning() {
    let out = run_toml(&chain("100Mbps", "9ms", "1000pkt", r#"{ receive_buffer = "6MiB" }"#, BULK, "1s"));
    assert!(flow(&out).get("receive_buffer").is_none());
    assert!(!out.resolved.contains("receive_buffer_max"));
}

/// ue reaches server over a 100 Mbit/s, 10 ms path and a 50 Mbit/s, 40 ms one (RTTs of 22 and
/// 82 ms), `app` writing.
fn two_paths(transport: &str, app: &str) -> String {
    let fast = PathSpec { rate: "100Mbps", delay: "10ms", core_rate: "10Gbps" };
    let slow = PathSpec { rate: "50Mbps", delay: "40ms", core_rate: "10Gbps" };
    two_path_connection("5s", [fast, slow], transport, app)
}

#[test]
fn the_connections_buffer_follows_the_rate_times_the_largest_rtt() {
    // 50 Mbit/s written, split by round robin over both paths (neither queues). Each subflow
    // brings an initial 1.5 MiB (a 1.5 MiB window for two). v0.90 times a period by the largest
    // receiver RTT of the subflows, 82 ms: the application reads 512.5 kB per period, more than
    // 1.5 times the first period (timed by the first subflow alone, 22 ms), so
    // rcvwin = 2 × (2 × 512.5 kB + 16 segments) = 2.1 MB. Timed by the fast path it would read
    // 137.5 kB per period and never grow past the two initial buffers.
    let transport = r#", scheduler = "roundrobin", initial_window = 1000, receive_buffer = "auto", receive_buffer_initial = "1536KiB", receive_buffer_max = "64MiB""#;
    let out = run_toml(&two_paths(transport, r#"{ kind = "bulk", rate_limit = "50Mbps" }"#));
    let f = flow(&out);
    let (buffer, _, growths) = receive_buffer(&out);
    let window = (buffer / 2) as f64;
    let expected = 2.0 * (2.0 * 50e6 / 8.0 * 0.082 + 16.0 * 1448.0);
    eprintln!("window {window} B after {growths} growths, expected {expected:.0} B");
    assert!((window / expected - 1.0).abs() < 0.05, "window {window} B, expected {expected:.0} B");
    assert!(f64_of(&f["goodput_bps"]) > 49e6);
    // The subflows carry the connection's window (no subflow-level autotuning).
    for sf in f["subflows"].as_array().unwrap() {
        assert!(sf.get("receive_buffer").is_none());
    }
}
