//! The ids components are named by: plain indices, `Copy`, small, so that events and packets
//! that carry them stay small. Each indexes one vector of the world.

/// Index of a node in the topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

/// Index of a flow (one connection and its application).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(pub u32);

/// Index of a link direction (a transmitter with its queue and propagation pipe).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DirId(pub u32);

/// Index of a packet's slot in the packet arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PacketId(pub u32);

/// Index of a route (a list of link directions) in the world's route table. A packet carries
/// the route it follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RouteId(pub u32);

impl RouteId {
    /// No route: the packet finds its way from wherever it is (a processor sent it through an
    /// interface of its choice).
    pub const NONE: RouteId = RouteId(u32::MAX);
}

/// Index of what a packet carries beyond its header (TCP options, side data) in the packet
/// arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExtId(pub u32);

impl ExtId {
    /// The packet carries nothing beyond its header.
    pub const NONE: ExtId = ExtId(u32::MAX);
}
