//! The events of a simulation: small `Copy` values addressed to component ids.

use crate::ids::{DirId, PacketId};

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// The packet being serialised on a direction is done. `generation` tells stale events
    /// (scheduled before a rate change) apart.
    TxDone { dir: DirId, generation: u32 },
    /// The head of a direction's propagation pipe reaches the far node.
    Arrive { dir: DirId },
    /// A packet held back by the reordering impairment reaches the far node.
    LateArrive { dir: DirId, pkt: PacketId },
    /// A channel process changes its rate or SINR.
    Channel { channel: u32 },
    /// Something happens in the radio stack of a direction.
    Radio { dir: DirId, what: RadioEvent },
    /// A TCP timer of a flow.
    Tcp { flow: u32, timer: TcpTimer },
    /// A flow's application wakes up (start, rate-limited write, on/off switch).
    App { flow: u32 },
    /// A timer of packet processor `index` (in `World::processors`), with the processor's token.
    Processor { index: u32, token: u32 },
    /// Time to record a row of the time series.
    Sample,
    /// `metrics.steady_from`: the steady-state window starts; every flow's delivered bytes are
    /// noted.
    SteadyFrom,
}

/// Which timer of a flow's TCP endpoints fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpTimer {
    /// The sender's retransmission timer (also retransmits SYN and SYN-ACK).
    SenderRto,
    /// The sender's pacing timer: the next segment may leave.
    SenderPacing,
    /// The receiver's delayed-ACK timer.
    ReceiverDelayedAck,
    /// The receiver's SYN retransmission (when the receiver opens the connection).
    ReceiverSyn,
}

/// The events of a radio direction ([`crate::radio::direction::RadioDirection`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RadioEvent {
    /// A MAC slot begins.
    Slot,
    /// The head of the decoded-TB pipe reaches the receiver.
    Decode,
    /// The head of the STATUS-report pipe reaches the RLC transmitter.
    Status,
    /// An RLC timer (poll retransmit, reassembly, status prohibit) may be due.
    Timer,
    /// Time for a periodic link report.
    Report,
    /// T310 may expire (radio link failure).
    Rlf,
}

const _: () = assert!(std::mem::size_of::<Event>() <= 16);
