//! The time series: at each sampling interval, one row per flow, per link direction and per
//! processor column, in the entity order [`super::WorldBuilder`] gives them.

use super::builder::{FLOW_METRICS, LINK_METRICS};
use super::World;
use crate::event::Event;
use crate::metrics::{EntitySeries, Table};
use crate::sim::{Duration, SimTime};

/// The world's time series: the sample times and a long-form series per kind of entity.
#[derive(Clone, Debug, Default)]
pub struct WorldSeries {
    pub(super) times: Vec<f64>,
    pub(super) flows: EntitySeries,
    pub(super) links: EntitySeries,
    pub(super) proxies: EntitySeries,
}

impl WorldSeries {
    /// The three long-form tables, `flows`, `links` and `proxies` (docs/metrics.md).
    pub fn into_tables(self) -> Vec<Table> {
        let times = self.times;
        vec![self.flows.into_table(&times), self.links.into_table(&times), self.proxies.into_table(&times)]
    }
}

impl World {
    pub(super) fn sample(&mut self, now: SimTime) {
        let secs = self.interval.as_secs_f64();
        let mut row = std::mem::take(&mut self.row);
        let series = &mut self.series;
        series.times.push(now.as_secs_f64());
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
            let values: [f64; FLOW_METRICS.len()] = [
                goodput,
                flow.sender.cwnd() as f64,
                if ssthresh == u64::MAX { f64::NAN } else { ssthresh as f64 },
                flow.sender.pipe() as f64,
                rtt_ms,
                delivered as f64,
                f64::NAN,
            ];
            series.flows.push(&values);
        }
        for c in &mut self.connections {
            let delivered = c.data_rx.stats.bytes_delivered;
            let goodput = (delivered - c.delivered_at_last_sample) as f64 * 8.0 / secs;
            c.delivered_at_last_sample = delivered;
            let n = f64::NAN;
            let values: [f64; FLOW_METRICS.len()] =
                [goodput, n, n, n, n, delivered as f64, c.data_rx.held() as f64];
            series.flows.push(&values);
        }
        for (d, dir) in self.dirs.iter().enumerate() {
            let carried = dir.carried_bytes();
            let throughput = (carried - self.dir_bytes_at_last_sample[d]) as f64 * 8.0 / secs;
            self.dir_bytes_at_last_sample[d] = carried;
            let (sinr_db, mcs) = match dir.radio() {
                Some(r) => {
                    let state = r.link_state();
                    (state.sinr_db, state.mcs.map_or(f64::NAN, f64::from))
                }
                None => (f64::NAN, f64::NAN),
            };
            let values: [f64; LINK_METRICS.len()] = [
                dir.queue_bytes() as f64,
                dir.queue_packets() as f64,
                dir.rate_bps() as f64,
                throughput,
                sinr_db,
                mcs,
            ];
            series.links.push(&values);
        }
        for p in &mut self.processors {
            row.clear();
            p.processor.sample(&mut row);
            for v in &row {
                series.proxies.push(std::slice::from_ref(v));
            }
        }
        if let Some((mut meter, entries)) = self.burst.take() {
            let total = entries.iter().map(|&e| self.delivered(e)).sum();
            meter.observe(now, total);
            self.burst = Some((meter, entries));
        }
        self.row = row;
        let next = now + self.interval;
        if next <= self.stop_time {
            self.queue.schedule(next, Event::Sample);
        }
    }
}
