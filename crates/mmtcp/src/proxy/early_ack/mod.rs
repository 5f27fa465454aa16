//! Ack management shared by PEP and mmPEP (Kim et al. §III-A; RFC 3135 §2.1.1 and §4.1.4): a
//! per-flow cache of the data the proxy has forwarded to the mobile, early ACKs to the server,
//! flow control by the free cache, and the proxy's own retransmission timer.
//!
//! ```text
//!   server ──data──► [proxy: cache, Pass] ──data──► mobile
//!   server ◄──early ACK (ack = A, window = cache − C)
//!                    [proxy: free < ack, Consume] ◄──ACK── mobile
//! ```
//!
//! Per flow, the proxy knows `una` (the mobile's cumulative ACK), the cached segments (C bytes of
//! payload, at most `cache`), and `A`, the end of the contiguous data from `una` on that it
//! holds. Every byte below `A` is either acknowledged by the mobile or in the cache, so an early
//! ACK never acknowledges data the proxy could not deliver itself. Cached data above a hole in
//! the server's stream is reported in SACK blocks (RFC 2018 §4: the range of the segment that
//! triggered the ACK first, then those of the other recently received segments), so the
//! server's own loss recovery works on the wired side and hears of every range as it arrives.
//!
//! The parts, each in its own file, bottom up:
//!
//! - `params`: the keys PEP and mmPEP share, their defaults and range checks ([`CacheParams`]),
//!   and when forwarding waits ([`Hold`]);
//! - `range_set`: the byte ranges a flow tracks above a cumulative point;
//! - `cache`: the proxy's state of one flow (its cached segments, `una`, `A`, timer);
//! - `ack_manager`: what the proxy does with each packet and timer event ([`AckManager`]: data
//!   from the server, the mobile's ACKs, early ACKs, window updates, duplicate ACKs, forwarding
//!   that waits, the retransmission timer), and the hooks a retransmission policy acts through;
//! - `proxy`: the retransmission policy that tells PEP and mmPEP apart ([`Recovery`]) and the
//!   packet processor that runs it on the ack management ([`EarlyAckProxy`]);
//! - `harness` (tests only): a hand-driven [`ProcCtx`](crate::proxy::ProcCtx) for the unit tests
//!   of the ack management, PEP and mmPEP.
//!
//! Nothing here allocates per packet once the per-flow vectors have grown to their peak.

mod ack_manager;
mod cache;
#[cfg(test)]
pub(crate) mod harness;
mod params;
mod proxy;
mod range_set;

pub use ack_manager::{AckManager, AckStats, DupAck, HOLD_POLL};
pub use cache::{Repair, RepairTrigger};
pub use params::{
    CacheParams, Hold, DEFAULT_CACHE, DEFAULT_INITIAL_RTO, DEFAULT_MAX_RTO, DEFAULT_MIN_RTO,
    DEFAULT_WINDOW_UPDATE,
};
pub use proxy::{EarlyAckProxy, Recovery};
