//! Relays (split connections at a gateway, `app = { kind = "relay" }`): every byte the upstream
//! flow delivers goes on once and in order over a TCP or an MP-TCP downstream flow, whatever the
//! downstream links lose; a slow downstream throttles the upstream sender through the relay's
//! bounded buffer and TCP flow control; runs are deterministic.

use crate::common::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use serde_json::Value;

/// `server` —`up_rate`, 5 ms— `gw`; `gw` reaches `d` through `r0` and through `r1`, whose links
/// to `d` run at `down_rate` and lose `loss` of the packets in both directions. Flow `up`
/// (server → gw, `up_app`) is relayed by flow `down` (gw → d): single-path over `r0`, or MP-TCP
/// with a subflow over each router.
fn scenario(up_app: &str, down: &Case, up_rate: &str, down_rate: &str, duration_s: u64) -> String {
    let transport = match down.scheduler {
        None => format!(
            r#"path = ["gw", "r0", "d"]
transport = {{ max_rto = "10s"{} }}"#,
            down.transport
        ),
        Some(scheduler) => format!(
            r#"transport = {{ kind = "mptcp", scheduler = "{scheduler}", max_rto = "10s", subflows = [{{ path = ["gw", "r0", "d"] }}, {{ path = ["gw", "r1", "d"] }}]{} }}"#,
            down.transport
        ),
    };
    let impair = format!("{{ loss = {} }}", down.loss);
    let mut s = format!(
        r#"
[simulation]
duration = "{duration_s}s"
[metrics]
interval = "1s"
[[node]]
name = "server"
[[node]]
name = "gw"
[[node]]
name = "d"
[[link]]
between = ["server", "gw"]
rate = "{up_rate}"
delay = "5ms"
forward = {{ loss = {up_loss} }}
reverse = {{ loss = {up_loss} }}
"#,
        up_loss = down.up_loss
    );
    for r in ["r0", "r1"] {
        s += &format!(
            r#"[[node]]
name = "{r}"
[[link]]
between = ["gw", "{r}"]
rate = "10Gbps"
delay = "1ms"
[[link]]
between = ["{r}", "d"]
rate = "{down_rate}"
delay = "2ms"
buffer = "200pkt"
forward = {impair}
reverse = {impair}
"#
        );
    }
    s + &format!(
        r#"[[flow]]
name = "up"
from = "server"
to = "gw"
app = {up_app}
transport = {{ max_rto = "10s" }}
[[flow]]
name = "down"
from = "gw"
to = "d"
app = {{ kind = "relay", from = "up", buffer = "{}B" }}
start = "{}ms"
{transport}
"#,
        down.buffer, down.start_ms
    )
}

/// What varies between runs: mostly the relay flow's side.
struct Case {
    /// Loss on the upstream link, both directions.
    up_loss: f64,
    /// `None`: single-path TCP; else MP-TCP with this scheduler.
    scheduler: Option<&'static str>,
    loss: f64,
    buffer: u64,
    start_ms: u64,
    /// Extra `transport` keys, each starting with ", ".
    transport: String,
}

fn by_name<'a>(out: &'a Ran, name: &str) -> &'a Value {
    let flows = out.summary["flows"].as_array().unwrap();
    flows.iter().find(|f| f["name"] == name).unwrap_or_else(|| panic!("no flow {name}"))
}

fn u64_of(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

proptest! {
    #![proptest_config(Config { cases: 64, rng_seed: RngSeed::Fixed(0x7265_6c61_7900), ..Config::default() })]
    /// Whatever the links lose, the downstream delivers exactly the upstream's bytes: as many,
    /// each once (more would show as more delivered than written), none skipped (fewer, or a
    /// relay left holding bytes), over TCP and over MP-TCP with two subflows. Upstream loss also
    /// loses window updates: the upstream sender's zero-window probe recovers them (without it,
    /// a relay buffer of a few segments stalls the transfer).
    #[test]
    fn every_upstream_byte_is_relayed_once_and_in_order(
        size in 1u64..2_000_000,
        up_loss in 0.0f64..0.1,
        loss in 0.0f64..0.08,
        buffer in 1448u64..600_000,
        scheduler in prop::option::of(prop::sample::select(vec!["minrtt", "roundrobin", "redundant", "blest", "ecf", "musher"])),
        send_buffer_kb in 2u64..512,
        seed in 0u64..1000,
    ) {
        let down = Case { up_loss, scheduler, loss, buffer, start_ms: 0, transport: format!(r#", send_buffer = "{send_buffer_kb}KB""#) };
        let text = scenario(&format!(r#"{{ kind = "bulk", size = "{size}B" }}"#), &down, "1Gbps", "100Mbps", 3000);
        let out = run_toml_with(&text, &[("simulation.seed", &seed.to_string())]);
        let (up, down) = (by_name(&out, "up"), by_name(&out, "down"));
        prop_assert_eq!(u64_of(&up["bytes_delivered"]), size, "upstream delivered");
        prop_assert_eq!(u64_of(&down["bytes_delivered"]), size, "downstream delivered");
        prop_assert_eq!(u64_of(&down["relay"]["relayed_bytes"]), size, "relayed");
        prop_assert_eq!(u64_of(&down["relay"]["final_buffered_bytes"]), 0, "left in the relay");
        prop_assert!(u64_of(&down["relay"]["max_buffered_bytes"]) <= buffer, "over the relay's buffer");
    }
}

/// A 1 Gbit/s upstream relayed into 20 Mbit/s downstream paths for 20 s, the relay flow opening
/// at `start_ms`.
fn slow_downstream(scheduler: Option<&'static str>, buffer: u64, start_ms: u64) -> Ran {
    let down = Case {
        up_loss: 0.0,
        scheduler,
        loss: 0.0,
        buffer,
        start_ms,
        transport: r#", send_buffer = "256KB""#.into(),
    };
    run_toml(&scenario(r#"{ kind = "bulk" }"#, &down, "1Gbps", "20Mbps", 20))
}

#[test]
fn test_a_slow_downstream_throttles_the_upstream_to_its_rate() {
    for (scheduler, paths) in [(None, 1.0), (Some("minrtt"), 2.0)] {
        let buffer = 1_000_000;
        let out = slow_downstream(scheduler, buffer, 0);
        let (up, down) = (by_name(&out, "up"), by_name(&out, "down"));
        let relay = &down["relay"];
        let max_held = u64_of(&relay["max_buffered_bytes"]);
        // The buffer filled (the downstream is the bottleneck) and never overflowed.
        assert!(max_held <= buffer && max_held > buffer / 2, "{scheduler:?}: held at most {max_held}");
        let (up_bps, down_bps) = (f64_of(&up["goodput_bps"]), f64_of(&down["goodput_bps"]));
        let capacity = paths * 20e6;
        assert!(down_bps > 0.85 * capacity, "{scheduler:?}: downstream {down_bps}");
        // The upstream delivered only what the relay passed on plus what it holds and what the
        // downstream's send buffer holds: over 20 s, within 10 % of the downstream's goodput.
        assert!(up_bps < 1.1 * down_bps, "{scheduler:?}: upstream {up_bps} vs downstream {down_bps}");
        assert_eq!(
            u64_of(&up["bytes_delivered"]),
            u64_of(&relay["relayed_bytes"]) + u64_of(&relay["final_buffered_bytes"]),
            "{scheduler:?}: the upstream's bytes are in the relay or passed on"
        );
    }
}

#[test]
fn test_a_relay_opening_late_holds_its_buffer_then_reopens_the_upstream_window() {
    for scheduler in [None, Some("blest")] {
        let buffer = 500_000;
        let out = slow_downstream(scheduler, buffer, 2000);
        let (up, down) = (by_name(&out, "up"), by_name(&out, "down"));
        let relay = &down["relay"];
        // Before the relay flow opens the upstream fills the buffer (to less than a segment of
        // room) and its window closes; the
        // relay's first write reopens it with a window update, not with a data segment's ACK.
        let max_held = u64_of(&relay["max_buffered_bytes"]);
        assert!(max_held <= buffer && max_held > buffer - 1448, "{scheduler:?}: {relay}");
        assert!(u64_of(&relay["window_updates"]) >= 1, "{scheduler:?}: {relay}");
        assert!(u64_of(&up["bytes_delivered"]) > 10 * buffer, "{scheduler:?}: the upstream resumed");
        assert!(f64_of(&down["goodput_bps"]) > 15e6, "{scheduler:?}: {}", down["goodput_bps"]);
    }
}

#[test]
fn test_relay_runs_are_deterministic() {
    let down = Case {
        up_loss: 0.0,
        scheduler: Some("musher"),
        loss: 0.02,
        buffer: 300_000,
        start_ms: 0,
        transport: String::new(),
    };
    let text = scenario(
        r#"{ kind = "onoff", on = "500ms", off = "300ms", rate = "300Mbps", distribution = "exponential" }"#,
        &down,
        "1Gbps",
        "100Mbps",
        5,
    );
    let strip = |out: &Ran| {
        let mut s = out.summary.clone();
        for key in ["wall_seconds", "setup_seconds", "events_per_second"] {
            s.as_object_mut().unwrap().remove(key);
        }
        s
    };
    let (a, b) = (run_toml(&text), run_toml(&text));
    assert_eq!(strip(&a), strip(&b));
    let c = run_toml_with(&text, &[("simulation.seed", "2")]);
    assert_ne!(
        by_name(&a, "down")["bytes_delivered"],
        by_name(&c, "down")["bytes_delivered"],
        "another seed, other losses"
    );
    assert_eq!(by_name(&a, "down")["app"], "relay");
}
