//! Scenario tests of the radio stack: AMC rate, HARQ and RLC repairing block errors, the cost of a
//! stale MCS after a sudden SINR drop, separate uplink/downlink channels, link reports.

use crate::common::*;
use mmtcp::ids::DirId;
use mmtcp::radio::report::{LinkReport, ReportSubscriber};
use std::cell::RefCell;
use std::rc::Rc;

/// ue —(radio)— enb —(10 Gbit/s, 1 ms)— server, one TCP flow from ue to server (uplink data,
/// so the forward direction ue→enb carries data). `radio` is the body of `[link.radio]`.
fn uplink(duration: &str, radio: &str, app: &str) -> String {
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
name = "air"
between = ["ue", "enb"]
kind = "radio"
delay = "10us"
[link.radio]
{radio}
[[link]]
between = ["enb", "server"]
rate = "10Gbps"
delay = "1ms"
buffer = "100000pkt"
[[flow]]
from = "ue"
to = "server"
transport = {{ cc = "cubic", send_buffer = "32MB", receive_buffer = "32MB" }}
app = {app}
"#
    )
}

const BULK: &str = r#"{ kind = "bulk" }"#;

fn direction(out: &Ran, d: usize) -> &serde_json::Value {
    &out.summary["links"][0]["directions"][d]
}

#[test]
fn tcp_fills_a_constant_sinr_link_up_to_the_mcs_rate() {
    let radio = r#"
channel = { kind = "constant", sinr_db = 15.0 }
rlc = { mode = "am", buffer = "4MB" }
"#;
    let out = run_toml(&uplink("3s", radio, BULK));
    let capacity = f64_of(&direction(&out, 0)["mean_capacity_bps"]);
    let goodput = f64_of(&flow(&out)["goodput_bps"]);
    eprintln!("capacity {:.0} Mbit/s, goodput {:.0} Mbit/s", capacity / 1e6, goodput / 1e6);
    // 15 dB: NR MCS 21 (64-QAM, 3.6094 bit/s/Hz) is the highest meeting 10 % BLER; 22 % overhead.
    let expected = 3.6094 * 1e9 * 0.78;
    assert!((capacity - expected).abs() < 1e-3 * expected, "capacity {capacity} vs {expected}");
    // Headers (TCP/IP, RLC), slow start and HARQ round trips cost a few percent.
    assert!(goodput > 0.85 * capacity && goodput < capacity, "goodput {goodput} vs capacity {capacity}");
    let radio = &direction(&out, 0)["radio"];
    let errors = f64_of(&radio["tb_error_rate"]);
    assert!(errors < 0.1, "the chosen MCS meets the 10 % BLER target at a steady SINR: {errors}");
    assert_eq!(radio["harq"]["failed"], 0, "at a steady SINR four attempts always succeed");
}

/// A rate-capped flow at a steady SINR just above NR MCS 20's 10 % point (13.13 dB): about 8 % of
/// first attempts fail, and those are the only losses.
fn at_marginal_sinr(harq: bool, rlc: &str) -> Ran {
    let radio = format!(
        r#"
channel = {{ kind = "constant", sinr_db = 13.15 }}
harq = {{ enabled = {harq} }}
rlc = {{ mode = "{rlc}", buffer = "8MB" }}
"#
    );
    run_toml(&uplink("3s", &radio, r#"{ kind = "bulk", rate_limit = "200Mbps" }"#))
}

#[test]
fn harq_and_rlc_am_hide_block_errors_from_tcp() {
    let bare = at_marginal_sinr(false, "um");
    let harq_um = at_marginal_sinr(true, "um");
    let harq_am = at_marginal_sinr(true, "am");
    let retx = |o: &Ran| f64_of(&flow(o)["retransmitted_segments"]);
    let sent = |o: &Ran| f64_of(&flow(o)["segments_sent"]);
    eprintln!(
        "TCP retransmissions: no HARQ {} / {}, HARQ+UM {}, HARQ+AM {}",
        retx(&bare),
        sent(&bare),
        retx(&harq_um),
        retx(&harq_am)
    );
    // With HARQ every first-attempt error is retransmitted once (Chase combining to 16.2 dB
    // always succeeds): retransmissions / first attempts is the BLER of MCS 20 at 13.15 dB.
    let harq = &direction(&harq_am, 0)["radio"]["harq"];
    let bler = f64_of(&harq["retransmissions"]) / f64_of(&harq["first_attempts"]);
    assert!((bler - 0.084).abs() < 0.01, "BLER of MCS 20 at 13.15 dB: {bler}");
    // Without HARQ every block error loses the segments of a TB: TCP repairs them.
    assert!(retx(&bare) > 0.02 * sent(&bare));
    assert_eq!(direction(&bare, 0)["radio"]["harq"]["retransmissions"], 0);
    // HARQ leaves a residual of about 0.1⁴; RLC AM repairs even that.
    assert!(retx(&harq_um) < retx(&bare) / 10.0);
    assert_eq!(retx(&harq_am), 0.0, "RLC AM delivers every SDU: TCP never retransmits");
    assert!(f64_of(&direction(&harq_am, 0)["radio"]["harq"]["retransmissions"]) > 0.0);
    assert_eq!(direction(&harq_um, 0)["radio"]["rlc"]["retx_segments"], 0, "UM never retransmits");
    // With HARQ the flow gets its 200 Mbit/s; without, 8 % burst losses collapse CUBIC.
    let goodput = |o: &Ran| f64_of(&flow(o)["goodput_bps"]);
    for o in [&harq_um, &harq_am] {
        assert!(goodput(o) > 0.19e9, "{}", goodput(o));
    }
    assert!(goodput(&bare) < 0.5 * goodput(&harq_am), "{}", goodput(&bare));
}

#[test]
fn a_sudden_sinr_drop_fails_the_tbs_of_one_amc_delay() {
    // 30 dB for 1 s, then 5 dB: the MAC keeps the 30 dB MCS for amc_delay and those TBs fail.
    let radio = |delay: &str| {
        format!(
            r#"
amc_delay = "{delay}"
channel = {{ kind = "sinr_trace", file = "traces/sinr-drop.csv" }}
harq = {{ enabled = false }}
rlc = {{ mode = "um", buffer = "8MB" }}
"#
        )
    };
    let errors = |delay: &str| {
        let out = run_toml(&uplink("2s", &radio(delay), r#"{ kind = "bulk", rate_limit = "300Mbps" }"#));
        f64_of(&direction(&out, 0)["radio"]["tb_errors"])
    };
    let (short, long) = (errors("0.5ms"), errors("8ms"));
    eprintln!("TB errors with a 0.5 ms CQI age: {short}; 8 ms: {long}");
    // 300 Mbit/s at 125 µs slots is about one TB per slot: 8 ms of stale MCS is up to 60 failed
    // TBs more than 0.5 ms (TCP's reaction to the first losses thins the later TBs out); the
    // steady errors at 5 dB are the same in both runs.
    assert!(long - short > 24.0, "short {short} long {long}");
}

#[test]
fn uplink_and_downlink_follow_their_own_channels() {
    let radio = r#"
channel = { kind = "constant", sinr_db = 20.0 }
reverse_channel = { kind = "constant", sinr_db = 0.0 }
"#;
    let out = run_toml(&uplink("1s", radio, BULK));
    let up = f64_of(&direction(&out, 0)["mean_capacity_bps"]);
    let down = f64_of(&direction(&out, 1)["mean_capacity_bps"]);
    assert!(up > 3.0 * down && down > 0.0, "20 dB uplink {up} vs 0 dB downlink {down}");
    let sinr = |d| f64_of(&direction(&out, d)["radio"]["mean_sinr_db"]);
    assert_eq!((sinr(0), sinr(1)), (20.0, 0.0));
}

struct Shared(Rc<RefCell<Vec<LinkReport>>>);

impl ReportSubscriber for Shared {
    fn on_report(&mut self, report: &LinkReport) {
        self.0.borrow_mut().push(*report);
    }
}

fn reports(radio: &str) -> Vec<LinkReport> {
    let mut world = world(&uplink("2s", radio, r#"{ kind = "bulk", rate_limit = "100Mbps" }"#));
    let seen = Rc::new(RefCell::new(Vec::new()));
    world.subscribe(DirId(0), Box::new(Shared(seen.clone())));
    world.run(&mut |_, _| true);
    let r = seen.borrow().clone();
    r
}

#[test]
fn reports_go_out_on_mcs_changes_or_periodically() {
    let on_change = reports(r#"channel = { kind = "sinr_trace", file = "traces/sinr-drop.csv" }"#);
    // t = 0 (the first SINR) and t = 1 s (the drop): two changes of MCS, nothing else.
    let times: Vec<f64> = on_change.iter().map(|r| r.time.as_secs_f64()).collect();
    assert_eq!(times, vec![0.0, 1.0]);
    assert!(on_change[0].mcs > on_change[1].mcs && on_change[0].rate_bps > on_change[1].rate_bps);
    assert_eq!(on_change[1].sinr_db, 5.0);
    let periodic = reports(
        r#"channel = { kind = "sinr_trace", file = "traces/sinr-drop.csv" }
report = { mode = "periodic", period = "100ms" }"#,
    );
    let times: Vec<u64> = periodic.iter().map(|r| r.time.0 / 100_000_000_000).collect();
    assert_eq!(times, (1..=20).collect::<Vec<u64>>(), "one report every 100 ms");
    for r in &periodic {
        assert_eq!(r.dir, DirId(0));
        assert_eq!(r.sinr_db, if r.time.as_secs_f64() < 1.0 { 30.0 } else { 5.0 });
    }
}

/// Two links driven by one Markov pair (Wu et al. §5.1): with q = 1 link 2 always takes link 1's
/// level, with q = 0 always the other one; the rates are Gaussian around 3 and 10 Gbit/s.
#[test]
fn a_markov_pair_drives_two_links_jointly() {
    let levels = |q: f64| {
        let link = |name: &str, member: u8| {
            format!(
                "[[link]]\nname = \"{name}\"\nbetween = [\"g\", \"d\"]\nkind = \"radio\"\nchannel = {{ kind = \"markov_pair\", group = \"cotag\", member = {member}, p = 0.3, q = {q} }}\n"
            )
        };
        let text = format!(
            "[simulation]\nduration = \"20s\"\n[metrics]\ninterval = \"50ms\"\n[[node]]\nname = \"g\"\n[[node]]\nname = \"d\"\n{}{}[[flow]]\nfrom = \"g\"\nto = \"d\"\napp = {{ kind = \"bulk\", rate_limit = \"1Mbps\" }}\n",
            link("ap1", 1),
            link("ap2", 2)
        );
        let out = run_toml(&text);
        let column = |name: &str| {
            out.columns.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{name}")).values.clone()
        };
        let (one, two) = (column("link.ap1.fwd.capacity_bps"), column("link.ap2.fwd.capacity_bps"));
        // Rows at odd multiples of 50 ms sit in the middle of a 100 ms step; the first step is
        // the configured start state (both high), not a transition.
        let high = |r: f64| r > 6.5e9;
        let rows: Vec<(bool, bool)> =
            (2..one.len()).step_by(2).map(|i| (high(one[i]), high(two[i]))).collect();
        let mean_high =
            one.iter().filter(|&&r| high(r)).sum::<f64>() / one.iter().filter(|&&r| high(r)).count() as f64;
        (rows, mean_high)
    };
    let (same, mean_high) = levels(1.0);
    assert!(same.iter().all(|(a, b)| a == b), "q = 1: link 2 follows link 1");
    assert!(same.iter().any(|(a, _)| *a) && same.iter().any(|(a, _)| !*a), "p = 0.3 flips link 1");
    assert!((mean_high - 10e9).abs() < 0.2e9, "mean rate in H: {mean_high}");
    let (opposite, _) = levels(0.0);
    assert!(opposite.iter().all(|(a, b)| a != b), "q = 0: link 2 takes the other level");
}

/// Whatever the radio loses, TCP delivers the whole file exactly once: downloads over a lossy
/// 80 m link (NYU, LOS/NLOS redrawn every ~200 ms, fading) in every RLC mode, with and without
/// HARQ.
#[test]
fn downloads_complete_exactly_over_every_link_layer_configuration() {
    for (harq, rlc) in [(false, "tm"), (false, "um"), (true, "um"), (true, "am"), (false, "am")] {
        for seed in ["1", "2"] {
            let radio = format!(
                r#"
channel = {{ kind = "cellular", distance_m = 80.0, state_dwell = "200ms" }}
harq = {{ enabled = {harq} }}
rlc = {{ mode = "{rlc}", buffer = "1MB" }}
"#
            );
            let out = run_toml_with(
                &uplink("20s", &radio, r#"{ kind = "download", size = "3MB" }"#),
                &[("simulation.seed", seed)],
            );
            let f = flow(&out);
            assert_eq!(f["bytes_delivered"], 3_000_000, "HARQ {harq}, RLC {rlc}, seed {seed}");
            assert!(f["completion_seconds"].is_number(), "HARQ {harq}, RLC {rlc}, seed {seed}");
        }
    }
}

/// Drago et al. scenario B over the 802.11ad SC table at 500 MHz: the top MCS (12, 1.5 Gbit/s) while
/// the blocker is away, a drop of two or more MCS indices while it crosses the LOS path.
#[test]
fn ieee80211ad_scenario_b_drops_the_mcs_while_the_blocker_crosses() {
    let radio = r#"
bandwidth = "500MHz"
slot = "100us"
amc = { table = "ieee80211ad_sc" }
channel = { kind = "ieee80211ad", source = { kind = "synthetic", scenario = "b" } }
"#;
    let out = run_toml(&uplink("10s", radio, r#"{ kind = "bulk", rate_limit = "100Mbps" }"#));
    let mcs = out.column("link.air.fwd.mcs");
    let capacity = out.column("link.air.fwd.capacity_bps");
    let top = mcs.iter().cloned().fold(f64::MIN, f64::max);
    let bottom = mcs.iter().cloned().fold(f64::MAX, f64::min);
    assert_eq!(top, 12.0, "unblocked: MCS 12");
    assert!(top - bottom >= 2.0, "blocked: MCS drops to {bottom}");
    assert_eq!(capacity.iter().cloned().fold(f64::MIN, f64::max), 1.5e9, "MCS 12 × 500 MHz");
}

/// The LTE companion link of Polese et al. 2017a (UMa, 2.1 GHz, 20 MHz, single antennas, LTE CQI table):
/// tens of Mbit/s at most, and far steadier than mmWave.
#[test]
fn an_lte_link_carries_tens_of_megabits() {
    let radio = r#"
bandwidth = "20MHz"
slot = "1ms"
amc = { table = "lte" }
channel = { kind = "cellular", propagation = "uma", frequency = "2.1GHz", tx_power_dbm = 25.0, tx_antennas = 1, rx_antennas = 1, distance_m = 100.0, fading = "none" }
"#;
    let out = run_toml(&uplink("3s", radio, BULK));
    let capacity = f64_of(&direction(&out, 0)["mean_capacity_bps"]);
    // Highest LTE CQI: 5.5547 bit/s/Hz × 20 MHz × (1 − 0.29) = 78.9 Mbit/s.
    assert!(capacity > 10e6 && capacity <= 78.9e6, "{capacity}");
    let goodput = f64_of(&flow(&out)["goodput_bps"]);
    assert!(goodput > 0.5 * capacity && goodput < capacity, "goodput {goodput} vs {capacity}");
}

/// Polese et al. 2017a §V: a UE walking at 5 m/s past 10 random obstacles: the SINR jumps between LOS and
/// NLOS levels as the obstacles cut the path, and the layout changes with the seed.
#[test]
fn a_moving_ue_among_obstacles_switches_between_los_and_nlos() {
    let radio = r#"
channel = { kind = "cellular", bs_position = [-1.0, 20.0], ue_start = [151.0, 0.0], ue_velocity = [0.0, 5.0], visibility = "obstacles", obstacles = { count = 10, min_size_m = 2.0, max_size_m = 8.0, area = [0.0, 0.0, 150.0, 40.0] }, fading = "none", shadowing = false }
"#;
    let sinr = |seed: &str| {
        let out = run_toml_with(
            &uplink("8s", radio, r#"{ kind = "bulk", rate_limit = "100Mbps" }"#),
            &[("simulation.seed", seed)],
        );
        out.column("link.air.fwd.sinr_db").to_vec()
    };
    let a = sinr("1");
    // Without shadowing or fading the SINR changes only with distance (slowly) and at LOS↔NLOS
    // switches, where NYU's two fits differ by ≈ 29 dB at 150 m.
    let jumps = a.windows(2).filter(|w| (w[0] - w[1]).abs() > 15.0).count();
    assert!(jumps >= 1, "the obstacles must cut the path at least once: {a:?}");
    assert_ne!(a, sinr("2"), "another seed places the obstacles elsewhere");
}

// ---------------------------------------------------------------------------------------------
// Radio link failure (rlf_timeout), the RLC discard timer, TDD.

/// 15 dB LOS for 1 s, then a 400 ms outage, then LOS again; a 250 Mbit/s flow keeps RLC's
/// buffer deep, so the outage finds thousands of packets held. `extra` goes into `[link.radio]`
/// and `rlc` into its `rlc` table.
fn outage_run(extra: &str, rlc: &str, duration: &str) -> Ran {
    let radio = format!(
        r#"
channel = {{ kind = "onoff", los_sinr_db = 15.0, los_duration = "1s", nlos_duration = "400ms" }}
rlc = {{ mode = "am", buffer = "8MB"{rlc} }}
{extra}
"#
    );
    run_toml(&uplink(duration, &radio, r#"{ kind = "bulk", rate_limit = "2.5Gbps" }"#))
}

/// The value of a time-series column at the row ending at `t_s`.
fn at(out: &Ran, name: &str, t_s: f64) -> f64 {
    let times = out.column("time_s");
    let i = times.iter().position(|&t| (t - t_s).abs() < 1e-9).unwrap_or_else(|| panic!("no row at {t_s}"));
    out.column(name)[i]
}

#[test]
fn an_outage_longer_than_rlf_timeout_frees_what_rlc_holds() {
    let plain = outage_run("", "", "2s");
    let rlf = outage_run(r#"rlf_timeout = "200ms""#, "", "2s");
    let short = outage_run(r#"rlf_timeout = "600ms""#, "", "2s");
    let held = |o: &Ran| at(o, "link.air.fwd.queue_packets", 1.3);
    eprintln!(
        "packets held at 1.3 s: no RLF {}, T310 200 ms {}, 600 ms {}",
        held(&plain),
        held(&rlf),
        held(&short)
    );
    let fwd = |o: &Ran| direction(o, 0)["radio"].clone();
    // The outage starts at 1 s; T310 = 200 ms expires at 1.2 s: one failure, the buffer emptied.
    assert_eq!(fwd(&rlf)["rlf_events"], 1);
    let freed = f64_of(&fwd(&rlf)["rlc"]["drops_rlf"]);
    assert!(held(&plain) > 1000.0, "the outage finds a deep buffer: {}", held(&plain));
    assert!(freed > 0.5 * held(&plain), "freed {freed} of about {} held", held(&plain));
    assert!(held(&rlf) < 0.1 * held(&plain), "RLF left {} packets held", held(&rlf));
    // The freed packets count as link (error) drops, and the link works again after the outage.
    assert!(f64_of(&direction(&rlf, 0)["drops"]["error"]) >= freed);
    let goodput = rlf.column("flow.flow0.goodput_bps");
    assert!(goodput.last().copied().unwrap() > 100e6, "carries data again: {goodput:?}");
    // T310 longer than the outage: no failure, nothing freed, same run as without rlf_timeout.
    assert_eq!(fwd(&short)["rlf_events"], 0);
    assert_eq!(fwd(&short)["rlc"]["drops_rlf"], 0);
    assert_eq!(short.summary["flows"], plain.summary["flows"], "an unexpired T310 changes nothing");
    assert_eq!(fwd(&plain)["rlf_events"], 0);
}

#[test]
fn rlf_frees_every_packet_no_leak() {
    // A 2.4 s transfer across three outages with T310 = 100 ms, in every RLC mode: after the run
    // every packet is back in the arena, and the transfer completes exactly.
    for mode in ["am", "um", "tm"] {
        let radio = format!(
            r#"
channel = {{ kind = "onoff", los_sinr_db = 15.0, los_duration = "700ms", nlos_duration = "300ms" }}
rlc = {{ mode = "{mode}", buffer = "4MB" }}
rlf_timeout = "100ms"
"#
        );
        let text = uplink("20s", &radio, r#"{ kind = "bulk", size = "30MB", rate_limit = "100Mbps" }"#);
        let mut w = world(&text);
        w.run(&mut |_, _| true);
        let rlf: u64 = w.dirs().iter().filter_map(|d| d.radio()).map(|r| r.radio.rlf_events).sum();
        let freed: u64 = w.dirs().iter().filter_map(|d| d.radio()).map(|r| r.radio.drops_rlf).sum();
        let f = &w.flows()[0];
        eprintln!("{mode}: {rlf} RLF events, {freed} packets freed, completed at {:?}", f.completed_at());
        assert!(rlf >= 2, "{mode}: {rlf}");
        assert!(freed > 0, "{mode}");
        assert_eq!(f.receiver().stats.bytes_delivered, 30_000_000, "{mode}");
        assert!(f.completed_at().is_some(), "{mode}");
        assert_eq!(w.live_packets(), 0, "{mode}: packets leaked");
    }
}

#[test]
fn the_discard_timer_drops_only_sdus_that_waited_too_long() {
    // 15 dB (≈2.8 Gbit/s) with 2.5 Gbit/s offered: SDUs wait microseconds; a 400 ms outage makes
    // the ones it holds wait up to 400 ms. A 50 ms discard timer drops those and nothing else.
    let plain = outage_run("", "", "2s");
    let timer = outage_run("", r#", discard_timer = "50ms""#, "2s");
    let long = outage_run("", r#", discard_timer = "2s""#, "2s");
    let drops = |o: &Ran| f64_of(&direction(o, 0)["radio"]["rlc"]["drops_discard_timer"]);
    eprintln!("discard-timer drops: 50 ms {}, 2 s {}", drops(&timer), drops(&long));
    assert_eq!(drops(&plain), 0.0);
    assert_eq!(drops(&long), 0.0, "nothing waits 2 s");
    assert!(drops(&timer) > 100.0, "the outage's backlog is discarded: {}", drops(&timer));
    assert!(f64_of(&direction(&timer, 0)["drops"]["queue"]) >= drops(&timer));
    // Before the outage nobody waits 50 ms: the first second is identical to the plain run.
    let sent = |o: &Ran| at(o, "flow.flow0.delivered_bytes", 1.0);
    assert_eq!(sent(&timer), sent(&plain));
    // And the buffer drains at once during the outage instead of holding its backlog.
    let held = |o: &Ran| at(o, "link.air.fwd.queue_bytes", 1.3);
    assert!(held(&timer) < 0.1 * held(&plain), "{} vs {}", held(&timer), held(&plain));
}

#[test]
fn tdd_gives_the_downlink_its_share_of_the_slots() {
    // A saturating flow on the forward direction (the downlink, `D`): with "DDDU" it gets 3/4 of
    // the all-slot throughput, with "DUUU" 1/4.
    let radio = |tdd: &str| format!("channel = {{ kind = \"constant\", sinr_db = 15.0 }}\n{tdd}");
    let goodput = |tdd: &str| {
        let out = run_toml(&uplink("2s", &radio(tdd), r#"{ kind = "bulk" }"#));
        let cap = f64_of(&direction(&out, 0)["mean_capacity_bps"]);
        (f64_of(&flow(&out)["goodput_bps"]), cap)
    };
    let (all, cap_all) = goodput("");
    let (dddu, cap_dddu) = goodput(r#"tdd = "DDDU""#);
    let (duuu, _) = goodput(r#"tdd = "DUUU""#);
    let (ccdduuuu, _) = goodput(r#"tdd = "CCDDUUUU""#);
    eprintln!(
        "goodput Mbit/s: all slots {:.0}, DDDU {:.0}, DUUU {:.0}, CCDDUUUU {:.0}",
        all / 1e6,
        dddu / 1e6,
        duuu / 1e6,
        ccdduuuu / 1e6
    );
    let ratio = dddu / all;
    assert!((0.70..0.80).contains(&ratio), "DDDU / all = {ratio}");
    let ratio = duuu / all;
    assert!((0.20..0.30).contains(&ratio), "DUUU / all = {ratio}");
    let ratio = ccdduuuu / all;
    assert!((0.20..0.30).contains(&ratio), "CCDDUUUU / all = {ratio}");
    // The capacity the summary reports counts the own slots: 3/4 of them.
    assert!((cap_dddu / cap_all - 0.75).abs() < 1e-6, "{cap_dddu} vs {cap_all}");
}

/// Drago et al. scenario B with the blocker walking at 1 m/s (a 2.8 s period), a blockage of
/// `blockage_db` and walls reflecting with a loss of `reflection_loss_db`.
fn blocked_80211ad(blockage_db: f64, reflection_loss_db: f64) -> Ran {
    let radio = format!(
        r#"
bandwidth = "500MHz"
slot = "50us"
amc = {{ table = "ieee80211ad_sc", target_bler = 0.001 }}
harq = {{ enabled = false }}
channel = {{ kind = "ieee80211ad", source = {{ kind = "synthetic", scenario = "b", speed = 1.0, blockage_db = {blockage_db:?}, reflection_loss_db = {reflection_loss_db:?} }} }}
"#
    );
    let mut text = uplink("6s", &radio, BULK);
    text = text.replace("interval = \"100ms\"", "interval = \"10ms\"");
    run_toml(&text)
}

/// Drago et al. §I: a human body costs 15 (hand) to 35 dB (whole body). With weak reflections
/// (30 dB walls) a 35 dB blockage takes the best pair below the lowest MCS: the link is in outage
/// and nothing crosses it; a 15 dB blockage of the same link keeps an MCS throughout.
#[test]
fn ieee80211ad_a_deep_blockage_reaches_outage_and_a_shallow_one_does_not() {
    let deep = blocked_80211ad(35.0, 30.0);
    let capacity = deep.column("link.air.fwd.capacity_bps");
    let carried = deep.column("link.air.fwd.throughput_bps");
    let sinr = deep.column("link.air.fwd.sinr_db");
    let outage: Vec<usize> = (0..capacity.len()).filter(|&i| capacity[i] == 0.0).collect();
    // Two crossings of the LOS in 6 s, each well over 100 ms below MCS 1.
    assert!(outage.len() >= 20, "{} intervals of 10 ms in outage", outage.len());
    // The first 10 ms of an outage still carries what the stale MCS gets through in one AMC
    // delay (1 ms); from the next interval on, nothing.
    let mut inner = 0;
    for &i in outage.iter().filter(|&&i| i > 0 && capacity[i - 1] == 0.0) {
        inner += 1;
        assert_eq!(carried[i], 0.0, "interval {i}: {} bit/s crossed a link in outage", carried[i]);
    }
    assert!(inner >= 18, "{inner}");
    let deepest = sinr.iter().cloned().fold(f64::MAX, f64::min);
    assert!(deepest < 2.0, "SNR at the deepest point: {deepest} dB");
    assert!(f64_of(&flow(&deep)["goodput_bps"]) > 100e6, "the link carries data between blockages");

    let shallow = blocked_80211ad(15.0, 30.0);
    let capacity = shallow.column("link.air.fwd.capacity_bps");
    let lowest = capacity.iter().cloned().fold(f64::MAX, f64::min);
    assert!(lowest > 0.0, "a 15 dB blockage never leaves the link without an MCS");
    let mcs = shallow.column("link.air.fwd.mcs");
    assert!(mcs.iter().cloned().fold(f64::MAX, f64::min) <= 10.0, "but it does drop the MCS");
}

/// ue —(radio)— enb —(10 Gbit/s, `core_buffer`)— server with HARQ off and RLC UM holding a hole for
/// 10 ms: the TB sent on a stale MCS during a one-slot dip at 1 s fails, and the UM receiver
/// releases everything received behind it at once when t-Reordering expires.
fn release_into_core(core_buffer: &str) -> Ran {
    let radio = r#"
amc_delay = "1ms"
channel = { kind = "sinr_trace", file = "traces/sinr-dip.csv" }
harq = { enabled = false }
rlc = { mode = "um", buffer = "8MB", t_reassembly = "1ms", t_reassembly_um = "10ms" }
"#;
    let text =
        uplink("1.5s", radio, BULK).replace(r#"buffer = "100000pkt""#, &format!("buffer = {core_buffer:?}"));
    run_toml(&text)
}

#[test]
fn an_rlc_release_beyond_the_s1u_queue_loses_the_excess() {
    // ns-3 mmWave 2017 (docs/models/ns3-mmwave-2017.md §9): in-order RLC receivers release a hole's
    // backlog in one instant into the eNB's S1-U link, whose queues hold about 1100 packets.
    let unbounded = release_into_core("100000pkt");
    let bounded = release_into_core("1100pkt");
    let core = |o: &Ran| o.summary["links"][1]["directions"][0].clone();
    // With room for all, the release is the largest queue the core link ever holds: N − 1 packets
    // queued behind the one in service (1500-byte segments).
    let max_queue = f64_of(&core(&unbounded)["max_queue_bytes"]) / 1500.0;
    assert_eq!(max_queue.fract(), 0.0, "whole segments: {max_queue}");
    assert_eq!(core(&unbounded)["drops"]["queue"], 0);
    let released = max_queue as u64 + 1;
    assert!(released > 1100 + 100, "10 ms of a multi-gigabit link: {released} packets");
    // With 1100 places, the one in service and 1100 queued pass and the rest of the release is
    // lost, all at once, with nothing lost before.
    let drops = core(&bounded)["drops"]["queue"].as_u64().unwrap();
    eprintln!("released {released}, dropped {drops}");
    assert_eq!(drops, released - 1101, "released {released}, dropped {drops}");
    assert_eq!(f64_of(&core(&bounded)["max_queue_bytes"]), 1100.0 * 1500.0);
    assert_eq!(direction(&bounded, 0)["radio"]["tb_errors"], 1, "one TB failed, in the dip");
}
