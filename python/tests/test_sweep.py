"""`mmtcp sweep` and `mmtcp.sweep`: seed specs, grid expansion, metrics, statistics, and sweeps
end to end (parallel, resumable, refusing a changed sweep, recording failures). The end-to-end
tests need the simulation core and run 0.3 s scenarios."""

from __future__ import annotations

import csv
import json
import math
import os
import signal
import subprocess
import sys
import time
import tomllib
import types
from pathlib import Path

import pytest
from helpers import REPO, SCENARIOS, assert_bad_input

import mmtcp
from mmtcp.metrics import check_metrics, default_metrics, metric_value
from mmtcp.stats import describe, t_quantile
from mmtcp.sweep_spec import (
    SweepSpec,
    load_sweep_file,
    parse_seeds,
    spec_from_table,
    split_values,
    validate_points,
)
from mmtcp.worker_pool import run_task

LOSSY = SCENARIOS / "lossy.toml"  # 1 % random loss: results depend on the seed
SHORT = "simulation.duration=0.3s"
GOODPUT = "flows.bulk.goodput_bps"

# --- no core needed -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "seeds"),
    [
        (3, [1, 2, 3]),
        ("3", [1, 2, 3]),
        ("4-6", [4, 5, 6]),
        ("3,7,9", [3, 7, 9]),
        ("1-2, 8", [1, 2, 8]),
        ("7-7", [7]),
        ([1, 2, 5], [1, 2, 5]),
    ],
)
def test_seed_specs(spec, seeds):
    assert parse_seeds(spec) == seeds


@pytest.mark.parametrize(
    "spec", [0, "0", -1, "5-3", "a", "1,,2", "1,1", [1, 1], [], True, [1.5], "1-x", 2**64, 2**63]
)
def test_bad_seed_specs(spec):
    with pytest.raises(mmtcp.ScenarioError, match="expected a count"):
        parse_seeds(spec)


def test_grid_expands_to_the_cartesian_product_then_the_explicit_points():
    spec = SweepSpec(
        scenario="x.toml",
        grid={"link.radio.buffer": ["1MB", "5MB"], "flow.0.transport.cc": ["cubic", "newreno"]},
        points=[{"link.radio.delay": "20ms"}],
    )
    points = spec.expand()
    assert [p.overrides for p in points] == [
        {"link.radio.buffer": "1MB", "flow.0.transport.cc": "cubic"},
        {"link.radio.buffer": "1MB", "flow.0.transport.cc": "newreno"},
        {"link.radio.buffer": "5MB", "flow.0.transport.cc": "cubic"},
        {"link.radio.buffer": "5MB", "flow.0.transport.cc": "newreno"},
        {"link.radio.delay": "20ms"},
    ]
    assert points[0].id == "p000-link.radio.buffer=1MB_flow.0.transport.cc=cubic"
    assert points[4].id == "p004-link.radio.delay=20ms"
    assert len({p.id for p in points}) == 5


def test_no_grid_is_one_point_without_overrides():
    assert [(p.id, p.overrides) for p in SweepSpec(scenario="x.toml").expand()] == [("p000", {})]


def test_a_key_in_grid_and_set_is_refused():
    spec = SweepSpec(scenario="x.toml", grid={"link.0.delay": ["1ms"]}, fixed={"link.0.delay": 1})
    with pytest.raises(mmtcp.ScenarioError, match="both in the grid and in set"):
        spec.expand()


def test_grid_values_split_at_top_level_commas():
    assert split_values('1MB,{ kind = "constant", rate = "1Gbps" }, [1, 2], "a,b"') == [
        "1MB",
        '{ kind = "constant", rate = "1Gbps" }',
        "[1, 2]",
        '"a,b"',
    ]


def test_metric_paths_select_list_elements_by_name_or_index():
    summary = {
        "sim_seconds": 2.0,
        "flows": [
            {"name": "bulk", "rtt_ms": {"p99": 31.5}, "completion_seconds": None, "done": True},
            {"name": "fetch", "goodput_bps": 7},
        ],
    }
    assert metric_value(summary, "flows.bulk.rtt_ms.p99") == 31.5
    assert metric_value(summary, "flows.0.rtt_ms.p99") == 31.5
    assert metric_value(summary, "flows.fetch.goodput_bps") == 7.0
    assert metric_value(summary, "sim_seconds") == 2.0
    for missing in (
        "flows.bulk.completion_seconds",  # null
        "flows.bulk.done",  # not a number
        "flows.bulk.rtt_ms",  # a table
        "flows.2.goodput_bps",
        "flows.other.goodput_bps",
        "links.0.drops",
    ):
        assert metric_value(summary, missing) is None, missing


def test_default_metrics_cover_every_flow_and_completion_only_when_sized():
    scenario = {
        "flow": [
            {"name": "bulk", "app": {"kind": "bulk"}},
            {"name": "fetch", "app": {"kind": "download", "size": "1MB"}},
        ]
    }
    metrics = default_metrics([scenario])
    assert metrics[:6] == [
        "flows.bulk.goodput_bps",
        "flows.bulk.rtt_ms.mean",
        "flows.bulk.rtt_ms.p99",
        "flows.bulk.owd_ms.mean",
        "flows.bulk.owd_ms.p99",
        "flows.bulk.retransmitted_segments",
    ]
    assert "flows.fetch.completion_seconds" in metrics
    assert "flows.bulk.completion_seconds" not in metrics
    assert not any("steady" in m for m in metrics)


def test_default_metrics_add_the_steady_state_goodput_with_steady_from():
    plain = {"flow": [{"name": "bulk", "app": {"kind": "bulk"}}]}
    steady = {**plain, "metrics": {"interval": "10ms", "steady_from": "10s"}}
    metrics = default_metrics([plain, steady])
    assert metrics[:3] == [
        "flows.bulk.goodput_bps",
        "flows.bulk.steady_goodput_bps",
        "flows.bulk.rtt_ms.mean",
    ]
    assert check_metrics(metrics) == metrics


def test_default_metrics_of_many_flows_are_their_distributions():
    from mmtcp.metrics import AGGREGATE_DEFAULTS, PER_FLOW_DEFAULTS

    flows = [{"name": f"f{i}"} for i in range(PER_FLOW_DEFAULTS)]
    assert len(default_metrics([{"flow": flows}])) == 6 * PER_FLOW_DEFAULTS
    many = {"flow": [*flows, {"name": "fetch", "app": {"kind": "download", "size": "1MB"}}]}
    metrics = default_metrics([many])
    assert metrics == [*AGGREGATE_DEFAULTS, "aggregates.flows.completion_seconds.p50"]
    assert check_metrics(metrics) == metrics
    summary = mmtcp.run(
        {
            "node": [{"name": "a"}, {"name": "b"}],
            "link": [{"between": ["a", "b"], "rate": "100Mbps", "delay": "1ms"}],
            "flow": [{"from": "a", "to": "b", "app": {"kind": "download", "size": "100kB"}}],
        },
        overrides={"simulation.duration": "1s"},
    ).summary
    assert all(metric_value(summary, m) is not None for m in metrics), "every path exists"


@pytest.mark.parametrize(
    ("dof", "quantile"),
    [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (29, 2.0452), (1000, 1.9623)],
)
def test_t_quantiles_match_the_tables(dof, quantile):
    assert t_quantile(0.975, dof) == pytest.approx(quantile, abs=1e-4)


def test_confidence_interval_of_five_values():
    values = [10.0, 12.0, 9.0, 11.0, 13.0]
    stats = describe(values)
    std = math.sqrt(sum((v - 11.0) ** 2 for v in values) / 4)  # 1.5811
    assert (stats.n, stats.mean, stats.min, stats.max) == (5, 11.0, 9.0, 13.0)
    assert stats.std == pytest.approx(std)
    assert stats.ci95 == pytest.approx(2.776445 * std / math.sqrt(5))
    assert stats.ci95 == pytest.approx(1.9632, abs=1e-4)


def test_statistics_of_one_and_no_value():
    assert describe([4]).as_dict() == {
        "n": 1,
        "mean": 4.0,
        "std": None,
        "ci95": None,
        "min": 4.0,
        "max": 4.0,
    }
    assert describe([]).n == 0
    assert describe([]).mean is None


def test_sweep_file_keys(tmp_path):
    sweep_file = tmp_path / "study.toml"
    sweep_file.write_text(
        'scenario = "sub/scenario.toml"\n'
        'seeds = "1-3"\n'
        'metrics = ["flows.bulk.goodput_bps"]\n'
        'set = { "simulation.duration" = "1s" }\n'
        "[grid]\n"
        '"link.0.buffer" = ["20pkt", 100]\n'
        "[[point]]\n"
        '"link.0.delay" = "20ms"\n'
        "[[grids]]\n"
        '"link.0.buffer" = ["5pkt"]\n'
        '"link.0.delay" = ["1ms", "2ms"]\n'
    )
    spec = load_sweep_file(sweep_file)
    assert spec.scenario == str(tmp_path / "sub" / "scenario.toml")
    assert spec.seeds == [1, 2, 3]
    assert spec.metrics == ["flows.bulk.goodput_bps"]
    assert spec.fixed == {"simulation.duration": "1s"}
    assert [p.overrides for p in spec.expand()] == [
        {"link.0.buffer": "20pkt"},
        {"link.0.buffer": 100},
        {"link.0.delay": "20ms"},
        {"link.0.buffer": "5pkt", "link.0.delay": "1ms"},
        {"link.0.buffer": "5pkt", "link.0.delay": "2ms"},
    ]
    assert spec.stem == "study"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('scenario = "s.toml"\nseedz = 3\n', "unknown key 'seedz'"),
        ('seeds = 3\ngrid = { "a.b" = [1] }\n[x]\n', "unknown key 'x'"),
        ('scenario = "s.toml"\n[grid]\nlink.0.buffer = ["1MB"]\n', "write the override path in"),
        ('scenario = "s.toml"\n[grid]\n"link.0.buffer" = []\n', "non-empty list"),
        ('scenario = "s.toml"\nseeds = "x"\n', "seeds"),
        ('scenario = "s.toml"\n[[grids]]\n"link.0.buffer" = "1MB"\n', r"grids\[0\]\.link"),
        ('scenario = "s.toml"\ngrids = { "a.b" = [1] }\n', r"\[\[grids\]\] tables"),
        ('scenario = "s.toml"\n[[grids]]\nlink.0.buffer = ["1MB"]\n', "write the override path in"),
    ],
)
def test_bad_sweep_files(tmp_path, text, fragment):
    sweep_file = tmp_path / "study.toml"
    sweep_file.write_text(text)
    with pytest.raises(mmtcp.ScenarioError, match=fragment) as error:
        load_sweep_file(sweep_file)
    assert str(sweep_file) in str(error.value)


# --- end to end ---------------------------------------------------------------------------------


def _sweep(cli, out, *args, workers=2, cwd=None):
    return cli(
        "sweep",
        LOSSY,
        "--grid",
        "link.wire.buffer=20pkt,100pkt",
        "--seeds",
        "3",
        "--set",
        SHORT,
        "--workers",
        workers,
        "--out",
        out,
        *args,
        cwd=cwd,
    )


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.core
def test_sweep_writes_runs_and_statistics_identically_on_1_and_2_workers(cli, tmp_path):
    two = _sweep(cli, tmp_path / "two", workers=2)
    assert two.returncode == 0, two.stderr
    out = tmp_path / "two"
    ids = ["p000-link.wire.buffer=20pkt", "p001-link.wire.buffer=100pkt"]
    assert sorted(p.name for p in (out / "runs").iterdir()) == sorted(ids)
    for point in ids:
        names = sorted(p.name for p in (out / "runs" / point).iterdir())
        assert names == ["seed-1.json", "seed-2.json", "seed-3.json"]

    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["seeds"] == [1, 2, 3]
    assert manifest["grid"] == {"link.wire.buffer": ["20pkt", "100pkt"]}
    assert manifest["set"] == {"simulation.duration": "0.3s"}
    assert GOODPUT in manifest["metrics"]

    rows = _rows(out / "points.csv")
    assert [r["point"] for r in rows] == ids
    assert [r["link.wire.buffer"] for r in rows] == ["20pkt", "100pkt"]
    for row, point in zip(rows, ids, strict=True):
        goodputs = [
            json.loads((out / "runs" / point / f"seed-{s}.json").read_text())["flows"][0][
                "goodput_bps"
            ]
            for s in (1, 2, 3)
        ]
        assert len(set(goodputs)) > 1  # the seeds differ
        expected = describe(goodputs)
        assert row["runs"] == "3"
        assert row["failed"] == "0"
        assert int(row[f"{GOODPUT}.n"]) == 3
        assert float(row[f"{GOODPUT}.mean"]) == pytest.approx(expected.mean)
        assert float(row[f"{GOODPUT}.ci95"]) == pytest.approx(expected.ci95)
        assert float(row[f"{GOODPUT}.min"]) == min(goodputs)
    points = json.loads((out / "points.json").read_text())
    assert points[1]["overrides"] == {"link.wire.buffer": "100pkt"}
    assert points[1]["metrics"][GOODPUT]["n"] == 3
    assert "±" in two.stdout
    assert "6 runs; 6 to run on 2 workers" in two.stderr

    one = _sweep(cli, tmp_path / "one", workers=1)
    assert one.returncode == 0, one.stderr
    assert (tmp_path / "one" / "points.csv").read_text() == (out / "points.csv").read_text()


@pytest.mark.core
def test_an_interrupted_sweep_resumes_with_the_missing_runs_only(cli, tmp_path):
    out = tmp_path / "out"
    assert _sweep(cli, out).returncode == 0
    points_csv = (out / "points.csv").read_text()
    runs = sorted((out / "runs").glob("*/seed-*.json"))
    assert len(runs) == 6
    old = {p: p.stat().st_mtime_ns for p in runs}
    deleted = runs[4]
    deleted.unlink()
    time.sleep(0.05)

    again = _sweep(cli, out, "--quiet")
    assert again.returncode == 0, again.stderr
    assert again.stdout == ""
    assert deleted.is_file()
    for path in runs:
        if path != deleted:
            assert path.stat().st_mtime_ns == old[path], f"{path} was rerun"
    assert (out / "points.csv").read_text() == points_csv  # same seeds, same results

    verbose = _sweep(cli, out)
    assert "6 runs, 6 already done; nothing to run" in verbose.stderr


@pytest.mark.core
def test_a_changed_sweep_is_refused_unless_forced(cli, tmp_path):
    out = tmp_path / "out"
    assert _sweep(cli, out).returncode == 0
    changed = ("sweep", LOSSY, "--grid", "link.wire.buffer=50pkt", "--seeds", "2", "--set", SHORT)
    line = assert_bad_input(cli(*changed, "--out", out), str(out), "different sweep", "--force")
    assert "grid" in line
    assert len(list((out / "runs").glob("*/*.json"))) == 6  # nothing deleted

    forced = cli(*changed, "--out", out, "--force", "--quiet")
    assert forced.returncode == 0, forced.stderr
    assert [p.name for p in (out / "runs").iterdir()] == ["p000-link.wire.buffer=50pkt"]
    assert [r["point"] for r in _rows(out / "points.csv")] == ["p000-link.wire.buffer=50pkt"]

    # More seeds or other metrics are the same sweep: its runs are kept.
    more = cli(*changed, "--out", out, "--seeds", "1-3", "--metric", GOODPUT)
    assert more.returncode == 0, more.stderr
    assert "3 runs, 2 already done; 1 to run" in more.stderr


@pytest.mark.core
@pytest.mark.parametrize(
    ("grid", "fragments"),
    [
        ("link.wire.buffer=20pkt,lots", ["grid link.wire.buffer=lots", '"lots"']),
        ("link.wrie.buffer=20pkt", ["grid link.wrie.buffer=20pkt", "wrie"]),
        ("link.wire.bufer=20pkt", ["grid link.wire.bufer=20pkt", "unknown key"]),
    ],
)
def test_a_bad_grid_fails_before_any_run(cli, tmp_path, grid, fragments):
    proc = cli("sweep", LOSSY, "--grid", grid, "--seeds", "2", "--out", tmp_path / "out")
    assert_bad_input(proc, *fragments)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "args",
    [
        ("--grid", "link.wire.buffer"),
        ("--grid", "link.wire.buffer=1,,2"),
        ("--seeds", "3-1"),
        ("--workers", "0"),
        ("--metric", "flows..goodput_bps", "--seeds", "2"),
        ("--grid", "link.0.delay=1ms", "--grid", "link.0.delay=2ms", "--seeds", "2"),
    ],
)
def test_bad_sweep_options(cli, tmp_path, args):
    assert_bad_input(cli("sweep", LOSSY, *args, "--out", tmp_path / "out"))


def test_missing_seeds_is_bad_input(cli, tmp_path):
    assert_bad_input(cli("sweep", LOSSY, "--out", tmp_path / "out"), "no seeds", "--seeds")


@pytest.mark.core
def test_sweep_file_with_points_and_a_missing_metric(cli, tmp_path):
    sweep_file = tmp_path / "study.toml"
    sweep_file.write_text(
        f"scenario = {json.dumps(os.path.relpath(SCENARIOS / 'small.toml', tmp_path))}\n"
        'seeds = "4,9"\n'
        'metrics = ["flows.fetch.goodput_bps", "flows.fetch.completion_seconds"]\n'
        'set = { "simulation.duration" = "0.8s" }\n'
        "[grid]\n"
        '"flow.fetch.start" = ["100ms", "600ms"]\n'
        "[[point]]\n"
        '"flow.fetch.start" = "200ms"\n'
        '"link.radio.channel" = { kind = "constant", rate = "100Mbps" }\n'
    )
    proc = cli("sweep", sweep_file, "--workers", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out" / "sweep-study"
    points = json.loads((out / "points.json").read_text())
    assert [p["overrides"]["flow.fetch.start"] for p in points] == ["100ms", "600ms", "200ms"]
    assert points[2]["overrides"]["link.radio.channel"] == {"kind": "constant", "rate": "100Mbps"}
    assert all(p["runs"] == 2 for p in points)
    # A 1 MB download from 600 ms does not finish by 800 ms: its completion time is null.
    assert points[0]["metrics"]["flows.fetch.completion_seconds"]["n"] == 2
    assert points[1]["metrics"]["flows.fetch.completion_seconds"]["n"] == 0
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1
    assert "flows.fetch.completion_seconds" in warnings[0]
    assert "p001-flow.fetch.start=600ms" in warnings[0]
    summary = json.loads((out / "runs" / points[2]["id"] / "seed-9.json").read_text())
    assert summary["seed"] == 9
    assert summary["links"][1]["mean_capacity_bps"] == 100e6


@pytest.mark.core
def test_variants_set_several_overrides_under_one_name(cli, tmp_path):
    sweep_file = tmp_path / "study.toml"
    sweep_file.write_text(
        f"scenario = {json.dumps(os.path.relpath(SCENARIOS / 'small.toml', tmp_path))}\n"
        'seeds = "1"\n'
        'metrics = ["flows.fetch.goodput_bps"]\n'
        'set = { "simulation.duration" = "0.8s" }\n'
        "[grid]\n"
        'radio = ["slow", "fast"]\n'
        '"flow.fetch.start" = ["100ms"]\n'
        "[variants.radio]\n"
        'slow = { "link.radio.channel" = { kind = "constant", rate = "50Mbps" }, '
        '"link.radio.delay" = "20ms" }\n'
        'fast = { "link.radio.channel" = { kind = "constant", rate = "200Mbps" }, '
        '"link.radio.delay" = "1ms" }\n'
    )
    spec = load_sweep_file(sweep_file)
    assert [p.overrides for p in spec.expand()] == [
        {"radio": "slow", "flow.fetch.start": "100ms"},
        {"radio": "fast", "flow.fetch.start": "100ms"},
    ]
    proc = cli("sweep", sweep_file, "--workers", "1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out" / "sweep-study"
    points = json.loads((out / "points.json").read_text())
    assert [p["overrides"]["radio"] for p in points] == ["slow", "fast"]
    for point, rate, delay in zip(points, [50e6, 200e6], ["20ms", "1ms"], strict=True):
        summary = json.loads((out / "runs" / point["id"] / "seed-1.json").read_text())
        assert summary["links"][1]["mean_capacity_bps"] == rate
        radio = next(link for link in summary["scenario"]["link"] if link["name"] == "radio")
        assert radio["delay"] == delay


@pytest.mark.parametrize(
    ("tail", "fragment"),
    [
        ('[grid]\nradio = ["medium"]\n', "not a value of variants.radio; allowed: slow"),
        ('[grid]\nradio = ["slow"]\n"link.radio.delay" = ["5ms"]\n', "also sets"),
        ('[grid]\nradio = ["slow"]\n[set]\n"link.radio.delay" = "5ms"\n', "which set also sets"),
    ],
)
def test_bad_variants(tmp_path, tail, fragment):
    sweep_file = tmp_path / "study.toml"
    sweep_file.write_text(
        f"scenario = {json.dumps(str(SCENARIOS / 'small.toml'))}\nseeds = 1\n"
        '[variants.radio]\nslow = { "link.radio.delay" = "20ms" }\n' + tail
    )
    spec = load_sweep_file(sweep_file)
    with pytest.raises(mmtcp.ScenarioError, match=fragment):
        [spec.applied(point.overrides) for point in spec.expand()]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('[variants."a.b"]\nx = { "c.d" = 1 }\n', "no dots"),
        ("[variants.a]\nx = 3\n", "expected a table"),
        ("variants = 3\n", "expected \\[variants"),
    ],
)
def test_bad_variant_tables(tmp_path, text, fragment):
    sweep_file = tmp_path / "study.toml"
    sweep_file.write_text('scenario = "s.toml"\nseeds = 1\n' + text)
    with pytest.raises(mmtcp.ScenarioError, match=fragment):
        load_sweep_file(sweep_file)


@pytest.mark.core
def test_a_bad_value_in_a_sweep_file_names_the_file_and_key(cli, tmp_path):
    sweep_file = tmp_path / "study.toml"
    sweep_file.write_text(
        f"scenario = {json.dumps(str(LOSSY))}\nseeds = 2\n"
        '[grid]\n"link.wire.rate" = ["10Mbps", "fast"]\n'
    )
    assert_bad_input(cli("sweep", sweep_file), str(sweep_file), "grid link.wire.rate=fast")


@pytest.mark.core
def test_python_api(tmp_path):
    kwargs = {
        "grid": {"flow.bulk.transport.initial_window": [2, 10]},
        "seeds": [2, 5],
        "overrides": {"simulation.duration": "0.3s"},
        "out": tmp_path / "api",
    }
    result = mmtcp.sweep(LOSSY, metrics=[GOODPUT, "flows.bulk.rtt_ms.p99"], workers=1, **kwargs)
    assert isinstance(result, mmtcp.SweepResult)
    assert (result.executed, result.skipped, result.failures) == (4, 0, [])
    assert [p["overrides"] for p in result.points] == [
        {"flow.bulk.transport.initial_window": 2},
        {"flow.bulk.transport.initial_window": 10},
    ]
    stats = result.stats(1, GOODPUT)
    assert stats.n == 2
    assert stats.mean == result.points[1]["metrics"][GOODPUT]["mean"]
    assert list(result.frame()["flow.bulk.transport.initial_window"]) == [2, 10]

    with pytest.warns(UserWarning, match="flows.bulk.nothing: no run has this metric"):
        again = mmtcp.sweep(LOSSY, metrics=[GOODPUT, "flows.bulk.nothing"], **kwargs)
    assert (again.executed, again.skipped) == (0, 4)
    assert again.points[0]["metrics"][GOODPUT] == result.points[0]["metrics"][GOODPUT]


@pytest.mark.core
def test_a_script_needs_no_main_guard(tmp_path):
    script = tmp_path / "study.py"
    script.write_text(
        "import mmtcp\n"
        f"r = mmtcp.sweep({str(LOSSY)!r}, seeds=2, overrides=[{SHORT!r}], workers=2)\n"
        "print(r.executed, len(r.failures))\n"
    )
    proc = subprocess.run(
        [sys.executable, script], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "2 0\n"
    assert (tmp_path / "out" / "sweep-lossy" / "runs" / "p000" / "seed-2.json").is_file()


@pytest.mark.core
def test_workers_do_not_import_modules_of_the_current_folder(tmp_path):
    # A local json.py (the worker protocol's module) that would break any worker importing it.
    (tmp_path / "json.py").write_text("raise SystemExit('the local json.py was imported')\n")
    # The installed command, as a user runs it (`python -m` would itself put the folder first).
    command = Path(sys.executable).parent / "mmtcp"
    proc = subprocess.run(
        [command, "sweep", LOSSY, "--seeds", "2", "--set", SHORT, "--workers", "2"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "local json.py" not in proc.stderr


def test_a_failing_run_is_reported_not_raised():
    status, message = run_task(
        {"source": ("/nowhere/x.toml", "path", {}), "seed": 1, "overrides": []}
    )
    assert status == "error"
    assert message.startswith("ScenarioError: ")


def _workers(pid: int) -> list[int]:
    """The worker processes of the sweep `pid`."""
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    workers = []
    for child in map(int, text.split()):
        try:
            if b"_serve_worker" in Path(f"/proc/{child}/cmdline").read_bytes():
                workers.append(child)
        except FileNotFoundError:
            pass
    return workers


@pytest.mark.core
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_a_dead_worker_fails_its_run_and_the_sweep_goes_on(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "mmtcp", "sweep", LOSSY, "--seeds", "1", "--workers", "2"),
            *("--grid", "simulation.duration=0.3s,100000s", "--set", "metrics.interval=0.1s"),
            *("--out", out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    short_run = out / "runs" / "p000-simulation.duration=0.3s" / "seed-1.json"
    deadline = time.monotonic() + 30
    while not short_run.is_file() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert short_run.is_file()
    time.sleep(0.3)
    for child in _workers(proc.pid):  # the workers: one idle, one in the endless run
        os.kill(child, signal.SIGKILL)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 1, stderr
    error = out / "runs" / "p001-simulation.duration=100000s" / "seed-1.error.txt"
    text = error.read_text()
    assert "WorkerDied" in text
    assert "signal 9" in text
    assert "mmtcp run" in text
    assert "--seed 1" in text
    assert "1 run failed" in stderr
    assert str(error) in stderr
    rows = _rows(out / "points.csv")
    assert [(r["runs"], r["failed"]) for r in rows] == [("1", "0"), ("0", "1")]


@pytest.mark.core
def test_ctrl_c_stops_the_sweep_with_exit_130_and_says_how_to_resume(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "mmtcp", "sweep", LOSSY, "--seeds", "2", "--workers", "2"),
            *("--set", "simulation.duration=100000s", "--set", "metrics.interval=0.1s"),
            *("--out", out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    linux = Path("/proc/self/task").is_dir()
    deadline = time.monotonic() + 20
    while linux and len(_workers(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # the workers are in their runs
    workers = _workers(proc.pid) if linux else []
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    last = stderr.strip().splitlines()[-1]
    assert last == (
        f"mmtcp: interrupted: 0 of 2 runs are saved in {out}; run the same command again to resume"
    )
    for pid in workers:  # the pool is gone with its runs
        assert not Path(f"/proc/{pid}").exists()


def test_the_variants_example_of_the_docs_is_valid():
    docs = (REPO / "docs" / "sweeps.md").read_text(encoding="utf-8")
    block = next(b for b in docs.split("```toml\n")[1:] if "[variants.scheme]" in b)
    table = tomllib.loads(block.split("```")[0])
    spec = spec_from_table(table, REPO, "docs/sweeps.md", "example")
    points = spec.expand()
    assert [p.overrides["scheme"] for p in points] == ["cotag", "cotag", "one-ap", "one-ap"]
    resolved = validate_points(spec, points)
    gateway = [next(n for n in r["node"] if n["name"] == "gw") for r in resolved]
    assert [g.get("processors", []) != [] for g in gateway] == [True, True, False, False]


# --- outputs for one's own analysis, and reliability --------------------------------------------

WALL_CLOCK = ("wall_seconds", "setup_seconds", "events_per_second")
"""The summary's keys that measure the machine, not the simulation: they differ between any two
executions of the same run."""


def _run_files(out: Path) -> dict[str, dict]:
    """Every run file of a sweep, without its wall-clock fields: `point/seed-N.json` → summary."""
    files = {}
    for path in sorted((out / "runs").glob("*/seed-*")):
        summary = json.loads(path.read_text())
        for key in WALL_CLOCK:
            summary.pop(key)
        files[f"{path.parent.name}/{path.name}"] = summary
    return files


@pytest.mark.core
def test_parquet_files_hold_the_points_and_every_run(cli, tmp_path):
    import pandas as pd

    out = tmp_path / "out"
    assert _sweep(cli, out, "--quiet").returncode == 0
    points = pd.read_parquet(out / "points.parquet")
    from_csv = pd.read_csv(out / "points.csv")
    assert list(points.columns) == list(from_csv.columns)
    pd.testing.assert_frame_equal(points, from_csv, check_dtype=False)

    runs = pd.read_parquet(out / "runs.parquet")
    assert list(runs.columns[:3]) == ["point", "link.wire.buffer", "seed"]
    assert len(runs) == 6
    for _, row in runs.iterrows():
        summary = json.loads((out / "runs" / row["point"] / f"seed-{row['seed']}.json").read_text())
        assert row["link.wire.buffer"] == row["point"].split("=")[1]
        for column in (GOODPUT, "flows.bulk.rtt_ms.p99", "links.wire.directions.0.drops.queue"):
            assert row[column] == metric_value(summary, column), column
    assert not any(c.startswith("scenario.") for c in runs.columns)


@pytest.mark.core
def test_dask_local_gives_the_same_results_as_the_local_pool(cli, tmp_path):
    pytest.importorskip("distributed")
    import pandas as pd

    local = _sweep(cli, tmp_path / "local", workers=2)
    assert local.returncode == 0, local.stderr
    dask = _sweep(cli, tmp_path / "dask", "--dask", "local", workers=2)
    assert dask.returncode == 0, dask.stderr
    assert "6 to run on 2 Dask workers (local cluster)" in dask.stderr
    assert all(line.startswith("sweep: ") for line in dask.stderr.splitlines()), dask.stderr
    local_csv = (tmp_path / "local" / "points.csv").read_bytes()
    assert (tmp_path / "dask" / "points.csv").read_bytes() == local_csv
    assert _run_files(tmp_path / "dask") == _run_files(tmp_path / "local")
    assert len(_run_files(tmp_path / "local")) == 6
    tables = [pd.read_parquet(tmp_path / d / "runs.parquet") for d in ("local", "dask")]
    pd.testing.assert_frame_equal(*(t.drop(columns=list(WALL_CLOCK)) for t in tables))

    # Resuming on Dask skips what the local pool ran, and vice versa: the same sweep.
    again = _sweep(cli, tmp_path / "local", "--dask", "local")
    assert "6 runs, 6 already done; nothing to run" in again.stderr


@pytest.mark.core
def test_a_sweep_on_a_running_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    import logging

    kwargs = {
        "grid": {"link.wire.buffer": ["20pkt", "100pkt"]},
        "seeds": 2,
        "overrides": {"simulation.duration": "0.3s"},
        "metrics": [GOODPUT],
    }
    local = mmtcp.sweep(LOSSY, workers=2, out=tmp_path / "local", **kwargs)
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        by_address = mmtcp.sweep(
            LOSSY, dask=cluster.scheduler_address, out=tmp_path / "address", **kwargs
        )
        by_client = mmtcp.sweep(LOSSY, dask=client, out=tmp_path / "client", **kwargs)
    for result in (by_address, by_client):
        assert (result.executed, result.failures) == (4, [])
        assert result.points == local.points
        assert (result.out_dir / "points.csv").read_bytes() == (
            tmp_path / "local" / "points.csv"
        ).read_bytes()


def test_dask_missing_is_one_line_saying_how_to_install_it(tmp_path):
    fake = tmp_path / "fake" / "distributed"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no distributed here')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(fake.parent), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-m", "mmtcp", "sweep", LOSSY, "--seeds", "1", "--dask", "local"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert_bad_input(proc, "--dask", "pip install 'mmtcp[dask]'")
    assert not (tmp_path / "out").exists()


@pytest.mark.core
def test_force_replaces_a_symlinked_runs_folder_and_deletes_nothing_outside(cli, tmp_path):
    out = tmp_path / "out"
    assert _sweep(cli, out, "--quiet").returncode == 0
    elsewhere = tmp_path / "elsewhere"
    (out / "runs").rename(elsewhere)
    (out / "runs").symlink_to(elsewhere, target_is_directory=True)
    kept = sorted(p.relative_to(elsewhere) for p in elsewhere.rglob("*"))

    # The same points and seeds, another duration: a different sweep, with the same file names.
    changed = _sweep(cli, out, "--set", "simulation.duration=0.4s", "--force", "--quiet")
    assert changed.returncode == 0, changed.stderr
    runs = sorted((out / "runs").glob("*/seed-*.json"))
    assert len(runs) == 6
    assert all(json.loads(p.read_text())["sim_seconds"] == 0.4 for p in runs)  # none kept
    assert not (out / "runs").is_symlink()
    assert sorted(p.relative_to(elsewhere) for p in elsewhere.rglob("*")) == kept


@pytest.mark.core
def test_resume_reruns_a_run_file_that_belongs_to_another_run(cli, tmp_path):
    out = tmp_path / "out"
    assert _sweep(cli, out, "--quiet").returncode == 0
    points_csv = (out / "points.csv").read_text()
    point = out / "runs" / "p000-link.wire.buffer=20pkt"
    (point / "seed-1.json").write_text((point / "seed-2.json").read_text())  # seed 2's run

    again = _sweep(cli, out)
    assert again.returncode == 0, again.stderr
    assert "1 run file of another point, seed or scenario" in again.stderr
    assert "6 runs, 5 already done; 1 to run" in again.stderr
    assert json.loads((point / "seed-1.json").read_text())["seed"] == 1
    assert (out / "points.csv").read_text() == points_csv


@pytest.mark.core
def test_start_up_deletes_only_the_sweeps_own_temporary_files(cli, tmp_path):
    out = tmp_path / "out"
    assert _sweep(cli, out, "--quiet").returncode == 0
    point = out / "runs" / "p000-link.wire.buffer=20pkt"
    mine = [out / ".points.csv.4242.mmtcp-tmp", point / ".seed-1.json.4242.mmtcp-tmp"]
    theirs = [out / ".notes.tmp", out / ".points.csv.4242.tmp", point / ".draft.tmp"]
    for path in mine + theirs:
        path.write_text("x")
    assert _sweep(cli, out, "--quiet").returncode == 0
    assert [p.exists() for p in theirs] == [True, True, True]
    assert [p.exists() for p in mine] == [False, False]


@pytest.mark.core
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_sigterm_stops_the_sweep_cleanly_and_it_resumes(tmp_path):
    out = tmp_path / "out"
    command = [
        *(sys.executable, "-m", "mmtcp", "sweep", LOSSY, "--seeds", "1", "--workers", "2"),
        *("--grid", "simulation.duration=0.3s,100000s", "--set", "metrics.interval=0.1s"),
        *("--out", out),
    ]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    short_run = out / "runs" / "p000-simulation.duration=0.3s" / "seed-1.json"
    deadline = time.monotonic() + 30
    while not short_run.is_file() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert short_run.is_file()
    workers = _workers(proc.pid)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 143, stderr
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == (
        f"mmtcp: terminated: 1 of 2 runs are saved in {out}; run the same command again to resume"
    )
    time.sleep(0.5)
    for pid in workers:
        assert not Path(f"/proc/{pid}").exists()

    # Run again: the finished run is kept, only the other one runs (stopped here as well).
    again = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert again.stderr is not None
    first = again.stderr.readline()
    assert "2 runs, 1 already done; 1 to run on 1 worker" in first
    time.sleep(0.5)
    again.send_signal(signal.SIGTERM)
    _, rest = again.communicate(timeout=30)
    assert again.returncode == 143, rest
    assert "Traceback" not in rest


def test_progress_on_a_terminal_is_a_bar_and_elsewhere_plain_lines():
    import io

    from mmtcp.sweep_progress import SweepProgress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stream in (Terminal(), io.StringIO()):
        progress = SweepProgress(stream, total=4, skipped=1)
        progress.start(2, 2, 3, "2 workers")
        for ok in (True, False, True):
            progress.update(ok)
            progress.tick()
        progress.close()
        text = stream.getvalue()
        assert text.startswith("sweep: 2 points x 2 seeds = 4 runs, 1 already done; 3 to run on 2")
        assert "4/4 runs, 1 failed" in text
        if isinstance(stream, Terminal):
            assert "\r" in text
        else:
            assert "\r" not in text
            assert "\x1b" not in text


@pytest.mark.core
def test_ctrl_c_at_a_terminal_stops_a_dask_local_sweep_without_worker_tracebacks(tmp_path):
    pytest.importorskip("distributed")
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "mmtcp", "sweep", LOSSY, "--seeds", "1", "--workers", "2"),
            *("--grid", "simulation.duration=0.3s,100000s", "--set", "metrics.interval=0.1s"),
            *("--out", out, "--dask", "local"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell gives a command
    )
    short_run = out / "runs" / "p000-simulation.duration=0.3s" / "seed-1.json"
    deadline = time.monotonic() + 60
    while not short_run.is_file() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert short_run.is_file()
    time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the whole group, workers included
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1].startswith("mmtcp: interrupted: 1 of 2 runs are saved")


def test_a_run_whose_dask_worker_died_is_a_failed_run():
    distributed = pytest.importorskip("distributed")
    from mmtcp.sweep_dask import _outcome

    class Future:
        def __init__(self, status, result=None, error=None):
            self.status, self._result, self._error = status, result, error

        def result(self):
            return self._result

        def exception(self):
            return self._error

    assert _outcome(Future("finished", ("ok", "{}"))) == (True, "{}")
    assert _outcome(Future("finished", ("error", "ScenarioError: x"))) == (
        False,
        "ScenarioError: x",
    )
    last_worker = types.SimpleNamespace(address="tcp://127.0.0.1:1")
    killed = distributed.KilledWorker("run_task-1", last_worker, 3)
    ok, text = _outcome(Future("error", error=killed))
    assert not ok
    assert text.startswith("WorkerDied: the Dask worker running this died")
    ok, text = _outcome(Future("cancelled"))
    assert not ok
    assert text.startswith("DaskError: the run did not execute (cancelled)")


def test_a_failed_rerun_replaces_the_run_file_of_another_run(tmp_path):
    from mmtcp.sweep_dir import error_path, run_path, save_run
    from mmtcp.sweep_spec import Point

    spec = SweepSpec(scenario="x.toml", seeds=[1])
    point = Point("p000", {})
    foreign = run_path(tmp_path, point, 1)
    foreign.parent.mkdir()
    foreign.write_text('{"seed": 2}\n')
    save_run(spec, tmp_path, point, 1, "digest", False, "SimulationError: boom")
    assert not foreign.exists()
    assert error_path(tmp_path, point, 1).read_text().startswith("SimulationError: boom")
    save_run(spec, tmp_path, point, 1, "digest", True, '{"seed": 1}')
    assert json.loads(foreign.read_text()) == {"sweep_run": "digest", "seed": 1}
    assert not error_path(tmp_path, point, 1).exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"grid": "simulation.seed=1"}, "grid is a dict"),
        ({"grid": {"simulation.duration": 5}}, r"grid\['simulation.duration'\] is a list"),
        ({"points": {"simulation.duration": "1s"}}, "points is a list of override dicts"),
        ({"points": ["simulation.duration=1s"]}, "points holds override dicts"),
        ({"metrics": "flows.0.goodput_bps"}, "metrics is a list of paths, not str"),
        ({"metrics": [1]}, "metrics is a list of paths"),
        ({"workers": "2"}, "workers is a number of processes, not str"),
    ],
)
def test_wrong_argument_types_are_type_errors(arguments, message, tmp_path):
    # Issue 15, item 9: a str grid raised AttributeError, a str of metrics was read one
    # character per metric, workers="2" failed comparing str with int.
    with pytest.raises(TypeError, match=message):
        mmtcp.sweep(SCENARIOS / "small.toml", seeds=1, out=tmp_path / "out", **arguments)
    assert not (tmp_path / "out").exists()
