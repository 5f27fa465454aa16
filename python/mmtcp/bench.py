"""`mmtcp bench`: wall time, event rate and peak memory of the benchmark scenarios.

Each `*.toml` in the benchmark directory (`scenarios/bench` by default) runs in a fresh
subprocess (`python -m mmtcp.bench_worker`), so each peak-memory figure is that scenario's own;
then the bare event engine is timed in this process. The table has, per scenario: wall seconds,
events, events per wall-second, delivered packets per wall-second (all flows' delivered segments
over wall time), peak resident memory, total goodput, and speed-up over real time.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, TextIO

from mmtcp import _core
from mmtcp._core import ScenarioError
from mmtcp.report import format_table, number, speed_up

DEFAULT_ENGINE_EVENTS = 10_000_000

HEADER = [
    "scenario",
    "wall s",
    "events",
    "events/s",
    "delivered pkt/s",
    "peak MB",
    "goodput Mbit/s",
    "speed-up",
]


def run_suite(
    directory: Path, *, engine_events: int = DEFAULT_ENGINE_EVENTS, out: TextIO = sys.stdout
) -> int:
    """Runs every scenario of `directory` and the engine benchmark, prints the table, and
    returns the exit status: 0, or 1 if a scenario failed."""
    scenarios = sorted(directory.glob("*.toml"))
    if not scenarios:
        raise ScenarioError(f"{directory}: no *.toml benchmark scenarios here")
    rows = []
    failed = 0
    for index, scenario in enumerate(scenarios, start=1):
        print(f"[{index}/{len(scenarios)}] {scenario}", file=sys.stderr, flush=True)
        worker = subprocess.run(
            [sys.executable, "-m", "mmtcp.bench_worker", str(scenario)],
            stdout=subprocess.PIPE,
            text=True,
            check=False,
        )
        if worker.returncode == 0:
            rows.append(_row(scenario.stem, json.loads(worker.stdout)))
        else:
            failed += 1
            rows.append([scenario.stem, f"failed (exit {worker.returncode})"] + [""] * 6)
    print(format_table(HEADER, rows), file=out)
    engine = _core.bench_engine(engine_events)
    print(
        f"\nengine: {engine['events']:,} events in {engine['wall_seconds']:.3f} s = "
        f"{engine['events_per_second'] / 1e6:,.2f} M events/s",
        file=out,
    )
    return 1 if failed else 0


def _row(name: str, m: dict[str, Any]) -> list[str]:
    wall = m["wall_seconds"]
    delivered_per_second = m["delivered_segments"] / wall if wall > 0 else None
    return [
        name,
        number(wall, 3),
        number(m["events"], 0),
        number(m["events_per_second"], 0),
        number(delivered_per_second, 0),
        number(m["peak_rss_bytes"], 1, 1e6),
        number(m["goodput_bps"], 1, 1e6),
        speed_up(m["sim_seconds"], wall),
    ]
