"""A sweep's results per point: reads every run file, computes each metric's statistics over
the seeds, collects the failed runs, and writes points.json, points.csv and points.parquet (one
row per point), and runs.parquet (one row per successful run, every number of its summary) for
analyses of one's own."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmtcp.api import override_pairs
from mmtcp.metrics import metric_value
from mmtcp.stats import FIELDS, describe
from mmtcp.sweep_dir import (
    RUN_DIGEST_KEY,
    error_path,
    run_entries,
    run_path,
    temporary_path,
    write_atomically,
)
from mmtcp.sweep_spec import Point


@dataclass(frozen=True)
class RunFailure:
    """A run that raised or whose worker process died; `path` holds the message."""

    point: str
    seed: int
    path: Path
    message: str


def aggregate(
    out_dir: Path,
    points: list[Point],
    seeds: list[int],
    metrics: list[str],
    warn: Callable[[str], None],
) -> tuple[list[dict[str, Any]], list[RunFailure], list[str]]:
    """Reads every run file, computes each point's statistics, writes points.csv, points.json,
    points.parquet and runs.parquet; returns the points, the failures and the warnings."""
    runs_dir = out_dir / "runs"
    rows: list[dict[str, Any]] = []
    failures: list[RunFailure] = []
    notes: list[str] = []
    found_anywhere = dict.fromkeys(metrics, False)
    # Points where a metric is null in every run (a bulk flow has no completion time, a download
    # may not finish): one warning per metric, not one per point.
    absent_everywhere: dict[str, list[str]] = {}
    run_rows: list[dict[str, Any]] = []
    for point in points:
        summaries = []
        entries = []
        failed = 0
        for seed in seeds:
            path = run_path(runs_dir, point, seed)
            failed_path = error_path(runs_dir, point, seed)
            if path.is_file():
                try:
                    summaries.append(json.loads(path.read_text(encoding="utf-8")))
                    entries.append(run_entries(path))
                    run_rows.append(_run_row(point, seed, summaries[-1]))
                except ValueError:
                    notes.append(f"{path}: not valid JSON, left out; delete it to rerun that run")
            elif failed_path.is_file():
                failed += 1
                message = failed_path.read_text(encoding="utf-8").strip().splitlines()
                failures.append(RunFailure(point.id, seed, failed_path, (message or [""])[0]))
        stats = {}
        for metric in metrics:
            values = [metric_value(s, metric, e) for s, e in zip(summaries, entries, strict=True)]
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
    write_atomically(out_dir / "points.json", json.dumps(rows, indent=2) + "\n")
    write_atomically(out_dir / "points.csv", _points_csv(rows, metrics))
    _write_parquet(out_dir / "points.parquet", _points_columns(rows, metrics))
    _write_parquet(out_dir / "runs.parquet", _runs_columns(run_rows))
    return rows, failures, notes


def _override_columns(rows: list[dict[str, Any]]) -> list[str]:
    """The override paths of the points, in order of first appearance: the axes' columns."""
    keys: list[str] = []
    for row in rows:
        keys += [k for k in row["overrides"] if k not in keys]
    return keys


def _points_csv(rows: list[dict[str, Any]], metrics: list[str]) -> str:
    import csv
    import io

    keys = _override_columns(rows)
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


def _points_columns(rows: list[dict[str, Any]], metrics: list[str]) -> dict[str, list[Any]]:
    """points.csv's columns with types: the override values as text (as in points.csv; null
    where the point does not set it), counts as integers, statistics as floats."""
    keys = _override_columns(rows)
    texts = [dict(override_pairs(row["overrides"])) for row in rows]
    columns: dict[str, list[Any]] = {"point": [row["id"] for row in rows]}
    columns.update({key: [text.get(key) for text in texts] for key in keys})
    columns["runs"] = [row["runs"] for row in rows]
    columns["failed"] = [row["failed"] for row in rows]
    for metric in metrics:
        for name in FIELDS:
            values = [row["metrics"][metric][name] for row in rows]
            columns[f"{metric}.{name}"] = values if name == "n" else _floats(values)
    return columns


def _floats(values: list[Any]) -> list[float | None]:
    return [None if v is None else float(v) for v in values]


def _run_row(point: Point, seed: int, summary: Any) -> dict[str, Any]:
    """A row of runs.parquet: the point, its overrides as text, the seed, then every number of
    the summary (not of its resolved scenario) under its metric path."""
    row: dict[str, Any] = {"point": point.id, **dict(override_pairs(point.overrides))}
    row["seed"] = seed
    if isinstance(summary, Mapping):
        for key, value in summary.items():
            if key not in ("scenario", RUN_DIGEST_KEY):
                _flatten(value, key, row)
    return row


def _flatten(node: Any, path: str, into: dict[str, Any]) -> None:
    """Puts the numbers under `node` into `into` by metric path (`flows.bulk.rtt_ms.p99`): a
    list entry by its `name` if it has one without dots, else by its index; nulls as missing."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            _flatten(value, f"{path}.{key}", into)
    elif isinstance(node, list):
        for index, entry in enumerate(node):
            name = entry.get("name") if isinstance(entry, Mapping) else None
            segment = name if isinstance(name, str) and name and "." not in name else index
            _flatten(entry, f"{path}.{segment}", into)
    elif node is None:
        into.setdefault(path, None)
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        into[path] = node


def _runs_columns(run_rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """runs.parquet's columns: every key of any row, in order of first appearance; a run
    without it has null there. Columns of numbers are floats if any value is one."""
    names: dict[str, None] = {}
    for row in run_rows:
        names.update(dict.fromkeys(row))
    names = names or dict.fromkeys(["point", "seed"])
    columns: dict[str, list[Any]] = {}
    for name in names:
        values = [row.get(name) for row in run_rows]
        numbers = [v for v in values if v is not None and not isinstance(v, str)]
        if any(isinstance(v, float) for v in numbers):
            values = _floats(values)
        columns[name] = values
    return columns


def _write_parquet(path: Path, columns: dict[str, list[Any]]) -> None:
    """Writes `columns` (name → values, one per row) as a parquet file, atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    temporary = temporary_path(path)
    table = pa.table({name: pa.array(values) for name, values in columns.items()})
    pq.write_table(table, temporary)
    os.replace(temporary, path)
