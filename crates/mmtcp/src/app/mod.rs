//! Applications: what a flow's sender writes into its socket, and when.
//!
//! - `bulk`: writes whenever the send buffer has room (iperf), optionally capped at a rate
//!   (Kim et al.'s server sends at most 100 Mbit/s) and optionally stopping after `size` bytes.
//! - `download`: the receiver connects and the sender writes `size` bytes as fast as the socket
//!   takes them (wget); the flow's completion time runs from the receiver's SYN to the last byte
//!   delivered.
//! - `onoff`: bursts at `rate` during `on` periods separated by `off` periods, silent or at
//!   `off_rate`, with fixed or exponentially distributed durations (AR/VR-like traffic, Wu et
//!   al.'s bursts; with `off_rate` and `first = "off"`, flows already running that step up, Wu et
//!   al.'s "changes from approximately 600 Mbps to 2 Gbps").
//! - `relay`: a splice proxy at a gateway (Wu et al. §5.2.3 runs MP-TCP "at the gateway"): it
//!   reads what another flow delivers in order into a buffer of `buffer` bytes and writes from
//!   that buffer into its own flow whenever the send buffer has room. The world feeds it
//!   ([`App::relay_read`]) and bounds what the upstream receiver delivers by
//!   [`App::relay_edge`], so the buffer never overflows (`world::relay`).
//!
//! A rate-capped writer writes one segment-sized chunk every chunk·8/rate seconds. When the send
//! buffer is full it blocks and does not build up credit: it resumes at its rate once space
//! frees, as a blocking `write()` paced by the application would.

use crate::sim::{Duration, DurationDistribution, Rng, SimTime};
use crate::transport::tcp::Opener;
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

/// A relay's buffer when the scenario gives none: 4 MiB, our choice (Linux's default
/// `tcp_wmem` maximum is 4 MiB, so a splice proxy's pipe holds about one socket buffer).
pub const DEFAULT_RELAY_BUFFER: Bytes = Bytes(4 << 20);

fn default_relay_buffer() -> Bytes {
    DEFAULT_RELAY_BUFFER
}

/// `[flow.app]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum AppConfig {
    Bulk {
        /// Most the application writes per second; unlimited when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rate_limit: Option<Rate>,
        /// Total bytes to send; unlimited when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        size: Option<Bytes>,
    },
    Download {
        /// Size of the file.
        size: Bytes,
    },
    Onoff {
        /// Length (or mean length) of a burst.
        on: Time,
        /// Length (or mean length) of a silence.
        off: Time,
        /// Sending rate during a burst.
        rate: Rate,
        /// Sending rate during a silence; silent when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        off_rate: Option<Rate>,
        /// The period the flow starts with.
        #[serde(default)]
        first: OnOffPeriod,
        #[serde(default)]
        distribution: DurationDistribution,
    },
    Relay {
        /// The flow whose delivered bytes this one sends on.
        from: String,
        /// Bytes read from that flow and not yet written into this one, at most.
        #[serde(default = "default_relay_buffer")]
        buffer: Bytes,
    },
}

/// An `onoff` application's periods.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnOffPeriod {
    #[default]
    On,
    Off,
}

impl Default for AppConfig {
    fn default() -> Self {
        AppConfig::Bulk { rate_limit: None, size: None }
    }
}

impl AppConfig {
    pub fn name(&self) -> &'static str {
        match self {
            AppConfig::Bulk { .. } => "bulk",
            AppConfig::Download { .. } => "download",
            AppConfig::Onoff { .. } => "onoff",
            AppConfig::Relay { .. } => "relay",
        }
    }

    /// Range checks; `Err((field, message))` names the key relative to the app table.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let positive_rate = |field, r: &Rate| {
            if r.0 == 0 {
                Err((field, "must be greater than 0bps".to_string()))
            } else {
                Ok(())
            }
        };
        match self {
            AppConfig::Bulk { rate_limit, size } => {
                if let Some(r) = rate_limit {
                    positive_rate("rate_limit", r)?;
                }
                if size.is_some_and(|s| s.0 == 0) {
                    return Err(("size", "must be greater than 0B".into()));
                }
                Ok(())
            }
            AppConfig::Download { size } => {
                if size.0 == 0 {
                    return Err(("size", "must be greater than 0B".into()));
                }
                Ok(())
            }
            AppConfig::Onoff { on, off, rate, off_rate, .. } => {
                positive_rate("rate", rate)?;
                if off_rate.is_some_and(|r| r.0 == 0) {
                    return Err((
                        "off_rate",
                        "must be greater than 0bps (leave it out for silent off periods)".into(),
                    ));
                }
                if on.0 == Duration::ZERO {
                    return Err(("on", "must be greater than 0s".into()));
                }
                if off.0 == Duration::ZERO {
                    return Err(("off", "must be greater than 0s".into()));
                }
                Ok(())
            }
            AppConfig::Relay { buffer, .. } => {
                if buffer.0 == 0 {
                    return Err(("buffer", "must be greater than 0B".into()));
                }
                Ok(())
            }
        }
    }

    /// Which end opens the connection.
    pub fn opener(&self) -> Opener {
        match self {
            AppConfig::Download { .. } => Opener::Receiver,
            _ => Opener::Sender,
        }
    }

    /// Total bytes the application sends, if bounded.
    pub fn total(&self) -> Option<u64> {
        match self {
            AppConfig::Bulk { size, .. } => size.map(|s| s.0),
            AppConfig::Download { size } => Some(size.0),
            AppConfig::Onoff { .. } | AppConfig::Relay { .. } => None,
        }
    }
}

/// A pacing clock: one chunk every `interval`, without credit while blocked.
#[derive(Clone, Debug)]
struct Pacer {
    interval: Duration,
    next_due: SimTime,
}

impl Pacer {
    fn new(chunk: u64, rate_bps: u64, start: SimTime) -> Pacer {
        Pacer { interval: Duration::transmission(chunk * 8, rate_bps), next_due: start }
    }
}

/// A running application.
#[derive(Clone, Debug)]
pub struct App {
    chunk: u64,
    total: Option<u64>,
    written: u64,
    pacer: Option<Pacer>,
    /// For on/off: whether in a burst, when the current period ends, and the period lengths.
    onoff: Option<OnOffState>,
    relay: Option<RelayBuffer>,
    rng: Rng,
}

/// A relay's buffer: bytes read from the upstream flow, not yet written downstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelayBuffer {
    /// Most bytes it holds.
    pub capacity: u64,
    /// Bytes it holds now.
    pub held: u64,
    /// Most bytes it held at once.
    pub max_held: u64,
}

#[derive(Clone, Debug)]
struct OnOffState {
    on: bool,
    period_end: SimTime,
    on_len: Duration,
    off_len: Duration,
    distribution: DurationDistribution,
    /// The pacer's interval in a burst, and in a silence (`None`: silent).
    on_interval: Duration,
    off_interval: Option<Duration>,
}

/// What the application did when asked to write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Write {
    /// Bytes written now.
    pub bytes: u64,
    /// When the application wants to be woken next (`None`: only when buffer space frees).
    pub wake: Option<SimTime>,
}

impl App {
    /// `chunk` is the writer's unit (the flow's MSS), `start` the flow's start time.
    pub fn new(config: &AppConfig, chunk: u64, start: SimTime, rng: Rng) -> App {
        let (pacer, onoff) = match config {
            AppConfig::Bulk { rate_limit: Some(r), .. } => (Some(Pacer::new(chunk, r.0, start)), None),
            AppConfig::Bulk { rate_limit: None, .. }
            | AppConfig::Download { .. }
            | AppConfig::Relay { .. } => (None, None),
            AppConfig::Onoff { on, off, rate, off_rate, first, distribution } => (
                Some(Pacer::new(chunk, rate.0, start)),
                // The state before the flow's start: its first period begins at `start`.
                Some(OnOffState {
                    on: *first == OnOffPeriod::Off,
                    period_end: start,
                    on_len: on.0,
                    off_len: off.0,
                    distribution: *distribution,
                    on_interval: Duration::transmission(chunk * 8, rate.0),
                    off_interval: off_rate.map(|r| Duration::transmission(chunk * 8, r.0)),
                }),
            ),
        };
        let relay = match config {
            AppConfig::Relay { buffer, .. } => Some(RelayBuffer { capacity: buffer.0, held: 0, max_held: 0 }),
            _ => None,
        };
        App { chunk, total: config.total(), written: 0, pacer, onoff, relay, rng }
    }

    pub fn written(&self) -> u64 {
        self.written
    }

    /// A relay's buffer; `None` for the other kinds.
    pub fn relay(&self) -> Option<&RelayBuffer> {
        self.relay.as_ref()
    }

    /// A relay: the upstream flow has delivered `delivered` bytes in all; what this relay has not
    /// read yet enters its buffer. The upstream delivers no further than [`Self::relay_edge`].
    pub fn relay_read(&mut self, delivered: u64) {
        let buffer = self.relay.as_mut().expect("only a relay reads a flow");
        let read = self.written + buffer.held;
        buffer.held += delivered - read;
        debug_assert!(buffer.held <= buffer.capacity, "the upstream delivered beyond the relay's edge");
        buffer.max_held = buffer.max_held.max(buffer.held);
    }

    /// A relay: the upstream byte (counted from the stream's start) below which the buffer can
    /// take everything: bytes written on plus the capacity.
    pub fn relay_edge(&self) -> Option<u64> {
        self.relay.map(|b| self.written + b.capacity)
    }

    /// Whether the application has written everything it will ever write.
    pub fn is_done(&self) -> bool {
        self.total.is_some_and(|t| self.written >= t)
    }

    fn remaining(&self) -> u64 {
        self.total.map_or(u64::MAX, |t| t - self.written)
    }

    /// Advances on/off periods up to `now`.
    fn advance_periods(&mut self, now: SimTime) {
        while let Some(state) = self.onoff.as_ref() {
            if state.period_end > now {
                break;
            }
            let (on, end, on_len, off_len, distribution) =
                (state.on, state.period_end, state.on_len, state.off_len, state.distribution);
            let next_on = !on;
            let interval = if next_on { Some(state.on_interval) } else { state.off_interval };
            let len = distribution.draw(if next_on { on_len } else { off_len }, &mut self.rng);
            let state = self.onoff.as_mut().expect("checked above");
            state.on = next_on;
            state.period_end = end + len;
            // A period with a rate starts its pacing at its start.
            if let (Some(interval), Some(p)) = (interval, self.pacer.as_mut()) {
                p.interval = interval;
                p.next_due = end;
            }
        }
    }

    /// Called at the flow's start, at each wake-up it asked for, and whenever the send buffer
    /// gains room; writes what it can into `space` bytes of buffer.
    pub fn write(&mut self, now: SimTime, space: u64) -> Write {
        if let Some(buffer) = self.relay.as_mut() {
            let bytes = space.min(buffer.held);
            buffer.held -= bytes;
            self.written += bytes;
            return Write { bytes, wake: None };
        }
        self.advance_periods(now);
        let remaining = self.remaining();
        if remaining == 0 {
            return Write::default();
        }
        let period_end = self.onoff.as_ref().map(|s| (s.on || s.off_interval.is_some(), s.period_end));
        if let Some((false, end)) = period_end {
            return Write { bytes: 0, wake: Some(end) }; // a silence
        }
        let Some(pacer) = self.pacer.as_mut() else {
            let bytes = space.min(remaining);
            self.written += bytes;
            return Write { bytes, wake: None };
        };
        if now < pacer.next_due {
            return Write { bytes: 0, wake: None }; // a wake-up is already pending
        }
        let chunk = self.chunk.min(remaining);
        if space < chunk {
            return Write { bytes: 0, wake: None }; // blocked until buffer space frees
        }
        pacer.next_due = now.max(pacer.next_due) + pacer.interval;
        let mut wake = pacer.next_due;
        if let Some((true, end)) = period_end {
            wake = wake.min(end);
        }
        self.written += chunk;
        let wake = (self.remaining() > 0).then_some(wake);
        Write { bytes: chunk, wake }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng() -> Rng {
        Rng::for_component(1, "app")
    }

    fn run(app: &mut App, until: SimTime, space: u64) -> (u64, usize) {
        // Drives the app on its own wake-ups with unlimited buffer space.
        let mut now = SimTime::ZERO;
        let mut wakes = 0;
        loop {
            let w = app.write(now, space);
            match w.wake {
                Some(t) if t <= until => {
                    now = t;
                    wakes += 1;
                }
                _ => break,
            }
        }
        (app.written(), wakes)
    }

    #[test]
    fn unlimited_bulk_fills_the_buffer() {
        let mut app = App::new(&AppConfig::default(), 1448, SimTime::ZERO, rng());
        assert_eq!(app.write(SimTime::ZERO, 1_000_000), Write { bytes: 1_000_000, wake: None });
        assert_eq!(app.write(SimTime::ZERO, 500), Write { bytes: 500, wake: None });
    }

    #[test]
    fn rate_cap_writes_at_the_rate() {
        let cfg = AppConfig::Bulk { rate_limit: Some(Rate(100_000_000)), size: None };
        let mut app = App::new(&cfg, 1250, SimTime::ZERO, rng());
        // 1250 B every 100 µs at 100 Mbit/s: over 1 s, 10 000 chunks (plus the one at t = 0).
        let (written, _) = run(&mut app, SimTime::ZERO + Duration::from_secs(1), u64::MAX);
        assert_eq!(written, 10_001 * 1250);
    }

    #[test]
    fn blocked_writer_builds_no_credit() {
        let cfg = AppConfig::Bulk { rate_limit: Some(Rate(8_000_000)), size: None };
        let mut app = App::new(&cfg, 1000, SimTime::ZERO, rng()); // one chunk per ms
        assert_eq!(app.write(SimTime::ZERO, 10_000).bytes, 1000);
        // Buffer full at the next due time: blocked.
        let t1 = SimTime::ZERO + Duration::from_millis(1);
        assert_eq!(app.write(t1, 0), Write { bytes: 0, wake: None });
        // Space frees 10 ms later: one chunk, next due 1 ms after that — not ten chunks.
        let t2 = SimTime::ZERO + Duration::from_millis(11);
        assert_eq!(
            app.write(t2, 10_000),
            Write { bytes: 1000, wake: Some(SimTime::ZERO + Duration::from_millis(12)) }
        );
        assert_eq!(app.write(t2, 10_000).bytes, 0);
    }

    #[test]
    fn download_stops_at_its_size() {
        let cfg = AppConfig::Download { size: Bytes(5000) };
        assert_eq!(cfg.opener(), Opener::Receiver);
        let mut app = App::new(&cfg, 1448, SimTime::ZERO, rng());
        assert_eq!(app.write(SimTime::ZERO, 3000).bytes, 3000);
        assert_eq!(app.write(SimTime::ZERO, 3000).bytes, 2000);
        assert!(app.is_done());
        assert_eq!(app.write(SimTime::ZERO, 3000).bytes, 0);
    }

    #[test]
    fn onoff_sends_only_in_bursts() {
        let cfg = AppConfig::Onoff {
            on: Time(Duration::from_millis(10)),
            off: Time(Duration::from_millis(30)),
            rate: Rate(8_000_000),
            off_rate: None,
            first: OnOffPeriod::On,
            distribution: DurationDistribution::Fixed,
        };
        let mut app = App::new(&cfg, 1000, SimTime::ZERO, rng());
        // 1 chunk per ms during 10 ms of every 40 ms: over 400 ms, 10 bursts of 10 chunks.
        let (written, _) = run(&mut app, SimTime::ZERO + Duration::from_millis(399), u64::MAX);
        assert_eq!(written, 100 * 1000);
    }

    #[test]
    fn onoff_with_an_off_rate_starting_off_steps_up_from_a_running_rate() {
        // Wu et al.'s warm reading: 600 Mbit/s for 1 s, then 2 Gbit/s for 2 s (scaled: 1 and 4
        // chunks per ms). 1000 chunks in the first second, then 8000 over [1 s, 3 s).
        let cfg: AppConfig = toml::from_str(
            "kind = \"onoff\"\non = \"2s\"\noff = \"1s\"\nrate = \"32Mbps\"\noff_rate = \"8Mbps\"\nfirst = \"off\"",
        )
        .unwrap();
        let mut app = App::new(&cfg, 1000, SimTime::ZERO, rng());
        let (first, _) = run(&mut app, SimTime::ZERO + Duration::from_micros(999_999), u64::MAX);
        assert_eq!(first, 1000 * 1000, "one chunk per ms while off");
        let mut app = App::new(&cfg, 1000, SimTime::ZERO, rng());
        let (three, _) = run(&mut app, SimTime::ZERO + Duration::from_micros(2_999_999), u64::MAX);
        assert_eq!(three - first, 8000 * 1000, "four chunks per ms in the burst");
        // Starting on (the default), the same app bursts first.
        let on_first = AppConfig::Onoff {
            on: Time(Duration::from_secs(2)),
            off: Time(Duration::from_secs(1)),
            rate: Rate(32_000_000),
            off_rate: Some(Rate(8_000_000)),
            first: OnOffPeriod::On,
            distribution: DurationDistribution::Fixed,
        };
        let mut app = App::new(&on_first, 1000, SimTime::ZERO, rng());
        let (burst, _) = run(&mut app, SimTime::ZERO + Duration::from_micros(999_999), u64::MAX);
        assert_eq!(burst, 4000 * 1000);
    }

    #[test]
    fn onoff_exponential_mean_duty_cycle() {
        let cfg = AppConfig::Onoff {
            on: Time(Duration::from_millis(10)),
            off: Time(Duration::from_millis(30)),
            rate: Rate(8_000_000),
            off_rate: None,
            first: OnOffPeriod::On,
            distribution: DurationDistribution::Exponential,
        };
        let mut app = App::new(&cfg, 1000, SimTime::ZERO, rng());
        let (written, _) = run(&mut app, SimTime::ZERO + Duration::from_secs(200), u64::MAX);
        // About 5000 bursts; a burst of length L sends a chunk at its start and then one per
        // millisecond: ceil(L / 1 ms) chunks, whose mean for L ~ Exp(10 ms) is
        // 1 / (1 − e^(−1/10)) = 10.508.
        let expected = 5000.0 / (1.0 - (-0.1f64).exp());
        let chunks = written as f64 / 1000.0;
        assert!((chunks - expected).abs() / expected < 0.05, "{chunks} vs {expected}");
    }

    #[test]
    fn relay_writes_what_it_read_and_moves_its_edge_by_what_it_wrote() {
        let cfg = AppConfig::Relay { from: "up".into(), buffer: Bytes(10_000) };
        let mut app = App::new(&cfg, 1448, SimTime::ZERO, rng());
        assert_eq!(app.relay_edge(), Some(10_000));
        assert_eq!(app.write(SimTime::ZERO, 5000), Write::default(), "nothing read yet");
        app.relay_read(8000);
        assert_eq!(app.write(SimTime::ZERO, 3000), Write { bytes: 3000, wake: None });
        assert_eq!(app.relay_edge(), Some(13_000), "3000 bytes written on free 3000 bytes of room");
        // The upstream has delivered 12 000 in all: 4000 new bytes join the 5000 held.
        app.relay_read(12_000);
        let buffer = app.relay().unwrap();
        assert_eq!((buffer.held, buffer.max_held), (9000, 9000));
        assert_eq!(app.write(SimTime::ZERO, 100_000).bytes, 9000);
        assert_eq!(app.relay().unwrap().held, 0);
        assert_eq!(app.written(), 12_000);
        assert!(!app.is_done(), "a relay never finishes");
    }

    #[test]
    fn validation_names_the_field() {
        let bad = AppConfig::Onoff {
            on: Time(Duration::ZERO),
            off: Time(Duration::from_secs(1)),
            rate: Rate(1),
            off_rate: None,
            first: OnOffPeriod::On,
            distribution: DurationDistribution::Fixed,
        };
        assert_eq!(bad.validate().unwrap_err().0, "on");
        let silent_rate = AppConfig::Onoff {
            on: Time(Duration::from_secs(1)),
            off: Time(Duration::from_secs(1)),
            rate: Rate(1),
            off_rate: Some(Rate(0)),
            first: OnOffPeriod::On,
            distribution: DurationDistribution::Fixed,
        };
        assert_eq!(silent_rate.validate().unwrap_err().0, "off_rate");
        assert_eq!(AppConfig::Download { size: Bytes(0) }.validate().unwrap_err().0, "size");
    }

    #[test]
    fn unknown_keys_are_rejected() {
        let err = toml::from_str::<AppConfig>("kind = \"bulk\"\nbogus = 1").unwrap_err().to_string();
        assert!(err.contains("bogus"), "{err}");
        let ok: AppConfig = toml::from_str("kind = \"download\"\nsize = \"5MB\"").unwrap();
        assert_eq!(ok, AppConfig::Download { size: Bytes(5_000_000) });
    }
}
