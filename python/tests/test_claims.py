"""Claims (`[[claims]]` of experiment.toml, `mmtcp.claims`): each predicate on made-up run values
(holds, fails, not testable), point selection and pooling, the load-time errors, claims.json of a
quick reproduction, the min..max cells of 2-seed tables, and the claims of every experiment."""

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
from mmtcp.claims import VERDICTS, evaluate, parse_claims, select
from mmtcp.reproduce import find_experiments, load_experiment
from mmtcp.stats import t_quantile
from mmtcp.sweep_spec import SweepSpec
from mmtcp.sweep_table import format_estimate, points_table

BUF = "link.bottleneck.buffer"
SRC = "source"
SEEDS_TEXT = Path("/work/shared/seeds")


def _spec(**grid):
    return SweepSpec(scenario="unused.toml", seeds=[1, 2, 3, 4], grid=grid, metrics=["m"])


def _claims(*tables, spec=None, quick=None):
    return parse_claims(list(tables), "exp.toml", spec or _spec(**{BUF: ["a", "b", "c"]}), quick)


def _values(spec, by_point):
    """point id → seed → {"m": value}, from {buffer value: [value per seed]}."""
    values = {}
    for point in spec.expand():
        series = by_point.get(point.overrides[BUF], [])
        values[point.id] = {seed: {"m": v} for seed, v in enumerate(series, start=1)}
    return values


def _evaluate(table, by_point, spec=None):
    spec = spec or _spec(**{BUF: ["a", "b", "c"]})
    (claim,) = _claims(table, spec=spec)
    return evaluate(claim, spec.expand(), spec.fixed, _values(spec, by_point))


def _claim(kind, **keys):
    return {"id": "c", "quote": "q", "paper": "p", "kind": kind, "metric": "m", **keys}


def test_value_holds_fails_and_reports_the_t_interval():
    xs = [10.0, 12.0, 11.0, 13.0]
    table = _claim("value", at={BUF: "a"}, min=10.0)
    entry = _evaluate(table, {"a": xs})
    mean, sd = 11.5, math.sqrt(5 / 3)
    half = t_quantile(0.975, 3) * sd / 2
    assert entry["verdict"] == "holds"
    assert entry["n"] == 4
    assert entry["value"] == pytest.approx(mean)
    assert (entry["ci_low"], entry["ci_high"]) == pytest.approx((mean - half, mean + half))
    assert entry["settled"] is False  # the CI reaches below 10: the note says so
    assert "straddles" in entry["note"]
    assert entry["ours"] == "11.5 [9.45, 13.6] (n=4)"
    assert _evaluate(_claim("value", at={BUF: "a"}, max=11.0), {"a": xs})["verdict"] == "fails"
    settled = _evaluate(_claim("value", at={BUF: "a"}, max=5.0), {"a": xs})
    assert (settled["verdict"], settled["settled"]) == ("fails", True)


def test_target_and_tolerance_are_relative_bounds():
    at = {BUF: "a"}
    assert _evaluate(_claim("value", at=at, target=100.0, tolerance=0.1), {"a": [95.0, 105.0]})[
        "bounds"
    ] == pytest.approx([90.0, 110.0])
    far = _evaluate(_claim("value", at=at, target=100.0, tolerance=0.1), {"a": [80.0, 82.0]})
    assert far["verdict"] == "fails"


def test_ratio_is_the_ratio_of_means_with_a_linearised_interval():
    top, bottom = [2.0, 4.0, 6.0, 8.0], [1.0, 1.0, 2.0, 4.0]
    entry = _evaluate(
        _claim("ratio", at={BUF: "b"}, over={BUF: "a"}, min=2.0), {"b": top, "a": bottom}
    )
    ratio = 5.0 / 2.0  # mean 5 over mean 2, not the mean of the per-seed ratios (2.75)
    residuals = [a - ratio * b for a, b in zip(top, bottom, strict=True)]
    m = sum(residuals) / 4
    sd = math.sqrt(sum((r - m) ** 2 for r in residuals) / 3)
    half = t_quantile(0.975, 3) * sd / 2 / 2.0
    assert entry["value"] == pytest.approx(ratio)
    assert entry["ci_high"] - entry["value"] == pytest.approx(half)
    assert entry["verdict"] == "holds"
    assert entry["ours"].startswith("2.5x [")
    fails = _claim("ratio", at={BUF: "b"}, over={BUF: "a"}, max=2.0)
    assert _evaluate(fails, {"b": top, "a": bottom})["verdict"] == "fails"
    zero = _evaluate(fails, {"b": top, "a": [0.0] * 4})
    assert zero["verdict"] == "not testable"


def test_over_metric_divides_one_metric_by_another_at_the_same_point():
    spec = SweepSpec(
        scenario="unused.toml", seeds=[1, 2, 3], grid={BUF: ["a", "b"]}, metrics=["m", "n"]
    )
    table = _claim("ratio", at={BUF: "a"}, over={BUF: "a"}, over_metric="n", max=1.0)
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
    with pytest.raises(ScenarioError, match="over_metric: only a 'ratio' or 'difference'"):
        _claims(_claim("value", at={BUF: "a"}, over_metric="n", min=0.0), spec=spec)


def test_difference_pairs_the_seeds():
    # Seed-to-seed spread is large, but every seed gains exactly 10: the paired CI is [10, 10].
    base = [100.0, 300.0, 50.0, 700.0]
    gained = [b + 10 for b in base]
    table = _claim("difference", at={BUF: "b"}, over={BUF: "a"}, min=5.0)
    entry = _evaluate(table, {"a": base, "b": gained})
    assert entry["value"] == pytest.approx(10.0)
    assert entry["ci_low"] == pytest.approx(10.0)
    assert (entry["verdict"], entry["settled"]) == ("holds", True)
    assert entry["ours"] == "+10 [+10, +10] (n=4)"
    # A seed missing at one point leaves that seed out of both.
    entry = _evaluate(table, {"a": base[:3], "b": gained})
    assert entry["n"] == 3
    lost = _evaluate(table, {"a": base, "b": [b - 10 for b in base]})
    assert lost["verdict"] == "fails"


def test_order_compares_the_means_in_the_direction_given():
    means = {"a": [1.0, 2.0, 3.0], "b": [5.0, 6.0, 7.0], "c": [9.0, 9.5, 10.0]}
    points = [{BUF: "a"}, {BUF: "b"}, {BUF: "c"}]
    up = _evaluate(_claim("order", points=points, direction="increasing"), means)
    assert (up["verdict"], up["settled"]) == ("holds", True)
    assert up["ours"] == "2 < 6 < 9.5 (n=3)"
    down = _evaluate(_claim("order", points=points), means)  # decreasing by default
    assert down["verdict"] == "fails"
    ties = _evaluate(
        _claim("order", points=points[:2], direction="increasing"), {"a": [1, 2], "b": [1, 2]}
    )
    assert ties["verdict"] == "fails"  # strictly


@pytest.mark.parametrize(
    ("by_point", "reason"),
    [
        ({"a": [1.0], "b": [2.0]}, "1 seed(s)"),  # one seed: no interval
        ({"a": [1.0, 2.0], "b": [None, None]}, "0 seed(s)"),  # the metric is missing
        ({"a": [1.0, 2.0], "b": [math.nan, math.nan]}, "0 seed(s)"),  # or NaN
    ],
)
def test_not_testable_without_two_seeds_at_every_point(by_point, reason):
    entry = _evaluate(_claim("difference", at={BUF: "b"}, over={BUF: "a"}, min=0.0), by_point)
    assert entry["verdict"] == "not testable"
    assert entry["value"] is None
    assert reason in entry["note"]


def test_a_point_absent_from_the_quick_grid_is_not_testable_there():
    full = _spec(**{BUF: ["a", "b", "c"]})
    quick = _spec(**{BUF: ["a", "b"]})
    (claim,) = _claims(
        _claim("ratio", at={BUF: "c"}, over={BUF: "a"}, min=1.0), spec=full, quick=quick
    )
    entry = evaluate(claim, quick.expand(), quick.fixed, _values(quick, {"a": [1, 2], "b": [3, 4]}))
    assert entry["verdict"] == "not testable"
    assert "at: no such point" in entry["note"]


def test_pooled_points_average_seed_by_seed():
    spec = _spec(**{SRC: ["x", "y"], BUF: ["a", "b"]})
    values = {}
    data = {("x", "a"): [1, 3], ("y", "a"): [3, 5], ("x", "b"): [10, 10], ("y", "b"): [10, 10]}
    for point in spec.expand():
        series = data[(point.overrides[SRC], point.overrides[BUF])]
        values[point.id] = {seed: {"m": v} for seed, v in enumerate(series, start=1)}
    table = _claim("value", at={BUF: "a"}, pool=[SRC], max=3.0)
    (claim,) = _claims(table, spec=spec)
    entry = evaluate(claim, spec.expand(), spec.fixed, values)
    assert entry["n"] == 2
    assert entry["value"] == pytest.approx(3.0)  # seeds: (1+3)/2 = 2 and (3+5)/2 = 4
    # Without `pool`, the grid path it leaves out makes the selector match nothing.
    with pytest.raises(ScenarioError, match=r"claims\[0\] \(c\): at: matches no point"):
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
quote = "Loss hurts."
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
        (("0.05 }", "0.07 }"), ["claims[0] (loss-hurts): at", "matches no point"]),
        (('"ratio"', '"ratios"'), ["kind", "'ratios'"]),
        (('over = { "link.wire.forward.loss" = 0.0 }', ""), ["over", "needs it"]),
        (("max = 0.9", "target = 0.5"), ["tolerance", "relative tolerance"]),
        (("max = 0.9", 'max = "0.9"'), ["max", "expected a number"]),
        (('paper = "qualitative"', ""), ["paper", "non-empty string"]),
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
    assert re.search(r"^loss-hurts\s+qualitative\s+\S+x \[", proc.stdout, re.MULTILINE)


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
    assert by_id["small-buffer-short"]["value"] < 0.9
    assert by_id["large-buffer-delay"]["verdict"] == "holds"
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
