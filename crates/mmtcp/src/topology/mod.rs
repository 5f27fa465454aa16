//! The network the packets cross: link directions of either kind ([`AnyDirection`]) and the
//! routes between nodes.

pub mod any_direction;
pub mod routing;

pub use any_direction::AnyDirection;
