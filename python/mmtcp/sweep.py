"""Sweeps: one scenario over a grid of overrides x seeds, run on a local process pool, with
per-point statistics (mean and 95 % confidence interval over the seeds).

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
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import re
import signal
import sys
import time
import tomllib
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from mmtcp import _core
from mmtcp._core import ScenarioError, SimulationError
from mmtcp.api import Scenario, _source, override_pairs, split_override, toml_value_text, validate
from mmtcp.report import format_table
from mmtcp.stats import FIELDS, Stats, describe

SeedSpec = int | str | Sequence[int]

SWEEP_KEYS = ("scenario", "seeds", "grid", "point", "set", "metrics")
"""The keys a sweep file may hold (an experiment's `[sweep]` table holds the same)."""

MAX_SEEDS = 100_000
_SEED_LIMIT = 2**64
_SLUG_LENGTH = 60


# --- the sweep's definition ---------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    """One combination of overrides; its runs are one per seed.

    Attributes:
        id: folder name under `runs/`: `p<index>` then the overrides, e.g.
            `p001-link.radio.buffer=5MB`.
        overrides: this point's own overrides (grid values or an explicit `[[point]]`), path →
            value as given; the sweep's fixed overrides (`set`) are not repeated here.
    """

    id: str
    overrides: dict[str, Any]


@dataclass
class SweepSpec:
    """A sweep before it runs: what a sweep file or the command line says.

    Attributes:
        scenario: scenario file path (relative to the current directory) or a dict.
        seeds: the seeds every point runs with.
        grid: override path → values; the points are their cartesian product.
        points: explicit points (override dicts), run in addition to the grid's.
        fixed: overrides applied to every run (`set`).
        metrics: dotted paths into summary.json; None for the default set.
        origin: names the sweep in error messages (the sweep file, or `sweep`).
        stem: names the default output folder `out/sweep-<stem>`.
    """

    scenario: str | dict[str, Any]
    seeds: list[int] | None = None
    grid: dict[str, list[Any]] = field(default_factory=dict)
    points: list[dict[str, Any]] = field(default_factory=list)
    fixed: dict[str, Any] = field(default_factory=dict)
    metrics: list[str] | None = None
    origin: str = "sweep"
    stem: str = "sweep"

    def expand(self) -> list[Point]:
        """The points: the grid's cartesian product (the last key varying fastest), then the
        explicit points; one point without overrides if there are neither."""
        for key in self.grid:
            if key in self.fixed:
                raise ScenarioError(f"{self.origin}: {key} is both in the grid and in set")
        combos: list[dict[str, Any]] = []
        if self.grid:
            keys = list(self.grid)
            for values in itertools.product(*(self.grid[k] for k in keys)):
                combos.append(dict(zip(keys, values, strict=True)))
        for index, point in enumerate(self.points):
            for key in point:
                if key in self.fixed:
                    raise ScenarioError(f"{self.origin}: point[{index}]: {key} is also in set")
            combos.append(dict(point))
        if not combos:
            combos = [{}]
        seen: dict[tuple[tuple[str, str], ...], int] = {}
        width = max(3, len(str(len(combos) - 1)))
        points = []
        for index, overrides in enumerate(combos):
            text = tuple(override_pairs(overrides))
            if text in seen:
                raise ScenarioError(
                    f"{self.origin}: point {_describe(overrides)} appears twice in the sweep"
                )
            seen[text] = index
            points.append(Point(_point_id(index, width, text), overrides))
        return points


def _point_id(index: int, width: int, pairs: Sequence[tuple[str, str]]) -> str:
    name = f"p{index:0{width}d}"
    if not pairs:
        return name
    slug = "_".join(f"{path}={value}" for path, value in pairs)
    slug = re.sub(r"[^A-Za-z0-9.=+-]+", "_", slug).strip("_.")[:_SLUG_LENGTH]
    return f"{name}-{slug}" if slug else name


def _describe(overrides: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in override_pairs(overrides)) or "(no overrides)"


def parse_seeds(spec: SeedSpec, where: str | None = "seeds") -> list[int]:
    """The seeds of a seed spec: `10` or `"10"` (seeds 1 to 10), `"1-10"`, `"3,7,9"` (ranges and
    single seeds, comma-separated), or a list of integers.

    >>> parse_seeds(3), parse_seeds("4-6"), parse_seeds("3,7,9"), parse_seeds("1-2,8")
    ([1, 2, 3], [4, 5, 6], [3, 7, 9], [1, 2, 8])
    """

    def bad(detail: str) -> ScenarioError:
        return ScenarioError(
            f"{where + ': ' if where else ''}{spec!r} {detail}; expected a count (10: seeds 1 to "
            f"10), a range (1-10), a list (3,7,9) or a list of integers"
        )

    seeds: list[int] = []
    if isinstance(spec, bool):
        raise bad("is not a seed spec")
    if isinstance(spec, int) or (isinstance(spec, str) and re.fullmatch(r"\s*\d+\s*", spec)):
        count = int(spec)
        if not 1 <= count <= MAX_SEEDS:
            raise bad(f"is not a seed count from 1 to {MAX_SEEDS:,}")
        return list(range(1, count + 1))
    if isinstance(spec, str):
        for part in spec.split(","):
            match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
            if match is None:
                raise bad(f"has {part.strip()!r}, which is neither a seed nor a range")
            first = int(match[1])
            last = int(match[2]) if match[2] is not None else first
            if last < first:
                raise bad(f"has the empty range {part.strip()}")
            if last - first >= MAX_SEEDS:
                raise bad(f"has more than {MAX_SEEDS:,} seeds")
            seeds.extend(range(first, last + 1))
    elif isinstance(spec, Sequence):
        for seed in spec:
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise bad(f"has {seed!r}, which is not an integer")
            seeds.append(seed)
    else:
        raise bad("is not a seed spec")
    if not seeds:
        raise bad("has no seed")
    if len(seeds) > MAX_SEEDS:
        raise bad(f"has more than {MAX_SEEDS:,} seeds")
    for seed in seeds:
        if not 0 <= seed < _SEED_LIMIT:
            raise bad(f"has {seed}, which is not a seed from 0 to 2^64-1")
    seen: set[int] = set()
    for seed in seeds:
        if seed in seen:
            raise bad(f"repeats seed {seed}")
        seen.add(seed)
    return seeds


def split_values(text: str) -> list[str]:
    """Splits `V1,V2,...` at the commas outside brackets, braces and quotes.

    >>> split_values('1MB, 5MB,10MB')
    ['1MB', '5MB', '10MB']
    >>> split_values('{ kind = "constant", rate = "1Gbps" },[1, 2],"a,b"')
    ['{ kind = "constant", rate = "1Gbps" }', '[1, 2]', '"a,b"']
    """
    values, current, depth, quote = [], [], 0, ""
    escaped = False
    for c in text:
        if quote:
            if escaped:
                escaped = False
            elif c == "\\" and quote == '"':
                escaped = True
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            values.append("".join(current).strip())
            current = []
            continue
        current.append(c)
    values.append("".join(current).strip())
    return values


def parse_grid_option(text: str) -> tuple[str, list[str]]:
    """`PATH=V1,V2,...` (the `--grid` option) as `(path, [values])`.

    >>> parse_grid_option("link.radio.buffer=1MB,5MB")
    ('link.radio.buffer', ['1MB', '5MB'])
    """
    path, value = split_override(text)
    values = split_values(value)
    if any(not v for v in values):
        raise ScenarioError(f"--grid {text!r}: expected PATH=V1,V2,... with no empty value")
    return path, values


def is_sweep_file(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is a sweep file (a TOML file with a top-level `scenario` key) rather than a
    scenario."""
    try:
        with open(path, "rb") as f:
            table = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False
    return "scenario" in table


def read_toml(path: Path) -> dict[str, Any]:
    """The table of a TOML file; an unreadable or malformed file is a `ScenarioError`."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise ScenarioError(f"{path}: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{path}: not valid TOML: {e}") from None


def load_sweep_file(path: str | os.PathLike[str]) -> SweepSpec:
    """Reads a sweep file; the scenario path in it is relative to the file's folder."""
    path = Path(path)
    return spec_from_table(read_toml(path), path.parent, str(path), path.stem)


def spec_from_table(table: Mapping[str, Any], base_dir: Path, origin: str, stem: str) -> SweepSpec:
    """A `SweepSpec` from the keys of a sweep file (or an experiment's `[sweep]` table)."""
    unknown = [key for key in table if key not in SWEEP_KEYS]
    if unknown:
        raise ScenarioError(
            f"{origin}: unknown key {unknown[0]!r}; allowed: {', '.join(SWEEP_KEYS)}"
        )
    scenario = table.get("scenario")
    if not isinstance(scenario, str) or not scenario:
        raise ScenarioError(f"{origin}: scenario: expected the path of a scenario file")
    spec = SweepSpec(
        scenario=os.path.normpath(os.path.join(base_dir, scenario)), origin=origin, stem=stem
    )
    apply_table(spec, table, origin)
    return spec


def apply_table(spec: SweepSpec, table: Mapping[str, Any], origin: str) -> None:
    """Applies the `seeds`, `grid`, `point`, `set` and `metrics` keys of `table` to `spec`:
    seeds and metrics replace, grid keys and set keys replace the same keys, points are added."""
    if "seeds" in table:
        spec.seeds = parse_seeds(table["seeds"], f"{origin}: seeds")
    if "grid" in table:
        grid = table["grid"]
        if not isinstance(grid, Mapping):
            raise ScenarioError(f"{origin}: grid: expected a table of override path = [values]")
        for key, values in grid.items():
            if not isinstance(values, list) or not values:
                hint = (
                    '; write the override path in quotes, e.g. "link.radio.buffer" = ["1MB"]'
                    if isinstance(values, Mapping)
                    else ""
                )
                raise ScenarioError(
                    f"{origin}: grid.{key}: expected a non-empty list of values{hint}"
                )
            spec.grid[key] = list(values)
    if "point" in table:
        points = table["point"]
        if not isinstance(points, list) or not all(isinstance(p, Mapping) for p in points):
            raise ScenarioError(
                f'{origin}: point: expected [[point]] tables of "override.path" = value'
            )
        spec.points.extend(dict(p) for p in points)
    if "set" in table:
        fixed = table["set"]
        if not isinstance(fixed, Mapping):
            raise ScenarioError(f'{origin}: set: expected a table of "override.path" = value')
        spec.fixed.update(fixed)
    if "metrics" in table:
        metrics = table["metrics"]
        if not isinstance(metrics, list) or not all(isinstance(m, str) for m in metrics):
            raise ScenarioError(f"{origin}: metrics: expected a list of dotted paths")
        spec.metrics = check_metrics(metrics, f"{origin}: metrics")


def check_metrics(metrics: Iterable[str], where: str = "metric") -> list[str]:
    """Checks the syntax of metric paths (non-empty dotted segments) and returns them."""
    checked = []
    for metric in metrics:
        if not metric or any(not part for part in metric.split(".")):
            raise ScenarioError(
                f"{where}: {metric!r} is not a metric; expected a dotted path into summary.json "
                f"such as flows.0.goodput_bps or flows.bulk.rtt_ms.p99"
            )
        if metric not in checked:
            checked.append(metric)
    return checked


# --- metrics ----------------------------------------------------------------------------------


def metric_value(summary: Any, path: str) -> float | None:
    """The number at a dotted `path` in a summary, or None if there is none (missing, null, or not
    a number). In a list, a segment selects the element with that `name`, else that index.

    >>> s = {"flows": [{"name": "bulk", "rtt_ms": {"p99": 30.5}, "completion_seconds": None}]}
    >>> metric_value(s, "flows.bulk.rtt_ms.p99"), metric_value(s, "flows.0.rtt_ms.p99")
    (30.5, 30.5)
    >>> metric_value(s, "flows.bulk.completion_seconds"), metric_value(s, "flows.x.rtt_ms")
    (None, None)
    """
    node = summary
    for segment in path.split("."):
        if isinstance(node, Mapping):
            if segment not in node:
                return None
            node = node[segment]
        elif isinstance(node, list):
            named = [e for e in node if isinstance(e, Mapping) and e.get("name") == segment]
            if named:
                node = named[0]
            elif segment.isascii() and segment.isdigit() and int(segment) < len(node):
                node = node[int(segment)]
            else:
                return None
        else:
            return None
    if isinstance(node, bool) or not isinstance(node, (int, float)):
        return None
    return float(node)


def default_metrics(resolved_scenarios: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every flow's goodput, mean and p99 RTT, mean and p99 one-way delay, completion time (for
    flows with a size) and retransmissions, over the flows of every resolved scenario."""
    flows: dict[str, bool] = {}
    for scenario in resolved_scenarios:
        for index, flow in enumerate(scenario.get("flow", [])):
            name = str(flow.get("name", index))
            key = name if "." not in name else str(index)
            app = flow.get("app", {})
            sized = app.get("kind") == "download" or "size" in app
            flows[key] = flows.get(key, False) or sized
    metrics = []
    for name, sized in flows.items():
        prefix = f"flows.{name}"
        metrics += [
            f"{prefix}.goodput_bps",
            f"{prefix}.rtt_ms.mean",
            f"{prefix}.rtt_ms.p99",
            f"{prefix}.owd_ms.mean",
            f"{prefix}.owd_ms.p99",
        ]
        if sized:
            metrics.append(f"{prefix}.completion_seconds")
        metrics.append(f"{prefix}.retransmitted_segments")
    return metrics


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunFailure:
    """A run that raised or whose worker process died; `path` holds the message."""

    point: str
    seed: int
    path: Path
    message: str


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
    """Ctrl-C during a sweep: the runs finished so far are saved; rerunning resumes."""

    def __init__(self, out_dir: Path, done: int, total: int):
        super().__init__(f"{done} of {total} runs saved in {out_dir}")
        self.out_dir, self.done, self.total = out_dir, done, total


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
) -> SweepResult:
    """Runs `scenario` at every point of a grid of overrides, once per seed, on a process pool.

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
        workers: worker processes; default `os.cpu_count()`.
        out: output folder; default `out/sweep-<stem of the sweep or scenario file>`.
        force: discard the results of a different sweep found in `out` instead of refusing.
        progress: draw progress on stderr.

    Raises:
        ScenarioError: a bad scenario, override, seed spec, metric, or `out` holding another
            sweep; raised before any run.
        SweepInterrupted: Ctrl-C; finished runs are saved and a rerun resumes.

    Runs that fail do not raise: they are in `SweepResult.failures`, and their messages in
    `runs/<point>/seed-<seed>.error.txt`.
    """
    spec = make_spec(scenario, grid=grid, points=points, seeds=seeds, overrides=overrides)
    if metrics is not None:
        spec.metrics = check_metrics(metrics)
    return run_spec(
        spec,
        workers=workers,
        out=out,
        force=force,
        stream=sys.stderr if progress else None,
        warn=_warn_python,
    )


def make_spec(
    scenario: Scenario,
    *,
    grid: Mapping[str, Sequence[Any]] | None = None,
    points: Iterable[Mapping[str, Any]] | None = None,
    seeds: SeedSpec | None = None,
    overrides: Mapping[str, Any] | Iterable[str] | None = None,
) -> SweepSpec:
    """The sweep of `scenario` (a scenario, or a sweep file) with these additions."""
    if isinstance(scenario, Mapping):
        spec = SweepSpec(scenario=dict(scenario), stem="dict")
    elif isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
        if not Path(path).is_file():
            raise ScenarioError(f"{path}: no such scenario or sweep file")
        if is_sweep_file(path):
            spec = load_sweep_file(path)
        else:
            spec = SweepSpec(scenario=path, stem=Path(path).stem)
    else:
        raise TypeError(f"a scenario is a path or a dict, not {type(scenario).__name__}")
    for key, values in (grid or {}).items():
        if key in spec.grid:
            raise ScenarioError(f"{spec.origin}: grid key {key} is given twice")
        values = list(values) if not isinstance(values, str) else [values]
        if not values:
            raise ScenarioError(f"{spec.origin}: grid key {key} has no values")
        spec.grid[key] = values
    spec.points.extend(dict(p) for p in points or ())
    if overrides is not None:
        spec.fixed.update(dict(override_pairs(overrides)))
    if seeds is not None:
        spec.seeds = parse_seeds(seeds)
    return spec


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
) -> SweepResult:
    """Validates, runs (skipping runs already saved in the output folder) and aggregates a
    sweep. Progress goes to `stream` if given; warnings to `warn`."""
    if spec.seeds is None:
        raise ScenarioError(
            f"{spec.origin}: no seeds; give them, e.g. --seeds 10 (seeds 1 to 10) or seeds = 10"
        )
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ScenarioError(f"workers: {workers!r} is not a positive number of processes")
    points = spec.expand()
    resolved = _validate_points(spec, points)
    metrics = spec.metrics if spec.metrics is not None else default_metrics(resolved)
    out_dir = Path(out) if out is not None else Path("out") / f"sweep-{spec.stem}"
    manifest = _manifest(spec, points, metrics)
    _claim_out_dir(out_dir, manifest, force)

    runs_dir = out_dir / "runs"
    for stale in [*out_dir.glob(".*.tmp"), *runs_dir.glob("*/.*.tmp")]:
        stale.unlink(missing_ok=True)
    tasks = [
        (point, seed)
        for seed in spec.seeds
        for point in points
        if not _run_path(runs_dir, point, seed).is_file()
    ]
    total = len(points) * len(spec.seeds)
    skipped = total - len(tasks)
    pool_size = min(workers or os.cpu_count() or 1, max(len(tasks), 1))
    progress = _Progress(stream, total, skipped) if stream is not None else None
    if progress is not None:
        progress.start(len(points), len(spec.seeds), len(tasks), pool_size)
    source = _source(spec.scenario)
    fixed = override_pairs(spec.fixed)

    def payload(point: Point, seed: int) -> dict[str, Any]:
        return {
            "source": source,
            "seed": seed,
            "overrides": fixed + override_pairs(point.overrides),
        }

    def finished(task: tuple[Point, int], ok: bool, text: str) -> None:
        point, seed = task
        path = _run_path(runs_dir, point, seed)
        error_path = path.with_name(f"seed-{seed}.error.txt")
        path.parent.mkdir(parents=True, exist_ok=True)
        if ok:
            _write_atomically(path, text)
            error_path.unlink(missing_ok=True)
        else:
            command = _command_line(spec, point, seed)
            _write_atomically(error_path, f"{text.rstrip()}\n\nto rerun alone: {command}\n")
        if progress is not None:
            progress.update(ok)

    executed = 0
    if tasks:
        try:
            jobs = [(t, payload(*t)) for t in tasks]
            tick = progress.tick if progress is not None else None
            executed = _run_pool(pool_size, jobs, finished, tick)
        except KeyboardInterrupt:
            if progress is not None:
                progress.close()
            done = sum(_run_path(runs_dir, p, s).is_file() for s in spec.seeds for p in points)
            raise SweepInterrupted(out_dir, done, total) from None
    if progress is not None:
        progress.close()
    result = _aggregate(out_dir, points, spec.seeds, metrics, warn)
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


def _validate_points(spec: SweepSpec, points: list[Point]) -> list[dict[str, Any]]:
    """Validates every point (the fixed overrides first); an error names the grid value or the
    point at fault. Returns the resolved scenario of every point."""
    scenario = spec.scenario
    prefix = f"{spec.origin}: " if spec.origin != "sweep" else ""

    def check(overrides: Mapping[str, Any]) -> str:
        return validate(scenario, overrides=overrides)

    try:
        check(spec.fixed)
    except ScenarioError as e:
        if not prefix:
            raise
        raise ScenarioError(f"{prefix}{e}") from None
    resolved = []
    for point in points:
        try:
            text = check({**spec.fixed, **point.overrides})
        except ScenarioError as e:
            # Name the single override at fault if there is one, else the whole point.
            for key, value in point.overrides.items():
                try:
                    check({**spec.fixed, key: value})
                except ScenarioError as alone:
                    where = "grid" if key in spec.grid else "point"
                    what = f"{where} {key}={toml_value_text(value)}"
                    raise ScenarioError(f"{spec.origin}: {what}: {alone}") from None
            what = f"point {_describe(point.overrides)}"
            raise ScenarioError(f"{spec.origin}: {what}: {e}") from None
        resolved.append(tomllib.loads(text))
    return resolved


def _manifest(spec: SweepSpec, points: list[Point], metrics: list[str]) -> dict[str, Any]:
    if isinstance(spec.scenario, Mapping):
        scenario_text = json.dumps(spec.scenario, sort_keys=True).encode()
        scenario_name: str | None = None
    else:
        scenario_text = Path(spec.scenario).read_bytes()
        scenario_name = spec.scenario
    point_overrides = [
        {"id": p.id, "overrides": override_pairs({**spec.fixed, **p.overrides})} for p in points
    ]
    overrides_hash = _sha256(json.dumps(point_overrides).encode())
    scenario_hash = _sha256(scenario_text)
    return {
        "mmtcp_version": _core.__version__,
        "sweep_file": spec.origin if spec.origin != "sweep" else None,
        "scenario": scenario_name,
        "scenario_sha256": scenario_hash,
        "seeds": list(spec.seeds or []),
        "grid": spec.grid,
        "set": spec.fixed,
        "points": [{"id": p.id, "overrides": p.overrides} for p in points],
        "metrics": metrics,
        "overrides_sha256": overrides_hash,
        "hash": _sha256(f"{_core.__version__}\n{scenario_hash}\n{overrides_hash}".encode()),
    }


def _claim_out_dir(out_dir: Path, manifest: dict[str, Any], force: bool) -> None:
    """Refuses an output folder that holds another sweep (unless `force`: then its runs are
    deleted), and writes sweep.json."""
    sweep_json = out_dir / "sweep.json"
    if sweep_json.is_file():
        try:
            old = json.loads(sweep_json.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = {}
        if old.get("hash") != manifest["hash"]:
            if not force:
                changed = [
                    what
                    for key, what in (
                        ("scenario_sha256", "the scenario file"),
                        ("overrides_sha256", "the grid, points or set overrides"),
                        ("mmtcp_version", "the mmtcp version"),
                    )
                    if old.get(key) != manifest[key]
                ]
                why = f"{' and '.join(changed)} changed" if changed else "its sweep.json differs"
                raise ScenarioError(
                    f"{out_dir}: holds runs of a different sweep ({why}); rerun with --force "
                    f"(force=True) to delete them and start over, or write elsewhere with --out"
                )
            import shutil

            shutil.rmtree(out_dir / "runs", ignore_errors=True)
            for name in ("points.csv", "points.json"):
                (out_dir / name).unlink(missing_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    _write_atomically(sweep_json, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


def _run_path(runs_dir: Path, point: Point, seed: int) -> Path:
    return runs_dir / point.id / f"seed-{seed}.json"


def _command_line(spec: SweepSpec, point: Point, seed: int) -> str:
    scenario = spec.scenario if isinstance(spec.scenario, str) else "<dict scenario>"
    parts = ["mmtcp", "run", scenario, "--seed", str(seed)]
    for path, value in override_pairs({**spec.fixed, **point.overrides}):
        parts += ["--set", f"{path}={value}"]
    return " ".join(_shell_quote(p) for p in parts)


def _shell_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _write_atomically(path: Path, text: str) -> None:
    """Writes `text` to a temporary file next to `path`, then renames it over `path`."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


# --- the process pool -------------------------------------------------------------------------
#
# Each worker is `python -c "...; _serve_worker()"`, fed one task at a time as a JSON line on its
# stdin and answering with one JSON line on its stdout, like `mmtcp bench`'s workers. Unlike
# multiprocessing's spawn method, this never imports the caller's __main__ module in the workers,
# so `mmtcp.sweep` works from a script without an `if __name__ == "__main__"` guard. Workers run
# in their own process group with SIGINT ignored: Ctrl-C reaches the parent only, which then
# terminates them.

_WORKER_CODE = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from mmtcp.sweep import _serve_worker; _serve_worker()"
)


class _Worker:
    """One worker process."""

    def __init__(self, started: list[_Worker]):
        import subprocess

        package_parent = str(Path(__file__).resolve().parents[1])
        group = {"process_group": 0} if os.name == "posix" else {}
        with _sigint_ignored():  # also inherited by the worker
            self.process = subprocess.Popen(
                [sys.executable, "-c", _WORKER_CODE, package_parent],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                **group,
            )
            started.append(self)
        stdin, stdout = self.process.stdin, self.process.stdout
        if stdin is None or stdout is None:  # cannot happen with PIPE; for the type checker
            raise RuntimeError("worker process without pipes")
        self.stdin, self.stdout = stdin, stdout

    def send(self, payload: dict[str, Any]) -> None:
        self.stdin.write(json.dumps(payload) + "\n")
        self.stdin.flush()

    def receive(self) -> tuple[str, str] | None:
        """The answer to the task sent, or None if the worker died."""
        line = self.stdout.readline()
        if not line:
            return None
        status, text = json.loads(line)
        return status, text

    def exit_code(self) -> int | None:
        try:
            return self.process.wait(5)
        except Exception:
            return None

    def stop(self, timeout: float) -> None:
        with contextlib.suppress(OSError):
            self.stdin.close()
        with contextlib.suppress(Exception):
            self.process.wait(timeout)
        self.kill()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(Exception):
                self.process.wait(5)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.stdin, self.stdout):
            with contextlib.suppress(OSError):
                stream.close()


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


Task = tuple[Point, int]


def _run_pool(
    size: int,
    jobs: list[tuple[Task, dict[str, Any]]],
    finished: Callable[[Task, bool, str], None],
    tick: Callable[[], None] | None = None,
) -> int:
    """Runs `jobs` on `size` worker processes; calls `finished(task, ok, text)` in this process
    as each ends (text: the summary JSON, or the error). Returns the number of runs executed.
    A worker that dies fails its run and is replaced."""
    import selectors

    queue = deque(jobs)
    started: list[_Worker] = []
    busy: dict[_Worker, Task] = {}
    executed = 0
    try:
        for _ in range(size):
            _Worker(started)
        idle = list(started)
        while queue or busy:
            while idle and queue:
                worker = idle.pop()
                task, payload = queue.popleft()
                try:
                    worker.send(payload)
                except OSError:  # it died while idle: fail the run, replace the worker
                    executed += 1
                    finished(task, False, _death_message(worker.exit_code()))
                    worker.kill()
                    idle.append(_Worker(started))
                    continue
                busy[worker] = task
            with selectors.DefaultSelector() as selector:
                for worker in busy:
                    selector.register(worker.stdout, selectors.EVENT_READ, worker)
                ready = [key.data for key, _ in selector.select(timeout=1.0)]
            if tick is not None:
                tick()
            for worker in ready:
                task = busy.pop(worker)
                executed += 1
                answer = worker.receive()
                if answer is None:
                    finished(task, False, _death_message(worker.exit_code()))
                    worker.kill()
                    if queue:
                        idle.append(_Worker(started))
                    continue
                finished(task, answer[0] == "ok", answer[1])
                idle.append(worker)
    except BaseException:
        for worker in started:
            worker.kill()
        raise
    for worker in started:
        worker.stop(timeout=5)
    return executed


def _death_message(code: int | None) -> str:
    if code is not None and code < 0:
        how = f"was killed by signal {-code} ({signal.Signals(-code).name})"
    else:
        how = f"exited with status {code}"
    return (
        f"WorkerDied: the worker process running this {how} (a crash, or the system ran out of "
        f"memory); other runs went on"
    )


def _serve_worker() -> None:
    """A worker process: runs each task read from stdin, answers on stdout, until stdin ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints cannot corrupt the answers
    for line in sys.stdin:
        status, text = _run_one(json.loads(line))
        answers.write(json.dumps([status, text]) + "\n")
        answers.flush()


def _run_one(task: dict[str, Any]) -> tuple[str, str]:
    source, kind, where = task["source"]
    try:
        summary, _columns, _resolved = _core.run(
            source,
            kind,
            **where,
            seed=task["seed"],
            overrides=[(path, value) for path, value in task["overrides"]],
        )
    except (ScenarioError, SimulationError) as e:
        return "error", f"{type(e).__name__}: {e}"
    except Exception:
        import traceback

        return "error", traceback.format_exc()
    return "ok", json.dumps(json.loads(summary), indent=2, ensure_ascii=False) + "\n"


# --- aggregation ------------------------------------------------------------------------------


def _aggregate(
    out_dir: Path,
    points: list[Point],
    seeds: list[int],
    metrics: list[str],
    warn: Callable[[str], None],
) -> tuple[list[dict[str, Any]], list[RunFailure], list[str]]:
    """Reads every run file, computes each point's statistics, writes points.csv and
    points.json; returns the points, the failures and the warnings."""
    runs_dir = out_dir / "runs"
    rows: list[dict[str, Any]] = []
    failures: list[RunFailure] = []
    notes: list[str] = []
    found_anywhere = dict.fromkeys(metrics, False)
    # Points where a metric is null in every run (a bulk flow has no completion time, a download
    # may not finish): one warning per metric, not one per point.
    absent_everywhere: dict[str, list[str]] = {}
    for point in points:
        summaries = []
        failed = 0
        for seed in seeds:
            path = _run_path(runs_dir, point, seed)
            error_path = path.with_name(f"seed-{seed}.error.txt")
            if path.is_file():
                try:
                    summaries.append(json.loads(path.read_text(encoding="utf-8")))
                except ValueError:
                    notes.append(f"{path}: not valid JSON, left out; delete it to rerun that run")
            elif error_path.is_file():
                failed += 1
                message = error_path.read_text(encoding="utf-8").strip().splitlines()
                failures.append(RunFailure(point.id, seed, error_path, (message or [""])[0]))
        stats = {}
        for metric in metrics:
            values = [metric_value(s, metric) for s in summaries]
            present = [v for v in values if v is not None]
            if present:
                found_anywhere[metric] = True
            if values and not present:
                absent_everywhere.setdefault(metric, []).append(point.id)
            elif len(present) < len(values):
                missing = len(values) - len(present)
                notes.append(
                    f"{metric}: missing or null in {missing} of {len(values)} runs of "
                    f"{point.id}; left out of its statistics"
                )
            stats[metric] = describe(present).as_dict()
        rows.append(
            {
                "id": point.id,
                "overrides": point.overrides,
                "runs": len(summaries),
                "failed": failed,
                "metrics": stats,
            }
        )
    for metric, ids in absent_everywhere.items():
        more = f" and {len(ids) - 1} more" if len(ids) > 1 else ""
        notes.append(
            f"{metric}: missing or null in every run of {ids[0]}{more}; those points have no "
            "statistics for it"
        )
    for metric, found in found_anywhere.items():
        if not found and any(row["runs"] for row in rows):
            notes = [n for n in notes if not n.startswith(f"{metric}: ")]
            notes.append(f"{metric}: no run has this metric; check its path in summary.json")
    for note in notes:
        warn(note)
    _write_atomically(out_dir / "points.json", json.dumps(rows, indent=2) + "\n")
    _write_atomically(out_dir / "points.csv", _points_csv(rows, metrics))
    return rows, failures, notes


def _points_csv(rows: list[dict[str, Any]], metrics: list[str]) -> str:
    import csv
    import io

    keys: list[str] = []
    for row in rows:
        keys += [k for k in row["overrides"] if k not in keys]
    header = ["point", *keys, "runs", "failed"]
    header += [f"{metric}.{name}" for metric in metrics for name in FIELDS]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        overrides = dict(override_pairs(row["overrides"]))
        cells = [row["id"], *(overrides.get(k, "") for k in keys), row["runs"], row["failed"]]
        for metric in metrics:
            cells += [_cell(row["metrics"][metric][name]) for name in FIELDS]
        writer.writerow(cells)
    return buffer.getvalue()


def _cell(value: float | int | None) -> str:
    if value is None:
        return ""
    return repr(value) if isinstance(value, float) else str(value)


# --- reporting --------------------------------------------------------------------------------


def points_table(points: list[dict[str, Any]], metrics: Sequence[str]) -> str:
    """A terminal table: one row per point, its overrides, then `mean ± ci95` of each metric."""
    keys: list[str] = []
    for point in points:
        keys += [k for k in point["overrides"] if k not in keys]
    header = [*(keys or ["point"]), "runs", *metrics]
    rows = []
    for point in points:
        overrides = dict(override_pairs(point["overrides"]))
        cells = [overrides.get(k, "-") for k in keys] if keys else [point["id"]]
        cells.append(
            str(point["runs"]) + (f" ({point['failed']} failed)" if point["failed"] else "")
        )
        cells += [format_estimate(point["metrics"][m]) for m in metrics]
        rows.append(cells)
    return format_table(header, rows)


def format_estimate(stats: Mapping[str, Any]) -> str:
    """`mean ± ci95` with an SI prefix for large values, e.g. `19.8M ± 0.12M`; the mean alone
    when there is no interval; `-` without values.

    >>> format_estimate({"mean": 19.8e6, "ci95": 1.2e5})
    '19.8M ± 0.12M'
    >>> format_estimate({"mean": 27.61, "ci95": None}), format_estimate({"mean": None})
    ('27.61', '-')
    >>> format_estimate({"mean": 1236.0, "ci95": 1300.0}), format_estimate({"mean": 3, "ci95": 0})
    ('1.236k ± 1.3k', '3 ± 0')
    """
    mean, ci = stats.get("mean"), stats.get("ci95")
    if mean is None:
        return "-"
    scale, prefix = 1.0, ""
    for factor, name in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(mean) >= factor:
            scale, prefix = factor, name
            break
    text = f"{significant(mean / scale, 4)}{prefix}"
    if ci is not None and math.isfinite(ci):
        ci = 0.0 if ci <= 1e-9 * abs(mean) else ci
        text += f" ± {significant(ci / scale, 2)}{prefix}"
    return text


def significant(value: float, digits: int) -> str:
    """`value` rounded to `digits` significant digits, in fixed-point notation.

    >>> significant(0.0026123, 2), significant(130.4, 2), significant(91.4123, 4), significant(0, 2)
    ('0.0026', '130', '91.41', '0')
    """
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    exponent = math.floor(math.log10(abs(value)))
    decimals = digits - 1 - exponent
    rounded = round(value, decimals)
    text = f"{rounded:.{max(decimals, 0)}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


class _Progress:
    """`sweep: 14/36 runs, 1 failed, 4.2s elapsed, ETA 6.1s` on stderr: redrawn in place on a
    terminal, a plain line every few seconds otherwise."""

    _PLAIN_INTERVAL = 5.0

    def __init__(self, stream: TextIO, total: int, skipped: int):
        self.stream = stream
        self.total = total
        self.skipped = skipped
        self.done = skipped
        self.failed = 0
        self.started = time.monotonic()
        self.last_line = 0.0
        self.tty = stream.isatty()
        self.drawn = False

    def start(self, points: int, seeds: int, to_run: int, workers: int) -> None:
        resumed = f", {self.skipped} already done" if self.skipped else ""
        plural = "s" if workers != 1 else ""
        plan = f"{to_run} to run on {workers} worker{plural}" if to_run else "nothing to run"
        self._print(
            f"sweep: {_plural(points, 'point')} x {_plural(seeds, 'seed')} = "
            f"{_plural(self.total, 'run')}{resumed}; {plan}"
        )

    def update(self, ok: bool) -> None:
        self.done += 1
        self.failed += not ok
        now = time.monotonic()
        if self.tty:
            self._draw(now)
        elif self.done == self.total or now - self.last_line >= self._PLAIN_INTERVAL:
            self._print(self._line(now))
            self.last_line = now

    def tick(self) -> None:
        """Redraws the line on a terminal (elapsed time and ETA move on between runs)."""
        now = time.monotonic()
        if self.tty and now - self.last_line >= 1.0:
            self._draw(now)

    def _draw(self, now: float) -> None:
        self.stream.write("\r\x1b[K" + self._line(now))
        self.stream.flush()
        self.drawn = True
        self.last_line = now

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False

    def _line(self, now: float) -> str:
        elapsed = now - self.started
        executed = self.done - self.skipped
        remaining = self.total - self.done
        eta = f", ETA {_duration(elapsed / executed * remaining)}" if executed and remaining else ""
        failed = f", {self.failed} failed" if self.failed else ""
        return f"sweep: {self.done}/{self.total} runs{failed}, {_duration(elapsed)} elapsed{eta}"

    def _print(self, line: str) -> None:
        print(line, file=self.stream, flush=True)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _duration(seconds: float) -> str:
    """`4.2s`, `3m05s` or `2h07m`."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"
