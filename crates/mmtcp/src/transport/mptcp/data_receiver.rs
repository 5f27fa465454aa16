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
//! Measured: bytes delivered; bytes held (its time average and maximum); how long each chunk
//! waited in the buffer for earlier data (zero for data that arrives in order, which is
//! recorded too); the one-way delay from a chunk's first transmission to its delivery.

use crate::metrics::LogHistogram;
use crate::net::SeqRange;
use crate::sim::SimTime;
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
    receive_buffer: u64,
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
    pub fn new(receive_buffer: u64) -> Self {
        DataReceiver {
            receive_buffer,
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

    /// Bytes held waiting for earlier data.
    pub fn held(&self) -> u64 {
        self.held.covered()
    }

    /// Data-sequence bytes `dsn .. dsn + len`, first transmitted at `first_sent`, reached
    /// subflow `subflow` at `now`.
    pub fn on_data(&mut self, now: SimTime, subflow: u8, dsn: u64, len: u16, first_sent: SimTime) {
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
        let mut rx = DataReceiver::new(10_000);
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
        let mut rx = DataReceiver::new(10_000);
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
    fn test_data_beyond_the_buffer_is_dropped() {
        let mut rx = DataReceiver::new(4000);
        rx.on_data(at(0), 0, 3000, 1000, at(0));
        rx.on_data(at(0), 0, 3500, 1000, at(0));
        assert_eq!(rx.stats.buffer_drops, 1);
        assert_eq!(rx.held(), 1000);
    }
}
