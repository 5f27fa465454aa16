//! Bad scenarios give one-line errors that name the file, the field and what is allowed.

use mmtcp::api::{validate, RunOptions, ScenarioSource};
use mmtcp::error::InputError;
use std::path::PathBuf;

const BASE: &str = r#"
[[node]]
name = "server"
[[node]]
name = "ue"
[[link]]
between = ["server", "ue"]
rate = "1Gbps"
[[flow]]
from = "server"
to = "ue"
"#;

fn check(text: &str) -> InputError {
    let source = ScenarioSource::Toml {
        text: text.to_string(),
        name: "bad.toml".into(),
        base_dir: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data"),
    };
    let err = validate(&source, &RunOptions::default())
        .expect_err(&format!("the scenario should be rejected: {text}"));
    assert_eq!(err.to_string().lines().count(), 1, "one line: {err}");
    assert!(err.to_string().starts_with("bad.toml: ") || err.file != "bad.toml", "{err}");
    err
}

#[test]
fn the_base_scenario_is_valid() {
    let source = ScenarioSource::Toml { text: BASE.into(), name: "ok.toml".into(), base_dir: PathBuf::new() };
    let resolved = validate(&source, &RunOptions::default()).unwrap();
    // The resolved scenario states the defaults.
    assert!(resolved.contains("min_rto = \"200ms\""), "{resolved}");
    assert!(resolved.contains("name = \"server-ue\""), "{resolved}");
}

#[test]
fn unknown_key() {
    let e = check(&BASE.replace("rate = \"1Gbps\"", "rate = \"1Gbps\"\nbogus = 3"));
    assert_eq!(e.field, "link[0].bogus");
    assert!(e.message.contains("allowed:") && e.message.contains("between"), "{e}");
}

#[test]
fn negative_rate() {
    let e = check(&BASE.replace("\"1Gbps\"", "\"-5Gbps\""));
    assert_eq!(e.field, "link[0].rate");
    assert!(e.message.contains("non-negative"), "{e}");
}

#[test]
fn link_to_a_missing_node() {
    let e = check(&BASE.replace("between = [\"server\", \"ue\"]", "between = [\"server\", \"mars\"]"));
    assert_eq!(e.field, "link[0].between");
    assert!(e.message.contains("\"mars\"") && e.message.contains("server, ue"), "{e}");
}

#[test]
fn probability_out_of_range() {
    let e = check(&BASE.replace("rate = \"1Gbps\"", "rate = \"1Gbps\"\nforward = { loss = 1.5 }"));
    assert_eq!(e.field, "link[0].forward.loss");
    assert!(e.message.contains("allowed 0 to 1"), "{e}");
}

#[test]
fn radio_link_without_channel() {
    let e = check(&BASE.replace("rate = \"1Gbps\"", "kind = \"radio\""));
    assert_eq!(e.field, "link[0].channel");
}

#[test]
fn flow_without_a_path() {
    let text = BASE
        .replace("[[flow]]", "[[node]]\nname = \"island\"\n[[flow]]")
        .replace("to = \"ue\"", "to = \"island\"");
    let e = check(&text);
    assert_eq!(e.field, "flow[0].to");
    assert!(e.message.contains("no path"), "{e}");
}

#[test]
fn malformed_trace_names_the_trace_file_and_line() {
    let text = BASE.replace(
        "rate = \"1Gbps\"",
        "kind = \"radio\"\nchannel = { kind = \"trace\", file = \"traces/bad_rate.csv\" }",
    );
    let e = check(&text);
    assert!(e.file.ends_with("bad_rate.csv"), "{e}");
    assert!(e.field.starts_with("line "), "{e}");
    assert!(e.message.contains("link[0].channel.file"), "{e}");
}

#[test]
fn missing_trace_file() {
    let text = BASE.replace(
        "rate = \"1Gbps\"",
        "kind = \"radio\"\nchannel = { kind = \"trace\", file = \"traces/nope.csv\" }",
    );
    let e = check(&text);
    assert_eq!(e.field, "link[0].channel.file");
}

#[test]
fn bad_tcp_parameter() {
    let e = check(&BASE.replace("to = \"ue\"", "to = \"ue\"\ntransport = { mss = \"10B\" }"));
    assert_eq!(e.field, "flow[0].transport.mss");
    assert!(e.message.contains("allowed 64B to 65483B"), "{e}");
}

#[test]
fn bad_tcp_profile_names_and_combinations() {
    let with =
        |transport: &str| BASE.replace("to = \"ue\"", &format!("to = \"ue\"\ntransport = {transport}"));
    let e = check(&with("{ profile = \"bsd\" }"));
    assert_eq!(e.field, "flow[0].transport.profile");
    assert!(e.message.contains("\"ns3\""), "{e}");
    let e = check(&with("{ cc = \"vegas\" }"));
    assert_eq!(e.field, "flow[0].transport.cc");
    let e = check(&with("{ cc = \"newreno\", hystart = true }"));
    assert_eq!(e.field, "flow[0].transport.hystart");
    assert!(e.message.contains("CUBIC"), "{e}");
    let e = check(&with("{ recovery = \"fast\" }"));
    assert_eq!(e.field, "flow[0].transport.recovery");
}

#[test]
fn missing_scenario_file() {
    let err =
        validate(&ScenarioSource::File("does/not/exist.toml".into()), &RunOptions::default()).unwrap_err();
    assert_eq!(err.to_string(), "does/not/exist.toml: cannot read the scenario: no such file");
}

#[test]
fn a_scenario_needs_two_nodes() {
    let e = check("[simulation]\nduration = \"1s\"\n");
    assert_eq!(e.field, "node");
    assert!(e.message.contains("at least two"), "{e}");
}

/// BASE with the link replaced by a radio-stack link whose `[link.radio]` body is `radio`.
fn radio(extra_link_keys: &str, radio: &str) -> String {
    BASE.replace("rate = \"1Gbps\"", &format!("kind = \"radio\"\n{extra_link_keys}\n[link.radio]\n{radio}"))
}

/// A synthetic 802.11ad channel (Drago et al. scenario B) with `keys` added to its source table.
fn ad_synthetic(keys: &str) -> String {
    format!("bandwidth = \"500MHz\"\namc = {{ table = \"ieee80211ad_sc\" }}\nchannel = {{ kind = \"ieee80211ad\", source = {{ kind = \"synthetic\", scenario = \"b\", {keys} }} }}")
}

const NYU: &str = "channel = { kind = \"cellular\", distance_m = 80.0 }";

#[test]
fn a_radio_stack_link_is_valid() {
    let source =
        ScenarioSource::Toml { text: radio("", NYU), name: "ok.toml".into(), base_dir: PathBuf::new() };
    let resolved = validate(&source, &RunOptions::default()).unwrap();
    for default in ["slot = \"125us\"", "max_retx = 3", "mode = \"am\"", "propagation = \"nyu\""] {
        assert!(resolved.contains(default), "{default} missing from {resolved}");
    }
    // The slot follows the numerology: 1 ms / 2^μ.
    let source = ScenarioSource::Toml {
        text: radio("", &format!("{NYU}\nnumerology = 1")),
        name: "ok.toml".into(),
        base_dir: PathBuf::new(),
    };
    let resolved = validate(&source, &RunOptions::default()).unwrap();
    assert!(resolved.contains("slot = \"500us\"") && resolved.contains("numerology = 1"), "{resolved}");
}

#[test]
fn radio_stack_errors_name_the_field() {
    let cases: Vec<(String, &str, &str)> = vec![
        (radio("buffer = \"2MB\"", NYU), "link[0].buffer", "radio.rlc.buffer"),
        (radio("channel = { kind = \"constant\", rate = \"1Gbps\" }", NYU), "link[0].radio", "not both"),
        (radio("forward = { loss = 0.1 }", NYU), "link[0].forward", "impairments"),
        (radio("", &format!("{NYU}\nslot = \"0s\"")), "link[0].radio.slot", "1us to 10ms"),
        (radio("", &format!("{NYU}\nnumerology = 5")), "link[0].radio.numerology", "0 to 4"),
        (
            radio("", &format!("{NYU}\nnumerology = 2\nslot = \"250us\"")),
            "link[0].radio.numerology",
            "not both",
        ),
        (radio("", &format!("{NYU}\nharq = {{ processes = 0 }}")), "link[0].radio.harq.processes", "1 to 64"),
        (
            radio("", &format!("{NYU}\nrlc = {{ max_retx = 0, mode = \"xm\" }}")),
            "link[0].radio.rlc.mode",
            "am",
        ),
        (radio("", &format!("{NYU}\namc = {{ target_bler = 1.5 }}")), "link[0].radio.amc.target_bler", ""),
        (radio("", &format!("{NYU}\ntdd = \"DDXU\"")), "link[0].radio.tdd", "'X'"),
        (radio("", &format!("{NYU}\ntdd = \"\"")), "link[0].radio.tdd", "empty"),
        (radio("", &format!("{NYU}\ntdd = \"DDDD\"")), "link[0].radio.tdd", "no U slot"),
        (radio("", &format!("{NYU}\ntdd = \"CCUU\"")), "link[0].radio.tdd", "no D slot"),
        (radio("", &format!("{NYU}\ntdd = 4")), "link[0].radio.tdd", ""),
        (
            radio("", &format!("{NYU}\nrlf_timeout = \"0s\"")),
            "link[0].radio.rlf_timeout",
            "greater than zero",
        ),
        (radio("", &format!("{NYU}\nrlf_timeout = \"soon\"")), "link[0].radio.rlf_timeout", ""),
        (
            radio("", &format!("{NYU}\nrlc = {{ discard_timer = \"0ms\" }}")),
            "link[0].radio.rlc.discard_timer",
            "greater than zero",
        ),
        (radio("", &format!("{NYU}\nrlc = {{ discard_timer = 5 }}")), "link[0].radio.rlc.discard_timer", ""),
        (
            radio("", &format!("{NYU}\nrlc = {{ max_retx = \"forever\" }}")),
            "link[0].radio.rlc.max_retx",
            "or \"never\"",
        ),
        (
            radio("", &format!("{NYU}\nrlc = {{ t_reassembly_um = \"0ms\" }}")),
            "link[0].radio.rlc.t_reassembly_um",
            "greater than zero",
        ),
        (
            radio("", "channel = { kind = \"cellular\", distance_m = -3.0 }"),
            "link[0].radio.channel.distance_m",
            "",
        ),
        (radio("", &ad_synthetic("blockage_db = -5.0")), "link[0].radio.channel.source.blockage_db", "≥ 0"),
        (
            radio("", &ad_synthetic("blockage_db = 30.0, blocker_height = 0.3")),
            "link[0].radio.channel.source.blockage_db",
            "barely crosses the LOS",
        ),
        // The tagged `source` table buffers its content: a type error names the channel only.
        (radio("", &ad_synthetic("blockage_db = \"deep\"")), "link[0].radio.channel", "expected f64"),
        (
            radio("", &ad_synthetic("reflection_loss_db = -1.0")),
            "link[0].radio.channel.source.reflection_loss_db",
            "≥ 0",
        ),
        (
            radio("", "channel = { kind = \"cellular\", distance_m = 80.0, state_redraw = \"hourly\" }"),
            "link[0].radio.channel",
            "state_redraw",
        ),
        (
            radio("", "channel = { kind = \"cellular\", distance_m = 80.0, shadowing_update = \"never\" }"),
            "link[0].radio.channel",
            "shadowing_update",
        ),
        (
            radio("", "channel = { kind = \"sinr_trace\", file = \"traces/nope.csv\" }"),
            "link[0].radio.channel.file",
            "",
        ),
        (
            BASE.replace(
                "rate = \"1Gbps\"",
                "rate = \"1Gbps\"\n[link.radio]\nchannel = { kind = \"constant\", sinr_db = 3.0 }",
            ),
            "link[0].radio",
            "kind = \"radio\"",
        ),
    ];
    for (text, field, needle) in cases {
        let e = check(&text);
        assert!(e.field.starts_with(field), "expected {field}, got {e}");
        assert!(e.message.contains(needle) || e.field.contains(needle), "{needle} not in {e}");
    }
}

#[test]
fn markov_pair_needs_both_members_with_the_same_parameters() {
    let pair = |member: u8, q: f64| {
        format!("kind = \"radio\"\nchannel = {{ kind = \"markov_pair\", group = \"g\", member = {member}, q = {q} }}")
    };
    let two_links = |a: &str, b: &str| {
        format!(
            "[[node]]\nname = \"s\"\n[[node]]\nname = \"d\"\n[[link]]\nname = \"one\"\nbetween = [\"s\", \"d\"]\n{a}\n[[link]]\nname = \"two\"\nbetween = [\"s\", \"d\"]\n{b}\n[[flow]]\nfrom = \"s\"\nto = \"d\"\n"
        )
    };
    let source =
        |text: String| ScenarioSource::Toml { text, name: "ok.toml".into(), base_dir: PathBuf::new() };
    assert!(validate(&source(two_links(&pair(1, 0.7), &pair(2, 0.7))), &RunOptions::default()).is_ok());
    let e = check(&two_links(&pair(1, 0.7), "rate = \"1Gbps\""));
    assert_eq!(e.field, "link[0].channel.group");
    assert!(e.message.contains("no member 2"), "{e}");
    let e = check(&two_links(&pair(1, 0.7), &pair(2, 0.3)));
    assert_eq!(e.field, "link[1].channel");
    assert!(e.message.contains("same parameters"), "{e}");
    let e = check(&two_links(&pair(1, 0.7), &pair(1, 0.7)));
    assert_eq!(e.field, "link[1].channel.member");
    let e = check(&two_links(&pair(3, 0.7), &pair(2, 0.7)));
    assert_eq!(e.field, "link[0].channel.member");

    // Per-state rates and a transition matrix: errors name the key inside the channel table.
    let fitted = |member: u8, hh_correlation: f64, extra: &str| {
        let state = |c: f64| {
            format!("{{ mean = [\"9Gbps\", \"8Gbps\"], std = [\"1Gbps\", \"1Gbps\"], correlation = {c} }}")
        };
        format!(
            "kind = \"radio\"\nchannel = {{ kind = \"markov_pair\", group = \"g\", member = {member}, {extra}states = {{ hh = {}, hl = {}, lh = {}, ll = {} }} }}",
            state(hh_correlation),
            state(0.0),
            state(0.0),
            state(0.0)
        )
    };
    let matrix = "transitions = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], ";
    let ok = two_links(&fitted(1, 0.5, matrix), &fitted(2, 0.5, matrix));
    assert!(validate(&source(ok), &RunOptions::default()).is_ok());
    let e = check(&two_links(&fitted(1, 1.5, ""), &fitted(2, 1.5, "")));
    assert_eq!(
        e.to_string(),
        "bad.toml: link[0].channel.states.hh.correlation: 1.5 is not a correlation; must be in [-1, 1]"
    );
    let e = check(&two_links(&fitted(1, 0.5, "low_mean = \"3Gbps\", "), &fitted(2, 0.5, "")));
    assert_eq!(e.field, "link[0].channel");
    assert!(e.message.contains("low_mean cannot be given with states"), "{e}");
    let bad_row = "transitions = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0.5, 0], [0, 0, 0, 1]], ";
    let e = check(&two_links(&fitted(1, 0.5, bad_row), &fitted(2, 0.5, bad_row)));
    assert_eq!(e.field, "link[0].channel.transitions[2]");
    assert!(e.message.contains("from lh sum to 0.5"), "{e}");
}

#[test]
fn processors_have_a_known_kind() {
    let text = BASE.replace("name = \"ue\"", "name = \"ue\"\nprocessors = [{ kind = \"snoop\" }]");
    let e = check(&text);
    assert!(e.field.starts_with("node[1].processors[0]"), "{e}");
    assert!(e.message.contains("mmpep") && e.message.contains("bdp"), "{e}");
}

/// server —(wired)— bs —(radio stack "air")— ue, with `processors` on bs.
fn proxied(processors: &str) -> String {
    format!(
        r#"
[[node]]
name = "server"
[[node]]
name = "bs"
processors = {processors}
[[node]]
name = "ue"
[[link]]
between = ["server", "bs"]
rate = "1Gbps"
[[link]]
name = "air"
between = ["bs", "ue"]
kind = "radio"
[link.radio]
channel = {{ kind = "constant", sinr_db = 20.0 }}
[[flow]]
from = "server"
to = "ue"
"#
    )
}

#[test]
fn a_proxied_scenario_is_valid() {
    for p in [
        r#"[{ kind = "pep" }]"#,
        r#"[{ kind = "mmpep", link = "air" }, { kind = "bdp", policy = "proactive" }]"#,
    ] {
        let source =
            ScenarioSource::Toml { text: proxied(p), name: "ok.toml".into(), base_dir: PathBuf::new() };
        validate(&source, &RunOptions::default()).unwrap_or_else(|e| panic!("{p}: {e}"));
    }
}

#[test]
fn processor_errors_name_the_processor_and_key() {
    let cases: Vec<(String, &str, &str)> = vec![
        // A link that does not exist, or has no radio stack: the radio links are listed.
        (
            proxied(r#"[{ kind = "mmpep", link = "nope" }]"#),
            "node[1].processors[0].link",
            "no link with the radio stack named \"nope\"; those are: air",
        ),
        (
            proxied(r#"[{ kind = "bdp", link = "server-bs" }]"#),
            "node[1].processors[0].link",
            "no link with the radio stack named \"server-bs\"; those are: air",
        ),
        (
            proxied(r#"[{ kind = "pep" }, { kind = "bdp", link = "server-bs" }]"#),
            "node[1].processors[1].link",
            "\"server-bs\"",
        ),
        // No radio stack anywhere.
        (
            BASE.replace("name = \"ue\"", "name = \"ue\"\nprocessors = [{ kind = \"mmpep\" }]"),
            "node[1].processors[0].link",
            "needs a link with the radio stack",
        ),
        (
            BASE.replace(
                "name = \"ue\"",
                "name = \"ue\"\nprocessors = [{ kind = \"pep\", hold_for_rlc = true }]",
            ),
            "node[1].processors[0].link",
            "needs a link with the radio stack",
        ),
        // A link named where nothing uses it.
        (
            proxied(r#"[{ kind = "pep", link = "air" }]"#),
            "node[1].processors[0].link",
            "is used only with hold_for_rlc = true",
        ),
        // A bdp proxy on the server, an end of every flow.
        (
            proxied("[]")
                .replace("name = \"server\"", "name = \"server\"\nprocessors = [{ kind = \"bdp\" }]"),
            "node[0].processors[0].kind",
            "must sit on a node between a flow's server and UE",
        ),
        // Two of a kind on one node.
        (
            proxied(r#"[{ kind = "pep" }, { kind = "mmpep" }, { kind = "pep", cache = "1MB" }]"#),
            "node[1].processors[2].kind",
            "\"pep\" is already on node \"bs\"; each kind at most once per node",
        ),
        // Out-of-range keys.
        (
            proxied(r#"[{ kind = "mmpep", epsilon = 0.7 }]"#),
            "node[1].processors[0].epsilon",
            "0.7 is out of range; allowed strictly between 0 and 0.5",
        ),
        (proxied(r#"[{ kind = "pep", cache = "1KB" }]"#), "node[1].processors[0].cache", "too small"),
        (proxied(r#"[{ kind = "mmpep", beta = 0 }]"#), "node[1].processors[0].beta", "allowed 1 to 10000"),
        (
            proxied(r#"[{ kind = "bdp", policy = "proactive", ttr = "61s" }]"#),
            "node[1].processors[0].ttr",
            "61s is out of range; allowed 1us to 60s",
        ),
        (
            proxied(r#"[{ kind = "bdp", report_delay = "2s" }]"#),
            "node[1].processors[0].report_delay",
            "allowed 0s to 1s",
        ),
        (
            proxied(r#"[{ kind = "bdp", policy = "proactive", mcs_drop = 0 }]"#),
            "node[1].processors[0].mcs_drop",
            "allowed 1 to 31",
        ),
    ];
    for (text, field, needle) in cases {
        let e = check(&text);
        assert_eq!(e.field, field, "{e}");
        assert!(e.message.contains(needle), "{needle:?} not in {e}");
        assert!(e.to_string().starts_with(&format!("bad.toml: {field}: ")), "{e}");
    }
}

/// Errors found while reading a processor's table (unknown keys, values of the wrong type or
/// form) name the key too, like the range checks above and like every other table's errors.
#[test]
fn processor_value_errors_name_the_key() {
    let cases = [
        (r#"[{ kind = "pep", alpha = 1.0 }]"#, "alpha", "unknown key \"alpha\""),
        (r#"[{ kind = "bdp", policy = "predictive" }]"#, "policy", "predictive"),
        (r#"[{ kind = "bdp", deployment = "inline" }]"#, "deployment", "inline"),
        (r#"[{ kind = "pep", timeout = "all" }]"#, "timeout", "go_back_n"),
        (r#"[{ kind = "mmpep", min_rto = 0.2 }]"#, "min_rto", "a time needs a unit"),
        (r#"[{ kind = "pep", cache = 5 }]"#, "cache", "a size needs a unit"),
        (r#"[{ kind = "mmpep", epsilon = "small" }]"#, "epsilon", "small"),
        (r#"[{ kind = "bdp", ttr = "soon" }]"#, "ttr", "\"soon\" is not a time"),
        (r#"[{ kind = "bdp", ramp_steps = -1 }]"#, "ramp_steps", "-1"),
    ];
    let mut wrong = Vec::new();
    for (processors, key, needle) in cases {
        let e = check(&proxied(processors));
        assert!(e.message.contains(needle), "{needle:?} not in {e}");
        if e.field != format!("node[1].processors[0].{key}") {
            wrong.push(e.to_string());
        }
    }
    assert!(wrong.is_empty(), "errors without their key:\n{}", wrong.join("\n"));
}

#[test]
fn a_time_series_over_its_memory_cap() {
    // (1 flow × 7 + 2 link directions × 6 metrics) × 1000 rows = 19 000 values of 8 bytes = 152 kB.
    let text = format!("[simulation]\nduration = \"10s\"\n[metrics]\nseries_memory = \"100KB\"\n{BASE}");
    let e = check(&text);
    assert_eq!(e.field, "metrics.series_memory");
    assert!(
        e.message.contains("19000 values of 8 bytes over 1000 rows")
            && e.message.contains("metrics.interval"),
        "{e}"
    );
    let fits = text.replace("\"100KB\"", "\"152KB\"");
    let source = ScenarioSource::Toml { text: fits, name: "ok.toml".into(), base_dir: PathBuf::new() };
    validate(&source, &RunOptions::default()).expect("152 kB is enough");
}

#[test]
fn a_long_run_of_many_flows_is_refused_before_it_reserves_its_time_series() {
    // Issue 15, item 5: 10 flows for 10^6 s sampled every 100 ms validated, then reserved 6 GB
    // up front and aborted the process. With the default cap (1 GiB) it is an input error.
    let flows: String = (0..10).map(|_| "[[flow]]\nfrom = \"server\"\nto = \"ue\"\n").collect();
    let base = BASE.split("[[flow]]").next().expect("BASE has nodes and a link first");
    let text =
        format!("[simulation]\nduration = \"1000000s\"\n[metrics]\ninterval = \"100ms\"\n{base}{flows}");
    let e = check(&text);
    assert_eq!(e.field, "metrics.series_memory", "{e}");
    assert!(e.message.contains("over 10000000 rows"), "{e}");
}

#[test]
fn a_receive_buffer_larger_than_tcp_can_advertise() {
    let text = BASE.replace("to = \"ue\"", "to = \"ue\"\ntransport = { receive_buffer = \"2GiB\" }");
    let e = check(&text);
    assert_eq!(e.field, "flow[0].transport.receive_buffer");
    assert!(e.message.contains("1GiB") && e.message.contains("RFC 7323"), "{e}");
    let fits = text.replace("\"2GiB\"", "\"1GiB\"");
    let source = ScenarioSource::Toml { text: fits, name: "ok.toml".into(), base_dir: PathBuf::new() };
    validate(&source, &RunOptions::default()).expect("1 GiB is the largest window");
}

#[test]
fn an_autotuned_receive_buffer_and_its_bad_values() {
    let with =
        |transport: &str| BASE.replace("to = \"ue\"", &format!("to = \"ue\"\ntransport = {transport}"));
    let source =
        |text: String| ScenarioSource::Toml { text, name: "ok.toml".into(), base_dir: PathBuf::new() };
    let resolved = validate(&source(with(r#"{ receive_buffer = "auto" }"#)), &RunOptions::default()).unwrap();
    for line in
        ["receive_buffer = \"auto\"", "receive_buffer_max = \"6MiB\"", "receive_buffer_initial = \"87380B\""]
    {
        assert!(resolved.contains(line), "the resolved scenario states {line}:\n{resolved}");
    }
    // The linux profile autotunes by default, so its own keys need no "auto" beside them.
    let resolved =
        validate(&source(with(r#"{ receive_buffer_initial = "128KiB" }"#)), &RunOptions::default())
            .expect("the linux profile's default is \"auto\"");
    assert!(
        resolved.contains("receive_buffer = \"auto\"")
            && resolved.contains("receive_buffer_initial = \"128KiB\"")
    );
    let cases = [
        (r#"{ receive_buffer = "automatic" }"#, "receive_buffer", "\"auto\""),
        (r#"{ receive_buffer = 4000000 }"#, "receive_buffer", "bare number"),
        (r#"{ receive_buffer = "auto", receive_buffer_max = "64KB" }"#, "receive_buffer_max", "87380B"),
        (r#"{ receive_buffer = "auto", receive_buffer_max = "4GiB" }"#, "receive_buffer_max", "2GiB"),
        (
            r#"{ receive_buffer = "auto", receive_buffer_initial = "2KB" }"#,
            "receive_buffer_initial",
            "2 x mss",
        ),
        (r#"{ receive_buffer = "auto", receive_buffer_max = "6" }"#, "receive_buffer_max", "unit"),
        (
            r#"{ receive_buffer = "6MiB", receive_buffer_max = "32MiB" }"#,
            "receive_buffer_max",
            "\"auto\" only",
        ),
        (
            r#"{ profile = "ns3", receive_buffer_initial = "128KiB" }"#,
            "receive_buffer_initial",
            "\"auto\" only",
        ),
    ];
    for (transport, key, says) in cases {
        let e = check(&with(transport));
        assert_eq!(e.field, format!("flow[0].transport.{key}"), "{transport}: {e}");
        assert!(e.message.contains(says), "{transport}: {e}");
        assert!(!e.to_string().contains('\n'), "one line: {e}");
    }
}

/// server — gw — ap1/ap2 — d with `gw`, `ap1`, `ap2` and `d` processors as given.
fn dual(gw: &str, ap: &str, d: &str) -> String {
    format!(
        r#"
[[node]]
name = "server"
[[node]]
name = "gw"
processors = {gw}
[[node]]
name = "ap1"
processors = {ap}
[[node]]
name = "ap2"
processors = {ap}
[[node]]
name = "d"
processors = {d}
[[link]]
name = "core"
between = ["server", "gw"]
rate = "1Gbps"
[[link]]
name = "a1"
between = ["gw", "ap1"]
rate = "1Gbps"
[[link]]
name = "a2"
between = ["gw", "ap2"]
rate = "1Gbps"
[[link]]
name = "r1"
between = ["ap1", "d"]
rate = "1Gbps"
[[link]]
name = "r2"
between = ["ap2", "d"]
rate = "1Gbps"
[[flow]]
from = "server"
to = "d"
"#
    )
}

#[test]
fn cotag_processors_check_each_other_and_their_keys() {
    let gw = r#"[{ kind = "cotag_gateway", device = "d" }]"#;
    let ap = r#"[{ kind = "cotag_ap", device = "d" }]"#;
    let d = r#"[{ kind = "cotag_device" }]"#;
    let source =
        ScenarioSource::Toml { text: dual(gw, ap, d), name: "ok.toml".into(), base_dir: PathBuf::new() };
    assert!(validate(&source, &RunOptions::default()).is_ok(), "the complete chain is valid");

    let e = check(&dual(r#"[{ kind = "cotag_gateway" }]"#, ap, d));
    assert_eq!(e.field, "node[1].processors[0].device");
    let e = check(&dual(gw, ap, "[]"));
    assert_eq!(e.field, "node[1].processors[0].device");
    assert!(e.message.contains("no cotag_device processor"), "{e}");
    let e = check(&dual(gw, "[]", d));
    assert_eq!(e.field, "node[1].processors[0].ways");
    let e = check(&dual(r#"[{ kind = "cotag_gateway", device = "d", ways = ["r1"] }]"#, ap, d));
    assert_eq!(
        (e.field.as_str(), e.message.contains("not a link of this node")),
        ("node[1].processors[0].ways[0]", true)
    );
    let e = check(&dual(r#"[{ kind = "cotag_gateway", device = "d", redundancy = 0.5 }]"#, ap, d));
    assert_eq!(e.field, "node[1].processors[0].redundancy");
    let e = check(&dual(r#"[{ kind = "cotag_gateway", device = "d", period = "0s" }]"#, ap, d));
    assert_eq!(e.field, "node[1].processors[0].period");
    let e = check(&dual(r#"[{ kind = "cotag_gateway", device = "d", split = "even" }]"#, ap, d));
    assert_eq!(e.field, "node[1].processors[0].split");
    assert!(e.message.contains("rate") && e.message.contains("pull"), "{e}");
    let e = check(&dual(gw, r#"[{ kind = "cotag_ap", device = "server" }]"#, d));
    assert!(e.field.ends_with(".device") && e.message.contains("cotag_device"), "{e}");
    let e = check(&dual(gw, r#"[{ kind = "cotag_ap", device = "d", buffer = 0 }]"#, d));
    assert_eq!(e.field, "node[2].processors[0].buffer");
    let e = check(&dual("[]", ap, d));
    assert!(e.field == "node[2].processors[0].kind" && e.message.contains("cotag_gateway"), "{e}");
}

#[test]
fn spray_needs_a_device_and_two_links_of_its_node() {
    let spray = |keys: &str| dual(&format!(r#"[{{ kind = "spray", {keys} }}]"#), "[]", "[]");
    let e = check(&spray(r#"ways = ["a1", "a2"]"#));
    assert_eq!(e.field, "node[1].processors[0].device");
    let e = check(&spray(r#"device = "d", ways = ["a1"]"#));
    assert_eq!(e.field, "node[1].processors[0].ways");
    let e = check(&spray(r#"device = "d", ways = ["a1", "r2"]"#));
    assert_eq!(e.field, "node[1].processors[0].ways[1]");
    let e = check(&spray(r#"device = "d", ways = ["a1", "a2"], policy = "random""#));
    assert!(e.field.starts_with("node[1].processors[0]"), "{e}");
    // Two processors of a node cannot both feed a link.
    let both = r#"[{ kind = "spray", device = "d", ways = ["a1", "a2"], policy = "ready" }, { kind = "cotag_gateway", device = "d" }]"#;
    let e = check(&dual(both, r#"[{ kind = "cotag_ap", device = "d" }]"#, r#"[{ kind = "cotag_device" }]"#));
    assert_eq!(e.field, "node[1].processors[1].kind");
    assert!(e.message.contains("already fed by gw.spray"), "{e}");
}

#[test]
fn burst_window_keys() {
    let with = |burst: &str| check(&format!("[metrics]\ninterval = \"10ms\"\nburst = {burst}\n{BASE}"));
    let e = with(r#"{ start = "15ms", length = "1s" }"#);
    assert!(e.field == "metrics.burst.start" && e.message.contains("multiple of metrics.interval"), "{e}");
    let e = with(r#"{ length = "0s" }"#);
    assert_eq!(e.field, "metrics.burst.length");
    let e = with(r#"{ start = "9s", length = "2s" }"#);
    assert!(e.field == "metrics.burst.length" && e.message.contains("ends after the run"), "{e}");
    let e = with(r#"{ length = "1s", flows = ["nope"] }"#);
    assert!(e.field == "metrics.burst.flows" && e.message.contains("\"nope\""), "{e}");
    let e = with(r#"{ length = "1s", flows = [] }"#);
    assert_eq!(e.field, "metrics.burst.flows");
    let e = with(r#"{ length = "1s", target = "0B" }"#);
    assert_eq!(e.field, "metrics.burst.target");
    let e = with(r#"{ start = "1s" }"#);
    assert!(e.field.starts_with("metrics") && e.message.contains("length"), "{e}");
}

#[test]
fn steady_window_start() {
    let with = |value: &str| check(&format!("[metrics]\nsteady_from = {value}\n{BASE}"));
    // The run lasts the default 10 s.
    let e = with(r#""10s""#);
    assert!(
        e.field == "metrics.steady_from" && e.message.contains("not before the end of the run (10s)"),
        "{e}"
    );
    let e = with(r#""1min""#);
    assert_eq!(e.field, "metrics.steady_from", "{e}");
    for bad in [r#""-1s""#, r#""soon""#, r#""5""#, "5", "true"] {
        let e = with(bad);
        assert_eq!(e.field, "metrics.steady_from", "{bad}: {e}");
    }
}

/// server —— gw —— d with flow `up` (server → gw) and flow `down` (gw → d, a relay of
/// `relay_keys`), then `extra` (more flows, or `up`'s transport).
fn relayed(up_keys: &str, relay_keys: &str, extra: &str) -> String {
    format!(
        r#"
[[node]]
name = "server"
[[node]]
name = "gw"
[[node]]
name = "d"
[[link]]
between = ["server", "gw"]
rate = "1Gbps"
[[link]]
between = ["gw", "d"]
rate = "1Gbps"
[[flow]]
name = "up"
from = "server"
to = "gw"
{up_keys}
[[flow]]
name = "down"
from = "gw"
to = "d"
app = {{ kind = "relay", {relay_keys} }}
{extra}"#
    )
}

#[test]
fn a_relay_reads_one_single_path_flow_ending_at_its_source() {
    let ok = ScenarioSource::Toml {
        text: relayed("", r#"from = "up""#, ""),
        name: "ok.toml".into(),
        base_dir: PathBuf::new(),
    };
    let resolved = validate(&ok, &RunOptions::default()).expect("a relay of a TCP flow is valid");
    assert!(resolved.contains("buffer = \"4MiB\""), "the default buffer is stated: {resolved}");

    let e = check(&relayed("", r#"from = "nope""#, ""));
    assert_eq!(e.field, "flow[1].app.from");
    assert!(e.message.contains("no flow is named \"nope\""), "{e}");
    let e = check(&relayed("", r#"from = "down""#, ""));
    assert!(e.field == "flow[1].app.from" && e.message.contains("cannot relay itself"), "{e}");
    // The upstream must end where the relay flow starts.
    let e = check(&relayed("", r#"from = "up""#, "").replacen("to = \"gw\"", "to = \"d\"", 1));
    assert_eq!(e.field, "flow[1].app.from");
    assert!(e.message.contains("ends at \"d\"") && e.message.contains("source \"gw\""), "{e}");
    let mptcp = r#"transport = { kind = "mptcp", subflows = [{ path = ["server", "gw"] }] }"#;
    let e = check(&relayed(mptcp, r#"from = "up""#, ""));
    assert!(e.field == "flow[1].app.from" && e.message.contains("is MP-TCP"), "{e}");
    let second =
        "[[flow]]\nname = \"again\"\nfrom = \"gw\"\nto = \"d\"\napp = { kind = \"relay\", from = \"up\" }\n";
    let e = check(&relayed("", r#"from = "up""#, second));
    assert_eq!(e.field, "flow[2].app.from");
    assert!(e.message.contains("already relayed by flow \"down\""), "{e}");
    // A cycle: "back" (d → gw) relays "down", and "down" relays "back".
    let cycle =
        "[[flow]]\nname = \"back\"\nfrom = \"d\"\nto = \"gw\"\napp = { kind = \"relay\", from = \"down\" }\n";
    let e = check(&relayed("", r#"from = "back""#, cycle));
    assert!(e.field == "flow[1].app.from" && e.message.contains("cycle"), "{e}");
    let e = check(&relayed("", r#"from = "up", buffer = "0B""#, ""));
    assert!(e.field == "flow[1].app.buffer" && e.message.contains("greater than 0B"), "{e}");
    let e = check(&relayed("", r#"from = "up", buffer = "1000B""#, ""));
    assert!(e.field == "flow[1].app.buffer" && e.message.contains("MSS"), "{e}");
}

#[test]
fn a_duration_beyond_the_clock_and_a_list_for_a_table_are_refused() {
    let e = check(&format!(
        "[simulation]\nduration = \"18446744073709551615ps\"\n[metrics]\ninterval = \"1000000s\"\n{BASE}"
    ));
    assert!(e.field == "simulation.duration" && e.message.contains("100 days"), "{e}");
    let e = check(&format!("[simulation]\nduration = \"8700000s\"\n{BASE}"));
    assert_eq!(e.field, "simulation.duration", "{e}");
    let e = check(&BASE.replace("rate = \"1Gbps\"", "rate = \"1Gbps\"\nforward = [0.5, 0.5, 0.5]"));
    assert!(e.field == "link[0].forward" && e.message.contains("found a list"), "{e}");
    // A whole entry given as a list, and a list in a table outside the entries.
    let nodes = BASE.replace("[[node]]\nname = \"server\"\n[[node]]\nname = \"ue\"\n", "");
    let e = check(&format!("node = [[\"server\"], [\"ue\"]]\n{nodes}"));
    assert!(e.field == "node[0]" && e.message.contains("found a list"), "{e}");
    let e = check(&format!("[metrics]\nburst = [\"0s\", \"10ms\"]\n{BASE}"));
    assert!(e.field == "metrics.burst" && e.message.contains("found a list"), "{e}");
}

#[test]
fn a_sampling_interval_longer_than_the_run_is_refused() {
    let e = check(&format!("[simulation]\nduration = \"1s\"\n[metrics]\ninterval = \"2s\"\n{BASE}"));
    assert!(e.field == "metrics.interval" && e.message.contains("longer than the run"), "{e}");
}

#[test]
fn a_seed_beyond_what_toml_holds_is_refused() {
    let source =
        ScenarioSource::Toml { text: BASE.into(), name: "bad.toml".into(), base_dir: PathBuf::new() };
    let options = RunOptions { seed: Some(1 << 63), ..RunOptions::default() };
    let e = validate(&source, &options).expect_err("seed 2^63 cannot be written back to TOML");
    assert!(e.field == "simulation.seed" && e.message.contains("9223372036854775807"), "{e}");
    let options = RunOptions { seed: Some(i64::MAX as u64), ..RunOptions::default() };
    assert!(validate(&source, &options).unwrap().contains("seed = 9223372036854775807"));
}

#[test]
fn a_stateful_processor_with_an_mptcp_flow_names_the_processor() {
    // Spraying may carry MP-TCP subflows (tests/cotag.rs); a PEP keeps per-flow state of plain
    // TCP flows and is refused beside an MP-TCP flow.
    let text = BASE
        .replace("name = \"server\"\n", "name = \"server\"\nprocessors = [{ kind = \"pep\" }]\n")
        .replace("to = \"ue\"\n", "to = \"ue\"\ntransport = { kind = \"mptcp\", subflows = [{}, {}] }\n");
    let e = check(&text);
    assert_eq!(e.field, "node[0].processors[0]");
    assert!(e.message.contains("\"pep\"") && e.message.contains("only \"spray\""), "{e}");
    assert!(e.message.contains("flow[0]"), "{e}");
}
