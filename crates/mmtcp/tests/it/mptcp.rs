//! MP-TCP connections end to end: exactly-once delivery over impaired and failing paths, the
//! schedulers' and the connection's observable behaviour, and the summary's per-subflow keys.

use crate::common::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// One path of a random case: its impairments (both directions) and whether it has outages or
/// fails for good.
#[derive(Clone, Debug)]
struct PathCase {
    rate_mbps: u64,
    delay_ms: u64,
    loss: f64,
    reorder: f64,
    duplicate: f64,
    /// None: always up. Some((up_ms, down_ms, permanent)): up for `up_ms`, then down for
    /// `down_ms` at a time (exponential sojourns), or for good.
    outage: Option<(u64, u64, bool)>,
    backup: bool,
}

fn path_case() -> impl Strategy<Value = PathCase> {
    (
        1u64..200,
        1u64..60,
        0.0f64..0.1,
        0.0f64..0.2,
        0.0f64..0.1,
        prop::option::of((100u64..3000, 50u64..1000, any::<bool>())),
        prop::bool::weighted(0.2),
    )
        .prop_map(|(rate_mbps, delay_ms, loss, reorder, duplicate, outage, backup)| PathCase {
            rate_mbps,
            delay_ms,
            loss,
            reorder,
            duplicate,
            outage,
            backup,
        })
}

#[derive(Debug)]
struct Case {
    size: u64,
    paths: Vec<PathCase>,
    cc: &'static str,
    scheduler: &'static str,
    sack: bool,
    delayed_ack: bool,
    download: bool,
    join_delay_ms: u64,
    receive_buffer_kb: u64,
}

/// Node `ue` reaches `server` through one router per path; the access link `ue`–`r<k>` carries
/// the path's impairments, the router's uplink is clean.
fn scenario(c: &Case) -> String {
    let mut s = String::from(
        "[simulation]\nduration = \"3000s\"\n[metrics]\ninterval = \"100s\"\n[[node]]\nname = \"ue\"\n[[node]]\nname = \"server\"\n",
    );
    let mut subflows = Vec::new();
    for (k, p) in c.paths.iter().enumerate() {
        let impair = format!(
            "{{ loss = {}, reorder = {}, reorder_delay = \"3ms\", duplicate = {} }}",
            p.loss, p.reorder, p.duplicate
        );
        let access = match p.outage {
            None => format!("rate = \"{}Mbps\"", p.rate_mbps),
            Some((up, down, permanent)) => {
                let (down, distribution) = if permanent {
                    ("100000s".to_string(), "fixed")
                } else {
                    (format!("{down}ms"), "exponential")
                };
                format!(
                    "kind = \"radio\"\nchannel = {{ kind = \"onoff\", los_rate = \"{}Mbps\", nlos_rate = \"0bps\", los_duration = \"{up}ms\", nlos_duration = \"{down}\", distribution = \"{distribution}\" }}",
                    p.rate_mbps
                )
            }
        };
        s += &format!(
            "[[node]]\nname = \"r{k}\"\n[[link]]\nbetween = [\"ue\", \"r{k}\"]\n{access}\ndelay = \"{}ms\"\nbuffer = \"100pkt\"\nforward = {impair}\nreverse = {impair}\n[[link]]\nbetween = [\"r{k}\", \"server\"]\nrate = \"1Gbps\"\ndelay = \"1ms\"\n",
            p.delay_ms
        );
        subflows.push(format!("{{ path = [\"ue\", \"r{k}\", \"server\"], backup = {} }}", p.backup));
    }
    let app = if c.download {
        format!(r#"{{ kind = "download", size = "{}B" }}"#, c.size)
    } else {
        format!(r#"{{ kind = "bulk", size = "{}B" }}"#, c.size)
    };
    s += &format!(
        "[[flow]]\nfrom = \"ue\"\nto = \"server\"\napp = {app}\ntransport = {{ kind = \"mptcp\", {}, scheduler = \"{}\", sack = {}, delayed_ack = {}, join_delay = \"{}ms\", max_rto = \"10s\", receive_buffer = \"{}KB\", subflows = [{}] }}\n",
        c.cc,
        c.scheduler,
        c.sack,
        c.delayed_ack,
        c.join_delay_ms,
        c.receive_buffer_kb,
        subflows.join(", ")
    );
    s
}

/// The controllers (`transport` keys) and schedulers every property runs over.
const CONTROLLERS: [&str; 10] = [
    r#"cc = "newreno""#,
    r#"cc = "cubic""#,
    r#"cc = "bbr""#,
    r#"cc = "lia""#,
    r#"cc = "olia""#,
    r#"cc = "balia""#,
    r#"cc = "mpcubic""#,
    r#"cc = "lia", variant = "linux-v0.90""#,
    r#"cc = "olia", variant = "linux-v0.90""#,
    r#"cc = "balia", variant = "linux-v0.90""#,
];
const SCHEDULERS: [&str; 6] = ["minrtt", "roundrobin", "redundant", "blest", "ecf", "musher"];

proptest! {
    #![proptest_config(Config { cases: 256, rng_seed: RngSeed::Fixed(0x6d70_7463_7000), ..Config::default() })]
    /// Whatever each path does — loss, reordering, duplication, outages, failing for good once
    /// the transfer is under way — every byte the application wrote reaches the receiving
    /// application once and in order, for every controller and scheduler, as long as one path
    /// stays up (the first path never fails for good).
    #[test]
    fn every_byte_arrives_once_and_in_order_over_every_subflow(
        size in 1u64..600_000,
        first in path_case(),
        others in prop::collection::vec(path_case(), 1..3),
        cc in prop::sample::select(CONTROLLERS.to_vec()),
        scheduler in prop::sample::select(SCHEDULERS.to_vec()),
        sack in any::<bool>(),
        delayed_ack in any::<bool>(),
        download in any::<bool>(),
        join_delay_ms in 0u64..500,
        receive_buffer_kb in 16u64..512,
        seed in 0u64..1000,
    ) {
        let first = PathCase { outage: first.outage.map(|(up, down, _)| (up, down, false)), ..first };
        let mut paths = vec![first];
        paths.extend(others);
        if scheduler == "musher" {
            paths.truncate(2);
        }
        let case = Case { size, paths, cc, scheduler, sack, delayed_ack, download, join_delay_ms, receive_buffer_kb };
        let out = run_toml_with(&scenario(&case), &[("simulation.seed", &seed.to_string())]);
        let f = flow(&out);
        prop_assert_eq!(f["bytes_delivered"].as_u64().unwrap(), size, "bytes delivered");
        prop_assert!(f["completion_seconds"].as_f64().is_some(), "transfer completed");
        prop_assert_eq!(f["dropped_segments"]["by_cause"]["receive_buffer"].as_u64(), Some(0), "nothing sent beyond the window");
    }
}

/// Two clean paths of 100 and 50 Mbit/s, 10 and 30 ms one way, with `transport` keys added.
fn two_paths(transport: &str, app: &str) -> String {
    let fast = PathSpec { rate: "100Mbps", delay: "10ms", core_rate: "1Gbps" };
    let slow = PathSpec { rate: "50Mbps", delay: "30ms", core_rate: "1Gbps" };
    two_path_connection("5s", [fast, slow], transport, app)
}

#[test]
fn test_two_paths_carry_more_than_the_best_one_and_the_summary_lists_them() {
    let out = run_toml(&two_paths("", r#"{ kind = "bulk" }"#));
    let f = flow(&out);
    assert_eq!(f["transport"], "mptcp");
    let goodput = f64_of(&f["goodput_bps"]);
    assert!(goodput > 120e6, "above the best path's 100 Mbit/s: {goodput}");
    let subflows = f["subflows"].as_array().unwrap();
    assert_eq!(subflows.len(), 2);
    assert_eq!(subflows[0]["path"], serde_json::json!(["ue", "r0", "server"]));
    assert_eq!(subflows[1]["path"], serde_json::json!(["ue", "r1", "server"]));
    let sum: f64 = subflows.iter().map(|s| f64_of(&s["goodput_bps"])).sum();
    assert!(
        (sum - goodput).abs() < 0.02 * goodput,
        "the subflows make up the connection: {sum} vs {goodput}"
    );
    assert!(f64_of(&subflows[0]["goodput_bps"]) > 80e6);
    assert!(f64_of(&subflows[1]["goodput_bps"]) > 35e6);
    let share: f64 = subflows.iter().map(|s| f64_of(&s["share"])).sum();
    assert!((share - 1.0).abs() < 1e-9);
    // The time series has each subflow's columns and the connection's.
    for column in [
        "flow.mp.sf0.cwnd_bytes",
        "flow.mp.sf1.rtt_ms",
        "flow.mp.goodput_bps",
        "flow.mp.reorder_buffer_bytes",
    ] {
        assert!(out.columns.iter().any(|c| c.name == column), "missing {column}");
    }
}

#[test]
fn test_the_second_subflow_joins_after_the_first_is_established_plus_the_delay() {
    let out = run_toml(&two_paths(r#", join_delay = "1s""#, r#"{ kind = "bulk" }"#));
    let subflows = flow(&out)["subflows"].as_array().unwrap().clone();
    // The first handshake takes one RTT on path 0: 2 × (10 + 1) ms.
    let joined = f64_of(&subflows[1]["start_seconds"]);
    assert!((joined - 1.022).abs() < 1e-3, "joined at {joined}");
    assert!(f64_of(&subflows[1]["bytes_delivered"]) > 0.0);
}

#[test]
fn test_redundant_scheduler_sends_every_byte_on_every_subflow() {
    // An application so slow that what it writes in one round trip of the slow path (1 Mbit/s
    // × 62 ms, about 8 KB) fits the initial window: each chunk finds room on both subflows, and
    // both send all of it once the second is established.
    let out = run_toml(&two_paths(
        r#", scheduler = "redundant""#,
        r#"{ kind = "bulk", size = "500KB", rate_limit = "1Mbps" }"#,
    ));
    let f = flow(&out);
    assert_eq!(f["bytes_delivered"].as_u64(), Some(500_000));
    let subflows = f["subflows"].as_array().unwrap();
    assert_eq!(subflows[0]["bytes_delivered"].as_u64(), Some(500_000));
    // The second subflow is established after the first's handshake (22 ms) and its own (62.5
    // ms), at 84.5 ms; by then the first has delivered and DATA_ACKed every chunk written before
    // 62.5 ms — one segment of a subflow (1448 B less the DSS option's 20) every 11.4 ms from
    // 0, six — which the second skips. It sends all the rest.
    let second = subflows[1]["bytes_delivered"].as_u64().unwrap();
    assert_eq!(second, 500_000 - 6 * 1428, "the second subflow carried the rest");
    assert_eq!(f["mptcp"]["duplicate_bytes"].as_u64(), Some(second));
}

#[test]
fn test_a_backup_subflow_stays_idle_while_the_active_one_works() {
    let text = two_paths("", r#"{ kind = "bulk" }"#).replace(
        r#"{ path = ["ue", "r1", "server"] }"#,
        r#"{ path = ["ue", "r1", "server"], backup = true }"#,
    );
    let out = run_toml(&text);
    let subflows = flow(&out)["subflows"].as_array().unwrap().clone();
    assert_eq!(subflows[1]["backup"], true);
    assert_eq!(subflows[1]["bytes_delivered"].as_u64(), Some(0));
    assert!(f64_of(&subflows[0]["goodput_bps"]) > 80e6);
}

#[test]
fn test_a_failed_path_is_abandoned_and_its_data_reinjected() {
    // Path 0 (the faster) dies for good at 1 s.
    let text = two_paths("", r#"{ kind = "bulk", size = "30MB" }"#).replace(
        "between = [\"ue\", \"r0\"]\nrate = \"100Mbps\"",
        "between = [\"ue\", \"r0\"]\nkind = \"radio\"\nchannel = { kind = \"onoff\", los_rate = \"100Mbps\", nlos_rate = \"0bps\", los_duration = \"1s\", nlos_duration = \"1000s\", distribution = \"fixed\" }",
    );
    let out = run_toml(&text);
    let f = flow(&out);
    assert_eq!(f["bytes_delivered"].as_u64(), Some(30_000_000), "completed over the other path");
    assert!(f["mptcp"]["reinjected_bytes"].as_u64().unwrap() > 0);
    assert!(f["mptcp"]["reinjection_events"].as_u64().unwrap() >= 1);
    let completion = f64_of(&f["completion_seconds"]);
    // 1 s on both paths (~150 Mbit/s, minus slow start) then 50 Mbit/s: about 4 to 5 s.
    assert!(completion < 5.0, "completed in {completion} s");
}

#[test]
fn test_the_shared_receive_buffer_blocks_the_fast_path_behind_the_slow_one() {
    // 256 KB of connection window: round robin puts every other chunk on the slow path, whose
    // data the fast path's must wait for (head-of-line blocking); lowest-RTT-first keeps the
    // window on the fast path, whose bandwidth-delay product (100 Mbit/s × 22 ms = 275 KB) takes
    // it all.
    let run = |scheduler: &str| {
        let out = run_toml(&two_paths(
            &format!(r#", receive_buffer = "256KB", scheduler = "{scheduler}""#),
            r#"{ kind = "bulk" }"#,
        ));
        flow(&out).clone()
    };
    let (rr, minrtt) = (run("roundrobin"), run("minrtt"));
    for f in [&rr, &minrtt] {
        let max = f["mptcp"]["reorder_buffer_max_bytes"].as_u64().unwrap();
        assert!(max <= 256_000, "held at most the buffer: {max}");
    }
    assert!(
        f64_of(&rr["mptcp"]["reorder_delay_ms"]["max"]) > 20.0,
        "fast-path data waited for the slow path"
    );
    assert!(f64_of(&rr["mptcp"]["reorder_buffer_mean_bytes"]) > 30_000.0);
    let (g_rr, g_minrtt) = (f64_of(&rr["goodput_bps"]), f64_of(&minrtt["goodput_bps"]));
    assert!(g_rr < 70e6, "round robin is held back by the slow path: {g_rr}");
    assert!(g_minrtt > 85e6, "lowest RTT first is not: {g_minrtt}");
}

#[test]
fn test_minrtt_penalises_the_slow_subflow_and_resends_what_it_holds_up() {
    // The slow path's RTT (202 ms) is more than four times the fast one's (22 ms): when the
    // 512 KB connection window fills, the fast subflow sends the chunk the receiver waits for
    // again and halves the slow subflow's window (Linux v0.90 `mptcp_rcv_buf_optimization`).
    let text = two_paths(r#", receive_buffer = "512KB""#, r#"{ kind = "bulk" }"#)
        .replace("delay = \"30ms\"", "delay = \"100ms\"");
    let out = run_toml(&text);
    let f = flow(&out);
    assert!(f["mptcp"]["opportunistic_bytes"].as_u64().unwrap() > 0);
    assert!(f["subflows"][1]["penalisations"].as_u64().unwrap() > 0);
    assert_eq!(f["subflows"][0]["penalisations"].as_u64(), Some(0), "the fast one is never penalised");
}

#[test]
fn test_mptcp_keys_need_kind_mptcp_and_subflows() {
    let bad = [
        (
            "[simulation]\n[[node]]\nname=\"a\"\n[[node]]\nname=\"b\"\n[[link]]\nbetween=[\"a\",\"b\"]\nrate=\"1Mbps\"\n[[flow]]\nfrom=\"a\"\nto=\"b\"\ntransport = { scheduler = \"minrtt\" }\n",
            "flow[0].transport.scheduler",
        ),
        (
            "[simulation]\n[[node]]\nname=\"a\"\n[[node]]\nname=\"b\"\n[[link]]\nbetween=[\"a\",\"b\"]\nrate=\"1Mbps\"\n[[flow]]\nfrom=\"a\"\nto=\"b\"\ntransport = { kind = \"mptcp\" }\n",
            "flow[0].transport.subflows",
        ),
        (
            "[simulation]\n[[node]]\nname=\"a\"\n[[node]]\nname=\"b\"\n[[link]]\nbetween=[\"a\",\"b\"]\nrate=\"1Mbps\"\n[[flow]]\nfrom=\"a\"\nto=\"b\"\ntransport = { cc = \"lia\" }\n",
            "flow[0].transport.cc",
        ),
        (
            "[simulation]\n[[node]]\nname=\"a\"\n[[node]]\nname=\"b\"\n[[link]]\nbetween=[\"a\",\"b\"]\nrate=\"1Mbps\"\n[[flow]]\nfrom=\"a\"\nto=\"b\"\ntransport = { kind = \"mptcp\", subflows = [{ path = [\"b\", \"a\"] }] }\n",
            "flow[0].transport.subflows[0].path",
        ),
        (
            "[simulation]\n[[node]]\nname=\"a\"\n[[node]]\nname=\"b\"\n[[link]]\nbetween=[\"a\",\"b\"]\nrate=\"1Mbps\"\n[[flow]]\nfrom=\"a\"\nto=\"b\"\npath = [\"a\", \"b\"]\ntransport = { kind = \"mptcp\", subflows = [{}] }\n",
            "flow[0].path",
        ),
        (
            "[simulation]\n[[node]]\nname=\"a\"\n[[node]]\nname=\"b\"\n[[link]]\nbetween=[\"a\",\"b\"]\nrate=\"1Mbps\"\n[[flow]]\nfrom=\"a\"\nto=\"b\"\ntransport = { kind = \"mptcp\", scheduler = \"fastest\", subflows = [{}] }\n",
            "flow[0].transport",
        ),
        (
            "[simulation]\n[[node]]\nname=\"a\"\n[[node]]\nname=\"b\"\n[[link]]\nbetween=[\"a\",\"b\"]\nrate=\"1Mbps\"\n[[flow]]\nname=\"m\"\nfrom=\"a\"\nto=\"b\"\ntransport = { kind = \"mptcp\", subflows = [{}, {}] }\n[[flow]]\nname=\"m.sf1\"\nfrom=\"a\"\nto=\"b\"\n",
            "flow[1].name",
        ),
    ];
    for (text, field) in bad {
        let err = mmtcp::api::validate(&source(text), &mmtcp::api::RunOptions::default())
            .expect_err("an invalid scenario");
        assert!(err.to_string().contains(field), "{field} not named in: {err}");
    }
}

#[test]
fn test_mptcp_runs_are_deterministic() {
    let text = two_paths(r#", scheduler = "roundrobin""#, r#"{ kind = "bulk" }"#).replace(
        "rate = \"50Mbps\"",
        "rate = \"50Mbps\"\nforward = { loss = 0.01 }\nreverse = { loss = 0.01 }",
    );
    let a = run_toml(&text);
    let b = run_toml(&text);
    let strip = |v: &serde_json::Value| {
        let mut v = v.clone();
        for k in ["wall_seconds", "setup_seconds", "events_per_second"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v
    };
    assert_eq!(strip(&a.summary), strip(&b.summary));
}

#[test]
fn test_the_documented_example_runs_on_its_scenario() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let doc = std::fs::read_to_string(format!("{root}/docs/models/mptcp.md")).unwrap();
    let example = doc.split("```toml\n").nth(1).and_then(|b| b.split("```").next()).expect("a toml block");
    let scenario = std::fs::read_to_string(format!("{root}/scenarios/mptcp-lte-28ghz.toml")).unwrap();
    let links = &scenario[..scenario.find("[[flow]]").expect("a flow")];
    let out = run_toml_with(&format!("{links}{example}"), &[("simulation.duration", "1s")]);
    let f = flow(&out);
    assert_eq!(f["name"], "upload");
    for s in f["subflows"].as_array().unwrap() {
        assert!(s["bytes_delivered"].as_u64().unwrap() > 100_000, "both links carry data: {s}");
    }
}

/// Two disjoint 1 Gbit/s paths of 20 ms round trip, each losing `loss` of its data packets at
/// random: loss, not capacity, limits every flow. `transport` is the flow's whole table.
fn lossy_paths(transport: &str) -> String {
    format!(
        r#"
[simulation]
duration = "120s"
[metrics]
interval = "1s"
[[node]]
name = "a"
[[node]]
name = "r0"
[[node]]
name = "r1"
[[node]]
name = "b"
[[link]]
between = ["a", "r0"]
rate = "1Gbps"
delay = "5ms"
forward = {{ loss = 0.002 }}
[[link]]
between = ["r0", "b"]
rate = "10Gbps"
delay = "5ms"
[[link]]
between = ["a", "r1"]
rate = "1Gbps"
delay = "5ms"
forward = {{ loss = 0.002 }}
[[link]]
between = ["r1", "b"]
rate = "10Gbps"
delay = "5ms"
[[flow]]
from = "a"
to = "b"
app = {{ kind = "bulk" }}
transport = {transport}
"#
    )
}

/// Mean goodput over `seeds` runs.
fn mean_goodput(text: &str, seeds: u64) -> f64 {
    (1..=seeds)
        .map(|seed| {
            f64_of(&flow(&run_toml_with(text, &[("simulation.seed", &seed.to_string())]))["goodput_bps"])
        })
        .sum::<f64>()
        / seeds as f64
}

#[test]
fn test_lia_on_two_equal_paths_takes_what_one_tcp_takes() {
    // RFC 6356 §3: on paths of equal RTT and loss, LIA's subflows together are as aggressive
    // as one TCP (Reno) on one of them; uncoupled Reno subflows take twice as much.
    let subflows = r#"subflows = [{ path = ["a", "r0", "b"] }, { path = ["a", "r1", "b"] }]"#;
    let tcp = mean_goodput(&lossy_paths(r#"{ cc = "newreno" }"#), 4);
    let lia = mean_goodput(&lossy_paths(&format!(r#"{{ kind = "mptcp", cc = "lia", {subflows} }}"#)), 4);
    let uncoupled =
        mean_goodput(&lossy_paths(&format!(r#"{{ kind = "mptcp", cc = "newreno", {subflows} }}"#)), 4);
    assert!((lia / tcp - 1.0).abs() < 0.1, "LIA {lia} against one TCP {tcp}");
    assert!(uncoupled / tcp > 1.7, "uncoupled {uncoupled} against one TCP {tcp}");
}

#[test]
fn test_a_coupled_subflow_reads_its_sibling_in_the_world() {
    // On the same two lossy paths, LIA's first subflow gets about half what an uncoupled Reno
    // subflow gets on that path: its increase counts its sibling's window.
    let subflows = r#"subflows = [{ path = ["a", "r0", "b"] }, { path = ["a", "r1", "b"] }]"#;
    let share = |cc: &str| {
        let out = run_toml(&lossy_paths(&format!(r#"{{ kind = "mptcp", cc = "{cc}", {subflows} }}"#)));
        f64_of(&flow(&out)["subflows"][0]["goodput_bps"])
    };
    let (lia, reno) = (share("lia"), share("newreno"));
    assert!(lia < 0.8 * reno, "LIA's first subflow {lia} against uncoupled {reno}");
}

/// An MP-TCP connection with two uncoupled subflows and one plain TCP flow through one
/// 100 Mbit/s, 200-packet drop-tail bottleneck of 20 ms base round trip (the set-up of issue
/// 26, run there against Linux 6.18 as well). `extra` goes into the bottleneck's table.
fn shared_bottleneck(cc: &str, extra: &str) -> String {
    format!(
        r#"
[simulation]
duration = "60s"
[metrics]
interval = "1s"
[[node]]
name = "a"
[[node]]
name = "b"
[[node]]
name = "r"
[[node]]
name = "s"
[[link]]
name = "la"
between = ["a", "r"]
rate = "1Gbps"
delay = "500us"
[[link]]
name = "lb"
between = ["b", "r"]
rate = "1Gbps"
delay = "500us"
[[link]]
name = "bn"
between = ["r", "s"]
rate = "100Mbps"
delay = "9ms"
buffer = "200pkt"
{extra}
[[flow]]
name = "mp"
from = "a"
to = "s"
app = {{ kind = "bulk" }}
transport = {{ kind = "mptcp", cc = "{cc}", subflows = [{{ path = ["a", "la", "r", "bn", "s"] }}, {{ path = ["a", "la", "r", "bn", "s"] }}] }}
[[flow]]
name = "sp"
from = "b"
to = "s"
app = {{ kind = "bulk" }}
transport = {{ cc = "{cc}" }}
"#
    )
}

/// Bytes flow `name` delivered from 20 s to the end (60 s), from the per-second time series.
fn delivered_after_20s(out: &Ran, name: &str) -> f64 {
    let column =
        |c: &str| &out.columns.iter().find(|k| k.name == c).unwrap_or_else(|| panic!("no {c}")).values;
    let (time, bytes) = (column("time_s"), column(&format!("flow.{name}.delivered_bytes")));
    let at20 = time.iter().position(|&t| (t - 20.0).abs() < 1e-9).expect("a row at 20 s");
    bytes[bytes.len() - 1] - bytes[at20]
}

#[test]
fn test_a_subflow_segment_is_no_larger_on_the_wire_than_a_tcp_segment() {
    // The DSS option comes out of the payload, as Linux's current MSS leaves room for the
    // options (tcp_current_mss): full-sized data packets of both flows are 1448 + 52 = 1500 B.
    let out = run_toml(&shared_bottleneck("newreno", "").replace("60s", "2s"));
    let links = out.summary["links"].as_array().unwrap();
    let mean_size = |name: &str| {
        let l = links.iter().find(|l| l["name"] == name).unwrap();
        let d = &l["directions"][0];
        f64_of(&d["bytes_sent"]) / f64_of(&d["packets_sent"])
    };
    // Bulk senders send full-sized segments after the handshake: the means sit just below 1500.
    let (mp, sp) = (mean_size("la"), mean_size("lb"));
    assert!(mp <= 1500.0 && mp > 1490.0, "subflow data packets average {mp} B");
    assert!(sp <= 1500.0 && sp > 1490.0, "TCP data packets average {sp} B");
}

#[test]
fn test_two_uncoupled_subflows_on_one_bottleneck_take_what_two_tcp_flows_take() {
    // Uncoupled subflows are two TCP flows: beside one plain TCP flow on a shared bottleneck
    // they take about two shares (RFC 6356 §1's motivation for coupling), and no more. Subflow
    // packets 20 B over the MTU, as before the DSS option came out of the payload, made mmtcp's
    // take 3.8x (NewReno) and 3.4x (CUBIC): a packet-counted drop-tail queue then drops the
    // other flow's packets. A loss of 1e-4 breaks the phase lock of deterministic flows (as in
    // mptcp-design-goals). One seed's ratio ranges over 1.7-2.8, so the mean of six is judged,
    // with both flows' buffers autotuned as Linux's. That mean is 2.04 (NewReno) and 2.26
    // (CUBIC): two shares, as two TCP flows take (1.87x here and in Linux 6.18). Linux's own
    // 2-subflow connection took 1.19x (Reno, seven runs, 0.81-1.64), its subflows losing 1.7x as
    // often as the flow beside them for a reason not found (docs/models/mptcp.md): the bound is
    // two shares plus this spread, not Linux's.
    for cc in ["newreno", "cubic"] {
        let text = shared_bottleneck(cc, "forward = { loss = 0.0001 }");
        let ratios: Vec<f64> = (1..=6)
            .map(|seed| {
                let out = run_toml_with(&text, &[("simulation.seed", &seed.to_string())]);
                delivered_after_20s(&out, "mp") / delivered_after_20s(&out, "sp")
            })
            .collect();
        let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
        assert!((1.5..2.5).contains(&mean), "{cc}: the connection took {ratios:?} x the TCP flow");
    }
}

/// A download of `size` from `server` to `ue` over a radio path (`ue`–`r0`: 100 MHz at 15 dB,
/// about 280 Mbit/s, 2 ms) blocked from 3 s to 5 s, and a 50 Mbit/s wired path (5 ms). The
/// blockage loses what is sent into it, as an 802.11ad link that gives its frames up does: a
/// radio link failure 20 ms in discards what RLC holds, and the discard timer drops what waits
/// 50 ms after that, so nothing sent long before the blockage ends arrives after it.
fn blocked_radio_path(scheduler: &str, size: &str, duration: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
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
kind = "radio"
delay = "2ms"
[link.radio]
bandwidth = "100MHz"
channel = {{ kind = "onoff", los_sinr_db = 15.0, los_duration = "3s", nlos_duration = "2s" }}
rlc = {{ mode = "am", buffer = "4MB", discard_timer = "50ms" }}
rlf_timeout = "20ms"
[[link]]
between = ["r0", "server"]
rate = "1Gbps"
delay = "1ms"
[[link]]
between = ["ue", "r1"]
rate = "50Mbps"
delay = "5ms"
[[link]]
between = ["r1", "server"]
rate = "1Gbps"
delay = "1ms"
[[flow]]
name = "mp"
from = "server"
to = "ue"
app = {{ kind = "download", size = "{size}" }}
transport = {{ kind = "mptcp", scheduler = "{scheduler}", subflows = [{{ path = ["server", "r0", "ue"] }}, {{ path = ["server", "r1", "ue"] }}] }}
"#
    )
}

/// Subflow 0 around the blockage of [`blocked_radio_path`], watched event by event: its window
/// when last open before its first timeout in the blockage; when (after the blockage's end) data
/// was first acknowledged on it again, and its window once that ACK was handled.
struct AroundBlockage {
    before: u64,
    resumed: f64,
    after: u64,
    probes: u64,
    world: mmtcp::world::World,
}

fn around_blockage(text: &str) -> AroundBlockage {
    use mmtcp::sim::{Duration, SimTime};
    use mmtcp::transport::tcp::sender::CaState;
    let mut w = world(text);
    let sf0 = w.connections()[0].subflows().start;
    let (blocked, up) = (SimTime::ZERO + Duration::from_secs(3), SimTime::ZERO + Duration::from_secs(5));
    let (mut open_cwnd, mut before, mut resumed, mut una) = (0, None, None, 0);
    while w.step() {
        let tx = w.flows()[sf0].sender();
        match tx.ca_state() {
            CaState::Loss { .. } if before.is_none() && w.now() >= blocked => before = Some(open_cwnd),
            CaState::Open if before.is_none() => open_cwnd = tx.cwnd(),
            _ => {}
        }
        if w.now() < up {
            una = tx.snd_una();
        } else if resumed.is_none() && tx.snd_una() > una {
            resumed = Some(((w.now() - up).as_secs_f64(), tx.cwnd()));
        }
    }
    let (resumed, after) = resumed.expect("data acknowledged on subflow 0 after the blockage");
    let probes = w.flows()[sf0].sender().stats.probes;
    AroundBlockage { before: before.expect("a timeout in the blockage"), resumed, after, probes, world: w }
}

#[test]
fn test_musher_probes_a_blocked_subflow_back_with_its_window() {
    // MuSher (Saha et al., MobiCom 2019) probes the radio subflow while it times out: data is
    // acknowledged on it again within a round trip or two of the blockage's end, and the window
    // it had before returns with that ACK. Lowest RTT first waits for the subflow's backed-off
    // timer (1.7 s after the blockage here) and goes on in slow start from a few segments.
    let musher = around_blockage(&blocked_radio_path("musher", "80MB", "12s"));
    let minrtt = around_blockage(&blocked_radio_path("minrtt", "400MB", "8s"));
    eprintln!(
        "resumed after the blockage: musher {} s, minrtt {} s; window before / at resumption: musher {} / {}, minrtt {} / {}; musher probes {}",
        musher.resumed, minrtt.resumed, musher.before, musher.after, minrtt.before, minrtt.after, musher.probes
    );
    let mss = 1428;
    assert!(musher.before > 20 * mss, "a window worth restoring: {}", musher.before);
    assert_eq!(musher.after, musher.before, "the window before the timeout returns");
    assert!(minrtt.after <= 3 * mss, "minrtt goes on from a few segments: {}", minrtt.after);
    assert!(musher.resumed < 0.02, "musher resumed {} s after the blockage", musher.resumed);
    assert!(minrtt.resumed > 1.0, "minrtt waited for its timer: {} s", minrtt.resumed);
    assert!(musher.probes > 100, "musher probed the blocked subflow: {}", musher.probes);
    // Every byte reaches the application once and in order, re-injected, probed and sent
    // again as some were.
    let conn = &musher.world.connections()[0];
    assert!(conn.completed_at().is_some(), "the download completed");
    assert_eq!(conn.data_receiver().stats.bytes_delivered, 80_000_000);
    assert!(conn.data_sender().stats.reinjection_events > 0);
}
