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
    import json

    proc = cli("reproduce", "polese2017-ackpath", "--quick", "--workers", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out" / "reproduce" / "polese2017-ackpath-quick"
    rows = (out / "points.csv").read_text().splitlines()
    assert len(rows) == 1 + 4
    assert (out / "figures" / "throughput.png").read_bytes().startswith(PNG_MAGIC)
    entries = {e["id"]: e for e in assert_claims_json(out, "polese2017-ackpath")}
    assert [i for i, e in entries.items() if e["headline"]] == ["lte-acks-no-clear-gain"]
    # One claim per statement, the speeds its cases: the quick run has the 5 m/s points only, so
    # every 2 m/s case (and no 5 m/s one) lacks its points, and no reading has points there.
    obstacles = {"obstacles-0.5-2m", "obstacles-8-20m"}
    # lte-uma-fading changes the ACK-on-LTE points only: the claims that select one have it.
    assert "lte-uma-fading" in entries["lte-acks-no-clear-gain"]["readings"]
    for entry in entries.values():
        assert obstacles <= set(entry["readings"]) <= obstacles | {"lte-uma-fading"}, entry["id"]
        assert set(entry["readings"].values()) == {"not testable"}, entry["id"]
        for case in entry["cases"]:
            if "2 m/s" in case["label"]:
                assert case["verdict"] == "not testable", (entry["id"], case)
                assert "no such point" in case["note"], (entry["id"], case)
            else:
                assert "5 m/s" in case["label"], (entry["id"], case)
                assert case["n"] == 3, (entry["id"], case)
    cases = {e["id"]: {c["label"]: c for c in e["cases"]} for e in entries.values()}
    # The ACK link and the RLC buffer reach the results: LTE ACKs lengthen the RTT, and 2 MB of
    # RLC buffer carries less than 20 MB.
    assert cases["lte-acks-raise-rtt"]["2 MB, 5 m/s"]["value"] > 1.1
    undersized = cases["undersized-buffer-up-to-27pct"]
    assert all(undersized[f"ACKs on {link}, 5 m/s"]["value"] < 0.9 for link in ("mmWave", "LTE"))
    # The level pools the two ACK links seed by seed: the mean of the two 20 MB points.
    points = json.loads((out / "points.json").read_text())
    large = [
        p["metrics"]["flows.tcp.goodput_bps"]["mean"]
        for p in points
        if p["overrides"]["link.mmw.radio.rlc.buffer"] == "20MB"
    ]
    assert len(large) == 2
    assert cases["level-20mb"]["5 m/s"]["value"] == pytest.approx(sum(large) / 2)


@pytest.mark.core
def test_mptcp_design_goals_quick_reproduces_with_figures(cli, tmp_path):
    proc = cli("reproduce", "mptcp-design-goals", "--quick", "--workers", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out" / "reproduce" / "mptcp-design-goals-quick"
    rows = (out / "points.csv").read_text().splitlines()
    assert len(rows) == 1 + 6
    assert (out / "figures" / "goals.png").read_bytes().startswith(PNG_MAGIC)
    entries = {e["id"]: e for e in assert_claims_json(out, "mptcp-design-goals")}
    # One claim per statement: Polese et al.'s three, then the goals per controller (own).
    assert [e["id"] for e in entries.values() if not e["own"]] == [
        "balia-misses-goal1",
        "cubic-misses-goal2",
        "no-controller-meets-all-goals",
    ]
    assert all(entries[i]["headline"] for i in ["balia-misses-goal1", "cubic-misses-goal2"])
    assert entries["no-controller-meets-all-goals"]["verdict"] == "not testable"
    # The quick run has the 64 MiB points (the paper's setting) of every controller but NewReno:
    # every goal is judged there, none under a reading (the readings' points are not run).
    untestable = {i for i, e in entries.items() if e["verdict"] == "not testable"}
    assert untestable == {"no-controller-meets-all-goals", "goal1-newreno"}, untestable
    assert all(
        v == "not testable"
        for e in entries.values()
        for v in e["readings"].values()
        if e["id"] != "goal2-coupled"
    )
    # Goal 2 compares two flows at one point: the coupled controllers are the cases of one claim.
    goal2 = entries["goal2-coupled"]
    assert [c["label"] for c in goal2["cases"]] == ["lia", "olia", "balia", "mpcubic"]
    assert all(c["verdict"] != "not testable" for c in goal2["cases"]), goal2
    # g1's buffer and RLC readings do not touch goals 2 and 3 (other links): not judged under them.
    assert set(goal2["readings"]) == {"linux-v0.90"}
    assert entries["cubic-misses-goal2"]["readings"] == {}
    assert set(entries["goal1-lia"]["readings"]) == {
        "conn-6mib",
        "conn-1gib",
        "lte-rlc-10kib",
        "linux-v0.90",
    }
    assert set(entries["goal1-cubic"]["readings"]) == {"conn-6mib", "conn-1gib", "lte-rlc-10kib"}
    # Goal 1's reference is single-path CUBIC on 28 GHz at the same seed: the ratio of the
    # uncoupled CUBIC flow, whose LTE subflow adds a few per cent, is near 1, BALIA's well below.
    assert 0.8 < entries["goal1-cubic"]["value"] < 1.2, entries["goal1-cubic"]
    assert entries["balia-misses-goal1"]["value"] < entries["goal1-cubic"]["value"]
    # Goals 2 and 3 are judged in the steady state (metrics.steady_from: 4 s of the quick 8 s);
    # the goodput and share from the flows' start are reported beside it.
    assert goal2["metric"] == "flows.g2.steady_goodput_bps / flows.g2-sp.steady_goodput_bps"
    assert entries["goal3-lia"]["metric"] == "flows.g3.subflows.0.steady_share"
    header = rows[0].split(",")
    for metric in ("g2.goodput_bps", "g2.steady_goodput_bps", "g3.subflows.0.share"):
        assert f"flows.{metric}.mean" in header, metric


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
    # One claim per statement (Fig. 5's "LTE better for d >= 100 m" is one claim with 9 cases),
    # with the levels the papers' gains imply.
    assert len(entries) == 25
    beats = entries["lte-beats-73"]
    assert beats["headline"]
    assert beats["quantifier"] == "all"
    assert len(beats["cases"]) == 9
    assert beats["cases"][-1]["label"] == "75 m, cubic"
    assert entries["balia-misses-goal1"]["quantifier"] == "2 of 4"
    for claim in ("cubic-misses-goal2", "fig8-olia-balia-lte-only"):
        assert entries[claim]["verdict"] == "not testable", claim
        assert entries[claim]["why"], claim
    # The quick run has 150 m and 50 m: the claims whose points are all there are judged.
    for claim in [
        "sp-level-50m",
        "sp-level-150m",
        "gain-over-sp-150m",
        "gain-above-lte-rate-150m",
        "lte-close-or-worse-50m",
        "balia-much-worse-50m",
        "lte-less-distance-dependent",
        "no-latency-increase-150m",
    ]:
        assert entries[claim]["verdict"] != "not testable", entries[claim]
    # LTE's 20 MHz uplink carries tens of Mbit/s beside gigabits on 28 GHz.
    assert entries["lte-rate-level-150m"]["verdict"] == "holds", entries["lte-rate-level-150m"]
    assert entries["lte-rate-below-mmwave-50m"]["verdict"] == "holds"
    # Readings: the single-path reference follows the buffer readings through its whole-table
    # transport, not the LTE RLC one nor the controllers' Linux forms; the downloads of Fig. 7
    # (73 GHz against LTE) are judged at the setting only.
    assert set(entries["sp-level-150m"]["readings"]) == {
        "conn-6mib",
        "conn-1gib",
        "redraw-1s",
        "redraw-1s-conn-1gib",
    }
    assert set(entries["fig9b-cubic-fifth-of-balia"]["readings"]) == {
        "conn-1gib",
        "redraw-1s",
        "linux-v0.90",
    }
    assert entries["fig7-mmw-secondary-faster"]["readings"] == {}
    from mmtcp.reproduce import find_experiment

    experiment = find_experiment("polese2017-mptcp", [REPO / "experiments"])
    (claim,) = [c for c in experiment.claims if c.id == "lte-beats-73"]
    setting, rlc = claim.variants["setting"][0].terms, claim.variants["lte-rlc-10kib"][0].terms
    assert rlc[0].selector == {**setting[0].selector, "link.lte.radio.rlc.buffer": "10KiB"}
    assert rlc[1].selector == setting[1].selector  # the 73 GHz side keeps the setting's point
    (level,) = [c for c in experiment.claims if c.id == "sp-level-150m"]
    (conn,) = level.variants["conn-6mib"][0].terms
    assert conn.selector["flow.mp.transport"]["receive_buffer"] == "6MiB"
