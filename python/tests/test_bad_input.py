"""Bad scenarios, traces and overrides: exit 2, one line on stderr naming the file and the
field, no traceback; `ScenarioError` from the API. These need the simulation core."""

from __future__ import annotations

import re

import pytest
from helpers import REPO, SCENARIOS, assert_bad_input

import mmtcp

pytestmark = pytest.mark.core

BAD = SCENARIOS / "bad"


@pytest.fixture(params=["run", "validate"])
def command(request) -> str:
    return request.param


def test_unknown_key(cli, command, tmp_path):
    proc = cli(command, BAD / "unknown-key.toml", cwd=tmp_path)
    assert_bad_input(proc, "unknown-key.toml", "bogus")


def test_negative_rate(cli, command, tmp_path):
    proc = cli(command, BAD / "negative-rate.toml", cwd=tmp_path)
    assert_bad_input(proc, "negative-rate.toml", "link[0].rate", "-5Gbps")


def test_link_to_a_missing_node(cli, command, tmp_path):
    proc = cli(command, BAD / "missing-node.toml", cwd=tmp_path)
    assert_bad_input(proc, "missing-node.toml", "atlantis")


def test_malformed_trace(cli, command, tmp_path):
    proc = cli(command, BAD / "malformed-trace.toml", cwd=tmp_path)
    line = assert_bad_input(proc, "malformed.csv")
    assert re.search(r"\bline 4\b", line), line


def test_unknown_override_path(cli, command, tmp_path):
    proc = cli(command, SCENARIOS / "small.toml", "--set", "link.0.wibble=3", cwd=tmp_path)
    assert_bad_input(proc, "small.toml", "wibble")


def test_bad_override_value(cli, command, tmp_path):
    proc = cli(command, SCENARIOS / "small.toml", "--set", "link.0.rate=-5Gbps", cwd=tmp_path)
    assert_bad_input(proc, "small.toml", "rate", "-5Gbps")


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("unknown-key", "bogus"),
        ("negative-rate", "link[0].rate"),
        ("missing-node", "atlantis"),
        ("malformed-trace", "malformed.csv"),
    ],
)
def test_api_raises_scenario_error(name, fragment):
    with pytest.raises(mmtcp.ScenarioError, match=re.escape(fragment)) as error:
        mmtcp.run(BAD / f"{name}.toml")
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match=re.escape(fragment)):  # a ScenarioError is a ValueError
        mmtcp.validate(BAD / f"{name}.toml")


def test_dict_scenario_errors_name_the_dict():
    with pytest.raises(mmtcp.ScenarioError, match="<dict>"):
        mmtcp.validate({"simulation": {"duration": "1s", "bogus": 1}})


def test_a_path_through_nodes_no_link_joins(cli, command, tmp_path):
    scenario = REPO / "scenarios" / "lte-and-28ghz.toml"
    path = 'flow.0.path=["server", "ue"]'
    proc = cli(command, scenario, "--set", path, cwd=tmp_path)
    assert_bad_input(proc, "lte-and-28ghz.toml", "flow[0].path", "not neighbours")


def test_a_path_that_does_not_choose_among_parallel_links(cli, command, tmp_path):
    scenario = REPO / "scenarios" / "lte-and-28ghz.toml"
    path = 'flow.1.path=["server", "enb", "ue"]'
    proc = cli(command, scenario, "--set", path, cwd=tmp_path)
    assert_bad_input(proc, "flow[1].path", "several links join", "lte, mmw")


def test_an_autotuned_receive_buffer_runs_and_its_bad_values_are_refused(cli, command, tmp_path):
    scenario = SCENARIOS / "small.toml"
    # The linux profile autotunes by default: flow 0 only sets its maximum, flow 1 a fixed size.
    overrides = {
        "flow.0.transport.receive_buffer_max": "8MiB",
        "flow.1.transport.receive_buffer": "6MiB",
    }
    result = mmtcp.run(scenario, overrides=overrides)
    buffer = result.summary["flows"][0]["receive_buffer"]
    assert buffer["max_bytes"] == 8 << 20
    assert 87380 <= buffer["final_bytes"] <= 8 << 20
    assert "receive_buffer" not in result.summary["flows"][1], "a fixed buffer reports none"
    transport = "flow[0].transport"
    fixed = "flow.0.transport.receive_buffer=6MiB"
    bad = [
        (["flow.0.transport.receive_buffer=automatic"], f"{transport}.receive_buffer"),
        ([fixed, "flow.0.transport.receive_buffer_max=32MiB"], f"{transport}.receive_buffer_max"),
    ]
    for sets, field in bad:
        args = [arg for override in sets for arg in ("--set", override)]
        proc = cli(command, scenario, *args, cwd=tmp_path)
        assert_bad_input(proc, "small.toml", field, '"auto"')
