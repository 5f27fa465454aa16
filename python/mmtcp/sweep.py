"""Sweeps: one scenario over a grid of overrides x seeds, run on a local process pool or a Dask
cluster, with per-point statistics (mean and 95 % confidence interval over the seeds).

    import mmtcp
    result = mmtcp.sweep(
        "scenarios/demo.toml",
        grid={"link.radio.buffer": ["1MB", "10MB"], "flow.0.transport.cc": ["cubic", "newreno"]},
        seeds=10,                                 # seeds 1..10; also "1-10", "3,7,9", [3, 7, 9]
        overrides={"simulation.duration": "2s"},  # fixed for every run
        metrics=["flows.bulk.goodput_bps", "flows.bulk.rtt_ms.p99"],
        out="out/sweep-demo",
    )
    for point in result.points:
        print(point["overrides"], point["metrics"]["flows.bulk.goodput_bps"]["mean"])

`mmtcp sweep` is the same from the shell (`mmtcp.cli`); a sweep file (TOML with a `scenario` key)
holds the same settings. Every point is validated before any run starts. Each run happens in a
worker process and its summary is written to `OUT/runs/<point>/seed-<seed>.json` the moment it
finishes, so an interrupted sweep resumes where it stopped. docs/sweeps.md has the details.

This module is the front door: `sweep`, `run_spec` and what they return. The parts are
`sweep_spec` (the sweep's definition), `metrics` (paths into summary.json), `sweep_dir` (the
output folder and its run files), `worker_pool` (the processes the runs go to) or `sweep_dask`
(a Dask cluster instead), `aggregate` (per-point statistics, points.csv and the parquet files),
`sweep_progress` (the progress line) and `sweep_table` (the table printed after a sweep).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from mmtcp._core import ScenarioError
from mmtcp.aggregate import RunFailure, aggregate
from mmtcp.api import DICT_SCENARIO_NAME, Scenario, override_pairs
from mmtcp.metrics import check_metrics, default_metrics
from mmtcp.stats import Stats
from mmtcp.sweep_dask import DaskCluster, check_dask
from mmtcp.sweep_dir import (
    build_manifest,
    claim_out_dir,
    remove_temporaries,
    run_digest,
    run_path,
    save_run,
    saved_digest,
)
from mmtcp.sweep_progress import SweepProgress
from mmtcp.sweep_spec import Point, SeedSpec, SweepSpec, make_spec, validate_points
from mmtcp.worker_pool import LocalPool

# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepResult:
    """What a sweep produced.

    Attributes:
        out_dir: the output folder.
        points: one dict per point, as in points.json: `id`, `overrides` (the point's own),
            `runs` (successful runs), `failed`, and `metrics`: name → {n, mean, std, ci95, min,
            max}.
        metrics: the metric paths.
        seeds: the seeds.
        failures: the runs that failed (this time or before, and not rerun successfully).
        executed: runs executed by this call.
        skipped: runs found done in `out_dir` and not rerun.
        warnings: metrics left out of a point's statistics, and similar notes.
    """

    out_dir: Path
    points: list[dict[str, Any]]
    metrics: list[str]
    seeds: list[int]
    failures: list[RunFailure]
    executed: int
    skipped: int
    warnings: list[str]

    def stats(self, point: int | str, metric: str) -> Stats:
        """The statistics of `metric` at a point, given by index or id."""
        found = self.points[point] if isinstance(point, int) else self._point(point)
        return Stats(**found["metrics"][metric])

    def frame(self) -> Any:
        """points.csv as a pandas DataFrame."""
        import pandas as pd

        return pd.read_csv(self.out_dir / "points.csv")

    def _point(self, point_id: str) -> dict[str, Any]:
        for point in self.points:
            if point["id"] == point_id:
                return point
        raise KeyError(point_id)

    def __repr__(self) -> str:
        return (
            f"SweepResult(out_dir={str(self.out_dir)!r}, points={len(self.points)}, "
            f"seeds={len(self.seeds)}, metrics={len(self.metrics)}, "
            f"failures={len(self.failures)})"
        )


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM: `signal` says which) during a sweep: the runs finished so far are
    saved; rerunning resumes."""

    def __init__(self, out_dir: Path, done: int, total: int, signal_number: int = signal.SIGINT):
        super().__init__(f"{done} of {total} runs saved in {out_dir}")
        self.out_dir, self.done, self.total = out_dir, done, total
        self.signal = signal_number


class _Terminated(KeyboardInterrupt):
    """SIGTERM while a sweep's runs go on, raised so that it unwinds as Ctrl-C does: the
    workers are stopped and the finished runs kept."""


# --- the public API ---------------------------------------------------------------------------


def sweep(
    scenario: Scenario,
    *,
    grid: Mapping[str, Sequence[Any]] | None = None,
    points: Iterable[Mapping[str, Any]] | None = None,
    seeds: SeedSpec | None = None,
    overrides: Mapping[str, Any] | Iterable[str] | None = None,
    metrics: Iterable[str] | None = None,
    workers: int | None = None,
    out: str | os.PathLike[str] | None = None,
    force: bool = False,
    progress: bool = False,
    dask: Any = None,
) -> SweepResult:
    """Runs `scenario` at every point of a grid of overrides, once per seed, on a process pool
    or a Dask cluster.

    Args:
        scenario: a scenario file, a scenario dict, or a sweep file (TOML with a `scenario` key;
            the other arguments then add to or replace what it says).
        grid: override path → list of values; the points are the cartesian product.
        points: explicit override dicts, run in addition to the grid's points.
        seeds: `10` (seeds 1..10), `"1-10"`, `"3,7,9"` or a list of seeds. Required unless the
            sweep file has them.
        overrides: fixed overrides for every run (a dict, or `"path=value"` strings).
        metrics: dotted paths into summary.json (`flows.bulk.goodput_bps`,
            `flows.0.rtt_ms.p99`); default: every flow's goodput, RTT, one-way delay, completion
            time and retransmissions.
        workers: worker processes (of the local pool, or of `dask="local"`); default
            `os.cpu_count()`.
        out: output folder; default `out/sweep-<stem of the sweep or scenario file>`.
        force: discard the results of a different sweep found in `out` instead of refusing.
        progress: draw progress on stderr.
        dask: run on Dask instead of the local pool: `"local"` (a `distributed.LocalCluster`
            of `workers` processes), a scheduler address such as `"tcp://host:8786"`, or a
            connected `distributed.Client`. Needs `pip install 'mmtcp[dask]'`, and mmtcp on
            the workers. The results are the same as the local pool's.

    Raises:
        ScenarioError: a bad scenario, override, seed spec, metric, or `out` holding another
            sweep; raised before any run.
        SweepInterrupted: Ctrl-C; finished runs are saved and a rerun resumes.

    Runs that fail do not raise: they are in `SweepResult.failures`, and their messages in
    `runs/<point>/seed-<seed>.error.txt`.
    """
    spec = make_spec(scenario, grid=grid, points=points, seeds=seeds, overrides=overrides)
    if metrics is not None:
        if isinstance(metrics, str) or not isinstance(metrics, Iterable):
            raise TypeError(f"metrics is a list of paths, not {type(metrics).__name__}")
        metrics = list(metrics)
        if not all(isinstance(m, str) for m in metrics):
            raise TypeError("metrics is a list of paths (strings)")
        spec.metrics = check_metrics(metrics)
    return run_spec(
        spec,
        workers=workers,
        out=out,
        force=force,
        stream=sys.stderr if progress else None,
        warn=_warn_python,
        dask=dask,
    )


def _warn_python(message: str) -> None:
    import warnings

    warnings.warn(message, stacklevel=3)


# --- running ----------------------------------------------------------------------------------


def run_spec(
    spec: SweepSpec,
    *,
    workers: int | None = None,
    out: str | os.PathLike[str] | None = None,
    force: bool = False,
    stream: TextIO | None = None,
    warn: Callable[[str], None] = _warn_python,
    dask: Any = None,
) -> SweepResult:
    """Validates, runs (skipping runs already saved in the output folder) and aggregates a
    sweep, on the local pool or on Dask (`dask`, as `sweep` takes it). Progress goes to `stream`
    if given; warnings to `warn`."""
    if spec.seeds is None:
        raise ScenarioError(
            f"{spec.origin}: no seeds; give them, e.g. --seeds 10 (seeds 1 to 10) or seeds = 10"
        )
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)):
        raise TypeError(f"workers is a number of processes, not {type(workers).__name__}")
    if workers is not None and workers < 1:
        raise ScenarioError(f"workers: {workers!r} is not a positive number of processes")
    if dask is not None:
        check_dask()
    points = spec.expand()
    resolved = validate_points(spec, points)
    metrics = spec.metrics if spec.metrics is not None else default_metrics(resolved)
    out_dir = Path(out) if out is not None else Path("out") / f"sweep-{spec.stem}"
    manifest = build_manifest(spec, points, metrics)
    claim_out_dir(out_dir, manifest, force)

    runs_dir = out_dir / "runs"
    remove_temporaries(out_dir)
    source = _run_source(spec)
    fixed = override_pairs(spec.fixed)
    jobs: list[tuple[tuple[Point, int, str], dict[str, Any]]] = []
    foreign = 0
    for seed in spec.seeds:
        for point in points:
            overrides = fixed + override_pairs(spec.applied(point.overrides))
            digest = run_digest(manifest, overrides, seed)
            path = run_path(runs_dir, point, seed)
            if path.is_file() and saved_digest(path) == digest:
                continue
            foreign += path.is_file()
            payload = {"source": source, "seed": seed, "overrides": overrides}
            jobs.append(((point, seed, digest), payload))
    if foreign:
        warn(
            f"{runs_dir}: {foreign} run file{'s' if foreign != 1 else ''} of another point, "
            f"seed or scenario (or unreadable) under this sweep's names; running those again"
        )
    total = len(points) * len(spec.seeds)
    skipped = total - len(jobs)
    pool_size = min(workers or os.cpu_count() or 1, max(len(jobs), 1))
    executor = LocalPool(pool_size) if dask is None else DaskCluster(dask, pool_size)
    progress = SweepProgress(stream, total, skipped) if stream is not None else None
    if progress is not None:
        progress.start(len(points), len(spec.seeds), len(jobs), executor.describe())

    def finished(task: tuple[Point, int, str], ok: bool, text: str) -> None:
        point, seed, digest = task
        save_run(spec, runs_dir, point, seed, digest, ok, text)
        if progress is not None:
            progress.update(ok)

    executed = 0
    if jobs:
        try:
            with _sigterm_interrupts():
                tick = progress.tick if progress is not None else None
                executed = executor.run(jobs, finished, tick)
        except KeyboardInterrupt as e:
            if progress is not None:
                progress.close()
            done = sum(run_path(runs_dir, p, s).is_file() for s in spec.seeds for p in points)
            how = signal.SIGTERM if isinstance(e, _Terminated) else signal.SIGINT
            raise SweepInterrupted(out_dir, done, total, how) from None
    if progress is not None:
        progress.close()
    result = aggregate(out_dir, points, spec.seeds, metrics, warn)
    return SweepResult(
        out_dir=out_dir,
        points=result[0],
        metrics=metrics,
        seeds=list(spec.seeds),
        failures=result[1],
        executed=executed,
        skipped=skipped,
        warnings=result[2],
    )


def _run_source(spec: SweepSpec) -> tuple[str, str, dict[str, str]]:
    """The scenario as every run gets it (`_core.run`'s source, kind and name/base_dir): its
    text, read once here, so that the runs use the text the sweep's hash was taken of, and a
    worker on another machine (Dask) needs no copy of the file (only of the files it names,
    found from its folder's absolute path). The summary names the file as given."""
    if isinstance(spec.scenario, Mapping):
        where = {"name": DICT_SCENARIO_NAME, "base_dir": os.getcwd()}
        return json.dumps(spec.scenario), "json", where
    path = Path(spec.scenario)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"{spec.scenario}: cannot read the scenario file: {e}") from None
    return text, "toml", {"name": spec.scenario, "base_dir": str(path.resolve().parent)}


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """Makes SIGTERM raise `_Terminated` in the main thread (once: a second SIGTERM during the
    clean-up is ignored) until the block ends; off the main thread, signals are left alone."""

    def terminated(_signum: int, _frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise _Terminated

    try:
        previous = signal.signal(signal.SIGTERM, terminated)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
