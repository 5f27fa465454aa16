//! Packet schedulers: which subflow carries the connection's next chunk of data.
//!
//! A scheduler runs whenever the connection may send (new data written, a window opened): it
//! sees each subflow's state ([`SchedView`]) and hands chunks from the [`DataSender`] to
//! subflows until none can take more or no data is left. Rules shared by all, from Linux
//! MP-TCP v0.90 (`mptcp_sched.c`, `mptcp_is_available`): a subflow is *usable* once its
//! handshake is complete and while it is not recovering from a timeout (Linux's
//! `TCP_CA_Loss`); it *has room* when its congestion window lets one more full segment out.
//! Backup subflows (RFC 8684 §3.3.8) are used only when no usable non-backup subflow exists.
//!
//! - `minrtt` (Linux v0.90's default, `get_available_subflow`): the subflow with room and the
//!   lowest smoothed RTT, chunk by chunk, so the fastest subflow fills its window first. Not
//!   modelled yet: the default scheduler's opportunistic retransmission and penalisation of the
//!   slow subflow when the connection's window stalls (`mptcp_rcv_buf_optimization`).
//! - `roundrobin` (Linux v0.90 `mptcp_rr.c` with its defaults `num_segments = 1`,
//!   `cwnd_limited = 1`): one chunk per turn to each subflow with room, in subflow order.
//! - `redundant` (Linux v0.94 `mptcp_redundant.c`): every subflow with room sends every chunk,
//!   each from its own position in the data sequence space, skipping what the DATA_ACK has
//!   covered; data first sent by a faster subflow is repeated by the slower ones. A subflow's
//!   timeout re-injects nothing: the other subflows carry its data already.

use super::data_sender::{Chunk, DataSender};
use crate::sim::Duration;
use serde::{Deserialize, Serialize};

/// The scheduler a scenario asks for (`transport.scheduler`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SchedulerKind {
    #[default]
    MinRtt,
    RoundRobin,
    Redundant,
}

impl SchedulerKind {
    pub fn name(self) -> &'static str {
        match self {
            SchedulerKind::MinRtt => "minrtt",
            SchedulerKind::RoundRobin => "roundrobin",
            SchedulerKind::Redundant => "redundant",
        }
    }
}

/// A subflow as a scheduler sees it.
#[derive(Clone, Copy, Debug, Default)]
pub struct SchedView {
    /// Established and not recovering from a timeout.
    pub usable: bool,
    pub backup: bool,
    /// Bytes its congestion window lets out beyond what is in flight and what it holds unsent.
    pub room: u64,
    pub srtt: Option<Duration>,
    pub mss: u32,
}

impl SchedView {
    fn has_room(&self) -> bool {
        self.usable && self.room >= u64::from(self.mss)
    }
}

/// One scheduling policy.
pub trait Scheduler {
    /// Hands chunks of `data` to `subflows` (whose `room` it lowers as it goes), appending
    /// (subflow index, chunk) to `out` in sending order.
    fn fill(&mut self, subflows: &mut [SchedView], data: &mut DataSender, out: &mut Vec<(usize, Chunk)>);

    /// Whether a subflow's timeout should queue its data for re-injection on the others.
    fn reinjects(&self) -> bool {
        true
    }
}

/// Whether backup subflows may be used: no non-backup subflow is usable (RFC 8684 §3.3.8:
/// backups carry data only when no other subflow can).
fn backups_allowed(subflows: &[SchedView]) -> bool {
    !subflows.iter().any(|s| s.usable && !s.backup)
}

/// Gives `chunk`'s bytes to subflow `i`.
fn assign(subflows: &mut [SchedView], i: usize, chunk: Chunk, out: &mut Vec<(usize, Chunk)>) {
    subflows[i].room = subflows[i].room.saturating_sub(u64::from(chunk.len));
    out.push((i, chunk));
}

/// Lowest smoothed RTT first.
#[derive(Clone, Debug, Default)]
pub struct MinRtt;

impl Scheduler for MinRtt {
    fn fill(&mut self, subflows: &mut [SchedView], data: &mut DataSender, out: &mut Vec<(usize, Chunk)>) {
        let backups = backups_allowed(subflows);
        loop {
            let best = (0..subflows.len())
                .filter(|&i| subflows[i].has_room() && (backups || !subflows[i].backup))
                .min_by_key(|&i| (subflows[i].srtt.unwrap_or(Duration::ZERO), i));
            let Some(i) = best else { return };
            let Some(chunk) = data.next_chunk(i as u8, subflows[i].mss) else { return };
            assign(subflows, i, chunk, out);
        }
    }
}

/// One chunk per subflow per turn.
#[derive(Clone, Debug, Default)]
pub struct RoundRobin {
    /// The subflow whose turn is next.
    next: usize,
}

impl Scheduler for RoundRobin {
    fn fill(&mut self, subflows: &mut [SchedView], data: &mut DataSender, out: &mut Vec<(usize, Chunk)>) {
        let backups = backups_allowed(subflows);
        let n = subflows.len();
        loop {
            let turn = (0..n)
                .map(|k| (self.next + k) % n)
                .find(|&i| subflows[i].has_room() && (backups || !subflows[i].backup));
            let Some(i) = turn else { return };
            let Some(chunk) = data.next_chunk(i as u8, subflows[i].mss) else { return };
            assign(subflows, i, chunk, out);
            self.next = (i + 1) % n;
        }
    }
}

/// Every chunk on every subflow.
#[derive(Clone, Debug, Default)]
pub struct Redundant {
    /// Per subflow, the next data sequence number it sends.
    next: Vec<u64>,
}

impl Scheduler for Redundant {
    fn fill(&mut self, subflows: &mut [SchedView], data: &mut DataSender, out: &mut Vec<(usize, Chunk)>) {
        self.next.resize(subflows.len(), 0);
        let backups = backups_allowed(subflows);
        // Chunk by chunk across the subflows, so that new data goes out first on the subflow
        // that has room first rather than all on the lowest-numbered one.
        loop {
            let mut sent = false;
            for i in 0..subflows.len() {
                if !subflows[i].has_room() || (subflows[i].backup && !backups) {
                    continue;
                }
                if let Some(chunk) = data.chunk_from(self.next[i], subflows[i].mss) {
                    self.next[i] = chunk.dsn + u64::from(chunk.len);
                    assign(subflows, i, chunk, out);
                    sent = true;
                }
            }
            if !sent {
                return;
            }
        }
    }

    fn reinjects(&self) -> bool {
        false
    }
}

/// Every scheduler, for static dispatch.
#[derive(Clone, Debug)]
pub enum AnyScheduler {
    MinRtt(MinRtt),
    RoundRobin(RoundRobin),
    Redundant(Redundant),
}

impl AnyScheduler {
    pub fn new(kind: SchedulerKind) -> Self {
        match kind {
            SchedulerKind::MinRtt => AnyScheduler::MinRtt(MinRtt),
            SchedulerKind::RoundRobin => AnyScheduler::RoundRobin(RoundRobin::default()),
            SchedulerKind::Redundant => AnyScheduler::Redundant(Redundant::default()),
        }
    }
}

impl Scheduler for AnyScheduler {
    fn fill(&mut self, subflows: &mut [SchedView], data: &mut DataSender, out: &mut Vec<(usize, Chunk)>) {
        match self {
            AnyScheduler::MinRtt(s) => s.fill(subflows, data, out),
            AnyScheduler::RoundRobin(s) => s.fill(subflows, data, out),
            AnyScheduler::Redundant(s) => s.fill(subflows, data, out),
        }
    }

    fn reinjects(&self) -> bool {
        match self {
            AnyScheduler::MinRtt(s) => s.reinjects(),
            AnyScheduler::RoundRobin(s) => s.reinjects(),
            AnyScheduler::Redundant(s) => s.reinjects(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn view(room_segments: u64, srtt_ms: u64) -> SchedView {
        SchedView {
            usable: true,
            backup: false,
            room: room_segments * u64::from(MSS),
            srtt: Some(Duration::from_millis(srtt_ms)),
            mss: MSS,
        }
    }

    fn data(bytes: u64) -> DataSender {
        let mut d = DataSender::new(1 << 30, 1 << 30);
        d.write(bytes);
        d
    }

    fn run(s: &mut impl Scheduler, views: &mut [SchedView], d: &mut DataSender) -> Vec<(usize, u64)> {
        let mut out = Vec::new();
        s.fill(views, d, &mut out);
        out.into_iter().map(|(i, c)| (i, c.dsn / u64::from(MSS))).collect()
    }

    #[test]
    fn test_minrtt_fills_the_fastest_window_first() {
        let mut views = [view(2, 50), view(3, 10)];
        let got = run(&mut MinRtt, &mut views, &mut data(10 * u64::from(MSS)));
        assert_eq!(got, vec![(1, 0), (1, 1), (1, 2), (0, 3), (0, 4)]);
    }

    #[test]
    fn test_backup_subflows_carry_data_only_when_no_other_is_usable() {
        let mut views = [view(2, 50), SchedView { backup: true, ..view(2, 10) }];
        let got = run(&mut MinRtt, &mut views, &mut data(10 * u64::from(MSS)));
        assert_eq!(got, vec![(0, 0), (0, 1)], "the full active subflow does not release the backup");
        views = [SchedView { usable: false, ..view(2, 50) }, SchedView { backup: true, ..view(2, 10) }];
        let got = run(&mut MinRtt, &mut views, &mut data(10 * u64::from(MSS)));
        assert_eq!(got, vec![(1, 0), (1, 1)], "the active one is down");
    }

    #[test]
    fn test_roundrobin_takes_turns_and_skips_full_windows() {
        let mut views = [view(1, 10), view(3, 50), view(2, 30)];
        let got = run(&mut RoundRobin::default(), &mut views, &mut data(10 * u64::from(MSS)));
        assert_eq!(got, vec![(0, 0), (1, 1), (2, 2), (1, 3), (2, 4), (1, 5)]);
    }

    #[test]
    fn test_redundant_sends_every_byte_on_every_subflow() {
        let mut s = Redundant::default();
        let mut d = data(4 * u64::from(MSS));
        let mut views = [view(4, 10), view(2, 50)];
        let got = run(&mut s, &mut views, &mut d);
        assert_eq!(got, vec![(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (0, 3)]);
        // Later the slow subflow gets room again and repeats the rest.
        let mut views = [view(0, 10), view(4, 50)];
        assert_eq!(run(&mut s, &mut views, &mut d), vec![(1, 2), (1, 3)]);
    }

    #[test]
    fn test_nothing_is_sent_without_room_or_data() {
        let mut views = [view(0, 10), SchedView { usable: false, ..view(5, 10) }];
        assert!(run(&mut MinRtt, &mut views, &mut data(5000)).is_empty());
        let mut views = [view(5, 10)];
        assert!(run(&mut MinRtt, &mut views, &mut data(0)).is_empty());
    }
}
