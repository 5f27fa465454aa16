//! The discrete-event core: time, the event queue, restartable timers and random streams.

pub mod distribution;
pub mod queue;
pub mod rng;
pub mod time;
pub mod timer;

pub use distribution::DurationDistribution;
pub use queue::EventQueue;
pub use rng::Rng;
pub use time::{Duration, SimTime, PS_PER_SEC};
pub use timer::{Fired, Timer};
