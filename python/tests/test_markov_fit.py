"""`mmtcp fit-markov` and `mmtcp.markov_fit`: COTAG's two-link Markov model fitted to rate traces
(Wu et al. §5.2.3; docs/models/markov-pair.md).

Known answers come from two generators of the same model: the simulator's `markov_pair` channel
(its links' capacity at every step), and a numpy chain with the definitions of §5.1 written out
here. Tolerances follow from the number of steps: under the model, link 1's flips and the
agreements of link 2 are independent Bernoulli trials, so p and q are estimated with standard
error sqrt(x (1 - x) / m) from m transitions; a state's mean with std/sqrt(n) from its n steps.
"""

from __future__ import annotations

import math
import re
import shlex
import tomllib
from pathlib import Path

import numpy as np
import pytest
from helpers import REPO, assert_bad_input

import mmtcp
from mmtcp.markov_fit import STATES, fit, fit_traces, step_means

STEP_PS = 100 * 10**9  # 100 ms

# Per-state joint Gaussians (Gbit/s) whose levels stay apart: every High rate is above 4.75 and
# every Low rate below it by more than 5 standard deviations, so the median split can only err
# by forcing half of the steps into each level (see test_known_answer_from_the_simulator).
SEPARATED = {
    "hh": {"mean": [9.0, 8.0], "std": [0.8, 0.4], "correlation": 0.6},
    "hl": {"mean": [7.0, 2.0], "std": [0.4, 0.2], "correlation": -0.5},
    "lh": {"mean": [3.0, 6.5], "std": [0.3, 0.3], "correlation": 0.0},
    "ll": {"mean": [2.5, 3.5], "std": [0.2, 0.2], "correlation": 0.9},
}
GAP_BPS = 4.75e9

# The example of docs/models/markov-pair.md: scenarios/traces/cotag-ap{1,2}.csv are this pair's
# rates, 600 steps of 100 ms at simulation seed 1 — about 1.3 Gbit/s in all, as in §5.2.3.
EXAMPLE = {
    "p": 0.1,
    "q": 0.67,
    "states": {
        "hh": {"mean": ["950Mbps", "900Mbps"], "std": ["80Mbps", "70Mbps"], "correlation": 0.3},
        "hl": {"mean": ["850Mbps", "350Mbps"], "std": ["70Mbps", "50Mbps"], "correlation": -0.2},
        "lh": {"mean": ["400Mbps", "800Mbps"], "std": ["50Mbps", "70Mbps"], "correlation": -0.2},
        "ll": {"mean": ["450Mbps", "400Mbps"], "std": ["50Mbps", "50Mbps"], "correlation": 0.5},
    },
}
EXAMPLE_TRACES = [REPO / "scenarios" / "traces" / f"cotag-ap{i}.csv" for i in (1, 2)]
EXAMPLE_STEPS = 600


def gbps_table(states: dict) -> dict:
    """`SEPARATED` with its rates as scenario strings."""
    return {
        name: {
            "mean": [f"{x}Gbps" for x in state["mean"]],
            "std": [f"{x}Gbps" for x in state["std"]],
            "correlation": state["correlation"],
        }
        for name, state in states.items()
    }


# ---- generators ---------------------------------------------------------------------------------


def pair_scenario(channel: dict, duration_s: float, *, seed: int = 1) -> dict:
    """Two radio links driven by one markov_pair `channel`, sampled twice a step, and a trickle."""

    def link(name: str, member: int) -> dict:
        table = {"kind": "markov_pair", "group": "cotag", "member": member, **channel}
        return {"name": name, "between": ["g", "d"], "kind": "radio", "channel": table}

    return {
        "simulation": {"duration": f"{duration_s}s", "seed": seed},
        "metrics": {"interval": "50ms"},
        "node": [{"name": "g"}, {"name": "d"}],
        "link": [link("ap1", 1), link("ap2", 2)],
        "flow": [{"from": "g", "to": "d", "app": {"kind": "download", "size": "10KB"}}],
    }


def simulated_rates(channel: dict, steps: int, *, seed: int = 1) -> np.ndarray:
    """The two links' rates (bit/s) at each 100 ms step, shape (steps, 2): the capacity column
    read in the middle of each step (the samples at 50, 150, 250 ms, ...)."""
    result = mmtcp.run(pair_scenario(channel, steps / 10, seed=seed))
    columns = [result.timeseries[f"link.{name}.fwd.capacity_bps"] for name in ("ap1", "ap2")]
    return np.column_stack([c.to_numpy()[::2] for c in columns])[:steps]


def trace_text(rates_bps: np.ndarray) -> str:
    """A csv rate trace with one row per 100 ms step and a closing row at the end."""
    rows = [f"{k * 100}ms,{round(r)}" for k, r in enumerate(rates_bps)]
    rows.append(f"{len(rates_bps) * 100}ms,{round(rates_bps[-1])}")
    return "time,rate\n" + "\n".join(rows) + "\n"


def write_traces(directory: Path, rates: np.ndarray) -> tuple[Path, Path]:
    paths = (directory / "link1.csv", directory / "link2.csv")
    for i, path in enumerate(paths):
        path.write_text(trace_text(rates[:, i]), encoding="utf-8")
    return paths


def seed_chain(p: float, q: float, steps: int, rng: np.random.Generator) -> np.ndarray:
    """The High flags (steps, 2) of §5.1's chain from HH: link 1 flips with p, link 2 takes link
    1's level with q."""
    flips = rng.random(steps) < p
    flips[0] = False
    first = np.cumsum(flips) % 2 == 0
    second = np.where(rng.random(steps) < q, first, ~first)
    second[0] = True
    return np.column_stack([first, second])


def gaussian_rates(high: np.ndarray, states: dict, rng: np.random.Generator) -> np.ndarray:
    """Rates (bit/s) of each step from its state's joint Gaussian (Gbit/s in `states`)."""
    index = 2 * ~high[:, 0] + ~high[:, 1]
    z1, z2 = rng.standard_normal((2, len(high)))
    rates = np.empty((len(high), 2))
    for s, name in enumerate(("hh", "hl", "lh", "ll")):
        state, at = states[name], index == s
        rho = state["correlation"]
        z = np.column_stack([z1[at], rho * z1[at] + math.sqrt(1 - rho * rho) * z2[at]])
        rates[at] = (np.array(state["mean"]) + np.array(state["std"]) * z) * 1e9
    return rates


def links_of(toml_text: str, names: tuple[str, str] = ("ap1", "ap2")) -> list[dict]:
    """The two [[link]] tables fit-markov writes, named and placed between nodes g and d."""
    links = tomllib.loads(toml_text)["link"]
    assert len(links) == 2
    return [
        {**link, "name": name, "between": ["g", "d"]}
        for link, name in zip(links, names, strict=True)
    ]


def scenario_with(links: list[dict]) -> dict:
    return {
        "simulation": {"duration": "1s"},
        "node": [{"name": "g"}, {"name": "d"}],
        "link": links,
        "flow": [{"from": "g", "to": "d", "app": {"kind": "download", "size": "10KB"}}],
    }


# ---- sampling -----------------------------------------------------------------------------------


def test_step_means_average_the_rate_over_each_step(tmp_path):
    # 0-150 ms at 100 Mbit/s, then 400 Mbit/s; the trace ends at 350 ms: the partial last step
    # (300-350 ms) is dropped.
    trace = tmp_path / "t.csv"
    trace.write_text("time,rate\n0,100Mbps\n150ms,400Mbps\n350ms,0\n", encoding="utf-8")
    starts, rates, end = mmtcp.markov_fit.read_rates(trace, link=1)
    assert (starts.tolist(), rates.tolist(), end) == ([0, 150 * 10**9], [1e8, 4e8], 350 * 10**9)
    assert step_means(starts, rates, end, STEP_PS).tolist() == [1e8, 2.5e8, 4e8]


def test_a_mahimahi_trace_is_read_by_the_simulators_parser(tmp_path):
    # Two opportunities in every millisecond for 100 ms, then one for 100 ms: 24 then 12 Mbit/s.
    lines = [str(ms) for ms in range(1, 101) for _ in range(2)] + [
        str(ms) for ms in range(101, 201)
    ]
    trace = tmp_path / "link.down"
    trace.write_text("\n".join(lines) + "\n", encoding="utf-8")
    starts, rates, end = mmtcp.markov_fit.read_rates(trace, link=2)
    assert end == 200 * 10**9
    assert step_means(starts, rates, end, STEP_PS).tolist() == [24e6, 12e6]


# ---- known answers ------------------------------------------------------------------------------


def test_known_answer_of_the_seed_chain():
    # 5·10⁴ steps of the chain, then their mirror image (H and L swapped on both links, the same
    # chain by the symmetry of Fig. 7): each link is High exactly half the time, so with levels
    # apart the median split finds the true levels and the estimates carry sampling error only.
    # The mirror repeats every flip and agreement: 5·10⁴ - 1 independent transitions.
    rng = np.random.default_rng(7)
    p, q, half = 0.2, 0.7, 50_000
    chain = seed_chain(p, q, half, rng)
    high = np.concatenate([chain, ~chain])
    rates = gaussian_rates(high, SEPARATED, rng)
    fitted = fit(rates[:, 0], rates[:, 1], step_ps=STEP_PS, step_text="100ms")

    assert np.array_equal(fitted.rates_bps > np.array(fitted.boundaries_bps), high)
    m = half - 1
    assert abs(fitted.p - p) < 4 * math.sqrt(p * (1 - p) / m), fitted.p
    assert abs(fitted.q - q) < 4 * math.sqrt(q * (1 - q) / m), fitted.q
    assert fitted.p_se == pytest.approx(math.sqrt(fitted.p * (1 - fitted.p) / (2 * half - 1)))
    for name, state in zip(STATES, fitted.per_state, strict=True):
        truth = SEPARATED[name.lower()]
        n = state.steps
        assert n > 10_000, (name, n)
        for i in (0, 1):
            mean, std = truth["mean"][i] * 1e9, truth["std"][i] * 1e9
            assert abs(state.mean_bps[i] - mean) < 5 * std / math.sqrt(n), (name, i, state)
            assert abs(state.std_bps[i] / std - 1) < 0.03, (name, i, state)  # SE ≈ 1/sqrt(2n)
        # A correlation's standard error is about (1 - ρ²)/sqrt(n) < 0.01.
        assert abs(state.correlation - truth["correlation"]) < 0.04, (name, state)
        assert state.fallback is None
    # The paper's model is the truth here: the counted matrix is close to Fig. 7's.
    assert np.abs(fitted.counted - fitted.model).max() < 0.02
    assert fitted.dof == 10
    assert not fitted.warnings, fitted.warnings


def test_known_answer_from_the_simulator(cli, tmp_path):
    # The simulator's markov_pair, 20 000 steps, traces as csv, fitted from the command line.
    # With levels apart, the true levels are the sides of GAP_BPS. A split differs from them on
    # a few steps: the median where it forces half of the steps into each level, the two-means
    # boundary (halfway between the levels' means) in the far tail of a wide level. Each such
    # step of link 1 changes at most two flips and one agreement, each of link 2 one agreement:
    # the tolerance of p and q is 4 standard errors plus those changes.
    p, q, steps = 0.2, 0.7, 20_000
    rates = simulated_rates({"p": p, "q": q, "states": gbps_table(SEPARATED)}, steps)
    trace1, trace2 = write_traces(tmp_path, rates)
    out = tmp_path / "fitted.toml"
    proc = cli("fit-markov", trace1, trace2, "--split", "two-means", "--out", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "wrote" in proc.stdout
    channel = tomllib.loads(out.read_text(encoding="utf-8"))["link"][0]["channel"]

    m = steps - 1
    for split, most_wrong in (("two-means", 0.001), ("median", 0.02)):
        fitted = fit_traces(trace1, trace2, split=split)
        levels = fitted.rates_bps > np.array(fitted.boundaries_bps)
        wrong = np.sum(levels != (rates > GAP_BPS), axis=0)
        assert wrong.max() <= most_wrong * steps, (split, wrong)
        assert abs(fitted.p - p) < 4 * math.sqrt(p * (1 - p) / m) + 2 * wrong[0] / m, fitted
        assert abs(fitted.q - q) < 4 * math.sqrt(q * (1 - q) / m) + wrong.sum() / m, fitted

    # Per state, with the two-means split (at most 20 misplaced steps among thousands): means
    # within 5 standard errors, spreads and correlations within 5 of theirs, ≈ 1/sqrt(2n) and
    # 1/sqrt(n).
    fitted = fit_traces(trace1, trace2, split="two-means")
    assert (channel["p"], channel["q"]) == (pytest.approx(fitted.p), pytest.approx(fitted.q))
    for name, state in zip(STATES, fitted.per_state, strict=True):
        truth, n = SEPARATED[name.lower()], state.steps
        for i in (0, 1):
            std = truth["std"][i] * 1e9
            assert abs(state.mean_bps[i] - truth["mean"][i] * 1e9) < 5 * std / math.sqrt(n)
            assert abs(state.std_bps[i] / std - 1) < 5 / math.sqrt(2 * n), (name, i, state)
        assert abs(state.correlation - truth["correlation"]) < 5 / math.sqrt(n), (name, state)


def test_the_median_split_misplaces_steps_of_a_short_slow_trace():
    # The documented example: 600 steps of a chain with p = 0.1, where link 1 happens to be High
    # 62 % of the time. The median forces 50 %, misplaces 71 steps and doubles p; the warning
    # says so, and the two-means boundary recovers p and q within 3 standard errors.
    median = fit_traces(*EXAMPLE_TRACES)
    assert median.p > 0.2
    assert any("differ on 71 of 600 steps" in w for w in median.warnings), median.warnings
    two_means = fit_traces(*EXAMPLE_TRACES, split="two-means")
    assert not two_means.warnings
    assert abs(two_means.p - EXAMPLE["p"]) < 3 * two_means.p_se
    assert abs(two_means.q - EXAMPLE["q"]) < 3 * two_means.q_se


def test_round_trip_fit_toml_scenario(tmp_path):
    # The fitted channel tables, (p, q) or matrix, make a valid scenario whose pair runs.
    rng = np.random.default_rng(3)
    high = seed_chain(0.3, 0.6, 2_000, rng)
    rates = gaussian_rates(high, SEPARATED, rng)
    fitted = fit(rates[:, 0], rates[:, 1], step_ps=STEP_PS, step_text="100ms")
    for transitions in ("pq", "matrix"):
        text = fitted.toml_file(group="ap pair", transitions=transitions)
        links = links_of(text)
        assert links[0]["channel"] == {**links[1]["channel"], "member": 1}
        resolved = mmtcp.validate(scenario_with(links))
        assert 'group = "ap pair"' in resolved
        assert ("transitions = " in resolved) == (transitions == "matrix")
        result = mmtcp.run(scenario_with(links))
        assert result.timeseries["link.ap1.fwd.capacity_bps"].gt(0).all()
    matrix = np.array(
        tomllib.loads(fitted.channel_toml(transitions="matrix"))["link"][0]["channel"][
            "transitions"
        ]
    )
    assert np.allclose(matrix, fitted.counted, atol=1e-6)
    assert all(math.fsum(row) == pytest.approx(1, abs=1e-12) for row in matrix)


def test_a_chain_unlike_the_seeds_is_flagged_and_its_matrix_written():
    # Two links that each keep their level with 0.9, independently: not a (p, q) chain (link 2
    # has a memory of its own). Levels apart and the two-means split: the true levels.
    rng = np.random.default_rng(11)
    steps = 20_000
    flips = rng.random((steps, 2)) < 0.1
    flips[0] = False
    high = np.cumsum(flips, axis=0) % 2 == 0
    rates = gaussian_rates(high, SEPARATED, rng)
    fitted = fit(rates[:, 0], rates[:, 1], step_ps=STEP_PS, step_text="100ms", split="two-means")
    assert np.array_equal(fitted.rates_bps > np.array(fitted.boundaries_bps), high)
    assert any("fits the counted transitions badly" in w for w in fitted.warnings), fitted.warnings
    truth = np.kron([[0.9, 0.1], [0.1, 0.9]], [[0.9, 0.1], [0.1, 0.9]])  # HH, HL, LH, LL
    assert np.abs(fitted.counted - truth).max() < 0.02
    assert fitted.p_value < 1e-6


def test_a_state_never_visited_falls_back_and_says_so(tmp_path):
    # q = 1: link 2 always takes link 1's level, so HL and LH never happen (with the two-means
    # split, which finds the true levels here).
    rng = np.random.default_rng(5)
    high = seed_chain(0.2, 1.0, 1_000, rng)
    rates = gaussian_rates(high, SEPARATED, rng)
    fitted = fit(rates[:, 0], rates[:, 1], step_ps=STEP_PS, step_text="100ms", split="two-means")
    assert fitted.q == 1.0
    assert any(w.startswith("never left HL, LH") for w in fitted.warnings), fitted.warnings
    hl = fitted.per_state[1]
    assert hl.steps == 0
    assert hl.fallback
    assert hl.correlation == 0.0
    # Link 1 High (from HH) and link 2 Low (from LL), each over all its steps in that level.
    assert hl.mean_bps[0] == pytest.approx(rates[high[:, 0], 0].mean())
    assert hl.mean_bps[1] == pytest.approx(rates[~high[:, 1], 1].mean())
    assert np.allclose(fitted.counted[1], fitted.model[1])
    for transitions in ("pq", "matrix"):
        mmtcp.validate(scenario_with(links_of(fitted.toml_file(transitions=transitions))))


def test_the_cli_prints_the_toml_with_the_report_as_comments(cli, tmp_path):
    proc = cli("fit-markov", *EXAMPLE_TRACES, "--transitions", "matrix", "--group", "g")
    assert proc.returncode == 0, proc.stderr
    document = tomllib.loads(proc.stdout)
    channel = document["link"][1]["channel"]
    assert (channel["member"], channel["group"]) == (2, "g")
    assert "transitions" in channel
    assert "p" not in channel
    assert "# p = " in proc.stdout
    assert "# transitions from (row) to (column)" in proc.stdout


# ---- the documented example ---------------------------------------------------------------------


def test_the_example_traces_are_the_documented_pairs_output():
    rates = simulated_rates(EXAMPLE, EXAMPLE_STEPS)
    for path, column in zip(EXAMPLE_TRACES, rates.T, strict=True):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        header = "".join(line for line in lines if line.startswith("#"))
        assert path.read_text(encoding="utf-8") == header + trace_text(column), path


def doc_commands(path: Path) -> list[list[str]]:
    """The `mmtcp fit-markov` commands of the sh blocks of a markdown file."""
    blocks = re.findall(r"```sh\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    lines = [line.split(" #")[0].strip() for block in blocks for line in block.splitlines()]
    prefixes = ("mmtcp fit-markov", ".venv/bin/mmtcp fit-markov")
    return [shlex.split(line)[1:] for line in lines if line.startswith(prefixes)]


@pytest.mark.parametrize("doc", ["docs/models/markov-pair.md", "README.md"])
def test_the_documented_commands_run_and_their_output_validates(cli, doc, tmp_path):
    commands = doc_commands(REPO / doc)
    assert commands, f"no mmtcp fit-markov command in {doc}"
    for args in commands:
        argv = [str(REPO / a) if a.startswith("scenarios/") else a for a in args]
        proc = cli(*argv, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        text = (
            (tmp_path / argv[argv.index("--out") + 1]).read_text()
            if "--out" in argv
            else proc.stdout
        )
        mmtcp.validate(scenario_with(links_of(text)))


def test_the_documented_links_make_a_valid_pair():
    # Each TOML example of docs/models/markov-pair.md is link ap1 of a pair; ap2 is its copy
    # with member = 2.
    doc = (REPO / "docs/models/markov-pair.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", doc, re.S)
    assert len(blocks) == 2
    nodes = '[[node]]\nname = "gateway"\n[[node]]\nname = "device"\n'
    flow = '[[flow]]\nfrom = "gateway"\nto = "device"\napp = { kind = "bulk" }\n'
    for block in blocks:
        second = block.replace('"ap1"', '"ap2"').replace("member = 1", "member = 2")
        assert second != block
        mmtcp.validate(tomllib.loads(nodes + block + second + flow))


def test_the_documented_fit_is_the_one_printed(cli):
    # docs/models/markov-pair.md shows the report of its example; it must be today's.
    doc = (REPO / "docs/models/markov-pair.md").read_text(encoding="utf-8")
    shown = re.search(r"```text\n(COTAG's two-link Markov model.*?)```", doc, re.S)
    assert shown, "no report in docs/models/markov-pair.md"
    traces = [str(t.relative_to(REPO)) for t in EXAMPLE_TRACES]
    proc = cli("fit-markov", *traces, "--out", "/dev/null", cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.removesuffix("wrote /dev/null\n") == shown.group(1)


# ---- bad input ----------------------------------------------------------------------------------


def trace(path: Path, rows: list[str]) -> Path:
    path.write_text("time,rate\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def varying(n: int) -> list[str]:
    return [f"{k * 100}ms,{(k % 7 + 1) * 100}Mbps" for k in range(n)] + [f"{n * 100}ms,0"]


@pytest.fixture
def good(tmp_path) -> Path:
    return trace(tmp_path / "good.csv", varying(200))


def test_a_missing_trace(cli, tmp_path, good):
    missing = tmp_path / "nowhere.csv"
    line = assert_bad_input(cli("fit-markov", good, missing), str(missing), "cannot read")
    assert "trace of link 2" in line


def test_a_malformed_trace_names_its_line(cli, tmp_path, good):
    bad = trace(tmp_path / "bad.csv", ["0,1Gbps", "100ms,fast", "200ms,1Gbps"])
    assert_bad_input(cli("fit-markov", bad, good), "bad.csv: line 3", '"fast" is not a rate')
    late = trace(tmp_path / "late.csv", ["1s,1Gbps", "2s,1Gbps"])
    assert_bad_input(cli("fit-markov", good, late), "late.csv: line 2", "must be at time 0")
    one = trace(tmp_path / "one.csv", ["0,1Gbps"])
    assert_bad_input(cli("fit-markov", one, good), "one.csv: line 2", "at least two rows")


def test_a_malformed_mahimahi_trace(cli, tmp_path, good):
    bad = tmp_path / "bad.up"
    bad.write_text("5\n2\n", encoding="utf-8")
    assert_bad_input(cli("fit-markov", good, bad), "bad.up: line 2", "before the previous one")
    assert_bad_input(cli("fit-markov", good, good, "--format", "mahimahi"), "good.csv: line 1")


def test_traces_of_different_lengths(cli, tmp_path, good):
    longer = trace(tmp_path / "longer.csv", varying(201))
    assert_bad_input(cli("fit-markov", good, longer), "longer.csv", "20.1 s", "20 s", "same time")


def test_a_constant_trace_has_no_split(cli, tmp_path, good):
    flat = trace(tmp_path / "flat.csv", ["0,1Gbps", "20s,1Gbps"])
    assert_bad_input(cli("fit-markov", good, flat), "flat.csv", "1Gbps at every step", "no High")
    # Most steps at the top rate: the median is the top, nothing is above it.
    top = trace(
        tmp_path / "top.csv",
        [f"{k * 100}ms,{'1Gbps' if k % 3 else '5Mbps'}" for k in range(200)] + ["20s,0"],
    )
    assert_bad_input(cli("fit-markov", top, good), "top.csv", "no step is above it")


def test_too_few_steps(cli, tmp_path):
    short = [trace(tmp_path / f"s{i}.csv", varying(99)) for i in (1, 2)]
    assert_bad_input(cli("fit-markov", *short), "s1.csv", "99 steps", "at least 100")
    assert_bad_input(cli("fit-markov", *short, "--step", "1s"), "9 steps of 1s")


def test_bad_options(cli, tmp_path, good):
    assert_bad_input(
        cli("fit-markov", good, good, "--step", "fast"), "--step", '"fast" is not a time'
    )
    assert_bad_input(cli("fit-markov", good, good, "--step", "0ms"), "--step", "greater than zero")
    assert_bad_input(cli("fit-markov", good), "TRACE2")
    assert_bad_input(cli("fit-markov", good, good, "--transitions", "full"), "--transitions")
    nowhere = tmp_path / "no" / "dir" / "fitted.toml"
    assert_bad_input(cli("fit-markov", good, good, "--out", nowhere), str(nowhere), "cannot write")
