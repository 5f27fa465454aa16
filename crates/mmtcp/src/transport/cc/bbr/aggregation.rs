//! ACK-aggregation estimate (tcp_bbr.c `bbr_update_ack_aggregation`, Linux ≥ 5.1): how much
//! more data ACKs report delivered than the bandwidth estimate accounts for, so that cwnd can
//! keep data flowing through the silences between aggregated ACKs (Wi-Fi, cellular, GRO).
//!
//! ```text
//! epoch: starts when ACKs fall behind the estimate; acked = bytes (S)ACKed since it started
//! expected = bw × (time of latest delivery − epoch start)
//! extra    = min(acked − expected, cwnd)
//! extra_acked = max of `extra` over the current and the previous 5-round slot (5–10 rounds)
//! ```
//!
//! The epoch restarts when `acked ≤ expected` (ACKs arrive no faster than the estimate) or when
//! it has counted 2^20 segments. BBR adds `extra_acked`, capped at 100 ms of bandwidth, to its
//! cwnd target once the pipe is full (see `Bbr::aggregation_segments`). Byte counts here stand
//! for Linux's packet counts; the 20-bit counter's saturation and the epoch reset threshold
//! are scaled by the MSS.

use crate::sim::{SimTime, PS_PER_SEC};

/// Rounds per slot of the two-slot max filter (tcp_bbr.c `bbr_extra_acked_win_rtts`): the
/// estimate covers the last 5 to 10 round trips.
const EXTRA_ACKED_WINDOW_ROUNDS: u32 = 5;
/// The slot-age counter saturates here (Linux keeps it in a 5-bit field).
const EXTRA_ACKED_ROUNDS_MAX: u32 = 0x1F;
/// An epoch that has counted this many segments restarts (tcp_bbr.c
/// `bbr_ack_epoch_acked_reset_thresh`).
const ACK_EPOCH_RESET_SEGMENTS: u64 = 1 << 20;
/// The epoch's acked count saturates at this many segments (Linux's 20-bit field).
const ACK_EPOCH_ACKED_MAX_SEGMENTS: u64 = 0xF_FFFF;

/// The estimator's state.
#[derive(Clone, Debug)]
pub(super) struct AckAggregation {
    /// Start of the current epoch.
    epoch_start: SimTime,
    /// Bytes (S)ACKed in the current epoch.
    epoch_acked: u64,
    /// Round starts since the current slot was opened.
    slot_rounds: u32,
    /// The slot being filled.
    slot: usize,
    /// Largest extra bytes seen in each slot.
    pub(super) extra: [u64; 2],
}

impl AckAggregation {
    pub fn new(now: SimTime) -> Self {
        AckAggregation { epoch_start: now, epoch_acked: 0, slot_rounds: 0, slot: 0, extra: [0; 2] }
    }

    /// The windowed maximum of extra acknowledged bytes.
    pub fn extra_acked(&self) -> u64 {
        self.extra[0].max(self.extra[1])
    }

    /// The flow restarts from idle: the next ACKs start a new epoch (tcp_bbr.c
    /// `bbr_cwnd_event` on `CA_EVENT_TX_START`).
    pub fn restart_epoch(&mut self, now: SimTime) {
        self.epoch_start = now;
        self.epoch_acked = 0;
    }

    /// An ACK with a valid rate sample (S)ACKed `acked` bytes at `delivered_at`; `bw` is BBR's
    /// bandwidth estimate (bytes/s) and `cwnd` its window before this ACK (bytes).
    pub fn update(
        &mut self,
        round_start: bool,
        bw: u64,
        delivered_at: SimTime,
        acked: u64,
        cwnd: u64,
        mss: u64,
    ) {
        if round_start {
            self.slot_rounds = (self.slot_rounds + 1).min(EXTRA_ACKED_ROUNDS_MAX);
            if self.slot_rounds >= EXTRA_ACKED_WINDOW_ROUNDS {
                self.slot_rounds = 0;
                self.slot = 1 - self.slot;
                self.extra[self.slot] = 0;
            }
        }

        let epoch = delivered_at.saturating_since(self.epoch_start);
        let mut expected = (u128::from(bw) * u128::from(epoch.as_picos()) / u128::from(PS_PER_SEC)) as u64;
        if self.epoch_acked <= expected || self.epoch_acked + acked >= ACK_EPOCH_RESET_SEGMENTS * mss {
            self.epoch_acked = 0;
            self.epoch_start = delivered_at;
            expected = 0;
        }
        self.epoch_acked = (self.epoch_acked + acked).min(ACK_EPOCH_ACKED_MAX_SEGMENTS * mss);
        let extra = (self.epoch_acked - expected).min(cwnd);
        self.extra[self.slot] = self.extra[self.slot].max(extra);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Duration;

    const MSS: u64 = 1000;
    const BW: u64 = 1_000_000; // 1 MB/s: 1000 bytes per ms
    const CWND: u64 = 100 * MSS;

    fn at_ms(ms: u64) -> SimTime {
        SimTime::ZERO + Duration::from_millis(ms)
    }

    #[test]
    fn test_aggregation_burst_counts_acked_beyond_bw() {
        let mut agg = AckAggregation::new(SimTime::ZERO);
        // ACKs exactly at the estimated rate: each finds the epoch no longer ahead of the
        // estimate, restarts it, and counts its own segment.
        for ms in 1..=10 {
            agg.update(false, BW, at_ms(ms), MSS, CWND, MSS);
        }
        assert_eq!(agg.extra_acked(), MSS);
        // 10 ms of silence, then an ACK for 20 segments: the epoch restarts there (ACKs had
        // fallen behind), so the whole burst is extra.
        agg.update(false, BW, at_ms(20), 20 * MSS, CWND, MSS);
        assert_eq!(agg.extra_acked(), 20 * MSS);
        // 10 ms later 25 more: 45 segments in an epoch of 10 ms at 1 segment per ms.
        agg.update(false, BW, at_ms(30), 25 * MSS, CWND, MSS);
        assert_eq!(agg.extra_acked(), 35 * MSS);
        // Capped at cwnd.
        agg.update(false, BW, at_ms(30), 200 * MSS, CWND, MSS);
        assert_eq!(agg.extra_acked(), CWND);
    }

    #[test]
    fn test_aggregation_slow_acks_restart_epoch() {
        let mut agg = AckAggregation::new(SimTime::ZERO);
        agg.update(false, BW, at_ms(1), 5 * MSS, CWND, MSS);
        assert_eq!(agg.extra_acked(), 5 * MSS);
        // 10 ms later only 1 segment: 6 acked ≤ 10 expected, the epoch restarts at 11 ms.
        agg.update(false, BW, at_ms(11), MSS, CWND, MSS);
        assert_eq!(agg.epoch_start, at_ms(11));
        assert_eq!(agg.epoch_acked, MSS);
    }

    #[test]
    fn test_aggregation_max_over_two_five_round_slots() {
        let mut agg = AckAggregation::new(SimTime::ZERO);
        agg.update(true, BW, at_ms(1), 30 * MSS, CWND, MSS); // slot 0: 30 segments
        let mut t = 1;
        let mut quiet_round = |agg: &mut AckAggregation| {
            t += 100; // long gaps: each ACK restarts the epoch and counts 1 segment
            agg.update(true, BW, at_ms(t), MSS, CWND, MSS);
        };
        // Rounds 2–5 fill slot 0; the 5th round start opens slot 1 (cleared): the 30 remains
        // through slot 1's five rounds, and is forgotten when slot 0 is reopened.
        for _ in 0..4 {
            quiet_round(&mut agg);
        }
        assert_eq!(agg.slot, 1);
        for _ in 0..4 {
            quiet_round(&mut agg);
            assert_eq!(agg.extra_acked(), 30 * MSS);
        }
        quiet_round(&mut agg);
        assert_eq!(agg.slot, 0);
        assert_eq!(agg.extra_acked(), MSS);
    }
}
