//! Routes: the list of link directions a packet crosses, carried by the packet (as in htsim).
//!
//! Each flow has two routes, one for its data (sender → receiver) and one for its ACKs
//! (receiver → sender), fixed when the world is built:
//!
//! - **automatic** (the default): the fewest hops. Among equally short paths the search takes the
//!   one that leaves the sender by the link listed first in the scenario, then, from the next
//!   node, again by the first-listed link that still lies on a shortest path, and so on (the
//!   lexicographically smallest sequence of link indices, compared from the sender; a
//!   breadth-first search from the sender that tries each node's links in the order listed finds
//!   it). ACKs take the data path's links back.
//! - **pinned**: the scenario lists the nodes (`path`, `ack_path`), with a link's name between two
//!   nodes where several links join them ([`resolve_path`]).
//!
//! A packet a processor sends out of an interface of its choice leaves its route; from the next
//! node on it follows the automatic route from that node to its destination, found when first
//! needed and kept ([`RouteTable::toward`]). Nothing here is a node × node table: memory grows
//! with the flows and the detours actually taken.

use super::Topology;
use crate::ids::{DirId, NodeId, RouteId};
use std::collections::{HashMap, VecDeque};

/// Every route of a run: the directions of all routes in one vector.
#[derive(Debug, Default)]
pub struct RouteTable {
    hops: Vec<DirId>,
    /// Per route: where its directions start in `hops`, and how many there are.
    spans: Vec<(u32, u32)>,
    /// Routes found on demand for packets off their route: (node, destination) → route.
    toward: HashMap<(NodeId, NodeId), RouteId>,
}

impl RouteTable {
    /// Adds a route crossing `dirs` in order.
    pub fn add(&mut self, dirs: &[DirId]) -> RouteId {
        let id = RouteId(u32::try_from(self.spans.len()).expect("fewer than 2^32 routes"));
        assert!(id != RouteId::NONE, "fewer than 2^32 - 1 routes");
        self.spans.push((self.hops.len() as u32, dirs.len() as u32));
        self.hops.extend_from_slice(dirs);
        id
    }

    /// The directions of `route`, in the order a packet crosses them.
    pub fn hops(&self, route: RouteId) -> &[DirId] {
        let (start, len) = self.spans[route.0 as usize];
        &self.hops[start as usize..(start + len) as usize]
    }

    /// Hop `hop` of `route`: `None` past its end or for [`RouteId::NONE`].
    #[inline]
    pub fn hop(&self, route: RouteId, hop: u8) -> Option<DirId> {
        let &(start, len) = self.spans.get(route.0 as usize)?;
        (u32::from(hop) < len).then(|| self.hops[(start + u32::from(hop)) as usize])
    }

    /// The automatic route from `node` to `dst`, found the first time it is asked for and kept
    /// (`None` when no links lead there).
    pub fn toward(&mut self, topology: &Topology, node: NodeId, dst: NodeId) -> Option<RouteId> {
        if let Some(&route) = self.toward.get(&(node, dst)) {
            return Some(route);
        }
        let mut search = PathSearch::new(topology.nodes());
        search.run(topology, node, &[dst]);
        let path = search.path_to(topology, dst)?;
        let route = self.add(&path);
        self.toward.insert((node, dst), route);
        Some(route)
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

/// Breadth-first search from one node, reusable from one source to the next without
/// allocating (a generation number marks the nodes reached by the current search).
pub struct PathSearch {
    /// Per node: the direction it was first reached by, valid when `seen[n] == generation`.
    parent: Vec<DirId>,
    seen: Vec<u32>,
    /// `target[n] == generation`: node `n` is one the current search looks for.
    target: Vec<u32>,
    generation: u32,
    source: NodeId,
    frontier: VecDeque<NodeId>,
}

impl PathSearch {
    pub fn new(nodes: usize) -> PathSearch {
        PathSearch {
            parent: vec![DirId(u32::MAX); nodes],
            seen: vec![0; nodes],
            target: vec![0; nodes],
            generation: 0,
            source: NodeId(0),
            frontier: VecDeque::new(),
        }
    }

    /// Searches from `source` until every node of `targets` is reached (or all reachable nodes
    /// are). Each node's links are tried in the order listed, so the first time a node is reached
    /// is along the lexicographically smallest shortest path (see the module documentation).
    pub fn run(&mut self, topology: &Topology, source: NodeId, targets: &[NodeId]) {
        self.generation += 1;
        self.source = source;
        let g = self.generation;
        self.seen[source.0 as usize] = g;
        let mut missing = 0;
        for &t in targets {
            if t != source && self.target[t.0 as usize] != g {
                self.target[t.0 as usize] = g;
                missing += 1;
            }
        }
        self.frontier.clear();
        self.frontier.push_back(source);
        while let Some(u) = self.frontier.pop_front() {
            if missing == 0 {
                break;
            }
            for &dir in topology.interfaces(u) {
                let v = topology.to(dir);
                if self.seen[v.0 as usize] == g {
                    continue;
                }
                self.seen[v.0 as usize] = g;
                self.parent[v.0 as usize] = dir;
                self.frontier.push_back(v);
                if self.target[v.0 as usize] == g {
                    missing -= 1;
                }
            }
        }
    }

    /// The path the last search found from its source to `dst` (`None` if not reached, or if
    /// `dst` is the source).
    pub fn path_to(&self, topology: &Topology, dst: NodeId) -> Option<Vec<DirId>> {
        if dst == self.source || self.seen[dst.0 as usize] != self.generation {
            return None;
        }
        let mut path = Vec::new();
        let mut at = dst;
        while at != self.source {
            let dir = self.parent[at.0 as usize];
            path.push(dir);
            at = topology.from(dir);
        }
        path.reverse();
        Some(path)
    }
}

/// The same links as `path`, crossed the other way (the ACK route of a data route).
pub fn reversed(topology: &Topology, path: &[DirId]) -> Vec<DirId> {
    path.iter().rev().map(|&d| topology.reverse(d)).collect()
}

/// The directions of a path written as names: nodes, with a link's name between two nodes to
/// choose among several links joining them (`["server", "enb", "mmw", "ue"]`). `link_named`
/// gives the index of the link a name stands for. The error is a message for the path's field.
pub fn resolve_path(
    topology: &Topology,
    names: &[String],
    node_named: &dyn Fn(&str) -> Option<NodeId>,
    link_named: &dyn Fn(&str) -> Option<usize>,
) -> Result<Vec<DirId>, String> {
    // First the names: nodes, each followed by the link to the next node when one is named.
    let mut stops: Vec<(NodeId, Option<usize>)> = Vec::new();
    let mut link_pending: Option<(usize, &str)> = None;
    for name in names {
        match (node_named(name), link_named(name)) {
            (Some(_), Some(_)) => {
                return Err(format!(
                    "\"{name}\" names both a node and a link; rename one to use it in a path"
                ))
            }
            (Some(node), None) => {
                if let Some(last) = stops.last_mut() {
                    last.1 = link_pending.take().map(|(l, _)| l);
                } else if let Some((_, link)) = link_pending {
                    return Err(format!("starts with link \"{link}\"; a path starts with a node"));
                }
                if stops.iter().any(|&(n, _)| n == node) {
                    return Err(format!("visits \"{name}\" twice; a path visits each node once"));
                }
                stops.push((node, None));
            }
            (None, Some(link)) => {
                if let Some((_, before)) = link_pending {
                    return Err(format!(
                        "links \"{before}\" and \"{name}\" follow each other; a link stands between two nodes"
                    ));
                }
                link_pending = Some((link, name.as_str()));
            }
            (None, None) => return Err(format!("\"{name}\" is neither a node nor a link")),
        }
    }
    if let Some((_, link)) = link_pending {
        return Err(format!("ends with link \"{link}\"; a path ends with a node"));
    }
    if stops.len() < 2 {
        return Err("lists fewer than two nodes; a path goes from one node to another".into());
    }
    // Then the directions between consecutive nodes.
    let mut dirs = Vec::with_capacity(stops.len() - 1);
    for pair in stops.windows(2) {
        let [(a, link), (b, _)] = [pair[0], pair[1]];
        let joining: Vec<DirId> =
            topology.interfaces(a).iter().copied().filter(|&d| topology.to(d) == b).collect();
        let (na, nb) = (topology.node_name(a), topology.node_name(b));
        let dir = match link {
            Some(l) => {
                let info = &topology.links()[l];
                *joining.iter().find(|&&d| info.dirs.contains(&d)).ok_or_else(|| {
                    format!(
                        "link \"{}\" does not join \"{na}\" and \"{nb}\" (it joins \"{}\" and \"{}\")",
                        info.name,
                        topology.node_name(info.between[0]),
                        topology.node_name(info.between[1])
                    )
                })?
            }
            None => match joining.as_slice() {
                [] => return Err(format!("\"{na}\" and \"{nb}\" are not neighbours: no link joins them")),
                [only] => *only,
                several => {
                    let names: Vec<&str> =
                        several.iter().map(|&d| topology.link_of(d).name.as_str()).collect();
                    return Err(format!(
                        "several links join \"{na}\" and \"{nb}\" ({}); name one between them, e.g. [..., \"{na}\", \"{}\", \"{nb}\", ...]",
                        names.join(", "),
                        names[0]
                    ));
                }
            },
        };
        dirs.push(dir);
    }
    Ok(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::LinkInfo;

    fn n(i: u32) -> NodeId {
        NodeId(i)
    }

    /// Nodes `0..nodes`, link `i` joining `ends[i]`, directions 2i (forward) and 2i + 1.
    fn topology(nodes: u32, ends: &[(u32, u32)]) -> Topology {
        let links = ends
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| LinkInfo {
                name: format!("l{i}"),
                radio: false,
                between: [n(a), n(b)],
                dirs: [DirId(2 * i as u32), DirId(2 * i as u32 + 1)],
            })
            .collect();
        Topology::new((0..nodes).map(|i| format!("n{i}")).collect(), links)
    }

    fn path(t: &Topology, from: u32, to: u32) -> Option<Vec<DirId>> {
        let mut s = PathSearch::new(t.nodes());
        s.run(t, n(from), &[n(to)]);
        s.path_to(t, n(to))
    }

    fn d(ids: &[u32]) -> Vec<DirId> {
        ids.iter().map(|&i| DirId(i)).collect()
    }

    #[test]
    fn a_chain_is_crossed_forward_and_back() {
        let t = topology(3, &[(0, 1), (1, 2)]);
        assert_eq!(path(&t, 0, 2), Some(d(&[0, 2])));
        assert_eq!(path(&t, 2, 0), Some(d(&[3, 1])));
        assert_eq!(reversed(&t, &d(&[0, 2])), d(&[3, 1]));
        assert_eq!(path(&t, 0, 0), None, "no route to itself");
    }

    #[test]
    fn fewest_hops_win_over_link_order() {
        // 0→1→3 and 0→2→3 are two hops; the direct link 0—3 is listed last and wins.
        let t = topology(4, &[(0, 1), (1, 3), (0, 2), (2, 3), (0, 3)]);
        assert_eq!(path(&t, 0, 3), Some(d(&[8])));
    }

    #[test]
    fn among_equal_paths_each_node_leaves_by_its_first_listed_link() {
        // Two 2-hop paths 0→1→3 (links 0, 3) and 0→2→3 (links 1, 2): the sender's first-listed
        // link (0) decides, although the other path's last link (2) is listed before link 3.
        let t = topology(4, &[(0, 1), (0, 2), (2, 3), (1, 3)]);
        assert_eq!(path(&t, 0, 3), Some(d(&[0, 6])));
        // From 3 back to 0, 3's first-listed link (2, to node 2) decides.
        assert_eq!(path(&t, 3, 0), Some(d(&[5, 3])));
        // Two parallel links between the same nodes: the first listed.
        let t = topology(2, &[(0, 1), (0, 1)]);
        assert_eq!(path(&t, 0, 1), Some(d(&[0])));
        assert_eq!(path(&t, 1, 0), Some(d(&[1])));
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let t = topology(3, &[(0, 1)]);
        assert_eq!(path(&t, 0, 2), None);
        assert_eq!(RouteTable::default().toward(&t, n(0), n(2)), None);
    }

    #[test]
    fn one_search_serves_every_target_and_the_next_search_starts_clean() {
        // A star: hub 0, leaves 1..=3.
        let t = topology(4, &[(0, 1), (0, 2), (0, 3)]);
        let mut s = PathSearch::new(4);
        s.run(&t, n(1), &[n(2), n(3)]);
        assert_eq!(s.path_to(&t, n(2)), Some(d(&[1, 2])));
        assert_eq!(s.path_to(&t, n(3)), Some(d(&[1, 4])));
        s.run(&t, n(2), &[n(0)]);
        assert_eq!(s.path_to(&t, n(0)), Some(d(&[3])));
        assert_eq!(s.path_to(&t, n(2)), None, "the source itself");
    }

    #[test]
    fn the_table_holds_routes_and_detours_once() {
        let t = topology(3, &[(0, 1), (1, 2)]);
        let mut table = RouteTable::default();
        let r = table.add(&d(&[0, 2]));
        assert_eq!(table.hops(r), &d(&[0, 2])[..]);
        assert_eq!(
            (table.hop(r, 0), table.hop(r, 1), table.hop(r, 2)),
            (Some(DirId(0)), Some(DirId(2)), None)
        );
        assert_eq!(table.hop(RouteId::NONE, 0), None);
        let detour = table.toward(&t, n(1), n(0)).unwrap();
        assert_eq!(table.hops(detour), &d(&[1])[..]);
        assert_eq!(table.toward(&t, n(1), n(0)), Some(detour), "kept, not searched again");
        assert_eq!(table.len(), 2);
    }

    fn resolve(t: &Topology, names: &[&str]) -> Result<Vec<DirId>, String> {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let node = |s: &str| t.node(s);
        let link = |s: &str| t.links().iter().position(|l| l.name == s);
        resolve_path(t, &names, &node, &link)
    }

    #[test]
    fn a_pinned_path_names_nodes_and_a_link_where_several_join_them() {
        // n0 —l0— n1, and n1 —l1— n2, n1 —l2— n2 in parallel.
        let t = topology(3, &[(0, 1), (1, 2), (1, 2)]);
        assert_eq!(resolve(&t, &["n0", "n1", "l2", "n2"]), Ok(d(&[0, 4])));
        assert_eq!(resolve(&t, &["n2", "l1", "n1", "n0"]), Ok(d(&[3, 1])));
        assert_eq!(resolve(&t, &["n0", "l0", "n1"]), Ok(d(&[0])), "a link may be named where one joins");
    }

    #[test]
    fn a_bad_pinned_path_says_what_is_wrong() {
        let t = topology(4, &[(0, 1), (1, 2), (1, 2)]);
        let err = |names: &[&str]| resolve(&t, names).unwrap_err();
        assert!(err(&["n0", "n2"]).contains("\"n0\" and \"n2\" are not neighbours"));
        assert!(err(&["n1", "n2"]).contains("several links join \"n1\" and \"n2\" (l1, l2)"));
        assert!(err(&["n0", "l1", "n1"]).contains("link \"l1\" does not join \"n0\" and \"n1\""));
        assert!(err(&["n0", "x"]).contains("\"x\" is neither a node nor a link"));
        assert!(err(&["n0"]).contains("fewer than two nodes"));
        assert!(err(&["n0", "n1", "n0"]).contains("visits \"n0\" twice"));
        assert!(err(&["l0", "n1"]).contains("starts with link"));
        assert!(err(&["n1", "l1"]).contains("ends with link"));
        assert!(err(&["n1", "l1", "l2", "n2"]).contains("follow each other"));
        let links = topology(2, &[(0, 1)]).links().to_vec();
        let clash = Topology::new(vec!["n0".into(), "l0".into()], links);
        assert!(resolve(&clash, &["n0", "l0"]).unwrap_err().contains("names both a node and a link"));
    }
}
