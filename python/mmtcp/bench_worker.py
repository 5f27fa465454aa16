"""One benchmark run, in a process of its own: `python -m mmtcp.bench_worker SCENARIO`.

`mmtcp bench` starts this module once per scenario so that the peak resident memory it reads
(`getrusage(RUSAGE_SELF).ru_maxrss`) belongs to that scenario alone. It calls the core directly,
without building a DataFrame, and prints one JSON object on stdout:
`{"scenario", "sim_seconds", "wall_seconds", "events", "events_per_second",
"delivered_segments", "goodput_bps", "peak_rss_bytes"}`.
"""

from __future__ import annotations

import json
import resource
import sys

from mmtcp import _core
from mmtcp._core import ScenarioError

# ru_maxrss is in kibibytes on Linux, in bytes on macOS.
_RSS_UNIT_BYTES = 1 if sys.platform == "darwin" else 1024


def measure(scenario: str) -> dict[str, float | int | str]:
    """Runs `scenario` and returns its measurements."""
    summary_json, _columns, _resolved = _core.run(scenario, "path")
    summary = json.loads(summary_json)
    flows = summary["flows"]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * _RSS_UNIT_BYTES
    return {
        "scenario": scenario,
        "sim_seconds": summary["sim_seconds"],
        "wall_seconds": summary["wall_seconds"],
        "events": summary["events"],
        "events_per_second": summary["events_per_second"],
        "delivered_segments": sum(flow["delivered_segments"] for flow in flows),
        "goodput_bps": sum(flow["goodput_bps"] for flow in flows),
        "peak_rss_bytes": peak,
    }


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m mmtcp.bench_worker SCENARIO", file=sys.stderr)
        return 2
    try:
        measurements = measure(args[0])
    except ScenarioError as e:
        print(f"mmtcp: error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(measurements))
    return 0


if __name__ == "__main__":
    sys.exit(main())
