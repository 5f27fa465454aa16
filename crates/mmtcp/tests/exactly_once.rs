//! Property: whatever the path does to packets — random loss up to 30 %, reordering,
//! duplication, in both directions — every byte the sending application wrote reaches the
//! receiving application exactly once and in order, for NewReno and CUBIC, with and without
//! SACK, with and without delayed ACKs, whichever end opens the connection.
//!
//! The receiver hands the application only the contiguous prefix `[0, rcv_nxt)`; a byte
//! delivered twice would show as more bytes or segments delivered than were written, a byte
//! skipped as a transfer that never completes or delivers fewer.

mod common;
use common::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// One random path and connection.
#[derive(Debug)]
struct Case {
    size: u64,
    loss: f64,
    reorder: f64,
    reorder_ms: u64,
    duplicate: f64,
    newreno: bool,
    sack: bool,
    delayed_ack: bool,
    download: bool,
}

fn scenario(c: &Case) -> String {
    let size = c.size;
    let app = if c.download {
        format!(r#"{{ kind = "download", size = "{size}B" }}"#)
    } else {
        format!(r#"{{ kind = "bulk", size = "{size}B" }}"#)
    };
    let impair = format!(
        "{{ loss = {}, reorder = {}, reorder_delay = \"{}ms\", duplicate = {} }}",
        c.loss, c.reorder, c.reorder_ms, c.duplicate
    );
    let cc = if c.newreno { "newreno" } else { "cubic" };
    let (sack, delayed_ack) = (c.sack, c.delayed_ack);
    format!(
        r#"
[simulation]
duration = "3000s"
[metrics]
interval = "100s"
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "100Mbps"
delay = "2ms"
buffer = "100pkt"
forward = {impair}
reverse = {impair}
[[flow]]
from = "a"
to = "b"
transport = {{ cc = "{cc}", sack = {sack}, delayed_ack = {delayed_ack}, max_rto = "10s", receive_buffer = "64KB" }}
app = {app}
"#
    )
}

fn config() -> Config {
    Config { cases: 96, rng_seed: RngSeed::Fixed(0x6d6d_7463_7000), ..Config::default() }
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn every_byte_arrives_once_and_in_order(
        size in 1u64..400_000,
        loss in 0.0f64..0.3,
        reorder in 0.0f64..0.3,
        reorder_ms in 1u64..20,
        duplicate in 0.0f64..0.2,
        newreno in any::<bool>(),
        sack in any::<bool>(),
        delayed_ack in any::<bool>(),
        download in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let case = Case { size, loss, reorder, reorder_ms, duplicate, newreno, sack, delayed_ack, download };
        let text = scenario(&case);
        let out = run_toml_with(&text, &[("simulation.seed", &seed.to_string())]);
        let f = flow(&out);
        let delivered = f["bytes_delivered"].as_u64().unwrap();
        let segments = f["delivered_segments"].as_u64().unwrap();
        let arrived = f["arrived_segments"].as_u64().unwrap();
        prop_assert_eq!(delivered, size, "bytes delivered");
        prop_assert_eq!(segments, size.div_ceil(1448), "distinct segments delivered");
        prop_assert!(arrived >= segments);
        prop_assert!(f["completion_seconds"].as_f64().is_some(), "transfer completed");
    }
}
