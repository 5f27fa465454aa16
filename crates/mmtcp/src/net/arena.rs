//! The packet arena: packets live in one vector and are named by index.
//!
//! Freed slots go on a free list and are reused, so once a run has reached its peak number of
//! packets in flight, creating and destroying packets allocates nothing. `PacketId`s are plain
//! `u32`s, which keeps events small.
//!
//! What only some packets carry — TCP options (SACK blocks, MP-TCP's DSS) and side data (bytes
//! such as a coded packet's coefficients) — sits in a second vector of extensions, named by the
//! packet's `ext`, recycled the same way: freed with the packet (side data keeps its buffer for
//! the next user), copied when the packet is duplicated.
//!
//! An extension is read long after it was written (an MP-TCP segment's DSS at the receiver, a
//! few milliseconds and thousands of packets later), so it is usually out of the cache: each
//! extension's options start a cache line, which is all a segment without SACK blocks touches
//! ([`TcpOptions`]' layout), and side data, which only a few processors use, sits in a vector
//! of its own that runs without side data never touch.

use super::packet::{Packet, TcpOptions};
use crate::ids::{ExtId, NodeId, PacketId};

/// A packet's TCP options, starting a cache line (see the module documentation).
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Default)]
struct LineOptions(TcpOptions);

#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<u32>,
    /// The extensions' options and, in step, their side data.
    exts: Vec<LineOptions>,
    sides: Vec<Vec<u8>>,
    /// Whether any packet was ever given side data: until then no side buffer needs clearing.
    side_used: bool,
    free_exts: Vec<u32>,
    live: usize,
    peak: usize,
}

impl PacketArena {
    pub fn with_capacity(n: usize) -> Self {
        PacketArena { slots: Vec::with_capacity(n), free: Vec::with_capacity(n), ..Default::default() }
    }

    /// Stores `packet` (whose `ext` must be [`ExtId::NONE`]) and returns its id.
    #[inline]
    pub fn alloc(&mut self, packet: Packet) -> PacketId {
        debug_assert_eq!(packet.ext, ExtId::NONE, "extensions are the arena's to give");
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

    /// Stores `packet` with TCP `options` (none: the same as [`Self::alloc`]); its size grows by
    /// the options' bytes. (A new packet has no options to replace: this is [`Self::set_options`]
    /// without reading the old ones.)
    #[inline]
    pub fn alloc_with(&mut self, mut packet: Packet, options: &TcpOptions) -> PacketId {
        if options.is_empty() {
            return self.alloc(packet);
        }
        packet.size = (u32::from(packet.size) + options.bytes()) as u16;
        let id = self.alloc(packet);
        let ext = self.ext_of(id);
        self.exts[ext.0 as usize].0.assign(options);
        id
    }

    /// Replaces the TCP options of `id`, adjusting its size by the difference in option bytes.
    pub fn set_options(&mut self, id: PacketId, options: &TcpOptions) {
        let old = self.options(id).bytes();
        let ext = self.ext_of(id);
        self.exts[ext.0 as usize].0.assign(options);
        let p = &mut self.slots[id.0 as usize];
        p.size = (u32::from(p.size) - old + options.bytes()) as u16;
    }

    /// The TCP options `id` carries ([`TcpOptions::NONE`] if none).
    #[inline]
    pub fn options(&self, id: PacketId) -> &TcpOptions {
        match self.slots[id.0 as usize].ext {
            ExtId::NONE => &TcpOptions::NONE,
            ext => &self.exts[ext.0 as usize].0,
        }
    }

    /// A copy of the TCP options `id` carries, which reads only the SACK blocks in use.
    #[inline]
    pub fn copy_options(&self, id: PacketId) -> TcpOptions {
        let mut options = TcpOptions::NONE;
        options.assign(self.options(id));
        options
    }

    /// The side data `id` carries (empty if none).
    pub fn side_data(&self, id: PacketId) -> &[u8] {
        match self.slots[id.0 as usize].ext {
            ExtId::NONE => &[],
            ext => &self.sides[ext.0 as usize],
        }
    }

    /// The side data of `id`, to fill; its buffer is reused from freed packets.
    pub fn side_data_mut(&mut self, id: PacketId) -> &mut Vec<u8> {
        let ext = self.ext_of(id);
        self.side_used = true;
        &mut self.sides[ext.0 as usize]
    }

    /// The extension of `id`, given one if it has none.
    fn ext_of(&mut self, id: PacketId) -> ExtId {
        let current = self.slots[id.0 as usize].ext;
        if current != ExtId::NONE {
            return current;
        }
        let ext = match self.free_exts.pop() {
            Some(i) => ExtId(i),
            None => {
                self.exts.push(LineOptions::default());
                self.sides.push(Vec::new());
                ExtId(u32::try_from(self.exts.len() - 1).expect("fewer than 2^32 extensions"))
            }
        };
        self.slots[id.0 as usize].ext = ext;
        ext
    }

    /// A copy of `id` (header, options and side data) under a new id.
    pub fn duplicate(&mut self, id: PacketId) -> PacketId {
        let header = Packet { ext: ExtId::NONE, ..self.slots[id.0 as usize] };
        let copy = self.alloc(header);
        let ext = self.slots[id.0 as usize].ext;
        if ext != ExtId::NONE {
            let (from, to) = (ext.0 as usize, self.ext_of(copy).0 as usize);
            self.exts[to] = self.exts[from];
            let side = std::mem::take(&mut self.sides[from]);
            self.sides[to].clone_from(&side);
            self.sides[from] = side;
        }
        copy
    }

    /// Returns the slot (and its extension) to the free lists. Using `id` afterwards is a logic
    /// error.
    #[inline]
    pub fn free(&mut self, id: PacketId) {
        self.live -= 1;
        self.free.push(id.0);
        let ext = std::mem::replace(&mut self.slots[id.0 as usize].ext, ExtId::NONE);
        if ext != ExtId::NONE {
            self.exts[ext.0 as usize].0.clear();
            if self.side_used {
                self.sides[ext.0 as usize].clear();
            }
            self.free_exts.push(ext.0);
        }
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.0 as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }

    /// Starts loading packet `id` into the cache, for a caller that will read it soon: a
    /// packet's slot was last touched when it left the previous node, often thousands of
    /// packets ago, and a load that misses stalls the work of the event that needs it.
    #[inline]
    pub fn prefetch(&self, id: PacketId) {
        prefetch(&self.slots[id.0 as usize]);
    }

    /// Starts loading the options of packet `id` if it is addressed to `node` and carries any:
    /// delivery reads them. Reads the packet's slot (prefetch it first).
    #[inline]
    pub fn prefetch_options_for(&self, id: PacketId, node: NodeId) {
        let packet = &self.slots[id.0 as usize];
        if packet.dst == node && packet.ext != ExtId::NONE {
            prefetch(&self.exts[packet.ext.0 as usize]);
        }
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

/// Asks the CPU to load the cache line holding the start of `value` (a hint: nothing waits for
/// it, and it never changes what the program computes).
#[inline]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` is unsafe only because it needs SSE, which every x86_64 CPU has; a
    // prefetch reads nothing into the program and cannot fault, and `value` is a valid reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{SackBlocks, SeqRange};

    fn pkt(size: u32) -> Packet {
        Packet::for_test(size)
    }

    fn sack(start: u64, end: u64) -> TcpOptions {
        let mut sack = SackBlocks::default();
        sack.push(SeqRange::new(start, end));
        TcpOptions { sack, dss: None }
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
            held.push(a.alloc_with(pkt(i), &sack(0, 10)));
        }
        for _ in 0..10_000 {
            let id = held.remove(0);
            a.free(id);
            let id = a.alloc_with(pkt(0), &sack(0, 10));
            a.side_data_mut(id).extend_from_slice(&[1, 2, 3]);
            held.push(id);
        }
        assert_eq!(a.slots.len(), 100);
        assert_eq!(a.exts.len(), 100);
        assert_eq!(a.peak(), 100);
    }

    #[test]
    fn options_add_their_bytes_and_leave_with_the_packet() {
        let mut a = PacketArena::with_capacity(4);
        let plain = a.alloc_with(pkt(52), &TcpOptions::NONE);
        assert_eq!(a.get(plain).ext, ExtId::NONE, "no options: no extension");
        assert_eq!(a.options(plain), &TcpOptions::NONE);
        let with = a.alloc_with(pkt(52), &sack(100, 200));
        assert_eq!(a.get(with).size, 52 + 12);
        assert_eq!(a.options(with).sack.as_slice(), &[SeqRange::new(100, 200)]);
        a.set_options(with, &TcpOptions::NONE);
        assert_eq!(a.get(with).size, 52, "replacing the options adjusts the size");
        a.set_options(with, &sack(1, 2));
        a.free(with);
        let reused = a.alloc(pkt(52));
        assert_eq!(a.options(reused), &TcpOptions::NONE, "the next packet in the slot has none");
        let next = a.alloc_with(pkt(52), &TcpOptions::NONE);
        a.side_data_mut(next).push(7);
        assert_eq!(a.side_data(next), &[7], "the freed extension is reused, cleared");
        assert_eq!(a.exts.len(), 1);
    }

    #[test]
    fn a_duplicate_carries_its_own_copy_of_options_and_side_data() {
        let mut a = PacketArena::with_capacity(4);
        let original = a.alloc_with(pkt(60), &sack(5, 9));
        a.side_data_mut(original).extend_from_slice(&[4, 5, 6]);
        let copy = a.duplicate(original);
        assert_ne!(copy, original);
        assert_ne!(a.get(copy).ext, a.get(original).ext);
        assert_eq!(a.get(copy).size, a.get(original).size);
        assert_eq!(a.options(copy), a.options(original));
        a.side_data_mut(original).push(7);
        assert_eq!(a.side_data(copy), &[4, 5, 6], "changing one leaves the other");
        a.free(original);
        assert_eq!(a.side_data(copy), &[4, 5, 6]);
        let plain = a.alloc(pkt(52));
        let plain_copy = a.duplicate(plain);
        assert_eq!(a.get(plain_copy).ext, ExtId::NONE);
    }
}
