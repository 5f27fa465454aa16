"""One benchmark run, in a process of its own: `python -m mmtcp.bench_worker SCENARIO [--save]`.

`mmtcp bench` starts this module once per scenario so that the peak resident memory it reads
belongs to that scenario alone: on Linux the `VmHWM` of `/proc/self/status`, which starts afresh
with the new program (`getrusage`'s `ru_maxrss` survives `exec` and so would report the larger
of this process and the parent that forked it), elsewhere `ru_maxrss`. It calls the core directly,
without building a DataFrame, and prints one JSON object on stdout:
`{"scenario", "sim_seconds", "setup_seconds", "wall_seconds", "events", "events_per_second",
"delivered_segments", "goodput_bps", "peak_rss_bytes", "output_seconds"}`. With `--save` it runs
as `mmtcp run --no-plots --no-report` does — `mmtcp.run`, then `Result.save` into a temporary
folder — and `output_seconds` is the time from the end of the simulation to the results written
(the summary parsed, the tables converted and written); else it is null.
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from mmtcp import _core
from mmtcp._core import ScenarioError
from mmtcp.tables import RawTable, core_tables

# ru_maxrss is in kibibytes on Linux, in bytes on macOS.
_RSS_UNIT_BYTES = 1 if sys.platform == "darwin" else 1024


def measure(scenario: str, save: bool = False) -> dict[str, float | int | str | None]:
    """Runs `scenario` (and with `save`, writes its results) and returns its measurements."""
    output_seconds = None
    if save:
        from mmtcp.api import run

        started = time.perf_counter()
        result = run(scenario)
        summary = result.summary
        simulated = started + summary["setup_seconds"] + summary["wall_seconds"]
        with tempfile.TemporaryDirectory(prefix="mmtcp-bench-out-") as out:
            result.save(out)
            output_seconds = time.perf_counter() - simulated
        delivered = _delivered_segments(result.tables["flow_summary"])
    else:
        summary_json, tables, _resolved = _core.run(scenario, "path")
        summary = json.loads(summary_json)
        delivered = _delivered_segments(core_tables(tables)["flow_summary"])
    return {
        "scenario": scenario,
        "sim_seconds": summary["sim_seconds"],
        "setup_seconds": summary["setup_seconds"],
        "wall_seconds": summary["wall_seconds"],
        "events": summary["events"],
        "events_per_second": summary["events_per_second"],
        "delivered_segments": delivered,
        "goodput_bps": summary["aggregates"]["flows"]["total_goodput_bps"],
        "peak_rss_bytes": peak_rss_bytes(),
        "output_seconds": output_seconds,
    }


def _delivered_segments(flow_summary: RawTable) -> int:
    """The scenario flows' delivered segments (MP-TCP subflows' rows left out)."""
    delivered = flow_summary.column("delivered_segments").values
    subflow = flow_summary.column("subflow").valid
    flows = delivered if subflow is None else delivered[~subflow]
    return int(flows.sum())


def peak_rss_bytes() -> int:
    """The most memory this program has held resident."""
    status = Path("/proc/self/status")
    if status.is_file():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * _RSS_UNIT_BYTES


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    save = args[1:] == ["--save"]
    if len(args) != 1 and not save:
        print("usage: python -m mmtcp.bench_worker SCENARIO [--save]", file=sys.stderr)
        return 2
    try:
        measurements = measure(args[0], save)
    except ScenarioError as e:
        print(f"mmtcp: error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(measurements))
    return 0


if __name__ == "__main__":
    sys.exit(main())
