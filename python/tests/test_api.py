"""`mmtcp.run` and `mmtcp.validate` against the summary and time-series contract. These need
the simulation core."""

from __future__ import annotations

import time
import tomllib

import numpy as np
import pandas as pd
import pytest
from helpers import SCENARIOS

import mmtcp

pytestmark = pytest.mark.core

SMALL = SCENARIOS / "small.toml"

SUMMARY_KEYS = {
    "mmtcp_version",
    "scenario_file",
    "seed",
    "sim_seconds",
    "wall_seconds",
    "setup_seconds",
    "events",
    "events_per_second",
    "flows",
    "links",
    "scenario",
}
FLOW_KEYS = {
    "name",
    "from",
    "to",
    "cc",
    "app",
    "goodput_bps",
    "bytes_delivered",
    "delivered_segments",
    "segments_sent",
    "retransmitted_segments",
    "rto_count",
    "fast_recoveries",
    "dropped_segments",
    "rtt_ms",
    "owd_ms",
    "delivery_ratio",
    "completion_seconds",
}
STATS_KEYS = {"mean", "p50", "p99", "p99_9", "p99_999", "min", "max", "samples"}
LINK_KEYS = {"name", "kind", "between", "utilisation", "drops", "directions"}
DIRECTION_KEYS = {
    "from",
    "to",
    "utilisation",
    "packets_sent",
    "bytes_sent",
    "drops",
    "mean_queue_bytes",
    "max_queue_bytes",
    "mean_capacity_bps",
}
FLOW_METRICS = [
    "goodput_bps",
    "cwnd_bytes",
    "ssthresh_bytes",
    "inflight_bytes",
    "rtt_ms",
    "delivered_bytes",
]
LINK_METRICS = ["queue_bytes", "queue_packets", "capacity_bps", "throughput_bps"]


@pytest.fixture(scope="module")
def small() -> mmtcp.Result:
    return mmtcp.run(SMALL)


def test_summary_has_every_contract_key(small):
    # The core may add keys; these are the ones the Python side and users rely on.
    summary = small.summary
    assert set(summary) >= SUMMARY_KEYS
    assert list(summary)[:3] == ["mmtcp_version", "scenario_file", "seed"]
    assert summary["mmtcp_version"] == mmtcp.__version__
    assert summary["seed"] == 1
    assert summary["sim_seconds"] == pytest.approx(2.0)
    assert [flow["name"] for flow in summary["flows"]] == ["bulk", "fetch"]
    for flow in summary["flows"]:
        assert set(flow) >= FLOW_KEYS
        assert set(flow["rtt_ms"]) >= STATS_KEYS
        assert set(flow["owd_ms"]) >= STATS_KEYS
        assert {"total", "by_cause", "by_place"} <= set(flow["dropped_segments"])
    bulk, fetch = summary["flows"]
    assert bulk["completion_seconds"] is None
    assert 0.16 < fetch["completion_seconds"] < 1.5  # 1 MB at 50 Mbit/s takes 0.16 s
    assert fetch["bytes_delivered"] == 1_000_000
    core, radio = summary["links"]
    assert set(core) >= LINK_KEYS
    assert "mean_capacity_bps" not in core
    assert LINK_KEYS | {"mean_capacity_bps"} <= set(radio)
    assert (core["kind"], radio["kind"]) == ("wired", "radio")
    assert radio["between"] == ["bs", "ue"]
    assert radio["mean_capacity_bps"] == pytest.approx(50e6)
    for link in summary["links"]:
        assert [(d["from"], d["to"]) for d in link["directions"]] == [
            tuple(link["between"]),
            tuple(reversed(link["between"])),
        ]
        for direction in link["directions"]:
            assert set(direction) >= DIRECTION_KEYS
            assert {"queue", "error"} <= set(direction["drops"])


def test_timeseries_columns_follow_the_contract(small):
    ts = small.timeseries
    assert isinstance(ts, pd.DataFrame)
    assert ts.columns[0] == "time_s"
    assert all(ts[column].dtype == np.float64 for column in ts.columns)
    expected = {"time_s"}
    expected |= {f"flow.{f}.{m}" for f in ("bulk", "fetch") for m in FLOW_METRICS}
    expected |= {
        f"link.{link}.{d}.{m}"
        for link in ("core", "radio")
        for d in ("fwd", "rev")
        for m in LINK_METRICS
    }
    assert set(ts.columns) == expected
    assert np.allclose(np.diff(ts["time_s"]), 0.01)
    assert (ts["link.radio.fwd.capacity_bps"] == 50e6).all()
    delivered = ts["flow.fetch.delivered_bytes"]
    assert (np.diff(delivered) >= 0).all()
    assert delivered.iloc[-1] == pytest.approx(1_000_000)


def test_goodput_series_agrees_with_the_summary(small):
    bulk = small.summary["flows"][0]
    series = small.timeseries["flow.bulk.goodput_bps"]
    assert 10e6 < bulk["goodput_bps"] <= 50e6
    assert series.mean() == pytest.approx(bulk["goodput_bps"], rel=0.15)


def test_seed_and_overrides(small):
    result = mmtcp.run(
        SMALL,
        seed=42,
        overrides={"simulation.duration": "1s", "link.1.channel.rate": "20Mbps"},
    )
    assert result.summary["seed"] == 42
    assert result.summary["sim_seconds"] == pytest.approx(1.0)
    assert result.summary["links"][1]["mean_capacity_bps"] == pytest.approx(20e6)
    assert "seed = 42" in result.resolved_scenario
    as_strings = mmtcp.run(
        SMALL, seed=42, overrides=["simulation.duration=1s", "link.1.channel.rate=20Mbps"]
    )
    assert as_strings.summary["flows"] == result.summary["flows"]
    assert mmtcp.run(SMALL, overrides={"simulation.seed": 9}).summary["seed"] == 9


def test_a_dict_scenario_runs_like_its_file(small):
    scenario = tomllib.loads(SMALL.read_text())
    result = mmtcp.run(scenario)
    assert result.summary["flows"] == small.summary["flows"]
    pd.testing.assert_frame_equal(result.timeseries, small.timeseries)


def test_validate_returns_the_resolved_scenario():
    resolved = tomllib.loads(mmtcp.validate(SMALL, overrides={"link.0.delay": "7ms"}))
    assert resolved["simulation"]["seed"] == 1
    assert resolved["metrics"]["interval"] == "10ms"
    assert resolved["link"][0]["delay"] == "7ms"
    assert resolved["flow"][0]["transport"]["cc"] == "cubic"


def test_progress_is_reported_and_can_stop_the_run():
    calls = []

    def progress(sim_seconds, stop_seconds, events, wall_seconds):
        calls.append((sim_seconds, stop_seconds, events, wall_seconds))
        return False

    started = time.monotonic()
    with pytest.raises(mmtcp.SimulationError, match="interrupted"):
        mmtcp.run(SMALL, overrides={"simulation.duration": "10000s"}, progress=progress)
    assert time.monotonic() - started < 5
    assert len(calls) == 1
    sim_seconds, stop_seconds, events, wall_seconds = calls[0]
    assert 0 <= sim_seconds < stop_seconds == pytest.approx(10000.0)
    assert isinstance(events, int)
    assert wall_seconds > 0


def test_an_exception_in_the_progress_callback_stops_the_run():
    def progress(*_):
        raise LookupError("from the callback")

    with pytest.raises(LookupError, match="from the callback"):
        mmtcp.run(SMALL, overrides={"simulation.duration": "10000s"}, progress=progress)


def test_the_trace_path_is_relative_to_the_scenario_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = mmtcp.run(SCENARIOS / "trace.toml")
    assert result.summary["links"][0]["mean_capacity_bps"] == pytest.approx(
        (0.8 * 40e6 + 0.2 * 4e6 + 1.0 * 40e6) / 2.0, rel=0.01
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: mmtcp.run(s, overrides=5), "overrides is a dict or an iterable"),
        (lambda s: mmtcp.run(s, overrides=[5]), "found int"),
        (lambda s: mmtcp.run(s, overrides=["a=1", b"b=2"]), "found bytes"),
        (lambda s: mmtcp.run(s, overrides={"node.0.x": _self_containing()}), "contain itself"),
        (lambda s: mmtcp.run(_self_containing_dict()), "cannot be read as a scenario"),
        (lambda s: mmtcp.run({"simulation": {1, 2}}), "cannot be read as a scenario"),
        (lambda s: mmtcp.validate(s, overrides=3.5), "not float"),
    ],
)
def test_wrong_argument_types_are_type_errors_that_say_what_is_expected(call, message):
    # Issue 15, item 9: these raised AttributeError, RecursionError or a bare ValueError.
    with pytest.raises(TypeError, match=message):
        call(str(SMALL))


def _self_containing() -> list:
    items: list = []
    items.append(items)
    return items


def _self_containing_dict() -> dict:
    scenario: dict = {}
    scenario["simulation"] = scenario
    return scenario
