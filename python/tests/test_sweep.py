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
from pathlib import Path

import pytest
from helpers import REPO, SCENARIOS, assert_bad_input

import mmtcp
from mmtcp.metrics import default_metrics, metric_value
from mmtcp.stats import describe, t_quantile
from mmtcp.sweep_spec import (
    SweepSpec,
    load_sweep_file,
    parse_seeds,
    spec_from_table,
    split_values,
    validate_points,
)
from mmtcp.worker_pool import _run_one

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
    status, message = _run_one(
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
