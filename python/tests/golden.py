"""The golden table: what every scenario of `scenarios/` and a short version of every experiment
compute today, pinned so that a refactor that changes a result cannot pass unnoticed.

Each entry is one run (seed as the scenario says for `scenarios/`, seed 1 for experiments):

- `summary_sha256`: SHA-256 of `summary.json` written as canonical JSON (sorted keys, no spaces)
  without the fields that do not come from the simulation: `wall_seconds`, `setup_seconds`,
  `events_per_second` (wall-clock), `scenario_file` (where the file was read from) and
  `mmtcp_version`;
- `series_sha256`: SHA-256 of the time series (column names, then each column's float64 bytes);
- readable figures: events, peak packets, goodput (sum over flows), retransmitted segments and
  timeouts (sums over flows), packets dropped on links.

A short experiment is every point of the experiment's `[quick]` sweep (the version
`mmtcp reproduce NAME --quick` runs), with seed 1 only.

The table lives in `golden.csv` beside this file; `test_golden.py` checks it. After a deliberate
change of results, rewrite it and say why in the commit:

    .venv/bin/python python/tests/golden.py --update

which prints every entry that changed (old → new figures).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import sys
from collections.abc import Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import mmtcp
from mmtcp.reproduce import find_experiments

REPO = Path(__file__).resolve().parents[2]
TABLE = Path(__file__).resolve().parent / "golden.csv"
EXCLUDED_FIELDS = (
    "wall_seconds",
    "setup_seconds",
    "events_per_second",
    "scenario_file",
    "mmtcp_version",
)
COLUMNS = (
    "name",
    "summary_sha256",
    "series_sha256",
    "events",
    "peak_packets",
    "goodput_bps",
    "retransmitted_segments",
    "rto_count",
    "link_drops",
)


@dataclass(frozen=True)
class Case:
    """One golden run: a scenario file (relative to the repository), seed and overrides."""

    name: str
    scenario: str
    seed: int | None
    overrides: tuple[tuple[str, Any], ...]


def cases() -> list[Case]:
    """Every scenario of `scenarios/` as it is, then every point of every experiment's quick
    sweep with seed 1."""
    found = []
    for path in sorted((REPO / "scenarios").rglob("*.toml")):
        relative = path.relative_to(REPO).as_posix()
        found.append(Case(relative.removesuffix(".toml"), relative, None, ()))
    for experiment in find_experiments([REPO / "experiments"]):
        spec = experiment.spec(quick=True)
        assert isinstance(spec.scenario, str), experiment.name
        scenario = Path(spec.scenario).resolve().relative_to(REPO).as_posix()
        for point in spec.expand():
            overrides = {**spec.fixed, **spec.applied(point.overrides)}
            name = f"{experiment.name}/{point.id}"
            found.append(Case(name, scenario, 1, tuple(overrides.items())))
    return found


def canonical_summary(summary: Mapping[str, Any]) -> bytes:
    """The summary as canonical JSON, without the fields that do not come from the simulation."""
    kept = {k: v for k, v in summary.items() if k not in EXCLUDED_FIELDS}
    return json.dumps(kept, sort_keys=True, separators=(",", ":"), allow_nan=True).encode()


def series_digest(timeseries: Any) -> str:
    """SHA-256 of a time-series DataFrame: each column's name, then its float64 bytes."""
    h = hashlib.sha256()
    for name in timeseries.columns:
        h.update(str(name).encode() + b"\0")
        h.update(np.ascontiguousarray(timeseries[name].to_numpy(), dtype="<f8").tobytes())
    return h.hexdigest()


def measure(case: Case) -> dict[str, str]:
    """Runs one case and returns its row of the table (every value as text)."""
    result = mmtcp.run(REPO / case.scenario, seed=case.seed, overrides=dict(case.overrides))
    s = result.summary
    flows = s["flows"]
    row = {
        "name": case.name,
        "summary_sha256": hashlib.sha256(canonical_summary(s)).hexdigest(),
        "series_sha256": series_digest(result.timeseries),
        "events": s["events"],
        "peak_packets": s["peak_packets"],
        "goodput_bps": round(sum(f["goodput_bps"] for f in flows)),
        "retransmitted_segments": sum(f["retransmitted_segments"] for f in flows),
        "rto_count": sum(f["rto_count"] for f in flows),
        "link_drops": sum(link["drops"] for link in s["links"]),
    }
    return {k: str(v) for k, v in row.items()}


def measure_all(workers: int | None = None) -> list[dict[str, str]]:
    """Every case's row, in `cases()` order."""
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(measure, cases()))


def read_table(path: Path = TABLE) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def table_text(rows: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def differences(pinned: list[dict[str, str]], measured: list[dict[str, str]]) -> Iterator[str]:
    """One line per entry that was added, removed or changed, naming the changed fields."""
    before = {row["name"]: row for row in pinned}
    after = {row["name"]: row for row in measured}
    for name in before:
        if name not in after:
            yield f"removed  {name}"
    for name, row in after.items():
        old = before.get(name)
        if old is None:
            yield f"added    {name}: " + _figures(row)
            continue
        changed = [c for c in COLUMNS[1:] if old.get(c) != row[c]]
        if changed:
            yield f"changed  {name}: " + ", ".join(
                f"{c} {_short(old.get(c), c)} → {_short(row[c], c)}" for c in changed
            )


def _figures(row: Mapping[str, str]) -> str:
    return ", ".join(f"{c} {row[c]}" for c in COLUMNS[3:])


def _short(value: str | None, column: str) -> str:
    if value is None:
        return "-"
    return value[:12] if column.endswith("sha256") else value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite golden.csv")
    parser.add_argument("--workers", type=int, default=None, help="worker processes")
    args = parser.parse_args(argv)
    measured = measure_all(args.workers)
    pinned = read_table() if TABLE.exists() else []
    changes = list(differences(pinned, measured))
    for line in changes:
        print(line)
    if not changes:
        print(f"golden table: {len(measured)} entries, all unchanged")
        return 0
    if args.update:
        TABLE.write_text(table_text(measured), encoding="utf-8")
        print(f"wrote {TABLE.relative_to(REPO)}: {len(changes)} entries differ from the old table")
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
