//! The hot path allocates nothing per packet once a run has reached its steady state: packets
//! come from the arena's free list, queues and pipes keep their capacity, and time-series
//! columns are reserved up front. Measured with a counting global allocator: running the same
//! scenario for 4 s instead of 2 s moves twice the packets but must not allocate more than a few
//! dozen times more — loss-free over a wired bottleneck and over the radio stack (MAC, HARQ,
//! RLC AM), and with 1 % random loss, where TCP loss recovery (SACK scoreboard, out-of-order
//! data at the receiver) runs all the time; likewise behind proxies, over MP-TCP and through a
//! relay (split connection).

#[path = "it/common/mod.rs"]
mod common;
use common::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The counter is global: tests that read it run one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A rate-capped flow well below the bottleneck: without loss on the last hop the steady state
/// is pure forwarding and ACK processing. `core_delay` is the a–b link's delay, `last_hop` the
/// body of the b–c link.
fn scenario(duration: &str, core_delay: &str, last_hop: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[[node]]
name = "a"
[[node]]
name = "b"
[[node]]
name = "c"
[[link]]
between = ["a", "b"]
rate = "10Gbps"
delay = "{core_delay}"
[[link]]
between = ["b", "c"]
{last_hop}
[[flow]]
from = "a"
to = "c"
app = {{ kind = "bulk", rate_limit = "500Mbps" }}
"#
    )
}

const WIRED: &str = "rate = \"1Gbps\"\ndelay = \"5ms\"";

/// The wired bottleneck dropping 1 % of data packets at random, on a 200 µs round trip (with
/// the a–b link's delay at 50 µs) so that the flow still reaches hundreds of Mbit/s: every
/// round trip has a loss to recover.
const LOSSY: &str = "rate = \"1Gbps\"\ndelay = \"50us\"\nforward = { loss = 0.01 }";

/// The radio stack at a steady SINR of 13.15 dB: about 8 % of first attempts fail, so HARQ
/// retransmits, RLC AM polls and sends STATUS reports all the time.
const RADIO: &str = r#"kind = "radio"
delay = "10us"
[link.radio]
channel = { kind = "constant", sinr_db = 13.15 }
rlc = { mode = "am" }"#;

/// Allocations during a run, data segments sent and retransmitted.
fn allocations_and_packets(duration: &str, core_delay: &str, last_hop: &str) -> (u64, u64, u64) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let out = run_toml(&scenario(duration, core_delay, last_hop));
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    let flow = flow(&out);
    (
        after - before,
        flow["segments_sent"].as_u64().unwrap(),
        flow["retransmitted_segments"].as_u64().unwrap(),
    )
}

#[test]
fn doubling_the_packets_does_not_double_the_allocations() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for last_hop in [WIRED, RADIO] {
        check("5ms", last_hop);
    }
}

/// With 1 % loss the sender is in SACK recovery and the receiver holds out-of-order data most
/// of the time; neither allocates per packet once their structures have grown.
#[test]
fn loss_recovery_allocates_nothing_per_packet_in_steady_state() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let extra_retransmissions = check("50us", LOSSY);
    assert!(extra_retransmissions > 500, "only {extra_retransmissions} more retransmissions");
}

/// Checks that the 4 s run allocates hardly more than the 2 s run; returns how many more
/// segments it retransmitted.
fn check(core_delay: &str, last_hop: &str) -> u64 {
    let (short_allocs, short_packets, short_rtx) = allocations_and_packets("2s", core_delay, last_hop);
    let (long_allocs, long_packets, long_rtx) = allocations_and_packets("4s", core_delay, last_hop);
    assert_no_growth(last_hop, (short_allocs, short_packets), (long_allocs, long_packets));
    long_rtx - short_rtx
}

/// The longer of two runs, (allocations, packets) each, moved over 80 000 more packets and
/// allocated fewer than 50 times more than the shorter: nothing allocates per packet.
fn assert_no_growth(
    what: &str,
    (short_allocs, short_packets): (u64, u64),
    (long_allocs, long_packets): (u64, u64),
) {
    let extra_packets = long_packets - short_packets;
    let extra_allocs = long_allocs.saturating_sub(short_allocs);
    assert!(extra_packets > 80_000, "{what}: the longer run moved {extra_packets} more packets");
    assert!(
        extra_allocs < 50,
        "{what}: {extra_allocs} more allocations for {extra_packets} more packets (short run: {short_allocs})"
    );
}

/// server a —(10 Gbit/s, 1 ms)— p —(10 Gbit/s, 4 ms)— b —(the radio stack of [`RADIO`], link
/// reports every millisecond)— c, the same rate-capped flow, with `on_p` and `on_b` as the
/// processors of p and b.
fn proxied(duration: &str, on_p: &str, on_b: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[[node]]
name = "a"
[[node]]
name = "p"
processors = {on_p}
[[node]]
name = "b"
processors = {on_b}
[[node]]
name = "c"
[[link]]
between = ["a", "p"]
rate = "10Gbps"
delay = "1ms"
[[link]]
between = ["p", "b"]
rate = "10Gbps"
delay = "4ms"
[[link]]
between = ["b", "c"]
{RADIO}
report = {{ mode = "periodic", period = "1ms" }}
[[flow]]
from = "a"
to = "c"
app = {{ kind = "bulk", rate_limit = "500Mbps" }}
"#
    )
}

fn allocations_and_packets_with(text: &str) -> (u64, u64, serde_json::Value) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let out = run_toml(text);
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    (
        after - before,
        flow(&out)["segments_sent"].as_u64().unwrap(),
        out.summary["processors"][0]["stats"].clone(),
    )
}

/// The proxies' per-packet work allocates nothing in steady state either: mmPEP on the base
/// station (cache, early ACKs, the mobile's ACKs consumed), PEP whose forwarding waits in the
/// cache for RLC room and the mobile's window, and the BDP proxy's reactive control
/// deployment next to the server (the passive RTT probe on every packet, a delayed report every
/// millisecond).
#[test]
fn proxies_allocate_nothing_per_packet_in_steady_state() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // The held PEP's server offers more than the radio carries and its RLC buffer is 30 KB:
    // segments wait in the cache throughout.
    let small_rlc = r#"rlc = { mode = "am", buffer = "30KB" }"#;
    let cases = [
        ("[]", r#"[{ kind = "mmpep" }]"#, None),
        ("[]", r#"[{ kind = "pep", hold_for_rlc = true, mobile_window = true }]"#, Some(small_rlc)),
        (r#"[{ kind = "bdp", link = "b-c" }]"#, "[]", None),
    ];
    for (on_p, on_b, rlc) in cases {
        let text = |duration| {
            let text = proxied(duration, on_p, on_b);
            rlc.map_or(text.clone(), |rlc| {
                text.replace(r#"rlc = { mode = "am" }"#, rlc).replace("500Mbps", "2Gbps")
            })
        };
        let (short_allocs, short_packets, _) = allocations_and_packets_with(&text("2s"));
        let (long_allocs, long_packets, stats) = allocations_and_packets_with(&text("4s"));
        if on_p != "[]" {
            assert!(stats["reports_applied"].as_u64().unwrap() > 3900, "{stats}");
        }
        if rlc.is_some() {
            assert!(stats["segments_held"].as_u64().unwrap() > 10_000, "{stats}");
        }
        let what = format!("{on_p} {on_b} ({stats})");
        assert_no_growth(&what, (short_allocs, short_packets), (long_allocs, long_packets));
    }
}

/// An MP-TCP connection over a lossy wired path (1 % loss, 5 ms) and the radio stack of
/// [`RADIO`]: mapping chunks, DATA_ACKs, the shared receive buffer holding data of one subflow
/// for the other, re-ordering and loss recovery on both subflows allocate nothing per packet.
fn multipath(duration: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[[node]]
name = "a"
[[node]]
name = "b"
[[node]]
name = "c"
[[link]]
name = "wired"
between = ["a", "c"]
rate = "300Mbps"
delay = "5ms"
forward = {{ loss = 0.01 }}
[[link]]
between = ["a", "b"]
rate = "10Gbps"
delay = "1ms"
[[link]]
between = ["b", "c"]
{RADIO}
[[flow]]
from = "a"
to = "c"
app = {{ kind = "bulk", rate_limit = "600Mbps" }}
transport = {{ kind = "mptcp", subflows = [{{ path = ["a", "c"] }}, {{ path = ["a", "b", "c"] }}] }}
"#
    )
}

#[test]
fn mptcp_allocates_nothing_per_packet_in_steady_state() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (short_allocs, short_packets, _) = allocations_and_packets_with(&multipath("2s"));
    let (long_allocs, long_packets, _) = allocations_and_packets_with(&multipath("4s"));
    assert_no_growth("MP-TCP", (short_allocs, short_packets), (long_allocs, long_packets));
}

/// A relay at `g`: a rate-capped server flow over a lossy core (0.01 %, so the upstream recovers
/// losses and its window opens and closes at the relay's edge) relayed to `d` by an MP-TCP
/// connection over two links slower than the server's rate, one lossy: reading, buffering,
/// writing and window updates allocate nothing per packet.
fn relayed(duration: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[[node]]
name = "s"
[[node]]
name = "g"
[[node]]
name = "d"
[[link]]
between = ["s", "g"]
rate = "10Gbps"
delay = "2ms"
forward = {{ loss = 0.0001 }}
[[link]]
name = "one"
between = ["g", "d"]
rate = "600Mbps"
delay = "1ms"
forward = {{ loss = 0.001 }}
[[link]]
name = "two"
between = ["g", "d"]
rate = "300Mbps"
delay = "3ms"
[[flow]]
name = "up"
from = "s"
to = "g"
app = {{ kind = "bulk", rate_limit = "1200Mbps" }}
[[flow]]
name = "down"
from = "g"
to = "d"
app = {{ kind = "relay", from = "up", buffer = "1MB" }}
transport = {{ kind = "mptcp", subflows = [{{ path = ["g", "one", "d"] }}, {{ path = ["g", "two", "d"] }}] }}
"#
    )
}

#[test]
fn relays_allocate_nothing_per_packet_in_steady_state() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (short_allocs, short_packets, _) = allocations_and_packets_with(&relayed("2s"));
    // Three seconds more: the downstream paths (about 340 Mbit/s) carry over 80 000 packets.
    let (long_allocs, long_packets, _) = allocations_and_packets_with(&relayed("5s"));
    assert_no_growth("relay", (short_allocs, short_packets), (long_allocs, long_packets));
}
