//! The connection-level receiver of MP-TCP (RFC 8684 §3.3): data from every subflow, placed by
//! its data sequence number, delivered to the application in order, and the DATA_ACK and window
//! the subflows' ACKs carry.
//!
//! Data enters the connection's buffer as soon as it reaches any subflow's receiver, whether or
//! not it is in order on that subflow (a simplification: Linux v0.90 first queues data that is
//! out of order on its subflow in the subflow's own out-of-order queue; both count against the
//! same receive memory, and the data's connection-level delivery time is the same). The buffer
//! holds what waits for earlier data sent on another subflow — the head-of-line blocking across
//! paths that MP-TCP's shared window brings — and the window advertised is the buffer's free
//! room: `receive_buffer − held`. Data beyond DATA_ACK + `receive_buffer` is dropped; a sender
//! that keeps within the advertised window never sends any.
//!
//! With `receive_buffer = "auto"` the connection's buffer autotunes as in Linux MP-TCP v0.90
//! ([`crate::transport::tcp::autotune`]): it starts at one subflow's initial buffer, grows by
//! another for each subflow that joins, and after each read, once the largest of the subflows'
//! receiver RTTs has passed (`mptcp_check_rtt`), from what the application read in that time;
//! the window is half the buffer less what is held.
//!
//! When the application reads (at once, whenever DATA_ACK advances), the window may have grown
//! enough to announce at once (v0.90 `mptcp_cleanup_rbuf`, net/mptcp/mptcp_ctrl.c):
//! [`DataReceiver::window_update_due`] compares the window now with what the sender may still
//! send by the furthest right edge announced (`tcp_receive_window` of the connection); every
//! subflow then sends an ACK (`world::connection`).
//!
//! Measured: bytes delivered; bytes held (its time average and maximum); how long each chunk
//! waited in the buffer for earlier data (zero for data that arrives in order, which is
//! recorded too); the one-way delay from a chunk's first transmission to its delivery.

use crate::metrics::LogHistogram;
use crate::net::SeqRange;
use crate::sim::{Duration, SimTime};
use crate::transport::tcp::autotune::{AutotuneConfig, RcvSpace};
use crate::transport::tcp::intervals::IntervalSet;
use std::collections::VecDeque;

/// Counters and latency samples of the connection-level receiver.
#[derive(Clone, Debug, Default)]
pub struct DataReceiverStats {
    /// Bytes delivered in order to the application.
    pub bytes_delivered: u64,
    /// Chunks delivered to the application (each one segment's mapping).
    pub chunks_delivered: u64,
    /// Bytes that arrived a second time (on another subflow, after a re-injection or redundantly).
    pub duplicate_bytes: u64,
    /// Chunks dropped because they lay beyond the receive buffer.
    pub buffer_drops: u64,
    /// Most bytes held out of order at once.
    pub max_held: u64,
    /// ∫ held dt, in byte-picoseconds (for the time average).
    held_integral: u128,
    held_since: SimTime,
    /// Time a chunk waited for earlier data (picoseconds), one sample per chunk delivered.
    pub reorder_delay: LogHistogram,
    /// First transmission to delivery (picoseconds), one sample per chunk delivered.
    pub owd: LogHistogram,
    /// Reads after which the subflows announced the window at once (`mptcp_cleanup_rbuf`).
    pub window_updates: u64,
}

impl DataReceiverStats {
    /// Mean bytes held out of order from time zero to `now`.
    pub fn mean_held(&self, now: SimTime, held: u64) -> f64 {
        if now.0 == 0 {
            return 0.0;
        }
        let integral = self.held_integral + u128::from(held) * u128::from(now.0 - self.held_since.0);
        integral as f64 / now.0 as f64
    }
}

#[derive(Clone, Debug)]
pub struct DataReceiver {
    /// The payload the buffer holds: the largest window.
    receive_buffer: u64,
    /// Autotuning of the buffer (`receive_buffer = "auto"`).
    space: Option<RcvSpace>,
    /// The subflows that have brought data (bit k: subflow k).
    subflows_seen: u64,
    /// DATA_ACK: the next byte expected in order.
    data_ack: u64,
    held: IntervalSet,
    /// The chunks held, per subflow that brought them: (start, arrival, first transmission),
    /// sorted by start, starts distinct. A subflow brings its chunks mostly in data-sequence
    /// order, so they join at the back of its queue; one queue for all would interleave the
    /// subflows and insert every chunk of the slower one deep inside.
    held_chunks: Vec<VecDeque<(u64, SimTime, SimTime)>>,
    pub stats: DataReceiverStats,
}

impl DataReceiver {
    /// A receiver whose buffer holds `receive_buffer` bytes of payload, or, with `autotune`, starts
    /// at that configuration's initial buffer.
    pub fn new(receive_buffer: u64, autotune: Option<AutotuneConfig>) -> Self {
        let space = autotune.map(RcvSpace::new);
        DataReceiver {
            receive_buffer: space.as_ref().map_or(receive_buffer, RcvSpace::capacity),
            space,
            subflows_seen: 0,
            data_ack: 0,
            held: IntervalSet::new(),
            held_chunks: Vec::new(),
            stats: DataReceiverStats::default(),
        }
    }

    pub fn data_ack(&self) -> u64 {
        self.data_ack
    }

    /// The window the subflows' ACKs advertise: the buffer's free room.
    pub fn window(&self) -> u64 {
        self.receive_buffer - self.held.covered()
    }

    /// The buffer autotunes.
    pub fn autotunes(&self) -> bool {
        self.space.is_some()
    }

    /// The autotuned buffer (`None` for a fixed buffer).
    pub fn autotune(&self) -> Option<&RcvSpace> {
        self.space.as_ref()
    }

    /// The autotuned buffer now, bytes of memory (`None` for a fixed buffer).
    pub fn autotuned_buffer(&self) -> Option<u64> {
        self.space.as_ref().map(RcvSpace::buffer)
    }

    /// The application read everything delivered, at `now`; `rtt` is the largest receiver RTT
    /// of the subflows (`mptcp_check_rtt`). With autotuning, the buffer may grow
    /// (`tcp_rcv_space_adjust` on the connection).
    pub fn read(&mut self, now: SimTime, rtt: Option<Duration>) {
        if let Some(space) = self.space.as_mut() {
            if space.adjust(now, self.data_ack, rtt) {
                self.receive_buffer = space.capacity();
            }
        }
    }

    /// After a read: does the window call for an ACK at once (Linux MP-TCP v0.90
    /// `mptcp_cleanup_rbuf`)? `announced_edge` is the furthest right edge (DATA_ACK + window) the
    /// subflows' ACKs announced; what the sender may still send by it is the window "now"
    /// (`tcp_receive_window` of the connection). True when that is more than zero and at most half
    /// the largest window, and the window now is at least twice it.
    pub fn window_update_due(&self, announced_edge: u64) -> bool {
        let known = announced_edge.saturating_sub(self.data_ack);
        // v0.90 skips the check when `rcv_window_now` is 0 (`if (rcv_window_now)`), and also when
        // twice it exceeds the window clamp (the largest window).
        known > 0 && 2 * known <= self.receive_buffer && self.window() >= 2 * known
    }

    /// Bytes held waiting for earlier data.
    pub fn held(&self) -> u64 {
        self.held.covered()
    }

    /// Data-sequence bytes `dsn .. dsn + len`, first transmitted at `first_sent`, reached
    /// subflow `subflow` at `now`.
    pub fn on_data(&mut self, now: SimTime, subflow: u8, dsn: u64, len: u16, first_sent: SimTime) {
        let k = u32::from(subflow);
        if self.subflows_seen & (1 << k) == 0 {
            // The subflow is established (its first data): the first opens the connection's
            // autotuning; each other adds its initial buffer (v0.90 `mptcp_init_buffer_space`).
            if let Some(space) = self.space.as_mut() {
                if self.subflows_seen == 0 {
                    space.start(now, self.data_ack);
                } else {
                    space.add_subflow();
                    self.receive_buffer = space.capacity();
                }
            }
            self.subflows_seen |= 1 << k;
        }
        let chunk = SeqRange::new(dsn, dsn + u64::from(len));
        if chunk.end <= self.data_ack {
            self.stats.duplicate_bytes += u64::from(len);
            return;
        }
        if chunk.end > self.data_ack + self.receive_buffer {
            self.stats.buffer_drops += 1;
            return;
        }
        self.account_held(now);
        if chunk.start <= self.data_ack {
            self.stats.duplicate_bytes += self.data_ack - chunk.start;
            self.stats.bytes_delivered += chunk.end - self.data_ack;
            self.record_chunk(now, now, first_sent);
            self.data_ack = chunk.end;
            self.pull_held(now);
            return;
        }
        let mut new_bytes = 0;
        self.held.insert(chunk, |p| new_bytes += p.len());
        self.stats.duplicate_bytes += u64::from(len) - new_bytes;
        if new_bytes > 0 {
            let k = usize::from(subflow);
            if self.held_chunks.len() <= k {
                self.held_chunks.resize_with(k + 1, VecDeque::new);
            }
            let queue = &mut self.held_chunks[k];
            if queue.back().is_none_or(|&(start, ..)| start < dsn) {
                queue.push_back((dsn, now, first_sent));
            } else {
                let i = queue.partition_point(|&(start, ..)| start < dsn);
                if queue.get(i).is_none_or(|&(start, ..)| start != dsn) {
                    queue.insert(i, (dsn, now, first_sent));
                }
            }
        }
        self.stats.max_held = self.stats.max_held.max(self.held.covered());
    }

    fn record_chunk(&mut self, now: SimTime, arrived: SimTime, first_sent: SimTime) {
        self.stats.chunks_delivered += 1;
        self.stats.reorder_delay.record((now - arrived).as_picos());
        self.stats.owd.record(now.saturating_since(first_sent).as_picos());
    }

    /// Moves held data that has become contiguous to the application.
    fn pull_held(&mut self, now: SimTime) {
        let before = self.data_ack;
        if let Some(first) = self.held.first().filter(|f| f.start <= self.data_ack) {
            self.data_ack = self.data_ack.max(first.end);
        }
        self.held.remove_below(self.data_ack);
        self.stats.bytes_delivered += self.data_ack - before;
        for k in 0..self.held_chunks.len() {
            while let Some(&(start, arrived, first_sent)) = self.held_chunks[k].front() {
                if start >= self.data_ack {
                    break;
                }
                self.held_chunks[k].pop_front();
                self.record_chunk(now, arrived, first_sent);
            }
        }
    }

    fn account_held(&mut self, now: SimTime) {
        let s = &mut self.stats;
        s.held_integral += u128::from(self.held.covered()) * u128::from(now.0 - s.held_since.0);
        s.held_since = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Duration;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + Duration::from_millis(ms)
    }

    #[test]
    fn test_data_waits_for_the_earlier_subflow_and_the_window_shrinks_meanwhile() {
        let mut rx = DataReceiver::new(10_000, None);
        rx.on_data(at(0), 0, 1000, 1000, at(0));
        rx.on_data(at(0), 0, 2000, 1000, at(0));
        assert_eq!((rx.data_ack(), rx.held(), rx.window()), (0, 2000, 8000));
        rx.on_data(at(40), 0, 0, 1000, at(0));
        assert_eq!((rx.data_ack(), rx.held(), rx.window()), (3000, 0, 10_000));
        assert_eq!(rx.stats.bytes_delivered, 3000);
        assert_eq!(rx.stats.chunks_delivered, 3);
        // Two chunks waited 40 ms, one none.
        assert_eq!(rx.stats.reorder_delay.max(), Some(Duration::from_millis(40).as_picos()));
        assert_eq!(rx.stats.reorder_delay.min(), Some(0));
        // 2000 bytes held for 40 ms out of 80.
        assert_eq!(rx.stats.mean_held(at(80), rx.held()), 1000.0);
        assert_eq!(rx.stats.max_held, 2000);
    }

    #[test]
    fn test_copies_count_once() {
        let mut rx = DataReceiver::new(10_000, None);
        rx.on_data(at(0), 0, 0, 1000, at(0));
        rx.on_data(at(1), 0, 0, 1000, at(0));
        rx.on_data(at(1), 0, 2000, 1000, at(0));
        rx.on_data(at(2), 0, 2000, 1000, at(0));
        rx.on_data(at(3), 0, 500, 1000, at(0));
        assert_eq!(rx.data_ack(), 1500);
        rx.on_data(at(4), 0, 1000, 1000, at(0));
        assert_eq!(rx.data_ack(), 3000);
        assert_eq!(rx.stats.bytes_delivered, 3000);
        assert_eq!(rx.stats.duplicate_bytes, 1000 + 1000 + 500 + 500);
    }

    #[test]
    fn test_window_update_when_the_reorder_buffer_drains() {
        // 10 000-byte buffer; the subflows announced DATA_ACK 0 + window 10 000.
        let mut rx = DataReceiver::new(10_000, None);
        for k in 1..7 {
            rx.on_data(at(0), 1, k * 1000, 1000, at(0)); // 1000..7000 held above the hole
        }
        assert!(!rx.window_update_due(10_000), "nothing read");
        rx.on_data(at(40), 0, 0, 1000, at(0));
        assert_eq!((rx.data_ack(), rx.window()), (7000, 10_000));
        // The sender may still send 3000 (up to 10 000): 10 000 ≥ 2 × 3000 → announce.
        assert!(rx.window_update_due(10_000));
        // Had a subflow announced up to 12 000 (5000 left): 10 000 ≥ 2 × 5000 still.
        assert!(rx.window_update_due(12_000));
        // 6000 left: more than half the largest window — v0.90 does not announce.
        assert!(!rx.window_update_due(13_000));
        // Nothing left (the sender filled the window): v0.90's `if (rcv_window_now)` sends none.
        assert!(!rx.window_update_due(7000));
        assert!(!rx.window_update_due(5000), "an edge behind DATA_ACK is nothing left too");
    }

    #[test]
    fn test_autotuned_buffer_starts_small_and_grows_with_each_subflow_and_the_reads() {
        let cfg = AutotuneConfig { initial: 20_000, max: 100_000, mss: 1000 };
        let mut rx = DataReceiver::new(1 << 30, Some(cfg));
        assert_eq!((rx.window(), rx.autotuned_buffer()), (10_000, Some(20_000)), "half the buffer");
        rx.on_data(at(0), 0, 0, 1000, at(0)); // subflow 0: the first period begins
        assert_eq!(rx.window(), 10_000);
        rx.on_data(at(1), 1, 1000, 1000, at(0)); // subflow 1 joins: +20 000
        assert_eq!((rx.window(), rx.autotuned_buffer()), (20_000, Some(40_000)));
        // Read 30 000 in the largest subflow RTT (10 ms), three times the first window
        // (10 segments): rcvwin = 2 · (2 · 30 000 + 16 000) = 152 000 → 304 000, capped.
        for k in 2..30 {
            rx.on_data(at(5), 0, k * 1000, 1000, at(0));
        }
        rx.read(at(5), Some(Duration::from_millis(10)));
        assert_eq!(rx.autotuned_buffer(), Some(40_000), "less than an RTT since it began");
        rx.read(at(10), Some(Duration::from_millis(10)));
        assert_eq!((rx.window(), rx.autotuned_buffer()), (50_000, Some(100_000)));
        // A third subflow adds nothing beyond the maximum.
        rx.on_data(at(11), 2, 30_000, 1000, at(0));
        assert_eq!(rx.autotuned_buffer(), Some(100_000));
        // A fixed buffer has none of this.
        let fixed = DataReceiver::new(10_000, None);
        assert_eq!((fixed.autotunes(), fixed.autotuned_buffer()), (false, None));
    }

    #[test]
    fn test_data_beyond_the_buffer_is_dropped() {
        let mut rx = DataReceiver::new(4000, None);
        rx.on_data(at(0), 0, 3000, 1000, at(0));
        rx.on_data(at(0), 0, 3500, 1000, at(0));
        assert_eq!(rx.stats.buffer_drops, 1);
        assert_eq!(rx.held(), 1000);
    }
}
