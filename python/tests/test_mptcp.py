"""Multipath TCP from Python: a run's summary lists the subflows and its time series has their
columns; Polese et al. 2017a's MP-TCP and ACK-path experiments reproduce end to end (quick)."""

from __future__ import annotations

import pytest
from helpers import REPO, assert_claims_json

import mmtcp

SCENARIO = REPO / "scenarios" / "mptcp-lte-28ghz.toml"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.mark.core
def test_an_mptcp_run_has_its_subflows_in_the_summary_and_the_series():
    result = mmtcp.run(SCENARIO, overrides={"simulation.duration": "1s"})
    (flow,) = result.summary["flows"]
    assert flow["transport"] == "mptcp"
    assert [s["path"] for s in flow["subflows"]] == [
        ["ue", "enb", "server"],
        ["ue", "enb", "server"],
    ]
    assert sum(s["share"] for s in flow["subflows"]) == pytest.approx(1.0)
    assert flow["mptcp"]["scheduler"] == "minrtt"
    columns = set(result.timeseries.columns)
    for column in [
        "flow.upload.goodput_bps",
        "flow.upload.reorder_buffer_bytes",
        "flow.upload.sf1.cwnd_bytes",
    ]:
        assert column in columns
    # The connection's goodput series adds up to what it delivered.
    delivered = result.timeseries["flow.upload.goodput_bps"].sum() * 0.01 / 8
    assert delivered == pytest.approx(flow["bytes_delivered"], rel=0.02)


@pytest.mark.core
def test_polese2017_ackpath_quick_reproduces_with_figures(cli, tmp_path):
    proc = cli("reproduce", "polese2017-ackpath", "--quick", "--workers", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out" / "reproduce" / "polese2017-ackpath-quick"
    rows = (out / "points.csv").read_text().splitlines()
    assert len(rows) == 1 + 4
    assert (out / "figures" / "throughput.png").read_bytes().startswith(PNG_MAGIC)
    entries = assert_claims_json(out, "polese2017-ackpath")
    tested = [e for e in entries if e["verdict"] != "not testable"]
    assert [e["id"] for e in tested] == [e["id"] for e in entries if e["id"].endswith("-5ms")]


@pytest.mark.core
def test_mptcp_design_goals_quick_reproduces_with_figures(cli, tmp_path):
    proc = cli("reproduce", "mptcp-design-goals", "--quick", "--workers", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out" / "reproduce" / "mptcp-design-goals-quick"
    rows = (out / "points.csv").read_text().splitlines()
    assert len(rows) == 1 + 6
    assert (out / "figures" / "goals.png").read_bytes().startswith(PNG_MAGIC)
    entries = {e["id"]: e for e in assert_claims_json(out, "mptcp-design-goals")}
    # Goal 2 compares two flows at one point: testable at every controller the quick run has.
    for cc in ["cubic", "lia", "olia", "balia", "mpcubic"]:
        assert entries[f"goal2-{cc}"]["verdict"] != "not testable", entries[f"goal2-{cc}"]
        assert entries[f"goal1-{cc}-64mib"]["verdict"] != "not testable"


@pytest.mark.core
def test_polese2017_mptcp_quick_reproduces_with_figures(cli, tmp_path):
    proc = cli("reproduce", "polese2017-mptcp", "--quick", "--workers", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out" / "reproduce" / "polese2017-mptcp-quick"
    rows = (out / "points.csv").read_text().splitlines()
    assert len(rows) == 1 + 7
    for name in ("throughput.png", "subflows.png", "trace.png"):
        assert (out / "figures" / name).read_bytes().startswith(PNG_MAGIC), name
    entries = {e["id"]: e for e in assert_claims_json(out, "polese2017-mptcp")}
    for claim in ["gain-over-sp-150m", "balia-misses-goal1-50m", "olia-steers-to-lte-50m"]:
        assert entries[claim]["verdict"] != "not testable", entries[claim]
