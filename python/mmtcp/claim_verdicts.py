"""Verdicts of an experiment's claims (`mmtcp.claims`) on a sweep's runs: claims.json.

Per case of a claim, an estimate over the seeds and its 95 % confidence interval (Student t over
the seeds; for a ratio R = mean(A) / mean(B), the linearised interval R ± t · sd(A - R·B) /
(√n · |mean(B)|), the seeds paired, clipped at 0 when no value is negative), then a verdict
against the claim's bounds:

- `holds`: the whole interval lies within the bounds;
- `fails`: the whole interval lies outside them;
- `not settled`: the interval straddles a bound (more seeds could decide);
- `not testable`: a point is absent from the sweep (the quick version has fewer points), the
  metric is missing, or fewer than 2 seeds have it.

`greater` is `at` / `over` ≥ 1 + min_effect (or `at` - `over` ≥ min_difference), `less` is
`at` / `over` ≤ 1 / (1 + min_effect) (or `at` - `over` ≤ -min_difference): so a tie, or an effect
smaller than the minimum, fails, and an interval that reaches below the minimum effect is not
settled. `order` is a comparison per step: holds when every step holds, fails when one fails.

The cases of a claim combine by its quantifier: it holds when at least K cases hold, fails when
fewer than K could hold even if every unsettled or untestable case did, is not testable when only
untestable cases could make up K, and is not settled otherwise. The claim is judged so at the
paper's setting (`verdict`) and under each reading (`readings`), and `summary` says what a reader
needs: "holds" (at the setting), "holds under a reading" (`holds_under` names which), "fails"
(nowhere holds nor is unsettled), "not settled" (no variant holds, one is unsettled) or "not
testable" (no variant is testable; `why`).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mmtcp.claims import SETTING, Case, Claim, Term, select
from mmtcp.stats import ci_half_width, describe
from mmtcp.sweep_dir import run_entries, run_path
from mmtcp.sweep_spec import Point
from mmtcp.sweep_table import significant

VERDICTS = ("holds", "fails", "not settled", "not testable")
SUMMARIES = ("holds", "holds under a reading", "fails", "not settled", "not testable")

# point id → seed → metric → value (None if the run lacks it)
RunValues = Mapping[str, Mapping[int, Mapping[str, float | None]]]


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
            entries = run_entries(path)
            per_seed[seed] = {metric: metric_value(summary, metric, entries) for metric in metrics}
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


class _Absent(Exception):
    """A term's point is not in this sweep."""


def _term_values(
    term: Term,
    metric: str,
    claim: Claim,
    points: Sequence[Point],
    fixed: Mapping[str, Any],
    values: RunValues,
) -> dict[int, float]:
    """Seed → the term's value (a derived term: per seed, from its two parts)."""
    if term.op is None:
        assert term.selector is not None
        matched = select(term.selector, claim.pool, points, fixed, claim.origin, allow_none=True)
        if not matched:
            raise _Absent
        return per_seed(matched, metric, values)
    a, b = (_term_values(p, metric, claim, points, fixed, values) for p in term.parts)
    common = sorted(set(a) & set(b))
    if term.op == "difference":
        return {seed: a[seed] - b[seed] for seed in common}
    return {seed: a[seed] / b[seed] for seed in common if b[seed] != 0}


def evaluate(
    claim: Claim, points: Sequence[Point], fixed: Mapping[str, Any], values: RunValues
) -> dict[str, Any]:
    """The claims.json entry of `claim` on a sweep's points and run values."""
    entry: dict[str, Any] = {
        "id": claim.id,
        "claim": claim.claim,
        "quote": claim.quote,
        "where": claim.where,
        "source": claim.source,
        "paper": claim.paper,
        "headline": claim.headline,
        "own": claim.own,
        "figure": claim.figure,
        "kind": claim.kind,
        "metric": claim.metric
        if claim.over_metric is None
        else f"{claim.metric} / {claim.over_metric}",
        "bounds": _bounds(claim),
        "measure": _measure(claim),
        "quantifier": claim.quantifier,
    }
    if claim.kind == "order":
        entry["direction"] = claim.direction
    if claim.untestable is not None:
        entry.update(
            ours="-",
            verdict="not testable",
            value=None,
            ci_low=None,
            ci_high=None,
            n=0,
            note=claim.untestable,
            cases=[],
            readings={},
            by_reading={},
            summary="not testable",
            holds_under=[],
            why=claim.untestable,
        )
        return entry
    results = {
        name: _variant(claim, cases, points, fixed, values)
        for name, cases in claim.variants.items()
    }
    setting = results[SETTING]
    entry.update(
        ours=setting["ours"],
        verdict=setting["verdict"],
        value=setting["value"],
        ci_low=setting["ci_low"],
        ci_high=setting["ci_high"],
        n=setting["n"],
        note=setting["note"],
        cases=setting["cases"],
    )
    readings = {name: r for name, r in results.items() if name != SETTING}
    entry["readings"] = {name: r["verdict"] for name, r in readings.items()}
    entry["by_reading"] = {
        name: {
            "about": claim.readings_about[name],
            **{k: r[k] for k in ("ours", "verdict", "cases")},
        }
        for name, r in readings.items()
    }
    summary, holds_under = summarise(setting["verdict"], entry["readings"])
    entry["summary"] = summary
    entry["holds_under"] = holds_under
    entry["why"] = setting["note"] if summary == "not testable" else ""
    return entry


def summarise(setting: str, readings: Mapping[str, str]) -> tuple[str, list[str]]:
    """The claim's summary from its verdict at the paper's setting and under each reading, and
    the readings it holds under.

    >>> summarise("fails", {"walls-30dB": "holds", "deep": "fails"})
    ('holds under a reading', ['walls-30dB'])
    >>> summarise("not settled", {"deep": "fails"})
    ('not settled', [])
    """
    if setting == "holds":
        return "holds", []
    holds_under = [name for name, verdict in readings.items() if verdict == "holds"]
    if holds_under:
        return "holds under a reading", holds_under
    verdicts = [setting, *readings.values()]
    if "not settled" in verdicts:
        return "not settled", []
    if "fails" in verdicts:
        return "fails", []
    return "not testable", []


def combine(verdicts: Sequence[str], needed: int) -> str:
    """The verdict of a claim whose cases have `verdicts`, `needed` of which must hold.

    >>> combine(["holds", "holds", "not settled"], 2), combine(["holds", "fails"], 2)
    ('holds', 'fails')
    >>> combine(["holds", "not testable"], 2), combine(["not settled", "holds"], 2)
    ('not testable', 'not settled')
    """
    holds = verdicts.count("holds")
    unsettled = verdicts.count("not settled")
    untestable = verdicts.count("not testable")
    if holds >= needed:
        return "holds"
    if holds + unsettled + untestable < needed:
        return "fails"
    if holds + unsettled < needed:
        return "not testable"
    return "not settled"


def _variant(
    claim: Claim,
    cases: Sequence[Case],
    points: Sequence[Point],
    fixed: Mapping[str, Any],
    values: RunValues,
) -> dict[str, Any]:
    results = [_case(claim, case, points, fixed, values) for case in cases]
    verdict = combine([r["verdict"] for r in results], claim.needed)
    if len(results) == 1:
        (only,) = results
        return {
            "ours": only["ours"],
            "verdict": verdict,
            "value": only["value"],
            "ci_low": only["ci_low"],
            "ci_high": only["ci_high"],
            "n": only["n"],
            "note": only["note"],
            "cases": results,
        }
    holds = sum(r["verdict"] == "holds" for r in results)
    # Show the first case with the claim's verdict (what decides a failure or leaves it
    # unsettled), or for a claim that holds the first case that does not, else the first.
    wanted = verdict if verdict != "holds" else None
    shown = next(
        (
            r
            for r in results
            if r["verdict"] == wanted or (wanted is None and r["verdict"] != "holds")
        ),
        results[0],
    )
    ours = f"{holds}/{len(results)} hold ({claim.quantifier}); {shown['label']}: {shown['ours']}"
    if shown["verdict"] != "holds":
        ours += f" {shown['verdict']}"
    return {
        "ours": ours,
        "verdict": verdict,
        "value": None,
        "ci_low": None,
        "ci_high": None,
        "n": min(r["n"] for r in results),
        "note": f"{shown['label']}: {shown['note']}" if shown["note"] else "",
        "cases": results,
    }


def _case(
    claim: Claim,
    case: Case,
    points: Sequence[Point],
    fixed: Mapping[str, Any],
    values: RunValues,
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "label": case.label,
        "ours": "-",
        "verdict": "not testable",
        "value": None,
        "ci_low": None,
        "ci_high": None,
        "n": 0,
        "note": "",
    }
    if case.metric is not None:
        result["metric"] = case.metric
    if case.bounds is not None:
        result["bounds"] = list(case.bounds)
    assert claim.metric is not None
    series = []
    for name, term in zip(claim.term_names, case.terms, strict=True):
        metric = case.metric or claim.metric
        if name == "over" and claim.over_metric:
            metric = claim.over_metric
        try:
            series.append(_term_values(term, metric, claim, points, fixed, values))
        except _Absent:
            result["note"] = f"{name}: no such point in this sweep"
            return result
    common = sorted(set.intersection(*(set(s) for s in series)))
    result["n"] = len(common)
    if len(common) < 2:
        result["note"] = (
            f"{case.metric or claim.metric}: {len(common)} seed(s) with a value at every point; "
            "a verdict needs at least 2"
        )
        return result
    columns = [[s[seed] for seed in common] for s in series]
    if claim.kind == "order":
        return _order(claim, result, columns)
    if claim.kind in ("greater", "less"):
        low, high, how = _comparison_bounds(claim.kind, claim.min_effect, claim.min_difference)
    else:
        low, high = case.bounds or (claim.low, claim.high)
        how = claim.kind
    estimate = _estimate(how, columns)
    if estimate is None:
        result["note"] = "the mean at `over` is not positive: no ratio (give min_difference)"
        return result
    value, ci_low, ci_high = estimate
    result.update(value=value, ci_low=ci_low, ci_high=ci_high)
    result["ours"] = _ours(how, value, ci_low, ci_high, len(common))
    result["verdict"] = _verdict(ci_low, ci_high, low, high)
    if result["verdict"] == "not settled":
        result["note"] = "the 95 % CI straddles a bound: more seeds could decide"
    return result


def _comparison_bounds(
    kind: str, min_effect: float | None, min_difference: float | None
) -> tuple[float | None, float | None, str]:
    """Bounds of a `greater` / `less` comparison and how its estimate is taken."""
    if min_difference is not None:
        if kind == "greater":
            return min_difference, None, "difference"
        return None, -min_difference, "difference"
    assert min_effect is not None
    if kind == "greater":
        return 1 + min_effect, None, "ratio"
    return None, 1 / (1 + min_effect), "ratio"


def _measure(claim: Claim) -> str | None:
    """What `bounds` bound: the mean (`value`), the ratio of the means, or the mean paired
    difference; for an order, each step's."""
    if claim.kind in ("greater", "less", "order"):
        kind = "greater" if claim.kind == "order" else claim.kind
        return _comparison_bounds(kind, claim.min_effect, claim.min_difference)[2]
    return claim.kind


def _bounds(claim: Claim) -> list[float | None] | None:
    if claim.kind in ("value", "ratio", "difference"):
        return [claim.low, claim.high]
    if claim.kind in ("greater", "less", "order"):
        kind = claim.kind
        if kind == "order":
            kind = "greater" if claim.direction == "decreasing" else "less"
        low, high, _ = _comparison_bounds(kind, claim.min_effect, claim.min_difference)
        return [low, high]
    return None


def _estimate(how: str, columns: list[list[float]]) -> tuple[float, float, float] | None:
    """(estimate, CI low, CI high) of the mean (`value`), the paired mean difference
    (`difference`) or the ratio of the means (`ratio`; None if the mean at `over` is not
    positive)."""
    if how in ("value", "difference"):
        xs = columns[0] if how == "value" else [a - b for a, b in zip(*columns, strict=True)]
        stats = describe(xs)
        assert stats.mean is not None
        assert stats.ci95 is not None
        return stats.mean, stats.mean - stats.ci95, stats.mean + stats.ci95
    top, bottom = describe(columns[0]).mean, describe(columns[1]).mean
    assert top is not None
    assert bottom is not None
    if bottom <= 0:
        return None
    ratio = top / bottom
    residuals = describe([a - ratio * b for a, b in zip(*columns, strict=True)])
    assert residuals.std is not None
    half = ci_half_width(residuals.std, len(columns[0])) / bottom
    low = ratio - half
    if all(x >= 0 for column in columns for x in column):
        low = max(low, 0.0)  # a ratio of quantities that are never negative
    return ratio, low, ratio + half


def _verdict(ci_low: float, ci_high: float, low: float | None, high: float | None) -> str:
    """`holds` if [ci_low, ci_high] lies within [low, high], `fails` if wholly outside,
    `not settled` if it straddles a bound.

    >>> _verdict(1.1, 1.3, 1.05, None), _verdict(0.9, 1.02, 1.05, None)
    ('holds', 'fails')
    >>> _verdict(1.0, 1.1, 1.05, None)
    'not settled'
    """
    if (low is not None and ci_high < low) or (high is not None and ci_low > high):
        return "fails"
    if (low is None or ci_low >= low) and (high is None or ci_high <= high):
        return "holds"
    return "not settled"


def _order(claim: Claim, result: dict[str, Any], columns: list[list[float]]) -> dict[str, Any]:
    """Each step (p_i, p_i+1) a `greater` (decreasing) or `less` (increasing) comparison."""
    kind = "greater" if claim.direction == "decreasing" else "less"
    low, high, how = _comparison_bounds(kind, claim.min_effect, claim.min_difference)
    steps = []
    for a, b in itertools.pairwise(columns):
        estimate = _estimate(how, [a, b])
        if estimate is None:
            steps.append("not testable")
            result["note"] = "a step's mean is not positive: no ratio (give min_difference)"
            continue
        steps.append(_verdict(estimate[1], estimate[2], low, high))
    means = [math.fsum(c) / len(c) for c in columns]
    arrow = " > " if claim.direction == "decreasing" else " < "
    result["ours"] = arrow.join(_si(m) for m in means) + f" (n={len(columns[0])})"
    result["means"] = means
    result["steps"] = steps
    result["verdict"] = combine(steps, len(steps))
    if result["verdict"] == "not settled":
        result["note"] = "a step's 95 % CI straddles the minimum effect: more seeds could decide"
    return result


def _si(value: float, digits: int = 3, sign: bool = False) -> str:
    """`value` with an SI prefix and `digits` significant digits, e.g. 95.1M."""
    scale, prefix = 1.0, ""
    for factor, name in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            scale, prefix = factor, name
            break
    text = significant(value / scale, digits) + prefix
    return f"+{text}" if sign and value > 0 else text


def _ours(how: str, estimate: float, low: float, high: float, n: int) -> str:
    """E.g. `2.31x [2.05, 2.58] (n=20)`, `+101M [+88M, +114M] (n=10)`."""
    if how == "ratio":
        return (
            f"{significant(estimate, 3)}x [{significant(low, 3)}, {significant(high, 3)}] (n={n})"
        )
    sign = how == "difference"
    return f"{_si(estimate, sign=sign)} [{_si(low, sign=sign)}, {_si(high, sign=sign)}] (n={n})"


def evaluate_claims(
    claims: Sequence[Claim],
    points: Sequence[Point],
    fixed: Mapping[str, Any],
    values: RunValues,
) -> list[dict[str, Any]]:
    """Every claim's claims.json entry."""
    return [evaluate(claim, points, fixed, values) for claim in claims]


def write_claims(path: Path, entries: Sequence[Mapping[str, Any]]) -> None:
    from mmtcp.sweep_dir import write_atomically

    write_atomically(path, json.dumps(list(entries), indent=2, ensure_ascii=False) + "\n")
