//! Scenario tests of the TCP models against formulas and the behaviours the seeds start from.

use crate::common::*;

/// server —(`core`)— router —(`last_hop`)— ue: one flow from server to ue. `core` and
/// `last_hop` are the keys of each `[[link]]` after `between`; `transport` the flow's table.
fn two_hops(duration: &str, interval: &str, core: &str, last_hop: &str, transport: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[metrics]
interval = "{interval}"
[[node]]
name = "server"
[[node]]
name = "router"
[[node]]
name = "ue"
[[link]]
between = ["server", "router"]
{core}
[[link]]
between = ["router", "ue"]
{last_hop}
[[flow]]
from = "server"
to = "ue"
transport = {transport}
"#
    )
}

const FAST_CORE: &str = "rate = \"10Gbps\"\ndelay = \"5ms\"\nbuffer = \"10000pkt\"";

/// A 10 Gbit/s core and a bottleneck of `rate`, 5 ms each way: 20 ms of propagation RTT.
fn chain(rate: &str, buffer: &str, cc: &str, duration: &str) -> String {
    let last_hop = format!("rate = \"{rate}\"\ndelay = \"5ms\"\nbuffer = \"{buffer}\"");
    let transport = format!("{{ cc = \"{cc}\", send_buffer = \"64MB\", receive_buffer = \"64MB\" }}");
    two_hops(duration, "100ms", FAST_CORE, &last_hop, &transport)
}

#[test]
fn cubic_fills_a_1gbps_bottleneck_with_one_bdp_of_buffer() {
    // BDP = 1 Gbit/s × 20 ms = 2.5 MB.
    let out = run_toml(&chain("1Gbps", "2.5MB", "cubic", "20s"));
    let goodput = f64_of(&flow(&out)["goodput_bps"]);
    eprintln!("CUBIC over 1 Gbit/s: {:.1} Mbit/s", goodput / 1e6);
    assert!(goodput >= 0.93e9, "CUBIC goodput {:.1} Mbit/s < 93 % of 1 Gbit/s", goodput / 1e6);
}

#[test]
fn newreno_fills_a_1gbps_bottleneck_with_one_bdp_of_buffer() {
    let out = run_toml(&chain("1Gbps", "2.5MB", "newreno", "20s"));
    let goodput = f64_of(&flow(&out)["goodput_bps"]);
    eprintln!("NewReno over 1 Gbit/s: {:.1} Mbit/s", goodput / 1e6);
    assert!(goodput >= 0.85e9, "NewReno goodput {:.1} Mbit/s < 85 % of 1 Gbit/s", goodput / 1e6);
}

/// Mathis, Semke, Mahdavi, Ott, "The macroscopic behavior of the TCP congestion avoidance
/// algorithm", CCR 1997: BW = MSS/RTT · √(3/(2p)) with one ACK per segment.
#[test]
fn newreno_with_sack_follows_the_mathis_formula() {
    for (p, seconds) in [(1e-4f64, 400), (1e-3, 300), (3e-3, 300)] {
        let text = two_hops(
            &format!("{seconds}s"),
            "1s",
            "rate = \"1Gbps\"\ndelay = \"10ms\"\nbuffer = \"10000pkt\"",
            &format!("rate = \"100Mbps\"\ndelay = \"10ms\"\nbuffer = \"10000pkt\"\nforward = {{ loss = {p} }}"),
            "{ cc = \"newreno\", sack = true, delayed_ack = false, send_buffer = \"64MB\", receive_buffer = \"64MB\" }",
        );
        let out = run_toml(&text);
        let goodput = f64_of(&flow(&out)["goodput_bps"]);
        let mss_bits = 1448.0 * 8.0;
        let rtt = 0.040;
        let mathis = mss_bits / rtt * (3.0 / (2.0 * p)).sqrt();
        let ratio = goodput / mathis;
        eprintln!(
            "p = {p}: {:.2} Mbit/s, Mathis {:.2} Mbit/s, ratio {ratio:.2}",
            goodput / 1e6,
            mathis / 1e6
        );
        assert!(
            (0.7..=1.3).contains(&ratio),
            "p = {p}: goodput {:.2} Mbit/s vs Mathis {:.2} Mbit/s (ratio {ratio:.2})",
            goodput / 1e6,
            mathis / 1e6
        );
    }
}

/// A 10 Gbit/s core and a radio last hop following `channel`, 5 ms each way, 2.5 MB of buffer;
/// CUBIC on `profile`.
fn radio(channel: &str, profile: &str) -> String {
    let last_hop = format!("kind = \"radio\"\nchannel = {channel}\ndelay = \"5ms\"\nbuffer = \"2.5MB\"");
    let transport = format!(
        "{{ cc = \"cubic\", profile = \"{profile}\", send_buffer = \"64MB\", receive_buffer = \"64MB\" }}"
    );
    two_hops("20s", "100ms", FAST_CORE, &last_hop, &transport)
}

/// The baseline of Drago et al. and Kim et al.: blockage makes TCP lose more than the capacity lost. How
/// much depends on CUBIC after a timeout: RFC 9438 climbs back along C·t³ from K = 0 and keeps
/// well under half the mean capacity; Linux (and ns-3) grow at least 5 % per RTT while W_max is
/// unknown and lose about a fifth.
#[test]
fn cubic_collapses_under_blockage_but_not_on_the_mean_capacity() {
    let onoff = r#"{ kind = "onoff", los_rate = "1Gbps", nlos_rate = "0bps", los_duration = "1s", nlos_duration = "1s" }"#;
    for (profile, bound) in [("linux", 0.9), ("rfc", 0.5)] {
        let blocked = run_toml(&radio(onoff, profile));
        let link = &blocked.summary["links"][1];
        let mean_capacity = f64_of(&link["mean_capacity_bps"]);
        assert!((mean_capacity - 0.5e9).abs() < 1e6, "mean capacity {mean_capacity}");
        let goodput = f64_of(&flow(&blocked)["goodput_bps"]);
        let rtos = flow(&blocked)["rto_count"].as_u64().unwrap();
        eprintln!(
            "blockage, {profile}: {:.1} Mbit/s of {:.1} mean capacity, {rtos} RTOs",
            goodput / 1e6,
            mean_capacity / 1e6
        );
        assert!(
            goodput < bound * mean_capacity,
            "{profile}: goodput {:.1} Mbit/s is not below {bound} of the mean capacity",
            goodput / 1e6
        );
        assert!(rtos >= 1, "{profile}: no retransmission timeout during 1 s outages");
    }

    let constant = run_toml(&radio(r#"{ kind = "constant", rate = "500Mbps" }"#, "linux"));
    let goodput = f64_of(&flow(&constant)["goodput_bps"]);
    eprintln!("constant 0.5 Gbit/s: {:.1} Mbit/s", goodput / 1e6);
    assert!(goodput >= 0.9 * 0.5e9, "goodput {:.1} Mbit/s < 90 % of a constant 0.5 Gbit/s", goodput / 1e6);
}

/// A one-BDP buffer (100 Mbit/s × 20 ms = 250 kB) in front of a link whose rate steps
/// 100 → 10 → 100 Mbit/s at 5 s and 10 s; one CUBIC flow on `transport`.
fn rate_step(transport: &str) -> String {
    let last_hop = "kind = \"radio\"\nchannel = { kind = \"trace\", file = \"traces/step_100_10_100.csv\" }\ndelay = \"5ms\"\nbuffer = \"250KB\"";
    two_hops("15s", "100ms", FAST_CORE, last_hop, transport)
}

#[test]
fn linux_profile_rides_a_rate_step_without_a_timeout_where_rfc6298_times_out() {
    // At the step down the queue holds 250 kB at 10 Mbit/s: 200 ms of delay appears within one
    // RTT. Linux's RTO stays above SRTT + 200 ms, so the ACKs arrive in time; RFC 6298's
    // max(200 ms, SRTT + 4·RTTVAR) has shrunk to about 200 ms on the steady 20 ms path and fires
    // (issue 16: twice per run), retransmitting data that was only queued.
    let linux = run_toml(&rate_step("{ cc = \"cubic\", profile = \"linux\" }"));
    let f = flow(&linux);
    assert_eq!(f["rto_count"].as_u64().unwrap(), 0, "linux profile: no timeout");
    let goodput = f64_of(&f["goodput_bps"]);
    // 5 s at 100, 5 s at 10, 5 s at 100 Mbit/s: at most 70 Mbit/s on average.
    assert!(goodput > 0.8 * 70e6, "{:.1} Mbit/s", goodput / 1e6);
    let rfc = run_toml(&rate_step("{ cc = \"cubic\", rto = \"rfc6298\" }"));
    assert!(flow(&rfc)["rto_count"].as_u64().unwrap() >= 1, "the RFC 6298 timer fires on the step");
}

#[test]
fn a_20kbps_link_carries_its_payload_rate() {
    // One segment takes 0.6 s to serialise: the initial window alone is 6 s of queue, far past
    // the 1 s initial RTO. Without timestamps every ACK after the first timeout acknowledges
    // retransmitted data, Karn's rule gives no RTT sample, and the flow times out again and
    // again; with them the RTO learns the seconds-long RTT and the link carries payload.
    let last_hop = "rate = \"20kbps\"\ndelay = \"5ms\"\nbuffer = \"1000pkt\"";
    let out = run_toml(&two_hops("600s", "10s", FAST_CORE, last_hop, "{ cc = \"cubic\" }"));
    let f = flow(&out);
    let goodput = f64_of(&f["goodput_bps"]);
    let payload_rate = 20e3 * 1448.0 / (1448.0 + 52.0);
    eprintln!("20 kbit/s: goodput {goodput:.0} bit/s, {} RTOs", f["rto_count"]);
    assert!(goodput > 0.8 * payload_rate, "{goodput:.0} bit/s of {payload_rate:.0}");
    assert!(goodput <= payload_rate * 1.0001);
}

/// A 100 Mbit/s, 20 ms path with a deep buffer (2000 packets, about 12 BDPs) and `forward` as
/// the bottleneck's impairments; one flow on `cc`.
fn deep_buffer(cc: &str, forward: &str) -> String {
    let last_hop = format!("rate = \"100Mbps\"\ndelay = \"5ms\"\nbuffer = \"2000pkt\"\nforward = {forward}");
    two_hops("20s", "100ms", FAST_CORE, &last_hop, &format!("{{ cc = \"{cc}\" }}"))
}

#[test]
fn bbr_fills_the_link_without_filling_the_buffer() {
    // BBR paces at its bandwidth estimate and keeps about one BDP in flight (cwnd gain 2 caps
    // it at two): the median RTT stays near the 20 ms base while CUBIC fills the buffer.
    let bbr = run_toml(&deep_buffer("bbr", "{}"));
    let f = flow(&bbr);
    let goodput = f64_of(&f["goodput_bps"]);
    let p50 = f64_of(&f["rtt_ms"]["p50"]);
    eprintln!("BBR: {:.1} Mbit/s, RTT p50 {p50:.1} ms", goodput / 1e6);
    // 100 Mbit/s carries 96.5 Mbit/s of payload; PROBE_RTT costs ~2 % every 10 s.
    assert!(goodput > 0.9e8, "BBR goodput {:.1} Mbit/s", goodput / 1e6);
    assert!(p50 < 25.0, "BBR median RTT {p50} ms");
    let cubic = run_toml(&deep_buffer("cubic", "{}"));
    assert!(f64_of(&flow(&cubic)["rtt_ms"]["p50"]) > 100.0, "CUBIC fills the buffer");
}

#[test]
fn bbr_keeps_its_rate_under_random_loss_where_cubic_collapses() {
    // 1 % i.i.d. loss: loss is no congestion signal to BBR (below its long-term sampler's 20 %),
    // while CUBIC halves its window at every loss.
    let bbr = run_toml(&deep_buffer("bbr", "{ loss = 0.01 }"));
    let cubic = run_toml(&deep_buffer("cubic", "{ loss = 0.01 }"));
    let (b, c) = (f64_of(&flow(&bbr)["goodput_bps"]), f64_of(&flow(&cubic)["goodput_bps"]));
    eprintln!("1 % loss: BBR {:.1}, CUBIC {:.1} Mbit/s", b / 1e6, c / 1e6);
    assert!(b > 0.85e8, "BBR {:.1} Mbit/s", b / 1e6);
    assert!(c < 0.2e8, "CUBIC {:.1} Mbit/s", c / 1e6);
}

/// A 100 Mbit/s chain as ns-3.44 builds it (server —10 Gbit/s— router —100 Mbit/s— ue, RTT/4 of
/// propagation on each link, a 100-packet drop-tail queue, no queue disc), one bulk flow under
/// the `ns3` profile. The bottleneck's rate is scaled by 1452/1454 so that a 1400-byte segment
/// takes as long as ns-3's 1454-byte frame (IP 20, TCP with the timestamp option 32, PPP 2).
fn ns3_chain(cc: &str, rtt_ms: u64, duration: &str) -> String {
    let d = rtt_ms / 4;
    let core = format!("rate = \"10Gbps\"\ndelay = \"{d}ms\"\nbuffer = \"100pkt\"");
    let last_hop = format!("rate = \"99862448bps\"\ndelay = \"{d}ms\"\nbuffer = \"100pkt\"");
    let transport = format!("{{ profile = \"ns3\", cc = \"{cc}\" }}\napp = {{ kind = \"bulk\" }}");
    two_hops(duration, "100ms", &core, &last_hop, &transport)
}

#[test]
fn ns3_profile_gives_ns3s_goodput_on_a_100mbps_chain() {
    // ns-3.44 on the same chain with TcpSocket and TcpSocketBase attributes set to the profile's
    // values (SegmentSize 1400, InitialCwnd 1, TcpClassicRecovery, MinRto 1 s, DelAckTimeout
    // 200 ms, DelAckCount 2, 5 MiB buffers, SACK, timestamps), goodput in Mbit/s (issue 26 item
    // 8). At 100 ms NewReno's window grows per ACK as ns-3's TcpNewReno does, about half a segment
    // per RTT with delayed ACKs; byte counting gave 39.6 and 56.6 Mbit/s there. Each is within
    // 0.3 % but CUBIC at 20 ms (+2.4 %): there ns-3.44 loses 27 retransmissions in its first
    // recovery, which it cannot detect, and times out.
    for (cc, rtt_ms, duration, ns3_mbps) in [
        ("newreno", 100, "30s", 31.354),
        ("newreno", 100, "60s", 39.081),
        ("newreno", 20, "30s", 92.986),
        ("cubic", 100, "30s", 66.955),
        ("cubic", 20, "30s", 93.481),
    ] {
        let out = run_toml(&ns3_chain(cc, rtt_ms, duration));
        let goodput = f64_of(&flow(&out)["goodput_bps"]) / 1e6;
        eprintln!("ns3 profile, {cc}, {rtt_ms} ms, {duration}: {goodput:.3} Mbit/s (ns-3.44 {ns3_mbps})");
        assert!(
            (goodput / ns3_mbps - 1.0).abs() <= 0.03,
            "{cc} at {rtt_ms} ms for {duration}: {goodput:.2} Mbit/s, ns-3.44 {ns3_mbps} (±3 %)"
        );
    }
}
