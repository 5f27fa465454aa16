"""Proxies seen from Python: a node's `processors` through `mmtcp.run`, their summary entries and
time-series columns, the run report, a sweep over the schemes, and the kim2017 and drago2019
experiments end to end (quick), each writing its claims.json."""

from __future__ import annotations

import pytest
from helpers import REPO, assert_claims_json

import mmtcp
from mmtcp.report import run_report

SCENARIO = REPO / "experiments" / "kim2017" / "fig5" / "scenario.toml"


def _cell(processors: list[dict]) -> mmtcp.Result:
    overrides = {
        "node.bs.processors": processors,
        "simulation.duration": "6s",
        "link.air.radio.channel.los_duration": "1s",
        "link.air.radio.channel.nlos_duration": "1s",
    }
    return mmtcp.run(SCENARIO, overrides=overrides)


@pytest.mark.core
def test_a_proxy_reports_its_counters_and_columns():
    result = _cell([{"kind": "mmpep"}])
    (entry,) = result.summary["processors"]
    assert (entry["name"], entry["kind"], entry["node"]) == ("bs.mmpep", "mmpep", "bs")
    stats = entry["stats"]
    assert stats["batch_size"] == 14
    assert stats["early_acks"] >= stats["segments_cached"] > 0
    cache = result.timeseries["proxy.bs.mmpep.cache_bytes"]
    assert cache.max() <= stats["peak_cache_bytes"] <= stats["cache_limit_bytes"]
    assert cache.max() > 1e6, "an NLOS second fills the cache with megabytes"
    report = run_report(result.summary)
    assert "bs.mmpep" in report
    assert "batch_size=14" in report


@pytest.mark.core
def test_the_schemes_differ_and_plain_tcp_has_no_processor():
    plain = _cell([])
    assert plain.summary["processors"] == []
    assert not any(c.startswith("proxy.") for c in plain.timeseries.columns)
    mmpep = _cell([{"kind": "mmpep"}])
    rate = {r: r.summary["flows"][0]["goodput_bps"] for r in (plain, mmpep)}
    # 83 against 57 Mbit/s over 6 s with 1 s periods (TCP on ns-3's timers, the scenario's profile).
    assert rate[mmpep] > 1.3 * rate[plain], "mmPEP keeps the server sending through NLOS"


@pytest.mark.core
def test_a_bad_processor_key_is_a_scenario_error():
    with pytest.raises(mmtcp.ScenarioError, match=r"node\[1\]\.processors\[0\]\.epsilon"):
        _cell([{"kind": "mmpep", "epsilon": 0.7}])


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
QUICK = {
    "kim2017-fig5": (8, ["delivery_ratio.png", "rate.png", "timeline.png"]),
    "kim2017-fig6": (9, ["delivery_ratio.png", "rate.png"]),
    "drago2019-throughput": (
        6,
        ["throughput.csv", "throughput_per_scenario_r30.png", "throughput_r30.png"],
    ),
    "drago2019-rtt": (
        3,
        [
            "blockage_rtt.png",
            "rtt_percentiles_r30.png",
            "throughput_r30.png",
            "timeline_cubic.png",
            "timeline_proactive.png",
            "timeline_reactive.png",
        ],
    ),
}


@pytest.mark.core
@pytest.mark.parametrize("name", sorted(QUICK))
def test_the_proxy_experiments_reproduce_quickly(cli, tmp_path, name):
    proc = cli("reproduce", name, "--quick", "--workers", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out" / "reproduce" / f"{name}-quick"
    points, figures = QUICK[name]
    assert len((out / "points.csv").read_text().splitlines()) == 1 + points
    assert sorted(p.name for p in (out / "figures").iterdir()) == figures
    for figure in figures:
        if figure.endswith(".png"):
            assert (out / "figures" / figure).read_bytes().startswith(PNG_MAGIC), figure
    assert_claims_json(out, name)
