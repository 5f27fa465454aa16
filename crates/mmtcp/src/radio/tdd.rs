//! Time-division duplex: which slots carry which direction's data.
//!
//! `[link.radio] tdd = "DDDU"` is a slot pattern repeated for ever from time 0: slot `k` (the
//! slot spanning `[k·slot, (k+1)·slot)`) has the role `pattern[k mod len]`:
//!
//! ```text
//!   'D'  downlink: the forward direction (between[0] → between[1]) may send a transport block
//!   'U'  uplink:   the reverse direction may send
//!   'C', 'S'  control / special (guard period, PDCCH-only): neither direction sends data
//! ```
//!
//! This is the semi-static TDD configuration of NR (3GPP TS 38.213 §11.1,
//! `tdd-UL-DL-ConfigurationCommon`: a period of slots, downlink slots first, then flexible, then
//! uplink) and of Kim et al. (Kim et al., PIMRC 2017) Table I, written out slot by slot. Symbol-level
//! splits inside a special slot are not modelled: a special slot carries no data at all.
//!
//! The model: a direction's capacity is its MCS rate in its own slots and zero in the others.
//! The MAC simply skips the slots that are not its own; a HARQ retransmission or an ACK/NACK that
//! falls due in a foreign slot is acted on in the direction's next own slot. The summary's
//! capacity counts the direction's own slots one by one ([`TddSchedule::own_before`]); the time
//! series and link reports show the MCS rate times the direction's share of the pattern,
//! `own / len` ([`TddSchedule::average_rate`]), which has the same time average while the SINR
//! is steady over a pattern period.

/// Which side of a TDD pattern a radio direction is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TddSide {
    /// `'D'` slots: the forward direction.
    Downlink,
    /// `'U'` slots: the reverse direction.
    Uplink,
}

/// A validated TDD pattern (letters `D`, `U`, `C`, `S`; at least one `D` and one `U`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TddPattern(Vec<u8>);

/// The longest pattern accepted: NR periods are at most 10 ms, i.e. 160 slots at numerology 4.
pub const MAX_PATTERN: usize = 1024;

impl TddPattern {
    /// Parses a pattern such as `"DDDU"` or `"CCDDUUUU"`. The error is a one-line message
    /// (without the key, which the caller adds).
    pub fn parse(text: &str) -> Result<TddPattern, String> {
        if text.is_empty() {
            return Err(
                "empty; give slot letters, e.g. \"DDDU\" (D downlink, U uplink, C or S neither)".into()
            );
        }
        if text.len() > MAX_PATTERN {
            return Err(format!("{} slots; at most {MAX_PATTERN}", text.len()));
        }
        if let Some(c) = text.chars().find(|c| !matches!(c, 'D' | 'U' | 'C' | 'S')) {
            return Err(format!(
                "{c:?} in \"{text}\" is not a slot letter; allowed: D (downlink), U (uplink), C or S (neither)"
            ));
        }
        for (letter, name) in [('D', "downlink"), ('U', "uplink")] {
            if !text.contains(letter) {
                return Err(format!("\"{text}\" has no {letter} slot: the {name} would never send"));
            }
        }
        Ok(TddPattern(text.as_bytes().to_vec()))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The slots of one side, precomputed so that the MAC finds its next slot in O(1).
    pub fn schedule(&self, side: TddSide) -> TddSchedule {
        let mine = match side {
            TddSide::Downlink => b'D',
            TddSide::Uplink => b'U',
        };
        let len = self.0.len();
        let own = self.0.iter().filter(|&&c| c == mine).count() as u64;
        // wait[i]: slots from phase i to the first own phase at or after it (cyclically).
        let wait = (0..len)
            .map(|i| (0..len).find(|d| self.0[(i + d) % len] == mine).expect("parse ensures one") as u32)
            .collect();
        // before[i]: own slots among phases 0..i.
        let before = (0..=len).map(|i| self.0[..i].iter().filter(|&&c| c == mine).count() as u32).collect();
        TddSchedule { wait, before, own, len: len as u64 }
    }
}

/// The own slots of one direction under a TDD pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TddSchedule {
    wait: Box<[u32]>,
    before: Box<[u32]>,
    own: u64,
    len: u64,
}

impl TddSchedule {
    /// The first slot index at or after `k` that belongs to this direction.
    #[inline]
    pub fn next_own(&self, k: u64) -> u64 {
        k + self.wait[(k % self.len) as usize] as u64
    }

    /// How many of the slots 0, 1, …, `k` − 1 belong to this direction.
    #[inline]
    pub fn own_before(&self, k: u64) -> u64 {
        k / self.len * self.own + self.before[(k % self.len) as usize] as u64
    }

    /// Whether slot `k` belongs to this direction.
    pub fn is_own(&self, k: u64) -> bool {
        self.next_own(k) == k
    }

    /// The time-average rate of a direction whose rate in its own slots is `rate_bps`:
    /// `rate × own / len`, rounded down.
    #[inline]
    pub fn average_rate(&self, rate_bps: u64) -> u64 {
        (rate_bps as u128 * self.own as u128 / self.len as u128) as u64
    }

    /// Own slots per pattern period, and the period in slots.
    pub fn share(&self) -> (u64, u64) {
        (self.own, self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_parse_accepts_the_four_letters() {
        assert_eq!(TddPattern::parse("CCDDUUUU").unwrap().len(), 8);
        assert_eq!(TddPattern::parse("DU").unwrap().len(), 2);
        assert!(TddPattern::parse("DSU").is_ok());
    }

    #[test]
    fn test_parse_rejects_bad_patterns_in_one_line() {
        for (text, needle) in [
            ("", "empty"),
            ("DDDX", "'X'"),
            ("dddu", "'d'"),
            ("DDDD", "no U slot"),
            ("UUCC", "no D slot"),
            ("D U", "' '"),
        ] {
            let e = TddPattern::parse(text).unwrap_err();
            assert!(e.contains(needle), "{text:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
        assert!(TddPattern::parse(&"DU".repeat(MAX_PATTERN)).unwrap_err().contains("at most"));
    }

    #[test]
    fn test_next_own_skips_foreign_slots_cyclically() {
        let p = TddPattern::parse("CCDDUUUU").unwrap();
        let dl = p.schedule(TddSide::Downlink);
        let ul = p.schedule(TddSide::Uplink);
        assert_eq!(dl.next_own(0), 2);
        assert_eq!(dl.next_own(2), 2);
        assert_eq!(dl.next_own(3), 3);
        assert_eq!(dl.next_own(4), 10, "next period's first D");
        assert_eq!(ul.next_own(0), 4);
        assert_eq!(ul.next_own(7), 7);
        assert_eq!(ul.next_own(8), 12);
        assert_eq!(dl.share(), (2, 8));
        assert_eq!(ul.share(), (4, 8));
        // Each slot belongs to at most one side; C slots to neither.
        for k in 0..64 {
            assert!(!(dl.is_own(k) && ul.is_own(k)), "slot {k}");
            if k % 8 < 2 {
                assert!(!dl.is_own(k) && !ul.is_own(k), "slot {k} is control");
            }
        }
    }

    #[test]
    fn test_average_rate_is_the_share_of_own_slots() {
        let p = TddPattern::parse("DDDU").unwrap();
        assert_eq!(p.schedule(TddSide::Downlink).average_rate(1_000_000_000), 750_000_000);
        assert_eq!(p.schedule(TddSide::Uplink).average_rate(1_000_000_000), 250_000_000);
        assert_eq!(p.schedule(TddSide::Uplink).average_rate(u64::MAX), u64::MAX / 4, "no overflow");
    }

    #[test]
    fn test_own_slot_count_over_periods_matches_share() {
        let p = TddPattern::parse("DSUUDCDU").unwrap();
        for side in [TddSide::Downlink, TddSide::Uplink] {
            let s = p.schedule(side);
            let (own, len) = s.share();
            let mut k = 0;
            let mut count = 0;
            while k < 10 * len {
                k = s.next_own(k);
                if k < 10 * len {
                    count += 1;
                }
                k += 1;
            }
            assert_eq!(count, 10 * own, "{side:?}");
        }
    }

    #[test]
    fn test_own_before_counts_the_own_slots_below_k() {
        let p = TddPattern::parse("DSUUDCDU").unwrap();
        for side in [TddSide::Downlink, TddSide::Uplink] {
            let s = p.schedule(side);
            let mut count = 0;
            for k in 0..50 {
                assert_eq!(s.own_before(k), count, "{side:?} k = {k}");
                count += u64::from(s.is_own(k));
            }
        }
    }
}
