//! The LTE link of Polese et al. 2017a/b as ns-3 ran it: ITU-R P.1411 line of sight
//! (`propagation = "itu_r_p1411_los"`), one 6 dB shadowing draw per run (`shadowing_sigma_db`), no
//! fading. Scenario-level checks: the link budget reaches the radio stack unchanged, the draw is
//! held for the run and changes with the seed, and bad values give one-line errors naming the key.

use crate::common::*;
use mmtcp::api::{validate, RunOptions, ScenarioSource};
use mmtcp::error::InputError;
use std::path::PathBuf;

/// The forward (uplink: UE 23 dBm, eNB NF 5 dB, 1.93 GHz) and reverse (downlink: eNB 30 dBm, UE
/// NF 9 dB, 2.12 GHz) channels of the `lte` link, at `d` m, with `sigma` dB shadowing.
fn lte_channels(d: f64, sigma: f64) -> String {
    let common = format!(
        "tx_antennas = 1, rx_antennas = 1, distance_m = {d:.1}, visibility = \"los\", \
         state_redraw = \"once\", shadowing_update = \"with_state\", shadowing_sigma_db = {sigma:.1}, \
         fading = \"none\""
    );
    format!(
        "channel = {{ kind = \"cellular\", propagation = \"itu_r_p1411_los\", frequency = \"1.93GHz\", \
         tx_power_dbm = 23.0, noise_figure_db = 5.0, {common} }}\n\
         reverse_channel = {{ kind = \"cellular\", propagation = \"itu_r_p1411_los\", frequency = \"2.12GHz\", \
         tx_power_dbm = 30.0, noise_figure_db = 9.0, {common} }}"
    )
}

/// ue —(LTE radio, 20 MHz)— enb —(1 Gbit/s, 1 ms)— server, a 20 Mbit/s upload; `channels` are
/// the channel keys of `[link.radio]`.
fn scenario(duration: &str, channels: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[metrics]
interval = "100ms"
[[node]]
name = "ue"
[[node]]
name = "enb"
[[node]]
name = "server"
[[link]]
name = "lte"
between = ["ue", "enb"]
kind = "radio"
delay = "10us"
[link.radio]
slot = "1ms"
bandwidth = "20MHz"
{channels}
[[link]]
between = ["enb", "server"]
rate = "1Gbps"
delay = "1ms"
[[flow]]
from = "ue"
to = "server"
app = {{ kind = "bulk", rate_limit = "20Mbps" }}
"#
    )
}

fn sinr_column(out: &Ran, name: &str) -> Vec<f64> {
    let column = out.columns.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no column {name}"));
    column.values.iter().copied().filter(|v| !v.is_nan()).collect()
}

#[test]
fn without_shadowing_the_link_sits_at_the_p1411_snr() {
    // 100 m: PL 84.3834 dB both ways (beyond both breakpoints). Noise −100.9897 dBm + NF.
    // Uplink 23 − 84.3834 + 100.9897 − 5 = 34.6063 dB; downlink 30 − 84.3834 + 100.9897 − 9
    // = 37.6063 dB. 50 m: uplink PL 75.6532 → 43.3365 dB, downlink PL 76.3668 → 45.6229 dB.
    for (d, up, down) in [(100.0, 34.6063, 37.6063), (50.0, 43.3365, 45.6229)] {
        let out = run_toml(&scenario("1s", &lte_channels(d, 0.0)));
        let direction = |i: usize| f64_of(&out.summary["links"][0]["directions"][i]["radio"]["mean_sinr_db"]);
        assert!((direction(0) - up).abs() < 1e-3, "{d} m uplink {}", direction(0));
        assert!((direction(1) - down).abs() < 1e-3, "{d} m downlink {}", direction(1));
        assert!(out.resolved.contains("propagation = \"itu_r_p1411_los\""), "{}", out.resolved);
        assert!(out.resolved.contains("shadowing_sigma_db = 0.0"), "{}", out.resolved);
    }
}

#[test]
fn the_shadowing_is_drawn_once_per_run_and_changes_with_the_seed() {
    let text = scenario("2s", &lte_channels(100.0, 6.0));
    let run = |seed: &str| {
        let out = run_toml_with(&text, &[("simulation.seed", seed)]);
        let up = sinr_column(&out, "link.lte.fwd.sinr_db");
        let down = sinr_column(&out, "link.lte.rev.sinr_db");
        assert!(up.len() >= 10 && down.len() >= 10, "{} {}", up.len(), down.len());
        assert!(up.iter().all(|v| *v == up[0]), "held for the run: {up:?}");
        assert!(down.iter().all(|v| *v == down[0]), "held for the run: {down:?}");
        (up[0], down[0])
    };
    let seeds: Vec<(f64, f64)> = ["1", "2", "3", "4"].iter().map(|s| run(s)).collect();
    for &(up, down) in &seeds {
        // Within ±5σ of the mean budget, and the two directions drawn independently.
        assert!((up - 34.6063).abs() < 30.0 && (down - 37.6063).abs() < 30.0, "{up} {down}");
        assert!(((up - 34.6063) - (down - 37.6063)).abs() > 1e-9, "independent draws: {up} {down}");
    }
    assert!(seeds.windows(2).all(|w| w[0].0 != w[1].0), "another seed, another draw: {seeds:?}");
    assert_eq!(run("3"), seeds[2], "the same seed, the same draw");
}

fn source_of(text: &str) -> ScenarioSource {
    ScenarioSource::Toml {
        text: text.to_string(),
        name: "bad.toml".into(),
        base_dir: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data"),
    }
}

fn check(text: &str) -> InputError {
    let err = validate(&source_of(text), &RunOptions::default())
        .expect_err(&format!("the scenario should be rejected: {text}"));
    assert_eq!(err.to_string().lines().count(), 1, "one line: {err}");
    assert!(err.to_string().starts_with("bad.toml: "), "{err}");
    err
}

#[test]
fn bad_values_name_the_key() {
    // A P.1411 uplink channel: `keys` are added to (or, for the first three, replace) its keys.
    let p1411 = |keys: &str| {
        let mut table = vec![
            ("propagation", "\"itu_r_p1411_los\"".to_string()),
            ("frequency", "\"1.93GHz\"".to_string()),
            ("visibility", "\"los\"".to_string()),
        ];
        for kv in keys.split(", ").filter(|kv| !kv.is_empty()) {
            let (k, v) = kv.split_once(" = ").unwrap();
            match table.iter_mut().find(|(key, _)| *key == k) {
                Some(entry) => entry.1 = v.to_string(),
                None => table.push((k, v.to_string())),
            }
        }
        let keys: Vec<String> = table.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        scenario(
            "1s",
            &format!(
                "channel = {{ kind = \"cellular\", tx_antennas = 1, rx_antennas = 1, distance_m = 100.0, {} }}",
                keys.join(", ")
            ),
        )
    };
    assert!(validate(&source_of(&p1411("")), &RunOptions::default()).is_ok(), "the base is valid");
    let field = "link[0].radio.channel";
    let cases: Vec<(String, String, &str)> = vec![
        // The model is line of sight only; the default visibility ("statistical") is refused.
        (
            p1411("visibility = \"statistical\""),
            format!("{field}.visibility"),
            "must be \"los\" with propagation = \"itu_r_p1411_los\"",
        ),
        (p1411("visibility = \"nlos\""), format!("{field}.visibility"), "(got \"nlos\")"),
        (
            p1411("visibility = \"statistical\", state_redraw = \"once\""),
            format!("{field}.visibility"),
            "line-of-sight-only",
        ),
        (p1411("frequency = \"200MHz\""), format!("{field}.frequency"), "0.3 to 100 GHz"),
        (p1411("ue_height_m = 0.0"), format!("{field}.ue_height_m"), "greater than 0"),
        // shadowing_sigma_db: 0 to 30 dB, and only with shadowing on.
        (p1411("shadowing_sigma_db = -1.0"), format!("{field}.shadowing_sigma_db"), "0 to 30"),
        (p1411("shadowing_sigma_db = 31.0"), format!("{field}.shadowing_sigma_db"), "0 to 30"),
        (
            p1411("shadowing = false, shadowing_sigma_db = 6.0"),
            format!("{field}.shadowing_sigma_db"),
            "shadowing = false",
        ),
        (
            scenario("1s", "channel = { kind = \"cellular\", distance_m = 80.0, shadowing_sigma_db = 40.0 }"),
            format!("{field}.shadowing_sigma_db"),
            "0 to 30",
        ),
        // Type and name errors in the flattened channel table name the channel.
        (p1411("shadowing_sigma_db = \"six\""), field.to_string(), "f64"),
        (p1411("propagation = \"itu_r_p1411\""), field.to_string(), "itu_r_p1411_los"),
    ];
    for (text, expect_field, needle) in cases {
        let e = check(&text);
        assert!(e.field.starts_with(&expect_field), "expected {expect_field}, got {e}");
        assert!(e.message.contains(needle), "{needle:?} not in {e}");
    }
}

#[test]
fn the_documented_lte_link_is_valid() {
    let source = ScenarioSource::Toml {
        text: scenario("1s", &lte_channels(150.0, 6.0)),
        name: "ok.toml".into(),
        base_dir: PathBuf::new(),
    };
    let resolved = validate(&source, &RunOptions::default()).unwrap();
    for line in ["frequency = \"1.93GHz\"", "frequency = \"2.12GHz\"", "shadowing_sigma_db = 6.0"] {
        assert!(resolved.contains(line), "{line} missing from {resolved}");
    }
}
