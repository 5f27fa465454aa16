"""The generated scaling scenarios of `mmtcp bench` (mmtcp.bench_scaling): their shape, and that
the core accepts each of them, the largest included."""

from __future__ import annotations

import json

import pytest

import mmtcp
from mmtcp.bench import target_lines
from mmtcp.bench_scaling import bottleneck, scenarios, star, star10m, write_scenarios

pytestmark = pytest.mark.core


def test_a_star_gives_each_ue_its_own_link_and_flow():
    s = star(10)
    names = [n["name"] for n in s["node"]]
    assert names[:2] == ["server", "bs"]
    assert len(names) == 12
    assert [link["between"] for link in s["link"][1:]] == [["bs", f"ue{i}"] for i in range(1, 11)]
    assert [f["to"] for f in s["flow"]] == [f"ue{i}" for i in range(1, 11)]
    assert s["link"][0]["rate"] == "400Mbps", "the feeding link carries every UE at twice its rate"


def test_a_bottleneck_is_shared_by_every_flow():
    s = bottleneck(100)
    assert len(s["flow"]) == 100
    assert {(f["from"], f["to"]) for f in s["flow"]} == {("server", "client")}
    assert s["link"][1]["rate"] == "10Gbps"


def test_every_scaling_scenario_is_valid_and_written_as_json(tmp_path):
    paths = write_scenarios(tmp_path)
    assert [p.stem for p in paths] == list(scenarios())
    assert [p.stem for p in paths] == [
        "bottleneck-1",
        "bottleneck-100",
        "bottleneck-1000",
        "bottleneck-10000",
        "star-10",
        "star-100",
        "star-1000",
        "star-10000",
        "star10m-10",
        "star10m-1000",
        "star10m-10000",
    ]
    for path in paths:
        resolved = mmtcp.validate(path)
        interval = {"star10m-10000": "100us"}.get(
            path.stem, "10ms" if "10m" in path.stem else "100ms"
        )
        assert f'interval = "{interval}"' in resolved, path
    assert len(json.loads(paths[-1].read_text())["flow"]) == 10_000
    assert len(json.loads(paths[-4].read_text())["flow"]) == 10_000


def test_issue_28s_star_has_10_mbps_100_packet_access_links():
    s = star10m(1000)
    assert len(s["flow"]) == 1000
    access = s["link"][1:]
    assert {(a["rate"], a["buffer"]) for a in access} == {("10Mbps", "100pkt")}
    assert s["link"][0]["rate"] == "40Gbps"
    assert star10m(10_000)["simulation"]["duration"] == "1ms"


def test_the_targets_of_issue_28_are_judged_from_the_rows():
    rows = {
        "star10m-10000": {
            "total_seconds": 2.5,
            "peak_rss_bytes": 450e6,
            "setup_seconds": 0.3,
            "wall_seconds": 0.01,
            "events": 10,
        },
        "star10m-1000": {
            "output_seconds": 0.5,
            "total_seconds": 2.0,
            "wall_seconds": 4.0,
            "events": 10**7,
        },
        "star10m-10": {"wall_seconds": 1.0, "events": 10**7},
    }
    lines = target_lines(rows)
    assert lines[0] == "star10m-10000 end to end < 3 s: 2.50 s (met)"
    assert lines[1] == "star10m-10000 peak < 400 MB: 450 MB (missed)"
    assert lines[3] == "star10m-1000 output < 20 % of wall time: 25.0 % (missed)"
    assert (
        lines[4] == "star10m-1000 cost per event < 2x star10m-10's: 400 / 100 ns = 4.00x (missed)"
    )
    assert len(lines) == 5, "the bench's own star has no rows here"
