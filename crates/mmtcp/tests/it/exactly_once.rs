//! Property: whatever the path does to packets — random loss up to 30 %, reordering,
//! duplication, in both directions — every byte the sending application wrote reaches the
//! receiving application exactly once and in order, for NewReno, CUBIC and BBR, with PRR or
//! classic recovery, with and without SACK, with and without delayed ACKs, whichever end opens the connection; and over the radio
//! stack, whatever its channel, HARQ and RLC configuration lose, repeat or reorder.
//!
//! The receiver hands the application only the contiguous prefix `[0, rcv_nxt)`; a byte
//! delivered twice would show as more bytes or segments delivered than were written, a byte
//! skipped as a transfer that never completes or delivers fewer.

use crate::common::*;
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
    /// 0 NewReno, 1 CUBIC, 2 BBR.
    cc: usize,
    /// PRR, or classic recovery.
    prr: bool,
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
    let cc = ["newreno", "cubic", "bbr"][c.cc];
    let recovery = if c.prr { "prr" } else { "classic" };
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
transport = {{ cc = "{cc}", recovery = "{recovery}", sack = {sack}, delayed_ack = {delayed_ack}, max_rto = "10s", receive_buffer = "64KB" }}
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
        cc in 0usize..3,
        prr in any::<bool>(),
        sack in any::<bool>(),
        delayed_ack in any::<bool>(),
        download in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let case = Case { size, loss, reorder, reorder_ms, duplicate, cc, prr, sack, delayed_ack, download };
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

/// One random radio-stack link: where the UE is, how often blockage changes, and the link layer.
#[derive(Debug)]
struct RadioCase {
    size: u64,
    distance_m: u32,
    dwell_ms: u64,
    harq: bool,
    rlc: &'static str,
    codel: bool,
    buffer_kb: u64,
    max_retx: u32,
    download: bool,
}

fn radio_scenario(c: &RadioCase) -> String {
    let size = c.size;
    let app = if c.download {
        format!(r#"{{ kind = "download", size = "{size}B" }}"#)
    } else {
        format!(r#"{{ kind = "bulk", size = "{size}B" }}"#)
    };
    let policy = if c.codel { "codel" } else { "droptail" };
    format!(
        r#"
[simulation]
duration = "300s"
[metrics]
interval = "10s"
[[node]]
name = "ue"
[[node]]
name = "enb"
[[link]]
between = ["ue", "enb"]
kind = "radio"
delay = "10us"
[link.radio]
channel = {{ kind = "cellular", distance_m = {d}.0, state_dwell = "{dwell}ms" }}
harq = {{ enabled = {harq} }}
rlc = {{ mode = "{rlc}", policy = "{policy}", buffer = "{buffer}KB", max_retx = {max_retx} }}
[[flow]]
from = "ue"
to = "enb"
transport = {{ max_rto = "10s" }}
app = {app}
"#,
        d = c.distance_m,
        dwell = c.dwell_ms,
        harq = c.harq,
        rlc = c.rlc,
        buffer = c.buffer_kb,
        max_retx = c.max_retx,
    )
}

proptest! {
    #![proptest_config(Config { cases: 32, rng_seed: RngSeed::Fixed(0x7261_6469_6f00), ..Config::default() })]
    /// The same property over the radio stack: NYU channel with blockage and fading, HARQ on or
    /// off, RLC TM/UM/AM with drop-tail or CoDel buffers and small AM retransmission limits —
    /// whatever the radio loses, duplicates or reorders, TCP delivers every byte once, in order.
    #[test]
    fn every_byte_arrives_once_and_in_order_over_the_radio_stack(
        size in 1u64..300_000,
        distance_m in 20u32..140,
        dwell_ms in 20u64..1000,
        harq in any::<bool>(),
        rlc in prop::sample::select(vec!["tm", "um", "am"]),
        codel in any::<bool>(),
        buffer_kb in 20u64..4000,
        max_retx in 1u32..8,
        download in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let case = RadioCase { size, distance_m, dwell_ms, harq, rlc, codel, buffer_kb, max_retx, download };
        let out = run_toml_with(&radio_scenario(&case), &[("simulation.seed", &seed.to_string())]);
        let f = flow(&out);
        prop_assert_eq!(f["bytes_delivered"].as_u64().unwrap(), size, "bytes delivered");
        prop_assert_eq!(f["delivered_segments"].as_u64().unwrap(), size.div_ceil(1448));
        prop_assert!(f["completion_seconds"].as_f64().is_some(), "transfer completed");
    }
}

/// One random radio link with LOS/NLOS outages and the keys that throw data away: radio link
/// failure after `rlf_ms`, the RLC discard timer, and a TDD pattern.
#[derive(Debug)]
struct RlfCase {
    size: u64,
    los_sinr_db: f64,
    los_ms: u64,
    nlos_ms: u64,
    rlf_ms: u64,
    discard_ms: Option<u64>,
    tdd: Option<&'static str>,
    rlc: &'static str,
    harq: bool,
    /// Application rate, Mbit/s: slow enough that the transfer spans several outages.
    rate_mbps: u64,
}

fn rlf_scenario(c: &RlfCase) -> String {
    let app = format!(r#"{{ kind = "bulk", size = "{}B", rate_limit = "{}Mbps" }}"#, c.size, c.rate_mbps);
    let discard = c.discard_ms.map(|ms| format!(", discard_timer = \"{ms}ms\"")).unwrap_or_default();
    let tdd = c.tdd.map(|t| format!("tdd = \"{t}\"")).unwrap_or_default();
    format!(
        r#"
[simulation]
duration = "600s"
[metrics]
interval = "10s"
[[node]]
name = "ue"
[[node]]
name = "enb"
[[link]]
between = ["enb", "ue"]
kind = "radio"
delay = "10us"
[link.radio]
channel = {{ kind = "onoff", los_sinr_db = {los_db}, los_duration = "{los}ms", nlos_duration = "{nlos}ms", distribution = "exponential" }}
harq = {{ enabled = {harq} }}
rlc = {{ mode = "{rlc}", buffer = "2MB"{discard} }}
rlf_timeout = "{rlf}ms"
{tdd}
[[flow]]
from = "enb"
to = "ue"
transport = {{ max_rto = "10s" }}
app = {app}
"#,
        los_db = c.los_sinr_db,
        los = c.los_ms,
        nlos = c.nlos_ms,
        harq = c.harq,
        rlc = c.rlc,
        rlf = c.rlf_ms,
    )
}

proptest! {
    #![proptest_config(Config { cases: 24, rng_seed: RngSeed::Fixed(0x726c_6600), ..Config::default() })]
    /// Radio link failures discard everything RLC holds, the discard timer drops old SDUs, TDD
    /// idles a direction in the other's slots: TCP still delivers every byte once and in order,
    /// and every packet goes back to the arena (no leak).
    #[test]
    fn every_byte_arrives_once_through_radio_link_failures(
        size in 1u64..4_000_000,
        los_sinr_db in 3.0f64..25.0,
        los_ms in 20u64..500,
        nlos_ms in 10u64..800,
        rlf_ms in 5u64..300,
        discard_ms in prop::option::of(5u64..400),
        tdd in prop::option::of(prop::sample::select(vec!["DU", "DDDU", "CCDDUUUU", "DSUUU"])),
        rlc in prop::sample::select(vec!["tm", "um", "am"]),
        harq in any::<bool>(),
        rate_mbps in 10u64..300,
        seed in 0u64..1000,
    ) {
        let case = RlfCase { size, los_sinr_db, los_ms, nlos_ms, rlf_ms, discard_ms, tdd, rlc, harq, rate_mbps };
        let loaded = mmtcp::scenario::load(&source(&rlf_scenario(&case)), &mmtcp::api::RunOptions::default())
            .unwrap();
        let mut w = mmtcp::scenario::build::build(&loaded.scenario, &loaded.file, &loaded.base_dir, seed).unwrap();
        w.run(&mut |_, _| true);
        let f = &w.flows()[0];
        prop_assert_eq!(f.receiver().stats.bytes_delivered, size, "bytes delivered");
        prop_assert!(f.completed_at().is_some(), "transfer completed");
        prop_assert_eq!(w.live_packets(), 0, "packets leaked");
    }
}

/// One random proxy-carried flow: server —(wired, maybe lossy)— bs —(radio stack with LOS/NLOS
/// blockage)— ue, with a proxy on bs.
#[derive(Debug)]
struct ProxyCase {
    size: u64,
    wired_loss: f64,
    los_sinr_db: f64,
    /// `None`: NLOS is an outage.
    nlos_sinr_db: Option<f64>,
    los_ms: u64,
    nlos_ms: u64,
    exponential: bool,
    start_nlos: bool,
    target_bler: f64,
    harq: bool,
    rlc: &'static str,
    buffer_kb: u64,
    processor: &'static str,
    download: bool,
}

/// The processors a case may put on bs.
const PROXIES: [&str; 8] = [
    r#"{ kind = "pep" }"#,
    r#"{ kind = "pep", timeout = "go_back_n" }"#,
    r#"{ kind = "pep", hold_for_rlc = true, mobile_window = true }"#,
    r#"{ kind = "mmpep" }"#,
    r#"{ kind = "mmpep", hold_for_rlc = true }"#,
    r#"{ kind = "bdp", policy = "reactive" }"#,
    r#"{ kind = "bdp", policy = "proactive" }"#,
    r#"{ kind = "bdp", deployment = "split" }"#,
];

fn proxy_scenario(c: &ProxyCase) -> String {
    let size = c.size;
    let app = if c.download {
        format!(r#"{{ kind = "download", size = "{size}B" }}"#)
    } else {
        format!(r#"{{ kind = "bulk", size = "{size}B" }}"#)
    };
    let nlos = c.nlos_sinr_db.map(|db| format!(", nlos_sinr_db = {db}")).unwrap_or_default();
    let distribution = if c.exponential { "exponential" } else { "fixed" };
    let start = if c.start_nlos { "nlos" } else { "los" };
    format!(
        r#"
[simulation]
duration = "3600s"
[metrics]
interval = "10s"
[[node]]
name = "server"
[[node]]
name = "bs"
processors = [{processor}]
[[node]]
name = "ue"
[[link]]
between = ["server", "bs"]
rate = "1Gbps"
delay = "5ms"
buffer = "1000pkt"
forward = {{ loss = {loss} }}
reverse = {{ loss = {loss} }}
[[link]]
between = ["bs", "ue"]
kind = "radio"
delay = "1us"
[link.radio]
bandwidth = "100MHz"
amc = {{ target_bler = {bler} }}
channel = {{ kind = "onoff", los_sinr_db = {los}{nlos}, los_duration = "{los_ms}ms", nlos_duration = "{nlos_ms}ms", distribution = "{distribution}", start = "{start}" }}
harq = {{ enabled = {harq} }}
rlc = {{ mode = "{rlc}", buffer = "{buffer}KB" }}
[[flow]]
from = "server"
to = "ue"
transport = {{ max_rto = "10s" }}
app = {app}
"#,
        processor = c.processor,
        loss = c.wired_loss,
        los = c.los_sinr_db,
        los_ms = c.los_ms,
        nlos_ms = c.nlos_ms,
        bler = c.target_bler,
        harq = c.harq,
        rlc = c.rlc,
        buffer = c.buffer_kb,
    )
}

proptest! {
    #![proptest_config(Config { cases: 64, rng_seed: RngSeed::Fixed(0x7072_6f78_7900), ..Config::default() })]
    /// The same property through a proxy on the base station — PEP and mmPEP (forwarding at
    /// once, or waiting for room in RLC and for the mobile's window), the BDP proxy's
    /// reactive and proactive control deployments, its split deployment — with random wired
    /// losses, block errors at a random LOS SINR, random LOS/NLOS periods (outages or a low NLOS
    /// SINR), HARQ on or off, RLC UM or AM with a random buffer: every byte reaches the UE
    /// exactly once and in order, and the transfer completes. The proxy's own repairs and
    /// windows are on the path now: a byte the proxy acknowledged early and then lost, or
    /// relayed twice, shows as a transfer that never completes or delivers more.
    ///
    /// The hour of simulated time (cheap: an idle flow costs only channel events) leaves room
    /// for the slowest legitimate cases, e.g. the proactive BDP proxy stopping the sender in
    /// every outage of a link blocked most of the time, with TCP's backed-off RTO (2700 s).
    #[test]
    fn every_byte_arrives_once_and_in_order_through_a_proxy(
        size in 1u64..1_000_000,
        wired_loss in prop_oneof![Just(0.0), 0.0f64..0.03],
        los_sinr_db in 0.0f64..25.0,
        nlos_sinr_db in prop::option::weighted(0.3, -5.0f64..5.0),
        los_ms in 20u64..600,
        nlos_ms in 10u64..400,
        exponential in any::<bool>(),
        start_nlos in any::<bool>(),
        target_bler in 0.05f64..0.4,
        harq in any::<bool>(),
        rlc in prop::sample::select(vec!["um", "am"]),
        buffer_kb in prop_oneof![10u64..100, 100u64..2000],
        processor in prop::sample::select(PROXIES.to_vec()),
        download in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let case = ProxyCase {
            size, wired_loss, los_sinr_db, nlos_sinr_db, los_ms, nlos_ms, exponential, start_nlos, target_bler, harq, rlc,
            buffer_kb, processor, download,
        };
        let out = run_toml_with(&proxy_scenario(&case), &[("simulation.seed", &seed.to_string())]);
        let f = flow(&out);
        prop_assert_eq!(f["bytes_delivered"].as_u64().unwrap(), size, "bytes delivered");
        prop_assert_eq!(f["delivered_segments"].as_u64().unwrap(), size.div_ceil(1448));
        prop_assert!(f["completion_seconds"].as_f64().is_some(), "transfer completed");
    }
}
