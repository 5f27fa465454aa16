//! The time series: one row per sampling interval, in the column order
//! [`super::WorldBuilder`] names.

use super::World;
use crate::event::Event;
use crate::sim::{Duration, SimTime};

impl World {
    pub(super) fn sample(&mut self, now: SimTime) {
        let secs = self.interval.as_secs_f64();
        let mut row = std::mem::take(&mut self.row);
        row.clear();
        row.push(now.as_secs_f64());
        for flow in &mut self.flows {
            let delivered = flow.receiver.stats.bytes_delivered;
            let goodput = (delivered - flow.delivered_at_last_sample) as f64 * 8.0 / secs;
            flow.delivered_at_last_sample = delivered;
            let s = &mut flow.sender.stats;
            let rtt_ms = if s.rtt_interval_count > 0 {
                s.rtt_interval_sum.as_millis_f64() / s.rtt_interval_count as f64
            } else {
                f64::NAN
            };
            s.rtt_interval_sum = Duration::ZERO;
            s.rtt_interval_count = 0;
            let ssthresh = flow.sender.ssthresh();
            row.extend([
                goodput,
                flow.sender.cwnd() as f64,
                if ssthresh == u64::MAX { f64::NAN } else { ssthresh as f64 },
                flow.sender.pipe() as f64,
                rtt_ms,
                delivered as f64,
            ]);
        }
        for c in &mut self.connections {
            let delivered = c.data_rx.stats.bytes_delivered;
            let goodput = (delivered - c.delivered_at_last_sample) as f64 * 8.0 / secs;
            c.delivered_at_last_sample = delivered;
            row.extend([goodput, delivered as f64, c.data_rx.held() as f64]);
        }
        for (d, dir) in self.dirs.iter().enumerate() {
            let carried = dir.carried_bytes();
            let throughput = (carried - self.dir_bytes_at_last_sample[d]) as f64 * 8.0 / secs;
            self.dir_bytes_at_last_sample[d] = carried;
            row.extend([
                dir.queue_bytes() as f64,
                dir.queue_packets() as f64,
                dir.rate_bps() as f64,
                throughput,
            ]);
            if let Some(r) = dir.radio() {
                let state = r.link_state();
                row.extend([state.sinr_db, state.mcs.map_or(f64::NAN, f64::from)]);
            }
        }
        for p in &mut self.processors {
            p.processor.sample(&mut row);
        }
        if let Some((mut meter, entries)) = self.burst.take() {
            let total = entries.iter().map(|&e| self.delivered(e)).sum();
            meter.observe(now, total);
            self.burst = Some((meter, entries));
        }
        self.series.push_row(row.iter().copied());
        self.row = row;
        let next = now + self.interval;
        if next <= self.stop_time {
            self.queue.schedule(next, Event::Sample);
        }
    }
}
