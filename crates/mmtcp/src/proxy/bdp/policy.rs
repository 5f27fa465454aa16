//! The window policies of Drago et al. §III-A as a pure state machine: link reports and deadlines
//! in, a target for the congestion window out. No clock, no packets, no I/O.
//!
//! The policy works on rates; the proxy turns the target into a window per flow with that flow's
//! minimum RTT T ([`Target::window`]): `C = R · T` (Drago et al. §III-A, "C = RT").
//!
//! ```text
//!  reactive:   C = R·T on every report (R = 0 in an outage: C floored at one MSS)
//!
//!  proactive:           MCS drop ≥ mcs_drop within `window`
//!     Normal ─────────────────────────────────────────────► Conservative (C = R_low·T, TTR timer)
//!       ▲  ▲                                                   │   ▲  │ TTR over, still bad:
//!       │  │           drop ≥ mcs_drop within `window`          │   │  └─ another TTR
//!       │  │   ┌───────────────────────────────────────────────┼───┘
//!       │  │   │                                 TTR over, not bad
//!       │  └── Ramp k = 1 … n−1 (C = R_low·T + k/n·(R − R_low)·T) ◄┘
//!       │        one step every `ramp_step`
//!    (k = n)
//!
//!     any mode ── outage (no MCS) ──► Outage (C = 0) ── MCS back ──► Conservative (new TTR)
//! ```
//!
//! What the paper leaves open and what we chose (see `docs/models/bdp-proxy.md`):
//! - the MCS history uses the time each report reaches the proxy; the window `[t − window, t]`
//!   is closed and includes the MCS in force at its start, so "a drop of 2 within 150 ms" means
//!   two MCS values at most 150 ms apart differ by 2 or more;
//! - conservative mode is held for the whole TTR: further drops do not restart it (Drago et al.:
//!   "remains in conservative mode for the whole duration of the interval corresponding to the
//!   TTR, even if the channel is able to recover before the timer expires");
//! - "still bad" at the end of the TTR ([`WindowPolicy::still_bad`]): a drop of `mcs_drop` or
//!   more within the last `window`, or the MCS still at least `mcs_drop` below the reference (the
//!   MCS before the drop that started the mode; after an extension, the MCS when it was
//!   extended). Then the mode lasts another TTR. A channel that settles at a lower level is thus
//!   held conservative for one extra TTR, not forever;
//! - "increased gradually": `ramp_steps` equal steps from the conservative window to the BDP of
//!   the current rate, one every `ramp_step`, the first when the TTR ends;
//! - after an outage the link is as fragile as after a drop: the policy enters conservative mode
//!   with a fresh TTR from the moment the MCS returns (reference: the MCS before the outage).

use crate::sim::{Duration, SimTime, PS_PER_SEC};
use std::collections::VecDeque;

/// Parameters of the proactive policy (Drago et al. §III-A; defaults in [`super::BdpConfig`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proactive {
    /// Span of MCS history a drop must fit in (150 ms in the seed).
    pub window: Duration,
    /// MCS indices a drop must span to count (2 in the seed).
    pub mcs_drop: u8,
    /// Time to recover: how long conservative mode lasts (0.8 s in the seed).
    pub ttr: Duration,
    /// Time between two steps of the gradual increase.
    pub ramp_step: Duration,
    /// Steps from the conservative window to the BDP (1: straight to the BDP).
    pub ramp_steps: u32,
}

/// Which policy of Drago et al. §III-A.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    Reactive,
    Proactive(Proactive),
}

/// What the window follows (the mode column of the time series is [`Mode::code`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The BDP of the reported rate.
    Normal,
    /// The BDP of the lowest MCS until the TTR is over.
    Conservative,
    /// Step `step` of `ramp_steps` from the conservative window to the BDP.
    Ramp { step: u32 },
    /// No MCS is usable: the proactive policy stops the sender.
    Outage,
}

impl Mode {
    /// Names of the modes, indexed by [`Mode::code`].
    pub const NAMES: [&'static str; 4] = ["normal", "conservative", "ramp", "outage"];

    /// 0 normal, 1 conservative, 2 ramp, 3 outage.
    pub fn code(self) -> usize {
        match self {
            Mode::Normal => 0,
            Mode::Conservative => 1,
            Mode::Ramp { .. } => 2,
            Mode::Outage => 3,
        }
    }
}

/// What the congestion window should be, before the flow's RTT turns it into bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Window 0: the sender transmits nothing new (the proactive policy in an outage).
    Stop,
    /// The BDP at this rate (bit/s), at least one MSS.
    Rate(u64),
}

impl Target {
    /// The window in bytes for a flow with minimum RTT `rtt` and segment size `mss`: R·T,
    /// floored at one MSS so that the sender always has a segment to clock ACKs with (a window
    /// below one segment would stop it, which only [`Target::Stop`] should do).
    pub fn window(self, rtt: Duration, mss: u64) -> u64 {
        match self {
            Target::Stop => 0,
            Target::Rate(rate_bps) => bdp_bytes(rate_bps, rtt).max(mss),
        }
    }
}

/// The bandwidth-delay product R·T in bytes, rounded down: `rate_bps · rtt_ps / (8 · 10¹²)`,
/// exact in 128-bit arithmetic (a rate of 10¹² bit/s over 10⁶ s still fits).
pub fn bdp_bytes(rate_bps: u64, rtt: Duration) -> u64 {
    let bytes = rate_bps as u128 * rtt.as_picos() as u128 / (8 * PS_PER_SEC as u128);
    u64::try_from(bytes).unwrap_or(u64::MAX)
}

/// Counters of a policy, for `summary.json`.
#[derive(Clone, Debug, Default)]
pub struct PolicyStats {
    /// Reports the policy acted on.
    pub reports: u64,
    /// Times conservative mode started (after a drop or an outage).
    pub conservative_entries: u64,
    /// Times conservative mode lasted another TTR because the channel was still bad.
    pub conservative_extensions: u64,
    /// Outages (reports without an MCS after reports with one).
    pub outages: u64,
    /// Ramps that reached the full BDP.
    pub ramps_completed: u64,
    /// Time spent in each mode, indexed by [`Mode::code`], up to the last input.
    pub time_in_mode: [Duration; 4],
}

/// The state machine of module docs.
#[derive(Clone, Debug)]
pub struct WindowPolicy {
    rules: Rules,
    /// The rate of the link's lowest MCS, bit/s: the conservative window's rate.
    lowest_rate_bps: u64,
    /// The last reported rate, bit/s (`None` before the first report).
    rate_bps: Option<u64>,
    /// The last reported MCS (`None` in an outage or before the first report).
    mcs: Option<u8>,
    /// The last MCS reported before the current outage.
    mcs_before_outage: Option<u8>,
    /// (arrival time, MCS) of the reports of the last `window`, plus the one in force at its
    /// start; grows to the most reports one window holds, then reused.
    history: VecDeque<(SimTime, u8)>,
    mode: Mode,
    /// When the TTR ends or the next ramp step is due.
    deadline: Option<SimTime>,
    /// The MCS a channel must come back to within `mcs_drop` to no longer count as bad.
    reference: u8,
    /// Time accounted in `stats.time_in_mode` so far.
    clock: SimTime,
    pub stats: PolicyStats,
}

impl WindowPolicy {
    pub fn new(rules: Rules, lowest_rate_bps: u64) -> Self {
        WindowPolicy {
            rules,
            lowest_rate_bps,
            rate_bps: None,
            mcs: None,
            mcs_before_outage: None,
            history: VecDeque::new(),
            mode: Mode::Normal,
            deadline: None,
            reference: 0,
            clock: SimTime::ZERO,
            stats: PolicyStats::default(),
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The last reported rate, bit/s.
    pub fn rate_bps(&self) -> Option<u64> {
        self.rate_bps
    }

    /// When [`Self::on_deadline`] must be called next.
    pub fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    /// The window target; `None` until a rate has been reported.
    pub fn target(&self) -> Option<Target> {
        let rate = self.rate_bps?;
        let Rules::Proactive(p) = self.rules else {
            // Drago et al. §III-A, reactive: C = R·T.
            return Some(Target::Rate(rate));
        };
        Some(match self.mode {
            Mode::Normal => Target::Rate(rate),
            // "the congestion window remains set to a value equivalent to the minimum BDP,
            // corresponding to the lowest-rate MCS".
            Mode::Conservative => Target::Rate(self.lowest_rate_bps),
            Mode::Ramp { step } => {
                let gap = rate.saturating_sub(self.lowest_rate_bps) as u128;
                let up = gap * step as u128 / p.ramp_steps as u128;
                Target::Rate(self.lowest_rate_bps + up as u64)
            }
            // "the scheme interrupts the communication as long as the outage persists".
            Mode::Outage => Target::Stop,
        })
    }

    /// Adds the time since the last input to the current mode's total.
    pub fn account(&mut self, now: SimTime) {
        if now > self.clock {
            self.stats.time_in_mode[self.mode.code()] += now - self.clock;
            self.clock = now;
        }
    }

    /// A link report reached the proxy at `now`: the MCS (`None`: outage) and its rate.
    pub fn on_report(&mut self, now: SimTime, mcs: Option<u8>, rate_bps: u64) {
        self.account(now);
        self.stats.reports += 1;
        self.rate_bps = Some(rate_bps);
        let previous = self.mcs;
        self.mcs = mcs;
        let Some(m) = mcs else {
            if self.mode != Mode::Outage {
                self.stats.outages += 1;
                self.mcs_before_outage = previous;
                self.mode = Mode::Outage;
                self.deadline = None;
            }
            return;
        };
        let Rules::Proactive(p) = self.rules else {
            self.mode = Mode::Normal;
            return;
        };
        self.history.push_back((now, m));
        self.prune(now, p.window);
        match self.mode {
            Mode::Outage => {
                let reference = self.mcs_before_outage.unwrap_or(m);
                self.enter_conservative(now, p, reference);
            }
            Mode::Normal | Mode::Ramp { .. } => {
                // The highest MCS in force within the window, this report's included.
                let peak = self.history.iter().map(|&(_, m)| m).max().unwrap_or(m);
                if peak - m >= p.mcs_drop {
                    self.enter_conservative(now, p, peak);
                }
            }
            Mode::Conservative => {}
        }
    }

    /// The deadline ([`Self::deadline`]) has come: the TTR is over or a ramp step is due.
    pub fn on_deadline(&mut self, now: SimTime) {
        self.account(now);
        let Rules::Proactive(p) = self.rules else { return };
        if self.deadline.is_none_or(|d| d > now) {
            return;
        }
        self.deadline = None;
        let mode = self.mode;
        match mode {
            Mode::Conservative if self.still_bad(now, p) => {
                // "If after the conservative mode the channel is still in a bad condition, the
                // algorithm continues to rely on its conservative policies."
                self.stats.conservative_extensions += 1;
                self.reference = self.mcs.unwrap_or(self.reference);
                self.deadline = Some(now + p.ttr);
            }
            Mode::Conservative => self.step_ramp(now, p, 1),
            Mode::Ramp { step } => self.step_ramp(now, p, step + 1),
            Mode::Normal | Mode::Outage => {}
        }
    }

    /// Step `step` of the gradual increase; step `ramp_steps` is the full BDP (normal mode).
    fn step_ramp(&mut self, now: SimTime, p: Proactive, step: u32) {
        if step >= p.ramp_steps {
            self.stats.ramps_completed += 1;
            self.mode = Mode::Normal;
        } else {
            self.mode = Mode::Ramp { step };
            self.deadline = Some(now + p.ramp_step);
        }
    }

    fn enter_conservative(&mut self, now: SimTime, p: Proactive, reference: u8) {
        self.stats.conservative_entries += 1;
        self.mode = Mode::Conservative;
        self.reference = reference;
        self.deadline = Some(now + p.ttr);
    }

    /// At the end of a TTR: a drop of `mcs_drop` or more within the last `window`, or the MCS
    /// still `mcs_drop` or more below the reference.
    fn still_bad(&mut self, now: SimTime, p: Proactive) -> bool {
        self.prune(now, p.window);
        let Some(current) = self.mcs else { return true };
        if self.reference.saturating_sub(current) >= p.mcs_drop {
            return true;
        }
        let mut peak = 0;
        self.history.iter().any(|&(_, m)| {
            peak = peak.max(m);
            peak - m >= p.mcs_drop
        })
    }

    /// Forgets reports older than the window, keeping the one in force at its start.
    fn prune(&mut self, now: SimTime, window: Duration) {
        let start = SimTime(now.0.saturating_sub(window.as_picos()));
        while self.history.len() >= 2 && self.history[1].0 <= start {
            self.history.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);
    /// 802.11ad SC MCS 1 at 500 MHz: 0.25 bit/symbol·Hz (Drago et al. table).
    const LOWEST: u64 = 125_000_000;
    const MSS: u64 = 1448;
    const T: Duration = Duration::from_millis(40);

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + MS.saturating_mul(ms)
    }

    /// The 802.11ad SC rate of `mcs` at 500 MHz, bit/s: spectral efficiency (in sixteenths,
    /// Drago et al. table) × 500 MHz. MCS 1: 125 Mbit/s; MCS 12: 1.5 Gbit/s.
    fn rate(mcs: u8) -> u64 {
        const SIXTEENTHS: [u64; 13] = [0, 4, 8, 10, 12, 13, 16, 20, 24, 26, 32, 40, 48];
        SIXTEENTHS[mcs as usize] * 500_000_000 / 16
    }

    fn proactive() -> WindowPolicy {
        WindowPolicy::new(
            Rules::Proactive(Proactive {
                window: MS.saturating_mul(150),
                mcs_drop: 2,
                ttr: MS.saturating_mul(800),
                ramp_step: MS.saturating_mul(50),
                ramp_steps: 4,
            }),
            LOWEST,
        )
    }

    fn report(p: &mut WindowPolicy, ms: u64, mcs: u8) {
        p.on_report(at(ms), Some(mcs), rate(mcs));
    }

    fn window(p: &WindowPolicy) -> u64 {
        p.target().unwrap().window(T, MSS)
    }

    /// Calls `on_deadline` at every deadline up to `until_ms`; returns (time, window) after each.
    fn run_deadlines(p: &mut WindowPolicy, until_ms: u64) -> Vec<(SimTime, u64)> {
        let mut seen = Vec::new();
        while let Some(d) = p.deadline().filter(|&d| d <= at(until_ms)) {
            p.on_deadline(d);
            seen.push((d, window(p)));
        }
        seen
    }

    #[test]
    fn rates_of_the_seed_table() {
        assert_eq!(rate(1), LOWEST);
        assert_eq!(rate(3), 312_500_000);
        assert_eq!(rate(5), 406_250_000);
        assert_eq!(rate(12), 1_500_000_000);
    }

    // ---- reactive ----

    #[test]
    fn test_reactive_window_is_rate_times_min_rtt_in_bytes() {
        assert_eq!(bdp_bytes(1_500_000_000, T), 7_500_000, "1.5 Gbit/s × 40 ms = 60 Mbit");
        // 1 000 000 007 bit/s × 3 ms = 3 000 000.021 bit = 375 000.002625 B: rounded down.
        assert_eq!(bdp_bytes(1_000_000_007, MS.saturating_mul(3)), 375_000);
        // 10^12 bit/s over 10^6 s does not overflow.
        assert_eq!(bdp_bytes(1_000_000_000_000, Duration::from_secs(1_000_000)), 125_000_000_000_000_000);

        let mut p = WindowPolicy::new(Rules::Reactive, LOWEST);
        assert_eq!(p.target(), None, "no rate, no window");
        report(&mut p, 0, 12);
        assert_eq!(window(&p), 7_500_000);
        report(&mut p, 5, 6);
        assert_eq!(window(&p), 2_500_000, "every report updates the window, drops included");
        report(&mut p, 6, 12);
        assert_eq!(window(&p), 7_500_000, "no hold-down in the reactive policy");
        assert_eq!(p.mode(), Mode::Normal);
        assert_eq!(p.deadline(), None);
    }

    #[test]
    fn test_reactive_window_is_floored_at_one_mss() {
        let mut p = WindowPolicy::new(Rules::Reactive, LOWEST);
        p.on_report(at(0), Some(1), 100_000); // 100 kbit/s × 40 ms = 500 B
        assert_eq!(window(&p), MSS);
        p.on_report(at(1), None, 0);
        assert_eq!(p.target(), Some(Target::Rate(0)));
        assert_eq!(window(&p), MSS, "an outage does not stop the reactive sender");
        assert_eq!(p.mode(), Mode::Outage);
        report(&mut p, 2, 12);
        assert_eq!((p.mode(), window(&p)), (Mode::Normal, 7_500_000));
        assert_eq!(p.stats.outages, 1);
    }

    // ---- proactive ----

    #[test]
    fn test_proactive_drop_of_two_within_window_holds_conservative_for_the_whole_ttr() {
        let mut p = proactive();
        report(&mut p, 0, 12);
        assert_eq!(window(&p), 7_500_000);
        report(&mut p, 100, 10);
        assert_eq!(p.mode(), Mode::Conservative);
        assert_eq!(window(&p), bdp_bytes(LOWEST, T), "the BDP of the lowest MCS");
        assert_eq!(window(&p), 625_000);
        assert_eq!(p.deadline(), Some(at(900)), "TTR = 800 ms from the drop");
        // The channel recovers at once: the window stays conservative for the whole TTR.
        report(&mut p, 110, 12);
        report(&mut p, 500, 12);
        assert_eq!((p.mode(), window(&p)), (Mode::Conservative, 625_000));
        // Another drop within the TTR neither restarts it nor counts as a new entry.
        report(&mut p, 600, 9);
        assert_eq!(p.deadline(), Some(at(900)));
        report(&mut p, 700, 12);
        assert_eq!(p.stats.conservative_entries, 1);
        p.on_deadline(at(899));
        assert_eq!(p.mode(), Mode::Conservative, "a stale or early deadline changes nothing");
        p.on_deadline(at(900));
        assert_eq!(p.mode(), Mode::Ramp { step: 1 });
    }

    #[test]
    fn test_proactive_drop_of_one_does_not_enter_conservative() {
        let mut p = proactive();
        report(&mut p, 0, 12);
        report(&mut p, 10, 11);
        assert_eq!((p.mode(), window(&p)), (Mode::Normal, bdp_bytes(rate(11), T)));
        assert_eq!(p.deadline(), None);
    }

    #[test]
    fn test_proactive_drop_of_two_spread_over_more_than_the_window_does_not() {
        let mut p = proactive();
        report(&mut p, 0, 12);
        report(&mut p, 100, 11);
        report(&mut p, 251, 10); // 12 was in force until 100 ms, 151 ms before
        assert_eq!(p.mode(), Mode::Normal);
        assert_eq!(p.stats.conservative_entries, 0);
        report(&mut p, 401, 8);
        assert_eq!(p.mode(), Mode::Conservative, "10 → 8 exactly 150 ms apart counts (closed window)");
    }

    #[test]
    fn test_proactive_ramp_rises_gradually_and_reaches_the_bdp() {
        let mut p = proactive();
        report(&mut p, 0, 12);
        report(&mut p, 10, 8);
        report(&mut p, 20, 12); // recovered at once
        let conservative = window(&p);
        let full = bdp_bytes(rate(12), T);
        let steps = run_deadlines(&mut p, 5_000);
        let times: Vec<SimTime> = steps.iter().map(|s| s.0).collect();
        assert_eq!(times, vec![at(810), at(860), at(910), at(960)], "TTR, then one step every 50 ms");
        let windows: Vec<u64> = steps.iter().map(|s| s.1).collect();
        // Equal steps of (BDP − conservative) / 4.
        let gap = full - conservative;
        assert_eq!(
            windows,
            vec![conservative + gap / 4, conservative + gap / 2, conservative + 3 * gap / 4, full]
        );
        assert!(windows.windows(2).all(|w| w[0] < w[1]));
        assert!(windows[..3].iter().all(|&w| w < full), "never a jump to the full BDP");
        assert_eq!(p.mode(), Mode::Normal);
        assert_eq!(p.deadline(), None);
        assert_eq!(p.stats.ramps_completed, 1);
    }

    #[test]
    fn test_proactive_ramp_follows_the_current_rate_and_a_new_drop_ends_it() {
        let mut p = proactive();
        report(&mut p, 0, 12);
        report(&mut p, 10, 10);
        report(&mut p, 20, 12);
        p.on_deadline(at(810));
        p.on_deadline(at(860));
        assert_eq!(p.mode(), Mode::Ramp { step: 2 });
        report(&mut p, 870, 11); // a drop of 1: the ramp goes on toward the new BDP
        assert_eq!(p.target(), Some(Target::Rate(LOWEST + (rate(11) - LOWEST) / 2)));
        report(&mut p, 880, 9); // 11 → 9 and 12 → 9 within 150 ms
        assert_eq!((p.mode(), p.deadline()), (Mode::Conservative, Some(at(1680))));
        assert_eq!(p.stats.conservative_entries, 2);
    }

    #[test]
    fn test_proactive_still_bad_after_ttr_means_another_ttr() {
        let mut p = proactive();
        report(&mut p, 0, 12);
        report(&mut p, 10, 9); // and the channel stays at 9
        p.on_deadline(at(810));
        assert_eq!((p.mode(), p.deadline()), (Mode::Conservative, Some(at(1610))));
        assert_eq!(p.stats.conservative_extensions, 1);
        // 9 is now the reference: a channel that stays there is no longer bad.
        p.on_deadline(at(1610));
        assert_eq!(p.mode(), Mode::Ramp { step: 1 });
        assert_eq!(p.target(), Some(Target::Rate(LOWEST + (rate(9) - LOWEST) / 4)));

        // A fresh drop within the last window before the TTR ends also extends it.
        let mut p = proactive();
        report(&mut p, 0, 12);
        report(&mut p, 10, 10);
        report(&mut p, 400, 12);
        report(&mut p, 700, 10);
        report(&mut p, 790, 12);
        p.on_deadline(at(810));
        assert_eq!(p.mode(), Mode::Conservative, "12 → 10 at 700 ms is within 150 ms of 810 ms");
        report(&mut p, 1000, 12);
        p.on_deadline(at(1610));
        assert_eq!(p.mode(), Mode::Ramp { step: 1 });
    }

    #[test]
    fn test_proactive_outage_stops_until_it_ends_then_conservative() {
        let mut p = proactive();
        report(&mut p, 0, 12);
        p.on_report(at(100), None, 0);
        assert_eq!((p.mode(), p.target()), (Mode::Outage, Some(Target::Stop)));
        assert_eq!(window(&p), 0, "no MSS floor: the sender stops");
        p.on_report(at(200), None, 0);
        assert_eq!(window(&p), 0);
        assert_eq!(p.deadline(), None, "no timer while the outage lasts");
        assert_eq!(p.stats.outages, 1, "one outage, however many reports");
        report(&mut p, 2_000, 12);
        assert_eq!((p.mode(), window(&p)), (Mode::Conservative, 625_000));
        assert_eq!(p.deadline(), Some(at(2_800)), "a fresh TTR from the end of the outage");
        // An outage during conservative mode stops the sender as well and drops the TTR.
        p.on_report(at(2_100), None, 0);
        assert_eq!((p.mode(), window(&p), p.deadline()), (Mode::Outage, 0, None));
        assert_eq!(p.stats.outages, 2);
    }

    #[test]
    fn test_proactive_time_in_each_mode_adds_up() {
        let mut p = proactive();
        report(&mut p, 0, 12);
        report(&mut p, 100, 10);
        report(&mut p, 110, 12);
        run_deadlines(&mut p, 5_000);
        p.on_report(at(1_100), None, 0);
        report(&mut p, 1_200, 12);
        p.account(at(1_300));
        let ms = |code: usize| p.stats.time_in_mode[code].as_picos() / MS.as_picos();
        assert_eq!(ms(0), 100 + (1_100 - 1_050), "normal before the drop and after the ramp");
        assert_eq!(ms(1), 800 + 100, "one TTR and the start of another");
        assert_eq!(ms(2), 150, "three ramp steps of 50 ms");
        assert_eq!(ms(3), 100);
    }
}
