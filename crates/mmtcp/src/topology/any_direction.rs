//! A link direction of either kind: a wired/rate-driven [`Direction`] or a radio direction with
//! the full MAC/HARQ/RLC stack. Forwarding, sampling and the summary see only this interface.

use crate::event::Event;
use crate::ids::DirId;
use crate::ids::{NodeId, PacketId};
use crate::net::link::{Direction, DirectionStats};
use crate::radio::direction::RadioDirection;
use crate::sim::{EventQueue, SimTime};

/// A radio direction (about 1.7 kB) is boxed, so that the vector of directions indexed on every
/// packet keeps wired ones (about 300 B) close together; a radio direction's slot work outweighs
/// the indirection. (Boxing the wired variant too, as clippy suggests, would put an indirection
/// on every wired hop.)
#[allow(clippy::large_enum_variant)]
pub enum AnyDirection {
    Wired(Direction),
    Radio(Box<RadioDirection>),
}

impl AnyDirection {
    pub fn id(&self) -> DirId {
        match self {
            AnyDirection::Wired(d) => d.id,
            AnyDirection::Radio(r) => r.id,
        }
    }

    pub fn from(&self) -> NodeId {
        match self {
            AnyDirection::Wired(d) => d.from,
            AnyDirection::Radio(r) => r.from,
        }
    }

    pub fn to(&self) -> NodeId {
        match self {
            AnyDirection::Wired(d) => d.to,
            AnyDirection::Radio(r) => r.to,
        }
    }

    pub fn stats(&self) -> &DirectionStats {
        match self {
            AnyDirection::Wired(d) => &d.stats,
            AnyDirection::Radio(r) => &r.stats,
        }
    }

    pub fn queue_bytes(&self) -> u64 {
        match self {
            AnyDirection::Wired(d) => d.queue_bytes(),
            AnyDirection::Radio(r) => r.queue_bytes(),
        }
    }

    pub fn queue_packets(&self) -> usize {
        match self {
            AnyDirection::Wired(d) => d.queue_packets(),
            AnyDirection::Radio(r) => r.queue_packets(),
        }
    }

    /// Free bytes in the buffer a new packet joins (radio: RLC's SDU buffer); `u64::MAX` for a
    /// wired queue limited in packets.
    pub fn room_bytes(&self) -> u64 {
        match self {
            AnyDirection::Wired(d) => d.room_bytes(),
            AnyDirection::Radio(r) => r.room_bytes(),
        }
    }

    /// The rate the direction can carry now, bit/s.
    pub fn rate_bps(&self) -> u64 {
        match self {
            AnyDirection::Wired(d) => d.rate_bps(),
            AnyDirection::Radio(r) => r.rate_bps(),
        }
    }

    /// The share of the direction's capacity it used, in [0, 1]: wired, bits sent ÷ ∫ rate dt;
    /// radio, the capacity its transport blocks occupied ÷ the capacity of its own slots
    /// ([`RadioDirection::utilisation`]). 0 when the capacity was 0.
    pub fn utilisation(&self) -> f64 {
        match self {
            AnyDirection::Wired(d) => {
                let capacity = d.stats.capacity_bits();
                if capacity > 0.0 {
                    d.stats.bytes_sent as f64 * 8.0 / capacity
                } else {
                    0.0
                }
            }
            AnyDirection::Radio(r) => r.utilisation(),
        }
    }

    /// Bytes this direction has carried to its far end (wired: serialised; radio: SDUs the RLC
    /// receiver delivered), for the throughput time series.
    pub fn carried_bytes(&self) -> u64 {
        match self {
            AnyDirection::Wired(d) => d.stats.bytes_sent,
            AnyDirection::Radio(r) => r.radio.sdu_bytes_delivered,
        }
    }

    pub fn radio(&self) -> Option<&RadioDirection> {
        match self {
            AnyDirection::Wired(_) => None,
            AnyDirection::Radio(r) => Some(r),
        }
    }

    /// A packet of `size` bytes arrives for transmission; returned if the buffer is full.
    #[inline]
    pub fn admit(
        &mut self,
        q: &mut EventQueue<Event>,
        now: SimTime,
        pkt: PacketId,
        size: u32,
    ) -> Result<(), PacketId> {
        match self {
            AnyDirection::Wired(d) => d.admit(q, now, pkt, size),
            AnyDirection::Radio(r) => r.admit(q, now, pkt, size),
        }
    }

    /// Like [`Self::admit`], but at `position` among the packets waiting (0: the head): a
    /// proxy's priority packets. `Ok(true)` if queued, `Ok(false)` if transmitted at once.
    pub fn admit_at(
        &mut self,
        q: &mut EventQueue<Event>,
        now: SimTime,
        pkt: PacketId,
        size: u32,
        position: usize,
    ) -> Result<bool, PacketId> {
        match self {
            AnyDirection::Wired(d) => d.admit_at(q, now, pkt, size, position),
            AnyDirection::Radio(r) => r.admit_at(q, now, pkt, size, position),
        }
    }

    pub fn finish(&mut self, now: SimTime) {
        match self {
            AnyDirection::Wired(d) => d.finish(now),
            AnyDirection::Radio(r) => r.finish(now),
        }
    }
}
