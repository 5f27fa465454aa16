"""Wu et al.'s reproductions (`wu-cotag-*`): each quick version runs, draws its figures and writes
a claims.json with every claim of the experiment, some of them testable in the quick grid."""

from __future__ import annotations

import json

import pytest
from helpers import REPO

from mmtcp.reproduce import find_experiments, load_experiment

NAMES = sorted(
    e.name for e in find_experiments([REPO / "experiments"]) if e.name.startswith("wu-cotag-")
)
VERDICTS = {"holds", "fails", "not settled", "not testable"}


def test_every_figure_of_the_issue_has_an_experiment():
    assert NAMES == [
        "wu-cotag-fig10-12",
        "wu-cotag-fig13",
        "wu-cotag-fig14",
        "wu-cotag-fig15",
        "wu-cotag-fig16",
        "wu-cotag-fig17",
    ]


@pytest.mark.parametrize("name", NAMES)
def test_quick_version_writes_figures_and_claims(cli, tmp_path, name):
    out = tmp_path / "out"
    proc = cli("reproduce", name, "--quick", "--workers", "2", "--out", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    figures = sorted((out / "figures").glob("*.png"))
    assert figures, f"{name} drew no figure"
    assert all(f.stat().st_size > 10_000 for f in figures), figures
    experiment = next(e for e in find_experiments([REPO / "experiments"]) if e.name == name)
    entries = json.loads((out / "claims.json").read_text())
    assert [e["id"] for e in entries] == [c["id"] for c in experiment.config["claims"]]
    assert {e["verdict"] for e in entries} <= VERDICTS
    # a claim over many cases may be untestable as a whole in the quick grid (too few of its
    # cases there for its quantifier); its cases in the quick grid are judged all the same
    tested = [
        case
        for e in entries
        for case in (e["cases"] if len(e["cases"]) > 1 else [e])
        if case["verdict"] != "not testable"
    ]
    assert tested, f"no claim (or case of one) of {name} is testable in its quick grid"
    assert all(case["n"] == 3 for case in tested), tested
    if name == "wu-cotag-fig15":
        # the quick version judges the headline under the bounded core and the constant BER too
        readings = entries[0]["by_reading"]
        for reading in ("core-6Gbps", "per-constant-ber"):
            judged = [c for c in readings[reading]["cases"] if c["verdict"] != "not testable"]
            assert len(judged) == 4, (reading, judged)  # cubic and MP-TCP at PER 0 and 0.1 %


def _recorded(folder: str):
    """The experiment in experiments/wu-cotag/<folder> and its recorded claims.json by id."""
    directory = REPO / "experiments" / "wu-cotag" / folder
    experiment = load_experiment(directory / "experiment.toml")
    entries = json.loads((directory / "claims.json").read_text())
    return experiment, {e["id"]: e for e in entries}


def _delays(case):
    return {leaf["link.core.delay"] for term in case.terms for leaf in term.leaves()}


def test_fig10_12_the_rtt_reading_bears_only_on_the_claims_at_an_rtt_of_10_ms():
    experiment, entries = _recorded("fig10-12")
    claims = {c.id: c for c in experiment.claims}
    at_rtt = {"fig10-ideal-level", "fig10-half-at-10ms-rtt", "fig11-third-at-10ms-rtt"}
    reading = "rtt-10ms-is-latency-10ms"
    assert {i for i, c in claims.items() if reading in c.variants} == at_rtt
    for ident in at_rtt:  # the setting: the stated RTT, a 5 ms server-gateway delay
        ((setting,), (read,)) = (claims[ident].variants["setting"], claims[ident].variants[reading])
        assert (_delays(setting), _delays(read)) == ({"5ms"}, {"10ms"}), ident
    # the statements about the whole figure cover every latency, one case each
    cases = claims["fig10-fluctuations-reduce"].variants["setting"]
    assert [_delays(c) for c in cases] == [{"0ms"}, {"2.5ms"}, {"5ms"}, {"10ms"}]
    assert len(claims["fig12-dual-worse-with-latency"].variants["setting"]) == 9
    assert "0ms" not in set().union(
        *map(_delays, claims["fig12-dual-worse-with-latency"].variants["setting"])
    )
    # the level: the ideal link's payload rate, 414.8 Mbit/s, read with ±15 %
    assert entries["fig10-ideal-level"]["bounds"] == pytest.approx([0.85 * 414.8e6, 1.15 * 414.8e6])
    assert entries["fig10-fluctuations-reduce"]["bounds"] == pytest.approx([None, 1 / 1.1])
    headlines = {i for i, e in entries.items() if e["headline"]}
    assert headlines == {
        "fig10-fluctuations-reduce",
        "fig11-errors-decrease",
        "fig12-latency-degrades",
    }


def test_fig13_claims_follow_the_sentences():
    experiment, entries = _recorded("fig13")
    assert {i: e["quantifier"] for i, e in entries.items() if e["kind"]} == {
        "fig13-mptcp-drops-at-server": "all",
        "fig13-musher-drops-at-server": "all",
        "fig13a-mptcp-improves-on-cubic": "any",  # "in some cases"
        "fig13a-musher-improves-on-cubic": "any",
        "fig13a-cotag-outperforms-most": "10 of 18",  # "in most cases"
        "fig13b-cotag-better-at-server": "all",
    }
    assert entries["fig13-cubic-cotag-unchanged"]["verdict"] == "not testable"
    assert {i for i, e in entries.items() if e["headline"]} == {
        "fig13a-cotag-outperforms-most",
        "fig13b-cotag-better-at-server",
    }
    for claim in experiment.claims:
        if claim.kind is not None:  # a comparison with a minimum effect, over the six pairs
            assert claim.kind in ("greater", "less"), claim.id
            assert claim.min_effect == 0.05, claim.id
            others = 3 if claim.id.startswith(("fig13a-cotag", "fig13b-cotag")) else 1
            assert len(claim.variants["setting"]) == 6 * others
            # the bounded core changes every claim; COTAG's header only COTAG's; the pinned
            # subflows only the claims about the server's MP-TCP or MuSher
            expected = {"setting", "core-1Gbps"}
            if claim.id.startswith(("fig13a-cotag", "fig13b-cotag")):
                expected |= {"cotag-header-seed", "core-1Gbps-cotag-header-seed"}
            if claim.id in ("fig13-mptcp-drops-at-server", "fig13b-cotag-better-at-server"):
                expected.add("mptcp-server-pinned")
            if claim.id in ("fig13-musher-drops-at-server", "fig13b-cotag-better-at-server"):
                expected.add("musher-server-pinned")
            assert set(claim.variants) == expected, claim.id
    # "COTAG performs better than others": each of the three others, at every pair.
    (case, *_) = experiment.claims[5].variants["setting"]
    at, over = (term.selector for term in case.terms)
    assert (at["scheme"], over["scheme"]) == ("cotag", "cubic")
    labels = {c["label"].split(",")[0] for c in entries["fig13b-cotag-better-at-server"]["cases"]}
    assert labels == {f"over scheme={s}" for s in ("cubic", "mptcp-server", "musher-server")}


def test_fig14_readings_change_cotag_over_the_traces_without_errors_only():
    _, entries = _recorded("fig14")
    entry = entries["fig14-cotag-outperforms-most"]
    assert entry["headline"]
    assert entry["quantifier"] == "13 of 24"
    cotags = {"cotag-header-off-wire", "cotag-period-0.25ms"}
    issue27 = {"core-1Gbps", "cotag-header-seed", "core-1Gbps-cotag-header-seed"}
    assert set(entry["by_reading"]) == cotags | issue27 | {"mptcp-direct-access"}
    setting = {c["label"]: c["value"] for c in entry["cases"]}
    assert len(setting) == 24  # each other scheme, over each channel, PER and latency
    assert {tuple(label.split(", ")[:2]) for label in setting} == {
        (f"over scheme={scheme}", f"channel={channel}")
        for scheme in ("cubic", "mptcp")
        for channel in ("trace", "markov")
    }

    def moved(reading):
        cases = entry["by_reading"][reading]["cases"]
        return {c["label"] for c in cases if c["value"] != setting[c["label"]]}

    for reading in cotags:  # swept over the traces without errors only
        assert moved(reading) == {
            f"over scheme={scheme}, channel=trace, per=0, delay={d}"
            for scheme in ("cubic", "mptcp")
            for d in ("0ms", "5ms", "10ms")
        }, reading
    for reading in issue27:  # every case: COTAG's side, or both sides' core
        assert moved(reading) == set(setting), reading
    assert moved("mptcp-direct-access") == {label for label in setting if "scheme=mptcp" in label}
    similar = entries["fig14-markov-similar-to-traces"]
    assert not similar["headline"]
    assert similar["by_reading"] == {}
    assert similar["bounds"] == [0.8, 1.25]
    assert similar["quantifier"] == "all"
    assert len(similar["cases"]) == 18  # every scheme at every (PER, latency) pair


def test_fig15_outperforms_is_one_claim_over_every_case_and_cotags_readings_touch_5ms_only():
    experiment, entries = _recorded("fig15")
    claims = {c.id: c for c in experiment.claims}
    assert {i for i, e in entries.items() if e["headline"]} == {"fig15-cotag-outperforms"}
    entry = entries["fig15-cotag-outperforms"]
    assert (entry["kind"], entry["quantifier"]) == ("greater", "all")
    assert claims["fig15-cotag-outperforms"].min_effect == 0.05
    setting = {c["label"]: c["value"] for c in entry["cases"]}
    assert len(setting) == 54  # each other scheme x correlation x PER x latency
    assert {label.split(", ")[0] for label in setting} == {
        "over scheme=cubic",
        "over scheme=mptcp",
    }
    for case in claims["fig15-cotag-outperforms"].variants["setting"]:
        at, over = (term.selector for term in case.terms)
        assert (at["scheme"], at["rate"], at["p"]) == ("cotag", "2Gbps", "0.1")
        assert over["scheme"] != "cotag"
        assert over["correlation"] == at["correlation"]
    cotags = {"cotag-period-0.25ms", "cotag-period-5ms", "cotag-period-20ms"}
    cotags |= {"cotag-redundancy-1", "cotag-redundancy-3", "cotag-split-pull"}
    issue27 = {"core-6Gbps", "core-5Gbps", "per-constant-ber", "warm-start"}
    assert set(entry["by_reading"]) == {"rate-600Mbps", "p-0.5", "mptcp-direct-access"} | (
        cotags | issue27
    )

    def moved(reading):
        cases = entry["by_reading"][reading]["cases"]
        return {c["label"] for c in cases if c["value"] != setting[c["label"]]}

    for reading in ("core-6Gbps", "core-5Gbps", "warm-start"):
        assert moved(reading) == set(setting), reading
    assert moved("per-constant-ber") == {label for label in setting if "per=0.1%" in label}
    assert moved("mptcp-direct-access") == {label for label in setting if "scheme=mptcp" in label}
    for name in cotags:  # COTAG's own parameters: only its side, where they were swept
        changed = {
            c["label"]
            for c in entry["by_reading"][name]["cases"]
            if c["value"] != setting[c["label"]]
        }
        assert changed == {
            f"over scheme={scheme}, correlation=-0.34, per={per}, delay=5ms"
            for scheme in ("cubic", "mptcp")
            for per in ("0", "0.1%")
        }, name
    # a trend across correlations is judged under the rate and p readings, never COTAG's own
    trend = entries["fig15-cotag-better-with-higher-correlation"]
    assert set(trend["by_reading"]) == {"rate-600Mbps", "p-0.5"} | issue27
    assert len(trend["cases"]) == 9
    # the levels against the dashed line (13 Gbit/s): at most a half, at most 90 %
    assert entries["fig15a-cubic-low"]["bounds"] == [None, 6.5e9]
    assert entries["fig15a-mptcp-limited"]["bounds"] == [None, 11.7e9]
    falls = claims["fig15a-throughput-falls-with-per-and-latency"]
    assert len(falls.variants["setting"]) == 3  # each scheme
    assert [(t.selector["per"], t.selector["link.core.delay"]) for t in falls.terms] == [
        ("0", "0ms"),
        ("0.01%", "5ms"),
        ("0.1%", "10ms"),
    ]


def test_fig16_stable_is_the_growth_of_the_time_against_each_other_schemes():
    experiment, entries = _recorded("fig16")
    claims = {c.id: c for c in experiment.claims}
    assert {i for i, e in entries.items() if e["headline"]} == set(entries)
    assert len(entries["fig16-cotag-lowest-time"]["cases"]) == 18
    stable = claims["fig16-cotag-stable-time"]
    assert (stable.kind, stable.min_effect) == ("less", 0.05)
    cases = stable.variants["setting"]
    assert len(cases) == 2
    for case, other in zip(cases, ("cubic", "mptcp"), strict=True):
        at, over = case.terms
        assert at.op == over.op == "ratio"  # a sensitivity, not a level
        for term, scheme in ((at, "cotag"), (over, other)):
            harsh, mild = term.leaves()
            assert harsh["scheme"] == mild["scheme"] == scheme
            assert (harsh["per"], harsh["link.core.delay"]) == ("0.1%", "10ms")
            assert (mild["per"], mild["link.core.delay"]) == ("0", "0ms")
    readings = {"rate-600Mbps", "p-0.5", "core-6Gbps", "core-5Gbps", "per-constant-ber"}
    assert set(entries["fig16-cotag-stable-time"]["by_reading"]) == readings | {
        "mptcp-direct-access"
    }


def test_fig17_affected_less_compares_each_schemes_drop_from_0_to_100_ms():
    experiment, entries = _recorded("fig17")
    claims = {c.id: c for c in experiment.claims}
    less = claims["fig17-cotag-affected-less-by-latency"]
    assert (less.headline, less.kind) == (True, "greater")
    assert len(less.variants["setting"]) == 6  # each other scheme at each PER
    for case in less.variants["setting"]:
        at, over = case.terms
        assert at.op == over.op == "ratio"
        assert [leaf["link.core.delay"] for leaf in at.leaves()] == ["100ms", "0ms"]
        assert [leaf["link.core.delay"] for leaf in over.leaves()] == ["100ms", "0ms"]
        assert {leaf["scheme"] for leaf in at.leaves()} == {"cotag"}
        assert len({leaf["scheme"] for leaf in over.leaves()} - {"cotag"}) == 1
    degrades = claims["fig17-cubic-degrades-with-latency"]
    assert not degrades.headline
    assert (degrades.kind, degrades.direction, degrades.min_effect) == ("order", "decreasing", 0.5)
    assert [t.selector["link.core.delay"] for t in degrades.terms] == [
        "0ms",
        "10ms",
        "20ms",
        "50ms",
        "100ms",
    ]
    assert {t.selector["scheme"] for t in degrades.terms} == {"cubic"}
    readings = {"rate-600Mbps", "p-0.5", "core-6Gbps", "core-5Gbps", "per-constant-ber"}
    readings.add("warm-start")
    assert set(entries["fig17-cotag-affected-less-by-latency"]["by_reading"]) == readings | {
        "mptcp-direct-access"
    }
    assert set(entries["fig17-cubic-degrades-with-latency"]["by_reading"]) == readings
