//! The BLEST and ECF schedulers end to end: over two paths of very different RTTs sharing a
//! small connection window, each keeps the window on the fast path rather than let the slow
//! path's data hold it. MuSher end to end: every byte once over both paths, and only with two.

use crate::common::*;

/// A 5 MB download from `server` to `ue` over two paths, 10 and 100 ms one way (RTTs of 20 and
/// 200 ms); `fast` gives the fast access link's rate and buffer, `transport` keys are added.
fn two_paths(scheduler: &str, fast: &str, transport: &str) -> String {
    format!(
        r#"
[simulation]
duration = "60s"
[[node]]
name = "ue"
[[node]]
name = "r0"
[[node]]
name = "r1"
[[node]]
name = "server"
[[link]]
between = ["ue", "r0"]
{fast}
delay = "9ms"
[[link]]
between = ["r0", "server"]
rate = "1Gbps"
delay = "1ms"
[[link]]
between = ["ue", "r1"]
rate = "50Mbps"
delay = "99ms"
[[link]]
between = ["r1", "server"]
rate = "1Gbps"
delay = "1ms"
[[flow]]
name = "mp"
from = "server"
to = "ue"
app = {{ kind = "download", size = "5MB" }}
transport = {{ kind = "mptcp", scheduler = "{scheduler}", {transport}, subflows = [{{ path = ["server", "r0", "ue"] }}, {{ path = ["server", "r1", "ue"] }}] }}
"#
    )
}

/// What a run of a scenario gave: completion time (s), mean bytes held for reordering, bytes
/// the slow path delivered.
fn outcome(text: &str, scheduler: &str) -> (f64, f64, u64) {
    let out = run_toml(text);
    let f = flow(&out);
    assert_eq!(f["bytes_delivered"].as_u64(), Some(5_000_000), "{scheduler} completed");
    assert_eq!(f["mptcp"]["scheduler"], scheduler);
    (
        f64_of(&f["completion_seconds"]),
        f64_of(&f["mptcp"]["reorder_buffer_mean_bytes"]),
        f["subflows"][1]["bytes_delivered"].as_u64().unwrap(),
    )
}

#[test]
fn test_blest_and_ecf_download_faster_than_roundrobin_with_less_reordering() {
    // A 64 KB connection window: round robin sends every other chunk on the slow path, and the
    // fast path's data waits for it. Lowest RTT first, and so BLEST and ECF, never need the slow
    // path here: the fast subflow's window outgrows the connection's before the slow one joins,
    // so the fast one always has room.
    let run = |scheduler: &str| {
        outcome(&two_paths(scheduler, r#"rate = "100Mbps""#, r#"receive_buffer = "64KB""#), scheduler)
    };
    let (rr_time, rr_held, _) = run("roundrobin");
    for scheduler in ["blest", "ecf"] {
        let (time, held, _) = run(scheduler);
        assert!(time < rr_time, "{scheduler} took {time} s, round robin {rr_time} s");
        assert!(held < rr_held, "{scheduler} held {held} B, round robin {rr_held} B");
    }
}

#[test]
fn test_blest_and_ecf_do_not_spill_a_full_fast_path_onto_the_slow_one() {
    // The fast path (20 Mbit/s, 20-packet buffer) holds at most about 80 KB in flight, less than
    // the 256 KB connection window: lowest RTT first sends the rest on the slow path, whose data
    // then blocks the window. BLEST expects the fast subflow to send more than the window during
    // one slow round trip, ECF expects it to finish what waits first: both wait for it. The send
    // buffer is the window's size: Linux sizes a connection's as the sum of its subflows', which
    // grow with their windows; with the fixed default of 4 MB, megabytes would wait and ECF
    // would judge the fast path alone too slow for them (k ≫ w_f), as lowest RTT first does.
    let run = |scheduler: &str| {
        let text = two_paths(
            scheduler,
            "rate = \"20Mbps\"\nbuffer = \"20pkt\"",
            r#"send_buffer = "256KB", receive_buffer = "256KB""#,
        );
        outcome(&text, scheduler)
    };
    let (minrtt_time, minrtt_held, minrtt_slow) = run("minrtt");
    for scheduler in ["blest", "ecf"] {
        let (time, held, slow) = run(scheduler);
        assert!(time < minrtt_time, "{scheduler} took {time} s, lowest RTT first {minrtt_time} s");
        assert!(held < minrtt_held, "{scheduler} held {held} B, lowest RTT first {minrtt_held} B");
        assert!(
            slow < minrtt_slow / 10,
            "{scheduler} sent {slow} B on the slow path, lowest RTT first {minrtt_slow} B"
        );
    }
}

#[test]
fn test_musher_delivers_every_byte_once_over_both_paths() {
    let text = two_paths("musher", r#"rate = "100Mbps""#, r#"receive_buffer = "4MB""#);
    let (time, _, slow) = outcome(&text, "musher");
    let out = run_toml(&text);
    let f = flow(&out);
    assert_eq!(f["mptcp"]["duplicate_bytes"].as_u64(), Some(0), "nothing delivered twice");
    let fast = f["subflows"][0]["bytes_delivered"].as_u64().unwrap();
    assert_eq!(fast + slow, 5_000_000, "each byte carried once, completed in {time} s");
    assert!(slow > 0 && fast > slow, "the ratio uses both paths: {fast} B fast, {slow} B slow");
}

#[test]
fn test_musher_refuses_a_connection_without_exactly_two_subflows() {
    let three = two_paths("musher", r#"rate = "100Mbps""#, r#"receive_buffer = "4MB""#).replace(
        r#"subflows = [{ path = ["server", "r0", "ue"] }"#,
        r#"subflows = [{ path = ["server", "r0", "ue"] }, { path = ["server", "r0", "ue"] }"#,
    );
    let options = mmtcp::api::RunOptions::default();
    let Err(e) = mmtcp::api::run(&source(&three), &options, &mut |_| true) else {
        panic!("three subflows ran")
    };
    let message = e.to_string();
    assert!(message.contains("flow[0].transport.scheduler"), "{message}");
    assert!(message.contains("musher needs exactly two subflows"), "{message}");
}
