"""The generated scaling scenarios of `mmtcp bench` (mmtcp.bench_scaling): their shape, and that
the core accepts each of them, the largest included."""

from __future__ import annotations

import json

import pytest

import mmtcp
from mmtcp.bench_scaling import bottleneck, scenarios, star, write_scenarios

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
    ]
    for path in paths:
        resolved = mmtcp.validate(path)
        assert 'interval = "100ms"' in resolved, path
    assert len(json.loads(paths[-1].read_text())["flow"]) == 10_000
