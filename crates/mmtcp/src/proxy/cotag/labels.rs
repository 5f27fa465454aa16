//! What an access point and the device share: the largest label seen on each incoming link, and
//! the rule that lets them move past a label (Wu et al. Algorithms 2 and 3, lines 13–17).
//!
//! Packets reach a node on each incoming link in non-decreasing label order, so once a label
//! above k has arrived on a link, no more label-k packets will come by it. A node may process
//! label L' once L' ≤ min_l L_l − 1 over its incoming links l (L_l: the largest label received on
//! l); until every link has delivered something, it processes nothing.

use crate::ids::DirId;

/// The largest label received per incoming link.
#[derive(Clone, Debug)]
pub struct LinkLabels {
    links: Vec<(DirId, Option<u64>)>,
}

impl LinkLabels {
    pub fn new(links: &[DirId]) -> LinkLabels {
        LinkLabels { links: links.iter().map(|&d| (d, None)).collect() }
    }

    /// A packet of `label` arrived by `dir`; arrivals by other directions do not count (they
    /// are not among the node's COTAG links).
    pub fn saw(&mut self, dir: Option<DirId>, label: u64) {
        if let Some(entry) = self.links.iter_mut().find(|(d, _)| Some(*d) == dir) {
            entry.1 = Some(entry.1.map_or(label, |l| l.max(label)));
        }
    }

    /// The largest label the node may process: min_l L_l − 1 (`None` while a link has delivered
    /// nothing, or when that is below label 1).
    pub fn ready_through(&self) -> Option<u64> {
        let min = self.links.iter().map(|&(_, l)| l).min()??;
        min.checked_sub(1).filter(|&k| k > 0)
    }

    /// Each link with the largest label it delivered, for the summary.
    pub fn largest(&self) -> impl Iterator<Item = (DirId, Option<u64>)> + '_ {
        self.links.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_a_label_is_ready_only_once_every_link_has_passed_it() {
        let mut l = LinkLabels::new(&[DirId(3), DirId(5)]);
        assert_eq!(l.ready_through(), None);
        l.saw(Some(DirId(3)), 4);
        assert_eq!(l.ready_through(), None, "link 5 has delivered nothing");
        l.saw(Some(DirId(5)), 2);
        assert_eq!(l.ready_through(), Some(1));
        l.saw(Some(DirId(5)), 7);
        assert_eq!(l.ready_through(), Some(3), "the slower link decides");
        l.saw(Some(DirId(3)), 2);
        assert_eq!(l.ready_through(), Some(3), "a late smaller label does not move a link back");
        l.saw(Some(DirId(9)), 100);
        l.saw(None, 100);
        assert_eq!(l.ready_through(), Some(3), "other directions do not count");
    }

    #[test]
    fn test_label_one_on_every_link_makes_nothing_ready() {
        let mut l = LinkLabels::new(&[DirId(0)]);
        l.saw(Some(DirId(0)), 1);
        assert_eq!(l.ready_through(), None);
        l.saw(Some(DirId(0)), 2);
        assert_eq!(l.ready_through(), Some(1));
    }
}
