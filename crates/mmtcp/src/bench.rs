//! The engine micro-benchmark: the bare event queue under the event mix of a real run.
//!
//! Link directions move back-to-back packets the way `net::link` schedules them — a
//! serialisation event per packet, and an arrival event for the head of the propagation pipe
//! only — while flows re-arm retransmission and delayed-ACK timers tens to hundreds of
//! milliseconds ahead, so the heap holds near and far events as in a real run. The handlers only
//! schedule the follow-up events; what is measured is the queue and the dispatch.

use crate::event::Event;
use crate::event::TcpTimer;
use crate::ids::DirId;
use crate::ids::PacketId;
use crate::sim::{Duration, EventQueue, SimTime};
use std::hint::black_box;
use std::time::Instant;

/// Links in the synthetic chain and flows arming timers.
const DIRS: u32 = 8;
const FLOWS: u32 = 16;

/// Runs `events` events; returns (events run, wall seconds).
pub fn run_engine(events: u64) -> (u64, f64) {
    let mut q: EventQueue<Event> = EventQueue::with_capacity(1024);
    let serialise = Duration::from_nanos(12_000);
    let propagate = Duration::from_millis(5);
    for d in 0..DIRS {
        q.schedule(
            SimTime::ZERO + Duration::from_nanos(d as u64),
            Event::TxDone { dir: DirId(d), generation: 0 },
        );
    }
    for f in 0..FLOWS {
        q.schedule(
            SimTime::ZERO + Duration::from_millis(200),
            Event::Tcp { flow: f, timer: TcpTimer::SenderRto },
        );
        q.schedule(
            SimTime::ZERO + Duration::from_millis(40),
            Event::Tcp { flow: f, timer: TcpTimer::ReceiverDelayedAck },
        );
    }
    // Packets in each direction's pipe; packets in a pipe are spaced by one serialisation time.
    let mut in_pipe = [0u32; DIRS as usize];
    let start = Instant::now();
    let mut done = 0u64;
    let mut checksum = 0u64;
    while done < events {
        let Some((now, event)) = q.pop() else { break };
        done += 1;
        match event {
            Event::TxDone { dir, generation } => {
                let pipe = &mut in_pipe[dir.0 as usize];
                if *pipe == 0 {
                    q.schedule(now + propagate, Event::Arrive { dir });
                }
                *pipe += 1;
                q.schedule(now + serialise, Event::TxDone { dir, generation: generation.wrapping_add(1) });
            }
            Event::Arrive { dir } => {
                let pipe = &mut in_pipe[dir.0 as usize];
                *pipe -= 1;
                if *pipe > 0 {
                    q.schedule(now + serialise, Event::Arrive { dir });
                }
                // Every eighth arrival is an ACK that pushes a flow's RTO further out (a stale
                // event, as the restartable timer leaves behind) and re-arms a delayed ACK.
                if done % 8 == 0 {
                    let flow = (done / 8 % FLOWS as u64) as u32;
                    q.schedule(
                        now + Duration::from_millis(40),
                        Event::Tcp { flow, timer: TcpTimer::ReceiverDelayedAck },
                    );
                }
                checksum = checksum.wrapping_add(dir.0 as u64);
            }
            Event::Tcp { flow, timer } => {
                if timer == TcpTimer::SenderRto {
                    q.schedule(now + Duration::from_millis(200), Event::Tcp { flow, timer });
                }
            }
            Event::LateArrive { pkt: PacketId(p), .. } => checksum = checksum.wrapping_add(p as u64),
            Event::Channel { .. }
            | Event::Radio { .. }
            | Event::App { .. }
            | Event::Processor { .. }
            | Event::Sample
            | Event::SteadyFrom => {}
        }
    }
    black_box(checksum);
    (done, start.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_the_requested_number_of_events() {
        let (done, wall) = run_engine(100_000);
        assert_eq!(done, 100_000);
        assert!(wall >= 0.0);
    }
}
