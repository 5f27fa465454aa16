//! The BDP proxy as a packet processor: delayed link reports feed the policy, the policy's
//! target becomes a window per flow, and the deployment carries the window to a TCP sender.

use super::control::ControlDeployment;
use super::policy::{bdp_bytes, Mode, Rules, Target, WindowPolicy};
use super::split::SplitDeployment;
use super::{BdpConfig, DeploymentKind, PolicyKind};
use crate::ids::DirId;
use crate::ids::{FlowId, PacketId};
use crate::proxy::env::{ProcessorEnv, RadioLinkInfo};
use crate::proxy::{PacketProcessor, ProcCtx, Verdict};
use crate::radio::report::LinkReport;
use crate::sim::{Duration, Fired, SimTime, Timer};
use crate::transport::tcp::Opener;
use serde_json::{json, Value};
use std::collections::VecDeque;

/// Timer tokens: a delayed report arrives; a control message arrives; the policy's deadline (TTR
/// or ramp step); from [`TOKEN_SPLIT_BASE`] on, the split deployment's inner endpoints.
pub const TOKEN_REPORT: u32 = 0;
pub const TOKEN_CONTROL: u32 = 1;
pub const TOKEN_POLICY: u32 = 2;
pub const TOKEN_SPLIT_BASE: u32 = 3;

/// Where the window goes.
pub enum Deployment {
    Control(ControlDeployment),
    Split(SplitDeployment),
}

impl Deployment {
    fn is_managed(&self, flow: usize) -> bool {
        match self {
            Deployment::Control(c) => c.is_managed(flow),
            Deployment::Split(s) => s.is_managed(flow),
        }
    }

    fn min_rtt(&self, flow: usize) -> Option<Duration> {
        match self {
            Deployment::Control(c) => c.min_rtt(flow),
            Deployment::Split(s) => s.min_rtt(flow),
        }
    }

    fn apply(&mut self, ctx: &mut ProcCtx, flow: usize, cwnd: u64) {
        match self {
            Deployment::Control(c) => c.send(ctx, FlowId(flow as u32), cwnd),
            Deployment::Split(s) => s.pin(ctx, flow, cwnd),
        }
    }
}

/// What the proxy knows and last did about one flow.
#[derive(Clone, Debug)]
pub struct FlowWindow {
    /// The flow's name (column names).
    pub name: String,
    /// The flow's segment size: the smallest window short of stopping it.
    pub mss: u64,
    /// The flow has an end on the proxy's node: its packets never cross the proxy.
    pub local: bool,
    /// The window last set (control: sent), bytes.
    pub window: Option<u64>,
    /// The T last used, fixed or measured.
    pub rtt: Option<Duration>,
    /// R·T with the last reported rate R, bytes.
    pub bdp: Option<u64>,
}

/// Drago et al.'s cross-layer proxy (`kind = "bdp"`).
pub struct BdpProxy {
    policy_name: &'static str,
    deployment_name: &'static str,
    /// The radio direction whose reports drive the proxy.
    report_dir: DirId,
    /// AP → proxy report delay.
    report_delay: Duration,
    /// `min_rtt` when configured; else each flow's measured minimum.
    fixed_rtt: Option<Duration>,
    pub policy: WindowPolicy,
    policy_timer: Timer,
    /// Reports on their way from the AP with their arrival times, oldest first; grows to the
    /// most in flight at once, then reused.
    reports: VecDeque<(SimTime, LinkReport)>,
    reports_received: u64,
    /// Indexed by [`FlowId`].
    pub flows: Vec<FlowWindow>,
    pub deployment: Deployment,
}

impl BdpProxy {
    /// The proxy `cfg` describes on `env.node`, driven by the reports of `link`'s downlink.
    pub fn new(cfg: &BdpConfig, env: &ProcessorEnv, link: &RadioLinkInfo) -> Self {
        let rules = match cfg.policy {
            PolicyKind::Reactive => Rules::Reactive,
            PolicyKind::Proactive => Rules::Proactive(cfg.proactive()),
        };
        let deployment = match cfg.deployment {
            DeploymentKind::Control => {
                Deployment::Control(ControlDeployment::new(env.flows.len(), cfg.control_delay()))
            }
            DeploymentKind::Split => Deployment::Split(SplitDeployment::new(env)),
        };
        let flows = env
            .flows
            .iter()
            .map(|f| FlowWindow {
                name: f.name.clone(),
                mss: f.tcp.mss.0,
                local: f.src == env.node || f.dst == env.node,
                window: None,
                rtt: None,
                bdp: None,
            })
            .collect();
        BdpProxy {
            policy_name: cfg.policy.name(),
            deployment_name: cfg.deployment.name(),
            report_dir: link.downlink,
            report_delay: cfg.report_delay.0,
            fixed_rtt: cfg.min_rtt.map(|t| t.0),
            policy: WindowPolicy::new(rules, link.lowest_rate_bps),
            policy_timer: Timer::default(),
            reports: VecDeque::new(),
            reports_received: 0,
            flows,
            deployment,
        }
    }

    /// Recomputes the flow's window and hands it to the deployment when it changed. Nothing
    /// happens before both a rate and the flow's T are known.
    fn refresh(&mut self, ctx: &mut ProcCtx, f: usize) {
        if self.flows[f].local || !self.deployment.is_managed(f) {
            return;
        }
        let Some(rtt) = self.fixed_rtt.or_else(|| self.deployment.min_rtt(f)) else { return };
        let fw = &mut self.flows[f];
        fw.rtt = Some(rtt);
        fw.bdp = self.policy.rate_bps().map(|rate| bdp_bytes(rate, rtt));
        let Some(target) = self.policy.target() else { return };
        let window = target.window(rtt, fw.mss);
        if fw.window != Some(window) {
            fw.window = Some(window);
            self.deployment.apply(ctx, f, window);
        }
    }

    fn refresh_all(&mut self, ctx: &mut ProcCtx) {
        for f in 0..self.flows.len() {
            self.refresh(ctx, f);
        }
    }

    fn sync_policy_timer(&mut self, ctx: &mut ProcCtx) {
        match self.policy.deadline() {
            Some(at) => ctx.arm(self.policy_timer.set(at), TOKEN_POLICY),
            None => self.policy_timer.cancel(),
        }
    }

    /// Reports that have reached the proxy go to the policy, then every window is recomputed.
    fn apply_reports(&mut self, ctx: &mut ProcCtx) {
        while let Some((_, r)) = self.reports.front().copied().filter(|(at, _)| *at <= ctx.now) {
            self.reports.pop_front();
            self.policy.on_report(ctx.now, r.mcs, r.rate_bps);
        }
        self.sync_policy_timer(ctx);
        self.refresh_all(ctx);
    }
}

impl PacketProcessor for BdpProxy {
    fn on_packet(&mut self, ctx: &mut ProcCtx, pkt: PacketId) -> Verdict {
        self.policy.account(ctx.now);
        let packet = *ctx.packets.get(pkt);
        let f = packet.flow.0 as usize;
        if self.flows[f].local {
            return Verdict::Pass;
        }
        let before = (self.deployment.is_managed(f), self.deployment.min_rtt(f));
        let verdict = match &mut self.deployment {
            Deployment::Control(c) => {
                c.observe(ctx.now, &packet);
                Verdict::Pass
            }
            Deployment::Split(s) => s.on_packet(ctx, pkt),
        };
        // The flow has just become managed, or its measured T went down.
        if (self.deployment.is_managed(f), self.deployment.min_rtt(f)) != before {
            self.refresh(ctx, f);
        }
        verdict
    }

    fn on_timer(&mut self, ctx: &mut ProcCtx, token: u32) {
        self.policy.account(ctx.now);
        match token {
            TOKEN_REPORT => self.apply_reports(ctx),
            TOKEN_CONTROL => {
                if let Deployment::Control(c) = &mut self.deployment {
                    c.deliver(ctx);
                }
            }
            TOKEN_POLICY => match self.policy_timer.fire(ctx.now) {
                Fired::Expired => {
                    self.policy.on_deadline(ctx.now);
                    self.sync_policy_timer(ctx);
                    self.refresh_all(ctx);
                }
                Fired::Rearm(at) => ctx.arm(Some(at), TOKEN_POLICY),
                Fired::Nothing => {}
            },
            _ => {
                if let Deployment::Split(s) = &mut self.deployment {
                    s.on_timer(ctx, token);
                }
            }
        }
    }

    fn reports_from(&self) -> Vec<DirId> {
        vec![self.report_dir]
    }

    /// The AP sends the report to the proxy; it arrives `report_delay` later.
    fn on_report(&mut self, ctx: &mut ProcCtx, report: &LinkReport) {
        self.policy.account(ctx.now);
        self.reports_received += 1;
        let at = ctx.now + self.report_delay;
        self.reports.push_back((at, *report));
        ctx.arm(Some(at), TOKEN_REPORT);
    }

    fn columns(&self) -> Vec<String> {
        let mut names: Vec<String> =
            ["mode", "rate_bps", "target_rate_bps"].iter().map(|s| s.to_string()).collect();
        for fw in self.flows.iter().filter(|fw| !fw.local) {
            let f = &fw.name;
            names.extend(["window_bytes", "bdp_bytes", "min_rtt_ms"].map(|m| format!("{f}.{m}")));
            if let Deployment::Split(_) = self.deployment {
                names.extend(["inner_cwnd_bytes", "relay_bytes"].map(|m| format!("{f}.{m}")));
            }
        }
        names
    }

    fn sample(&mut self, row: &mut Vec<f64>) {
        let opt = |v: Option<u64>| v.map_or(f64::NAN, |v| v as f64);
        let target = match self.policy.target() {
            None => f64::NAN,
            Some(Target::Stop) => 0.0,
            Some(Target::Rate(rate)) => rate as f64,
        };
        row.extend([self.policy.mode().code() as f64, opt(self.policy.rate_bps()), target]);
        for (f, fw) in self.flows.iter().enumerate() {
            if fw.local {
                continue;
            }
            row.extend([opt(fw.window), opt(fw.bdp), fw.rtt.map_or(f64::NAN, |t| t.as_millis_f64())]);
            if let Deployment::Split(s) = &self.deployment {
                let inner = s.flow(f);
                row.extend([opt(inner.map(|i| i.tx.cwnd())), opt(inner.map(|i| i.relay_bytes()))]);
            }
        }
    }

    /// Reports received and applied, control messages sent and applied (control), conservative
    /// entries and extensions, outages, completed ramps, the time in each mode up to the last
    /// packet, timer or report the proxy handled, and per managed flow the window, BDP and T
    /// used (with the probe's sample counts, or the inner endpoints' counters for split).
    fn summary(&self) -> Value {
        let stats = &self.policy.stats;
        let mut mode_seconds = serde_json::Map::new();
        for (name, time) in Mode::NAMES.iter().zip(stats.time_in_mode) {
            mode_seconds.insert(name.to_string(), json!(time.as_secs_f64()));
        }
        let flows: Vec<Value> = self
            .flows
            .iter()
            .enumerate()
            .filter(|(f, fw)| !fw.local && self.deployment.is_managed(*f))
            .map(|(f, fw)| {
                let mut v = json!({
                    "flow": fw.name,
                    "window_bytes": fw.window,
                    "bdp_bytes": fw.bdp,
                    "min_rtt_ms": fw.rtt.map(|t| t.as_millis_f64()),
                    "min_rtt_source": if self.fixed_rtt.is_some() { "configured" } else { "measured" },
                });
                match &self.deployment {
                    Deployment::Control(c) => {
                        let probe = c.probe(f);
                        v["rtt_samples"] = json!(probe.samples);
                        v["rtt_karn_skipped"] = json!(probe.karn_skipped);
                    }
                    Deployment::Split(s) => {
                        let inner = s.flow(f).expect("managed split flows have inner endpoints");
                        v["opened_by"] = json!(match inner.opener {
                            Opener::Sender => "server",
                            Opener::Receiver => "ue",
                        });
                        v["relayed_bytes"] = json!(inner.tx.app_written());
                        v["inner_cwnd_bytes"] = json!(inner.tx.cwnd());
                        v["inner_retransmitted_segments"] = json!(inner.tx.stats.retransmitted_segments);
                        v["inner_rto_count"] = json!(inner.tx.stats.rto_count);
                        v["inner_receiver_buffer_drops"] = json!(inner.rx.stats.buffer_drops);
                        v["window_updates"] = json!(inner.rx.stats.window_updates);
                    }
                }
                v
            })
            .collect();
        let mut summary = json!({
            "policy": self.policy_name,
            "deployment": self.deployment_name,
            "reports_received": self.reports_received,
            "reports_applied": stats.reports,
            "mode": Mode::NAMES[self.policy.mode().code()],
            "conservative_entries": stats.conservative_entries,
            "conservative_extensions": stats.conservative_extensions,
            "outages": stats.outages,
            "ramps_completed": stats.ramps_completed,
            "mode_seconds": mode_seconds,
            "flows": flows,
        });
        if let Deployment::Control(c) = &self.deployment {
            summary["control_messages_sent"] = json!(c.sent);
            summary["control_messages_applied"] = json!(c.applied);
        }
        summary
    }
}
