//! `transport.profile`: coherent bundles of TCP defaults, so that a scenario says "TCP as Linux
//! runs it" (or as ns-3, or as the RFCs write it) in one key. A key the scenario gives overrides
//! its profile's value; every other key takes the profile's (`fill_in`, applied to the scenario
//! document before it is read, so `mmtcp validate --print` shows what each key resolved to).
//!
//! Where each value comes from is in docs/models/tcp.md ("Profiles"), and next to it below.

use super::autotune;
use super::config::{ReceiveBuffer, Recovery, RtoRule, TcpConfig};
use crate::sim::Duration;
use crate::transport::cc::{CcKind, CoupledVariant, CubicConfig};
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A bundle of TCP defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// Linux (6.x defaults, `sysctl net.ipv4.tcp_*` untouched).
    #[default]
    Linux,
    /// ns-3's TCP as the mmWave studies of 2016–2019 ran it: the attribute defaults of
    /// ns-3.26–3.31 for every mechanism, and the segment and buffer sizes the ns3-mmwave
    /// examples of 2017 set (ns-3's own, 536 B and 128 KiB, no mmWave study keeps).
    Ns3,
    /// The standards as written: RFC 5681/6298/6675/7323, RFC 9438 CUBIC with RFC 9406 HyStart++.
    Rfc,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Linux => "linux",
            Profile::Ns3 => "ns3",
            Profile::Rfc => "rfc",
        }
    }

    /// Every key's value under this profile, for congestion control `cc` (HyStart is CUBIC's).
    /// Every profile runs the coupled controllers in their published form (`variant` "paper"):
    /// Linux 6.x has none (upstream MPTCP gives each subflow its own controller), and the
    /// out-of-tree v0.90 kernel's form is asked for explicitly.
    pub fn defaults(self, cc: CcKind) -> TcpConfig {
        let cubic = cc == CcKind::Cubic;
        match self {
            Profile::Linux => TcpConfig {
                profile: self,
                cc,
                variant: CoupledVariant::Paper,
                // tcp_cubic.c: hystart = 1.
                hystart: cubic,
                // tcp_input.c tcp_cwnd_reduction (PRR since 3.2).
                recovery: Recovery::Prr,
                rto: RtoRule::Linux,
                // sysctl tcp_timestamps = 1.
                timestamps: true,
                // 1500-byte MTU − 20 (IP) − 20 (TCP) − 12 (timestamp option).
                mss: Bytes(1448),
                // TCP_INIT_CWND = 10 (RFC 6928).
                initial_window: 10,
                sack: true,
                delayed_ack: true,
                // TCP_DELACK_MIN = HZ/25.
                delayed_ack_timeout: Time(Duration::from_millis(40)),
                // TCP_RTO_MIN = HZ/5, TCP_RTO_MAX = 120 s, TCP_TIMEOUT_INIT = 1 s.
                min_rto: Time(Duration::from_millis(200)),
                max_rto: Time(Duration::from_secs(120)),
                initial_rto: Time(Duration::from_secs(1)),
                // tcp_reordering = 3.
                dupthresh: 3,
                // tcp_wmem's maximum; the receive buffer autotuned (sysctl tcp_moderate_rcvbuf
                // = 1, tcp_rcv_space_adjust) up to tcp_rmem[2], its keys filled in by `fill_in`.
                send_buffer: Bytes(4 << 20),
                receive_buffer: ReceiveBuffer::Auto,
                receive_buffer_max: None,
                receive_buffer_initial: None,
                max_sack_blocks: 3,
                // tcp_cubic.c: ca->cnt ≤ 20 while last_max_cwnd = 0.
                cubic: CubicConfig { unknown_wmax_growth: 0.05, ..CubicConfig::default() },
            },
            Profile::Ns3 => TcpConfig {
                profile: self,
                cc,
                variant: CoupledVariant::Paper,
                // TcpCubic::HyStart = true (TcpCubic is in ns-3 from 3.33; ns-3's HyStart).
                hystart: cubic,
                // TcpL4Protocol::RecoveryType = TcpClassicRecovery up to ns-3.32, PRR after.
                recovery: Recovery::Classic,
                // RttMeanDeviation (α = 1/8, β = 1/4), TcpSocketBase: RTO = max(SRTT +
                // max(ClockGranularity 1 ms, 4·RTTVAR), MinRto), doubled up to 60 s.
                rto: RtoRule::Rfc6298,
                // TcpSocketBase::Timestamp = true.
                timestamps: true,
                // The ns3-mmwave examples of 2017 set TcpSocket::SegmentSize = 1400.
                mss: Bytes(1400),
                // TcpSocket::InitialCwnd = 1 up to ns-3.31 (10 from ns-3.32).
                initial_window: 1,
                // TcpSocketBase::Sack = true (from ns-3.27).
                sack: true,
                // TcpSocket::DelAckCount = 2, DelAckTimeout = 200 ms.
                delayed_ack: true,
                delayed_ack_timeout: Time(Duration::from_millis(200)),
                // TcpSocketBase::MinRto = 1 s, RttEstimator::InitialEstimation = 1 s, and the
                // 60 s cap on the doubled RTO.
                min_rto: Time(Duration::from_secs(1)),
                max_rto: Time(Duration::from_secs(60)),
                initial_rto: Time(Duration::from_secs(1)),
                // TcpSocketBase::ReTxThreshold = 3.
                dupthresh: 3,
                // The ns3-mmwave examples of 2017 set SndBufSize = RcvBufSize = 131072 × 40.
                send_buffer: Bytes(131_072 * 40),
                receive_buffer: ReceiveBuffer::Fixed(Bytes(131_072 * 40)),
                receive_buffer_max: None,
                receive_buffer_initial: None,
                max_sack_blocks: 3,
                // TcpCubic::CntClamp = 20.
                cubic: CubicConfig { unknown_wmax_growth: 0.05, ..CubicConfig::default() },
            },
            Profile::Rfc => TcpConfig {
                profile: self,
                cc,
                variant: CoupledVariant::Paper,
                // RFC 9438 §4.10 recommends HyStart++ (RFC 9406).
                hystart: cubic,
                // RFC 6937 is Experimental; RFC 6675 §5 sets cwnd = ssthresh.
                recovery: Recovery::Classic,
                rto: RtoRule::Rfc6298,
                timestamps: true,
                mss: Bytes(1448),
                // RFC 6928.
                initial_window: 10,
                sack: true,
                delayed_ack: true,
                // RFC 5681 §4.2: MUST be under 500 ms; Linux's and the common choice, 40 ms, is
                // kept so that the profile differs from linux only where an RFC says otherwise.
                delayed_ack_timeout: Time(Duration::from_millis(40)),
                // RFC 6298 §2.4: 1 s; §2.5: at least 60 s; §2.1: 1 s.
                min_rto: Time(Duration::from_secs(1)),
                max_rto: Time(Duration::from_secs(60)),
                initial_rto: Time(Duration::from_secs(1)),
                dupthresh: 3,
                send_buffer: Bytes(4 << 20),
                receive_buffer: ReceiveBuffer::Fixed(Bytes(6 << 20)),
                receive_buffer_max: None,
                receive_buffer_initial: None,
                max_sack_blocks: 3,
                cubic: CubicConfig::default(),
            },
        }
    }
}

/// Fills the keys a `[flow.transport]` table leaves out with its profile's values (tables such
/// as `cubic` key by key). A `profile`, `cc`, `variant`, `recovery` or `rto` that is not a known name is an
/// error naming the key (`Err((key, message))`); the other keys are checked when the table is
/// read.
pub fn fill_in(table: &mut Map<String, Value>) -> Result<(), (&'static str, String)> {
    fill_in_with(table, &mut Bundles::default())
}

/// The bundles of defaults [`fill_in_with`] has written as tables, by profile and controller: a
/// scenario of 10⁴ flows writes each once, not once per flow.
#[derive(Default)]
pub struct Bundles(Vec<((Profile, CcKind), Map<String, Value>)>);

impl Bundles {
    fn get(&mut self, profile: Profile, cc: CcKind) -> &Map<String, Value> {
        let at = match self.0.iter().position(|(k, _)| *k == (profile, cc)) {
            Some(at) => at,
            None => {
                let Ok(Value::Object(bundle)) = serde_json::to_value(profile.defaults(cc)) else {
                    unreachable!("a TcpConfig serialises to a table")
                };
                self.0.push(((profile, cc), bundle));
                self.0.len() - 1
            }
        };
        &self.0[at].1
    }
}

/// [`fill_in`], with the bundles written so far kept in `bundles`.
pub fn fill_in_with(
    table: &mut Map<String, Value>,
    bundles: &mut Bundles,
) -> Result<(), (&'static str, String)> {
    let profile: Profile = known(table, "profile", &["linux", "ns3", "rfc"])?.unwrap_or_default();
    let names: Vec<&str> = CcKind::ALL.iter().map(|c| c.name()).collect();
    let cc: CcKind = known(table, "cc", &names)?.unwrap_or_default();
    // Checked here too so that the error names the key: the table is read flattened into
    // `[flow.transport]`, where serde reports a bad name without it.
    known::<Recovery>(table, "recovery", &["prr", "classic"])?;
    known::<RtoRule>(table, "rto", &["linux", "rfc6298"])?;
    known::<CoupledVariant>(table, "variant", &["paper", "linux-v0.90"])?;
    readable::<ReceiveBuffer>(table, "receive_buffer")?;
    readable::<Bytes>(table, "receive_buffer_max")?;
    readable::<Bytes>(table, "receive_buffer_initial")?;
    merge_missing(table, bundles.get(profile, cc));
    // Autotuning's own keys, every profile alike: Linux 3.18's tcp_rmem (docs/models/tcp.md).
    if table.get("receive_buffer").and_then(Value::as_str).is_some_and(|v| v.trim() == "auto") {
        for (key, default) in [
            ("receive_buffer_max", autotune::DEFAULT_MAX),
            ("receive_buffer_initial", autotune::DEFAULT_INITIAL),
        ] {
            table.entry(key).or_insert_with(|| Value::String(default.to_string()));
        }
    }
    Ok(())
}

/// The value of `key`, if present, read as one of the names `allowed`.
fn known<T: serde::de::DeserializeOwned>(
    table: &Map<String, Value>,
    key: &'static str,
    allowed: &[&str],
) -> Result<Option<T>, (&'static str, String)> {
    let Some(value) = table.get(key) else { return Ok(None) };
    serde_json::from_value(value.clone()).map(Some).map_err(|_| {
        let names = allowed.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
        (key, format!("{value} is not one of {names}"))
    })
}

/// Reads `key`, if present, as a `T`: its error then names the key (the table is read
/// flattened, where serde's would not).
fn readable<T: serde::de::DeserializeOwned>(
    table: &Map<String, Value>,
    key: &'static str,
) -> Result<(), (&'static str, String)> {
    match table.get(key) {
        Some(value) => {
            serde_json::from_value::<T>(value.clone()).map(|_| ()).map_err(|e| (key, e.to_string()))
        }
        None => Ok(()),
    }
}

fn merge_missing(into: &mut Map<String, Value>, from: &Map<String, Value>) {
    for (key, value) in from {
        match (into.get_mut(key), value) {
            (None, value) => {
                into.insert(key.clone(), value.clone());
            }
            (Some(Value::Object(inner)), Value::Object(defaults)) => merge_missing(inner, defaults),
            (Some(_), _) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(json: Value) -> TcpConfig {
        let Value::Object(mut table) = json else { panic!("a table") };
        fill_in(&mut table).expect("known names");
        serde_json::from_value(Value::Object(table)).expect("a complete TcpConfig")
    }

    #[test]
    fn test_every_profile_is_valid_for_every_controller() {
        for profile in [Profile::Linux, Profile::Ns3, Profile::Rfc] {
            for &cc in CcKind::ALL {
                let cfg = profile.defaults(cc);
                assert_eq!(cfg.validate(), Ok(()), "{profile:?} {cc:?}");
                assert_eq!(cfg.hystart, cc == CcKind::Cubic, "HyStart follows the controller");
                assert_eq!(cfg.variant, CoupledVariant::Paper);
            }
        }
    }

    #[test]
    fn test_default_is_the_linux_bundle() {
        assert_eq!(TcpConfig::default(), Profile::Linux.defaults(CcKind::Cubic));
        // `fill_in` writes autotuning's own keys out (`mmtcp validate --print` shows them).
        let resolved = TcpConfig {
            receive_buffer_max: Some(autotune::DEFAULT_MAX),
            receive_buffer_initial: Some(autotune::DEFAULT_INITIAL),
            ..TcpConfig::default()
        };
        assert_eq!(filled(serde_json::json!({})), resolved);
    }

    #[test]
    fn test_profile_fills_what_the_scenario_leaves_out() {
        let cfg = filled(serde_json::json!({ "profile": "ns3" }));
        assert_eq!(cfg, Profile::Ns3.defaults(CcKind::Cubic));
        assert_eq!(cfg.min_rto.0, Duration::from_secs(1));
        assert_eq!(cfg.recovery, Recovery::Classic);
    }

    #[test]
    fn test_a_given_key_overrides_the_profile() {
        let cfg = filled(serde_json::json!({
            "profile": "ns3", "min_rto": "200ms", "cc": "newreno", "cubic": { "beta": 0.5 }
        }));
        assert_eq!(cfg.min_rto.0, Duration::from_millis(200));
        assert_eq!(cfg.delayed_ack_timeout.0, Duration::from_millis(200), "others from ns3");
        assert!(!cfg.hystart, "no HyStart default for NewReno");
        assert_eq!(cfg.cubic.beta, 0.5);
        assert_eq!(cfg.cubic.c, 0.4, "the rest of a table from the profile");
    }

    #[test]
    fn test_auto_receive_buffer_fills_its_own_keys_on_every_profile() {
        for profile in ["linux", "ns3", "rfc"] {
            let cfg = filled(serde_json::json!({ "profile": profile, "receive_buffer": "auto" }));
            assert_eq!(cfg.receive_buffer, ReceiveBuffer::Auto);
            assert_eq!(cfg.receive_buffer_max, Some(Bytes(6 << 20)), "tcp_rmem[2] of Linux 3.18");
            assert_eq!(cfg.receive_buffer_initial, Some(Bytes(87_380)), "tcp_rmem[1] of Linux 3.18");
            assert_eq!(cfg.validate(), Ok(()));
        }
        let cfg = filled(serde_json::json!({ "receive_buffer": "auto", "receive_buffer_max": "32MiB" }));
        assert_eq!(cfg.receive_buffer_max, Some(Bytes(32 << 20)), "a given key stays");
        // A fixed buffer gets neither key: resolved scenarios without "auto" are unchanged.
        let cfg = filled(serde_json::json!({ "receive_buffer": "16MB" }));
        assert_eq!(
            (cfg.receive_buffer, cfg.receive_buffer_max),
            (ReceiveBuffer::Fixed(Bytes(16_000_000)), None)
        );
        let Value::Object(table) = serde_json::to_value(&cfg).unwrap() else { panic!() };
        assert!(!table.contains_key("receive_buffer_max") && !table.contains_key("receive_buffer_initial"));
    }

    #[test]
    fn test_linux_autotunes_by_default_and_the_simulator_profiles_do_not() {
        let cfg = filled(serde_json::json!({}));
        assert_eq!(
            (cfg.receive_buffer, cfg.receive_buffer_max, cfg.receive_buffer_initial),
            (ReceiveBuffer::Auto, Some(autotune::DEFAULT_MAX), Some(autotune::DEFAULT_INITIAL)),
            "tcp_moderate_rcvbuf = 1"
        );
        let ns3 = filled(serde_json::json!({ "profile": "ns3" }));
        assert_eq!(
            (ns3.receive_buffer, ns3.receive_buffer_max),
            (ReceiveBuffer::Fixed(Bytes(5_242_880)), None)
        );
        let rfc = filled(serde_json::json!({ "profile": "rfc" }));
        assert_eq!(
            (rfc.receive_buffer, rfc.receive_buffer_max),
            (ReceiveBuffer::Fixed(Bytes(6 << 20)), None)
        );
    }

    #[test]
    fn test_newreno_counts_acks_as_ns3_only_under_the_ns3_profile() {
        use crate::transport::cc::NewRenoCounting;
        let counting = |profile: &str| {
            filled(serde_json::json!({ "profile": profile, "cc": "newreno" })).newreno_counting()
        };
        assert_eq!(counting("ns3"), NewRenoCounting::Ns3Acks, "ns-3's TcpNewReno");
        assert_eq!(counting("linux"), NewRenoCounting::Bytes);
        assert_eq!(counting("rfc"), NewRenoCounting::Bytes, "RFC 3465");
    }

    #[test]
    fn test_unknown_profile_or_controller_names_the_key() {
        for (key, name) in [("profile", "bsd"), ("cc", "vegas"), ("variant", "linux-v0.91")] {
            let mut table = Map::new();
            table.insert(key.into(), Value::String(name.into()));
            let (field, message) = fill_in(&mut table).unwrap_err();
            assert_eq!(field, key);
            assert!(
                message.contains(name) && message.contains("\"linux\"") == (key == "profile"),
                "{message}"
            );
            assert_eq!(table.len(), 1, "nothing filled in");
        }
    }
}
