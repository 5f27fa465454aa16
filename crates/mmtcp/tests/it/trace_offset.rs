//! `offset = "random"` on rate traces: one draw per run, shared by every trace channel, so traces
//! recorded together stay aligned; another seed starts elsewhere.

use crate::common::run_toml;

/// Two radio links replaying `traces/loop.csv` (period 2 s) from a random offset.
fn two_links(seed: u64) -> String {
    format!(
        r#"
[simulation]
duration = "4s"
seed = {seed}
[metrics]
interval = "50ms"
[[node]]
name = "a"
[[node]]
name = "b"
[[node]]
name = "c"
[[link]]
name = "one"
between = ["a", "b"]
kind = "radio"
channel = {{ kind = "trace", file = "traces/loop.csv", repeat = true, offset = "random" }}
[[link]]
name = "two"
between = ["a", "c"]
kind = "radio"
channel = {{ kind = "trace", file = "traces/loop.csv", repeat = true, offset = "random" }}
[[flow]]
from = "a"
to = "b"
"#
    )
}

fn capacity(seed: u64) -> (Vec<f64>, Vec<f64>) {
    let out = run_toml(&two_links(seed));
    let column = |name: &str| out.columns.iter().find(|c| c.name == name).expect(name).values.clone();
    (column("link.one.fwd.capacity_bps"), column("link.two.fwd.capacity_bps"))
}

#[test]
fn both_links_start_at_the_same_point_of_the_trace_and_seeds_move_it() {
    let (one, two) = capacity(1);
    assert_eq!(one, two, "the same offset on both links");
    // loop.csv spends 1 s of its 2 s period at 100 Mbit/s, 0.5 s at 0 and 0.5 s at 200.
    let share = |v: &[f64], rate: f64| v.iter().filter(|&&r| r == rate).count() as f64 / v.len() as f64;
    assert!((share(&one, 100e6) - 0.5).abs() < 0.05, "{one:?}");
    let starts: Vec<f64> = (1..=8).map(|seed| capacity(seed).0[0]).collect();
    let distinct = starts.iter().fold(Vec::<f64>::new(), |mut seen, &r| {
        if !seen.contains(&r) {
            seen.push(r);
        }
        seen
    });
    assert!(distinct.len() >= 2, "eight seeds all start at the same rate: {starts:?}");
    let (again, _) = capacity(1);
    assert_eq!(one, again, "a seed always draws the same offset");
}
