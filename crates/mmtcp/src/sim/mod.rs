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

/// Test helper for piecewise-constant processes (channels, SINR processes): calls `step` at time
/// zero and then at each change it announces, as the engine does, and returns the values, until
/// `max_steps` values, a value that never changes again, or a change at or after `end`.
#[cfg(test)]
pub(crate) fn drive_steps<S>(
    max_steps: usize,
    end: SimTime,
    mut step: impl FnMut(SimTime) -> (S, Option<SimTime>),
) -> Vec<(SimTime, S)> {
    let mut steps = Vec::new();
    let mut now = SimTime::ZERO;
    while now < end && steps.len() < max_steps {
        let (value, next_change) = step(now);
        steps.push((now, value));
        match next_change {
            Some(t) => {
                assert!(t > now, "next change {t} not after {now}");
                now = t;
            }
            None => break,
        }
    }
    steps
}
