//! Plane geometry for deterministic blockage: points, a terminal on a straight line at constant
//! velocity, axis-aligned rectangular obstacles, a seeded random obstacle layout, and the test
//! "does the base-station–terminal segment cross an obstacle?" (LOS iff it crosses none).
//!
//! Serves the mobility experiment of Polese et al. 2017a §V (Polese, Jana, Zorzi): eNB at (−1, 20) m, UE from
//! (151, 0) to (151, 40) m at 2 or 5 m/s, 10 random non-overlapping obstacles between them (their
//! Fig. 10). The ns-3 buildings module the seed used decides LOS the same way (a ray between the
//! two antennas against box-shaped buildings); heights are ignored here: an obstacle blocks
//! whatever its height.
//!
//! Rectangles are closed: a segment that touches an edge or a corner is blocked. Grazing contacts
//! have measure zero along a trajectory, so the choice only matters for hand-made layouts.
//!
//! For a moving terminal, [`visibility_schedule`] computes exactly when the segment starts or stops
//! crossing each obstacle, so a channel can switch LOS/NLOS at those instants rather than at the
//! next update tick.

use crate::sim::Rng;
use std::fmt;

/// A point (or a vector) in the plane, metres.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    pub const fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    /// Euclidean distance to `other`, m.
    pub fn distance(self, other: Point) -> f64 {
        libm::hypot(self.x - other.x, self.y - other.y)
    }

    fn minus(self, o: Point) -> Point {
        Point::new(self.x - o.x, self.y - o.y)
    }

    /// z-component of the cross product self × o.
    fn cross(self, o: Point) -> f64 {
        self.x * o.y - self.y * o.x
    }
}

/// A terminal moving on a straight line at constant velocity: p(t) = start + velocity·t.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearMotion {
    /// Position at t = 0, m.
    pub start: Point,
    /// Velocity, m/s (zero for a static terminal).
    pub velocity: Point,
}

impl LinearMotion {
    /// A terminal that does not move.
    pub fn fixed(at: Point) -> LinearMotion {
        LinearMotion { start: at, velocity: Point::new(0.0, 0.0) }
    }

    /// Position at `t_s` seconds.
    pub fn position_at(&self, t_s: f64) -> Point {
        Point::new(self.start.x + self.velocity.x * t_s, self.start.y + self.velocity.y * t_s)
    }

    /// Speed, m/s.
    pub fn speed(&self) -> f64 {
        libm::hypot(self.velocity.x, self.velocity.y)
    }

    pub fn is_static(&self) -> bool {
        self.velocity.x == 0.0 && self.velocity.y == 0.0
    }
}

/// An axis-aligned closed rectangle [min.x, max.x] × [min.y, max.y], m.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub min: Point,
    pub max: Point,
}

impl Rect {
    /// The rectangle spanned by two opposite corners, in any order.
    pub fn from_corners(a: Point, b: Point) -> Rect {
        Rect { min: Point::new(a.x.min(b.x), a.y.min(b.y)), max: Point::new(a.x.max(b.x), a.y.max(b.y)) }
    }

    pub fn width(&self) -> f64 {
        self.max.x - self.min.x
    }

    pub fn height(&self) -> f64 {
        self.max.y - self.min.y
    }

    /// True if `p` lies in the rectangle or on its boundary.
    pub fn contains(&self, p: Point) -> bool {
        self.min.x <= p.x && p.x <= self.max.x && self.min.y <= p.y && p.y <= self.max.y
    }

    /// True if the two closed rectangles share at least one point (touching counts).
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
    }

    fn corners(&self) -> [Point; 4] {
        [self.min, Point::new(self.max.x, self.min.y), self.max, Point::new(self.min.x, self.max.y)]
    }

    /// True if the closed segment a–b shares a point with the closed rectangle.
    ///
    /// Liang–Barsky clipping: the segment a + s·(b − a), s ∈ [0, 1], is cut against the four
    /// half-planes; it meets the rectangle iff the surviving parameter interval is non-empty.
    pub fn intersects_segment(&self, a: Point, b: Point) -> bool {
        let d = b.minus(a);
        let (mut s0, mut s1) = (0.0_f64, 1.0_f64);
        // Each pair (p, q) encodes the half-plane p·s ≤ q.
        let planes = [
            (-d.x, a.x - self.min.x),
            (d.x, self.max.x - a.x),
            (-d.y, a.y - self.min.y),
            (d.y, self.max.y - a.y),
        ];
        for (p, q) in planes {
            if p == 0.0 {
                // Parallel to this boundary: inside the half-plane or never.
                if q < 0.0 {
                    return false;
                }
            } else {
                let s = q / p;
                if p < 0.0 {
                    // Entering.
                    if s > s1 {
                        return false;
                    }
                    s0 = s0.max(s);
                } else {
                    // Leaving.
                    if s < s0 {
                        return false;
                    }
                    s1 = s1.min(s);
                }
            }
        }
        s0 <= s1
    }
}

/// True if the segment a–b crosses (or touches) any of `obstacles`.
pub fn is_blocked(a: Point, b: Point, obstacles: &[Rect]) -> bool {
    obstacles.iter().any(|r| r.intersects_segment(a, b))
}

/// How many random positions are tried for one obstacle before the layout is declared impossible.
pub const PLACEMENT_ATTEMPTS: u32 = 10_000;

/// A random layout: `count` rectangles whose width and height are drawn independently and
/// uniformly in [min_size_m, max_size_m], placed uniformly inside `area`, pairwise disjoint
/// (not even touching).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObstacleLayout {
    pub count: usize,
    pub min_size_m: f64,
    pub max_size_m: f64,
    pub area: Rect,
}

/// A layout that could not be completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlacementError {
    /// Obstacles placed before giving up.
    pub placed: usize,
    /// Obstacles asked for.
    pub count: usize,
}

impl fmt::Display for PlacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "placed only {} of {} non-overlapping obstacles after {} random positions for the next one; \
             use a larger area, fewer obstacles or smaller sizes",
            self.placed, self.count, PLACEMENT_ATTEMPTS
        )
    }
}

impl ObstacleLayout {
    /// Places the obstacles one after another by rejection sampling: a candidate that overlaps an
    /// already placed obstacle or covers one of the `keep_clear` points (the antennas) is
    /// discarded, at most [`PLACEMENT_ATTEMPTS`] times per obstacle. Sizes are capped at the
    /// area's sides.
    pub fn place(&self, rng: &mut Rng, keep_clear: &[Point]) -> Result<Vec<Rect>, PlacementError> {
        let mut placed: Vec<Rect> = Vec::with_capacity(self.count);
        let area = self.area;
        for _ in 0..self.count {
            let mut found = None;
            for _ in 0..PLACEMENT_ATTEMPTS {
                let w = self.size(rng, area.width());
                let h = self.size(rng, area.height());
                let x = area.min.x + rng.uniform() * (area.width() - w);
                let y = area.min.y + rng.uniform() * (area.height() - h);
                let candidate = Rect { min: Point::new(x, y), max: Point::new(x + w, y + h) };
                if !placed.iter().any(|r| r.overlaps(&candidate))
                    && !keep_clear.iter().any(|&p| candidate.contains(p))
                {
                    found = Some(candidate);
                    break;
                }
            }
            match found {
                Some(r) => placed.push(r),
                None => return Err(PlacementError { placed: placed.len(), count: self.count }),
            }
        }
        Ok(placed)
    }

    fn size(&self, rng: &mut Rng, side: f64) -> f64 {
        let hi = self.max_size_m.min(side);
        let lo = self.min_size_m.min(hi);
        lo + rng.uniform() * (hi - lo)
    }
}

/// Times at which the blockage of the segment `bs`–p(t) may change, for t > 0: when the moving
/// end crosses the line of a rectangle edge, and when the segment sweeps over a rectangle corner
/// (p(t) − bs and corner − bs become parallel). Every change of [`is_blocked`] happens at one of
/// these (a superset: some are not changes).
fn candidate_times(bs: Point, ue: &LinearMotion, obstacles: &[Rect], out: &mut Vec<f64>) {
    let v = ue.velocity;
    let rel = ue.start.minus(bs);
    for r in obstacles {
        for c in r.corners() {
            let w = c.minus(bs);
            // cross(rel + v·t, w) = 0  ⇔  t = −cross(rel, w) / cross(v, w)
            let denom = v.cross(w);
            if denom != 0.0 {
                out.push(-rel.cross(w) / denom);
            }
        }
        if v.x != 0.0 {
            out.push((r.min.x - ue.start.x) / v.x);
            out.push((r.max.x - ue.start.x) / v.x);
        }
        if v.y != 0.0 {
            out.push((r.min.y - ue.start.y) / v.y);
            out.push((r.max.y - ue.start.y) / v.y);
        }
    }
}

/// The blockage of the segment `bs`–p(t) over all t ≥ 0 as a list of (from time in s, blocked),
/// starting at 0, one entry per change. Within each interval between candidate instants the
/// state is evaluated at the midpoint, so a momentary grazing contact at an instant is not a
/// state of its own. A static terminal gives a single entry.
pub fn visibility_schedule(bs: Point, ue: &LinearMotion, obstacles: &[Rect]) -> Vec<(f64, bool)> {
    let mut times = Vec::new();
    if !ue.is_static() {
        candidate_times(bs, ue, obstacles, &mut times);
    }
    times.retain(|t| t.is_finite() && *t > 0.0);
    times.sort_by(f64::total_cmp);
    // Instants closer than 1 ns are one instant (the engine's clock is integer picoseconds).
    times.dedup_by(|later, earlier| *later - *earlier < 1e-9);
    let blocked_at = |t: f64| is_blocked(bs, ue.position_at(t), obstacles);
    let mut schedule = Vec::with_capacity(times.len() + 1);
    let mut from = 0.0;
    for i in 0..=times.len() {
        let probe = match times.get(i) {
            Some(&next) => 0.5 * (from + next),
            None => from + 1.0,
        };
        let blocked = blocked_at(probe);
        if schedule.last().is_none_or(|&(_, b)| b != blocked) {
            schedule.push((from, blocked));
        }
        if let Some(&next) = times.get(i) {
            from = next;
        }
    }
    schedule
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: f64, y: f64) -> Point {
        Point::new(x, y)
    }

    fn unit() -> Rect {
        Rect::from_corners(p(0.0, 0.0), p(1.0, 1.0))
    }

    /// Both directions of a segment must agree.
    fn hits(r: &Rect, a: Point, b: Point) -> bool {
        let forward = r.intersects_segment(a, b);
        assert_eq!(forward, r.intersects_segment(b, a), "asymmetric for {a:?}–{b:?}");
        forward
    }

    #[test]
    fn test_segment_crossing_and_missing() {
        let r = unit();
        assert!(hits(&r, p(-1.0, 0.5), p(2.0, 0.5)), "straight through");
        assert!(hits(&r, p(-1.0, -1.0), p(2.0, 2.0)), "through the diagonal");
        assert!(!hits(&r, p(-3.0, -1.0), p(-2.0, 5.0)), "entirely to the left");
        assert!(!hits(&r, p(2.0, 0.0), p(0.0, 2.1)), "passes just outside the corner (1, 1)");
        assert!(hits(&r, p(2.0, 0.0), p(0.0, 1.9)), "cuts the corner (1, 1)");
        assert!(!hits(&r, p(-1.0, 0.5), p(-0.001, 0.5)), "stops short of the left edge");
        assert!(hits(&r, p(0.2, 0.2), p(0.8, 0.7)), "entirely inside");
        assert!(hits(&r, p(0.5, 0.5), p(5.0, 7.0)), "starts inside");
    }

    #[test]
    fn test_segment_touching_is_blocked() {
        let r = unit();
        assert!(hits(&r, p(2.0, 0.0), p(0.0, 2.0)), "touches the corner (1, 1) only");
        assert!(hits(&r, p(-1.0, 0.5), p(0.0, 0.5)), "ends on the left edge");
        assert!(hits(&r, p(-1.0, 1.0), p(3.0, 1.0)), "runs along the top edge");
        assert!(!hits(&r, p(-1.0, 1.0 + 1e-9), p(3.0, 1.0 + 1e-9)), "parallel just above the top edge");
        assert!(hits(&r, p(1.0, -2.0), p(1.0, 3.0)), "vertical along the right edge");
        assert!(!hits(&r, p(1.5, -2.0), p(1.5, 3.0)), "vertical to the right");
    }

    #[test]
    fn test_degenerate_segment_is_a_point() {
        let r = unit();
        assert!(hits(&r, p(0.5, 0.5), p(0.5, 0.5)));
        assert!(hits(&r, p(1.0, 0.3), p(1.0, 0.3)), "on the boundary");
        assert!(!hits(&r, p(1.5, 0.5), p(1.5, 0.5)));
    }

    #[test]
    fn test_is_blocked_any_obstacle() {
        let obstacles = [Rect::from_corners(p(10.0, -5.0), p(12.0, -1.0)), unit()];
        assert!(is_blocked(p(-1.0, 0.5), p(5.0, 0.5), &obstacles));
        assert!(!is_blocked(p(-1.0, 2.0), p(5.0, 2.0), &obstacles));
        assert!(!is_blocked(p(-1.0, 2.0), p(5.0, 2.0), &[]));
    }

    #[test]
    fn test_rect_overlap_includes_touching() {
        let r = unit();
        assert!(r.overlaps(&Rect::from_corners(p(1.0, 0.0), p(2.0, 1.0))), "shared edge");
        assert!(r.overlaps(&Rect::from_corners(p(1.0, 1.0), p(2.0, 2.0))), "shared corner");
        assert!(r.overlaps(&Rect::from_corners(p(0.2, 0.2), p(0.3, 0.3))), "nested");
        assert!(!r.overlaps(&Rect::from_corners(p(1.01, 0.0), p(2.0, 1.0))));
        assert!(!r.overlaps(&Rect::from_corners(p(0.0, 1.5), p(1.0, 2.0))));
    }

    #[test]
    fn test_linear_motion() {
        let m = LinearMotion { start: p(151.0, 0.0), velocity: p(0.0, 2.0) };
        assert_eq!(m.position_at(0.0), p(151.0, 0.0));
        assert_eq!(m.position_at(20.0), p(151.0, 40.0));
        assert_eq!(m.speed(), 2.0);
        assert!(LinearMotion::fixed(p(1.0, 2.0)).is_static());
        assert_eq!(p(0.0, 0.0).distance(p(3.0, 4.0)), 5.0);
    }

    #[test]
    fn test_layout_is_seeded_disjoint_and_inside() {
        let layout = ObstacleLayout {
            count: 10,
            min_size_m: 2.0,
            max_size_m: 8.0,
            area: Rect::from_corners(p(0.0, 0.0), p(150.0, 40.0)),
        };
        for seed in 0..50 {
            let obstacles = layout.place(&mut Rng::for_component(seed, "obstacles"), &[]).unwrap();
            assert_eq!(obstacles.len(), 10);
            for (i, a) in obstacles.iter().enumerate() {
                assert!(layout.area.contains(a.min) && layout.area.contains(a.max), "{a:?} outside");
                assert!((2.0..=8.0).contains(&a.width()) && (2.0..=8.0).contains(&a.height()), "{a:?}");
                for b in &obstacles[i + 1..] {
                    assert!(!a.overlaps(b), "seed {seed}: {a:?} overlaps {b:?}");
                }
            }
            let again = layout.place(&mut Rng::for_component(seed, "obstacles"), &[]).unwrap();
            assert_eq!(obstacles, again, "same seed, same layout");
        }
        let a = layout.place(&mut Rng::for_component(1, "obstacles"), &[]).unwrap();
        let b = layout.place(&mut Rng::for_component(2, "obstacles"), &[]).unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn test_layout_keeps_the_antennas_clear() {
        // Dense enough that, unchecked, some obstacle would cover one of the points.
        let layout = ObstacleLayout {
            count: 12,
            min_size_m: 2.0,
            max_size_m: 3.0,
            area: Rect::from_corners(p(0.0, 0.0), p(20.0, 20.0)),
        };
        let clear = [p(10.0, 10.0), p(5.0, 15.0), p(0.0, 0.0)];
        let mut covered_without = 0;
        for seed in 0..50 {
            let obstacles = layout.place(&mut Rng::for_component(seed, "o"), &clear).unwrap();
            assert!(obstacles.iter().all(|r| clear.iter().all(|&c| !r.contains(c))), "seed {seed}");
            let free = layout.place(&mut Rng::for_component(seed, "o"), &[]).unwrap();
            covered_without += free.iter().filter(|r| clear.iter().any(|&c| r.contains(c))).count();
        }
        assert!(covered_without > 0, "the test layout is too sparse to show anything");
    }

    #[test]
    fn test_impossible_layout_is_an_error() {
        // Four 6 m squares cannot be disjoint inside a 10 m square.
        let layout = ObstacleLayout {
            count: 4,
            min_size_m: 6.0,
            max_size_m: 6.0,
            area: Rect::from_corners(p(0.0, 0.0), p(10.0, 10.0)),
        };
        let err = layout.place(&mut Rng::for_component(1, "o"), &[]).unwrap_err();
        assert_eq!(err, PlacementError { placed: 1, count: 4 });
        assert!(err.to_string().contains("placed only 1 of 4"), "{err}");
    }

    #[test]
    fn test_schedule_of_a_single_obstacle_is_exact() {
        // BS at the origin, UE moving up along x = 10 at 1 m/s from y = −5; an obstacle spanning
        // x ∈ [4, 6], y ∈ [1, 2]. The ray to the UE at (10, y) passes x = 4..6 at heights
        // 0.4y..0.6y, so it is blocked iff 0.4y ≤ 2 and 0.6y ≥ 1, i.e. y ∈ [5/3, 5]:
        // t ∈ [5/3 + 5, 5 + 5].
        let bs = p(0.0, 0.0);
        let ue = LinearMotion { start: p(10.0, -5.0), velocity: p(0.0, 1.0) };
        let obstacles = [Rect::from_corners(p(4.0, 1.0), p(6.0, 2.0))];
        let s = visibility_schedule(bs, &ue, &obstacles);
        assert_eq!(s.len(), 3, "{s:?}");
        assert_eq!(s[0], (0.0, false));
        assert!((s[1].0 - (5.0 + 5.0 / 3.0)).abs() < 1e-12 && s[1].1, "{s:?}");
        assert!((s[2].0 - 10.0).abs() < 1e-12 && !s[2].1, "{s:?}");
    }

    #[test]
    fn test_schedule_matches_brute_force_in_seed_003_scenario() {
        // Polese et al. 2017a §V: eNB (−1, 20), UE (151, 0) → (151, 40) at 2 m/s, 10 obstacles in between.
        let bs = p(-1.0, 20.0);
        let ue = LinearMotion { start: p(151.0, 0.0), velocity: p(0.0, 2.0) };
        let layout = ObstacleLayout {
            count: 10,
            min_size_m: 2.0,
            max_size_m: 8.0,
            area: Rect::from_corners(p(0.0, 0.0), p(150.0, 40.0)),
        };
        let mut changes_seen = 0;
        for seed in 0..20 {
            let obstacles = layout.place(&mut Rng::for_component(seed, "obstacles"), &[]).unwrap();
            let schedule = visibility_schedule(bs, &ue, &obstacles);
            changes_seen += schedule.len() - 1;
            // Every 1 ms of the 20 s crossing agrees with the schedule, except within 1 µs of a
            // scheduled change.
            let state_at = |t: f64| schedule.iter().rev().find(|(from, _)| *from <= t).unwrap().1;
            for k in 0..20_000 {
                let t = k as f64 * 1e-3;
                if schedule.iter().any(|(from, _)| (from - t).abs() < 1e-6) {
                    continue;
                }
                assert_eq!(
                    state_at(t),
                    is_blocked(bs, ue.position_at(t), &obstacles),
                    "seed {seed}, t = {t}: {schedule:?}"
                );
            }
            // Each scheduled change is real: the state differs just before and just after.
            for w in schedule.windows(2) {
                let t = w[1].0;
                assert_ne!(
                    is_blocked(bs, ue.position_at(t - 1e-6), &obstacles),
                    is_blocked(bs, ue.position_at(t + 1e-6), &obstacles),
                    "seed {seed}: no change at {t}"
                );
            }
        }
        assert!(changes_seen > 20, "the layouts should block the UE now and then ({changes_seen})");
    }

    #[test]
    fn test_static_terminal_has_one_state() {
        let obstacles = [unit()];
        let s = visibility_schedule(p(-1.0, 0.5), &LinearMotion::fixed(p(3.0, 0.5)), &obstacles);
        assert_eq!(s, vec![(0.0, true)]);
        let s = visibility_schedule(p(-1.0, 5.0), &LinearMotion::fixed(p(3.0, 5.0)), &obstacles);
        assert_eq!(s, vec![(0.0, false)]);
    }
}
