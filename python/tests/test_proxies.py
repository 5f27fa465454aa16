"""Proxies seen from Python: a node's `processors` through `mmtcp.run`, their summary entries and
time-series columns, the run report, a sweep over the schemes, and the kim2017 and drago2019
experiments end to end (quick), each writing its claims.json."""

from __future__ import annotations

import json
import re

import pytest
from helpers import REPO, assert_claims_json

import mmtcp
from mmtcp.report import run_report
from mmtcp.reproduce import load_experiment

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
    "kim2017-fig5": (8, ["delivery_ratio.png", "rate.png", "results.md", "timeline.png"]),
    "kim2017-fig6": (9, ["delivery_ratio.png", "rate.png", "results.md"]),
}


# The LOS / NLOS durations of the kim2017 quick versions: a claim's case whose label names only
# these is judged there (3 seeds), every other case is "not testable".
KIM2017_QUICK_DURATIONS = {"kim2017-fig5": {"0.5", "2"}, "kim2017-fig6": {"2", "15"}}


def _assert_kim2017_quick_cases(entries: list[dict], durations: set[str]) -> None:
    judged = 0
    for entry in entries:
        for case in entry["cases"]:
            named = set(re.findall(r"(\d+(?:\.\d+)?) s\b", case["label"]))
            if named and named <= durations:
                assert case["verdict"] != "not testable", (entry["id"], case)
                assert case["n"] == 3, (entry["id"], case)
                judged += 1
            else:
                assert case["verdict"] == "not testable", (entry["id"], case)
    assert judged >= 10, judged


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
    entries = assert_claims_json(out, name)
    if name in KIM2017_QUICK_DURATIONS:
        _assert_kim2017_quick_cases(entries, KIM2017_QUICK_DURATIONS[name])


def _drago_quick(cli, tmp_path, name: str, points: int, figures: list[str]) -> dict[str, dict]:
    """Runs experiment `name`'s quick version, checks its points, figures and claims.json, and
    returns its claims by id."""
    proc = cli("reproduce", name, "--quick", "--workers", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out" / "reproduce" / f"{name}-quick"
    assert len((out / "points.csv").read_text().splitlines()) == 1 + points
    assert sorted(p.name for p in (out / "figures").iterdir()) == figures
    for figure in figures:
        if figure.endswith(".png"):
            assert (out / "figures" / figure).read_bytes().startswith(PNG_MAGIC), figure
    return {entry["id"]: entry for entry in assert_claims_json(out, name)}


@pytest.mark.core
def test_drago2019_rtt_quick_judges_the_outage_reading_and_separates_the_start_up(cli, tmp_path):
    timelines = [
        f"timeline_{s}_r{w}.png" for s in ("cubic", "proactive", "reactive") for w in (10, 30)
    ]
    figures = ["blockage_rtt_r10.png", "blockage_rtt_r30.png", "blockage_window.csv"]
    figures += ["rtt_percentiles_r30.png", "throughput_r30.png", *timelines]
    claims = _drago_quick(cli, tmp_path, "drago2019-rtt", 3, sorted(figures))
    # The quick grid is the walls-30db reading only (B, 35 dB): nothing at the setting (10 dB
    # walls), the outage reading judged.
    testable = {k: c for k, c in claims.items() if k != "reactive-under-70ms"}
    assert {c["verdict"] for c in testable.values()} == {"not testable"}
    outage = {k: c["readings"]["walls-30db"] for k, c in testable.items()}
    assert outage["cubic-rto"] == "holds"  # CUBIC times out through the outages
    assert outage["cubic-below-10mbps"] == "holds"  # the burst meter's 100 ms rates see them
    assert outage["reactive-follows-link"] == "holds"  # the pinned window follows the rate
    assert outage["cubic-rtt-peak-200ms"] == "fails"  # seconds of RTT, not 200 ms
    untestable = claims["reactive-under-70ms"]
    assert (untestable["summary"], untestable["readings"]) == ("not testable", {})
    # The time-plot runs separate the start-up: at the setting each proxy's highest RTT after
    # 2 s stays below 70 ms, below the whole run's, which the start-up sets (README).
    csv = tmp_path / "out/reproduce/drago2019-rtt-quick/figures/blockage_window.csv"
    rows = [line.split(",") for line in csv.read_text().splitlines()]
    table = {(r[0], r[1]): dict(zip(rows[0], r, strict=True)) for r in rows[1:]}
    for scheme in ("reactive", "proactive"):
        row = table[("10", scheme)]
        assert float(row["max_rtt_after_2s_ms"]) < 70.0 < float(row["max_rtt_first_2s_ms"])
        assert float(row["share_100ms_below_10mbps"]) == 0.0
    assert float(table[("30", "cubic")]["share_100ms_below_10mbps"]) > 0.1


@pytest.mark.core
def test_drago2019_throughput_quick_judges_the_30s_reading(cli, tmp_path):
    figures = ["throughput.csv", "throughput_per_scenario_r10.png", "throughput_r10.png"]
    claims = _drago_quick(cli, tmp_path, "drago2019-throughput", 6, figures)
    assert {c["verdict"] for c in claims.values()} == {"not testable"}  # no 150 s run
    assert all(c["headline"] for k, c in claims.items() if k != "reactive-more-than-double")
    run_30s = {k: c["readings"]["run-30s"] for k, c in claims.items()}
    # Pooled over A and B, seed by seed, as Fig. 10: both proxies above CUBIC, proactive below
    # reactive.
    assert run_30s["policies-beat-cubic-throughput"] == "holds"
    assert run_30s["proactive-below-reactive"] == "holds"


def _kim2017(figure: str):
    """kim2017's experiment in experiments/kim2017/<figure>: its claims and its recorded
    claims.json, by id."""
    directory = REPO / "experiments" / "kim2017" / figure
    experiment = load_experiment(directory / "experiment.toml")
    entries = json.loads((directory / "claims.json").read_text(encoding="utf-8"))
    return {c.id: c for c in experiment.claims}, {e["id"]: e for e in entries}


def _leaves(case) -> list[dict]:
    return [leaf for term in case.terms for leaf in term.leaves()]


def _nlos(leaf: dict) -> str:
    return leaf["link.air.radio.channel"]["nlos_duration"]


@pytest.mark.parametrize("figure", ["fig5", "fig6"])
def test_kim2017_claims_are_the_papers_sentences_at_one_setting(figure):
    claims, entries = _kim2017(figure)
    assert list(claims) == list(entries)
    assert not any(e["own"] for e in entries.values())  # no converse passes for the paper's
    assert all(e["source"] == "Kim et al." for e in entries.values())
    # The abstract's results, once: in Fig. 5 (Fig. 6's "similar tendencies" repeat them).
    headlines = {
        "mmpep-highest-rate",
        "mmpep-near-100mbps",
        "tcp-rate-quite-low",
        "mmpep-3x-pep-delivery",
    }
    if figure == "fig6":
        headlines = set()
    assert {i for i, e in entries.items() if e["headline"]} == headlines
    buffers = {"rlc-1MB": "1MB", "rlc-10MB": "10MB", "rlc-unbounded": "4GB"}
    for claim in claims.values():
        for case in claim.variants["setting"]:
            for leaf in _leaves(case):
                # the setting: RLC 3 MB, no radio-link failure, PEP's "first" timer within the
                # mobile's window (the sweep's other PEP variants are no claim's)
                assert leaf["link.air.radio.rlc.buffer"] == "3MB", claim.id
                assert "link.air.radio.rlf_timeout" not in leaf, claim.id
                for processor in leaf["node.bs.processors"]:
                    assert set(processor) <= {"kind", "cache"}, claim.id
        # each RLC reading moves every point of the claim to its buffer, nothing else
        for reading, buffer in buffers.items():
            if claim.id == "link-capacity-gbps":
                assert reading not in claim.variants
                continue
            for setting, read in zip(
                claim.variants["setting"], claim.variants[reading], strict=True
            ):
                for a, b in zip(_leaves(setting), _leaves(read), strict=True):
                    assert b == {**a, "link.air.radio.rlc.buffer": buffer}, claim.id
        # PEP's other rules change PEP's points only
        for reading, rule in (
            ("pep-go-back-n", {"timeout": "go_back_n"}),
            ("pep-past-window", {"mobile_window": False}),
        ):
            if reading not in claim.variants:
                continue
            for setting, read in zip(
                claim.variants["setting"], claim.variants[reading], strict=True
            ):
                for a, b in zip(_leaves(setting), _leaves(read), strict=True):
                    (kinds,) = {tuple(p["kind"] for p in a["node.bs.processors"])}
                    # go-back-N ran at every point; past-window at NLOS 5-20 s only
                    if kinds == ("pep",) and reading == "pep-go-back-n":
                        assert b != a, claim.id
                    if kinds == ("pep",) and b != a:
                        assert b["node.bs.processors"] == [
                            {**a["node.bs.processors"][0], **rule}
                        ], claim.id
                    else:
                        assert b == a, claim.id
    assert "pep-go-back-n" in claims["mmpep-highest-rate"].variants
    # "mmPEP has the highest rate": mmPEP over PEP and over TCP at each duration, nothing about
    # PEP against TCP
    highest = claims["mmpep-highest-rate"]
    cases = highest.variants["setting"]
    assert len(cases) == 12
    assert {tuple(p["kind"] for p in _leaves(c)[0]["node.bs.processors"]) for c in cases} == {
        ("mmpep",)
    }
    assert {tuple(p["kind"] for p in _leaves(c)[1]["node.bs.processors"]) for c in cases} == {
        ("pep",),
        (),
    }
    assert (highest.kind, highest.min_effect) == ("greater", 0.05)
    assert entries["mmpep-near-100mbps"]["bounds"] == pytest.approx([85e6, 115e6])
    assert entries["tcp-rate-quite-low"]["bounds"] == [None, 50e6]


def test_kim2017_fig5_the_gap_growing_as_los_shortens_is_one_order_over_the_whole_axis():
    claims, entries = _kim2017("fig5")
    gap = claims["pep-gap-grows-as-los-shortens"]
    assert (gap.kind, gap.direction, gap.min_difference) == ("order", "decreasing", 5e6)
    (case,) = gap.variants["setting"]
    assert [term.op for term in case.terms] == ["difference"] * 6
    durations = [[_nlos(leaf) for leaf in term.leaves()] for term in case.terms]
    assert durations == [[d, d] for d in ("0.5s", "1s", "1.5s", "2s", "2.5s", "3s")]
    kinds = [[leaf["node.bs.processors"][0]["kind"] for leaf in t.leaves()] for t in case.terms]
    assert kinds == [["mmpep", "pep"]] * 6
    assert len(entries["pep-gap-grows-as-los-shortens"]["cases"][0]["steps"]) == 5
    assert entries["mmpep-3x-pep-delivery"]["quantifier"] == "any"  # "can achieve"
    assert entries["mmpep-3x-pep-delivery"]["bounds"] == pytest.approx([2.55, 3.45])


def test_kim2017_fig6_the_gap_beyond_10s_and_the_radio_link_failure_readings():
    claims, entries = _kim2017("fig6")
    gap = claims["pep-gap-beyond-10s"]
    assert (gap.kind, gap.min_difference) == ("greater", 20e6)
    pairs = set()
    for case in gap.variants["setting"]:
        at, over = case.terms
        assert (at.op, over.op) == ("difference", "difference")
        (beyond,) = {_nlos(leaf) for leaf in at.leaves()}
        (within,) = {_nlos(leaf) for leaf in over.leaves()}
        pairs.add((beyond, within))
    assert pairs == {(b, w) for b in ("15s", "20s") for w in ("1s", "2s", "5s", "10s")}
    # Radio-link failure was run for the proxies at NLOS 5-20 s: the readings add it there only
    # (TCP, and NLOS 1-2 s, keep the setting's points).
    for reading in ("rlf-t310-1s", "rlf-t310-6s"):
        for case in claims["mmpep-highest-rate"].variants[reading]:
            for leaf in _leaves(case):
                proxy = bool(leaf["node.bs.processors"])
                long = _nlos(leaf) in ("5s", "10s", "15s", "20s")
                assert ("link.air.radio.rlf_timeout" in leaf) == (proxy and long), leaf
        assert reading in claims["timer-batches-beyond-15s"].variants
        assert reading not in claims["tcp-rate-quite-low"].variants  # TCP ran without it
    assert entries["link-capacity-gbps"]["by_reading"] == {}
    assert entries["link-capacity-gbps"]["bounds"] == [1e9, 10e9]
    (timer,) = claims["timer-batches-beyond-15s"].variants["setting"]
    (leaf,) = _leaves(timer)
    assert (_nlos(leaf), leaf["node.bs.processors"][0]["kind"]) == ("20s", "mmpep")
    assert {c["label"] for c in entries["delivery-gap-beyond-10s"]["cases"]} == {
        "NLOS 15 s",
        "NLOS 20 s",
    }
