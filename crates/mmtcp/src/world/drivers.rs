//! What drives the links: channel processes setting a rate or a SINR, and the events of the
//! radio stack's directions.

use super::World;
use crate::channel::markov_pair::MarkovPair;
use crate::channel::{AnyChannel, ChannelProcess};
use crate::event::{Event, RadioEvent};
use crate::ids::DirId;
use crate::radio::config::ReportMode;
use crate::radio::{AnySinr, SinrProcess};
use crate::sim::{Rng, SimTime};
use crate::topology::AnyDirection;

/// What drives a channel: a rate process (links without the radio stack), a SINR process
/// (radio-stack links), or a Markov pair setting the rates of two links jointly.
pub enum DriverProcess {
    Rate(AnyChannel),
    Sinr(AnySinr),
    Pair(Box<MarkovPair>),
}

/// A channel process and the link directions it drives: `(direction, member)`, where `member`
/// picks the link of a Markov pair (0 or 1) and is 0 otherwise.
pub struct ChannelDriver {
    pub process: DriverProcess,
    pub rng: Rng,
    pub targets: Vec<(DirId, u8)>,
}

impl World {
    pub(super) fn channel_step(&mut self, now: SimTime, c: usize) {
        let driver = &mut self.channels[c];
        let next_change = match &mut driver.process {
            DriverProcess::Rate(process) => {
                let step = process.step(now, &mut driver.rng);
                for &(dir, _) in &driver.targets {
                    let AnyDirection::Wired(d) = &mut self.dirs[dir.0 as usize] else {
                        unreachable!("rate channels drive directions without the radio stack")
                    };
                    d.set_rate(&mut self.queue, &self.packets, now, step.rate_bps);
                }
                step.next_change
            }
            DriverProcess::Pair(process) => {
                let step = process.step(now, &mut driver.rng);
                for &(dir, member) in &driver.targets {
                    let AnyDirection::Wired(d) = &mut self.dirs[dir.0 as usize] else {
                        unreachable!("a Markov pair drives directions without the radio stack")
                    };
                    d.set_rate(&mut self.queue, &self.packets, now, step.rates_bps[member as usize]);
                }
                step.next_change
            }
            DriverProcess::Sinr(process) => {
                let step = process.step(now, &mut driver.rng);
                for i in 0..self.channels[c].targets.len() {
                    let dir = self.channels[c].targets[i].0;
                    let AnyDirection::Radio(r) = &mut self.dirs[dir.0 as usize] else {
                        unreachable!("SINR channels drive radio-stack directions")
                    };
                    if r.set_sinr(&mut self.queue, now, step.sinr_db) && r.report.mode == ReportMode::OnChange
                    {
                        self.publish(now, dir);
                    }
                }
                step.next_change
            }
        };
        if let Some(at) = next_change {
            self.queue.schedule(at, Event::Channel { channel: c as u32 });
        }
    }

    pub(super) fn radio_event(&mut self, now: SimTime, dir: DirId, what: RadioEvent) {
        let AnyDirection::Radio(r) = &mut self.dirs[dir.0 as usize] else {
            unreachable!("radio event for a wired direction")
        };
        let mut out = std::mem::take(&mut self.radio_out);
        r.on_event(&mut self.queue, now, what, &mut out);
        let to = r.to;
        for (pkt, cause) in out.dropped.drain(..) {
            self.drop_packet(pkt, dir, cause);
        }
        // The delivered packets have been out of the cache since they were queued: their slots,
        // then the options of those addressed to this node (which delivery reads), start loading
        // together now instead of one by one as each packet is handled.
        for &pkt in &out.delivered {
            self.packets.prefetch(pkt);
        }
        for &pkt in &out.delivered {
            self.packets.prefetch_options_for(pkt, to);
        }
        for pkt in out.delivered.drain(..) {
            self.receive(now, dir, pkt);
        }
        self.radio_out = out;
    }
}
