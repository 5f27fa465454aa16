//! The three proxies (`pep`, `mmpep`, `bdp`) on whole scenarios, each test asserting something a
//! plausible bug would break:
//!
//! - PEP/mmPEP flow control: with a small cache and a long NLOS outage, no byte from the server
//!   reaches the base station more than `cache` beyond what the UE holds; the cache fills but
//!   never overflows, nothing goes uncached or is dropped, a window update releases the stalled
//!   server, and every byte arrives.
//! - PEP/mmPEP Ack management: the mobile's ACKs never reach the server — every ACK it gets left
//!   the base station, one per early ACK — so its RTT samples are the server–bs round trip even
//!   across the outage.
//! - PEP/mmPEP SACK blocks: after a slow-start burst drops every other segment before the
//!   proxy, the early ACKs tell the server of every range (RFC 2018 §4 order), so one fast
//!   recovery resends every dropped segment, without a timeout.
//! - mmPEP's batch: N = 14 with the paper's α, β, σ, ε (19 with σ = 0.3), and the batch counters
//!   agree with each other.
//! - PEP's timer rules: `"go_back_n"` resends many segments per expiry where `"first"` resends
//!   one, and finishes a transfer whose tail the radio lost in less than half the time.
//! - Forwarding that waits: with `hold_for_rlc` nothing is dropped at a full RLC buffer and far
//!   fewer segments need repair; with `mobile_window` the mobile's receive buffer never
//!   overflows.
//! - BDP reactive, control deployment: after `report_delay` + `control_delay` the server's window
//!   is the proxy's window, which is R × T; proactive: the lowest-MCS BDP for the TTR after a drop
//!   of ≥ 2 MCS, a ramp back.
//! - BDP split deployment: the server's RTT samples are those of the server–proxy path, and every
//!   byte reaches the UE through an outage.
//!
//! And three bug classes the exactly-once property (`exactly_once.rs`) ran into, each pinned by
//! a small deterministic scenario: the proxy's RTO inflated by RTT samples that include the wait
//! for a repaired hole; mmPEP's timer held off for ever by RLC UM SDUs lost for good; a run of
//! packets sent "first" admitted last to first (out of order into an idle link, head refused
//! by a queue without room for the whole run).

use crate::common::*;
use mmtcp::ids::{NodeId, PacketId};
use mmtcp::net::{Side, TcpFlags};
use mmtcp::proxy::{PacketProcessor, ProcCtx, ProcessorSlot, Verdict};
use mmtcp::sim::Duration;
use mmtcp::world::World;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;

const MSS: u64 = 1448;

/// The first processor's counters.
fn stats(out: &Ran) -> &Value {
    &out.summary["processors"][0]["stats"]
}

fn u64_of(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an unsigned integer: {v}"))
}

/// The row whose sample time is closest to `t` seconds.
fn row_at(time: &[f64], t: f64) -> usize {
    let i = time.partition_point(|&x| x < t);
    if i > 0 && (i == time.len() || t - time[i - 1] < time[i] - t) {
        i - 1
    } else {
        i
    }
}

// ------------------------------------------------------------------------------------------------
// PEP and mmPEP on Kim et al.'s cell

/// server —(10 Gbit/s, 10 ms)— bs —(radio stack, 200 MHz, 125 µs slots, `radio`: the keys of
/// `[link.radio]` after those)— ue; one NewReno flow with `app` and a fixed 6 MB receive buffer,
/// as experiments/kim2017 runs it. `processors` is bs's list.
fn cell_with(processors: &str, radio: &str, app: &str, duration: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[metrics]
interval = "50ms"
[[node]]
name = "server"
[[node]]
name = "bs"
processors = {processors}
[[node]]
name = "ue"
[[link]]
name = "wired"
between = ["server", "bs"]
rate = "10Gbps"
delay = "10ms"
buffer = "100000pkt"
[[link]]
name = "air"
between = ["bs", "ue"]
kind = "radio"
delay = "1us"
[link.radio]
bandwidth = "200MHz"
numerology = 3
{radio}
[[flow]]
name = "tcp"
from = "server"
to = "ue"
transport = {{ cc = "newreno", receive_buffer = "6MB" }}
app = {app}
"#
    )
}

/// Kim et al.'s cell (`experiments/kim2017/fig5`) at 200 MHz: LOS at 20 dB for 1 s, then an
/// outage of 2 s; HARQ with β = 10 slots, RLC AM with a 1 MB buffer; a 12 MB transfer capped at
/// 100 Mbit/s, which needs the second LOS period.
fn cell(processors: &str) -> String {
    let radio = r#"channel = { kind = "onoff", los_sinr_db = 20.0, los_duration = "1s", nlos_duration = "2s" }
harq = { feedback_delay = "1.25ms" }
rlc = { mode = "am", buffer = "1MB" }"#;
    let app = format!(r#"{{ kind = "bulk", rate_limit = "100Mbps", size = "{CELL_SIZE}B" }}"#);
    cell_with(processors, radio, &app, "5s")
}

const CELL_SIZE: u64 = 12_000_000;
const CACHE: u64 = 300_000;
/// The one-way delay of the server–bs link.
const WIRED_DELAY_MS: f64 = 10.0;

/// What the watching processors saw.
#[derive(Default)]
struct Watch {
    /// Data segments that reached the UE, by index (every segment but the last is one MSS).
    at_ue: Vec<bool>,
    /// Bytes the UE holds without a gap: at least what it has acknowledged.
    ue_prefix: u64,
    /// The largest (end of a server segment passing bs) − (UE prefix at that moment).
    max_ahead_of_ue: u64,
    /// Data segments of the server that passed bs's proxy.
    passed_bs: u64,
    /// ACKs (no SYN) that reached the server, and the longest time one took from its sender.
    acks_at_server: u64,
    max_ack_transit: Duration,
}

type Shared = Rc<RefCell<Watch>>;

/// Where a watcher sits.
#[derive(Clone, Copy)]
enum Spot {
    Server,
    Bs,
    Ue,
}

struct Watcher(Spot, Shared);

impl PacketProcessor for Watcher {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        let p = *ctx.packets.get(pkt);
        let mut w = self.1.borrow_mut();
        let data = p.to == Side::Receiver && p.tcp.len > 0;
        match self.0 {
            Spot::Bs if data => {
                w.passed_bs += 1;
                let ahead = (p.tcp.seq + p.tcp.len as u64).saturating_sub(w.ue_prefix);
                w.max_ahead_of_ue = w.max_ahead_of_ue.max(ahead);
            }
            Spot::Ue if data => {
                let k = (p.tcp.seq / MSS) as usize;
                if w.at_ue.len() <= k {
                    w.at_ue.resize(k + 1, false);
                }
                w.at_ue[k] = true;
                let mut next = (w.ue_prefix / MSS) as usize;
                while w.at_ue.get(next).copied().unwrap_or(false) {
                    next += 1;
                }
                w.ue_prefix = w.ue_prefix.max(next as u64 * MSS).min(CELL_SIZE);
            }
            Spot::Server if p.to == Side::Sender && !p.tcp.flags.contains(TcpFlags::SYN) => {
                w.acks_at_server += 1;
                w.max_ack_transit = w.max_ack_transit.max(ctx.now - p.sent_at);
            }
            _ => {}
        }
        Verdict::Pass
    }
    fn on_timer(&mut self, _: &mut ProcCtx, _: u32) {}
    fn summary(&self) -> Value {
        json!({})
    }
}

/// Runs the cell with `kind` on bs (with a 300 KB cache) and watchers on server (ACKs
/// arriving), bs (after the proxy: server data passing) and ue (data arriving).
fn watched_cell(kind: &str) -> (World, Watch) {
    // Forwarding at once: the watcher after the proxy sees the packets the proxy passes on,
    // not those it holds and sends again (`mobile_window`, on by default).
    let mut w =
        world(&cell(&format!(r#"[{{ kind = "{kind}", cache = "{CACHE}B", mobile_window = false }}]"#)));
    let watch = Shared::default();
    for (node, spot) in [(0, Spot::Server), (1, Spot::Bs), (2, Spot::Ue)] {
        w.add_processor(ProcessorSlot {
            name: "watch".into(),
            kind: "watch",
            node: NodeId(node),
            processor: Box::new(Watcher(spot, watch.clone())),
        });
    }
    w.run(&mut |_, _| true);
    let seen = std::mem::take(&mut *watch.borrow_mut());
    (w, seen)
}

fn assert_completed(w: &World, size: u64) {
    let f = &w.flows()[0];
    assert!(f.completed_at().is_some(), "the transfer did not complete");
    assert_eq!(f.receiver().stats.bytes_delivered, size);
    assert_eq!(f.receiver().stats.segments_delivered, size.div_ceil(MSS));
}

#[test]
fn early_acks_hold_the_server_within_the_cache_through_an_outage() {
    for kind in ["pep", "mmpep"] {
        let (w, watch) = watched_cell(kind);
        let s = w.processors()[0].processor.summary();
        // The 2 s outage filled the cache: the server was held back by the window alone.
        let peak = u64_of(&s["peak_cache_bytes"]);
        assert!(peak <= CACHE, "{kind}: cache peaked at {peak} > {CACHE}");
        assert!(peak > CACHE - 2 * MSS, "{kind}: the outage should fill the cache ({peak})");
        assert_eq!(s["uncached_bytes"], 0, "{kind}: the window kept every segment within the cache");
        assert_eq!(s["duplicate_segments"], 0, "{kind}: the server never needed to retransmit");
        assert!(u64_of(&s["window_updates"]) >= 1, "{kind}: a window update released the server");
        // No server byte reached bs more than `cache` beyond what the UE held, although the
        // server had 2 s of data (25 MB at its rate) to push into the outage.
        assert!(
            watch.max_ahead_of_ue <= CACHE,
            "{kind}: a segment ended {} bytes beyond the UE's prefix (cache {CACHE})",
            watch.max_ahead_of_ue
        );
        assert!(watch.max_ahead_of_ue > CACHE - 2 * MSS, "{kind}: {}", watch.max_ahead_of_ue);
        assert_eq!(watch.passed_bs, CELL_SIZE.div_ceil(MSS), "{kind}: each segment passed bs once");
        let f = &w.flows()[0];
        assert!(f.link_drops().is_empty(), "{kind}: drops {:?}", f.link_drops());
        assert_eq!(f.sender().stats.retransmitted_segments, 0, "{kind}");
        assert_completed(&w, CELL_SIZE);
    }
}

#[test]
fn the_mobiles_acks_never_reach_the_server() {
    for kind in ["pep", "mmpep"] {
        let (w, watch) = watched_cell(kind);
        let s = w.processors()[0].processor.summary();
        // Every ACK the server got is one the proxy sent (the early ACKs, and the mobile's
        // handshake ACKs it let pass): none of the mobile's later ACKs leaked.
        assert_eq!(watch.acks_at_server, u64_of(&s["early_acks"]) + u64_of(&s["acks_passed"]), "{kind}: {s}");
        assert!(u64_of(&s["acks_consumed"]) > 1000, "{kind}: the mobile's ACKs were consumed");
        // And each left bs: it took the wired link's delay, never the radio uplink's too.
        let transit = watch.max_ack_transit.as_millis_f64();
        assert!(transit < WIRED_DELAY_MS + 0.01, "{kind}: an ACK took {transit} ms to reach the server");
        // What the design guarantees for RTT: an early ACK answers a cached segment the moment
        // it reaches bs, so with nothing uncached every sample is the server–bs round trip (no
        // wired queueing at 10 Gbit/s) — whatever the radio does.
        assert_eq!(s["uncached_bytes"], 0, "{kind}");
        let rtt = &w.flows()[0].sender().stats.rtt;
        let max_ms = rtt.max().unwrap() as f64 / 1e9;
        assert!(rtt.count() > 3000, "{kind}: {} samples", rtt.count());
        assert!(
            (2.0 * WIRED_DELAY_MS..2.0 * WIRED_DELAY_MS + 0.5).contains(&max_ms),
            "{kind}: RTT sample of {max_ms} ms"
        );
        assert_eq!(w.flows()[0].sender().stats.rto_count, 0, "{kind}: the server never timed out");
        assert_completed(&w, CELL_SIZE);
    }
    // Without a proxy the same transfer times out in the outage.
    let out = run_toml(&cell("[]"));
    let rtos = flow(&out)["rto_count"].as_u64().unwrap();
    assert!(rtos >= 1, "plain TCP timed out {rtos} times");
}

/// Kim et al.'s cell with an unreliable radio: RLC UM without HARQ at a LOS SINR where about a
/// tenth of the transport blocks fail, so TCP segments are lost and the UE sends duplicate
/// ACKs; outages of 300 ms every second. A 12 MB transfer at 100 Mbit/s through mmPEP with a
/// 1 MB cache (within the RLC buffer) and the extra keys `mmpep`.
fn lossy_cell(mmpep: &str) -> String {
    let radio = r#"channel = { kind = "onoff", los_sinr_db = 15.0, los_duration = "700ms", nlos_duration = "300ms" }
harq = { enabled = false }
rlc = { mode = "um", buffer = "2MB" }"#;
    let app = r#"{ kind = "bulk", rate_limit = "100Mbps", size = "12MB" }"#;
    cell_with(&format!(r#"[{{ kind = "mmpep", cache = "1MB"{mmpep} }}]"#), radio, app, "5s")
}

#[test]
fn mmpep_batches_are_n_segments_from_the_seed_parameters() {
    for (keys, n) in [("", 14u64), (", sigma = 0.3", 19)] {
        let out = run_toml(&lossy_cell(keys));
        let s = stats(&out);
        assert_eq!(s["batch_size"], n, "N = ⌈α·β·(1 + γ)⌉{keys}");
        let gamma = f64_of(&s["gamma"]);
        let expected = if n == 14 { 0.2077 } else { 0.6231 };
        assert!((gamma - expected).abs() < 1e-4, "γ = {gamma}");
        let dupack = u64_of(&s["dupack_batches"]);
        let timer = u64_of(&s["timer_batches"]);
        let segments = u64_of(&s["batch_segments"]);
        let batches = dupack + timer;
        assert!(dupack > 10, "the radio's losses caused duplicate ACKs: {s}");
        // Each counted batch sent between 1 and N segments; mmPEP retransmits only in batches.
        assert!((batches..=n * batches).contains(&segments), "{segments} segments in {batches} batches");
        assert_eq!(s["retransmitted_segments"], segments);
        let per_interval: f64 = out.column("proxy.bs.mmpep.retransmitted_segments").iter().sum();
        assert_eq!(per_interval, segments as f64, "the time series counts every batch segment");
        // With segments queued behind a hole, batches are more than the one segment PEP sends.
        assert!(segments > 2 * batches, "{segments} segments in {batches} batches");
        assert!(u64_of(&s["rebatches_suppressed"]) > 0, "duplicates within a round trip re-batch nothing");
        let f = flow(&out);
        assert_eq!(u64_of(&f["bytes_delivered"]), 12_000_000);
        assert_eq!(u64_of(&f["delivered_segments"]), 12_000_000u64.div_ceil(MSS));
    }
}

/// server —(1 ms, 1000-packet buffer)— gw —(20 ms)— bs —(28 GHz radio, LOS)— ue, one CUBIC
/// bulk flow: the early ACKs hide the 42 ms round trip from the server's slow start, whose burst
/// overflows the server's 1000-packet queue — every other segment, some 280 single-segment holes
/// before the proxy, which holds the segments between them.
fn burst_before_the_proxy(kind: &str) -> String {
    format!(
        r#"
[simulation]
duration = "1500ms"
[[node]]
name = "server"
[[node]]
name = "gw"
[[node]]
name = "bs"
processors = [{{ kind = "{kind}" }}]
[[node]]
name = "ue"
[[link]]
between = ["server", "gw"]
rate = "10Gbps"
delay = "1ms"
[[link]]
between = ["gw", "bs"]
rate = "10Gbps"
delay = "20ms"
[[link]]
name = "air"
between = ["bs", "ue"]
kind = "radio"
delay = "1us"
[link.radio]
harq = {{ max_retx = 3 }}
rlc = {{ mode = "am", buffer = "10MB" }}
channel = {{ kind = "onoff", los_sinr_db = 20.0, nlos_sinr_db = -5.0, los_duration = "2s", nlos_duration = "300ms" }}
[[flow]]
from = "server"
to = "ue"
transport = {{ cc = "cubic" }}
app = {{ kind = "bulk" }}
"#
    )
}

/// The early ACKs' SACK blocks follow RFC 2018 §4 (the range of the segment just received
/// first, then the most recently reported ones), so the server hears of every range the proxy
/// holds above its holes and its RFC 6675 scoreboard deems every hole lost at once: one fast
/// recovery resends them all within the run, without a timeout. When the blocks were the three
/// lowest cached ranges, the server knew three ranges at a time and repaired one hole per round
/// trip (42 ms) — 281 holes took 9.5 s with the retransmission timer restarted by each
/// cumulative advance.
#[test]
fn early_acks_report_every_range_above_the_holes_before_the_proxy() {
    for kind in ["pep", "mmpep"] {
        let out = run_toml(&burst_before_the_proxy(kind));
        let f = flow(&out);
        let drops = u64_of(&f["dropped_segments"]["by_place"]["server-gw server→gw"]);
        assert!(drops > 200, "{kind}: the slow-start burst overflows the server's queue ({drops} drops)");
        assert_eq!(u64_of(&f["dropped_segments"]["total"]), drops, "{kind}: nothing lost after the proxy");
        assert_eq!(u64_of(&f["rto_count"]), 0, "{kind}: no timeout");
        let rtx = u64_of(&f["retransmitted_segments"]);
        assert!(rtx >= drops, "{kind}: the server resent {rtx} of {drops} dropped segments");
    }
}

// ------------------------------------------------------------------------------------------------
// BDP proxy

/// Drago et al.'s topology: server —(10 Gbit/s, 1 ms)— proxy —(10 Gbit/s, 10 ms)— bs —(radio stack,
/// 100 MHz, `channel`)— ue, the proxy on `proxy` with `bdp` keys `keys`; a CUBIC flow `app`.
/// Rows every 0.5 ms.
fn seed001(keys: &str, channel: &str, app: &str, duration: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[metrics]
interval = "0.5ms"
[[node]]
name = "server"
[[node]]
name = "proxy"
processors = [{{ kind = "bdp"{keys} }}]
[[node]]
name = "bs"
[[node]]
name = "ue"
[[link]]
between = ["server", "proxy"]
rate = "10Gbps"
delay = "1ms"
[[link]]
between = ["proxy", "bs"]
rate = "10Gbps"
delay = "10ms"
buffer = "100000pkt"
[[link]]
name = "air"
between = ["bs", "ue"]
kind = "radio"
delay = "1us"
[link.radio]
bandwidth = "100MHz"
channel = {channel}
rlc = {{ mode = "am", buffer = "2MB" }}
[[flow]]
name = "tcp"
from = "server"
to = "ue"
app = {app}
"#
    )
}

/// 30 dB for a second, then 5 dB.
const SINR_DROP: &str = r#"{ kind = "sinr_trace", file = "traces/sinr-drop.csv" }"#;

/// The rate of the lowest MCS of the air link's AMC table.
fn lowest_rate_bps(text: &str) -> u64 {
    let w = world(text);
    let air = w.topology().links().iter().find(|l| l.name == "air").unwrap();
    w.dirs()[air.dirs[0].0 as usize].radio().unwrap().lowest_rate_bps()
}

/// R·T in bytes (at least one MSS), T in milliseconds as the time series gives it.
fn bdp(rate_bps: f64, rtt_ms: f64) -> f64 {
    (rate_bps * rtt_ms / 1e3 / 8.0).floor().max(MSS as f64)
}

/// The BDP proxy's columns and the server's window.
struct BdpSeries<'a> {
    time: &'a [f64],
    cwnd: &'a [f64],
    window: &'a [f64],
    bdp: &'a [f64],
    rate: &'a [f64],
    target: &'a [f64],
    mode: &'a [f64],
    min_rtt: &'a [f64],
}

impl<'a> BdpSeries<'a> {
    fn of(out: &'a Ran) -> Self {
        BdpSeries {
            time: out.column("time_s"),
            cwnd: out.column("flow.tcp.cwnd_bytes"),
            window: out.column("proxy.proxy.bdp.tcp.window_bytes"),
            bdp: out.column("proxy.proxy.bdp.tcp.bdp_bytes"),
            rate: out.column("proxy.proxy.bdp.rate_bps"),
            target: out.column("proxy.proxy.bdp.target_rate_bps"),
            mode: out.column("proxy.proxy.bdp.mode"),
            min_rtt: out.column("proxy.proxy.bdp.tcp.min_rtt_ms"),
        }
    }

    fn at(&self, t: f64) -> usize {
        row_at(self.time, t)
    }
}

#[test]
fn bdp_reactive_control_pins_the_servers_window_to_rate_times_min_rtt() {
    let text = seed001("", SINR_DROP, r#"{ kind = "bulk" }"#, "1.5s");
    let out = run_toml(&text);
    let s = BdpSeries::of(&out);
    // The drop at 1 s: the report reaches the proxy 1 ms later, its window the server 1 ms after.
    let (before, reported, applied) = (s.at(1.0005), s.at(1.0015), s.at(1.0025));
    assert!(
        s.rate[reported] < s.rate[before] / 2.0,
        "30 dB → 5 dB: {} → {}",
        s.rate[before],
        s.rate[reported]
    );
    assert_eq!(s.window[before], bdp(s.rate[before], s.min_rtt[before]));
    assert_eq!(s.window[reported], bdp(s.rate[reported], s.min_rtt[reported]), "the proxy's new window");
    assert_eq!(s.cwnd[reported], s.window[before], "the control message is still on its way");
    assert_eq!(s.cwnd[applied], s.window[reported], "the server's window 2 ms after the drop");
    let mut pinned_rows = 0;
    for i in 0..s.time.len() {
        if s.window[i].is_nan() {
            continue;
        }
        // R × T within one MSS (T is rounded in the column), and exactly the proxy's R·T.
        let expected = bdp(s.rate[i], s.min_rtt[i]);
        assert!(
            (s.window[i] - expected).abs() <= MSS as f64,
            "t = {}: {} vs {expected}",
            s.time[i],
            s.window[i]
        );
        assert_eq!(s.window[i], s.bdp[i].max(MSS as f64), "t = {}", s.time[i]);
        // Rows more than the control delay (1 ms) after the window last changed: the server runs
        // with it.
        if i >= 3 && s.window[i - 3..i].iter().all(|&w| w == s.window[i]) {
            assert_eq!(s.cwnd[i], s.window[i], "t = {}: server's window", s.time[i]);
            pinned_rows += 1;
        }
    }
    assert!(pinned_rows > 2500, "{pinned_rows} rows checked");
    // T is the proxy–UE round trip: the server's own minimum RTT less the server–proxy 2 ms.
    let t_ms = s.min_rtt[s.time.len() - 1];
    let server_min_ms = f64_of(&flow(&out)["rtt_ms"]["min"]);
    assert!((20.0..21.0).contains(&t_ms), "T = {t_ms} ms");
    assert!((server_min_ms - t_ms - 2.0).abs() < 0.1, "server {server_min_ms} ms, T {t_ms} ms");
    let p = stats(&out);
    assert_eq!(p["reports_applied"], p["reports_received"]);
    assert_eq!(p["control_messages_applied"], p["control_messages_sent"]);
    assert_eq!(p["flows"][0]["window_bytes"], json!(s.window[s.time.len() - 1] as u64));
}

#[test]
fn bdp_proactive_holds_the_lowest_mcs_bdp_for_the_ttr_after_a_drop() {
    let text = seed001(r#", policy = "proactive""#, SINR_DROP, r#"{ kind = "bulk" }"#, "3s");
    let lowest = lowest_rate_bps(&text) as f64;
    let out = run_toml(&text);
    let s = BdpSeries::of(&out);
    let before = s.at(1.0005);
    assert_eq!(s.mode[before], 0.0);
    assert_eq!(s.window[before], bdp(s.rate[before], s.min_rtt[before]));
    // The drop reaches the proxy at 1.001 s: conservative mode at the lowest MCS's BDP for the
    // TTR (0.8 s), the server following 1 ms later.
    let conservative = lowest;
    assert!(conservative < s.rate[s.at(1.5)], "5 dB allows more than the lowest MCS");
    for i in s.at(1.0015)..s.at(1.8005) {
        assert_eq!(s.mode[i], 1.0, "t = {}", s.time[i]);
        assert_eq!(s.target[i], conservative, "t = {}", s.time[i]);
        assert_eq!(s.window[i], bdp(lowest, s.min_rtt[i]), "t = {}", s.time[i]);
        if s.time[i] > 1.0025 {
            assert_eq!(s.cwnd[i], s.window[i], "t = {}", s.time[i]);
        }
    }
    // At 5 dB the channel stays 25 dB below where it was: still bad, one more TTR, then the
    // ramp in four steps 50 ms apart to the BDP at the current rate.
    for i in s.at(1.8015)..s.at(2.6005) {
        assert_eq!((s.mode[i], s.target[i]), (1.0, conservative), "t = {}", s.time[i]);
    }
    let rate = s.rate[s.at(2.0)];
    let mut steps = Vec::new();
    for i in s.at(2.6015)..s.at(2.7505) {
        assert_eq!(s.mode[i], 2.0, "t = {}", s.time[i]);
        if steps.last() != Some(&s.target[i]) {
            steps.push(s.target[i]);
        }
    }
    let step = (rate - lowest) / 4.0;
    assert_eq!(steps.len(), 3, "{steps:?}");
    for (k, target) in steps.iter().enumerate() {
        assert!((target - (lowest + (k + 1) as f64 * step)).abs() <= 1.0, "step {k}: {steps:?}");
    }
    let end = s.at(2.7515);
    assert_eq!((s.mode[end], s.target[end]), (0.0, rate));
    assert_eq!(s.cwnd[s.at(2.7525)], bdp(rate, s.min_rtt[end]));
    let p = stats(&out);
    assert_eq!(p["conservative_entries"], 1);
    assert_eq!(p["conservative_extensions"], 1);
    assert_eq!(p["ramps_completed"], 1);
    let seconds = f64_of(&p["mode_seconds"]["conservative"]);
    assert!((seconds - 1.6).abs() < 1e-6, "{seconds} s conservative");
}

#[test]
fn bdp_split_answers_the_server_from_the_proxy_and_relays_every_byte() {
    let size: u64 = 30_000_000;
    let channel =
        r#"{ kind = "onoff", los_sinr_db = 20.0, los_duration = "300ms", nlos_duration = "300ms" }"#;
    let app = format!(r#"{{ kind = "bulk", size = "{size}B" }}"#);
    let out = run_toml(&seed001(r#", deployment = "split""#, channel, &app, "10s"));
    let f = flow(&out);
    assert_eq!(u64_of(&f["bytes_delivered"]), size);
    assert_eq!(u64_of(&f["delivered_segments"]), size.div_ceil(MSS));
    let done = f64_of(&f["completion_seconds"]);
    assert!(done > 0.9, "the transfer spans outages ({done} s)");
    let p = &stats(&out)["flows"][0];
    assert_eq!(p["opened_by"], "server");
    assert_eq!(u64_of(&p["relayed_bytes"]), size, "relayed exactly once");
    assert_eq!(p["inner_receiver_buffer_drops"], 0);
    // The server's samples are the server–proxy round trip (2 ms, plus the inner receiver's
    // delayed ACKs when a lone segment waits for a second: HyStart ends the server's slow start
    // early on this 2 ms path, so its window is small), below the proxy–UE leg.
    let proxy_ue_ms = f64_of(&p["min_rtt_ms"]);
    assert!(proxy_ue_ms > 20.0, "proxy–UE minimum RTT {proxy_ue_ms} ms");
    let rtt = &f["rtt_ms"];
    assert!(u64_of(&rtt["samples"]) > 5000);
    let (min, max) = (f64_of(&rtt["min"]), f64_of(&rtt["max"]));
    assert!((2.0..2.1).contains(&min), "server's minimum RTT {min} ms");
    assert!(max < proxy_ue_ms, "server's largest RTT sample {max} ms");
    // Also during the outages, where the end-to-end RTT would grow by hundreds of ms.
    let series = out.column("flow.tcp.rtt_ms");
    assert!(series.iter().filter(|v| !v.is_nan()).all(|&v| v < proxy_ue_ms), "per-row RTT");
}

// ------------------------------------------------------------------------------------------------
// Recovery after the radio lost much of what the proxy forwarded

/// A cell whose RLC UM buffer is far smaller than what an early-ACK proxy forwards at once (its
/// 6 MB cache takes the whole transfer at the server's pace), without HARQ, blocked 16 ms of
/// every 42 ms: much of the transfer is lost on the air after the server has finished, and the
/// proxy alone must repair it.
fn overflowing_cell(processor: &str, bler: f64, buffer_kb: u64, size: u64) -> String {
    let radio = format!(
        r#"amc = {{ target_bler = {bler} }}
channel = {{ kind = "onoff", los_sinr_db = 15.35, los_duration = "26ms", nlos_duration = "16ms" }}
harq = {{ enabled = false }}
rlc = {{ mode = "um", buffer = "{buffer_kb}KB" }}"#
    );
    cell_with(&format!("[{processor}]"), &radio, &format!(r#"{{ kind = "bulk", size = "{size}B" }}"#), "300s")
}

/// Bug class: the proxy's RTT sample taken from an ACK that fills a repaired hole. Segments the
/// mobile received (and SACKed) long ago are then "acknowledged" only now; timing them gives a
/// sample of the whole wait, and the RTO grows to seconds, then to `max_rto`. (Karn's rule as
/// RFC 6298 §3 and Linux apply it: no sample from an ACK that covers retransmitted data.)
#[test]
fn proxy_timer_repairs_at_its_rto_not_at_the_wait_for_a_hole() {
    let out = run_toml(&overflowing_cell(r#"{ kind = "pep" }"#, 0.05, 14, 300_000));
    let s = stats(&out);
    // Whenever the mobile's ACK advanced (the cache shrank), the back-off is forgotten and the
    // timer runs one RTO: the proxy–UE round trip is about a millisecond, so RTO = min_rto =
    // 200 ms. Within a second something must happen: a retransmission, more progress, or the
    // end of the repair.
    let time = out.column("time_s");
    let rtx = out.column("proxy.bs.pep.retransmitted_segments");
    let cache = out.column("proxy.bs.pep.cache_bytes");
    let rows_per_second = (1.0 / (time[1] - time[0])).round() as usize;
    for i in 1..time.len() - rows_per_second {
        if cache[i] < cache[i - 1] && cache[i] > 0.0 {
            let next = i + 1..=i + rows_per_second;
            assert!(
                next.clone().any(|j| rtx[j] > 0.0 || cache[j] < cache[i]),
                "progress at {} s, then {} KB cached and nothing for a second; {s}",
                time[i],
                cache[i] / 1e3
            );
        }
    }
    let f = flow(&out);
    assert_eq!(u64_of(&f["bytes_delivered"]), 300_000, "{s}");
    assert_eq!(u64_of(&f["delivered_segments"]), 300_000u64.div_ceil(MSS));
    // The repair walks the holes on partial ACKs (RFC 6582 §3.2), the timer catching what those
    // miss.
    assert!(u64_of(&s["partial_acks"]) > 50, "partial ACKs did the repair: {s}");
}

/// PEP's two timer rules on the same losses, duplicate ACKs left unanswered (`dupthresh` 100)
/// so that the timer starts each repair: `"first"` resends one segment per expiry, `"go_back_n"`
/// everything unacknowledged, so it finishes sooner; both deliver every byte once.
#[test]
fn pep_go_back_n_timer_resends_the_whole_unacknowledged_cache() {
    let size = 300_000;
    let run = |timeout: &str| {
        let out = run_toml(&overflowing_cell(
            &format!(r#"{{ kind = "pep", timeout = "{timeout}", dupthresh = 100 }}"#),
            0.05,
            14,
            size,
        ));
        let s = stats(&out).clone();
        let f = flow(&out).clone();
        assert_eq!(u64_of(&f["bytes_delivered"]), size, "{timeout}: {s}");
        assert_eq!(u64_of(&f["delivered_segments"]), size.div_ceil(MSS), "{timeout}: {s}");
        let done =
            f["completion_seconds"].as_f64().unwrap_or_else(|| panic!("{timeout} did not finish: {s}"));
        (s, done)
    };
    let (first, first_done) = run("first");
    let (gbn, gbn_done) = run("go_back_n");
    let per_expiry =
        |s: &Value| u64_of(&s["timer_retransmissions"]) as f64 / u64_of(&s["timer_expiries"]) as f64;
    assert_eq!(per_expiry(&first), 1.0, "{first}");
    assert!(per_expiry(&gbn) > 5.0, "go-back-N resends many segments per expiry: {gbn}");
    assert!(gbn_done < first_done, "go-back-N {gbn_done} s, first {first_done} s");
}

/// What a run of [`overflowing_cell`] with `processor` delivered and dropped, per cause.
struct Drops {
    rlc_buffer: u64,
    receive_buffer: u64,
    retransmitted: u64,
    held: u64,
}

fn drops(processor: &str, receive_buffer: &str, size: u64) -> Drops {
    let text = overflowing_cell(processor, 0.05, 14, size)
        .replace(r#"receive_buffer = "6MB""#, &format!(r#"receive_buffer = "{receive_buffer}""#));
    let out = run_toml(&text);
    let s = stats(&out);
    let f = flow(&out);
    assert_eq!(u64_of(&f["bytes_delivered"]), size, "{processor}: {s}");
    assert_eq!(u64_of(&f["delivered_segments"]), size.div_ceil(MSS), "{processor}: {s}");
    let by_cause = &f["dropped_segments"]["by_cause"];
    Drops {
        rlc_buffer: u64_of(&by_cause["queue_full"]),
        receive_buffer: u64_of(&by_cause["receive_buffer"]),
        retransmitted: u64_of(&s["retransmitted_segments"]),
        held: u64_of(&s["segments_held"]),
    }
}

/// `hold_for_rlc`: where forwarding at once overflows the 14 KB RLC buffer, the proxy that
/// waits for room loses nothing at the base station, so it repairs only the radio's losses.
#[test]
fn hold_for_rlc_keeps_the_rlc_buffer_from_overflowing() {
    for kind in ["pep", "mmpep"] {
        let at_once = drops(&format!(r#"{{ kind = "{kind}" }}"#), "6MB", 300_000);
        let held = drops(&format!(r#"{{ kind = "{kind}", hold_for_rlc = true }}"#), "6MB", 300_000);
        assert!(at_once.rlc_buffer > 50, "{kind}: the cell overflows RLC ({})", at_once.rlc_buffer);
        assert_eq!(at_once.held, 0, "{kind}");
        assert_eq!(held.rlc_buffer, 0, "{kind}: nothing dropped at the base station");
        assert!(held.held > 50, "{kind}: the server's data waited in the cache ({})", held.held);
        assert!(
            2 * held.retransmitted < at_once.retransmitted,
            "{kind}: {} retransmissions with hold_for_rlc against {}",
            held.retransmitted,
            at_once.retransmitted
        );
    }
}

/// `mobile_window`: with a 15 KB receive buffer behind the radio's holes, a proxy that forwards
/// everything overflows the mobile; one that keeps within its advertised window (the default)
/// never does.
#[test]
fn mobile_window_keeps_the_mobiles_receive_buffer_from_overflowing() {
    let at_once = drops(r#"{ kind = "pep", mobile_window = false }"#, "15KB", 300_000);
    let within = drops(r#"{ kind = "pep" }"#, "15KB", 300_000);
    assert!(at_once.receive_buffer > 10, "the mobile overflows ({})", at_once.receive_buffer);
    assert_eq!(within.receive_buffer, 0, "data within the advertised edge always fits");
    assert!(within.held > 0);
}

/// Bug class: RLC UM never resolves an SDU whose every segment was lost with nothing sent
/// after it (`radio/rlc/um.rs`), so the downlink reports it as held for ever; mmPEP's timer
/// batches only when the downlink holds nothing (footnote 1) and would wait for ever.
#[test]
fn mmpep_timer_is_not_held_off_by_um_sdus_lost_for_good() {
    let out = run_toml(&overflowing_cell(r#"{ kind = "mmpep" }"#, 0.2, 38, 200_000));
    let s = stats(&out);
    let held = out.column("link.air.fwd.queue_packets");
    assert_eq!(held[held.len() - 1], 0.0, "the downlink holds nothing once the flow is done; {s}");
    assert!(u64_of(&s["timer_skipped_rlc_busy"]) < 100, "{s}");
    let f = flow(&out);
    assert_eq!(u64_of(&f["bytes_delivered"]), 200_000, "{s}");
    assert_eq!(u64_of(&f["delivered_segments"]), 200_000u64.div_ceil(MSS));
}

/// Holds the first copies of data segments `hold`; when segment `release` arrives, sends
/// `fill` duplicates of segment 0 behind what waits at the next hop, then the held run "first",
/// noting how many packets the next hop's queue held before.
struct Batcher {
    hold: std::ops::Range<u64>,
    release: u64,
    /// Leave this many free places in the next hop's queue (limit `QUEUE`), or none to send no
    /// filler.
    room: Option<usize>,
    next_hop: mmtcp::ids::DirId,
    held: Vec<PacketId>,
    queued_at_release: Rc<RefCell<Option<usize>>>,
}

/// The drop-tail limit of the bs → ue queue in [`a_run_sent_first_keeps_its_order_and_its_head`].
const QUEUE: usize = 20;

impl PacketProcessor for Batcher {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        let p = *ctx.packets.get(pkt);
        if p.to != Side::Receiver || p.tcp.len == 0 || p.sent_at != p.first_sent_at() {
            return Verdict::Pass;
        }
        let k = p.tcp.seq / MSS;
        if self.hold.contains(&k) {
            self.held.push(pkt);
            return Verdict::Consumed;
        }
        if k == self.release {
            let queued = ctx.held_packets(self.next_hop);
            *self.queued_at_release.borrow_mut() = Some(queued);
            if let Some(room) = self.room {
                for _ in 0..QUEUE.saturating_sub(queued + room) {
                    let mut filler = p;
                    filler.tcp.seq = 0;
                    let id = ctx.packets.alloc(filler);
                    ctx.send(id);
                }
            }
            for p in self.held.drain(..) {
                ctx.send_first(p);
            }
        }
        Verdict::Pass
    }
    fn on_timer(&mut self, _: &mut ProcCtx, _: u32) {}
    fn summary(&self) -> Value {
        json!({})
    }
}

/// Records first transmissions (not retransmissions) of data segments reaching its node.
struct FirstCopies(Rc<RefCell<Vec<u64>>>);

impl PacketProcessor for FirstCopies {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        let p = ctx.packets.get(pkt);
        if p.to == Side::Receiver && p.tcp.len > 0 && p.sent_at == p.first_sent_at() {
            self.0.borrow_mut().push(p.tcp.seq / MSS);
        }
        Verdict::Pass
    }
    fn on_timer(&mut self, _: &mut ProcCtx, _: u32) {}
    fn summary(&self) -> Value {
        json!({})
    }
}

/// Runs a 1 MB transfer server —(1 Gbit/s, 5 ms)— bs —(100 Mbit/s, 5 ms, 20 packets)— ue with
/// a [`Batcher`] holding segments 20–33 on bs; returns how many packets bs's queue held at the
/// release and the first copies of 20–33 that reached the UE, in arrival order. The receive
/// buffer is fixed and large, so that the sender runs on to segment `release` past the held run
/// (an autotuned first window of 30 segments would stop it there).
fn batch_run(release: u64, room: Option<usize>) -> (usize, Vec<u64>) {
    let text = format!(
        r#"
[simulation]
duration = "2s"
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
[[link]]
between = ["bs", "ue"]
rate = "100Mbps"
delay = "5ms"
buffer = "{QUEUE}pkt"
[[flow]]
from = "server"
to = "ue"
transport = {{ cc = "newreno", receive_buffer = "6MiB" }}
app = {{ kind = "bulk", size = "1MB" }}
"#
    );
    let queued = Rc::new(RefCell::new(None));
    let arrivals = Rc::new(RefCell::new(Vec::new()));
    let mut w = world(&text);
    let run = 20..34;
    let batcher = Batcher {
        hold: run.clone(),
        release,
        room,
        next_hop: w.topology().links()[1].dirs[0],
        held: Vec::new(),
        queued_at_release: queued.clone(),
    };
    let recorder = FirstCopies(arrivals.clone());
    for (node, p) in [(1, Box::new(batcher) as Box<dyn PacketProcessor>), (2, Box::new(recorder))] {
        w.add_processor(ProcessorSlot {
            name: "test".into(),
            kind: "test",
            node: NodeId(node),
            processor: p,
        });
    }
    w.run(&mut |_, _| true);
    assert_completed(&w, 1_000_000);
    let queued = queued.borrow().expect("the run was released");
    let arrived = arrivals.borrow().iter().copied().filter(|k| run.contains(k)).collect();
    (queued, arrived)
}

/// Bug class: a run of packets sent "first" admitted last to first. Into an idle link the run's
/// last packet starts transmission before the others are admitted, and leaves first; into a
/// queue without room for the whole run, the packets refused are its head. mmPEP's batch starts
/// at the hole the mobile is waiting for: dropping the head drops exactly that, at every batch.
#[test]
fn a_run_sent_first_keeps_its_order_and_its_head() {
    // Released onto an empty queue: the whole run leaves, in the order emitted.
    let (queued, arrived) = batch_run(50, None);
    assert_eq!(queued, 0);
    assert_eq!(arrived, (20..34).collect::<Vec<_>>(), "the run leaves in the order emitted");
    // Released into a queue with room for about five: what gets in is the run's beginning.
    let (queued, arrived) = batch_run(50, Some(5));
    assert!(queued < QUEUE - 5);
    assert!(
        !arrived.is_empty()
            && arrived.len() < 14
            && arrived.iter().copied().eq(20..20 + arrived.len() as u64),
        "the first packets of the run get in, not the last: {arrived:?}"
    );
}
