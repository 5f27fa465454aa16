//! The connection-level sender of MP-TCP (RFC 8684 §3.3): the data sequence space the
//! application writes into, what the DATA_ACKs have acknowledged, the connection's receive
//! window, and the queue of data to re-inject on another subflow.
//!
//! Data leaves in chunks of at most one segment, each mapped onto one subflow
//! ([`crate::transport::tcp::dss_map`]). Re-injected chunks go first (Linux v0.90
//! `mptcp_next_segment`: the reinject queue before the send queue), each on a subflow that has
//! not carried it yet (`mptcp_dont_reinject_skb`); then new data, up to the application's writes
//! and the right edge of the connection's window. The right edge only moves forward: a DATA_ACK
//! arriving late on a slow subflow does not shrink the window (RFC 8684 §3.3.5, as RFC 9293
//! §3.8.6.2.1 for TCP).

use std::collections::VecDeque;

/// A stretch of the data sequence space to send: `dsn .. dsn + len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub dsn: u64,
    pub len: u16,
    /// Re-injected data (sent before on another subflow).
    pub reinjected: bool,
}

/// A chunk waiting for re-injection, with the subflows that already carried it (a bit each).
#[derive(Clone, Copy, Debug)]
struct Reinjection {
    dsn: u64,
    len: u16,
    carried_by: u64,
}

/// Counters of the connection-level sender.
#[derive(Clone, Debug, Default)]
pub struct DataSenderStats {
    /// Bytes sent again on another subflow after a subflow's timeout.
    pub reinjected_bytes: u64,
    /// Subflow timeouts that queued data for re-injection.
    pub reinjection_events: u64,
}

#[derive(Clone, Debug)]
pub struct DataSender {
    send_buffer: u64,
    /// One past the last byte the application has written.
    app_end: u64,
    /// The DATA_ACK: every byte below is acknowledged at connection level.
    data_una: u64,
    /// The next byte never sent on any subflow.
    next_new: u64,
    /// Right edge of the connection's receive window: DATA_ACK + window, the largest heard.
    edge: u64,
    reinject: VecDeque<Reinjection>,
    pub stats: DataSenderStats,
}

impl DataSender {
    /// A sender with a send buffer of `send_buffer` bytes that may send up to `window` bytes
    /// before the first DATA_ACK.
    pub fn new(send_buffer: u64, window: u64) -> Self {
        DataSender {
            send_buffer,
            app_end: 0,
            data_una: 0,
            next_new: 0,
            edge: window,
            reinject: VecDeque::new(),
            stats: DataSenderStats::default(),
        }
    }

    /// Bytes the application may still write.
    pub fn buffer_space(&self) -> u64 {
        self.send_buffer.saturating_sub(self.app_end - self.data_una)
    }

    pub fn write(&mut self, bytes: u64) {
        debug_assert!(bytes <= self.buffer_space());
        self.app_end += bytes;
    }

    pub fn data_una(&self) -> u64 {
        self.data_una
    }

    /// One past the last byte sent on some subflow.
    pub fn next_new(&self) -> u64 {
        self.next_new
    }

    /// Bytes written and never sent on any subflow.
    pub fn unsent(&self) -> u64 {
        self.app_end - self.next_new
    }

    /// Bytes the connection's receive window still lets out beyond what was sent.
    pub fn window_free(&self) -> u64 {
        self.edge.saturating_sub(self.next_new)
    }

    /// Bytes written and not yet acknowledged at connection level.
    pub fn outstanding(&self) -> u64 {
        self.app_end - self.data_una
    }

    /// A DATA_ACK arrived on a subflow, with that ACK's window.
    pub fn on_data_ack(&mut self, data_ack: u64, window: u64) {
        if data_ack < self.data_una || data_ack > self.next_new {
            return; // older than what we know, or acknowledging data never sent
        }
        self.data_una = data_ack;
        self.edge = self.edge.max(data_ack + window);
        while self.reinject.front().is_some_and(|r| r.dsn + u64::from(r.len) <= data_ack) {
            self.reinject.pop_front();
        }
    }

    /// Subflow `origin` timed out: its chunks not yet acknowledged at connection level wait to
    /// be sent on another subflow. Chunks already waiting only learn that `origin` carried them.
    pub fn queue_reinjection(&mut self, origin: u8, chunks: impl Iterator<Item = (u64, u16)>) {
        let bit = 1u64 << origin;
        let mut queued = false;
        for (dsn, len) in chunks {
            if dsn + u64::from(len) <= self.data_una {
                continue;
            }
            match self.reinject.iter_mut().find(|r| r.dsn == dsn) {
                Some(r) => r.carried_by |= bit,
                None => {
                    self.reinject.push_back(Reinjection { dsn, len, carried_by: bit });
                    queued = true;
                }
            }
        }
        if queued {
            self.stats.reinjection_events += 1;
            self.reinject.make_contiguous().sort_unstable_by_key(|r| r.dsn);
        }
    }

    /// Whether anything is waiting that subflow `subflow` could send.
    pub fn has_data_for(&self, subflow: u8) -> bool {
        self.reinjection_for(subflow).is_some() || self.new_room() > 0
    }

    fn reinjection_for(&self, subflow: u8) -> Option<usize> {
        let bit = 1u64 << subflow;
        self.reinject.iter().position(|r| r.carried_by & bit == 0 && r.dsn + u64::from(r.len) > self.data_una)
    }

    /// New bytes that may be sent: written, and inside the window.
    fn new_room(&self) -> u64 {
        self.app_end.min(self.edge).saturating_sub(self.next_new)
    }

    /// The next chunk for subflow `subflow`, of at most `mss` bytes: a re-injection it has not
    /// carried, else new data.
    pub fn next_chunk(&mut self, subflow: u8, mss: u32) -> Option<Chunk> {
        if let Some(i) = self.reinjection_for(subflow) {
            let r = self.reinject.remove(i).expect("found");
            self.stats.reinjected_bytes += u64::from(r.len);
            return Some(Chunk { dsn: r.dsn, len: r.len, reinjected: true });
        }
        self.take_new(mss)
    }

    fn take_new(&mut self, mss: u32) -> Option<Chunk> {
        let len = self.new_room().min(u64::from(mss));
        if len == 0 {
            return None;
        }
        let dsn = self.next_new;
        self.next_new += len;
        Some(Chunk { dsn, len: len as u16, reinjected: false })
    }

    /// For a scheduler that sends every byte on every subflow (redundant): the chunk from `from`
    /// on, of at most `mss` bytes — data another subflow already sent, or else new data.
    pub fn chunk_from(&mut self, from: u64, mss: u32) -> Option<Chunk> {
        let start = from.max(self.data_una);
        if start < self.next_new {
            let len = (self.next_new - start).min(u64::from(mss));
            return Some(Chunk { dsn: start, len: len as u16, reinjected: false });
        }
        self.take_new(mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_new_data_stops_at_the_window_edge_and_the_writes() {
        let mut tx = DataSender::new(10_000, 2500);
        tx.write(4000);
        let chunks: Vec<_> = std::iter::from_fn(|| tx.next_chunk(0, 1000)).map(|c| (c.dsn, c.len)).collect();
        assert_eq!(chunks, vec![(0, 1000), (1000, 1000), (2000, 500)], "window of 2500");
        tx.on_data_ack(2000, 3000);
        let chunks: Vec<_> = std::iter::from_fn(|| tx.next_chunk(0, 1000)).map(|c| (c.dsn, c.len)).collect();
        assert_eq!(chunks, vec![(2500, 1000), (3500, 500)], "what was written");
        assert_eq!(tx.buffer_space(), 8000);
    }

    #[test]
    fn test_a_late_data_ack_does_not_shrink_the_window() {
        let mut tx = DataSender::new(1 << 20, 1000);
        tx.write(1 << 20);
        tx.next_chunk(0, 1000);
        tx.on_data_ack(1000, 5000);
        tx.on_data_ack(1000, 1000);
        let mut sent = 0;
        while let Some(c) = tx.next_chunk(0, 1000) {
            sent += u64::from(c.len);
        }
        assert_eq!(sent, 5000, "the edge stays at 6000");
    }

    #[test]
    fn test_reinjection_goes_first_and_only_on_other_subflows() {
        let mut tx = DataSender::new(1 << 20, 1 << 20);
        tx.write(10_000);
        for _ in 0..4 {
            tx.next_chunk(0, 1000);
        }
        tx.on_data_ack(1000, 1 << 20);
        tx.queue_reinjection(0, [(0, 1000), (1000, 1000), (2000, 1000)].into_iter());
        assert_eq!(tx.next_chunk(0, 1000).map(|c| c.dsn), Some(4000), "not on the subflow that timed out");
        let c = tx.next_chunk(1, 1000).unwrap();
        assert_eq!((c.dsn, c.reinjected), (1000, true), "acknowledged data is not re-injected");
        tx.on_data_ack(3000, 1 << 20);
        assert_eq!(tx.next_chunk(1, 1000).map(|c| c.dsn), Some(5000), "2000 was acknowledged meanwhile");
        assert_eq!(tx.stats.reinjected_bytes, 1000);
        assert_eq!(tx.stats.reinjection_events, 1);
    }

    #[test]
    fn test_redundant_chunks_repeat_what_others_sent_then_take_new_data() {
        let mut tx = DataSender::new(1 << 20, 1 << 20);
        tx.write(3000);
        assert_eq!(tx.chunk_from(0, 1000).map(|c| c.dsn), Some(0));
        assert_eq!(tx.chunk_from(1000, 1000).map(|c| c.dsn), Some(1000));
        assert_eq!(tx.chunk_from(0, 1000).map(|c| (c.dsn, c.len)), Some((0, 1000)), "a copy");
        tx.on_data_ack(1000, 1 << 20);
        assert_eq!(tx.chunk_from(0, 1000).map(|c| c.dsn), Some(1000), "skips acknowledged data");
        assert_eq!(tx.chunk_from(2000, 1000).map(|c| c.dsn), Some(2000));
        assert_eq!(tx.chunk_from(3000, 1000), None, "everything written was sent");
    }
}
