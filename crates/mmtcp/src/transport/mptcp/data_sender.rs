//! The connection-level sender of MP-TCP (RFC 8684 §3.3): the data sequence space the
//! application writes into, what the DATA_ACKs have acknowledged, the connection's receive
//! window, and the queue of data to re-inject on another subflow.
//!
//! Data leaves in chunks of at most one segment, each mapped onto one subflow
//! ([`crate::transport::tcp::dss_map`]). The chunks sent and not yet DATA_ACKed are kept in
//! data-sequence order with the subflows that carried them (Linux's per-segment `path_mask`).
//! Re-injected chunks go first (Linux v0.90 `mptcp_next_segment`: the reinject queue before the
//! send queue), each on a subflow that has not carried it yet (`mptcp_dont_reinject_skb`); then
//! new data, up to the application's writes and the right edge of the connection's window. A
//! scheduler may also send the oldest unacknowledged chunk again on another subflow (the default
//! scheduler's opportunistic retransmission, [`super::minrtt`]). The right edge only moves forward: a DATA_ACK
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

/// A chunk sent and not yet acknowledged at connection level, with the subflows that carried
/// it (bit k: subflow k).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentChunk {
    pub dsn: u64,
    pub len: u16,
    pub carried_by: u64,
}

/// Counters of the connection-level sender.
#[derive(Clone, Debug, Default)]
pub struct DataSenderStats {
    /// Bytes sent again on another subflow after a subflow's timeout.
    pub reinjected_bytes: u64,
    /// Subflow timeouts that queued data for re-injection.
    pub reinjection_events: u64,
    /// Bytes of the oldest unacknowledged chunk sent again on another subflow while the
    /// connection's window was blocked (opportunistic retransmission).
    pub opportunistic_bytes: u64,
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
    /// Chunks sent and not yet DATA_ACKed, in data-sequence order.
    sent: VecDeque<SentChunk>,
    /// Starts of the chunks waiting for re-injection, in data-sequence order.
    reinject: VecDeque<u64>,
    /// Per subflow (index k), a data sequence number below which every chunk waiting for
    /// re-injection was found unfit for k (k carried it): k's search of the queue starts there,
    /// so a subflow that carried a long queue does not scan it again for every chunk it sends.
    /// Carriers only grow; queuing a chunk moves every subflow's mark back to it.
    reinject_checked: Vec<u64>,
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
            sent: VecDeque::new(),
            reinject: VecDeque::new(),
            reinject_checked: Vec::new(),
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
        while self.sent.front().is_some_and(|c| c.dsn + u64::from(c.len) <= data_ack) {
            self.sent.pop_front();
        }
        let first = self.sent.front().map_or(u64::MAX, |c| c.dsn);
        while self.reinject.front().is_some_and(|&dsn| dsn < first) {
            self.reinject.pop_front();
        }
    }

    /// The oldest chunk not yet acknowledged at connection level.
    pub fn head(&self) -> Option<SentChunk> {
        self.sent.front().copied()
    }

    /// Whether the connection's window holds new data back: data is waiting and the window has
    /// no room for the next chunk of `mss` bytes (Linux: `tcp_snd_wnd_test` fails on the meta
    /// socket).
    pub fn window_blocked(&self, mss: u32) -> bool {
        self.unsent() > 0 && self.window_free() < self.unsent().min(u64::from(mss))
    }

    /// Whether everything written was sent and the application is held back by a full send
    /// buffer (Linux: no send head, `SOCK_NOSPACE`).
    pub fn send_buffer_limited(&self) -> bool {
        self.unsent() == 0 && self.buffer_space() == 0
    }

    /// Sends the oldest unacknowledged chunk again, on `subflow` (an opportunistic
    /// retransmission); `None` if there is none or `subflow` carried it already.
    pub fn retransmit_head(&mut self, subflow: u8) -> Option<Chunk> {
        let bit = 1u64 << subflow;
        let head = self.sent.front_mut().filter(|c| c.carried_by & bit == 0)?;
        head.carried_by |= bit;
        self.stats.opportunistic_bytes += u64::from(head.len);
        Some(Chunk { dsn: head.dsn, len: head.len, reinjected: true })
    }

    fn sent_index(&self, dsn: u64) -> Option<usize> {
        self.sent.binary_search_by_key(&dsn, |c| c.dsn).ok()
    }

    /// Subflow `origin` timed out: its chunks not yet acknowledged at connection level wait to
    /// be sent on another subflow (chunks already waiting wait once).
    pub fn queue_reinjection(&mut self, origin: u8, chunks: impl Iterator<Item = (u64, u16)>) {
        let bit = 1u64 << origin;
        let mut queued = false;
        for (dsn, _) in chunks {
            let Some(i) = self.sent_index(dsn) else { continue }; // acknowledged meanwhile
            self.sent[i].carried_by |= bit;
            if let Err(at) = self.reinject.binary_search(&dsn) {
                self.reinject.insert(at, dsn);
                for mark in &mut self.reinject_checked {
                    *mark = (*mark).min(dsn);
                }
                queued = true;
            }
        }
        if queued {
            self.stats.reinjection_events += 1;
        }
    }

    /// Whether anything is waiting that subflow `subflow` could send.
    pub fn has_data_for(&mut self, subflow: u8) -> bool {
        self.reinjection_for(subflow).is_some() || self.new_room() > 0
    }

    /// The first chunk waiting for re-injection that `subflow` has not carried: its place in
    /// the queue and in `sent`. Inlined for its common answer, asked several times per ACK:
    /// nothing waits.
    #[inline]
    fn reinjection_for(&mut self, subflow: u8) -> Option<(usize, usize)> {
        if self.reinject.is_empty() {
            return None;
        }
        self.search_reinjection(subflow)
    }

    fn search_reinjection(&mut self, subflow: u8) -> Option<(usize, usize)> {
        let k = usize::from(subflow);
        if self.reinject_checked.len() <= k {
            self.reinject_checked.resize(k + 1, 0);
        }
        let bit = 1u64 << subflow;
        let from = self.reinject_checked[k];
        for q in self.reinject.partition_point(|&dsn| dsn < from)..self.reinject.len() {
            let dsn = self.reinject[q];
            if let Some(i) = self.sent_index(dsn).filter(|&i| self.sent[i].carried_by & bit == 0) {
                return Some((q, i));
            }
            self.reinject_checked[k] = dsn + 1;
        }
        None
    }

    /// New bytes that may be sent: written, and inside the window.
    fn new_room(&self) -> u64 {
        self.app_end.min(self.edge).saturating_sub(self.next_new)
    }

    /// The next chunk for subflow `subflow`, of at most `mss` bytes: a re-injection it has not
    /// carried, else new data.
    pub fn next_chunk(&mut self, subflow: u8, mss: u32) -> Option<Chunk> {
        if let Some((q, i)) = self.reinjection_for(subflow) {
            self.reinject.remove(q);
            let c = &mut self.sent[i];
            c.carried_by |= 1u64 << subflow;
            self.stats.reinjected_bytes += u64::from(c.len);
            return Some(Chunk { dsn: c.dsn, len: c.len, reinjected: true });
        }
        let chunk = self.take_new(mss)?;
        self.sent.push_back(SentChunk { dsn: chunk.dsn, len: chunk.len, carried_by: 1u64 << subflow });
        Some(chunk)
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

    /// For a scheduler that sends every byte on every subflow (redundant): the chunk of
    /// `subflow` from `from` on — one another subflow already sent, or else new data of at most
    /// `mss` bytes.
    pub fn chunk_from(&mut self, subflow: u8, from: u64, mss: u32) -> Option<Chunk> {
        let bit = 1u64 << subflow;
        let i = self.sent.partition_point(|c| c.dsn + u64::from(c.len) <= from);
        if let Some(c) = self.sent.get_mut(i) {
            c.carried_by |= bit;
            return Some(Chunk { dsn: c.dsn, len: c.len, reinjected: false });
        }
        let chunk = self.take_new(mss)?;
        self.sent.push_back(SentChunk { dsn: chunk.dsn, len: chunk.len, carried_by: bit });
        Some(chunk)
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
    fn test_a_subflow_that_skipped_the_queue_still_finds_a_chunk_queued_later_before_it() {
        let mut tx = DataSender::new(1 << 20, 5000); // a window of 5 chunks: no new data after
        tx.write(10_000);
        tx.next_chunk(1, 1000);
        for _ in 0..4 {
            tx.next_chunk(0, 1000);
        }
        tx.queue_reinjection(0, [(1000, 1000), (2000, 1000), (3000, 1000)].into_iter());
        assert!(!tx.has_data_for(0), "subflow 0 carried every queued chunk");
        tx.queue_reinjection(1, [(0, 1000)].into_iter());
        let c = tx.next_chunk(0, 1000).unwrap();
        assert_eq!((c.dsn, c.reinjected), (0, true), "subflow 1's chunk, queued before the ones 0 skipped");
        assert_eq!(tx.next_chunk(1, 1000).map(|c| c.dsn), Some(1000), "subflow 1 takes 0's in order");
        assert!(!tx.has_data_for(0));
    }

    #[test]
    fn test_the_head_goes_again_once_per_subflow_when_the_window_blocks() {
        let mut tx = DataSender::new(1 << 20, 3000);
        tx.write(10_000);
        while tx.next_chunk(0, 1000).is_some() {}
        assert!(tx.window_blocked(1000));
        assert_eq!(tx.retransmit_head(0), None, "subflow 0 carried it");
        assert_eq!(tx.retransmit_head(1).map(|c| (c.dsn, c.reinjected)), Some((0, true)));
        assert_eq!(tx.retransmit_head(1), None, "once");
        assert_eq!(tx.stats.opportunistic_bytes, 1000);
        tx.on_data_ack(3000, 7000);
        assert!(!tx.window_blocked(1000));
        assert_eq!(tx.head(), None);
    }

    #[test]
    fn test_redundant_chunks_repeat_what_others_sent_then_take_new_data() {
        let mut tx = DataSender::new(1 << 20, 1 << 20);
        tx.write(3000);
        assert_eq!(tx.chunk_from(0, 0, 1000).map(|c| c.dsn), Some(0));
        assert_eq!(tx.chunk_from(0, 1000, 1000).map(|c| c.dsn), Some(1000));
        assert_eq!(tx.chunk_from(1, 0, 1000).map(|c| (c.dsn, c.len)), Some((0, 1000)), "a copy");
        assert_eq!(tx.head().map(|c| c.carried_by), Some(0b11));
        tx.on_data_ack(1000, 1 << 20);
        assert_eq!(tx.chunk_from(1, 0, 1000).map(|c| c.dsn), Some(1000), "skips acknowledged data");
        assert_eq!(tx.chunk_from(0, 2000, 1000).map(|c| c.dsn), Some(2000));
        assert_eq!(tx.chunk_from(0, 3000, 1000), None, "everything written was sent");
    }
}
