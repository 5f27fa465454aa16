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
//! The policies, a file each: [`super::minrtt`] (Linux v0.90's default), [`super::roundrobin`],
//! [`super::redundant`], [`super::blest`], [`super::ecf`], [`super::musher`].

use super::data_sender::{Chunk, DataSender};
use super::minrtt::MinRtt;
use super::redundant::Redundant;
use super::roundrobin::RoundRobin;
use crate::sim::{Duration, SimTime};
use serde::{Deserialize, Serialize};

/// The scheduler a scenario asks for (`transport.scheduler`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SchedulerKind {
    #[default]
    MinRtt,
    RoundRobin,
    Redundant,
    Blest,
    Ecf,
    Musher,
}

impl SchedulerKind {
    pub fn name(self) -> &'static str {
        match self {
            SchedulerKind::MinRtt => "minrtt",
            SchedulerKind::RoundRobin => "roundrobin",
            SchedulerKind::Redundant => "redundant",
            SchedulerKind::Blest => "blest",
            SchedulerKind::Ecf => "ecf",
            SchedulerKind::Musher => "musher",
        }
    }
}

/// A subflow as a scheduler sees it.
#[derive(Clone, Copy, Debug, Default)]
pub struct SchedView {
    /// Established and not recovering from a timeout.
    pub usable: bool,
    /// In congestion state Open (no loss being repaired).
    pub open: bool,
    pub backup: bool,
    /// Bytes its congestion window lets out beyond what is in flight and what it holds unsent.
    pub room: u64,
    /// Congestion window and bytes in flight (RFC 6675 pipe), bytes.
    pub cwnd: u64,
    pub in_flight: u64,
    /// Smoothed RTT and RTT variation (RFC 6298 SRTT, RTTVAR).
    pub srtt: Option<Duration>,
    pub rttvar: Duration,
    pub mss: u32,
    /// Slow-start threshold, bytes (`u64::MAX` before the first congestion event).
    pub ssthresh: u64,
    /// Bytes handed to it and not yet acknowledged on it, sent or not (Linux write_seq − snd_una).
    pub unacked: u64,
    /// Bytes acknowledged on it since it opened (its snd_una), for schedulers that measure
    /// throughput.
    pub acked: u64,
    /// Set by the scheduler: halve this subflow's window (the default scheduler's penalisation
    /// of a slow subflow that blocks the connection's window).
    pub penalise: bool,
    /// Set by the scheduler: send this subflow's first unacknowledged segment again now,
    /// whatever its window and timer (MuSher's recovery probe of a subflow that timed out).
    pub probe: bool,
    /// Set by the scheduler: this subflow's path is back after a timeout; give it back this
    /// window (cwnd, ssthresh, bytes) and let it continue in fast recovery (MuSher).
    pub undo_timeout: Option<(u64, u64)>,
}

impl SchedView {
    /// A usable, open, non-backup subflow of `cwnd_segments` of window of which `room_segments`
    /// are free (the rest in flight), with no slow-start threshold set, for the
    /// schedulers' unit tests.
    #[cfg(test)]
    pub(super) fn for_test(mss: u32, cwnd_segments: u64, room_segments: u64, srtt_ms: u64) -> SchedView {
        let seg = u64::from(mss);
        SchedView {
            usable: true,
            open: true,
            backup: false,
            room: room_segments * seg,
            cwnd: cwnd_segments * seg,
            in_flight: (cwnd_segments - room_segments) * seg,
            srtt: Some(Duration::from_millis(srtt_ms)),
            rttvar: Duration::ZERO,
            mss,
            ssthresh: u64::MAX,
            unacked: (cwnd_segments - room_segments) * seg,
            acked: 0,
            penalise: false,
            probe: false,
            undo_timeout: None,
        }
    }

    pub(super) fn has_room(&self) -> bool {
        self.usable && self.room >= u64::from(self.mss)
    }
}

/// One scheduling policy.
pub trait Scheduler {
    /// At `now`, hands chunks of `data` to `subflows` (whose `room` it lowers as it goes),
    /// appending (subflow index, chunk) to `out` in sending order.
    fn fill(
        &mut self,
        now: SimTime,
        subflows: &mut [SchedView],
        data: &mut DataSender,
        out: &mut Vec<(usize, Chunk)>,
    );

    /// Whether a subflow's timeout should queue its data for re-injection on the others.
    fn reinjects(&self) -> bool {
        true
    }
}

/// Whether backup subflows may be used: no non-backup subflow is usable (RFC 8684 §3.3.8:
/// backups carry data only when no other subflow can).
pub(super) fn backups_allowed(subflows: &[SchedView]) -> bool {
    !subflows.iter().any(|s| s.usable && !s.backup)
}

/// Gives `chunk`'s bytes to subflow `i`.
pub(super) fn assign(subflows: &mut [SchedView], i: usize, chunk: Chunk, out: &mut Vec<(usize, Chunk)>) {
    subflows[i].room = subflows[i].room.saturating_sub(u64::from(chunk.len));
    out.push((i, chunk));
}

/// Every scheduler, for static dispatch.
#[derive(Clone, Debug)]
pub enum AnyScheduler {
    MinRtt(MinRtt),
    RoundRobin(RoundRobin),
    Redundant(Redundant),
    Blest(super::blest::Blest),
    Ecf(super::ecf::Ecf),
    Musher(super::musher::Musher),
}

impl AnyScheduler {
    pub fn new(kind: SchedulerKind) -> Self {
        match kind {
            SchedulerKind::MinRtt => AnyScheduler::MinRtt(MinRtt::default()),
            SchedulerKind::RoundRobin => AnyScheduler::RoundRobin(RoundRobin::default()),
            SchedulerKind::Redundant => AnyScheduler::Redundant(Redundant::default()),
            SchedulerKind::Blest => AnyScheduler::Blest(super::blest::Blest::default()),
            SchedulerKind::Ecf => AnyScheduler::Ecf(super::ecf::Ecf::default()),
            SchedulerKind::Musher => AnyScheduler::Musher(super::musher::Musher::default()),
        }
    }
}

impl Scheduler for AnyScheduler {
    fn fill(
        &mut self,
        now: SimTime,
        subflows: &mut [SchedView],
        data: &mut DataSender,
        out: &mut Vec<(usize, Chunk)>,
    ) {
        match self {
            AnyScheduler::MinRtt(s) => s.fill(now, subflows, data, out),
            AnyScheduler::RoundRobin(s) => s.fill(now, subflows, data, out),
            AnyScheduler::Redundant(s) => s.fill(now, subflows, data, out),
            AnyScheduler::Blest(s) => s.fill(now, subflows, data, out),
            AnyScheduler::Ecf(s) => s.fill(now, subflows, data, out),
            AnyScheduler::Musher(s) => s.fill(now, subflows, data, out),
        }
    }

    fn reinjects(&self) -> bool {
        match self {
            AnyScheduler::MinRtt(s) => s.reinjects(),
            AnyScheduler::RoundRobin(s) => s.reinjects(),
            AnyScheduler::Redundant(s) => s.reinjects(),
            AnyScheduler::Blest(s) => s.reinjects(),
            AnyScheduler::Ecf(s) => s.reinjects(),
            AnyScheduler::Musher(s) => s.reinjects(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::mptcp::minrtt::MinRtt;
    use crate::transport::mptcp::redundant::Redundant;
    use crate::transport::mptcp::roundrobin::RoundRobin;

    const MSS: u32 = 1000;

    fn view(room_segments: u64, srtt_ms: u64) -> SchedView {
        SchedView::for_test(MSS, room_segments, room_segments, srtt_ms)
    }

    fn data(bytes: u64) -> DataSender {
        let mut d = DataSender::new(1 << 30, 1 << 30);
        d.write(bytes);
        d
    }

    fn run(s: &mut impl Scheduler, views: &mut [SchedView], d: &mut DataSender) -> Vec<(usize, u64)> {
        let mut out = Vec::new();
        s.fill(SimTime::ZERO, views, d, &mut out);
        out.into_iter().map(|(i, c)| (i, c.dsn / u64::from(MSS))).collect()
    }

    #[test]
    fn test_backup_subflows_carry_data_only_when_no_other_is_usable() {
        let mut views = [view(2, 50), SchedView { backup: true, ..view(2, 10) }];
        let got = run(&mut MinRtt::default(), &mut views, &mut data(10 * u64::from(MSS)));
        assert_eq!(got, vec![(0, 0), (0, 1)], "the full active subflow does not release the backup");
        views = [SchedView { usable: false, ..view(2, 50) }, SchedView { backup: true, ..view(2, 10) }];
        let got = run(&mut MinRtt::default(), &mut views, &mut data(10 * u64::from(MSS)));
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
        assert!(run(&mut MinRtt::default(), &mut views, &mut data(5000)).is_empty());
        let mut views = [view(5, 10)];
        assert!(run(&mut MinRtt::default(), &mut views, &mut data(0)).is_empty());
    }
}
