"""`mmtcp bench`: wall time, event rate and peak memory of the benchmark scenarios.

Each `*.toml` in the benchmark directory (`scenarios/bench` by default), then each scaling
scenario (`mmtcp.bench_scaling`: N flows on one bottleneck, a star of N UEs) runs in a fresh
subprocess (`python -m mmtcp.bench_worker`), so each peak-memory figure is that scenario's own;
then the bare event engine is timed in this process. The table has, per scenario: the wall
seconds to set the run up (load, check, build) and to run it, events, events per wall-second and
nanoseconds per event, delivered packets per wall-second (all flows' delivered segments over the
run's wall time), peak resident memory of the whole process, total goodput, and speed-up over
real time.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

from mmtcp import _core
from mmtcp._core import ScenarioError
from mmtcp.bench_scaling import write_scenarios
from mmtcp.report import format_table, number, speed_up

DEFAULT_ENGINE_EVENTS = 10_000_000

HEADER = [
    "scenario",
    "setup s",
    "wall s",
    "events",
    "events/s",
    "ns/event",
    "delivered pkt/s",
    "peak MB",
    "goodput Mbit/s",
    "speed-up",
]


def run_suite(
    directory: Path,
    *,
    scaling: bool = True,
    engine_events: int = DEFAULT_ENGINE_EVENTS,
    out: TextIO = sys.stdout,
) -> int:
    """Runs every scenario of `directory`, the scaling scenarios if `scaling`, and the engine
    benchmark, prints the table, and returns the exit status: 0, or 1 if a scenario failed."""
    scenarios = sorted(directory.glob("*.toml"))
    if not scenarios:
        raise ScenarioError(f"{directory}: no *.toml benchmark scenarios here")
    with tempfile.TemporaryDirectory(prefix="mmtcp-bench-") as generated:
        if scaling:
            scenarios += write_scenarios(Path(generated))
        return _run(scenarios, engine_events, out)


def _run(scenarios: list[Path], engine_events: int, out: TextIO) -> int:
    rows = []
    failed = 0
    for index, scenario in enumerate(scenarios, start=1):
        print(f"[{index}/{len(scenarios)}] {scenario}", file=sys.stderr, flush=True)
        worker = subprocess.run(
            # -P: a local `mmtcp/` folder is not imported in place of the installed package.
            [sys.executable, "-P", "-m", "mmtcp.bench_worker", str(scenario)],
            stdout=subprocess.PIPE,
            text=True,
            check=False,
        )
        if worker.returncode == 0:
            rows.append(_row(scenario.stem, json.loads(worker.stdout)))
        else:
            failed += 1
            rows.append([scenario.stem, f"failed (exit {worker.returncode})"] + [""] * 8)
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
    ns_per_event = wall * 1e9 / m["events"] if m["events"] > 0 else None
    return [
        name,
        number(m["setup_seconds"], 3),
        number(wall, 3),
        number(m["events"], 0),
        number(m["events_per_second"], 0),
        number(ns_per_event, 0),
        number(delivered_per_second, 0),
        number(m["peak_rss_bytes"], 1, 1e6),
        number(m["goodput_bps"], 1, 1e6),
        speed_up(m["sim_seconds"], wall),
    ]
