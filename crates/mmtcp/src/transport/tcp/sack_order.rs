//! The order of SACK blocks (RFC 2018 §4): the first block holds the segment that triggered the
//! ACK, the others repeat the most recently reported ranges, so that a sender hears of every
//! range above a hole even though an ACK carries only a few blocks.
//!
//! A receiver keeps the last few positions it received above its cumulative ACK, most recent
//! first, and reports the ranges holding them, each once. The TCP receiver does this, and so
//! does an early-ACK proxy, which acknowledges on the receiver's behalf
//! ([`crate::proxy::early_ack`]). A fixed array: nothing is allocated per segment.

use crate::net::packet::MAX_SACK_BLOCKS;
use crate::net::{SackBlocks, SeqRange};

/// How many recently received positions are remembered: more than the blocks an ACK carries,
/// so a range still reported after newer ones have merged away stays in the list.
pub const RECENT: usize = 8;

/// The positions most recently received above the cumulative ACK, most recent first.
#[derive(Clone, Copy, Debug, Default)]
pub struct RecentPositions {
    positions: [u64; RECENT],
    len: usize,
}

impl RecentPositions {
    /// Moves `seq` to the front (dropping the oldest position when the list is full).
    pub fn remember(&mut self, seq: u64) {
        let n = self.len;
        let at = match self.positions[..n].iter().position(|&s| s == seq) {
            Some(at) => at,
            None if n < RECENT => {
                self.len = n + 1;
                n
            }
            None => RECENT - 1,
        };
        self.positions.copy_within(0..at, 1);
        self.positions[0] = seq;
    }

    /// Up to `max` blocks (and at most what an ACK holds): for each remembered position, most
    /// recent first, the range holding it (`containing`; none once the cumulative ACK has
    /// absorbed it), each range once.
    pub fn blocks(&self, max: usize, containing: impl Fn(u64) -> Option<SeqRange>) -> SackBlocks {
        let max = max.min(MAX_SACK_BLOCKS);
        let mut blocks = SackBlocks::default();
        for &seq in &self.positions[..self.len] {
            if blocks.len() >= max {
                break;
            }
            if let Some(block) = containing(seq) {
                if !blocks.as_slice().contains(&block) {
                    blocks.push(block);
                }
            }
        }
        blocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(start: u64, end: u64) -> SeqRange {
        SeqRange { start, end }
    }

    #[test]
    fn test_blocks_most_recent_first_each_once_up_to_max() {
        let ranges = [range(10, 20), range(30, 40), range(50, 60), range(70, 80)];
        let containing = |seq: u64| ranges.iter().copied().find(|r| r.start <= seq && seq < r.end);
        let mut recent = RecentPositions::default();
        for seq in [10, 30, 15, 50, 70] {
            recent.remember(seq);
        }
        // 70, 50, 15 (its range 10..20), 30; 10 repeats 10..20 and is skipped.
        assert_eq!(recent.blocks(3, containing).as_slice(), &[range(70, 80), range(50, 60), range(10, 20)]);
        assert_eq!(recent.blocks(8, containing).len(), 4);
        // A position seen again moves to the front.
        recent.remember(30);
        assert_eq!(recent.blocks(1, containing).as_slice(), &[range(30, 40)]);
        // Positions no range holds any more give no block.
        assert_eq!(recent.blocks(3, |_| None).len(), 0);
    }

    #[test]
    fn test_the_oldest_position_goes_when_the_list_is_full() {
        let mut recent = RecentPositions::default();
        for seq in 0..(RECENT as u64 + 2) {
            recent.remember(seq * 100);
        }
        let seen = recent.blocks(RECENT + 2, |seq| Some(range(seq, seq + 1)));
        assert_eq!(seen.len(), MAX_SACK_BLOCKS);
        assert_eq!(seen.as_slice()[0], range(900, 901));
    }
}
