//! mmPEP (Kim et al. §III): Ack management plus batch retransmission.
//!
//! Ack management, flow control and the retransmission timer are the shared ones of
//! [`super::early_ack`] (§III-A). Batch retransmission (§III-B, Fig. 3):
//!
//! - **On a duplicate ACK** (the `dupthresh`-th, default 1) the proxy retransmits
//!   N = ⌈α·β·(1 + γ)⌉ cached segments (Eq. 1, [`super::batch`]) starting at the first hole — the
//!   ACK number — in sequence order, skipping segments the mobile has SACKed (the blocks of this
//!   ACK and of earlier ones: our receiver never reneges) and bytes the proxy does not hold. They
//!   go ahead of what waits in the RLC buffer ("The priority of any batch retransmission is
//!   higher than that of any initial transmissions"), in their order.
//! - **Re-batching.** The paper does not say what further duplicate ACKs of the same hole do; each
//!   one would otherwise send another N segments. A hole is batched again only once the batch
//!   could have been answered: a new cumulative ACK is a new hole and is batched at once, but
//!   duplicates of a hole batched less than one round trip ago (SRTT of the proxy→mobile path, or
//!   the RTO before the first sample) are ignored; the timer covers a batch lost as a whole.
//! - **On timer expiry** the proxy batch-retransmits from the mobile's cumulative ACK and backs
//!   off (RFC 6298 §5.5) — but only when the watched radio link's RLC holds nothing (footnote 1:
//!   "the batch retransmission by the timer expiration is triggered only when the buffer of RLC is
//!   empty", since RLC still retransmits what it holds). Otherwise it re-arms for one RTO without
//!   backing off. "Holds" is [`ProcCtx::held_packets`] of the link's downlink: queued, in flight
//!   or awaiting an RLC acknowledgement.
//!
//! The paper's parameters are the defaults: α = 1.12 packets/slot (100 Mbps of 1400-byte packets
//! in 125 µs slots), β = 10 slots (HARQ feedback delay), σ = 0.1, 1 − ε = 0.99, hence γ = 0.2077
//! and N = 14. γ is derived, never typed in.

use super::batch;
use super::early_ack::{
    AckManager, CacheParams, DupAck, EarlyAckProxy, Hold, Recovery, RepairTrigger, DEFAULT_CACHE,
    DEFAULT_INITIAL_RTO, DEFAULT_MAX_RTO, DEFAULT_MIN_RTO, DEFAULT_WINDOW_UPDATE,
};
use super::env::ProcessorEnv;
use super::{PacketProcessor, ProcCtx};
use crate::error::InputError;
use crate::ids::DirId;
use crate::ids::FlowId;
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// Largest batch accepted, segments (a sanity bound: 100 000 segments are 145 MB).
const MAX_BATCH: f64 = 100_000.0;

/// `kind = "mmpep"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MmPepConfig {
    /// Payload the proxy may cache per flow (default 6 MB, Kim et al.'s receive window).
    pub cache: Bytes,
    /// Least growth of the window's right edge announced to a stalled server (default 2896 B).
    pub window_update: Bytes,
    /// Duplicate ACKs of the mobile that trigger a batch (default 1).
    pub dupthresh: u32,
    /// Retransmission timer toward the mobile, RFC 6298 (defaults 200 ms, 1 s, 60 s).
    pub min_rto: Time,
    pub initial_rto: Time,
    pub max_rto: Time,
    /// α: packets sent per slot while the channel is available (default 1.12).
    pub alpha: f64,
    /// β: HARQ feedback delay, slots (default 10).
    pub beta: u32,
    /// σ: standard deviation of the packets arriving in β slots (default 0.1).
    pub sigma: f64,
    /// ε: the batch covers the loss with probability 1 − ε (default 0.01).
    pub epsilon: f64,
    /// Forwarding waits in the cache until the radio link's RLC buffer has room (default false).
    pub hold_for_rlc: bool,
    /// New data waits until it lies within the mobile's advertised window (default true: a proxy
    /// that acknowledges on the mobile's behalf must not overrun its receive buffer).
    pub mobile_window: bool,
    /// The radio link whose downlink RLC the timer checks, and `hold_for_rlc` waits for
    /// (default: the scenario's only one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

impl Default for MmPepConfig {
    fn default() -> Self {
        MmPepConfig {
            cache: DEFAULT_CACHE,
            window_update: DEFAULT_WINDOW_UPDATE,
            dupthresh: 1,
            min_rto: DEFAULT_MIN_RTO,
            initial_rto: DEFAULT_INITIAL_RTO,
            max_rto: DEFAULT_MAX_RTO,
            alpha: 1.12,
            beta: 10,
            sigma: 0.1,
            epsilon: 0.01,
            hold_for_rlc: false,
            mobile_window: true,
            link: None,
        }
    }
}

impl MmPepConfig {
    /// The shared early-ACK keys, checked.
    fn cache_params(&self, env: &ProcessorEnv) -> Result<CacheParams, InputError> {
        let rto = (self.min_rto, self.initial_rto, self.max_rto);
        let mut params = CacheParams::new(env, self.cache, self.window_update, self.dupthresh, rto)?;
        params.hold = Hold::from_keys(env, self.hold_for_rlc, self.mobile_window, self.link.as_deref())?;
        params.partial_ack_rlc = Some(env.radio_link(self.link.as_deref())?.downlink);
        Ok(params)
    }

    pub fn build(&self, env: &ProcessorEnv) -> Result<Box<dyn PacketProcessor>, InputError> {
        let params = self.cache_params(env)?;
        if !(self.alpha > 0.0 && self.alpha <= 1000.0) {
            return Err(env.error(
                "alpha",
                format!("{} is out of range; allowed above 0 up to 1000 packets/slot", self.alpha),
            ));
        }
        if self.beta == 0 || self.beta > 10_000 {
            return Err(env.error("beta", format!("{} is out of range; allowed 1 to 10000 slots", self.beta)));
        }
        if !(self.sigma > 0.0 && self.sigma <= 1000.0) {
            return Err(env.error(
                "sigma",
                format!("{} is out of range; allowed above 0 up to 1000 packets", self.sigma),
            ));
        }
        if !(self.epsilon > 0.0 && self.epsilon < 0.5) {
            return Err(env.error(
                "epsilon",
                format!("{} is out of range; allowed strictly between 0 and 0.5", self.epsilon),
            ));
        }
        let link = env.radio_link(self.link.as_deref())?;
        let beta = self.beta as f64;
        let gamma = batch::gamma(self.alpha, beta, self.sigma, self.epsilon);
        let n = batch::batch_size(self.alpha, beta, gamma);
        if n > MAX_BATCH {
            return Err(env.error(
                "alpha",
                format!("α·β·(1 + γ) = {n} segments per batch; allowed at most {MAX_BATCH} (lower alpha, beta or sigma)"),
            ));
        }
        Ok(Box::new(MmPep::new(params, env, link.downlink, gamma, n as u32)))
    }
}

/// mmPEP's recovery: batch retransmission.
#[derive(Debug)]
pub struct MmPepRecovery {
    /// The downlink whose RLC state gates timer-driven batches.
    downlink: DirId,
    gamma: f64,
    /// N, segments per batch.
    batch: u32,
    /// Batches sent on a duplicate ACK.
    dupack_batches: u64,
    /// Duplicate ACKs of a hole batched less than a round trip ago.
    rebatches_suppressed: u64,
    /// Batches sent on timer expiry.
    timer_batches: u64,
    /// Timer expiries that found the RLC holding packets (re-armed, no batch).
    timer_skipped_rlc_busy: u64,
    /// Segments sent in batches of either kind.
    batch_segments: u64,
    /// Batches not sent because the RLC buffer had no room for a single segment.
    batches_deferred_rlc_full: u64,
}

/// The mmPEP processor.
pub type MmPep = EarlyAckProxy<MmPepRecovery>;

impl MmPep {
    pub fn new(params: CacheParams, env: &ProcessorEnv, downlink: DirId, gamma: f64, batch: u32) -> MmPep {
        let recovery = MmPepRecovery {
            downlink,
            gamma,
            batch,
            dupack_batches: 0,
            rebatches_suppressed: 0,
            timer_batches: 0,
            timer_skipped_rlc_busy: 0,
            batch_segments: 0,
            batches_deferred_rlc_full: 0,
        };
        EarlyAckProxy { acks: AckManager::new(params, env.flows), recovery }
    }
}

impl MmPepRecovery {
    /// N segments from `hole` on, ahead of first transmissions, as far as the RLC buffer has
    /// room for them; returns how many went out. With no room at all nothing goes and no repair
    /// is noted, so the next duplicate ACK tries again. `trigger`: what asked for it.
    fn send_batch(
        &mut self,
        acks: &mut AckManager,
        ctx: &mut ProcCtx,
        flow: FlowId,
        hole: u64,
        trigger: RepairTrigger,
    ) -> u32 {
        let fit = ctx.room_bytes(self.downlink) / acks.segment_bytes(flow);
        if fit == 0 {
            self.batches_deferred_rlc_full += 1;
            return 0;
        }
        let n = self.batch.min(u32::try_from(fit).unwrap_or(u32::MAX));
        let sent = acks.retransmit_from(ctx, flow, hole, n, true);
        if sent > 0 {
            self.batch_segments += sent as u64;
            acks.note_repair(flow, hole, ctx.now, trigger);
        }
        sent
    }
}

impl Recovery for MmPepRecovery {
    fn on_dupack(&mut self, acks: &mut AckManager, ctx: &mut ProcCtx, d: DupAck) {
        if acks.recently_repaired(d.flow, d.hole, ctx.now) {
            self.rebatches_suppressed += 1;
            return;
        }
        if self.send_batch(acks, ctx, d.flow, d.hole, RepairTrigger::Ack) > 0 {
            self.dupack_batches += 1;
        }
    }

    fn on_timeout(&mut self, acks: &mut AckManager, ctx: &mut ProcCtx, flow: FlowId) {
        if ctx.held_packets(self.downlink) > 0 {
            // Footnote 1: RLC will retransmit what it holds; look again one RTO later.
            self.timer_skipped_rlc_busy += 1;
            acks.rearm(ctx, flow);
            return;
        }
        let una = acks.una(flow);
        if self.send_batch(acks, ctx, flow, una, RepairTrigger::Timeout) > 0 {
            self.timer_batches += 1;
        }
        acks.back_off(ctx, flow);
    }

    fn summary(&self, map: &mut Map<String, Value>) {
        map.insert("gamma".into(), json!(self.gamma));
        map.insert("batch_size".into(), json!(self.batch));
        map.insert("dupack_batches".into(), json!(self.dupack_batches));
        map.insert("rebatches_suppressed".into(), json!(self.rebatches_suppressed));
        map.insert("timer_batches".into(), json!(self.timer_batches));
        map.insert("timer_skipped_rlc_busy".into(), json!(self.timer_skipped_rlc_busy));
        map.insert("batch_segments".into(), json!(self.batch_segments));
        map.insert("batches_deferred_rlc_full".into(), json!(self.batches_deferred_rlc_full));
    }
}

#[cfg(test)]
mod tests {
    use super::super::config::ProcessorConfig;
    use super::super::early_ack::harness::*;
    use super::*;
    use crate::proxy::Verdict;
    use crate::sim::{Duration, SimTime};

    fn mmpep(cache: u64) -> MmPep {
        let flows = flows();
        let links = radio_links();
        let env = env(&flows, &links);
        // Forwarding at once: the harness's mobile advertises no window (the window rule has
        // its own tests in the ack manager).
        let c = MmPepConfig { cache: Bytes(cache), mobile_window: false, ..MmPepConfig::default() };
        let params = c.cache_params(&env).unwrap();
        MmPep::new(params, &env, links[0].downlink, 0.2077, 14)
    }

    /// Segments 0..n from the server at time 0, forwarded; the outputs discarded.
    fn fill(h: &mut Harness, p: &mut MmPep, n: u64) {
        for k in 0..n {
            let id = h.data(k);
            h.packet(p, id);
            h.packets.free(id);
        }
        h.take();
    }

    fn seqs(out: &[(crate::net::Packet, bool)]) -> Vec<u64> {
        out.iter().map(|(p, _)| p.tcp.seq / MSS).collect()
    }

    #[test]
    fn test_config_defaults_derive_gamma_and_n() {
        let cfg: ProcessorConfig = toml::from_str("kind = \"mmpep\"").unwrap();
        let ProcessorConfig::Mmpep(cfg) = cfg else { panic!("not mmpep") };
        assert_eq!(cfg, MmPepConfig::default());
        assert_eq!((cfg.alpha, cfg.beta, cfg.sigma, cfg.epsilon), (1.12, 10, 0.1, 0.01));
        let flows = flows();
        let links = radio_links();
        let env = env(&flows, &links);
        let s = cfg.build(&env).unwrap().summary();
        assert_eq!(s["batch_size"], 14);
        let gamma = s["gamma"].as_f64().unwrap();
        assert!((gamma - 0.2077).abs() < 1e-4, "γ = {gamma}");
        let cfg: ProcessorConfig = toml::from_str("kind = \"mmpep\"\nsigma = 0.3\nlink = \"radio\"").unwrap();
        assert_eq!(cfg.build(&env).unwrap().summary()["batch_size"], 19, "⌈11.2·(1 + 0.6231)⌉ = ⌈18.18⌉");
        assert!(toml::from_str::<ProcessorConfig>("kind = \"mmpep\"\ngamma = 0.2").is_err(), "γ is derived");
    }

    #[test]
    fn test_config_range_checks() {
        let flows = flows();
        let links = radio_links();
        let env = env(&flows, &links);
        let err = |c: MmPepConfig, env: &ProcessorEnv| c.build(env).err().expect("rejected").to_string();
        let e = err(MmPepConfig { epsilon: 0.5, ..MmPepConfig::default() }, &env);
        assert!(e.contains("processors[0].epsilon") && e.contains("between 0 and 0.5"), "{e}");
        let e = err(MmPepConfig { sigma: 0.0, ..MmPepConfig::default() }, &env);
        assert!(e.contains("sigma"), "{e}");
        let e = err(MmPepConfig { alpha: f64::NAN, ..MmPepConfig::default() }, &env);
        assert!(e.contains("alpha"), "{e}");
        let e = err(MmPepConfig { beta: 0, ..MmPepConfig::default() }, &env);
        assert!(e.contains("beta"), "{e}");
        let e = err(MmPepConfig { alpha: 1000.0, beta: 10_000, ..MmPepConfig::default() }, &env);
        assert!(e.contains("per batch"), "{e}");
        let e = err(MmPepConfig { link: Some("wifi".into()), ..MmPepConfig::default() }, &env);
        assert!(e.contains("processors[0].link") && e.contains("radio"), "{e}");
        let no_radio = super::super::env::ProcessorEnv { radio_links: &[], ..env };
        assert!(err(MmPepConfig::default(), &no_radio).contains("[link.radio]"));
    }

    #[test]
    fn test_dupack_batches_n_segments_from_the_hole_first_and_in_order() {
        let mut h = Harness::new();
        let mut p = mmpep(40 * MSS);
        fill(&mut h, &mut p, 30);
        let id = h.ack(5 * MSS, &[]);
        h.packet(&mut p, id);
        assert!(h.take().is_empty());
        let id = h.ack(5 * MSS, &[(6 * MSS, 7 * MSS)]);
        assert_eq!(h.packet(&mut p, id), Verdict::Consumed);
        let out = h.take();
        assert!(to_server(&out).is_empty());
        let rtx = to_mobile(&out);
        assert_eq!(rtx.len(), 14, "N segments");
        let mut expected = vec![5];
        expected.extend(7..20);
        assert_eq!(seqs(&rtx), expected, "from the hole, in order, skipping the SACKed segment");
        assert!(rtx.iter().all(|(_, first)| *first), "ahead of first transmissions");
        assert!(rtx.iter().all(|(s, _)| s.first_sent_at() == SimTime::ZERO && s.tcp.len == MSS as u16));
        let s = p.summary();
        assert_eq!(s["dupack_batches"], 1);
        assert_eq!(s["batch_segments"], 14);
        assert_eq!(s["retransmitted_segments"], 14);
    }

    /// A batch goes only as far as the RLC buffer has room; with room for none it is deferred,
    /// not noted as a repair, so the next duplicate ACK of the hole sends it.
    #[test]
    fn test_batch_fits_the_room_in_rlc_and_waits_when_there_is_none() {
        let mut h = Harness::new();
        let mut p = mmpep(40 * MSS);
        fill(&mut h, &mut p, 30);
        let segment = MSS + u64::from(crate::net::TCP_IP_HEADER_BYTES);
        h.set_downlink_room(segment - 1);
        let id = h.ack(5 * MSS, &[]);
        h.packet(&mut p, id);
        let id = h.ack(5 * MSS, &[(6 * MSS, 7 * MSS)]);
        h.packet(&mut p, id);
        assert!(to_mobile(&h.take()).is_empty(), "no room for one segment");
        h.set_downlink_room(3 * segment + segment / 2);
        let id = h.ack(5 * MSS, &[(6 * MSS, 8 * MSS)]);
        h.packet(&mut p, id);
        assert_eq!(seqs(&to_mobile(&h.take())), [5, 8, 9], "three whole segments fit");
        let s = p.summary();
        assert_eq!(s["batches_deferred_rlc_full"], 1);
        assert_eq!(s["rebatches_suppressed"], 0, "the deferred batch was no repair");
        assert_eq!(s["batch_segments"], 3);
    }

    /// A partial ACK (the batch answered, data forwarded before it still missing) batches the
    /// new hole when RLC holds nothing, and not while it holds packets: the batch overtook them,
    /// so they may simply not have arrived yet.
    #[test]
    fn test_partial_ack_batches_only_when_rlc_holds_nothing() {
        for holding in [false, true] {
            let mut h = Harness::new();
            let mut p = mmpep(60 * MSS);
            fill(&mut h, &mut p, 40);
            h.set_rlc_holding(holding);
            let id = h.ack(0, &[(20 * MSS, 21 * MSS)]);
            h.packet(&mut p, id);
            assert_eq!(seqs(&to_mobile(&h.take())), (0..14).collect::<Vec<_>>());
            let id = h.ack(14 * MSS, &[(20 * MSS, 21 * MSS)]);
            h.packet(&mut p, id);
            let batch = seqs(&to_mobile(&h.take()));
            let s = p.summary();
            assert_eq!(s["partial_acks"], 1);
            if holding {
                assert!(batch.is_empty(), "RLC holds packets: {batch:?}");
                assert_eq!(s["partial_acks_rlc_busy"], 1);
            } else {
                let mut expected: Vec<u64> = (14..20).collect();
                expected.extend(21..29);
                assert_eq!(batch, expected, "the next 14, skipping the SACKed one");
            }
        }
    }

    #[test]
    fn test_batch_stops_at_the_end_of_the_cache() {
        let mut h = Harness::new();
        let mut p = mmpep(40 * MSS);
        fill(&mut h, &mut p, 8);
        let id = h.ack(2 * MSS, &[(3 * MSS, 4 * MSS)]);
        h.packet(&mut p, id);
        let id = h.ack(2 * MSS, &[(3 * MSS, 5 * MSS)]);
        h.packet(&mut p, id);
        assert_eq!(seqs(&to_mobile(&h.take())), [2, 5, 6, 7]);
    }

    #[test]
    fn test_same_hole_is_batched_again_only_after_a_round_trip() {
        let mut h = Harness::new();
        let mut p = mmpep(60 * MSS);
        fill(&mut h, &mut p, 40);
        // An RTT sample of 30 ms: SRTT = 30 ms.
        h.now = SimTime::ZERO + Duration::from_millis(30);
        let id = h.ack(MSS, &[]);
        h.packet(&mut p, id);
        let batched_at = h.now;
        let id = h.ack(MSS, &[(2 * MSS, 3 * MSS)]);
        h.packet(&mut p, id);
        assert_eq!(to_mobile(&h.take()).len(), 14);
        // Within the round trip: ignored.
        h.now = batched_at + Duration::from_millis(29);
        let id = h.ack(MSS, &[(2 * MSS, 4 * MSS)]);
        h.packet(&mut p, id);
        assert!(h.take().is_empty());
        assert_eq!(p.summary()["rebatches_suppressed"], 1);
        // A round trip later the hole is still there: batch again.
        h.now = batched_at + Duration::from_millis(30);
        let id = h.ack(MSS, &[(2 * MSS, 5 * MSS)]);
        h.packet(&mut p, id);
        let rtx = to_mobile(&h.take());
        assert_eq!(rtx.len(), 14);
        assert_eq!(rtx[0].0.tcp.seq, MSS);
        // A new hole is batched at once.
        let id = h.ack(10 * MSS, &[]);
        h.packet(&mut p, id);
        let id = h.ack(10 * MSS, &[(11 * MSS, 12 * MSS)]);
        h.packet(&mut p, id);
        let rtx = to_mobile(&h.take());
        assert_eq!(rtx.first().map(|(s, _)| s.tcp.seq / MSS), Some(10));
        assert_eq!(p.summary()["dupack_batches"], 3);
    }

    #[test]
    fn test_timer_waits_while_rlc_holds_and_batches_when_it_is_empty() {
        let mut h = Harness::new();
        let mut p = mmpep(40 * MSS);
        fill(&mut h, &mut p, 20);
        // SRTT 30 ms, RTTVAR 15 ms: RTO = max(200 ms, 30 + 4·15 ms) = 200 ms.
        h.now = SimTime::ZERO + Duration::from_millis(30);
        let id = h.ack(3 * MSS, &[]);
        h.packet(&mut p, id);
        h.take();
        h.set_rlc_holding(true);
        let deadline = h.last_timer();
        assert_eq!(deadline, h.now + Duration::from_millis(200));
        h.fire(&mut p, deadline, 0);
        assert!(h.take().is_empty(), "RLC still holds data: no batch");
        let next = h.last_timer();
        assert_eq!(next, deadline + Duration::from_millis(200), "re-armed without back-off");
        assert_eq!(p.summary()["timer_skipped_rlc_busy"], 1);
        h.set_rlc_holding(false);
        h.fire(&mut p, next, 0);
        let rtx = to_mobile(&h.take());
        assert_eq!(seqs(&rtx), (3..17).collect::<Vec<_>>(), "N segments from the mobile's ACK");
        assert!(rtx.iter().all(|(_, first)| *first));
        assert_eq!(h.last_timer(), next + Duration::from_millis(400), "backed off after the batch");
        let s = p.summary();
        assert_eq!(s["timer_batches"], 1);
        assert_eq!(s["timer_expiries"], 2);
        // The duplicate ACKs that follow the timer's batch do not batch the hole again at once.
        let id = h.ack(3 * MSS, &[(4 * MSS, 5 * MSS)]);
        h.packet(&mut p, id);
        assert!(h.take().is_empty());
        assert_eq!(p.summary()["rebatches_suppressed"], 1);
    }
}
