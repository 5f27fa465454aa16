//! Pinned routes (`path`, `ack_path`) on `scenarios/lte-and-28ghz.toml`: a UE with an LTE and a
//! 28 GHz link to the same eNB. Each flow runs alone, and the links' counters show which links
//! its data and its ACKs crossed: everything the server sends enters the eNB over `core` and
//! must leave it over the pinned link only; everything the UE sends likewise.

use crate::common::{run_toml, source};
use mmtcp::api::{validate, RunOptions};
use serde_json::Value;

const SCENARIO: &str = include_str!("../../../../scenarios/lte-and-28ghz.toml");

/// The scenario's topology with one flow of the given extra keys, for 1 s.
fn alone(keys: &str) -> String {
    let topology = &SCENARIO[..SCENARIO.find("[[flow]]").expect("the scenario has flows")];
    let topology = topology.replace("duration = \"5s\"", "duration = \"1s\"");
    format!(
        "{topology}[[flow]]\nfrom = \"server\"\nto = \"ue\"\n{keys}\napp = {{ kind = \"bulk\", rate_limit = \"10Mbps\" }}\n"
    )
}

/// Packets that entered each direction: (core down, core up, lte down, lte up, mmw down, mmw up),
/// "down" being server → ue. Radio directions count the IP packets their RLC took in.
fn crossings(summary: &Value) -> [u64; 6] {
    let link =
        |name: &str| summary["links"].as_array().unwrap().iter().find(|l| l["name"] == name).unwrap().clone();
    let dir = |l: &Value, d: usize, key: &str| {
        let entry = &l["directions"][d];
        let v =
            if key == "packets" { &entry["packets_sent"] } else { &entry["radio"]["rlc"]["sdus_offered"] };
        v.as_u64().unwrap()
    };
    let (core, lte, mmw) = (link("core"), link("lte"), link("mmw"));
    [
        dir(&core, 0, "packets"),
        dir(&core, 1, "packets"),
        dir(&lte, 0, "sdus"),
        dir(&lte, 1, "sdus"),
        dir(&mmw, 0, "sdus"),
        dir(&mmw, 1, "sdus"),
    ]
}

/// Two links in a row carried the same packets but those in flight between them at the end:
/// `first` took in `second`'s and a few more (at 10 Mbit/s, the ones still on the 5 ms core wire
/// or in the radio link's slots and HARQ rounds).
fn all_but_in_flight(second: u64, first: u64) -> bool {
    second <= first && first - second <= 12
}

/// Runs one flow alone; returns the crossings after checking that the flow delivered data.
fn run_alone(keys: &str) -> [u64; 6] {
    let out = run_toml(&alone(keys));
    let delivered = out.summary["flows"][0]["bytes_delivered"].as_u64().unwrap();
    assert!(delivered > 1_000_000, "{keys}: delivered only {delivered} bytes");
    crossings(&out.summary)
}

#[test]
fn a_flow_pinned_to_the_28ghz_link_crosses_it_both_ways_and_never_lte() {
    let [core_down, core_up, lte_down, lte_up, mmw_down, mmw_up] =
        run_alone(r#"path = ["server", "enb", "mmw", "ue"]"#);
    assert!(core_down > 800 && core_up > 400, "{core_down} {core_up}");
    assert!(all_but_in_flight(mmw_down, core_down) && all_but_in_flight(core_up, mmw_up));
    assert_eq!((lte_down, lte_up), (0, 0));
}

#[test]
fn a_flow_pinned_to_lte_crosses_it_both_ways_and_never_28ghz() {
    let [core_down, core_up, lte_down, lte_up, mmw_down, mmw_up] =
        run_alone(r#"path = ["server", "enb", "lte", "ue"]"#);
    assert!(core_down > 800 && core_up > 400, "{core_down} {core_up}");
    let c = [core_down, core_up, lte_down, lte_up];
    assert!(all_but_in_flight(lte_down, core_down) && all_but_in_flight(core_up, lte_up), "{c:?}");
    assert_eq!((mmw_down, mmw_up), (0, 0));
}

#[test]
fn data_over_28ghz_with_acks_over_lte_splits_the_directions() {
    let expected = |c: [u64; 6]| {
        let [core_down, core_up, lte_down, lte_up, mmw_down, mmw_up] = c;
        assert!(core_down > 800 && core_up > 400, "{c:?}");
        assert!(all_but_in_flight(mmw_down, core_down), "data on mmw: {c:?}");
        assert!(all_but_in_flight(core_up, lte_up), "ACKs on lte: {c:?}");
        assert_eq!((mmw_up, lte_down), (0, 0), "{c:?}");
    };
    let from_sender = run_alone(
        r#"path = ["server", "enb", "mmw", "ue"]
ack_path = ["server", "enb", "lte", "ue"]"#,
    );
    expected(from_sender);
    // The ACK path may also be listed the way the ACKs travel: the same run.
    let as_travelled = run_alone(
        r#"path = ["server", "enb", "mmw", "ue"]
ack_path = ["ue", "lte", "enb", "server"]"#,
    );
    assert_eq!(from_sender, as_travelled);
}

#[test]
fn an_ack_path_alone_keeps_the_automatic_data_path() {
    // Data by the fewest hops: of the two links joining enb and ue, the one listed first (lte).
    let [core_down, core_up, lte_down, lte_up, mmw_down, mmw_up] =
        run_alone(r#"ack_path = ["ue", "mmw", "enb", "server"]"#);
    assert!(all_but_in_flight(lte_down, core_down) && all_but_in_flight(core_up, mmw_up));
    assert_eq!((lte_up, mmw_down), (0, 0));
}

#[test]
fn without_paths_both_directions_take_the_first_listed_of_parallel_links() {
    let [core_down, core_up, lte_down, lte_up, mmw_down, mmw_up] = run_alone("");
    let c = [core_down, core_up, lte_down, lte_up];
    assert!(all_but_in_flight(lte_down, core_down) && all_but_in_flight(core_up, lte_up), "{c:?}");
    assert_eq!((mmw_down, mmw_up), (0, 0));
}

#[test]
fn the_scenario_file_runs_its_three_flows_over_their_links() {
    let text = SCENARIO.replace("duration = \"5s\"", "duration = \"1s\"");
    let out = run_toml(&text);
    for flow in out.summary["flows"].as_array().unwrap() {
        assert!(flow["bytes_delivered"].as_u64().unwrap() > 1_000_000, "{}", flow["name"]);
    }
    let [core_down, core_up, lte_down, lte_up, mmw_down, mmw_up] = crossings(&out.summary);
    // Down: over-mmw and mmw-acks-lte on mmw, over-lte on lte; up: only over-mmw's ACKs on mmw.
    // (At 200 Mbit/s, many packets are on the core wire at the end: no exact balance here.)
    assert!(lte_down + mmw_down <= core_down && core_up <= lte_up + mmw_up);
    assert!(mmw_down > lte_down, "two flows' data on mmw ({mmw_down}), one on lte ({lte_down})");
    assert!(lte_up > mmw_up, "two flows' ACKs on lte ({lte_up}), one on mmw ({mmw_up})");
}

fn rejected(keys: &str) -> mmtcp::error::InputError {
    let err = validate(&source(&alone(keys)), &RunOptions::default()).expect_err(keys);
    assert_eq!(err.to_string().lines().count(), 1, "{err}");
    err
}

#[test]
fn bad_paths_are_one_line_errors_naming_the_field() {
    let e = rejected(r#"path = ["server", "ue"]"#);
    assert_eq!(e.field, "flow[0].path");
    assert!(e.message.contains("\"server\" and \"ue\" are not neighbours"), "{e}");

    let e = rejected(r#"path = ["server", "enb", "ue"]"#);
    assert!(e.message.contains("several links join \"enb\" and \"ue\" (lte, mmw)"), "{e}");

    let e = rejected(r#"path = ["server", "enb", "core", "ue"]"#);
    assert!(e.message.contains("link \"core\" does not join \"enb\" and \"ue\""), "{e}");

    let e = rejected(r#"path = ["enb", "mmw", "ue"]"#);
    assert!(e.message.contains("goes from \"enb\" to \"ue\"") && e.message.contains("`from`"), "{e}");

    let e = rejected(r#"path = ["server", "enb", "wifi", "ue"]"#);
    assert!(e.message.contains("\"wifi\" is neither a node nor a link"), "{e}");

    let e = rejected(r#"ack_path = ["enb", "lte", "ue"]"#);
    assert_eq!(e.field, "flow[0].ack_path");
    assert!(e.message.contains("joins the flow's ends"), "{e}");
}
