"""The paper's claims an experiment checks: `[[claims]]` tables of experiment.toml, checked when
the experiment loads, and evaluated on a sweep's runs into a verdict ("holds", "fails" or
"not testable") with the estimate and its 95 % confidence interval.

A claim quotes the paper (`quote`), gives the paper's number (`paper`, or "qualitative") and a
predicate over the sweep's results, `kind`:

- `value`: the mean of `metric` at the point(s) `at`, within `min` / `max`;
- `ratio`: mean at `at` / mean at `over`, within `min` / `max`;
- `difference`: the mean over the seeds of (value at `at` - value at `over`), same seed at both
  points, within `min` / `max`;
- `order`: the means at `points` (a list of selectors) strictly decreasing (`direction =
  "decreasing"`, the default) or increasing.

`target` and `tolerance` (relative) may replace `min` / `max`: the bounds are
target x (1 ± tolerance).

Selecting points: a selector (`at`, `over`, an element of `points`) is a table of override path →
value. A point matches when it has every one of those overrides (numbers compare by value; a
table or a list of tables in the selector matches when each of its keys is present with that
value, so `[{ kind = "mmpep" }]` matches `[{ kind = "mmpep", cache = "64MB" }]`; if that matches
several values of the path, the one equal to the selector's is taken, and without one the
selector is an error), and it has no other override of its own except the paths listed in
`pool`. Points matched together differ only
in `pool` paths; their runs are pooled seed by seed (a seed's value is the mean over the matched
points of that seed's runs). So a claim names a grid value for every grid path, or pools over it
explicitly; a new grid path or value makes a claim an error at load time, not a silent change.

Verdict: decided on the point estimate (the mean, the ratio of means, the mean difference, the
order of the means). The 95 % CI (Student t over the seeds; for a ratio R = mean(A) / mean(B),
the linearised interval R ± t · sd(A - R·B) / (√n · |mean(B)|), clipped at 0 when no value is
negative) is reported with the number of
seeds n, and `settled` says whether the whole interval is on the verdict's side of the bounds; if
not, `note` says that more seeds could change the verdict. "not testable": a point is absent from
the sweep (the quick version has fewer points), the metric is missing from the runs, or fewer
than 2 seeds have it.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmtcp._core import ScenarioError
from mmtcp.stats import ci_half_width, describe
from mmtcp.sweep_dir import run_path
from mmtcp.sweep_spec import Point, SweepSpec
from mmtcp.sweep_table import significant

KINDS = ("value", "ratio", "difference", "order")
VERDICTS = ("holds", "fails", "not testable")
CLAIM_KEYS = (
    "id",
    "quote",
    "paper",
    "figure",
    "kind",
    "metric",
    "over_metric",
    "at",
    "over",
    "points",
    "pool",
    "min",
    "max",
    "target",
    "tolerance",
    "direction",
)
_KIND_KEYS = {
    "value": ("at",),
    "ratio": ("at", "over"),
    "difference": ("at", "over"),
    "order": ("points",),
}
_SELECTOR_KEYS = ("at", "over", "points")
_BOUND_KEYS = ("min", "max", "target", "tolerance")

# point id → seed → metric → value (None if the run lacks it)
RunValues = Mapping[str, Mapping[int, Mapping[str, float | None]]]


@dataclass(frozen=True)
class Claim:
    """One `[[claims]]` table of an experiment.toml, checked.

    Attributes:
        selectors: `(at,)` for `value`, `(at, over)` for `ratio` and `difference`, the
            `points` for `order`.
        over_metric: for `ratio` and `difference`, the metric read at `over` when it is not
            `metric` (one flow's goodput over another's, at the same point).
        low, high: the bounds the estimate must lie within (None: unbounded on that side).
        where: names the claim in messages: `<file>: claims[<index>] (<id>)`.
    """

    id: str
    quote: str
    paper: str
    figure: str | None
    kind: str
    metric: str
    over_metric: str | None
    selectors: tuple[dict[str, Any], ...]
    pool: tuple[str, ...]
    low: float | None
    high: float | None
    direction: str
    where: str


def parse_claims(
    tables: Any, where: str, full: SweepSpec, quick: SweepSpec | None = None
) -> list[Claim]:
    """Checks the `[[claims]]` tables against the full sweep (every selector must match its
    points) and the quick one (a selector may match nothing there, but not ambiguously)."""
    if not isinstance(tables, list) or not all(isinstance(t, Mapping) for t in tables):
        raise ScenarioError(f"{where}: claims: expected [[claims]] tables")
    claims: list[Claim] = []
    full_points = full.expand()
    quick_points = quick.expand() if quick is not None else []
    for index, table in enumerate(tables):
        claim = _parse_claim(table, f"{where}: claims[{index}]")
        if any(other.id == claim.id for other in claims):
            raise ScenarioError(f"{claim.where}: id: {claim.id!r} is the id of another claim")
        for key, metric in (("metric", claim.metric), ("over_metric", claim.over_metric)):
            if full.metrics is not None and metric is not None and metric not in full.metrics:
                raise ScenarioError(
                    f"{claim.where}: {key}: {metric} is not one of the sweep's metrics"
                )
        for key, selector in zip(_selector_names(claim), claim.selectors, strict=True):
            select(selector, claim.pool, full_points, full.fixed, f"{claim.where}: {key}")
            if quick is not None:
                select(
                    selector,
                    claim.pool,
                    quick_points,
                    quick.fixed,
                    f"{claim.where}: {key} (quick)",
                    allow_none=True,
                )
        claims.append(claim)
    return claims


def _parse_claim(table: Mapping[str, Any], where: str) -> Claim:
    ident = table.get("id")
    if isinstance(ident, str) and ident.strip():
        where = f"{where} ({ident})"
    unknown = [key for key in table if key not in CLAIM_KEYS]
    if unknown:
        raise ScenarioError(
            f"{where}: unknown key {unknown[0]!r}; allowed: {', '.join(CLAIM_KEYS)}"
        )
    for key in ("id", "quote", "paper", "kind", "metric"):
        if not isinstance(table.get(key), str) or not table[key].strip():
            raise ScenarioError(f"{where}: {key}: expected a non-empty string")
    kind = table["kind"]
    if kind not in KINDS:
        raise ScenarioError(f"{where}: kind: {kind!r} is not one of {', '.join(KINDS)}")
    figure = table.get("figure")
    if figure is not None and not isinstance(figure, str):
        raise ScenarioError(f"{where}: figure: expected a string")
    for key in _SELECTOR_KEYS:
        if key in table and key not in _KIND_KEYS[kind]:
            raise ScenarioError(f"{where}: {key}: not a key of a {kind!r} claim")
        if key not in table and key in _KIND_KEYS[kind]:
            raise ScenarioError(f"{where}: {key}: a {kind!r} claim needs it")
    if kind == "order":
        points = table["points"]
        if (
            not isinstance(points, list)
            or len(points) < 2
            or not all(isinstance(p, Mapping) and p for p in points)
        ):
            raise ScenarioError(f"{where}: points: expected a list of at least 2 selector tables")
        selectors = tuple(dict(p) for p in points)
        for key in _BOUND_KEYS:
            if key in table:
                raise ScenarioError(f"{where}: {key}: an 'order' claim has no bounds")
        low = high = None
    else:
        for key in _KIND_KEYS[kind]:
            if not isinstance(table[key], Mapping) or not table[key]:
                raise ScenarioError(
                    f'{where}: {key}: expected a table of "override.path" = value, e.g. '
                    f'{{ "link.bottleneck.buffer" = "250pkt" }}'
                )
        selectors = tuple(dict(table[key]) for key in _KIND_KEYS[kind])
        low, high = _bounds(table, where)
    over_metric = table.get("over_metric")
    if over_metric is not None:
        if kind not in ("ratio", "difference"):
            raise ScenarioError(
                f"{where}: over_metric: only a 'ratio' or 'difference' claim has one"
            )
        if not isinstance(over_metric, str) or not over_metric.strip():
            raise ScenarioError(f"{where}: over_metric: expected a non-empty string")
    direction = table.get("direction", "decreasing")
    if "direction" in table and kind != "order":
        raise ScenarioError(f"{where}: direction: only an 'order' claim has one")
    if direction not in ("decreasing", "increasing"):
        raise ScenarioError(f"{where}: direction: expected 'decreasing' or 'increasing'")
    pool = table.get("pool", [])
    if not isinstance(pool, list) or not all(isinstance(p, str) and p for p in pool):
        raise ScenarioError(f"{where}: pool: expected a list of override paths")
    for selector in selectors:
        for key in selector:
            if key in pool:
                raise ScenarioError(f"{where}: pool: {key} is also a key of a selector")
    return Claim(
        id=table["id"].strip(),
        quote=" ".join(table["quote"].split()),
        paper=" ".join(table["paper"].split()),
        figure=figure,
        kind=kind,
        metric=table["metric"],
        over_metric=over_metric,
        selectors=selectors,
        pool=tuple(pool),
        low=low,
        high=high,
        direction=direction,
        where=where,
    )


def _bounds(table: Mapping[str, Any], where: str) -> tuple[float | None, float | None]:
    def number(key: str) -> float | None:
        value = table.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ScenarioError(f"{where}: {key}: expected a number, not {value!r}")
        if not math.isfinite(value):
            raise ScenarioError(f"{where}: {key}: expected a finite number")
        return float(value)

    low, high, target, tolerance = (number(k) for k in _BOUND_KEYS)
    if target is not None:
        if low is not None or high is not None:
            raise ScenarioError(f"{where}: target: give either target and tolerance or min/max")
        if tolerance is None or tolerance < 0:
            raise ScenarioError(
                f"{where}: tolerance: a target needs a relative tolerance >= 0, e.g. 0.2"
            )
        spread = abs(target) * tolerance
        return target - spread, target + spread
    if tolerance is not None:
        raise ScenarioError(f"{where}: tolerance: only with a target")
    if low is None and high is None:
        raise ScenarioError(f"{where}: min: give min, max, or target and tolerance")
    if low is not None and high is not None and low > high:
        raise ScenarioError(f"{where}: min: {low:g} is above max {high:g}")
    return low, high


def _selector_names(claim: Claim) -> list[str]:
    if claim.kind == "order":
        return [f"points[{i}]" for i in range(len(claim.selectors))]
    return list(_KIND_KEYS[claim.kind])


def matches(wanted: Any, actual: Any) -> bool:
    """Whether a selector value matches a point's value: numbers by value (not booleans), a table
    by the keys it gives, a list element by element, anything else by equality.

    >>> matches(50, 50.0), matches(True, 1), matches([{"kind": "pep"}], [{"kind": "pep", "x": 1}])
    (True, False, True)
    """
    if isinstance(wanted, bool) or isinstance(actual, bool):
        return isinstance(wanted, bool) and isinstance(actual, bool) and wanted == actual
    if isinstance(wanted, (int, float)) and isinstance(actual, (int, float)):
        return float(wanted) == float(actual)
    if isinstance(wanted, Mapping):
        return isinstance(actual, Mapping) and all(
            key in actual and matches(value, actual[key]) for key, value in wanted.items()
        )
    if isinstance(wanted, list):
        return (
            isinstance(actual, list)
            and len(wanted) == len(actual)
            and all(matches(w, a) for w, a in zip(wanted, actual, strict=True))
        )
    return bool(wanted == actual)


def select(
    selector: Mapping[str, Any],
    pool: Sequence[str],
    points: Sequence[Point],
    fixed: Mapping[str, Any],
    where: str,
    allow_none: bool = False,
) -> list[Point]:
    """The points `selector` picks (see the module's docstring); a `ScenarioError` if none
    (unless `allow_none`) or if they differ in a path that is not pooled."""
    found = []
    for point in points:
        values = {**fixed, **point.overrides}
        if not all(key in values and matches(v, values[key]) for key, v in selector.items()):
            continue
        if all(key in selector or key in pool for key in point.overrides):
            found.append(point)
    if not found and not allow_none:
        raise ScenarioError(
            f"{where}: matches no point of the sweep; a point matches when it has these "
            f"overrides and no other except the pooled ones (pool = [...])"
        )
    for key, wanted in selector.items():
        distinct = {_key_text({**fixed, **p.overrides}[key]) for p in found}
        if len(distinct) < 2:
            continue
        # A table given in part matches several values: the one equal to it wins, if any.
        exact = [p for p in found if {**fixed, **p.overrides}[key] == wanted]
        if not exact:
            raise ScenarioError(
                f"{where}: matches several points that differ in {key} "
                f"({found[0].id}, {found[1].id}); give its whole value"
            )
        found = exact
    return found


def _key_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def read_run_values(
    runs_dir: Path, points: Sequence[Point], seeds: Sequence[int], metrics: Sequence[str]
) -> dict[str, dict[int, dict[str, float | None]]]:
    """Each run's value of each metric, from the run files under `runs_dir` (a missing or
    unreadable run has no entry)."""
    from mmtcp.metrics import metric_value

    values: dict[str, dict[int, dict[str, float | None]]] = {}
    for point in points:
        per_seed: dict[int, dict[str, float | None]] = {}
        for seed in seeds:
            path = run_path(runs_dir, point, seed)
            try:
                summary = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            per_seed[seed] = {metric: metric_value(summary, metric) for metric in metrics}
        values[point.id] = per_seed
    return values


def per_seed(matched: Sequence[Point], metric: str, values: RunValues) -> dict[int, float]:
    """Seed → the mean over the matched points of that seed's value; seeds where a matched
    point lacks the run or the value (or it is NaN) are left out."""
    seeds: set[int] | None = None
    for point in matched:
        have = {
            seed
            for seed, run in values.get(point.id, {}).items()
            if _finite(run.get(metric)) is not None
        }
        seeds = have if seeds is None else seeds & have
    result = {}
    for seed in sorted(seeds or ()):
        xs = [float(values[p.id][seed][metric]) for p in matched]  # type: ignore[arg-type]
        result[seed] = math.fsum(xs) / len(xs)
    return result


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def evaluate(
    claim: Claim, points: Sequence[Point], fixed: Mapping[str, Any], values: RunValues
) -> dict[str, Any]:
    """The verdict of `claim` on a sweep's points and run values: a claims.json entry."""
    entry: dict[str, Any] = {
        "id": claim.id,
        "claim": claim.quote,
        "paper": claim.paper,
        "figure": claim.figure,
        "kind": claim.kind,
        "metric": claim.metric
        if claim.over_metric is None
        else f"{claim.metric} / {claim.over_metric}",
        "bounds": [claim.low, claim.high] if claim.kind != "order" else None,
        "ours": "-",
        "verdict": "not testable",
        "value": None,
        "ci_low": None,
        "ci_high": None,
        "n": 0,
        "settled": None,
        "note": "",
    }
    if claim.kind == "order":
        entry["direction"] = claim.direction
    names = _selector_names(claim)
    series = []
    for name, selector in zip(names, claim.selectors, strict=True):
        matched = select(selector, claim.pool, points, fixed, claim.where, allow_none=True)
        if not matched:
            entry["note"] = f"{name}: no such point in this sweep"
            return entry
        metric = claim.over_metric if name == "over" and claim.over_metric else claim.metric
        series.append(per_seed(matched, metric, values))
    common = sorted(set.intersection(*(set(s) for s in series)))
    entry["n"] = len(common)
    if len(common) < 2:
        entry["note"] = (
            f"{claim.metric}: {len(common)} seed(s) with a value at every point; a verdict "
            "needs at least 2"
        )
        return entry
    columns = [[s[seed] for seed in common] for s in series]
    if claim.kind == "order":
        return _order(claim, entry, columns)
    if claim.kind == "value":
        stats = describe(columns[0])
        estimate, half = stats.mean, stats.ci95
    elif claim.kind == "difference":
        stats = describe([a - b for a, b in zip(columns[0], columns[1], strict=True)])
        estimate, half = stats.mean, stats.ci95
    else:
        top, bottom = describe(columns[0]).mean, describe(columns[1]).mean
        assert top is not None
        assert bottom is not None
        if bottom == 0:
            entry["note"] = "the mean at `over` is 0: no ratio"
            return entry
        estimate = top / bottom
        residuals = describe([a - estimate * b for a, b in zip(*columns, strict=True)])
        assert residuals.std is not None
        half = ci_half_width(residuals.std, len(common)) / abs(bottom)
    assert estimate is not None
    assert half is not None
    low, high = estimate - half, estimate + half
    if claim.kind == "ratio" and all(x >= 0 for column in columns for x in column):
        low = max(low, 0.0)  # a ratio of quantities that are never negative
    entry.update(value=estimate, ci_low=low, ci_high=high)
    entry["ours"] = _ours(claim.kind, estimate, low, high, len(common))
    inside = _within(estimate, claim.low, claim.high)
    entry["verdict"] = "holds" if inside else "fails"
    if inside:
        settled = _within(low, claim.low, claim.high) and _within(high, claim.low, claim.high)
    else:
        settled = (claim.low is not None and high < claim.low) or (
            claim.high is not None and low > claim.high
        )
    entry["settled"] = settled
    if not settled:
        entry["note"] = "the 95 % CI straddles a bound: more seeds could change the verdict"
    return entry


def _order(claim: Claim, entry: dict[str, Any], columns: list[list[float]]) -> dict[str, Any]:
    sign = 1.0 if claim.direction == "decreasing" else -1.0
    means = [math.fsum(c) / len(c) for c in columns]
    ordered = all(sign * (a - b) > 0 for a, b in itertools.pairwise(means))
    entry["verdict"] = "holds" if ordered else "fails"
    arrow = " > " if claim.direction == "decreasing" else " < "
    entry["ours"] = arrow.join(_si(m) for m in means) + f" (n={len(columns[0])})"
    entry["means"] = means
    # Settled when each step's paired difference has its whole CI on one side of 0.
    settled = True
    for a, b in itertools.pairwise(columns):
        stats = describe([sign * (x - y) for x, y in zip(a, b, strict=True)])
        assert stats.mean is not None
        assert stats.ci95 is not None
        if stats.mean - stats.ci95 <= 0 <= stats.mean + stats.ci95:
            settled = False
    entry["settled"] = settled
    if not settled:
        entry["note"] = "a step's paired 95 % CI includes 0: more seeds could change the verdict"
    return entry


def _within(x: float, low: float | None, high: float | None) -> bool:
    return (low is None or x >= low) and (high is None or x <= high)


def _si(value: float, digits: int = 3, sign: bool = False) -> str:
    """`value` with an SI prefix and `digits` significant digits, e.g. 95.1M."""
    scale, prefix = 1.0, ""
    for factor, name in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            scale, prefix = factor, name
            break
    text = significant(value / scale, digits) + prefix
    return f"+{text}" if sign and value > 0 else text


def _ours(kind: str, estimate: float, low: float, high: float, n: int) -> str:
    """E.g. `2.31x [2.05, 2.58] (n=20)`, `+101M [+88M, +114M] (n=10)`."""
    if kind == "ratio":
        return (
            f"{significant(estimate, 3)}x [{significant(low, 3)}, {significant(high, 3)}] (n={n})"
        )
    sign = kind == "difference"
    return f"{_si(estimate, sign=sign)} [{_si(low, sign=sign)}, {_si(high, sign=sign)}] (n={n})"


def evaluate_claims(
    claims: Sequence[Claim],
    points: Sequence[Point],
    fixed: Mapping[str, Any],
    values: RunValues,
) -> list[dict[str, Any]]:
    """Every claim's claims.json entry."""
    return [evaluate(claim, points, fixed, values) for claim in claims]


def claims_table(entries: Sequence[Mapping[str, Any]], wrap: int = 100) -> str:
    """The terminal table: id, the paper's number, ours (95 % CI, n), verdict; then the notes."""
    from mmtcp.report import format_table

    if not entries:
        return "no claims"
    header = ["claim", "paper", "ours (95 % CI)", "verdict"]
    rows = [
        [
            e["id"],
            _clip(e["paper"], 40),
            e["ours"],
            e["verdict"] + ("" if e["settled"] in (True, None) else " (?)"),
        ]
        for e in entries
    ]
    text = format_table(header, rows)
    notes = [f"  {e['id']}: {e['note']}" for e in entries if e["note"]]
    if notes:
        text += "\n" + "\n".join(notes)
    return text


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def write_claims(path: Path, entries: Sequence[Mapping[str, Any]]) -> None:
    from mmtcp.sweep_dir import write_atomically

    write_atomically(path, json.dumps(list(entries), indent=2, ensure_ascii=False) + "\n")
