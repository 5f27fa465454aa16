//! The network the packets cross: nodes, the links between them, and the routes flows take.
//!
//! A link joins an interface of each of its two nodes and has two directions, one leaving each
//! node; a node may have any number of links, wired and radio, several of them to the same
//! neighbour. A node's interfaces, in the order the scenario lists the links, are the directions
//! leaving it. Routes ([`routing`]) are lists of directions.

pub mod any_direction;
pub mod routing;

pub use any_direction::AnyDirection;

use crate::ids::{DirId, NodeId};

/// A link as the topology and the summary describe it.
#[derive(Clone, Debug)]
pub struct LinkInfo {
    pub name: String,
    pub radio: bool,
    pub between: [NodeId; 2],
    /// Forward (`between[0]` → `between[1]`) and reverse direction.
    pub dirs: [DirId; 2],
}

/// Nodes, links and which directions leave each node.
#[derive(Clone, Debug, Default)]
pub struct Topology {
    node_names: Vec<String>,
    links: Vec<LinkInfo>,
    /// Per direction: (from, to, link index).
    dir_ends: Vec<(NodeId, NodeId, u32)>,
    /// The directions leaving node `n` are `out_dirs[out_start[n]..out_start[n + 1]]`, in link
    /// order (compressed adjacency: two vectors whatever the number of nodes).
    out_start: Vec<u32>,
    out_dirs: Vec<DirId>,
}

impl Topology {
    /// A topology of `node_names` joined by `links`. Each link's directions must be numbered
    /// densely from 0 in link order, as the world's direction vector holds them.
    pub fn new(node_names: Vec<String>, links: Vec<LinkInfo>) -> Topology {
        let mut dir_ends = vec![(NodeId(0), NodeId(0), 0); 2 * links.len()];
        let mut degree = vec![0u32; node_names.len() + 1];
        for (i, l) in links.iter().enumerate() {
            let [a, b] = l.between;
            dir_ends[l.dirs[0].0 as usize] = (a, b, i as u32);
            dir_ends[l.dirs[1].0 as usize] = (b, a, i as u32);
            degree[a.0 as usize] += 1;
            degree[b.0 as usize] += 1;
        }
        let mut out_start = Vec::with_capacity(node_names.len() + 1);
        let mut total = 0;
        for d in &degree[..node_names.len()] {
            out_start.push(total);
            total += d;
        }
        out_start.push(total);
        let mut fill = out_start.clone();
        let mut out_dirs = vec![DirId(0); total as usize];
        for l in &links {
            for (end, dir) in [(l.between[0], l.dirs[0]), (l.between[1], l.dirs[1])] {
                let slot = &mut fill[end.0 as usize];
                out_dirs[*slot as usize] = dir;
                *slot += 1;
            }
        }
        Topology { node_names, links, dir_ends, out_start, out_dirs }
    }

    pub fn nodes(&self) -> usize {
        self.node_names.len()
    }

    pub fn node_name(&self, node: NodeId) -> &str {
        &self.node_names[node.0 as usize]
    }

    /// The node named `name`.
    pub fn node(&self, name: &str) -> Option<NodeId> {
        self.node_names.iter().position(|n| n == name).map(|i| NodeId(i as u32))
    }

    pub fn links(&self) -> &[LinkInfo] {
        &self.links
    }

    /// The link direction `dir` belongs to.
    pub fn link_of(&self, dir: DirId) -> &LinkInfo {
        &self.links[self.dir_ends[dir.0 as usize].2 as usize]
    }

    /// The node direction `dir` leaves.
    pub fn from(&self, dir: DirId) -> NodeId {
        self.dir_ends[dir.0 as usize].0
    }

    /// The node direction `dir` reaches.
    pub fn to(&self, dir: DirId) -> NodeId {
        self.dir_ends[dir.0 as usize].1
    }

    /// The other direction of `dir`'s link.
    pub fn reverse(&self, dir: DirId) -> DirId {
        let l = self.link_of(dir);
        if l.dirs[0] == dir {
            l.dirs[1]
        } else {
            l.dirs[0]
        }
    }

    /// The directions leaving `node` (its interfaces), in link order.
    pub fn interfaces(&self, node: NodeId) -> &[DirId] {
        let n = node.0 as usize;
        &self.out_dirs[self.out_start[n] as usize..self.out_start[n + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `a` —l0— `b`, `b` —l1— `c`, `b` —l2— `c` (two links between b and c).
    fn parallel() -> Topology {
        let link = |i: u32, name: &str, a: u32, b: u32| LinkInfo {
            name: name.into(),
            radio: false,
            between: [NodeId(a), NodeId(b)],
            dirs: [DirId(2 * i), DirId(2 * i + 1)],
        };
        Topology::new(
            vec!["a".into(), "b".into(), "c".into()],
            vec![link(0, "l0", 0, 1), link(1, "l1", 1, 2), link(2, "l2", 1, 2)],
        )
    }

    #[test]
    fn interfaces_are_the_directions_leaving_a_node_in_link_order() {
        let t = parallel();
        assert_eq!(t.interfaces(NodeId(0)), &[DirId(0)]);
        assert_eq!(t.interfaces(NodeId(1)), &[DirId(1), DirId(2), DirId(4)]);
        assert_eq!(t.interfaces(NodeId(2)), &[DirId(3), DirId(5)]);
    }

    #[test]
    fn directions_know_their_ends_link_and_reverse() {
        let t = parallel();
        assert_eq!((t.from(DirId(5)), t.to(DirId(5))), (NodeId(2), NodeId(1)));
        assert_eq!(t.link_of(DirId(5)).name, "l2");
        assert_eq!(t.reverse(DirId(5)), DirId(4));
        assert_eq!(t.reverse(DirId(0)), DirId(1));
        assert_eq!(t.node("c"), Some(NodeId(2)));
        assert_eq!(t.node("d"), None);
    }
}
