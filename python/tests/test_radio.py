"""The radio stack seen from Python: a `[link.radio]` scenario through `mmtcp.run`, its summary
and time-series columns, the plots, and the polese2017-retx experiment end to end (quick)."""

from __future__ import annotations

import json
import math

import pytest
from helpers import REPO, assert_claims_json

import mmtcp

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

RADIO = {
    "simulation": {"duration": "1s"},
    "node": [{"name": "ue"}, {"name": "enb"}],
    "link": [
        {
            "name": "air",
            "between": ["ue", "enb"],
            "kind": "radio",
            "radio": {
                "channel": {"kind": "cellular", "distance_m": 60.0, "state_dwell": "100ms"},
                "rlc": {"mode": "am"},
            },
        }
    ],
    "flow": [
        {"name": "up", "from": "ue", "to": "enb", "app": {"kind": "bulk", "rate_limit": "300Mbps"}}
    ],
}


@pytest.mark.core
def test_a_radio_run_reports_its_stack(tmp_path):
    result = mmtcp.run(RADIO)
    direction = result.summary["links"][0]["directions"][0]
    radio = direction["radio"]
    assert radio["tb_attempts"] > 0
    assert (
        radio["harq"]["first_attempts"] + radio["harq"]["retransmissions"] == radio["tb_attempts"]
    )
    assert radio["rlc"]["sdus_delivered"] > 0
    ts = result.timeseries
    for column in ("sinr_db", "mcs", "capacity_bps", "throughput_bps"):
        assert f"link.air.fwd.{column}" in ts.columns
    mcs = ts["link.air.fwd.mcs"].dropna()
    assert ((mcs >= 0) & (mcs <= 28)).all(), "NR MCS indices"
    sinr = ts["link.air.fwd.sinr_db"]
    assert all(math.isfinite(v) or v == -math.inf for v in sinr)
    assert result.summary["flows"][0]["goodput_bps"] > 100e6
    paths = result.plot(tmp_path / "plots")
    assert "radio.png" in {p.name for p in paths}
    assert all(p.read_bytes().startswith(PNG_MAGIC) for p in paths)


def test_a_bad_radio_key_is_a_scenario_error():
    bad = {**RADIO, "link": [{**RADIO["link"][0], "radio": {"channel": {"kind": "constant"}}}]}
    with pytest.raises(mmtcp.ScenarioError, match=r"link\[0\]\.radio\.channel.*sinr_db"):
        mmtcp.validate(bad)


@pytest.mark.core
def test_polese2017_retx_quick_reproduces_with_figures(cli, tmp_path):
    proc = cli("reproduce", "polese2017-retx", "--quick", "--workers", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out" / "reproduce" / "polese2017-retx-quick"
    rows = (out / "points.csv").read_text().splitlines()
    assert len(rows) == 1 + 15
    for name in ("throughput.png", "latency.png", "trace.png", "download.png", "am_gain.png"):
        assert (out / "figures" / name).read_bytes().startswith(PNG_MAGIC), name
    gains = (out / "figures" / "am_gain.csv").read_text().splitlines()
    assert gains[0] == "reading,distance,workload,baseline,quantity,mean,ci95,seeds"
    assert any(line.startswith("paper setting,150 m,bulk,") for line in gains)
    assert (REPO / "experiments" / "polese2017" / "retx" / "README.md").is_file()
    entries = {e["id"]: e for e in assert_claims_json(out, "polese2017-retx")}
    headlines = {i: e["source"] for i, e in entries.items() if e["headline"]}
    assert headlines == {
        "retx-needed-for-high-throughput": "Polese et al. 2017a",
        "retx-add-latency": "Polese et al. 2017b",
    }
    states = {"state-los", "state-nlos"}
    bulk_readings = {"redraw-1s", "bler-1e-4", "redraw-1s-bler-1e-4"} | states
    for entry in entries.values():
        # The downloads exist at the setting, under redraw-1s and the two states only; the quick
        # run has no reading's points, and no 75 m point: those cases lack their points, the
        # others not.
        downloads = "download" in entry["id"] or entry["id"] == "am-shortens-downloads"
        assert set(entry["readings"]) == ({"redraw-1s"} | states if downloads else bulk_readings)
        assert set(entry["readings"].values()) == {"not testable"}, entry["id"]
        for case in entry["cases"]:
            if "75 m" in case["label"]:
                assert case["verdict"] == "not testable", (entry["id"], case)
            if case["verdict"] == "not testable":
                # No point, or too few finished downloads (a 150 m draw can be an outage).
                note = case["note"]
                assert "no such point" in note or "a verdict needs" in note, (entry["id"], case)
    cases = {e["id"]: {c["label"]: c for c in e["cases"]} for e in entries.values()}
    # HARQ reaches TCP: at 150 m HARQ + RLC AM carries several times what CUBIC gets without
    # it, and at 50 m the 5 MB download without HARQ takes longer.
    assert cases["retx-1.5-to-3x"]["150 m"]["value"] > 3
    points = json.loads((out / "points.json").read_text())

    def download_time(harq: bool, mode: str) -> float:
        wanted = {
            "link.air.radio.channel.distance_m": 50.0,
            "link.air.radio.harq.enabled": harq,
            "link.air.radio.rlc.mode": mode,
            "flow.tcp.app.kind": "download",
            "flow.tcp.app.size": "5MB",
        }
        (point,) = [p for p in points if p["overrides"] == wanted]
        return point["metrics"]["flows.tcp.completion_seconds"]["mean"]

    assert download_time(False, "um") > 1.5 * download_time(True, "am")
    # "Lower by a minimal amount" is a comparison: identical AM and UM runs (a tie) fail it.
    slightly = entries["am-slightly-lower-50m"]
    assert slightly["kind"] == "less"
    assert slightly["bounds"][1] == pytest.approx(1 / 1.01)
    assert slightly["value"] != 1 or slightly["verdict"] == "fails"


@pytest.mark.core
def test_the_80211ad_generator_writes_a_trace_the_channel_replays(cli, tmp_path):
    text = mmtcp.ieee80211ad_trace("b")
    header, *lines = text.splitlines()
    assert header == "time,tx_deg,rx_deg,power_dbm"
    pairs = {tuple(line.split(",")[1:3]) for line in lines}
    assert len(pairs) == 49, "7 TX x 7 RX beams, -30 to 30 degrees in 10-degree steps"
    trace = tmp_path / "b.csv"
    proc = cli("ieee80211ad-trace", "b", "--set", "speed=0.2", "--out", trace)
    assert proc.returncode == 0, proc.stderr
    assert trace.read_text() != text, "a faster blocker gives another trace"
    scenario = {
        **RADIO,
        "link": [
            {
                **RADIO["link"][0],
                "radio": {
                    "bandwidth": "500MHz",
                    "amc": {"table": "ieee80211ad_sc"},
                    "channel": {
                        "kind": "ieee80211ad",
                        "source": {"kind": "trace", "file": str(trace), "repeat": True},
                    },
                },
            }
        ],
        "simulation": {"duration": "8s"},
    }
    mcs = mmtcp.run(scenario).timeseries["link.air.fwd.mcs"]
    assert mcs.max() == 12
    assert mcs.min() <= 10, "the blocker crossing the path costs at least two MCS indices"


def test_a_bad_generator_key_is_bad_input(cli):
    proc = cli("ieee80211ad-trace", "a", "--set", "speed=-1")
    assert proc.returncode == 2
    assert "speed" in proc.stderr
