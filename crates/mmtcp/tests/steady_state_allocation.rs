//! The hot path allocates nothing per packet once a run has reached its steady state: packets
//! come from the arena's free list, queues and pipes keep their capacity, and time-series
//! columns are reserved up front. Measured with a counting global allocator: running the same
//! loss-free scenario for 4 s instead of 2 s moves twice the packets but must not allocate more
//! than a few dozen times more — over a wired bottleneck and over the radio stack (MAC, HARQ,
//! RLC AM).

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

/// A rate-capped flow well below the bottleneck: no loss, so the steady state is pure
/// forwarding and ACK processing. `last_hop` is the body of the b–c link.
fn scenario(duration: &str, last_hop: &str) -> String {
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
delay = "5ms"
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

/// The radio stack at a steady SINR of 13.15 dB: about 8 % of first attempts fail, so HARQ
/// retransmits, RLC AM polls and sends STATUS reports all the time.
const RADIO: &str = r#"kind = "radio"
delay = "10us"
[link.radio]
channel = { kind = "constant", sinr_db = 13.15 }
rlc = { mode = "am" }"#;

fn allocations_and_packets(duration: &str, last_hop: &str) -> (u64, u64) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let out = run_toml(&scenario(duration, last_hop));
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    (after - before, flow(&out)["segments_sent"].as_u64().unwrap())
}

#[test]
fn doubling_the_packets_does_not_double_the_allocations() {
    for last_hop in [WIRED, RADIO] {
        check(last_hop);
    }
}

fn check(last_hop: &str) {
    let (short_allocs, short_packets) = allocations_and_packets("2s", last_hop);
    let (long_allocs, long_packets) = allocations_and_packets("4s", last_hop);
    let extra_packets = long_packets - short_packets;
    let extra_allocs = long_allocs.saturating_sub(short_allocs);
    assert!(extra_packets > 80_000, "the longer run moved {extra_packets} more packets");
    assert!(
        extra_allocs < 50,
        "{extra_allocs} more allocations for {extra_packets} more packets (short run: {short_allocs})"
    );
}
