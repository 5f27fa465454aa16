//! Cross-layer bandwidth-delay-product proxy (Drago et al.: Drago et al., "QoS Provisioning in
//! 60 GHz Communications by Physical and Transport Layer Coordination", IEEE MASS 2019, §III).
//!
//! The AP reports its downlink's MCS and rate R whenever the MCS changes; the proxy knows each
//! flow's minimum RTT T and sets the flow's congestion window C (§III-A):
//!
//! ```text
//!   reactive:   C = R · T                                   (on every report)
//!   proactive:  C = R · T, but after an MCS drop ≥ mcs_drop within `window`:
//!               C = R_lowest · T for a TTR, then a gradual increase back to R · T;
//!               C = 0 while the link is in outage
//! ```
//!
//! [`policy`] is that state machine, pure. Two deployments carry C to a TCP sender (§III):
//! [`control`] (private network: a control message sets the server's window; T measured
//! passively by [`rtt_probe`]) and [`split`] (the proxy terminates the connection and sets its
//! own sender's window). Dup-ACK and RTO handling stay with the TCP sender in both: the proxy
//! only sets the window.
//!
//! Choices where the paper is silent (details in `docs/models/bdp-proxy.md`): the report reaches
//! the proxy `report_delay` after the MCS change (default 1 ms) and a control message the server
//! `control_delay` later (default 1 ms); C is floored at one MSS except for the proactive
//! outage's C = 0; the window is also recomputed when a flow's measured T goes down; nothing is
//! set before both R and T are known; "gradual" is `ramp_steps` equal steps `ramp_step` apart;
//! "still bad" after a TTR is defined in [`policy`].

pub mod control;
pub mod policy;
pub mod processor;
pub mod rtt_probe;
pub mod split;
#[cfg(test)]
mod test_net;

use crate::error::InputError;
use crate::proxy::env::ProcessorEnv;
use crate::proxy::PacketProcessor;
use crate::sim::Duration;
use crate::units::Time;
use policy::Proactive;
use processor::BdpProxy;
use serde::{Deserialize, Serialize};

/// `policy`: which policy of Drago et al. §III-A.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PolicyKind {
    /// C = R·T on every report.
    #[default]
    Reactive,
    /// C = R·T with a conservative mode after MCS drops and a stop during outages.
    Proactive,
}

impl PolicyKind {
    pub fn name(self) -> &'static str {
        match self {
            PolicyKind::Reactive => "reactive",
            PolicyKind::Proactive => "proactive",
        }
    }
}

/// `deployment`: how the window reaches a TCP sender (Drago et al. §III).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeploymentKind {
    /// Packets pass; a control message pins the server's window after `control_delay`.
    #[default]
    Control,
    /// The proxy terminates the connection and pins its own sender's window.
    Split,
}

impl DeploymentKind {
    pub fn name(self) -> &'static str {
        match self {
            DeploymentKind::Control => "control",
            DeploymentKind::Split => "split",
        }
    }
}

/// `processors = [{ kind = "bdp", ... }]`. Every key has a default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BdpConfig {
    /// `"reactive"` (default) or `"proactive"`.
    pub policy: PolicyKind,
    /// `"control"` (default) or `"split"`.
    pub deployment: DeploymentKind,
    /// The link with the radio stack whose downlink reports drive the proxy; may be left out
    /// when the scenario has only one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// AP → proxy report delay. The paper says only that the AP reports on every MCS (BDP)
    /// change; default 1 ms, a wired hop inside a private network. Allowed 0 s to 1 s.
    pub report_delay: Time,
    /// Control deployment only: proxy → server control-message delay. Default 1 ms; 0 s to 1 s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control_delay: Option<Time>,
    /// A fixed minimum RTT T instead of the measured one (1 µs to 10 s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_rtt: Option<Time>,
    /// Proactive only: the span an MCS drop must fit in. Drago et al.: 150 ms. 1 µs to 10 s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<Time>,
    /// Proactive only: MCS indices a drop must span. Drago et al.: 2. 1 to 31.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcs_drop: Option<u8>,
    /// Proactive only: time to recover, the length of conservative mode. Drago et al.: 0.8 s.
    /// 1 µs to 60 s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttr: Option<Time>,
    /// Proactive only: time between the steps of the gradual increase after the TTR. Default
    /// 50 ms (about one RTT of Drago et al.'s topology: 2 × 20 ms wired plus the radio hop). 1 µs to
    /// 10 s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ramp_step: Option<Time>,
    /// Proactive only: equal steps from the conservative window to the BDP; the first is taken
    /// when the TTR ends, so the full BDP comes (`ramp_steps` − 1) × `ramp_step` later. Default
    /// 4; 1 (straight back to the BDP) to 1000.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ramp_steps: Option<u32>,
}

impl Default for BdpConfig {
    fn default() -> Self {
        BdpConfig {
            policy: PolicyKind::Reactive,
            deployment: DeploymentKind::Control,
            link: None,
            report_delay: Time(Duration::from_millis(1)),
            control_delay: None,
            min_rtt: None,
            window: None,
            mcs_drop: None,
            ttr: None,
            ramp_step: None,
            ramp_steps: None,
        }
    }
}

/// The defaults of the keys that apply to one policy or deployment only (absent when they do not
/// apply, so that no key is accepted and ignored).
const DEFAULT_CONTROL_DELAY: Duration = Duration::from_millis(1);
const DEFAULT_WINDOW: Duration = Duration::from_millis(150);
const DEFAULT_MCS_DROP: u8 = 2;
const DEFAULT_TTR: Duration = Duration::from_millis(800);
const DEFAULT_RAMP_STEP: Duration = Duration::from_millis(50);
const DEFAULT_RAMP_STEPS: u32 = 4;

impl BdpConfig {
    /// Range checks and the radio link, then the processor.
    pub fn build(&self, env: &ProcessorEnv) -> Result<Box<dyn PacketProcessor>, InputError> {
        self.validate(env)?;
        let link = env.radio_link(self.link.as_deref())?;
        if !env.flows.iter().any(|f| f.src != env.node && f.dst != env.node) {
            return Err(env.error(
                "kind",
                "a bdp proxy must sit on a node between a flow's server and UE; this node is an end of every flow",
            ));
        }
        Ok(Box::new(BdpProxy::new(self, env, link)))
    }

    fn validate(&self, env: &ProcessorEnv) -> Result<(), InputError> {
        let range = |key: &str, t: Time, min: Duration, max: Duration| {
            if t.0 < min || t.0 > max {
                Err(env.error(key, format!("{t} is out of range; allowed {} to {}", Time(min), Time(max))))
            } else {
                Ok(())
            }
        };
        let us = Duration::from_micros(1);
        range("report_delay", self.report_delay, Duration::ZERO, Duration::from_secs(1))?;
        if let Some(t) = self.min_rtt {
            range("min_rtt", t, us, Duration::from_secs(10))?;
        }
        if let Some(t) = self.control_delay {
            if self.deployment != DeploymentKind::Control {
                return Err(env.error("control_delay", "applies to deployment = \"control\" only"));
            }
            range("control_delay", t, Duration::ZERO, Duration::from_secs(1))?;
        }
        if self.policy != PolicyKind::Proactive {
            let given = [
                ("window", self.window.is_some()),
                ("mcs_drop", self.mcs_drop.is_some()),
                ("ttr", self.ttr.is_some()),
                ("ramp_step", self.ramp_step.is_some()),
                ("ramp_steps", self.ramp_steps.is_some()),
            ];
            if let Some((key, _)) = given.iter().find(|(_, set)| *set) {
                return Err(env.error(key, "applies to policy = \"proactive\" only"));
            }
            return Ok(());
        }
        let rules = self.proactive();
        range("window", Time(rules.window), us, Duration::from_secs(10))?;
        range("ttr", Time(rules.ttr), us, Duration::from_secs(60))?;
        range("ramp_step", Time(rules.ramp_step), us, Duration::from_secs(10))?;
        if !(1..=31).contains(&rules.mcs_drop) {
            return Err(env.error("mcs_drop", format!("{} is out of range; allowed 1 to 31", rules.mcs_drop)));
        }
        if !(1..=1000).contains(&rules.ramp_steps) {
            return Err(
                env.error("ramp_steps", format!("{} is out of range; allowed 1 to 1000", rules.ramp_steps))
            );
        }
        Ok(())
    }

    /// The proactive policy's parameters, defaults filled in.
    pub fn proactive(&self) -> Proactive {
        Proactive {
            window: self.window.map_or(DEFAULT_WINDOW, |t| t.0),
            mcs_drop: self.mcs_drop.unwrap_or(DEFAULT_MCS_DROP),
            ttr: self.ttr.map_or(DEFAULT_TTR, |t| t.0),
            ramp_step: self.ramp_step.map_or(DEFAULT_RAMP_STEP, |t| t.0),
            ramp_steps: self.ramp_steps.unwrap_or(DEFAULT_RAMP_STEPS),
        }
    }

    /// The control deployment's message delay, default filled in.
    pub fn control_delay(&self) -> Duration {
        self.control_delay.map_or(DEFAULT_CONTROL_DELAY, |t| t.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::DirId;
    use crate::ids::{FlowId, NodeId};
    use crate::proxy::config::ProcessorConfig;
    use crate::proxy::env::{FlowInfo, RadioLinkInfo};
    use crate::transport::tcp::TcpConfig;

    fn flows() -> Vec<FlowInfo> {
        vec![FlowInfo {
            id: FlowId(0),
            name: "flow0".into(),
            src: NodeId(0),
            dst: NodeId(3),
            tcp: TcpConfig::default(),
        }]
    }

    fn links() -> Vec<RadioLinkInfo> {
        vec![RadioLinkInfo { name: "ap-ue".into(), downlink: DirId(4), lowest_rate_bps: 125_000_000 }]
    }

    fn env<'a>(flows: &'a [FlowInfo], links: &'a [RadioLinkInfo], node: u32) -> ProcessorEnv<'a> {
        ProcessorEnv {
            file: "s.toml",
            field: "node[1].processors[0]".into(),
            node: NodeId(node),
            flows,
            radio_links: links,
            topology: Box::leak(Box::default()),
            shared: Box::leak(Box::default()),
            processor_kinds: &[],
            seed: 1,
        }
    }

    fn parse(text: &str) -> Result<BdpConfig, String> {
        match toml::from_str::<ProcessorConfig>(text).map_err(|e| e.to_string())? {
            ProcessorConfig::Bdp(c) => Ok(c),
            other => Err(format!("not bdp: {other:?}")),
        }
    }

    #[test]
    fn test_config_defaults_are_the_seed_values() {
        let c = parse("kind = \"bdp\"").unwrap();
        assert_eq!(c, BdpConfig::default());
        assert_eq!(c.policy, PolicyKind::Reactive);
        assert_eq!(c.deployment, DeploymentKind::Control);
        let rules = c.proactive();
        assert_eq!(rules.window, Duration::from_millis(150));
        assert_eq!(rules.mcs_drop, 2);
        assert_eq!(rules.ttr, Duration::from_millis(800));
        assert_eq!(c.control_delay(), Duration::from_millis(1));
        let c = parse("kind = \"bdp\"\npolicy = \"proactive\"\ndeployment = \"split\"\nmin_rtt = \"30ms\"")
            .unwrap();
        assert_eq!((c.policy, c.deployment), (PolicyKind::Proactive, DeploymentKind::Split));
        assert_eq!(c.min_rtt, Some(Time(Duration::from_millis(30))));
        // The resolved form reads back to the same values.
        let text = toml::to_string(&ProcessorConfig::Bdp(c.clone())).unwrap();
        assert_eq!(parse(&text).unwrap(), c);
    }

    #[test]
    fn test_config_unknown_keys_and_values_are_rejected() {
        assert!(parse("kind = \"bdp\"\nttr_s = 1").unwrap_err().contains("ttr_s"));
        assert!(parse("kind = \"bdp\"\npolicy = \"predictive\"").unwrap_err().contains("predictive"));
        assert!(parse("kind = \"bdp\"\nttr = 0.8").unwrap_err().contains("needs a unit"));
    }

    #[test]
    fn test_config_ranges_name_the_key() {
        let (flows, links) = (flows(), links());
        let env = env(&flows, &links, 1);
        let cases = [
            (
                "report_delay = \"2s\"",
                "node[1].processors[0].report_delay: 2s is out of range; allowed 0s to 1s",
            ),
            ("control_delay = \"1.5s\"", "control_delay: 1.5s is out of range; allowed 0s to 1s"),
            ("min_rtt = \"0s\"", "min_rtt: 0s is out of range; allowed 1us to 10s"),
            ("policy = \"proactive\"\nwindow = \"0s\"", "window: 0s is out of range"),
            ("policy = \"proactive\"\nttr = \"61s\"", "ttr: 61s is out of range; allowed 1us to 60s"),
            ("policy = \"proactive\"\nramp_step = \"0s\"", "ramp_step: 0s is out of range"),
            ("policy = \"proactive\"\nmcs_drop = 0", "mcs_drop: 0 is out of range; allowed 1 to 31"),
            ("policy = \"proactive\"\nramp_steps = 0", "ramp_steps: 0 is out of range; allowed 1 to 1000"),
            ("ttr = \"1s\"", "ttr: applies to policy = \"proactive\" only"),
            (
                "deployment = \"split\"\ncontrol_delay = \"1ms\"",
                "control_delay: applies to deployment = \"control\" only",
            ),
        ];
        for (line, message) in cases {
            let c = parse(&format!("kind = \"bdp\"\n{line}")).unwrap();
            let err = c.build(&env).err().unwrap().to_string();
            assert!(err.contains(message), "{line}: {err}");
        }
        assert!(parse("kind = \"bdp\"\nreport_delay = \"0s\"").unwrap().build(&env).is_ok());
    }

    #[test]
    fn test_build_needs_a_radio_link_and_a_node_between_the_ends() {
        let flows = flows();
        let err = BdpConfig::default().build(&env(&flows, &[], 1)).err().unwrap().to_string();
        assert!(err.contains("link: this processor needs a link with the radio stack"), "{err}");
        let links = links();
        let c = BdpConfig { link: Some("wifi".into()), ..BdpConfig::default() };
        let err = c.build(&env(&flows, &links, 1)).err().unwrap().to_string();
        assert!(err.contains("no link with the radio stack named \"wifi\"; those are: ap-ue"), "{err}");
        let err = BdpConfig::default().build(&env(&flows, &links, 0)).err().unwrap().to_string();
        assert!(err.contains("kind: a bdp proxy must sit on a node between"), "{err}");
        let proxy = BdpConfig::default().build(&env(&flows, &links, 1)).unwrap();
        assert_eq!(proxy.reports_from(), vec![DirId(4)], "the named link's downlink");
        assert_eq!(
            proxy.columns(),
            [
                "mode",
                "rate_bps",
                "target_rate_bps",
                "flow0.window_bytes",
                "flow0.bdp_bytes",
                "flow0.min_rtt_ms"
            ]
        );
    }
}
