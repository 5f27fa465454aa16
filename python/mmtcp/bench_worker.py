"""One benchmark run, in a process of its own: `python -m mmtcp.bench_worker SCENARIO`.

`mmtcp bench` starts this module once per scenario so that the peak resident memory it reads
belongs to that scenario alone: on Linux the `VmHWM` of `/proc/self/status`, which starts afresh
with the new program (`getrusage`'s `ru_maxrss` survives `exec` and so would report the larger
of this process and the parent that forked it), elsewhere `ru_maxrss`. It calls the core directly,
without building a DataFrame, and prints one JSON object on stdout:
`{"scenario", "sim_seconds", "setup_seconds", "wall_seconds", "events", "events_per_second",
"delivered_segments", "goodput_bps", "peak_rss_bytes"}`.
"""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path

from mmtcp import _core
from mmtcp._core import ScenarioError

# ru_maxrss is in kibibytes on Linux, in bytes on macOS.
_RSS_UNIT_BYTES = 1 if sys.platform == "darwin" else 1024


def measure(scenario: str) -> dict[str, float | int | str]:
    """Runs `scenario` and returns its measurements."""
    summary_json, _columns, _resolved = _core.run(scenario, "path")
    summary = json.loads(summary_json)
    flows = summary["flows"]
    return {
        "scenario": scenario,
        "sim_seconds": summary["sim_seconds"],
        "setup_seconds": summary["setup_seconds"],
        "wall_seconds": summary["wall_seconds"],
        "events": summary["events"],
        "events_per_second": summary["events_per_second"],
        "delivered_segments": sum(flow["delivered_segments"] for flow in flows),
        "goodput_bps": sum(flow["goodput_bps"] for flow in flows),
        "peak_rss_bytes": peak_rss_bytes(),
    }


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
