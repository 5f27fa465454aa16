//! `summary.json`'s `aggregates`: the run's flows and links summed up, whatever their number
//! (docs/metrics.md, "Aggregates").
//!
//! Distributions across flows take one value per scenario flow (an MP-TCP connection counts once,
//! at the connection level); percentiles are nearest-rank (the smallest value with at least p %
//! of the values at or below it). Jain's fairness index of the goodputs is (Σx)² / (n Σx²)
//! (Jain, Chiu and Hawe, DEC-TR-301, 1984): 1 when every flow gets the same, 1/n when one flow
//! gets everything.

use super::{FlowSummary, LinkSummary};
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct Aggregates {
    flows: FlowAggregates,
    links: LinkAggregates,
}

#[derive(Debug, Serialize)]
struct FlowAggregates {
    count: usize,
    goodput_bps: Option<Distribution>,
    /// Sum of the flows' goodputs.
    total_goodput_bps: f64,
    /// Jain's index of the goodputs; null without flows or when every goodput is 0.
    jain_fairness: Option<f64>,
    bytes_delivered: u64,
    retransmitted_segments: u64,
    rto_count: u64,
    dropped_segments: u64,
    /// The flows' mean RTTs (flows with RTT samples only), ms.
    rtt_mean_ms: Option<Distribution>,
    /// The flows' 99th-percentile RTTs (flows with RTT samples only), ms.
    rtt_p99_ms: Option<Distribution>,
    /// Flows that completed (downloads and sized transfers) and their completion times.
    completed: usize,
    completion_seconds: Option<Distribution>,
}

#[derive(Debug, Serialize)]
struct LinkAggregates {
    count: usize,
    /// Packets dropped on links (both directions, every cause).
    drops: u64,
    /// The forward directions' utilisations.
    utilisation: Option<Distribution>,
}

/// A set of values summed up: mean, extremes and nearest-rank percentiles.
#[derive(Debug, PartialEq, Serialize)]
pub struct Distribution {
    pub count: usize,
    pub mean: f64,
    pub min: f64,
    pub p10: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

impl Distribution {
    /// `None` for no values; NaNs are left out.
    pub fn of(mut values: Vec<f64>) -> Option<Self> {
        values.retain(|v| !v.is_nan());
        if values.is_empty() {
            return None;
        }
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let rank = |p: f64| values[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        Some(Distribution {
            count: n,
            mean: values.iter().sum::<f64>() / n as f64,
            min: values[0],
            p10: rank(0.10),
            p50: rank(0.50),
            p90: rank(0.90),
            p99: rank(0.99),
            max: values[n - 1],
        })
    }
}

/// Jain's fairness index of `values`; `None` if there are none or all are 0.
pub fn jain_index(values: &[f64]) -> Option<f64> {
    let sum: f64 = values.iter().sum();
    let squares: f64 = values.iter().map(|v| v * v).sum();
    (squares > 0.0).then(|| sum * sum / (values.len() as f64 * squares))
}

impl Aggregates {
    pub(super) fn new(flows: &[FlowSummary<'_>], links: &[LinkSummary<'_>]) -> Self {
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
        let with_rtt = || flows.iter().filter(|f| f.rtt_ms.samples > 0);
        let completions: Vec<f64> = flows.iter().filter_map(|f| f.completion_seconds).collect();
        Aggregates {
            flows: FlowAggregates {
                count: flows.len(),
                total_goodput_bps: goodputs.iter().sum(),
                jain_fairness: jain_index(&goodputs),
                goodput_bps: Distribution::of(goodputs),
                bytes_delivered: flows.iter().map(|f| f.bytes_delivered).sum(),
                retransmitted_segments: flows.iter().map(|f| f.retransmitted_segments).sum(),
                rto_count: flows.iter().map(|f| f.rto_count).sum(),
                dropped_segments: flows.iter().map(|f| f.dropped_segments.total).sum(),
                rtt_mean_ms: Distribution::of(with_rtt().filter_map(|f| f.rtt_ms.mean).collect()),
                rtt_p99_ms: Distribution::of(with_rtt().filter_map(|f| f.rtt_ms.p99).collect()),
                completed: completions.len(),
                completion_seconds: Distribution::of(completions),
            },
            links: LinkAggregates {
                count: links.len(),
                drops: links.iter().map(|l| l.drops).sum(),
                utilisation: Distribution::of(links.iter().map(|l| l.utilisation).collect()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles_of_one_to_ten() {
        let d = Distribution::of((1..=10).rev().map(f64::from).collect()).unwrap();
        assert_eq!((d.count, d.min, d.max, d.mean), (10, 1.0, 10.0, 5.5));
        // ceil(0.1 × 10) = 1st, ceil(0.5 × 10) = 5th, ceil(0.9 × 10) = 9th, ceil(0.99 × 10) = 10th.
        assert_eq!((d.p10, d.p50, d.p90, d.p99), (1.0, 5.0, 9.0, 10.0));
    }

    #[test]
    fn nan_is_left_out_and_nothing_is_none() {
        assert_eq!(Distribution::of(vec![f64::NAN]), None);
        let d = Distribution::of(vec![f64::NAN, 4.0]).unwrap();
        assert_eq!((d.count, d.p50), (1, 4.0));
    }

    #[test]
    fn jain_index_from_equal_shares_to_one_flow_taking_all() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0, 5.0]), Some(1.0));
        assert_eq!(jain_index(&[8.0, 0.0, 0.0, 0.0]), Some(0.25));
        // (1 + 3)² / (2 × (1 + 9)) = 0.8.
        assert!((jain_index(&[1.0, 3.0]).unwrap() - 0.8).abs() < 1e-12);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
        assert_eq!(jain_index(&[]), None);
    }
}
