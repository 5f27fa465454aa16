//! The COTAG header of a coded packet, carried as the packet's side data.
//!
//! Wu et al. §4.3 has the gateway "attach a label k" and a priority to every coded packet; a
//! random linear code also needs the coefficient vector over the generation's sources (Ho et al.
//! 2006), and the receiver the generation's size. In the simulation the header travels as side
//! data ([`crate::net::PacketArena::side_data_mut`]): a marker byte, the priority, the label
//! (cohort) and the number of sources n, then the n coefficients. The bytes it adds on the wire
//! ([`wire_bytes`]: the coefficients, or a seed of their generator, [`HeaderForm`]) are counted
//! in the packet's size when the gateway's `header_on_wire` is on.

use crate::ids::PacketId;
use crate::net::PacketArena;
use serde::{Deserialize, Serialize};

/// First side-data byte of a COTAG packet (other side data never starts with it by chance:
/// COTAG's processors are the only writers of side data on their flows).
const MARKER: u8 = 0xC7;
/// Marker, priority, label (8), source count (2).
const FIXED: usize = 12;

/// What a COTAG packet is (Wu et al. Algorithms 1–3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// One of the n_k combinations the gateway sends first ("high priority").
    High,
    /// A redundant combination sent in spare time ("low priority", taking).
    Low,
    /// No data: tells the nodes downstream that the gateway has moved past a label when no packet
    /// carries it (ours; see the gateway's `label_beacons`).
    Beacon,
}

/// A coded packet's label, priority and generation size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodedHeader {
    /// The cohort: packets that reached the gateway in [(label − 1)T, label·T).
    pub label: u64,
    pub priority: Priority,
    /// Sources in the packet's (flow, cohort) generation: the length of its coefficient vector.
    pub sources: u16,
}

/// How a coded packet names its coefficients on the wire (`header` of `cotag_gateway`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HeaderForm {
    /// The n coefficients themselves, one byte each (GF(2⁸)): the header grows with the
    /// generation, and about doubles a 128-byte packet of a 100-source generation.
    #[default]
    Coefficients,
    /// A 16-bit seed from which the receiver regenerates the coefficients with the sender's
    /// pseudo-random generator, as RFC 8681's sliding-window RLC codes carry a 16-bit Repair_Key
    /// (§4.1.1.2) instead of the coefficients. Ours: the paper says nothing of the header's
    /// encoding. In the simulation the coefficients still travel as side data; only the size on
    /// the wire changes.
    Seed,
}

/// Bytes of the header's fixed part on the wire: a 4-byte label (wrapping in a real network,
/// where only neighbouring labels are compared), a byte of priority and 2 bytes of source count.
const FIXED_ON_WIRE: u32 = 7;

/// Bytes the header adds to a packet on the wire: the fixed part, then the n coefficients or
/// a 2-byte seed.
pub const fn wire_bytes(form: HeaderForm, sources: u16) -> u32 {
    FIXED_ON_WIRE
        + match form {
            HeaderForm::Coefficients => sources as u32,
            HeaderForm::Seed => 2,
        }
}

/// Bytes of a beacon's header on the wire: the fixed part, no coefficients.
pub const BEACON_WIRE_BYTES: u32 = FIXED_ON_WIRE;

/// Writes `header` and `coefficients` (`header.sources` of them) as `pkt`'s side data.
pub fn write(packets: &mut PacketArena, pkt: PacketId, header: CodedHeader, coefficients: &[u8]) {
    debug_assert_eq!(coefficients.len(), usize::from(header.sources));
    let side = packets.side_data_mut(pkt);
    side.clear();
    side.push(MARKER);
    side.push(match header.priority {
        Priority::High => 0,
        Priority::Low => 1,
        Priority::Beacon => 2,
    });
    side.extend_from_slice(&header.label.to_le_bytes());
    side.extend_from_slice(&header.sources.to_le_bytes());
    side.extend_from_slice(coefficients);
}

/// The header and coefficients of a COTAG packet; `None` for any other packet.
pub fn read(side: &[u8]) -> Option<(CodedHeader, &[u8])> {
    if side.len() < FIXED || side[0] != MARKER {
        return None;
    }
    let priority = match side[1] {
        0 => Priority::High,
        1 => Priority::Low,
        2 => Priority::Beacon,
        _ => return None,
    };
    let label = u64::from_le_bytes(side[2..10].try_into().expect("8 bytes"));
    let sources = u16::from_le_bytes([side[10], side[11]]);
    let coefficients = &side[FIXED..];
    (coefficients.len() == usize::from(sources))
        .then_some((CodedHeader { label, priority, sources }, coefficients))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId};
    use crate::net::{Packet, Side, TcpFlags, TcpHeader};
    use crate::sim::SimTime;

    fn packet(arena: &mut PacketArena) -> PacketId {
        let tcp = TcpHeader { seq: 0, ack: 0, window: 0, len: 100, flags: TcpFlags::ACK };
        arena.alloc(Packet::new(
            FlowId(0),
            (NodeId(0), NodeId(1)),
            Side::Receiver,
            tcp,
            (SimTime::ZERO, SimTime::ZERO),
        ))
    }

    #[test]
    fn test_header_round_trips_with_its_coefficients() {
        let mut arena = PacketArena::with_capacity(4);
        let pkt = packet(&mut arena);
        for (priority, label) in [(Priority::High, 1), (Priority::Low, u64::MAX), (Priority::Beacon, 7)] {
            let coefficients: &[u8] = if priority == Priority::Beacon { &[] } else { &[3, 0, 255] };
            let header = CodedHeader { label, priority, sources: coefficients.len() as u16 };
            write(&mut arena, pkt, header, coefficients);
            assert_eq!(read(arena.side_data(pkt)), Some((header, coefficients)));
        }
    }

    #[test]
    fn test_other_side_data_is_not_a_header() {
        assert_eq!(read(&[]), None);
        assert_eq!(read(&[0; 12]), None, "no marker");
        let mut side = vec![MARKER, 0];
        side.extend_from_slice(&5u64.to_le_bytes());
        side.extend_from_slice(&3u16.to_le_bytes());
        side.extend_from_slice(&[1, 2]);
        assert_eq!(read(&side), None, "three sources announced, two coefficients");
        side.push(9);
        assert!(read(&side).is_some());
        side[1] = 3;
        assert_eq!(read(&side), None, "no such priority");
    }

    #[test]
    fn test_wire_bytes_count_one_byte_per_coefficient() {
        assert_eq!(wire_bytes(HeaderForm::Coefficients, 0), 7);
        assert_eq!(wire_bytes(HeaderForm::Coefficients, 20), 27);
    }

    #[test]
    fn test_a_seed_header_is_two_bytes_past_the_fixed_part_whatever_the_generation() {
        assert_eq!(wire_bytes(HeaderForm::Seed, 1), 9);
        assert_eq!(wire_bytes(HeaderForm::Seed, 500), 9);
    }
}
