//! A restartable timer on top of an event queue that cannot cancel.
//!
//! TCP restarts its retransmission timer on almost every ACK. Scheduling a new event each time
//! would fill the queue with dead events, so a `Timer` keeps its *deadline* separately from the
//! one event it has pending: moving the deadline later costs nothing, and when the pending event
//! fires early the owner simply re-arms it for the current deadline (the technique of Linux's
//! `sk_reset_timer` users and of htsim). An event is scheduled only when the deadline moves
//! *earlier* than the pending one.

use super::time::SimTime;

#[derive(Clone, Copy, Debug, Default)]
pub struct Timer {
    deadline: Option<SimTime>,
    /// Time of the earliest event scheduled for this timer and not yet fired.
    pending: Option<SimTime>,
}

/// What the owner must do after [`Timer::fire`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fired {
    /// The deadline has passed: run the timer's action.
    Expired,
    /// The deadline moved later: schedule an event at this time.
    Rearm(SimTime),
    /// Nothing to do (cancelled, or a stale event while an earlier one is pending).
    Nothing,
}

impl Timer {
    pub fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// Sets the deadline. Returns `Some(t)` when the owner must schedule an event at `t`.
    #[must_use]
    pub fn set(&mut self, at: SimTime) -> Option<SimTime> {
        self.deadline = Some(at);
        match self.pending {
            Some(p) if p <= at => None,
            _ => {
                self.pending = Some(at);
                Some(at)
            }
        }
    }

    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    /// Called when one of this timer's events fires at `now`.
    #[must_use]
    pub fn fire(&mut self, now: SimTime) -> Fired {
        if self.pending == Some(now) {
            self.pending = None;
        }
        match self.deadline {
            Some(d) if d <= now => {
                self.deadline = None;
                Fired::Expired
            }
            Some(d) if self.pending.is_none() => {
                self.pending = Some(d);
                Fired::Rearm(d)
            }
            _ => Fired::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_set_schedules() {
        let mut t = Timer::default();
        assert_eq!(t.set(SimTime(10)), Some(SimTime(10)));
        assert_eq!(t.fire(SimTime(10)), Fired::Expired);
        assert!(!t.is_armed());
    }

    #[test]
    fn moving_later_schedules_nothing_and_rearms_on_fire() {
        let mut t = Timer::default();
        assert_eq!(t.set(SimTime(10)), Some(SimTime(10)));
        assert_eq!(t.set(SimTime(25)), None);
        assert_eq!(t.fire(SimTime(10)), Fired::Rearm(SimTime(25)));
        assert_eq!(t.fire(SimTime(25)), Fired::Expired);
    }

    #[test]
    fn moving_earlier_schedules_and_old_event_is_harmless() {
        let mut t = Timer::default();
        assert_eq!(t.set(SimTime(30)), Some(SimTime(30)));
        assert_eq!(t.set(SimTime(10)), Some(SimTime(10)));
        assert_eq!(t.fire(SimTime(10)), Fired::Expired);
        // The event at 30 is stale: the timer is idle.
        assert_eq!(t.fire(SimTime(30)), Fired::Nothing);
    }

    #[test]
    fn cancelled_timer_does_nothing() {
        let mut t = Timer::default();
        let _ = t.set(SimTime(10));
        t.cancel();
        assert_eq!(t.fire(SimTime(10)), Fired::Nothing);
    }

    #[test]
    fn rearming_after_cancel_reuses_pending_event() {
        let mut t = Timer::default();
        assert_eq!(t.set(SimTime(10)), Some(SimTime(10)));
        t.cancel();
        assert_eq!(t.set(SimTime(40)), None);
        assert_eq!(t.fire(SimTime(10)), Fired::Rearm(SimTime(40)));
        assert_eq!(t.fire(SimTime(40)), Fired::Expired);
    }

    #[test]
    fn stale_event_while_earlier_pending_is_ignored() {
        let mut t = Timer::default();
        let _ = t.set(SimTime(30));
        let _ = t.set(SimTime(10));
        assert_eq!(t.fire(SimTime(10)), Fired::Expired);
        assert_eq!(t.set(SimTime(50)), Some(SimTime(50)));
        // The stale event at 30 must not fire the timer whose deadline is 50, nor schedule a
        // duplicate (the event at 50 is pending).
        assert_eq!(t.fire(SimTime(30)), Fired::Nothing);
        assert_eq!(t.fire(SimTime(50)), Fired::Expired);
    }
}
