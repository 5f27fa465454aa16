"""Same scenario and seed, same results; another seed on a lossy link, other results. These
need the simulation core."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from helpers import SCENARIOS

pytestmark = pytest.mark.core

LOSSY = SCENARIOS / "lossy.toml"
WALL_CLOCK_KEYS = {"wall_seconds", "setup_seconds", "events_per_second"}


def _run(cli, out, *args):
    proc = cli("run", LOSSY, "--no-plots", "--quiet", "--out", out, *args)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    timeseries = pd.read_parquet(out / "timeseries.parquet")
    return {k: v for k, v in summary.items() if k not in WALL_CLOCK_KEYS}, timeseries


def test_same_seed_gives_identical_results(cli, tmp_path):
    summary_a, series_a = _run(cli, tmp_path / "a", "--seed", "7")
    summary_b, series_b = _run(cli, tmp_path / "b", "--seed", "7")
    assert summary_a == summary_b
    pd.testing.assert_frame_equal(series_a, series_b)


def test_another_seed_gives_other_results(cli, tmp_path):
    summary_a, _ = _run(cli, tmp_path / "a", "--seed", "7")
    summary_b, _ = _run(cli, tmp_path / "b", "--seed", "8")
    assert summary_a["flows"][0]["dropped_segments"]["total"] > 0
    assert summary_a["flows"] != summary_b["flows"]
