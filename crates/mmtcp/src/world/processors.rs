//! Calling a node's packet processors and carrying out what they ask: emitted packets, timers,
//! control messages; publishing radio link reports to processors and subscribers.

use super::World;
use crate::event::{Event, RadioEvent};
use crate::ids::DirId;
use crate::proxy::{Control, PacketProcessor, ProcCtx};
use crate::radio::report::LinkReport;
use crate::sim::SimTime;
use crate::topology::AnyDirection;

impl World {
    /// Runs `f` on processor `index` with a context (`arrived_on`: the direction the packet it
    /// handles came by), then carries out what it asked for.
    pub(super) fn call_processor<R>(
        &mut self,
        now: SimTime,
        index: usize,
        arrived_on: Option<DirId>,
        f: impl FnOnce(&mut dyn PacketProcessor, &mut ProcCtx) -> R,
    ) -> R {
        let slot = &mut self.processors[index];
        let node = slot.node;
        let mut ctx = ProcCtx {
            now,
            node,
            arrived_on,
            packets: &mut self.packets,
            dirs: &self.dirs,
            interfaces: self.topology.interfaces(node),
            out: &mut self.proc_out,
            timers: &mut self.proc_timers,
            controls: &mut self.proc_controls,
        };
        let result = f(slot.processor.as_mut(), &mut ctx);
        for (at, token) in self.proc_timers.drain(..) {
            self.queue.schedule(at, Event::Processor { index: index as u32, token });
        }
        let mut controls = std::mem::take(&mut self.proc_controls);
        for control in controls.drain(..) {
            match control {
                Control::PinCwnd { flow, cwnd } => self.pin_cwnd(now, flow, cwnd),
            }
        }
        self.proc_controls = controls;
        let mut out = std::mem::take(&mut self.proc_out);
        let mut i = 0;
        while i < out.len() {
            if out[i].first {
                let run = out[i..].iter().take_while(|e| e.first).count();
                self.forward_first(now, node, &out[i..i + run]);
                i += run;
            } else {
                self.send_emitted(now, node, out[i]);
                i += 1;
            }
        }
        out.clear();
        self.proc_out = out;
        result
    }

    /// Sends the current state of radio direction `dir` to its subscribers.
    pub(super) fn publish(&mut self, now: SimTime, dir: DirId) {
        let AnyDirection::Radio(r) = &mut self.dirs[dir.0 as usize] else {
            unreachable!("reports come from radio directions")
        };
        r.reports_published += 1;
        let state = r.link_state();
        let report = LinkReport {
            time: now,
            dir,
            sinr_db: state.sinr_db,
            mcs: state.mcs,
            rate_bps: state.rate_bps,
            buffer_bytes: r.queue_bytes(),
        };
        for (d, subscriber) in &mut self.subscribers {
            if *d == dir {
                subscriber.on_report(&report);
            }
        }
        let from = self.report_listeners.partition_point(|&(d, _)| d.0 < dir.0);
        let mut k = from;
        while let Some(&(d, index)) = self.report_listeners.get(k) {
            if d != dir {
                break;
            }
            self.call_processor(now, index as usize, None, |p, ctx| p.on_report(ctx, &report));
            k += 1;
        }
    }

    pub(super) fn periodic_report(&mut self, now: SimTime, dir: DirId) {
        self.publish(now, dir);
        let AnyDirection::Radio(r) = &self.dirs[dir.0 as usize] else { unreachable!() };
        let next = now + r.report.period.0;
        if next <= self.stop_time {
            self.queue.schedule(next, Event::Radio { dir, what: RadioEvent::Report });
        }
    }
}
