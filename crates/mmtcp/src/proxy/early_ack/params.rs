//! The ack-management keys PEP and mmPEP share (`cache`, `window_update`, `dupthresh`,
//! `min_rto`, `initial_rto`, `max_rto`, `hold_for_rlc`, `mobile_window`, `link`): their defaults,
//! their range checks ([`CacheParams`]) and when forwarding waits ([`Hold`]).
//!
//! The default cache follows Kim et al.'s 6 MB receive window (Figs. 5–6; the paper gives no cache
//! size); the timer's defaults are RFC 6298's, except `min_rto`, Linux's 200 ms like our TCP.

use crate::error::InputError;
use crate::ids::DirId;
use crate::proxy::env::ProcessorEnv;
use crate::sim::Duration;
use crate::units::{Bytes, Time};

/// Default cache per flow: 6 MB. Kim et al. gives no cache size; its receive window is 6 MB
/// (Figs. 5–6), so a 6 MB cache lets the server keep a full receive window in flight through an
/// NLOS period, and it stays within our receiver's default 6 MiB buffer, so the proxy never
/// pushes the mobile beyond what it can hold.
pub const DEFAULT_CACHE: Bytes = Bytes(6_000_000);
/// Default `window_update`: two 1448-byte segments, what one delayed ACK of the mobile frees, so
/// a stalled server is clocked by the mobile's ACKs as it would be without the proxy.
pub const DEFAULT_WINDOW_UPDATE: Bytes = Bytes(2 * 1448);
/// Default `min_rto` (Linux's 200 ms rather than RFC 6298's 1 s, like our TCP).
pub const DEFAULT_MIN_RTO: Time = Time(Duration::from_millis(200));
/// Default `initial_rto` (RFC 6298 §2.1).
pub const DEFAULT_INITIAL_RTO: Time = Time(Duration::from_secs(1));
/// Default `max_rto` (RFC 6298 §2.5: at least 60 s).
pub const DEFAULT_MAX_RTO: Time = Time(Duration::from_secs(60));

/// When the proxy forwards what it caches (`hold_for_rlc` and `mobile_window` keys).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hold {
    /// Forwarding (new data and retransmissions) waits until this direction — the watched radio
    /// link's downlink — has room for the packet, so RLC's buffer never overflows; what waits
    /// stays in the cache (Kim et al. §III-A).
    pub rlc: Option<DirId>,
    /// New data waits until it lies within the window the mobile last advertised.
    pub mobile_window: bool,
}

impl Hold {
    /// From the keys `hold_for_rlc`, `mobile_window` and `link` (the radio link whose RLC buffer
    /// forwarding waits for; default: the scenario's only one).
    pub fn from_keys(
        env: &ProcessorEnv,
        hold_for_rlc: bool,
        mobile_window: bool,
        link: Option<&str>,
    ) -> Result<Hold, InputError> {
        let rlc = if hold_for_rlc { Some(env.radio_link(link)?.downlink) } else { None };
        Ok(Hold { rlc, mobile_window })
    }

    pub(super) fn any(&self) -> bool {
        self.rlc.is_some() || self.mobile_window
    }
}

/// The ack-management parameters, checked.
#[derive(Clone, Debug)]
pub struct CacheParams {
    /// Payload bytes the proxy may cache per flow.
    pub cache: u64,
    /// Least growth of the right edge, bytes, for a window update to a stalled server.
    pub window_update: u64,
    /// Duplicate ACKs of the mobile that make a retransmission.
    pub dupthresh: u32,
    pub min_rto: Duration,
    pub initial_rto: Duration,
    pub max_rto: Duration,
    /// When forwarding waits (default: never, the proxy forwards what arrives at once).
    pub hold: Hold,
    /// The radio downlink whose RLC must hold nothing for a partial ACK to start a repair: a
    /// repair can overtake (mmPEP's priority) or be answered by (the original of a segment
    /// queued through an outage) what RLC still holds, so a partial ACK is then no sign of loss.
    /// `None`: every partial ACK starts one (no radio hop to wait for).
    pub partial_ack_rlc: Option<DirId>,
}

impl CacheParams {
    /// Range checks of the keys PEP and mmPEP share; errors name the key and what is allowed.
    pub fn new(
        env: &ProcessorEnv,
        cache: Bytes,
        window_update: Bytes,
        dupthresh: u32,
        rto: (Time, Time, Time),
    ) -> Result<CacheParams, InputError> {
        let (min_rto, initial_rto, max_rto) = rto;
        let largest_mss = env.flows.iter().map(|f| f.tcp.mss.0).max().unwrap_or(1);
        if cache.0 < 2 * largest_mss {
            return Err(env.error(
                "cache",
                format!(
                    "{cache} is too small; allowed at least two segments of the largest MSS ({})",
                    Bytes(2 * largest_mss)
                ),
            ));
        }
        if window_update.0 > cache.0 / 2 {
            return Err(env.error(
                "window_update",
                format!(
                    "{window_update} is out of range; allowed 0B to half the cache ({})",
                    Bytes(cache.0 / 2)
                ),
            ));
        }
        if dupthresh == 0 || dupthresh > 100 {
            return Err(env.error("dupthresh", format!("{dupthresh} is out of range; allowed 1 to 100")));
        }
        if min_rto.0 == Duration::ZERO {
            return Err(env.error("min_rto", "must be greater than 0s"));
        }
        if initial_rto.0 == Duration::ZERO {
            return Err(env.error("initial_rto", "must be greater than 0s"));
        }
        if max_rto.0 < min_rto.0 {
            return Err(env.error("max_rto", format!("{max_rto} is below min_rto ({min_rto})")));
        }
        Ok(CacheParams {
            cache: cache.0,
            window_update: window_update.0,
            dupthresh,
            min_rto: min_rto.0,
            initial_rto: initial_rto.0,
            max_rto: max_rto.0,
            hold: Hold::default(),
            partial_ack_rlc: None,
        })
    }
}
