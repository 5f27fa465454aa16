"""`mmtcp run`, `plot`, `validate`, `scenarios` and `bench` end to end, as a user runs them.
These need the simulation core."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from helpers import REPO, SCENARIOS

pytestmark = pytest.mark.core

SMALL = SCENARIOS / "small.toml"
RESULT_FILES = ["summary.json", "timeseries.parquet", "scenario.resolved.toml"]
PLOTS = ["cwnd.png", "goodput.png", "queues.png", "rtt.png"]
LONG = "simulation.duration=100000s"
LONG_ROWS = "metrics.interval=10s"  # 10^4 rows: within metrics.series_memory


def test_run_writes_results_plots_and_a_table(cli, tmp_path):
    out = tmp_path / "small"
    proc = cli("run", SMALL, "--out", out)
    assert proc.returncode == 0, proc.stderr
    for name in RESULT_FILES:
        assert (out / name).is_file(), name
    assert sorted(p.name for p in (out / "plots").iterdir()) == PLOTS
    assert (out / "report.html").read_text().count("data:image/png;base64,") == len(PLOTS)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 1
    table = proc.stdout
    for word in ("bulk", "fetch", "core", "radio", "goodput Mbit/s", "RTT p99 ms", "events"):
        assert word in table
    assert proc.stderr == ""


def test_run_defaults_to_out_slash_stem(cli, tmp_path):
    proc = cli("run", SMALL, "--no-plots", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert (tmp_path / "out" / "small" / "summary.json").is_file()
    assert not (tmp_path / "out" / "small" / "plots").exists()


def test_run_draws_svg_plots_and_can_skip_the_report(cli, tmp_path):
    proc = cli("run", SMALL, "--plot-format", "svg", "--no-report", "--quiet", "--out", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == [
        name.replace(".png", ".svg") for name in PLOTS
    ]
    assert not (tmp_path / "report.html").exists()


def test_names_that_look_like_mathtext_are_plotted(cli, tmp_path):
    """A `$` in a name used to crash the plots after the results were saved (issue 15)."""
    flow, link = "$\\foo$", "a$b"
    proc = cli(
        "run",
        SMALL,
        "--set",
        f"flow.bulk.name={flow}",
        "--set",
        f"link.radio.name={link}",
        "--out",
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == PLOTS
    assert flow in proc.stdout
    assert f"<td>{flow}</td>" in (tmp_path / "report.html").read_text()


def test_plot_regenerates_the_plots(cli, tmp_path):
    assert cli("run", SMALL, "--out", tmp_path, "--no-plots").returncode == 0
    proc = cli("plot", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == PLOTS


def test_seed_and_set_reach_the_summary(cli, tmp_path):
    proc = cli("run", SMALL, "--seed", "5", "--set", "simulation.duration=1s", "--out", tmp_path)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["seed"] == 5
    assert summary["sim_seconds"] == pytest.approx(1.0)


def test_validate_prints_ok(cli):
    proc = cli("validate", SMALL)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"ok: {SMALL}\n"


def test_validate_print_round_trips(cli, tmp_path):
    first = cli("validate", SMALL, "--set", "link.0.delay=7ms", "--print")
    assert first.returncode == 0, first.stderr
    resolved = tmp_path / "resolved.toml"
    resolved.write_text(first.stdout)
    second = cli("validate", resolved, "--print")
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout


def test_resolved_scenario_reruns_to_the_same_result(cli, tmp_path):
    first = cli("run", SCENARIOS / "lossy.toml", "--seed", "3", "--out", tmp_path / "a")
    assert first.returncode == 0, first.stderr
    rerun = cli("run", tmp_path / "a" / "scenario.resolved.toml", "--out", tmp_path / "b")
    assert rerun.returncode == 0, rerun.stderr
    a = json.loads((tmp_path / "a" / "summary.json").read_text())
    b = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert a["seed"] == b["seed"] == 3
    assert a["flows"] == b["flows"]


def test_ctrl_c_stops_the_run_with_exit_130(tmp_path):
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "mmtcp", "run", SMALL, "--set", LONG),
            *("--set", LONG_ROWS, "--out", tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(2.0)
    proc.send_signal(signal.SIGINT)
    started = time.monotonic()
    _, stderr = proc.communicate(timeout=30)
    assert time.monotonic() - started < 5
    assert proc.returncode == 130, stderr
    assert stderr.strip() == "mmtcp: interrupted"


def test_bench_runs_each_scenario_and_the_engine(cli):
    proc = cli("bench", "--dir", SCENARIOS / "bench", "--no-scaling", "--engine-events", "100000")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[0] == "scenario"
    assert lines[1].split()[0] == "tiny"
    assert "engine: 100,000 events" in proc.stdout


def test_scenarios_lists_the_shipped_scenarios_and_copies_them(cli, tmp_path):
    proc = cli("scenarios", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    shipped = [Path(line) for line in proc.stdout.splitlines()]
    repo = (REPO / "scenarios").resolve()
    assert shipped == sorted(repo.glob("*.toml")) + sorted(repo.glob("bench/*.toml"))

    copy = tmp_path / "mine"
    proc = cli("scenarios", "--copy", copy, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [Path(line) for line in proc.stdout.splitlines()] == [
        copy / path.relative_to(repo) for path in shipped
    ]
    assert (copy / "traces" / "ieee80211ad-user-ap1.csv").is_file()
    # The copy reads its traces from the copied traces/ (../traces/ from bench/).
    proc = cli(
        "run", copy / "bench" / "cotag-128b.toml", "--set", "simulation.duration=200ms",
        "--no-plots", "--quiet", "--out", tmp_path / "out",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr

    proc = cli("scenarios", "--copy", copy, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert (
        proc.stderr.strip()
        == f"mmtcp: error: {copy}: already exists; name a new folder to copy into"
    )


def test_an_out_that_is_a_file_is_bad_input_before_the_run(cli, tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("not a folder")
    proc = cli("run", SMALL, "--out", taken)
    assert proc.returncode == 2, proc.stderr
    assert (
        proc.stderr.strip()
        == f"mmtcp: error: --out {taken}: is a file; expected a folder for the results"
    )
    assert taken.read_text() == "not a folder"
    proc = cli("run", SMALL, "--out", taken / "below")
    assert proc.returncode == 2, proc.stderr
    assert "cannot create the folder" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_reader_that_stops_early_is_no_error(tmp_path):
    run = subprocess.Popen(
        [sys.executable, "-m", "mmtcp", "run", SMALL, "--no-plots", "--out", tmp_path],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert run.stdout is not None
    run.stdout.close()  # the reader is gone before the table comes, as `| head -0` would be
    _, stderr = run.communicate(timeout=120)
    assert run.returncode == 0, stderr
    assert b"BrokenPipe" not in stderr, stderr
    assert b"Traceback" not in stderr, stderr


def test_bench_workers_do_not_import_a_local_mmtcp_folder(tmp_path):
    fake = tmp_path / "mmtcp"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise SystemExit('the local mmtcp/ was imported')\n")
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "small.toml").write_text(SMALL.read_text())
    # The installed command, as a user runs it (`python -m` would itself put the folder first).
    command = Path(sys.executable).parent / "mmtcp"
    proc = subprocess.run(
        [command, "bench", "--dir", bench, "--no-scaling", "--engine-events", "1000"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "local mmtcp/ was imported" not in proc.stderr


def test_run_without_plots_imports_neither_pandas_nor_matplotlib(tmp_path):
    # Start-up cost (issue 15): pandas and matplotlib take most of a second to import, and a
    # run that draws nothing needs neither (the time series is written from its arrays).
    code = (
        "import runpy, sys\n"
        "sys.argv = ['mmtcp', 'run', sys.argv[1], '--no-plots', '--out', sys.argv[2]]\n"
        "try:\n"
        "    runpy.run_module('mmtcp', run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    assert e.code in (0, None), e.code\n"
        "heavy = ('pandas', 'matplotlib', 'scipy', 'dask', 'distributed')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(SMALL), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stdout
    frame = pd.read_parquet(tmp_path / "out" / "timeseries.parquet")
    assert frame.columns[0] == "time_s"
    assert len(frame) > 10
    assert frame["time_s"].is_monotonic_increasing
