"""`mmtcp ieee80211ad-dual-trace` and `mmtcp.ieee80211ad_dual_trace`: the stand-in for Wu et al.'s
measured 802.11ad links (docs/models/ieee80211ad.md, "Two access points and a moving user")."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from helpers import REPO, assert_bad_input

import mmtcp

COMMITTED = [REPO / "scenarios" / "traces" / f"ieee80211ad-user-ap{n}.csv" for n in (1, 2)]


def rows(text: str) -> list[tuple[float, int]]:
    """The `time,rate` rows of a generated trace: (seconds, bit/s)."""
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert lines[0] == "time,rate"
    unit = {"s": 1.0, "ms": 1e-3}
    parsed = []
    for line in lines[1:]:
        time, rate = line.split(",")
        number, suffix = re.fullmatch(r"([\d.]+)(ms|s)", time).groups()
        parsed.append((float(number) * unit[suffix], int(rate)))
    return parsed


def time_mean(parsed: list[tuple[float, int]]) -> float:
    """The time-average rate of a trace that ends at its last row's time."""
    (start, _), (end, _) = parsed[0], parsed[-1]
    area = sum(rate * (t1 - t0) for (t0, rate), (t1, _) in itertools.pairwise(parsed))
    return area / (end - start)


def test_the_cli_writes_two_traces_that_fit_markov_reads(cli, tmp_path):
    prefix = tmp_path / "walk"
    proc = cli("ieee80211ad-dual-trace", "--out-prefix", prefix, "--set", "duration=15s")
    assert proc.returncode == 0, proc.stderr
    traces = [Path(f"{prefix}-ap{n}.csv") for n in (1, 2)]
    parsed = [rows(t.read_text(encoding="utf-8")) for t in traces]
    for trace in parsed:
        assert (trace[0][0], trace[-1][0]) == (0.0, 15.0)
    means = [time_mean(trace) for trace in parsed]
    # Both traces are scaled so that their sum averages 1.3 Gbit/s (Wu et al. §5.2.3).
    assert abs(sum(means) - 1.3e9) < 2.0, means
    summary = re.search(
        r"mean AP1 ([\d.]+) Mbit/s, AP2 ([\d.]+) Mbit/s, total 1300\.0 Mbit/s .*"
        r"correlation (-?[\d.]+)",
        proc.stdout,
    )
    assert summary, proc.stdout
    assert [float(summary[1]), float(summary[2])] == pytest.approx(
        [m / 1e6 for m in means], abs=0.06
    )
    assert -1.0 <= float(summary[3]) <= 1.0

    fit = cli("fit-markov", *traces, "--out", tmp_path / "fit.toml")
    assert fit.returncode == 0, fit.stderr
    assert "150 steps (15 s)" in fit.stdout, fit.stdout
    assert re.search(r"^p = 0\.\d+", fit.stdout, re.M), fit.stdout


def test_the_committed_pair_is_the_default_output(cli, tmp_path):
    proc = cli("ieee80211ad-dual-trace", "--out-prefix", tmp_path / "default")
    assert proc.returncode == 0, proc.stderr
    for n, committed in enumerate(COMMITTED, start=1):
        generated = (tmp_path / f"default-ap{n}.csv").read_text(encoding="utf-8")
        assert generated == committed.read_text(encoding="utf-8"), committed
        assert committed.stat().st_size < 1_000_000


def test_the_api_keeps_the_aps_apart_and_none_leaves_phy_rates():
    raw = mmtcp.ieee80211ad_dual_trace(duration="20s", mean_total_rate="none", seed=3)
    assert raw.scale is None
    for text, mean in zip((raw.ap1_csv, raw.ap2_csv), raw.mean_bps, strict=True):
        parsed = rows(text)
        # SE x 500 MHz of the SC MCSs: multiples of 62.5 Mbit/s.
        assert all(rate % 62_500_000 == 0 for _, rate in parsed)
        assert time_mean(parsed) == pytest.approx(mean, rel=1e-12)
    scaled = mmtcp.ieee80211ad_dual_trace(duration="20s", seed=3)
    assert scaled.scale == pytest.approx(1.3e9 / sum(raw.mean_bps), rel=1e-12)
    assert scaled.correlation == pytest.approx(raw.correlation, abs=1e-6)
    assert scaled.ap1_csv != mmtcp.ieee80211ad_dual_trace(duration="20s", seed=4).ap1_csv


@pytest.mark.parametrize(
    ("setting", "fragments"),
    [
        ("sped=1", ["sped", "speed"]),
        ("speed=-1", ["speed", "> 0"]),
        ("ap2=[1, 0]", ["ap2", "y > 0"]),
        ("duration=1005ms", ["duration", "whole number"]),
        ("mean_total_rate=fast", ["mean_total_rate", '"none"']),
        ("target_bler=2", ["target_bler", "(0, 1)"]),
    ],
)
def test_a_bad_key_is_one_line_naming_it(cli, tmp_path, setting, fragments):
    proc = cli("ieee80211ad-dual-trace", "--out-prefix", tmp_path / "x", "--set", setting)
    assert_bad_input(proc, *fragments)
    assert not list(tmp_path.iterdir()), "nothing is written"


def test_the_documented_fit_is_the_one_printed(cli):
    doc = (REPO / "docs/models/ieee80211ad.md").read_text(encoding="utf-8")
    shown = re.search(r"```text\n(COTAG's two-link Markov model.*?)```", doc, re.S)
    assert shown, "no fit report in docs/models/ieee80211ad.md"
    traces = [str(t.relative_to(REPO)) for t in COMMITTED]
    proc = cli("fit-markov", *traces, "--out", "/dev/null", cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.removesuffix("wrote /dev/null\n") == shown.group(1)
