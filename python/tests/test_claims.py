"""Claims (`[[claims]]` and `[[readings]]` of experiment.toml; `mmtcp.claims`,
`mmtcp.claim_verdicts`): each predicate on made-up run values (holds, fails, not settled, not
testable), ties that never hold, the minimum effect, cases and quantifiers, readings and the
summary over them, derived terms, point selection and pooling, the load-time errors, claims.json
of a quick reproduction, and the claims of every experiment."""

from __future__ import annotations

import json
import math
import re
import textwrap
import tomllib
from pathlib import Path

import pytest
from helpers import REPO, SCENARIOS, assert_bad_input

from mmtcp._core import ScenarioError
from mmtcp.claim_verdicts import VERDICTS, combine, evaluate, summarise
from mmtcp.claims import parse_claims, parse_readings, select
from mmtcp.reproduce import find_experiments, load_experiment
from mmtcp.stats import t_quantile
from mmtcp.sweep_spec import SweepSpec
from mmtcp.sweep_table import format_estimate, points_table

BUF = "link.bottleneck.buffer"
SRC = "source"
SEEDS_TEXT = Path("/work/shared/seeds")


def _spec(**grid):
    return SweepSpec(scenario="unused.toml", seeds=[1, 2, 3, 4], grid=grid, metrics=["m"])


def _grid_spec(grid, metrics=("m",)):
    """A sweep of `grid` with seeds 1 to 3."""
    return SweepSpec(scenario="unused.toml", seeds=[1, 2, 3], grid=grid, metrics=list(metrics))


def _claims(*tables, spec=None, quick=None, readings=()):
    spec = spec or _spec(**{BUF: ["a", "b", "c"]})
    return parse_claims(list(tables), "exp.toml", spec, quick, readings, "Paper et al.")


def _values(spec, by_point, key=BUF):
    """point id → seed → {"m": value}, from {value of `key`: [value per seed]}."""
    values = {}
    for point in spec.expand():
        series = by_point.get(point.overrides[key], [])
        values[point.id] = {seed: {"m": v} for seed, v in enumerate(series, start=1)}
    return values


def _evaluate(table, by_point, spec=None):
    spec = spec or _spec(**{BUF: ["a", "b", "c"]})
    (claim,) = _claims(table, spec=spec)
    return evaluate(claim, spec.expand(), spec.fixed, _values(spec, by_point))


def _claim(kind, **keys):
    return {
        "id": "c",
        "claim": "what is tested",
        "quote": "q",
        "where": "Fig. 1",
        "paper": "p",
        "kind": kind,
        "metric": "m",
        **keys,
    }


def test_value_holds_fails_or_is_not_settled_by_its_t_interval():
    xs = [10.0, 12.0, 11.0, 13.0]
    mean, sd = 11.5, math.sqrt(5 / 3)
    half = t_quantile(0.975, 3) * sd / 2
    inside = _evaluate(_claim("value", at={BUF: "a"}, min=5.0), {"a": xs})
    assert inside["verdict"] == "holds"
    assert inside["n"] == 4
    assert inside["value"] == pytest.approx(mean)
    assert (inside["ci_low"], inside["ci_high"]) == pytest.approx((mean - half, mean + half))
    assert inside["ours"] == "11.5 [9.45, 13.6] (n=4)"
    # The mean is above 10 but the interval reaches below it: more seeds could decide.
    straddles = _evaluate(_claim("value", at={BUF: "a"}, min=10.0), {"a": xs})
    assert straddles["verdict"] == "not settled"
    assert "straddles" in straddles["note"]
    outside = _evaluate(_claim("value", at={BUF: "a"}, max=5.0), {"a": xs})
    assert outside["verdict"] == "fails"


def test_a_target_without_tolerance_carries_the_figure_reading_15_percent():
    at = {BUF: "a"}
    given = _evaluate(_claim("value", at=at, target=100.0, tolerance=0.1), {"a": [95.0, 105.0]})
    assert given["bounds"] == pytest.approx([90.0, 110.0])
    read_off = _evaluate(_claim("value", at=at, target=100.0), {"a": [90.0, 91.0, 89.0, 90.0]})
    assert read_off["bounds"] == pytest.approx([85.0, 115.0])
    assert read_off["verdict"] == "holds"
    far = _evaluate(
        _claim("value", at=at, target=100.0, tolerance=0.1), {"a": [80.0, 82.0, 81.0, 81.0]}
    )
    assert far["verdict"] == "fails"


def test_ratio_is_the_ratio_of_means_with_a_linearised_interval():
    top, bottom = [2.0, 4.0, 6.0, 8.0], [1.0, 1.0, 2.0, 4.0]
    entry = _evaluate(
        _claim("ratio", at={BUF: "b"}, over={BUF: "a"}, min=1.5), {"b": top, "a": bottom}
    )
    ratio = 5.0 / 2.0  # mean 5 over mean 2, not the mean of the per-seed ratios (2.75)
    residuals = [a - ratio * b for a, b in zip(top, bottom, strict=True)]
    m = sum(residuals) / 4
    sd = math.sqrt(sum((r - m) ** 2 for r in residuals) / 3)
    half = t_quantile(0.975, 3) * sd / 2 / 2.0
    assert entry["value"] == pytest.approx(ratio)
    assert entry["ci_high"] - entry["value"] == pytest.approx(half)
    assert entry["ours"].startswith("2.5x [")
    assert entry["verdict"] == ("holds" if ratio - half >= 1.5 else "not settled")
    fails = _claim("ratio", at={BUF: "b"}, over={BUF: "a"}, max=1.2)
    assert _evaluate(fails, {"b": top, "a": bottom})["verdict"] == "fails"
    zero = _evaluate(fails, {"b": top, "a": [0.0] * 4})
    assert zero["verdict"] == "not testable"


def test_over_metric_divides_one_metric_by_another_at_the_same_point():
    spec = _grid_spec({BUF: ["a", "b"]}, metrics=["m", "n"])
    table = _claim("ratio", at={BUF: "a"}, over={BUF: "a"}, over_metric="n", max=0.6)
    (claim,) = _claims(table, spec=spec)
    values = {}
    for point in spec.expand():
        mine, theirs = (
            ([1.0, 2.0, 3.0], [2.0, 4.0, 6.0])
            if point.overrides[BUF] == "a"
            else ([9.0] * 3, [1.0] * 3)
        )
        values[point.id] = {
            seed: {"m": mine[seed - 1], "n": theirs[seed - 1]} for seed in (1, 2, 3)
        }
    entry = evaluate(claim, spec.expand(), spec.fixed, values)
    assert entry["value"] == pytest.approx(0.5), "m over n at a, not m at a over m at a"
    assert (entry["verdict"], entry["metric"]) == ("holds", "m / n")
    with pytest.raises(ScenarioError, match="over_metric: x is not one of the sweep's metrics"):
        _claims({**table, "over_metric": "x"}, spec=spec)
    with pytest.raises(ScenarioError, match="over_metric: only a claim with `over`"):
        _claims(_claim("value", at={BUF: "a"}, over_metric="n", min=0.0), spec=spec)


def test_difference_pairs_the_seeds():
    # Seed-to-seed spread is large, but every seed gains exactly 10: the paired CI is [10, 10].
    base = [100.0, 300.0, 50.0, 700.0]
    gained = [b + 10 for b in base]
    table = _claim("difference", at={BUF: "b"}, over={BUF: "a"}, min=5.0)
    entry = _evaluate(table, {"a": base, "b": gained})
    assert entry["value"] == pytest.approx(10.0)
    assert entry["ci_low"] == pytest.approx(10.0)
    assert entry["verdict"] == "holds"
    assert entry["ours"] == "+10 [+10, +10] (n=4)"
    # A seed missing at one point leaves that seed out of both.
    entry = _evaluate(table, {"a": base[:3], "b": gained})
    assert entry["n"] == 3
    lost = _evaluate(table, {"a": base, "b": [b - 10 for b in base]})
    assert lost["verdict"] == "fails"


BASE = [100.0, 102.0, 98.0, 100.0]


def _greater(factors, **keys):
    """`greater` of b over a, with b = a x factor seed by seed."""
    table = _claim("greater", at={BUF: "b"}, over={BUF: "a"}, **keys)
    scaled = [x * f for x, f in zip(BASE, factors, strict=True)]
    return _evaluate(table, {"a": BASE, "b": scaled})


def test_a_tie_never_holds_a_comparison():
    tie = _greater([1.0, 1.0, 1.0, 1.0])
    assert tie["value"] == pytest.approx(1.0)
    assert tie["bounds"] == [pytest.approx(1.05), None]
    assert tie["verdict"] == "fails"
    # Significant but smaller than the minimum effect: still not "beats".
    small = _greater([1.01, 1.012, 1.011, 1.01])
    assert small["ci_low"] > 1.0
    assert small["verdict"] == "fails"


def test_a_ci_straddling_the_minimum_effect_is_not_settled():
    entry = _greater([1.04, 1.08, 1.05, 1.07])
    assert entry["ci_low"] < 1.05 < entry["ci_high"]
    assert entry["verdict"] == "not settled"
    assert "straddles" in entry["note"]
    clear = _greater([1.2, 1.21, 1.19, 1.2])
    assert clear["verdict"] == "holds"
    # A smaller stated minimum settles the same runs.
    assert _greater([1.04, 1.08, 1.05, 1.07], min_effect=0.01)["verdict"] == "holds"


def test_less_is_the_mirror_of_greater_and_min_difference_is_absolute():
    table = _claim("less", at={BUF: "a"}, over={BUF: "b"})
    entry = _evaluate(table, {"a": BASE, "b": [x * 1.2 for x in BASE]})
    assert entry["verdict"] == "holds"
    assert entry["bounds"] == [None, pytest.approx(1 / 1.05)]
    assert _evaluate(table, {"a": BASE, "b": BASE})["verdict"] == "fails"
    # +0.09 over ~100 with a 1.0 minimum difference: a tie in the metric's unit.
    absolute = _claim("greater", at={BUF: "b"}, over={BUF: "a"}, min_difference=1.0)
    nudged = _evaluate(absolute, {"a": BASE, "b": [x + 0.09 for x in BASE]})
    assert (nudged["verdict"], nudged["ours"]) == ("fails", "+0.09 [+0.09, +0.09] (n=4)")
    assert _evaluate(absolute, {"a": BASE, "b": [x + 3 for x in BASE]})["verdict"] == "holds"


def test_order_compares_each_step_with_the_minimum_effect():
    means = {"a": [1.0, 2.0, 3.0], "b": [5.0, 6.0, 7.0], "c": [9.0, 9.5, 10.0]}
    points = [{BUF: "a"}, {BUF: "b"}, {BUF: "c"}]
    up = _evaluate(_claim("order", points=points, direction="increasing"), means)
    assert up["verdict"] == "holds"
    assert up["ours"] == "2 < 6 < 9.5 (n=3)"
    assert up["cases"][0]["steps"] == ["holds", "holds"]
    down = _evaluate(_claim("order", points=points), means)  # decreasing by default
    assert down["verdict"] == "fails"
    # The last step grows by 1 % only: not an increase worth the name.
    flat = {**means, "b": [6.0, 6.0, 6.0], "c": [6.06, 6.06, 6.06]}
    assert _evaluate(_claim("order", points=points, direction="increasing"), flat)["cases"][0][
        "steps"
    ] == ["holds", "fails"]


@pytest.mark.parametrize(
    ("by_point", "reason"),
    [
        ({"a": [1.0], "b": [2.0]}, "1 seed(s)"),  # one seed: no interval
        ({"a": [1.0, 2.0], "b": [None, None]}, "0 seed(s)"),  # the metric is missing
        ({"a": [1.0, 2.0], "b": [math.nan, math.nan]}, "0 seed(s)"),  # or NaN
    ],
)
def test_not_testable_without_two_seeds_at_every_point(by_point, reason):
    entry = _evaluate(_claim("difference", at={BUF: "b"}, over={BUF: "a"}, min=1.0), by_point)
    assert entry["verdict"] == "not testable"
    assert entry["summary"] == "not testable"
    assert entry["value"] is None
    assert reason in entry["note"]


def test_a_point_absent_from_the_quick_grid_is_not_testable_there():
    full = _spec(**{BUF: ["a", "b", "c"]})
    quick = _spec(**{BUF: ["a", "b"]})
    (claim,) = _claims(_claim("greater", at={BUF: "c"}, over={BUF: "a"}), spec=full, quick=quick)
    entry = evaluate(claim, quick.expand(), quick.fixed, _values(quick, {"a": [1, 2], "b": [3, 4]}))
    assert entry["verdict"] == "not testable"
    assert "at: no such point" in entry["note"]


GRID = {"d": [50, 100, 150, 200], "cc": ["x", "y"]}


def _grid_values(spec, value):
    """point id → seed → {"m": value(overrides, seed)} for every point of `spec`."""
    return {
        p.id: {seed: {"m": value(p.overrides, seed)} for seed in spec.seeds} for p in spec.expand()
    }


def test_cases_are_judged_with_the_quantifier():
    spec = _grid_spec(GRID)
    # x beats y by 20 % except at d = 200 where they tie.
    values = _grid_values(
        spec, lambda o, s: 100 + s + (20 if o["cc"] == "x" and o["d"] < 200 else 0)
    )
    cases = [{"d": d} for d in GRID["d"]]
    base = _claim("greater", at={"cc": "x"}, over={"cc": "y"}, cases=cases)

    def verdict(**keys):
        (claim,) = _claims({**base, **keys}, spec=spec)
        return evaluate(claim, spec.expand(), spec.fixed, values)

    every = verdict()
    assert every["verdict"] == "fails"
    assert [c["label"] for c in every["cases"]] == ["d=50", "d=100", "d=150", "d=200"]
    assert [c["verdict"] for c in every["cases"]] == ["holds"] * 3 + ["fails"]
    assert every["ours"].startswith("3/4 hold (all); d=200: 1x")
    assert every["value"] is None  # several cases: the per-case values are in `cases`
    assert verdict(quantifier="3 of 4")["verdict"] == "holds"
    assert verdict(quantifier="any")["verdict"] == "holds"
    with pytest.raises(ScenarioError, match="quantifier: '3 of 5', but the claim has 4 case"):
        verdict(quantifier="3 of 5")


def test_a_case_may_set_one_terms_overrides_only():
    # "A beats each of the others": `over` moves through the others, `at` stays.
    spec = _grid_spec({"scheme": ["cotag", "cubic", "mptcp"], "d": [1, 2]})
    rate = {"cotag": 100, "cubic": 50, "mptcp": 98}
    values = _grid_values(spec, lambda o, s: rate[o["scheme"]] + s)
    table = _claim(
        "greater",
        at={"scheme": "cotag"},
        over={},
        cases=[
            [{"over": {"scheme": "cubic"}}, {"over": {"scheme": "mptcp"}}],
            [{"d": 1}, {"d": 2}],
        ],
    )
    (claim,) = _claims(table, spec=spec)
    entry = evaluate(claim, spec.expand(), spec.fixed, values)
    assert [c["label"] for c in entry["cases"]] == [
        "over scheme=cubic, d=1",
        "over scheme=cubic, d=2",
        "over scheme=mptcp, d=1",
        "over scheme=mptcp, d=2",
    ]
    assert [c["verdict"] for c in entry["cases"]] == ["holds", "holds", "fails", "fails"]
    assert entry["verdict"] == "fails"
    with pytest.raises(ScenarioError, match="cases: over: not a term of a 'value' claim"):
        _claims(_claim("value", at={"d": 1}, min=0, cases=[{"over": {"d": 2}}]), spec=spec)


def test_a_case_may_read_another_metric():
    # "outperform ... in terms of percentiles": one sentence, several percentiles.
    spec = _grid_spec({"proxy": ["no", "yes"]}, metrics=["p50", "p99"])
    cut = {"p50": 1.0, "p99": 0.5}  # the proxy halves the tail, leaves the median
    values = {
        p.id: {
            seed: {m: (100 + seed) * (cut[m] if p.overrides["proxy"] == "yes" else 1) for m in cut}
            for seed in spec.seeds
        }
        for p in spec.expand()
    }
    table = {
        **_claim("less", at={"proxy": "yes"}, over={"proxy": "no"}),
        "metric": "p50",
        "cases": [{"metric": "p50"}, {"metric": "p99"}],
    }
    (claim,) = _claims(table, spec=spec)
    entry = evaluate(claim, spec.expand(), spec.fixed, values)
    assert [(c["label"], c["metric"], c["verdict"]) for c in entry["cases"]] == [
        ("p50", "p50", "fails"),
        ("p99", "p99", "holds"),
    ]
    with pytest.raises(ScenarioError, match="cases: metric: p999 is not one of the sweep's"):
        _claims({**table, "cases": [{"metric": "p999"}]}, spec=spec)


def test_a_case_may_have_its_own_bounds():
    # "by 100 Mbit/s at 75 m and 50 Mbit/s at 100 m": one sentence, a number per point.
    spec = _grid_spec({"d": [75, 100], "mode": ["am", "um"]})
    gain = {75: 100.0, 100: 20.0}
    values = _grid_values(spec, lambda o, s: 1000 + s + (gain[o["d"]] if o["mode"] == "am" else 0))
    table = _claim(
        "difference",
        at={"mode": "am"},
        over={"mode": "um"},
        cases=[{"d": 75, "target": 100.0}, {"d": 100, "target": 50.0}],
    )
    (claim,) = _claims(table, spec=spec)
    entry = evaluate(claim, spec.expand(), spec.fixed, values)
    assert [(c["bounds"], c["verdict"]) for c in entry["cases"]] == [
        ([85.0, 115.0], "holds"),
        ([42.5, 57.5], "fails"),
    ]
    assert entry["bounds"] == [None, None]
    with pytest.raises(ScenarioError, match="give min, max, or target"):
        _claims({**table, "cases": [{"d": 75, "target": 100.0}, {"d": 100}]}, spec=spec)
    with pytest.raises(ScenarioError, match="cases: min: only a value, ratio or difference"):
        _claims({**table, "kind": "greater", "cases": [{"d": 75, "min": 1.0}]}, spec=spec)


def test_combining_cases():
    assert combine(["holds", "holds", "not settled"], 2) == "holds"
    assert combine(["holds", "fails", "not settled"], 3) == "fails"
    assert combine(["holds", "not settled", "not settled"], 3) == "not settled"
    assert combine(["holds", "not testable"], 2) == "not testable"
    assert combine(["fails", "not testable"], 2) == "fails"
    assert combine(["fails", "fails", "holds"], 1) == "holds"


def test_a_product_of_case_factors():
    spec = _grid_spec(GRID)
    values = _grid_values(spec, lambda o, s: o["d"] + s)
    table = _claim(
        "value",
        at={"cc": "x"},
        min=0.0,
        cases=[[{"d": 50}, {"d": 150}], [{"label": "x", "cc": "x"}, {"label": "y", "cc": "y"}]],
    )
    (claim,) = _claims(table, spec=spec)
    entry = evaluate(claim, spec.expand(), spec.fixed, values)
    assert [c["label"] for c in entry["cases"]] == ["d=50, x", "d=50, y", "d=150, x", "d=150, y"]
    assert [c["value"] for c in entry["cases"]] == pytest.approx([52, 52, 152, 152])
    with pytest.raises(ScenarioError, match="cases: d is set by two factors"):
        _claims({**table, "cases": [[{"d": 50}], [{"d": 150}]]}, spec=spec)


def test_readings_judge_the_claim_again_and_the_summary_names_the_one_that_decides():
    spec = _grid_spec({"walls": [10, 30], "proxy": ["no", "yes"], "other": [1, 2]})
    # The proxy cuts the metric by half only with 30 dB walls.
    values = _grid_values(
        spec,
        lambda o, s: 100 + s - (50 if o["proxy"] == "yes" and o["walls"] == 30 else 1),
    )
    readings = parse_readings(
        [
            {"name": "weak-walls", "about": "30 dB walls", "set": {"walls": 30}},
            {"name": "other-2", "about": "the other parameter at 2", "set": {"other": 2}},
        ],
        "exp.toml",
    )
    table = _claim(
        "less",
        at={"walls": 10, "other": 1, "proxy": "yes"},
        over={"walls": 10, "other": 1, "proxy": "no"},
    )
    (claim,) = _claims(table, spec=spec, readings=readings)
    entry = evaluate(claim, spec.expand(), spec.fixed, values)
    assert entry["verdict"] == "fails"
    assert entry["readings"] == {"weak-walls": "holds", "other-2": "fails"}
    assert (entry["summary"], entry["holds_under"]) == ("holds under a reading", ["weak-walls"])
    assert entry["by_reading"]["weak-walls"]["about"] == "30 dB walls"
    # A claim pooled over the walls is not judged under a walls reading.
    pooled = {
        **table,
        "id": "pooled",
        "at": {"other": 1, "proxy": "yes"},
        "over": {"other": 1, "proxy": "no"},
        "pool": ["walls"],
    }
    claims = _claims(table, pooled, spec=spec, readings=readings)
    assert list(claims[1].variants) == ["setting", "other-2"]
    # A reading listed by a claim must change it; a reading no claim uses is an error.
    with pytest.raises(ScenarioError, match="readings: 'weak-walls' changes none"):
        _claims({**pooled, "readings": ["weak-walls"]}, spec=spec, readings=readings)
    with pytest.raises(ScenarioError, match="readings: 'weak-walls' changes no selector"):
        _claims({**pooled, "readings": ["other-2"]}, spec=spec, readings=readings)


def test_a_reading_tries_its_alternatives_and_leaves_other_sides_alone():
    spec = SweepSpec(
        scenario="unused.toml",
        seeds=[1, 2],
        points=[
            {"path": "mp", "cc": "lia"},
            {"path": "mp", "cc": "lia", "buf": "6MiB"},
            {"path": "sp", "transport": {"cc": "cubic", "buf": "16MB"}},
            {"path": "sp", "transport": {"cc": "cubic", "buf": "6MiB"}},
            {"path": "other"},
        ],
        metrics=["m"],
    )
    reading = parse_readings(
        [
            {
                "name": "conn-6mib",
                "about": "6 MiB connection buffers",
                "set": [{"buf": "6MiB"}, {"transport": {"cc": "cubic", "buf": "6MiB"}}],
            }
        ],
        "exp.toml",
    )
    table = _claim(
        "ratio",
        at={"path": "mp", "cc": "lia"},
        over={"path": "sp", "transport": {"cc": "cubic", "buf": "16MB"}},
        min=0.1,
    )
    (claim,) = _claims(table, spec=spec, readings=reading)
    (case,) = claim.variants["conn-6mib"]
    assert [t.selector for t in case.terms] == [
        {"path": "mp", "cc": "lia", "buf": "6MiB"},
        {"path": "sp", "transport": {"cc": "cubic", "buf": "6MiB"}},
    ]
    # The "other" point has no 6 MiB version: a claim on it keeps its point under the reading.
    other = {**_claim("value", at={"path": "other"}, min=0.0), "id": "o"}
    claims = _claims(table, other, spec=spec, readings=reading)
    assert list(claims[1].variants) == ["setting"]


def test_a_reading_with_when_changes_only_the_selectors_it_names():
    # PEP's other timer rule is a reading of PEP's points only, not of mmPEP's or TCP's.
    pep = [{"kind": "pep", "cache": "64MB"}]
    spec = SweepSpec(
        scenario="unused.toml",
        seeds=[1, 2],
        grid={
            "proc": [[], pep, [{**pep[0], "timeout": "go_back_n"}], [{"kind": "mmpep"}]],
        },
        metrics=["m"],
    )
    (reading,) = parse_readings(
        [
            {
                "name": "pep-go-back-n",
                "about": "PEP's timer goes back N",
                "when": {"proc": [{"kind": "pep"}]},
                "set": {"proc": [{"kind": "pep", "cache": "64MB", "timeout": "go_back_n"}]},
            }
        ],
        "exp.toml",
    )
    table = _claim("greater", at={"proc": [{"kind": "mmpep"}]}, over={"proc": []})
    table["cases"] = [{"over": {"proc": pep}}, {"over": {"proc": []}}]
    (claim,) = _claims(table, spec=spec, readings=[reading])
    setting, under = claim.variants["setting"], claim.variants["pep-go-back-n"]
    assert [t.selector for t in under[0].terms] == [
        {"proc": [{"kind": "mmpep"}]},
        {"proc": [{"kind": "pep", "cache": "64MB", "timeout": "go_back_n"}]},
    ]
    assert under[1] == setting[1]  # mmPEP over TCP: untouched
    with pytest.raises(ScenarioError, match="when: expected a table"):
        parse_readings([{"name": "r", "about": "a", "set": {"x": 1}, "when": []}], "exp.toml")


def test_derived_terms_compare_sensitivities():
    spec = _grid_spec({"lat": [10, 100], "scheme": ["cotag", "cubic"]})
    # cotag keeps 90 % of its throughput at 100 ms, cubic 50 %.
    keep = {"cotag": 0.9, "cubic": 0.5}
    values = _grid_values(
        spec, lambda o, s: (100 + s) * (keep[o["scheme"]] if o["lat"] == 100 else 1.0)
    )

    def kept(scheme):
        return {"ratio": [{"lat": 100, "scheme": scheme}, {"lat": 10, "scheme": scheme}]}

    table = _claim("greater", at=kept("cotag"), over=kept("cubic"))
    (claim,) = _claims(table, spec=spec)
    entry = evaluate(claim, spec.expand(), spec.fixed, values)
    assert entry["value"] == pytest.approx(0.9 / 0.5)
    assert entry["verdict"] == "holds"
    gap = _claim(
        "greater",
        at={"difference": [{"lat": 10, "scheme": "cotag"}, {"lat": 100, "scheme": "cotag"}]},
        over={"difference": [{"lat": 10, "scheme": "cubic"}, {"lat": 100, "scheme": "cubic"}]},
    )
    (claim,) = _claims(gap, spec=spec)
    assert evaluate(claim, spec.expand(), spec.fixed, values)["verdict"] == "fails"


def test_summary_over_the_setting_and_the_readings():
    assert summarise("holds", {"r": "fails"}) == ("holds", [])
    assert summarise("fails", {"r": "holds", "s": "holds"}) == ("holds under a reading", ["r", "s"])
    assert summarise("not testable", {"r": "holds"}) == ("holds under a reading", ["r"])
    assert summarise("fails", {"r": "fails"}) == ("fails", [])
    assert summarise("fails", {"r": "not settled"}) == ("not settled", [])
    assert summarise("not settled", {}) == ("not settled", [])
    assert summarise("not testable", {"r": "not testable"}) == ("not testable", [])
    assert summarise("fails", {"r": "not testable"}) == ("fails", [])


def test_an_untestable_statement_is_kept_with_why():
    table = {k: v for k, v in _claim("value").items() if k not in ("kind", "metric")}
    (claim,) = _claims({**table, "untestable": "no per-interval RTT in the summary"})
    entry = evaluate(claim, [], {}, {})
    assert (entry["verdict"], entry["summary"]) == ("not testable", "not testable")
    assert entry["why"] == "no per-interval RTT in the summary"
    with pytest.raises(ScenarioError, match="kind: an untestable claim has no predicate"):
        _claims({**table, "kind": "value", "untestable": "why"})


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ({"kind": "ratio", "over": {BUF: "a"}, "min": 1.0}, "lets a tie hold; use kind"),
        ({"kind": "ratio", "over": {BUF: "a"}, "max": 1.02}, "lets a tie hold"),
        ({"kind": "difference", "over": {BUF: "a"}, "min": 0}, "difference bound of 0"),
        ({"kind": "greater", "over": {BUF: "a"}, "min": 1.1}, "min: a 'greater' claim has no"),
        ({"kind": "greater", "over": {BUF: "a"}, "min_effect": 0}, "positive relative effect"),
        ({"kind": "less", "over": {BUF: "a"}, "min_effect": 0.1, "min_difference": 1}, "not both"),
        ({"kind": "value", "min": 1, "min_effect": 0.1}, "only a comparison or an order"),
        ({"kind": "value", "min": 1, "headline": "yes"}, "headline: expected true or false"),
        ({"kind": "value", "min": 1, "where": ""}, "where: expected a non-empty string"),
        ({"kind": "value", "min": 1, "quantifier": "most"}, 'expected "all", "any" or "K of N"'),
        ({"kind": "value", "min": 1, "readings": ["nope"]}, "'nope' is not a reading"),
        ({"kind": "value", "min": 1, "cases": [{"label": "x"}]}, "a case sets no override"),
    ],
)
def test_claims_that_would_let_a_tie_hold_or_are_malformed_are_refused(keys, message):
    table = {**_claim("value", at={BUF: "b"}), **keys}
    with pytest.raises(ScenarioError, match=re.escape(message)):
        _claims(table)


def test_a_target_near_one_is_a_similarity_not_a_tie():
    # "adds no goodput": a ratio within 5 % of 1 is what is claimed, and a target says so.
    (claim,) = _claims(_claim("ratio", at={BUF: "b"}, over={BUF: "a"}, target=1.0, tolerance=0.05))
    assert (claim.low, claim.high) == pytest.approx((0.95, 1.05))


def test_pooled_points_average_seed_by_seed():
    spec = _spec(**{SRC: ["x", "y"], BUF: ["a", "b"]})
    values = {}
    data = {("x", "a"): [1, 3], ("y", "a"): [3, 5], ("x", "b"): [10, 10], ("y", "b"): [10, 10]}
    for point in spec.expand():
        series = data[(point.overrides[SRC], point.overrides[BUF])]
        values[point.id] = {seed: {"m": v} for seed, v in enumerate(series, start=1)}
    table = _claim("value", at={BUF: "a"}, pool=[SRC], max=30.0)
    (claim,) = _claims(table, spec=spec)
    entry = evaluate(claim, spec.expand(), spec.fixed, values)
    assert entry["n"] == 2
    assert entry["value"] == pytest.approx(3.0)  # seeds: (1+3)/2 = 2 and (3+5)/2 = 4
    # Without `pool`, the grid path it leaves out makes the selector match nothing.
    with pytest.raises(ScenarioError, match=r"claims\[0\] \(c\): setting: matches no point"):
        _claims(_claim("value", at={BUF: "a"}, max=3.0), spec=spec)


def test_selectors_match_numbers_by_value_and_tables_by_the_keys_given():
    spec = SweepSpec(
        scenario="unused.toml",
        points=[
            {"d": 50.0, "proc": [{"kind": "pep", "cache": "64MB"}]},
            {"d": 50.0, "proc": [{"kind": "pep", "cache": "64MB", "timeout": "go_back_n"}]},
            {"d": 50.0, "proc": [{"kind": "mmpep", "cache": "64MB"}]},
            {"d": 50.0, "proc": [], "visibility": "los"},
        ],
    )
    points = spec.expand()
    picked = select({"d": 50, "proc": [{"kind": "mmpep"}]}, [], points, {}, "w")
    assert [p.id for p in picked] == [points[2].id]
    # A point with an override the selector does not name (visibility) is not matched.
    with pytest.raises(ScenarioError, match="matches no point"):
        select({"d": 50, "proc": []}, [], points, {}, "w")
    # Two points that differ in a selected path: ambiguous, not pooled.
    with pytest.raises(ScenarioError, match="differ in proc"):
        select({"d": 50, "proc": [{"kind": "pep"}]}, [], points, {}, "w")
    assert select({"d": True, "proc": []}, ["visibility"], points, {}, "w", allow_none=True) == []


def _experiment(root: Path, claims: str, quick: str = 'seeds = "3,4"') -> Path:
    folder = root / "paper" / "tiny"
    folder.mkdir(parents=True)
    (folder / "scenario.toml").write_text((SCENARIOS / "lossy.toml").read_text())
    (folder / "experiment.toml").write_text(
        textwrap.dedent(
            """\
            name = "tiny"
            title = "A tiny experiment"
            claim = "Loss hurts."
            [sweep]
            scenario = "scenario.toml"
            seeds = 4
            metrics = ["flows.bulk.goodput_bps", "flows.bulk.rto_count"]
            set = {{ "simulation.duration" = "0.3s" }}
            [sweep.grid]
            "link.wire.forward.loss" = [0.0, 0.05]
            [quick]
            {quick}
            """
        ).format(quick=quick)
        + textwrap.dedent(claims)
    )
    return folder


GOOD_CLAIM = """
[[claims]]
id = "loss-hurts"
claim = "5 % loss cuts the goodput by at least 10 %"
quote = "Loss hurts."
where = "§1"
source = "Tiny et al."
paper = "qualitative"
kind = "ratio"
metric = "flows.bulk.goodput_bps"
at = { "link.wire.forward.loss" = 0.05 }
over = { "link.wire.forward.loss" = 0.0 }
max = 0.9
"""


@pytest.mark.parametrize(
    ("change", "fragments"),
    [
        (("max = 0.9", "max = 0.9\nmaximum = 1"), ["claims[0] (loss-hurts)", "'maximum'"]),
        (("goodput_bps", "goodput"), ["metric", "flows.bulk.goodput is not one of"]),
        (("0.05 }", "0.07 }"), ["claims[0] (loss-hurts): setting", "matches no point"]),
        (('"ratio"', '"ratios"'), ["kind", "'ratios'"]),
        (('over = { "link.wire.forward.loss" = 0.0 }', ""), ["over", "needs it"]),
        (("max = 0.9", "target = 0.5\ntolerance = -1"), ["tolerance", "relative tolerance"]),
        (("max = 0.9", 'max = "0.9"'), ["max", "expected a number"]),
        (('paper = "qualitative"', ""), ["paper", "non-empty string"]),
        (('source = "Tiny et al."', ""), ["source", "Polese et al. 2017a"]),
        (("max = 0.9", "max = 1.0"), ["max", "lets a tie hold"]),
    ],
)
def test_bad_claims_are_one_line_naming_the_file_and_key(cli, tmp_path, change, fragments):
    folder = _experiment(tmp_path, GOOD_CLAIM.replace(*change))
    proc = cli("reproduce", "tiny", "--dir", tmp_path, cwd=tmp_path)
    assert_bad_input(proc, str(folder / "experiment.toml"), *fragments)


def test_a_claim_without_points_in_the_quick_grid_loads(tmp_path):
    quick = 'seeds = "3,4"\ngrid = { "link.wire.forward.loss" = [0.05] }'
    folder = _experiment(tmp_path, GOOD_CLAIM, quick=quick)
    (claim,) = load_experiment(folder / "experiment.toml").claims
    spec = load_experiment(folder / "experiment.toml").spec(quick=True)
    entry = evaluate(claim, spec.expand(), spec.fixed, {})
    assert (entry["verdict"], entry["note"]) == (
        "not testable",
        "over: no such point in this sweep",
    )


@pytest.mark.core
def test_quick_reproduction_writes_claims_json_and_a_2_seed_table(cli, tmp_path):
    _experiment(tmp_path, GOOD_CLAIM)
    proc = cli("reproduce", "tiny", "--quick", "--dir", tmp_path, "--out", tmp_path / "o")
    assert proc.returncode == 0, proc.stderr
    entries = json.loads((tmp_path / "o" / "claims.json").read_text())
    assert [e["id"] for e in entries] == ["loss-hurts"]
    assert entries[0]["n"] == 2
    # Two seeds: the table shows the range, not a 12.7-standard-error interval.
    table = [line for line in proc.stdout.splitlines() if line.startswith(("0.0 ", "0.05 "))]
    assert len(table) == 2
    assert all("±" not in line and ".." in line for line in table)
    assert "mean (min..max) where fewer than 3 seeds" in proc.stdout
    assert re.search(r"^\s*loss-hurts\s+qualitative\s+\S+x \[", proc.stdout, re.MULTILINE)


@pytest.mark.core
def test_quick_example_writes_the_claims_json_others_read(cli, tmp_path):
    proc = cli("reproduce", "example-chain", "--quick", "--workers", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    entries = json.loads((tmp_path / "out/reproduce/example-chain-quick/claims.json").read_text())
    assert len(entries) == 3
    for entry in entries:
        assert {"claim", "paper", "ours", "verdict", "value", "ci_low", "ci_high", "n"} <= set(
            entry
        )
        assert entry["verdict"] in VERDICTS
        assert entry["n"] == 3
    by_id = {e["id"]: e for e in entries}
    assert by_id["small-buffer-short"]["verdict"] == "holds"
    assert by_id["small-buffer-short"]["ci_high"] < 1 / 1.1
    assert all(e["own"] and e["summary"] == e["verdict"] for e in entries)  # no readings
    means = by_id["large-buffer-delay"]["cases"][0]["means"]
    assert means == sorted(means)
    assert by_id["large-buffer-delay"]["verdict"] != "fails"
    assert "claim " in proc.stdout
    assert "verdict" in proc.stdout


def test_format_estimate_shows_the_range_below_three_values():
    two = {"n": 2, "mean": 1.42e9, "ci95": 17e9, "std": 1.0, "min": 1.3e9, "max": 1.54e9}
    three = {**two, "n": 3, "ci95": 0.2e9}
    assert format_estimate(two) == "1.42G (1.3G..1.54G)"
    assert format_estimate(three) == "1.42G ± 0.2G"
    point = {"id": "p0", "overrides": {}, "runs": 2, "failed": 0, "metrics": {"m": two}}
    assert "17G" not in points_table([point], ["m"])


EXPERIMENTS = sorted((REPO / "experiments").rglob("experiment.toml"))


@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: p.parent.name)
def test_every_experiment_loads_with_claims(path):
    experiment = load_experiment(path)
    assert experiment.claims, f"{path}: no [[claims]]"
    assert len(experiment.spec(quick=True).seeds) >= 3  # quick runs can estimate a CI


def _normalised(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("-\n", "")).strip().lower()


@pytest.mark.skipif(not SEEDS_TEXT.is_dir(), reason="the papers' text is not here")
def test_paper_quotes_are_in_the_papers():
    papers = _normalised(" ".join(p.read_text() for p in SEEDS_TEXT.glob("0*.txt")))
    for experiment in find_experiments([REPO / "experiments"]):
        if experiment.paper is None:
            continue
        for claim in experiment.claims:
            for fragment in claim.quote.split(" ... "):
                assert _normalised(fragment) in papers, f"{experiment.name}/{claim.id}: {fragment}"


def test_the_documented_claims_are_the_example_experiments():
    readme = (REPO / "experiments" / "README.md").read_text()
    section = readme[readme.index("### Claims") : readme.index("### `plot.py`")]
    (block,) = re.findall(r"```toml\n(.*?)```", section, re.DOTALL)
    documented = tomllib.loads(block)["claims"]
    example = tomllib.loads((REPO / "experiments/example/chain/experiment.toml").read_text())
    for claim in documented:
        same = [c for c in example["claims"] if c["id"] == claim["id"]]
        assert same, claim["id"]
        assert {k: same[0][k] for k in claim} == claim  # the README's keys, as in the file
