//! Same scenario and seed ⇒ bit-identical results; another seed ⇒ different ones where
//! randomness is involved.

use crate::common::*;
use serde_json::Value;

const SCENARIO: &str = r#"
[simulation]
duration = "4s"
[[node]]
name = "server"
[[node]]
name = "bs"
[[node]]
name = "ue"
[[link]]
between = ["server", "bs"]
rate = "1Gbps"
delay = "5ms"
forward = { loss = 0.001, reorder = 0.01 }
[[link]]
between = ["bs", "ue"]
kind = "radio"
channel = { kind = "onoff", los_rate = "400Mbps", nlos_rate = "20Mbps", los_duration = "300ms", nlos_duration = "200ms", distribution = "exponential" }
delay = "1ms"
[[flow]]
from = "server"
to = "ue"
[[flow]]
from = "server"
to = "ue"
transport = { cc = "newreno" }
app = { kind = "onoff", on = "200ms", off = "100ms", rate = "50Mbps", distribution = "exponential" }
"#;

/// The summary without the fields that measure the machine rather than the model.
fn model_part(out: &Ran) -> Value {
    let mut s = out.summary.clone();
    let map = s.as_object_mut().unwrap();
    map.remove("wall_seconds");
    map.remove("setup_seconds");
    map.remove("events_per_second");
    s
}

/// A column's values as bit patterns, so that NaN compares equal to NaN.
fn bits(c: &Column) -> Vec<u64> {
    c.values.iter().map(|v| v.to_bits()).collect()
}

/// Every table of two runs is the same, to the bit (NaN equal to NaN).
fn same_tables(a: &Ran, b: &Ran) {
    use mmtcp::api::Values;
    assert_eq!(a.tables.len(), b.tables.len());
    for (x, y) in a.tables.iter().zip(&b.tables) {
        assert_eq!((&x.name, x.rows, x.columns.len()), (&y.name, y.rows, y.columns.len()));
        for (p, q) in x.columns.iter().zip(&y.columns) {
            assert_eq!((&p.name, &p.valid), (&q.name, &q.valid), "{}", x.name);
            match (&p.values, &q.values) {
                (Values::F64(u), Values::F64(v)) => {
                    let bits = |w: &[f64]| w.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(u), bits(v), "{}.{}", x.name, p.name);
                }
                (u, v) => assert_eq!(u, v, "{}.{}", x.name, p.name),
            }
        }
    }
}

#[test]
fn same_seed_gives_identical_results() {
    let a = run_toml(SCENARIO);
    let b = run_toml(SCENARIO);
    assert_eq!(model_part(&a), model_part(&b));
    same_tables(&a, &b);
    assert_eq!(a.columns.len(), b.columns.len());
    for (x, y) in a.columns.iter().zip(&b.columns) {
        assert_eq!(x.name, y.name);
        assert_eq!(bits(x), bits(y), "column {}", x.name);
    }
}

#[test]
fn another_seed_gives_other_results() {
    let a = run_toml(SCENARIO);
    let b = run_toml_with(SCENARIO, &[("simulation.seed", "2")]);
    assert_ne!(model_part(&a)["flows"], model_part(&b)["flows"]);
    assert_eq!(b.summary["seed"], 2);
}

#[test]
fn a_component_added_elsewhere_does_not_shift_a_links_random_stream() {
    // Streams derive from (seed, component id): adding a flow must not change the onoff
    // channel's blockage pattern, so the radio link's mean capacity is unchanged.
    let one_flow = SCENARIO.split("[[flow]]").take(2).collect::<Vec<_>>().join("[[flow]]");
    let a = run_toml(SCENARIO);
    let b = run_toml(&one_flow);
    assert_eq!(a.summary["links"][1]["mean_capacity_bps"], b.summary["links"][1]["mean_capacity_bps"]);
}

/// The radio stack: NYU channel (state, shadowing, fading draws), HARQ block errors, RLC AM.
const RADIO: &str = r#"
[simulation]
duration = "2s"
[[node]]
name = "ue"
[[node]]
name = "enb"
[[link]]
between = ["ue", "enb"]
kind = "radio"
[link.radio]
channel = { kind = "cellular", distance_m = 120.0, state_dwell = "200ms" }
[[flow]]
from = "ue"
to = "enb"
"#;

#[test]
fn the_radio_stack_is_deterministic_per_seed() {
    let a = run_toml(RADIO);
    let b = run_toml(RADIO);
    assert_eq!(model_part(&a), model_part(&b));
    let c = run_toml_with(RADIO, &[("simulation.seed", "7")]);
    assert_ne!(model_part(&a)["links"], model_part(&c)["links"]);
}

/// Proxies on the path: mmPEP on the base station of a fading on-off 28 GHz cell, and the
/// proactive BDP proxy (control deployment) in front of the server, both with their timers,
/// reports and control messages.
fn proxied(processors: &str, node: &str) -> String {
    format!(
        r#"
[simulation]
duration = "3s"
[[node]]
name = "server"
[[node]]
name = "proxy"
{}
[[node]]
name = "bs"
{}
[[node]]
name = "ue"
[[link]]
between = ["server", "proxy"]
rate = "10Gbps"
delay = "1ms"
[[link]]
between = ["proxy", "bs"]
rate = "10Gbps"
delay = "5ms"
[[link]]
name = "air"
between = ["bs", "ue"]
kind = "radio"
[link.radio]
channel = {{ kind = "onoff", los_sinr_db = 12.0, nlos_sinr_db = -4.0, los_duration = "400ms", nlos_duration = "200ms", distribution = "exponential", fading = {{ block = "1ms" }} }}
rlc = {{ mode = "am", buffer = "2MB" }}
[[flow]]
from = "server"
to = "ue"
app = {{ kind = "bulk", rate_limit = "200Mbps" }}
"#,
        if node == "proxy" { format!("processors = {processors}") } else { String::new() },
        if node == "bs" { format!("processors = {processors}") } else { String::new() },
    )
}

#[test]
fn proxies_are_deterministic_per_seed() {
    for (processors, node) in
        [(r#"[{ kind = "mmpep" }]"#, "bs"), (r#"[{ kind = "bdp", policy = "proactive" }]"#, "proxy")]
    {
        let text = proxied(processors, node);
        let a = run_toml(&text);
        let b = run_toml(&text);
        assert_eq!(model_part(&a), model_part(&b), "{processors}");
        assert!(a.columns.iter().any(|c| c.name.starts_with("proxy.")), "{processors}");
        same_tables(&a, &b);
        for (x, y) in a.columns.iter().zip(&b.columns) {
            assert_eq!(bits(x), bits(y), "{processors}: column {}", x.name);
        }
        let c = run_toml_with(&text, &[("simulation.seed", "5")]);
        assert_ne!(model_part(&a)["processors"], model_part(&c)["processors"], "{processors}");
    }
}
