//! The events of a simulation: small `Copy` values addressed to component ids.

use crate::net::PacketId;
use crate::transport::tcp::TcpTimer;

/// Index of a link direction (a transmitter with its queue and propagation pipe).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DirId(pub u32);

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// The packet being serialised on a direction is done. `generation` tells stale events
    /// (scheduled before a rate change) apart.
    TxDone { dir: DirId, generation: u32 },
    /// The head of a direction's propagation pipe reaches the far node.
    Arrive { dir: DirId },
    /// A packet held back by the reordering impairment reaches the far node.
    LateArrive { dir: DirId, pkt: PacketId },
    /// A channel process changes its rate.
    Channel { channel: u32 },
    /// A TCP timer of a flow.
    Tcp { flow: u32, timer: TcpTimer },
    /// A flow's application wakes up (start, rate-limited write, on/off switch).
    App { flow: u32 },
    /// Time to record a row of the time series.
    Sample,
}

const _: () = assert!(std::mem::size_of::<Event>() <= 16);
