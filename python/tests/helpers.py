"""Helpers shared by the tests: paths, the bad-input check, the claims.json check, and
contract-shaped fake results."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mmtcp.reproduce import find_experiment

TESTS = Path(__file__).resolve().parent
SCENARIOS = TESTS / "scenarios"
REPO = TESTS.parents[1]


def assert_bad_input(proc: subprocess.CompletedProcess[str], *fragments: str) -> str:
    """Checks a bad-input failure: exit 2, one line on stderr containing every fragment, no
    traceback. Returns that line."""
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"
    return lines[0]


VERDICTS = {"holds", "fails", "not settled", "not testable"}
SUMMARIES = {"holds", "holds under a reading", "fails", "not settled", "not testable"}


def assert_claims_json(out: Path, name: str) -> list[dict[str, Any]]:
    """Checks the claims.json a reproduction of experiment `name` wrote into `out`: one entry
    per `[[claims]]` of its experiment.toml, in order, each with the fields other tools read."""
    entries = json.loads((out / "claims.json").read_text(encoding="utf-8"))
    experiment = find_experiment(name, [REPO / "experiments"])
    expected = [c["id"] for c in experiment.config.get("claims", [])]
    assert [e["id"] for e in entries] == expected
    for entry in entries:
        keys = {"claim", "paper", "ours", "verdict", "headline", "quote", "where", "readings"}
        assert keys | {"summary", "source"} <= entry.keys(), entry
        assert entry["verdict"] in VERDICTS, entry
        assert entry["summary"] in SUMMARIES, entry
        assert all(v in VERDICTS for v in entry["readings"].values()), entry
        assert isinstance(entry["claim"], str), entry
        assert entry["claim"], entry
    return entries


def fake_summary() -> dict[str, Any]:
    """A summary shaped as the core's contract says (values made up), for tests that do not
    run the core: two flows, one wired and one radio link."""

    def stats(mean: float) -> dict[str, float | int]:
        return {
            "mean": mean,
            "p50": mean,
            "p99": 2 * mean,
            "p99_9": 2.5 * mean,
            "p99_999": 3 * mean,
            "min": 0.5 * mean,
            "max": 4 * mean,
            "samples": 1000,
        }

    def flow(name: str, app: str, completion: float | None) -> dict[str, Any]:
        return {
            "name": name,
            "from": "server",
            "to": "ue",
            "cc": "cubic",
            "app": app,
            "goodput_bps": 41.5e6,
            "bytes_delivered": 10_375_000,
            "delivered_segments": 7165,
            "segments_sent": 7200,
            "retransmitted_segments": 35,
            "rto_count": 1,
            "fast_recoveries": 3,
            "dropped_segments": {
                "total": 35,
                "by_cause": {"queue": 30, "error": 5},
                "by_place": {"radio": 35},
            },
            "rtt_ms": stats(24.0),
            "owd_ms": stats(12.0),
            "delivery_ratio": 0.9951,
            "completion_seconds": completion,
        }

    def direction(a: str, b: str) -> dict[str, Any]:
        return {
            "from": a,
            "to": b,
            "utilisation": 0.8,
            "packets_sent": 7200,
            "bytes_sent": 10_425_600,
            "drops": {"queue": 30, "error": 5},
            "mean_queue_bytes": 120_000.0,
            "max_queue_bytes": 289_600,
            "mean_capacity_bps": 50e6,
        }

    return {
        "mmtcp_version": "0.1.0",
        "scenario_file": "fake.toml",
        "seed": 1,
        "sim_seconds": 2.0,
        "wall_seconds": 0.05,
        "events": 123_456,
        "events_per_second": 2_469_120.0,
        "flows": [flow("bulk", "bulk", None), flow("fetch", "download", 0.71)],
        "links": [
            {
                "name": "core",
                "kind": "wired",
                "between": ["server", "bs"],
                "utilisation": 0.41,
                "drops": 0,
                "directions": [direction("server", "bs"), direction("bs", "server")],
            },
            {
                "name": "radio",
                "kind": "radio",
                "between": ["bs", "ue"],
                "utilisation": 0.83,
                "drops": 35,
                "mean_capacity_bps": 50e6,
                "directions": [direction("bs", "ue"), direction("ue", "bs")],
            },
        ],
        "scenario": {"simulation": {"duration": "2s", "seed": 1}},
    }


def fake_timeseries(summary: dict[str, Any], samples: int = 200) -> pd.DataFrame:
    """Every contract column for `summary`'s flows and links, filled with plausible curves."""
    time = np.arange(1, samples + 1) * 0.01
    rng = np.random.default_rng(0)
    columns: dict[str, np.ndarray] = {"time_s": time}
    for flow in summary["flows"]:
        prefix = f"flow.{flow['name']}"
        goodput = 40e6 * (1 - np.exp(-time * 5)) + rng.normal(0, 1e6, samples)
        cwnd = 50_000 + 100_000 * np.abs(np.sin(time * 3))
        ssthresh = np.where(time < 0.5, np.nan, 80_000.0)
        rtt = np.where(rng.random(samples) < 0.2, np.nan, 20 + rng.random(samples) * 10)
        columns[f"{prefix}.goodput_bps"] = goodput
        columns[f"{prefix}.cwnd_bytes"] = cwnd
        columns[f"{prefix}.ssthresh_bytes"] = ssthresh
        columns[f"{prefix}.inflight_bytes"] = 0.9 * cwnd
        columns[f"{prefix}.rtt_ms"] = rtt
        columns[f"{prefix}.delivered_bytes"] = np.cumsum(goodput * 0.01 / 8)
    for link in summary["links"]:
        for direction in ("fwd", "rev"):
            prefix = f"link.{link['name']}.{direction}"
            queue = np.abs(rng.normal(100_000, 50_000, samples))
            columns[f"{prefix}.queue_bytes"] = queue
            columns[f"{prefix}.queue_packets"] = np.floor(queue / 1500)
            columns[f"{prefix}.capacity_bps"] = np.where(time % 1 < 0.5, 50e6, 5e6)
            columns[f"{prefix}.throughput_bps"] = 40e6 * np.ones(samples)
    return pd.DataFrame(columns)
