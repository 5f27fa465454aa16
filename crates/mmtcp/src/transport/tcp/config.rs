//! TCP parameters as a scenario states them (`flow.transport`). A scenario names a profile
//! (`profile`, [`super::profile`]) whose bundle fills in every key it does not give; `Default`
//! is the `"linux"` bundle.

use super::autotune::{self, AutotuneConfig};
use super::profile::Profile;
use crate::net::MAX_WINDOW;
use crate::sim::Duration;
use crate::transport::cc::{CcKind, CoupledVariant, CubicConfig, HyStartKind, NewRenoCounting};
use crate::units::{Bytes, Time};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// How the retransmission timeout follows the RTT samples (`transport.rto`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoRule {
    /// RFC 6298: RTO = max(min_rto, SRTT + max(G, 4·RTTVAR)).
    Rfc6298,
    /// Linux (`tcp_rtt_estimator`, `__tcp_set_rto`): RTO = SRTT + max(4·mdev_max, min_rto), with
    /// the variance term tracking the largest deviation of the last round trip.
    Linux,
}

/// What sets the window during fast recovery (`transport.recovery`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// Proportional Rate Reduction (RFC 6937, as Linux runs it): the window falls to ssthresh
    /// gradually, sending in proportion to what is delivered.
    Prr,
    /// cwnd = ssthresh at once on entering recovery (RFC 6675 §5; ns-3's TcpClassicRecovery).
    Classic,
}

/// `transport.receive_buffer`: a fixed size (as an application's `SO_RCVBUF`), or `"auto"`,
/// Linux's autotuning ([`super::autotune`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReceiveBuffer {
    Fixed(Bytes),
    Auto,
}

impl ReceiveBuffer {
    /// What a sender takes the receiver's window to be before its first ACK: the fixed size, or
    /// with autotuning the largest window TCP can advertise (the first ACK brings the real one;
    /// the initial window is smaller than any autotuned first window).
    pub fn window_before_first_ack(&self) -> u64 {
        match self {
            ReceiveBuffer::Fixed(size) => size.0,
            ReceiveBuffer::Auto => MAX_WINDOW,
        }
    }
}

impl fmt::Display for ReceiveBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReceiveBuffer::Fixed(size) => size.fmt(f),
            ReceiveBuffer::Auto => f.write_str("auto"),
        }
    }
}

impl Serialize for ReceiveBuffer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for ReceiveBuffer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ReceiveBuffer;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a size such as \"6MiB\", or \"auto\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ReceiveBuffer, E> {
                if v.trim() == "auto" {
                    return Ok(ReceiveBuffer::Auto);
                }
                Bytes::parse(v).map(ReceiveBuffer::Fixed).map_err(|m| E::custom(format!("{m}; or \"auto\"")))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ReceiveBuffer, E> {
                Err(E::custom(format!(
                    "{v} is a bare number; a size needs a unit, e.g. \"6MiB\", or \"auto\""
                )))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ReceiveBuffer, E> {
                self.visit_i64(v as i64)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<ReceiveBuffer, E> {
                Err(E::custom(format!(
                    "{v} is a bare number; a size needs a unit, e.g. \"6MiB\", or \"auto\""
                )))
            }
        }
        d.deserialize_any(V)
    }
}

/// `[flow.transport]` with `kind = "tcp"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// The bundle of defaults the other keys come from: "linux" (default), "ns3" or "rfc".
    pub profile: Profile,
    /// Congestion control: "cubic" (default, as Linux), "newreno" or "bbr"; for the subflows of
    /// an MP-TCP connection also the coupled "lia" (RFC 6356), "olia", "balia" and "mpcubic",
    /// our coupled CUBIC (refused on a single-path flow; with one subflow the first three behave
    /// as Reno, mpcubic as CUBIC).
    pub cc: CcKind,
    /// Form of a coupled controller (`cc` = "lia", "olia" or "balia"): "paper" (default), the
    /// published algorithm in real arithmetic, or "linux-v0.90", as the Linux MP-TCP kernel v0.90
    /// computes it (fixed point, windows in segments, ACKs counted rather than bytes). See
    /// docs/models/mptcp-cc.md.
    pub variant: CoupledVariant,
    /// HyStart (CUBIC only): leave slow start when the RTT rises (or, on the linux and ns3
    /// profiles, when an ACK train spans half the minimum RTT). Which variant depends on the
    /// profile: Linux's `tcp_cubic.c`, ns-3's `TcpCubic`, or RFC 9406 HyStart++.
    pub hystart: bool,
    /// Window during fast recovery: "prr" (RFC 6937) or "classic" (cwnd = ssthresh at once).
    pub recovery: Recovery,
    /// Retransmission-timeout rule: "linux" or "rfc6298".
    pub rto: RtoRule,
    /// TCP timestamps (RFC 7323): ACKs echo the send time of the segment that advanced them, so
    /// an ACK of a retransmitted segment still gives an RTT sample.
    pub timestamps: bool,
    /// Maximum segment size (payload bytes). 1448 B fills a 1500-byte MTU with timestamps on.
    pub mss: Bytes,
    /// Initial window in segments (RFC 6928: 10).
    pub initial_window: u32,
    /// Selective acknowledgements (RFC 2018) and SACK-based loss recovery (RFC 6675).
    /// Without SACK, loss recovery is NewReno's (RFC 6582).
    pub sack: bool,
    /// Delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2): ACK every second full segment or when
    /// `delayed_ack_timeout` expires; out-of-order data is acknowledged at once.
    pub delayed_ack: bool,
    /// Delayed-ACK timer (Linux's minimum is 40 ms).
    pub delayed_ack_timeout: Time,
    /// Lower bound of the retransmission timeout (RFC 6298 §2.4 says 1 s; Linux uses 200 ms).
    pub min_rto: Time,
    /// Upper bound of the retransmission timeout (RFC 6298 §2.5: at least 60 s).
    pub max_rto: Time,
    /// Timeout before the first RTT sample, and for SYNs (RFC 6298 §2.1).
    pub initial_rto: Time,
    /// Duplicate-ACK threshold (RFC 5681 §3.2, RFC 6675 DupThresh).
    pub dupthresh: u32,
    /// Send buffer: unacknowledged plus unsent bytes the application may have written
    /// (Linux's `tcp_wmem` maximum: 4 MiB).
    pub send_buffer: Bytes,
    /// Receive buffer: the most the receiver holds, and so the largest window it advertises
    /// (Linux's `tcp_rmem` maximum: 6 MiB), or "auto": Linux's autotuning ([`super::autotune`]),
    /// from `receive_buffer_initial` up to `receive_buffer_max`, advertising half the buffer.
    pub receive_buffer: ReceiveBuffer,
    /// With `receive_buffer = "auto"`: the most the buffer grows to (`tcp_rmem[2]`; filled in as
    /// 6 MiB when left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receive_buffer_max: Option<Bytes>,
    /// With `receive_buffer = "auto"`: the buffer it starts with (`tcp_rmem[1]`; filled in as
    /// 87380 B when left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receive_buffer_initial: Option<Bytes>,
    /// SACK blocks per ACK (3 with timestamps on, RFC 2018 §3).
    pub max_sack_blocks: u32,
    /// CUBIC parameters (used when `cc = "cubic"` or `"mpcubic"`).
    pub cubic: CubicConfig,
}

impl Default for TcpConfig {
    /// The `"linux"` profile's bundle.
    fn default() -> Self {
        Profile::Linux.defaults(CcKind::Cubic)
    }
}

impl TcpConfig {
    /// Range checks; `Err((field, message))` names the offending key relative to this table.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.mss.0 < 64 || self.mss.0 > 65_483 {
            return Err(("mss", format!("{} is out of range; allowed 64B to 65483B", self.mss)));
        }
        if self.initial_window == 0 || self.initial_window > 1000 {
            return Err((
                "initial_window",
                format!("{} is out of range; allowed 1 to 1000 segments", self.initial_window),
            ));
        }
        if self.dupthresh == 0 || self.dupthresh > 100 {
            return Err(("dupthresh", format!("{} is out of range; allowed 1 to 100", self.dupthresh)));
        }
        if self.max_sack_blocks == 0 || self.max_sack_blocks > 4 {
            return Err((
                "max_sack_blocks",
                format!("{} is out of range; allowed 1 to 4 (TCP option space)", self.max_sack_blocks),
            ));
        }
        if self.min_rto.0 == Duration::ZERO {
            return Err(("min_rto", "must be greater than 0s".into()));
        }
        if self.max_rto.0 < self.min_rto.0 {
            return Err(("max_rto", format!("{} is below min_rto ({})", self.max_rto, self.min_rto)));
        }
        if self.initial_rto.0 == Duration::ZERO {
            return Err(("initial_rto", "must be greater than 0s".into()));
        }
        if self.hystart && self.cc != CcKind::Cubic {
            return Err((
                "hystart",
                format!(
                    "HyStart is part of CUBIC (as in Linux and ns-3); it cannot be on with cc = \"{}\"",
                    self.cc.name()
                ),
            ));
        }
        if self.variant != CoupledVariant::Paper && !self.cc.has_linux_v090_form() {
            return Err((
                "variant",
                format!(
                    "\"{}\" is a form of the Linux MP-TCP v0.90 controllers (cc = \"lia\", \"olia\" or \
                     \"balia\"); cc = \"{}\" has none",
                    self.variant.name(),
                    self.cc.name()
                ),
            ));
        }
        if self.delayed_ack && self.delayed_ack_timeout.0 == Duration::ZERO {
            return Err(("delayed_ack_timeout", "must be greater than 0s when delayed_ack is on".into()));
        }
        if self.send_buffer.0 < self.mss.0 {
            return Err((
                "send_buffer",
                format!("{} is smaller than one segment ({})", self.send_buffer, self.mss),
            ));
        }
        self.validate_receive_buffer()?;
        self.cubic.validate().map_err(|m| ("cubic", m))
    }

    /// `receive_buffer` and, with "auto", its maximum and initial size.
    fn validate_receive_buffer(&self) -> Result<(), (&'static str, String)> {
        let size = match self.receive_buffer {
            ReceiveBuffer::Fixed(size) => size,
            ReceiveBuffer::Auto => {
                let cfg = self.autotune().expect("auto");
                let (initial, max) = (Bytes(cfg.initial), Bytes(cfg.max));
                if autotune::win_from_space(initial.0) < self.mss.0 {
                    return Err((
                        "receive_buffer_initial",
                        format!(
                            "{initial} holds less than one segment: the window is half the buffer (tcp_adv_win_scale = 1); allowed at least {} (2 x mss)",
                            Bytes(autotune::space_from_win(self.mss.0))
                        ),
                    ));
                }
                if max < initial {
                    return Err((
                        "receive_buffer_max",
                        format!("{max} is below receive_buffer_initial ({initial})"),
                    ));
                }
                if autotune::win_from_space(max.0) > MAX_WINDOW {
                    return Err((
                        "receive_buffer_max",
                        format!(
                            "{max} would advertise more than TCP can; allowed at most 2GiB (a 1GiB window, RFC 7323 §2.3)"
                        ),
                    ));
                }
                return Ok(());
            }
        };
        for (key, given) in [
            ("receive_buffer_max", self.receive_buffer_max),
            ("receive_buffer_initial", self.receive_buffer_initial),
        ] {
            if given.is_some() {
                return Err((
                    key,
                    format!(
                        "applies to receive_buffer = \"auto\" only; this receive_buffer is fixed ({size})"
                    ),
                ));
            }
        }
        if size.0 < self.mss.0 {
            return Err(("receive_buffer", format!("{size} is smaller than one segment ({})", self.mss)));
        }
        if size.0 > MAX_WINDOW {
            return Err((
                "receive_buffer",
                format!(
                    "{size} is more than TCP can advertise; allowed at most 1GiB (window scaling, RFC 7323 §2.3)"
                ),
            ));
        }
        Ok(())
    }

    /// With `receive_buffer = "auto"`: what autotuning starts from and grows to.
    pub fn autotune(&self) -> Option<AutotuneConfig> {
        (self.receive_buffer == ReceiveBuffer::Auto).then(|| AutotuneConfig {
            initial: self.receive_buffer_initial.unwrap_or(autotune::DEFAULT_INITIAL).0,
            max: self.receive_buffer_max.unwrap_or(autotune::DEFAULT_MAX).0,
            mss: self.mss.0,
        })
    }

    /// The payload the receive buffer holds when the connection opens: the fixed buffer, or
    /// the window of autotuning's initial buffer.
    pub fn initial_receive_capacity(&self) -> u64 {
        match self.receive_buffer {
            ReceiveBuffer::Fixed(size) => size.0,
            ReceiveBuffer::Auto => {
                let cfg = self.autotune().expect("auto");
                autotune::win_from_space(cfg.initial.min(cfg.max))
            }
        }
    }

    /// The HyStart variant of this profile, if HyStart is on.
    pub fn hystart_kind(&self) -> Option<HyStartKind> {
        self.hystart.then_some(match self.profile {
            Profile::Linux => HyStartKind::Linux,
            Profile::Ns3 => HyStartKind::Ns3,
            Profile::Rfc => HyStartKind::PlusPlus,
        })
    }

    /// How NewReno counts ACKs under this profile: ns-3's `TcpNewReno` per ACK under `ns3`,
    /// RFC 3465 byte counting otherwise (docs/models/tcp.md, "Profiles").
    pub fn newreno_counting(&self) -> NewRenoCounting {
        match self.profile {
            Profile::Ns3 => NewRenoCounting::Ns3Acks,
            Profile::Linux | Profile::Rfc => NewRenoCounting::Bytes,
        }
    }

    pub fn mss_u32(&self) -> u32 {
        self.mss.0 as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_validate_linux_variant_needs_a_coupled_controller() {
        for cc in [CcKind::Lia, CcKind::Olia, CcKind::Balia] {
            let cfg = TcpConfig { variant: CoupledVariant::LinuxV090, ..Profile::Linux.defaults(cc) };
            assert_eq!(cfg.validate(), Ok(()), "{cc:?}");
        }
        for cc in [CcKind::NewReno, CcKind::Cubic, CcKind::Bbr, CcKind::MpCubic] {
            let cfg = TcpConfig { variant: CoupledVariant::LinuxV090, ..Profile::Linux.defaults(cc) };
            let (field, message) = cfg.validate().unwrap_err();
            assert_eq!(field, "variant");
            assert!(message.contains("linux-v0.90") && message.contains(cc.name()), "{message}");
        }
    }

    #[test]
    fn test_receive_buffer_is_a_size_or_auto() {
        let read = |json: &str| serde_json::from_str::<TcpConfig>(json).map(|c| c.receive_buffer);
        assert_eq!(read(r#"{"receive_buffer": "auto"}"#).unwrap(), ReceiveBuffer::Auto);
        assert_eq!(read(r#"{"receive_buffer": "16MB"}"#).unwrap(), ReceiveBuffer::Fixed(Bytes(16_000_000)));
        for bad in [r#""automatic""#, r#""-1MB""#, "16"] {
            let e = read(&format!(r#"{{"receive_buffer": {bad}}}"#)).unwrap_err().to_string();
            assert!(e.contains("auto"), "{bad}: {e}");
        }
        assert_eq!(serde_json::to_value(ReceiveBuffer::Auto).unwrap(), "auto");
        assert_eq!(serde_json::to_value(ReceiveBuffer::Fixed(Bytes(6 << 20))).unwrap(), "6MiB");
        // What a sender assumes before the first ACK.
        assert_eq!(ReceiveBuffer::Fixed(Bytes(5000)).window_before_first_ack(), 5000);
        assert_eq!(ReceiveBuffer::Auto.window_before_first_ack(), MAX_WINDOW);
    }

    #[test]
    fn test_validate_receive_buffer() {
        let auto = TcpConfig { receive_buffer: ReceiveBuffer::Auto, ..TcpConfig::default() };
        assert_eq!(auto.validate(), Ok(()), "the maximum and initial size default");
        assert_eq!(auto.initial_receive_capacity(), 43_690, "half of 87380 B");
        let cfg = auto.autotune().unwrap();
        assert_eq!((cfg.initial, cfg.max, cfg.mss), (87_380, 6 << 20, 1448));
        let field = |cfg: TcpConfig| cfg.validate().unwrap_err();
        let (key, m) = field(TcpConfig { receive_buffer_initial: Some(Bytes(2000)), ..auto.clone() });
        assert_eq!(key, "receive_buffer_initial");
        assert!(m.contains("2896B"), "{m}");
        let (key, m) = field(TcpConfig { receive_buffer_max: Some(Bytes(50_000)), ..auto.clone() });
        assert_eq!(key, "receive_buffer_max");
        assert!(m.contains("87380B"), "{m}");
        let (key, _) = field(TcpConfig { receive_buffer_max: Some(Bytes(3 << 30)), ..auto.clone() });
        assert_eq!(key, "receive_buffer_max");
        let max_ok = TcpConfig { receive_buffer_max: Some(Bytes(2 << 30)), ..auto.clone() };
        assert_eq!(max_ok.validate(), Ok(()), "2 GiB advertises exactly 1 GiB");
        let fixed =
            TcpConfig { receive_buffer: ReceiveBuffer::Fixed(Bytes(6 << 20)), ..TcpConfig::default() };
        assert_eq!(fixed.autotune(), None);
        assert_eq!(fixed.initial_receive_capacity(), 6 << 20);
        for key in ["receive_buffer_max", "receive_buffer_initial"] {
            let mut cfg = fixed.clone();
            let given = Some(Bytes(1 << 20));
            if key == "receive_buffer_max" {
                cfg.receive_buffer_max = given;
            } else {
                cfg.receive_buffer_initial = given;
            }
            let (k, m) = field(cfg);
            assert_eq!(k, key);
            assert!(m.contains("\"auto\"") && m.contains("6MiB"), "{m}");
        }
        let (key, _) = field(TcpConfig { receive_buffer: ReceiveBuffer::Fixed(Bytes(100)), ..fixed.clone() });
        assert_eq!(key, "receive_buffer");
    }

    #[test]
    fn test_variant_key_names() {
        let cfg: TcpConfig = serde_json::from_str(r#"{"cc": "olia", "variant": "linux-v0.90"}"#).unwrap();
        assert_eq!((cfg.cc, cfg.variant), (CcKind::Olia, CoupledVariant::LinuxV090));
        let cfg: TcpConfig = serde_json::from_str(r#"{"cc": "balia", "variant": "paper"}"#).unwrap();
        assert_eq!((cfg.cc, cfg.variant), (CcKind::Balia, CoupledVariant::Paper));
        assert_eq!(serde_json::to_value(CoupledVariant::LinuxV090).unwrap(), "linux-v0.90");
        assert!(serde_json::from_str::<TcpConfig>(r#"{"variant": "linux"}"#).is_err());
    }
}
