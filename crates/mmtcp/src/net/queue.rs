//! Drop-tail FIFO limited in packets or in bytes.
//!
//! The limit counts packets waiting for the transmitter; the packet being serialised has left
//! the queue (as in ns-3, where the device's transmit slot is separate from its queue disc).

use crate::ids::PacketId;
use crate::units::BufferLimit;
use std::collections::VecDeque;

#[derive(Debug)]
pub struct DropTailQueue {
    items: VecDeque<(PacketId, u32)>,
    bytes: u64,
    limit: BufferLimit,
}

impl DropTailQueue {
    /// An empty queue. Its storage grows to the most packets it ever holds (doubling), not to
    /// its limit: a topology of thousands of links, most of them idle, keeps its queues small.
    pub fn new(limit: BufferLimit) -> Self {
        DropTailQueue { items: VecDeque::new(), bytes: 0, limit }
    }

    /// Free bytes under a byte limit; `u64::MAX` under a packet limit.
    pub fn room_bytes(&self) -> u64 {
        match self.limit {
            BufferLimit::Packets(_) => u64::MAX,
            BufferLimit::Bytes(b) => b.saturating_sub(self.bytes),
        }
    }

    fn fits(&self, size: u32) -> bool {
        match self.limit {
            BufferLimit::Packets(n) => (self.items.len() as u64) < n,
            BufferLimit::Bytes(b) => self.bytes + size as u64 <= b,
        }
    }

    /// Appends the packet unless that would exceed the limit; `false` means dropped.
    #[inline]
    pub fn push(&mut self, pkt: PacketId, size: u32) -> bool {
        let fits = self.fits(size);
        if fits {
            self.items.push_back((pkt, size));
            self.bytes += size as u64;
        }
        fits
    }

    /// Puts the packet at `position` (0: the head; beyond the end: the tail), unless that would
    /// exceed the limit (the same drop-tail limit); `false` means dropped.
    pub fn insert(&mut self, position: usize, pkt: PacketId, size: u32) -> bool {
        let fits = self.fits(size);
        if fits {
            self.items.insert(position.min(self.items.len()), (pkt, size));
            self.bytes += size as u64;
        }
        fits
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(PacketId, u32)> {
        let item = self.items.pop_front()?;
        self.bytes -= item.1 as u64;
        Some(item)
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_limit_drops_the_arrival_beyond_it() {
        let mut q = DropTailQueue::new(BufferLimit::Packets(2));
        assert!(q.push(PacketId(0), 1500));
        assert!(q.push(PacketId(1), 1500));
        assert!(!q.push(PacketId(2), 40), "third packet dropped whatever its size");
        assert_eq!(q.pop(), Some((PacketId(0), 1500)));
        assert!(q.push(PacketId(3), 1500));
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn byte_limit_admits_small_packets_that_fit() {
        let mut q = DropTailQueue::new(BufferLimit::Bytes(3000));
        assert!(q.push(PacketId(0), 1500));
        assert!(q.push(PacketId(1), 1400));
        assert!(!q.push(PacketId(2), 1500));
        assert!(q.push(PacketId(3), 100));
        assert_eq!(q.bytes(), 3000);
        q.pop();
        assert_eq!(q.bytes(), 1500);
    }

    #[test]
    fn insert_goes_ahead_under_the_same_limit() {
        let mut q = DropTailQueue::new(BufferLimit::Packets(4));
        assert!(q.push(PacketId(0), 1500));
        assert!(q.push(PacketId(1), 1500));
        assert!(q.insert(0, PacketId(2), 100));
        assert!(q.insert(1, PacketId(3), 100), "behind the first, ahead of the rest");
        assert!(!q.insert(0, PacketId(4), 100), "the limit holds for the head too");
        assert_eq!(q.bytes(), 3200);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|(p, _)| p.0).collect();
        assert_eq!(order, vec![2, 3, 0, 1]);
    }
}
