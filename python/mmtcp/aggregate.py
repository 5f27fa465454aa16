"""A sweep's results per point: reads every run file, computes each metric's statistics over
the seeds, collects the failed runs, and writes points.json and points.csv."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmtcp.api import override_pairs
from mmtcp.metrics import metric_value
from mmtcp.stats import FIELDS, describe
from mmtcp.sweep_dir import error_path, run_path, write_atomically
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
            path = run_path(runs_dir, point, seed)
            failed_path = error_path(runs_dir, point, seed)
            if path.is_file():
                try:
                    summaries.append(json.loads(path.read_text(encoding="utf-8")))
                except ValueError:
                    notes.append(f"{path}: not valid JSON, left out; delete it to rerun that run")
            elif failed_path.is_file():
                failed += 1
                message = failed_path.read_text(encoding="utf-8").strip().splitlines()
                failures.append(RunFailure(point.id, seed, failed_path, (message or [""])[0]))
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
    write_atomically(out_dir / "points.json", json.dumps(rows, indent=2) + "\n")
    write_atomically(out_dir / "points.csv", _points_csv(rows, metrics))
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
