//! The packet arena: packets live in one vector and are named by index.
//!
//! Freed slots go on a free list and are reused, so once a run has reached its peak number of
//! packets in flight, creating and destroying packets allocates nothing. `PacketId`s are plain
//! `u32`s, which keeps events small.

use super::packet::Packet;
use crate::ids::PacketId;

#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: usize,
    peak: usize,
}

impl PacketArena {
    pub fn with_capacity(n: usize) -> Self {
        PacketArena { slots: Vec::with_capacity(n), free: Vec::with_capacity(n), live: 0, peak: 0 }
    }

    #[inline]
    pub fn alloc(&mut self, packet: Packet) -> PacketId {
        self.live += 1;
        self.peak = self.peak.max(self.live);
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = packet;
                PacketId(i)
            }
            None => {
                let i = u32::try_from(self.slots.len()).expect("more than 2^32 packets in flight");
                self.slots.push(packet);
                PacketId(i)
            }
        }
    }

    /// Returns the slot to the free list. Using `id` afterwards is a logic error.
    #[inline]
    pub fn free(&mut self, id: PacketId) {
        self.live -= 1;
        self.free.push(id.0);
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.0 as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }

    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Most packets ever allocated at once.
    pub fn peak(&self) -> usize {
        self.peak
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(size: u32) -> Packet {
        Packet::for_test(size)
    }

    #[test]
    fn slots_are_reused_after_free() {
        let mut a = PacketArena::with_capacity(4);
        let x = a.alloc(pkt(1));
        let y = a.alloc(pkt(2));
        a.free(x);
        let z = a.alloc(pkt(3));
        assert_eq!(z, x, "freed slot reused");
        assert_eq!(a.get(z).size, 3);
        assert_eq!(a.get(y).size, 2);
        assert_eq!(a.live(), 2);
        assert_eq!(a.peak(), 2);
    }

    #[test]
    fn steady_state_does_not_grow() {
        let mut a = PacketArena::with_capacity(0);
        let mut held = Vec::new();
        for i in 0..100 {
            held.push(a.alloc(pkt(i)));
        }
        for _ in 0..10_000 {
            let id = held.remove(0);
            a.free(id);
            held.push(a.alloc(pkt(0)));
        }
        assert_eq!(a.slots.len(), 100);
        assert_eq!(a.peak(), 100);
    }
}
