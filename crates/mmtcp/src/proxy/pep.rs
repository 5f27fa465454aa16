//! PEP: the RFC 3135 early-ACK proxy that Kim et al. compares mmPEP with (§IV: "Ack management is
//! applied but only packets receiving the corresponding duplicated Acks are retransmitted").
//!
//! Ack management, flow control and the retransmission timer are the shared ones of
//! [`super::early_ack`]. Local recovery is Snoop-like (Kim et al. ref. [8], Balakrishnan et al.
//! 1995):
//!
//! - on the `dupthresh`-th duplicate ACK from the mobile (default 1: Kim et al. §I, "the PEP
//!   retransmits only one packet when the corresponding duplicated Ack arrives"), the one cached
//!   segment the ACK names — the one holding the ACK number — is retransmitted; further
//!   duplicates of the same hole repeat it only once a round trip (SRTT) has passed, the guard
//!   mmPEP uses too, so that the two differ only in what they send;
//! - on timer expiry, whatever the RLC buffer holds (the redundant retransmissions Kim et al. §IV
//!   blames for PEP's low delivery ratio), the timer backs off (RFC 6298 §5.5) and what is resent
//!   depends on `timeout` ([`PepTimeout`]): the first unacknowledged cached segment (not SACKed
//!   by the mobile), as Snoop does, or every unacknowledged cached segment, as a TCP sender
//!   going back N after a timeout (RFC 5681 §3.1) — the split-connection PEP of RFC 3135 §2.1 —
//!   but all at once, since this proxy keeps no congestion window toward the mobile. The seed
//!   says only that PEP's timer retransmits what RLC may still deliver.
//!
//! Retransmissions join the back of the next hop's queue: priority over first transmissions is
//! mmPEP's contribution (§III-B), not the baseline's. (With `hold_for_rlc` they still go before
//! the new data waiting in the proxy's own cache, as any sender sends its retransmissions first;
//! in the RLC buffer they join the back.)

use super::early_ack::{
    AckManager, CacheParams, DupAck, EarlyAckProxy, Hold, Recovery, RepairTrigger, DEFAULT_CACHE,
    DEFAULT_INITIAL_RTO, DEFAULT_MAX_RTO, DEFAULT_MIN_RTO, DEFAULT_WINDOW_UPDATE,
};
use super::env::ProcessorEnv;
use super::{PacketProcessor, ProcCtx};
use crate::error::InputError;
use crate::ids::FlowId;
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// What PEP resends when its retransmission timer expires.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PepTimeout {
    /// The first unacknowledged cached segment (Snoop, Kim et al. ref. [8]).
    #[default]
    First,
    /// Every unacknowledged cached segment, in order (a TCP sender's go-back-N).
    GoBackN,
}

/// `kind = "pep"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PepConfig {
    /// Payload the proxy may cache per flow (default 6 MB, Kim et al.'s receive window).
    pub cache: Bytes,
    /// Least growth of the window's right edge announced to a stalled server (default 2896 B).
    pub window_update: Bytes,
    /// Duplicate ACKs of the mobile that trigger a local retransmission (default 1).
    pub dupthresh: u32,
    /// Retransmission timer toward the mobile, RFC 6298 (defaults 200 ms, 1 s, 60 s).
    pub min_rto: Time,
    pub initial_rto: Time,
    pub max_rto: Time,
    /// What a timer expiry resends (default `"first"`).
    pub timeout: PepTimeout,
    /// Forwarding waits in the cache until the radio link's RLC buffer has room (default false).
    pub hold_for_rlc: bool,
    /// New data waits until it lies within the mobile's advertised window (default true: a proxy
    /// that acknowledges on the mobile's behalf must not overrun its receive buffer).
    pub mobile_window: bool,
    /// The radio link whose RLC buffer `hold_for_rlc` waits for (default: the scenario's only
    /// one); only with `hold_for_rlc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

impl Default for PepConfig {
    fn default() -> Self {
        PepConfig {
            cache: DEFAULT_CACHE,
            window_update: DEFAULT_WINDOW_UPDATE,
            dupthresh: 1,
            min_rto: DEFAULT_MIN_RTO,
            initial_rto: DEFAULT_INITIAL_RTO,
            max_rto: DEFAULT_MAX_RTO,
            timeout: PepTimeout::First,
            hold_for_rlc: false,
            mobile_window: true,
            link: None,
        }
    }
}

impl PepConfig {
    /// The shared early-ACK keys, checked.
    fn cache_params(&self, env: &ProcessorEnv) -> Result<CacheParams, InputError> {
        let rto = (self.min_rto, self.initial_rto, self.max_rto);
        let mut params = CacheParams::new(env, self.cache, self.window_update, self.dupthresh, rto)?;
        if self.link.is_some() && !self.hold_for_rlc {
            return Err(env.error("link", "is used only with hold_for_rlc = true"));
        }
        params.hold = Hold::from_keys(env, self.hold_for_rlc, self.mobile_window, self.link.as_deref())?;
        // The named link, else the scenario's only radio link, else none (a wired hop).
        params.partial_ack_rlc = match (&self.link, env.radio_links) {
            (Some(name), _) => Some(env.radio_link(Some(name))?.downlink),
            (None, [only]) => Some(only.downlink),
            (None, _) => None,
        };
        Ok(params)
    }

    pub fn build(&self, env: &ProcessorEnv) -> Result<Box<dyn PacketProcessor>, InputError> {
        let params = self.cache_params(env)?;
        Ok(Box::new(Pep::new(params, env, self.timeout)))
    }
}

/// PEP's recovery: the one segment a duplicate ACK names; on timeout, the first unacknowledged
/// one or all of them.
#[derive(Debug, Default)]
pub struct PepRecovery {
    timeout: PepTimeout,
    /// Segments retransmitted on a duplicate ACK.
    dupack_retransmissions: u64,
    /// Duplicate ACKs of a hole repaired less than a round trip ago.
    dupacks_ignored: u64,
    /// Segments retransmitted on timer expiry.
    timer_retransmissions: u64,
}

/// The PEP processor.
pub type Pep = EarlyAckProxy<PepRecovery>;

impl Pep {
    pub fn new(params: CacheParams, env: &ProcessorEnv, timeout: PepTimeout) -> Pep {
        let recovery = PepRecovery { timeout, ..PepRecovery::default() };
        EarlyAckProxy { acks: AckManager::new(params, env.flows), recovery }
    }
}

impl Recovery for PepRecovery {
    fn on_dupack(&mut self, acks: &mut AckManager, ctx: &mut ProcCtx, d: DupAck) {
        if acks.recently_repaired(d.flow, d.hole, ctx.now) {
            self.dupacks_ignored += 1;
            return;
        }
        if acks.retransmit_at(ctx, d.flow, d.hole, false) {
            self.dupack_retransmissions += 1;
            acks.note_repair(d.flow, d.hole, ctx.now, RepairTrigger::Ack);
        }
    }

    fn on_timeout(&mut self, acks: &mut AckManager, ctx: &mut ProcCtx, flow: FlowId) {
        let una = acks.una(flow);
        let n = match self.timeout {
            PepTimeout::First => 1,
            PepTimeout::GoBackN => u32::MAX,
        };
        let sent = acks.retransmit_from(ctx, flow, una, n, false);
        if sent > 0 {
            // The repair partial ACKs continue from (RFC 6582 §3.2 step 3).
            acks.note_repair(flow, una, ctx.now, RepairTrigger::Timeout);
        }
        self.timer_retransmissions += sent as u64;
        acks.back_off(ctx, flow);
    }

    fn summary(&self, map: &mut Map<String, Value>) {
        map.insert("dupack_retransmissions".into(), json!(self.dupack_retransmissions));
        map.insert("dupacks_ignored".into(), json!(self.dupacks_ignored));
        map.insert("timer_retransmissions".into(), json!(self.timer_retransmissions));
    }
}

#[cfg(test)]
mod tests {
    use super::super::config::ProcessorConfig;
    use super::super::early_ack::harness::*;
    use super::*;
    use crate::proxy::Verdict;
    use crate::sim::{Duration, SimTime};

    fn pep(cache: u64, dupthresh: u32) -> Pep {
        pep_with(cache, dupthresh, PepTimeout::First)
    }

    fn pep_with(cache: u64, dupthresh: u32, timeout: PepTimeout) -> Pep {
        let flows = flows();
        let links = radio_links();
        // Forwarding at once: the harness's mobile advertises no window (the window rule has
        // its own tests in the ack manager).
        let cfg = PepConfig {
            cache: Bytes(cache),
            dupthresh,
            timeout,
            mobile_window: false,
            ..PepConfig::default()
        };
        let env = env(&flows, &links);
        let params = cfg.cache_params(&env).unwrap();
        Pep::new(params, &env, cfg.timeout)
    }

    /// Segments 0..n from the server, forwarded; the outputs discarded.
    fn fill(h: &mut Harness, p: &mut Pep, n: u64) {
        for k in 0..n {
            let id = h.data(k);
            h.packet(p, id);
            h.packets.free(id);
        }
        h.take();
    }

    #[test]
    fn test_config_defaults_and_range_checks() {
        let cfg: ProcessorConfig = toml::from_str("kind = \"pep\"").unwrap();
        let ProcessorConfig::Pep(cfg) = cfg else { panic!("not pep") };
        assert_eq!(cfg, PepConfig::default());
        assert_eq!(cfg.cache, Bytes(6_000_000));
        assert_eq!(cfg.dupthresh, 1);
        assert_eq!(cfg.min_rto.0, Duration::from_millis(200));
        assert_eq!(cfg.max_rto.0, Duration::from_secs(60));
        assert_eq!(cfg.timeout, PepTimeout::First);
        let gbn: ProcessorConfig = toml::from_str("kind = \"pep\"\ntimeout = \"go_back_n\"").unwrap();
        assert_eq!(
            gbn,
            ProcessorConfig::Pep(PepConfig { timeout: PepTimeout::GoBackN, ..PepConfig::default() })
        );
        let e =
            toml::from_str::<ProcessorConfig>("kind = \"pep\"\ntimeout = \"all\"").unwrap_err().to_string();
        assert!(e.contains("timeout") && e.contains("go_back_n"), "{e}");
        assert!(toml::from_str::<ProcessorConfig>("kind = \"pep\"\nalpha = 1.0").is_err(), "unknown key");
        let flows = flows();
        let links = radio_links();
        let env = env(&flows, &links);
        assert!(cfg.build(&env).is_ok());
        let err = |c: PepConfig| c.build(&env).err().expect("rejected").to_string();
        let e = err(PepConfig { cache: Bytes(1500), ..PepConfig::default() });
        assert!(e.contains("node[1].processors[0].cache") && e.contains("(2KB)"), "{e}");
        let e = err(PepConfig { dupthresh: 0, ..PepConfig::default() });
        assert!(e.contains("dupthresh") && e.contains("1 to 100"), "{e}");
        let e = err(PepConfig { window_update: Bytes(4_000_000), ..PepConfig::default() });
        assert!(e.contains("window_update"), "{e}");
        let e = err(PepConfig { max_rto: Time(Duration::from_millis(100)), ..PepConfig::default() });
        assert!(e.contains("max_rto") && e.contains("below min_rto"), "{e}");
        assert!(!e.contains('\n'));
    }

    #[test]
    fn test_dupack_retransmits_exactly_the_named_segment_once() {
        let mut h = Harness::new();
        let mut p = pep(20 * MSS, 1);
        fill(&mut h, &mut p, 8);
        h.now = SimTime::ZERO + Duration::from_millis(2);
        let id = h.ack(2 * MSS, &[]);
        assert_eq!(h.packet(&mut p, id), Verdict::Consumed);
        assert!(h.take().is_empty());
        h.now = SimTime::ZERO + Duration::from_millis(5);
        let id = h.ack(2 * MSS, &[(3 * MSS, 4 * MSS)]);
        assert_eq!(h.packet(&mut p, id), Verdict::Consumed, "a duplicate ACK is consumed too");
        let out = h.take();
        assert!(to_server(&out).is_empty(), "the server hears nothing of it");
        let rtx = to_mobile(&out);
        assert_eq!(rtx.len(), 1, "one segment");
        let (seg, first) = rtx[0];
        assert_eq!((seg.tcp.seq, seg.tcp.len), (2 * MSS, MSS as u16), "the segment at the ACK number");
        assert!(!first, "PEP retransmits behind the queue");
        assert_eq!((seg.src, seg.dst), (SERVER, MOBILE));
        assert_eq!(seg.first_sent_at(), SimTime::ZERO, "first transmission time kept");
        assert_eq!(seg.sent_at, h.now);
        assert_eq!(seg.size(), crate::net::TCP_IP_HEADER_BYTES + MSS as u32);
        // More duplicates of the same hole within a round trip (SRTT 2 ms): nothing more.
        h.now = SimTime::ZERO + Duration::from_micros(6_900);
        let id = h.ack(2 * MSS, &[(5 * MSS, 6 * MSS), (3 * MSS, 4 * MSS)]);
        h.packet(&mut p, id);
        assert!(h.take().is_empty());
        // A round trip after the repair the hole is still open: repaired again.
        h.now = SimTime::ZERO + Duration::from_millis(7);
        let id = h.ack(2 * MSS, &[(5 * MSS, 7 * MSS), (3 * MSS, 4 * MSS)]);
        h.packet(&mut p, id);
        let rtx = to_mobile(&h.take());
        assert_eq!(rtx.iter().map(|(s, _)| s.tcp.seq).collect::<Vec<_>>(), [2 * MSS]);
        // The repair answered, the mobile still misses data forwarded before it: the partial
        // ACK's hole is repaired at once (RFC 6582 §3.2), and its duplicate is no news.
        let id = h.ack(4 * MSS, &[(5 * MSS, 7 * MSS)]);
        h.packet(&mut p, id);
        let rtx = to_mobile(&h.take());
        assert_eq!(rtx.iter().map(|(s, _)| s.tcp.seq).collect::<Vec<_>>(), [4 * MSS]);
        let id = h.ack(4 * MSS, &[(5 * MSS, 8 * MSS)]);
        h.packet(&mut p, id);
        assert!(to_mobile(&h.take()).is_empty());
        let s = p.summary();
        assert_eq!(s["partial_acks"], 1);
        assert_eq!(s["dupack_retransmissions"], 3);
        assert_eq!(s["dupacks_ignored"], 2);
        assert_eq!(s["retransmitted_segments"], 3);
        assert_eq!(s["acks_consumed"], 6);
    }

    /// A hole many segments long behind a closed mobile window: no new data reaches the mobile,
    /// so no further duplicate ACK comes; each partial ACK repairs the next missing segment
    /// (RFC 6582 §3.2 step 3) until the ACK reaches what was forwarded before the repair.
    #[test]
    fn test_partial_acks_walk_a_long_hole_without_new_data() {
        let mut h = Harness::new();
        let mut p = pep(20 * MSS, 1);
        fill(&mut h, &mut p, 10);
        h.now = SimTime::ZERO + Duration::from_millis(2);
        let id = h.ack(0, &[(8 * MSS, 10 * MSS)]);
        h.packet(&mut p, id);
        let mut repaired = vec![];
        for k in 1..=8 {
            repaired.extend(to_mobile(&h.take()).iter().map(|(s, _)| s.tcp.seq / MSS));
            h.now += Duration::from_millis(2);
            let id = h.ack(k * MSS, &[(8 * MSS, 10 * MSS)]);
            h.packet(&mut p, id);
        }
        assert_eq!(repaired, (0..8).collect::<Vec<_>>(), "one repair per ACK, in order");
        assert!(to_mobile(&h.take()).is_empty(), "segments 8 and 9 were SACKed: nothing to send");
        let id = h.ack(10 * MSS, &[]);
        h.packet(&mut p, id);
        assert!(to_mobile(&h.take()).is_empty(), "all forwarded data acknowledged");
        let s = p.summary();
        assert_eq!(s["partial_acks"], 8, "ACKs 1..8 were partial, ACK 10 was not");
        assert_eq!(s["timer_retransmissions"], 0);
    }

    /// Partial ACKs walk the recovery a repair began and no further (RFC 6582 §3.2 step 3: they
    /// leave `recover` where it was): after a timer repair in an outage, the mobile's ACKs of
    /// the originals, only queued, repair a segment each up to what had been forwarded at the
    /// timeout, not for ever behind the data forwarded since.
    #[test]
    fn test_partial_acks_end_at_the_recover_point_of_the_repair_that_began_them() {
        let mut h = Harness::new();
        let mut p = pep(40 * MSS, 1);
        fill(&mut h, &mut p, 10);
        h.now = SimTime::ZERO + Duration::from_millis(30);
        let id = h.ack(MSS, &[]);
        h.packet(&mut p, id);
        h.take();
        let deadline = h.last_timer();
        h.fire(&mut p, deadline, 0);
        let rtx = to_mobile(&h.take());
        assert_eq!(rtx.iter().map(|(s, _)| s.tcp.seq / MSS).collect::<Vec<_>>(), [1], "recover = 10");
        for k in 10..20 {
            let id = h.data(k);
            h.packet(&mut p, id);
            h.packets.free(id);
        }
        h.take();
        let mut repaired = vec![];
        for k in [3, 5, 7, 9, 11, 13, 15] {
            h.now += Duration::from_millis(1);
            let id = h.ack(k * MSS, &[]);
            h.packet(&mut p, id);
            repaired.extend(to_mobile(&h.take()).iter().map(|(s, _)| s.tcp.seq / MSS));
        }
        assert_eq!(repaired, [3, 5, 7, 9], "ACKs at and above 10 end the recovery");
        assert_eq!(p.summary()["partial_acks"], 4);
    }

    /// While RLC holds packets a partial ACK repairs nothing: the original of the repaired
    /// segment, queued through an outage, may be what answered the repair.
    #[test]
    fn test_partial_ack_waits_while_rlc_holds_packets() {
        let mut h = Harness::new();
        let mut p = pep(20 * MSS, 1);
        fill(&mut h, &mut p, 10);
        let id = h.ack(0, &[(8 * MSS, 10 * MSS)]);
        h.packet(&mut p, id);
        assert_eq!(to_mobile(&h.take()).len(), 1);
        h.set_rlc_holding(true);
        h.now += Duration::from_millis(2);
        let id = h.ack(MSS, &[(8 * MSS, 10 * MSS)]);
        h.packet(&mut p, id);
        assert!(to_mobile(&h.take()).is_empty());
        let s = p.summary();
        assert_eq!((s["partial_acks"].as_u64(), s["partial_acks_rlc_busy"].as_u64()), (Some(1), Some(1)));
    }

    #[test]
    fn test_dupthresh_counts_duplicates() {
        let mut h = Harness::new();
        let mut p = pep(20 * MSS, 3);
        fill(&mut h, &mut p, 6);
        let id = h.ack(MSS, &[]);
        h.packet(&mut p, id);
        for (i, end) in [3, 4, 5].into_iter().enumerate() {
            let id = h.ack(MSS, &[(2 * MSS, end * MSS)]);
            h.packet(&mut p, id);
            let rtx = to_mobile(&h.take());
            assert_eq!(rtx.len(), usize::from(i == 2), "after duplicate {}", i + 1);
        }
    }

    #[test]
    fn test_timer_retransmits_the_first_unacknowledged_segment_and_backs_off() {
        let mut h = Harness::new();
        let mut p = pep(20 * MSS, 1);
        fill(&mut h, &mut p, 4);
        // SRTT 30 ms, RTTVAR 15 ms: RTO = max(200 ms, 30 + 4·15 ms) = 200 ms.
        h.now = SimTime::ZERO + Duration::from_millis(30);
        let id = h.ack(MSS, &[]);
        h.packet(&mut p, id);
        h.take();
        // Hold one packet in the downlink: PEP does not care.
        h.set_rlc_holding(true);
        let deadline = h.last_timer();
        assert_eq!(deadline, h.now + Duration::from_millis(200));
        h.fire(&mut p, deadline, 0);
        let rtx = to_mobile(&h.take());
        assert_eq!(rtx.len(), 1);
        assert_eq!(rtx[0].0.tcp.seq, MSS, "the first unacknowledged cached segment");
        assert!(!rtx[0].1);
        assert_eq!(h.last_timer(), deadline + Duration::from_millis(400), "backed off");
        assert_eq!(p.summary()["timer_retransmissions"], 1);
        assert_eq!(p.summary()["timer_expiries"], 1);
    }

    #[test]
    fn test_go_back_n_timer_resends_every_unacknowledged_segment_not_sacked() {
        let mut h = Harness::new();
        let mut p = pep_with(20 * MSS, 1, PepTimeout::GoBackN);
        fill(&mut h, &mut p, 8);
        h.now = SimTime::ZERO + Duration::from_millis(30);
        let id = h.ack(2 * MSS, &[]);
        h.packet(&mut p, id);
        // The mobile holds segment 4 out of order; the duplicate ACK repairs segment 2.
        let id = h.ack(2 * MSS, &[(4 * MSS, 5 * MSS)]);
        h.packet(&mut p, id);
        h.take();
        h.set_rlc_holding(true);
        let deadline = h.last_timer();
        h.fire(&mut p, deadline, 0);
        let rtx = to_mobile(&h.take());
        let seqs: Vec<u64> = rtx.iter().map(|(s, _)| s.tcp.seq / MSS).collect();
        assert_eq!(seqs, [2, 3, 5, 6, 7], "from the mobile's ACK to the end of the cache, in order");
        assert!(rtx.iter().all(|(_, first)| !first), "behind the queue, whatever RLC holds");
        assert_eq!(h.last_timer(), deadline + Duration::from_millis(400), "backed off");
        let s = p.summary();
        assert_eq!(s["timer_retransmissions"], 5);
        assert_eq!(s["retransmitted_segments"], 6, "the repair of the duplicate ACK, then five");
    }

    #[test]
    fn test_columns_and_sample_agree() {
        let mut h = Harness::new();
        let mut p = pep(20 * MSS, 1);
        fill(&mut h, &mut p, 3);
        let id = h.ack(MSS, &[]);
        h.packet(&mut p, id);
        let id = h.ack(MSS, &[(2 * MSS, 3 * MSS)]);
        h.packet(&mut p, id);
        h.take();
        let mut row = Vec::new();
        p.sample(&mut row);
        assert_eq!(p.columns(), ["cache_bytes", "window_bytes", "retransmitted_segments"]);
        assert_eq!(row, [2000.0, 17000.0, 1.0]);
        row.clear();
        p.sample(&mut row);
        assert_eq!(row[2], 0.0, "retransmissions are counted per interval");
    }
}
