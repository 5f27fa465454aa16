//! Static routes computed from the topology: fewest hops, ties broken by link order.
//!
//! Breadth-first search from every destination over the reversed directions gives, for every
//! (node, destination) pair, the direction to take next. Tables are dense (n × n): topologies
//! here have tens of nodes, and a lookup on the forwarding path is one index.

use crate::ids::DirId;
use crate::ids::NodeId;
use std::collections::VecDeque;

pub struct Routes {
    nodes: usize,
    /// `next[node * nodes + dst]`: the direction `node` forwards to, toward `dst`.
    next: Vec<Option<DirId>>,
}

impl Routes {
    /// `dirs[i] = (from, to)` of direction `i`.
    pub fn compute(nodes: usize, dirs: &[(NodeId, NodeId)]) -> Routes {
        let mut next = vec![None; nodes * nodes];
        // incoming[v]: directions ending at v, in link order.
        let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); nodes];
        for (i, &(_, to)) in dirs.iter().enumerate() {
            incoming[to.0 as usize].push(i);
        }
        let mut dist = vec![usize::MAX; nodes];
        let mut frontier = VecDeque::new();
        for dst in 0..nodes {
            dist.iter_mut().for_each(|d| *d = usize::MAX);
            dist[dst] = 0;
            frontier.clear();
            frontier.push_back(dst);
            while let Some(v) = frontier.pop_front() {
                for &i in &incoming[v] {
                    let u = dirs[i].0 .0 as usize;
                    if dist[u] == usize::MAX {
                        dist[u] = dist[v] + 1;
                        next[u * nodes + dst] = Some(DirId(i as u32));
                        frontier.push_back(u);
                    }
                }
            }
        }
        Routes { nodes, next }
    }

    /// The direction `node` uses to reach `dst` (`None` if unreachable or `node == dst`).
    #[inline]
    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<DirId> {
        self.next[node.0 as usize * self.nodes + dst.0 as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(i: u32) -> NodeId {
        NodeId(i)
    }

    #[test]
    fn chain_routes_forward_and_back() {
        // 0 —— 1 —— 2, each link two directions: (0→1, 1→0), (1→2, 2→1)
        let dirs = [(n(0), n(1)), (n(1), n(0)), (n(1), n(2)), (n(2), n(1))];
        let r = Routes::compute(3, &dirs);
        assert_eq!(r.next_hop(n(0), n(2)), Some(DirId(0)));
        assert_eq!(r.next_hop(n(1), n(2)), Some(DirId(2)));
        assert_eq!(r.next_hop(n(2), n(0)), Some(DirId(3)));
        assert_eq!(r.next_hop(n(1), n(0)), Some(DirId(1)));
        assert_eq!(r.next_hop(n(0), n(0)), None);
    }

    #[test]
    fn shortest_path_wins_and_ties_go_to_the_first_link() {
        // 0→1→3 and 0→2→3 both two hops; 0→3 directly one hop, listed last.
        let dirs = [(n(0), n(1)), (n(1), n(3)), (n(0), n(2)), (n(2), n(3)), (n(0), n(3))];
        let r = Routes::compute(4, &dirs);
        assert_eq!(r.next_hop(n(0), n(3)), Some(DirId(4)));
        // From 0 to 3 without the direct link: the first-listed two-hop path.
        let r = Routes::compute(4, &dirs[..4]);
        assert_eq!(r.next_hop(n(0), n(3)), Some(DirId(0)));
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let dirs = [(n(0), n(1)), (n(1), n(0))];
        let r = Routes::compute(3, &dirs);
        assert_eq!(r.next_hop(n(0), n(2)), None);
    }
}
