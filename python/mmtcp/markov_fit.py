"""Fitting COTAG's two-link Markov model to two rate traces (Wu et al. §5.2.3): `mmtcp fit-markov`.

The model (Wu et al. §5.1, Figs. 6-7; crates/mmtcp/src/channel/markov_pair.rs): each link's rate
is High or Low, the pair is in one of the states HH, HL, LH, LL (link 1 first), and every step

    link 1 flips its level with probability p;
    link 2 takes link 1's new level with probability q, else the other level;
    within the state, the two rates are a joint Gaussian (§5.2.3).

§5.2.3 fits it to measured rates: "The median of the data rate was set as the boundary between
the High state and Low state. [...] we measured the changes of channel states and calculated the
probability of state changes [...]. In each state, the fluctuations of these two channels'
bandwidth are represented with joint Gaussian distribution whose mean and correlations are
calculated from the data". Step by step, with our choices where the paper is silent:

1. Sampling. Each trace (csv or mahimahi, read by the simulator's own parser through `_core`)
   becomes one rate per step on the grid 0, step, 2·step, ...: the trace's *mean* rate over the
   step, i.e. the bits it offers in the step divided by the step. The model holds one rate per
   step, so the mean keeps each step's capacity; the rate in force at the step's start would
   follow whatever sub-step detail the trace has (a mahimahi trace is 0 or n·12 Mbit/s per
   millisecond). A csv trace ends at its last row's time (that row's rate is not used), a mahimahi
   trace at its period; both traces must end at the same time; a last partial step is dropped.
2. Median split, per link: High when the step's rate is above the link's median, else Low.
   The median forces half of the steps into each level; when a link is in fact High for more
   or less than half of the trace (a short trace of a slow chain), the steps nearest the median
   land in the wrong level, and each adds spurious flips to p and an outlier to its state. So
   the fit also finds the two-means boundary — ours: the one that makes the rates of the two
   levels tightest (least within-level sum of squares; Otsu's threshold, 1-D k-means with two
   clusters) — and warns when the two splits differ on more than 2 % of a link's steps;
   `split="two-means"` (`--split two-means`) uses that boundary instead.
3. States and transitions: the state of each step; the 4 x 4 counts of consecutive pairs.
4. Maximum likelihood under the paper's chain. The likelihood of the state sequence given its
   first state is the product over steps of P(flip) · P(agree), so the estimates are the observed
   fractions: p = (steps where link 1's level changed) / (steps - 1), q = (steps after the first
   where link 2's level equals link 1's) / (steps - 1). Flips and agreements are independent
   Bernoulli trials under the model, so their standard errors are sqrt(x (1 - x) / (steps - 1)).
5. Per state, over its steps: each link's mean and sample standard deviation and the two rates'
   Pearson correlation (0 when a link's rate does not vary in the state).
6. Checks. The counted transition matrix (rows: from) beside Fig. 7's matrix with the fitted p, q;
   a likelihood-ratio test of the paper's model against the counted matrix,
   G = 2 Σ N_ij ln(P̂_ij / P_ij), chi-square with 3 · (states left at least once) - 2 degrees of
   freedom; below a p-value of 0.01 a warning says the symmetric model fits badly (then
   `--transitions matrix` writes the counted matrix, our `transitions` key).

Fallbacks, each with a warning: a state with fewer than 2 steps takes, for each link, the mean and
standard deviation of that link's rate over all steps in the state's level for it (the paper's
§5.3.1 per-level model), and correlation 0; a state never left has, in the counted matrix, the
row of the paper's model with the fitted p and q.

    >>> rate_text(9_812_345_678.9), rate_text(312_000_000), rate_text(0)
    ('9.81235Gbps', '312Mbps', '0bps')
"""

from __future__ import annotations

import math
import os
import textwrap
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from mmtcp import _core
from mmtcp._core import ScenarioError
from mmtcp.api import toml_literal

STATES = ("HH", "HL", "LH", "LL")
"""The joint states, link 1's level first, in the order of every table and matrix here."""

MIN_STEPS = 100
"""Fewest steps a fit accepts: with m = steps - 1 transitions the standard error of p or q is at
most 0.5/sqrt(m), so 99 transitions pin them to about ±0.1 (95 %) at best; fewer say little."""

SPLITS = ("median", "two-means")
"""The rules of the High/Low boundary: the paper's median (§5.2.3), or our two-means boundary."""

WARN_DISAGREEMENT = 0.02
"""Above this share of a link's steps on which the median and the two-means splits differ, the
median split is said to misplace steps: each misplaced step of link 1 can add two flips, so 2 %
of them can already raise p by 0.04."""

WARN_P_VALUE = 0.01
"""Below this p-value of the likelihood-ratio test, the paper's (p, q) model is said to fit
badly."""

PS_PER_S = 10**12

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class StateFit:
    """The joint Gaussian of the two rates in one state.

    Attributes:
        steps: steps spent in the state.
        mean_bps, std_bps: each link's mean and sample standard deviation, bit/s (link 1 first).
        correlation: Pearson correlation of the two rates in the state.
        fallback: why the parameters are not the state's own (None when they are).
    """

    steps: int
    mean_bps: tuple[float, float]
    std_bps: tuple[float, float]
    correlation: float
    fallback: str | None = None


@dataclass(frozen=True)
class MarkovFit:
    """The fitted model and what it was fitted from.

    Attributes:
        sources: what the two links' rates came from (file names, or "link 1", "link 2").
        step_ps: the step, picoseconds; step_text as given (`"100ms"`).
        rates_bps: the per-step rates, shape (steps, 2), link 1 in column 0.
        split: "median" (§5.2.3) or "two-means" (ours), the rule of the High/Low boundary.
        boundaries_bps: each link's boundary: High above it, Low at or below it.
        states: the state index (into STATES) of every step.
        counts: counts[i, j] = steps going from state i to state j.
        p, q: maximum-likelihood estimates under the paper's model; p_se, q_se their standard
            errors.
        counted: the counted transition matrix (the rows of states never left from the (p, q)
            model).
        model: Fig. 7's transition matrix with p and q.
        per_state: the joint Gaussian of each state.
        g_statistic, dof, p_value: the likelihood-ratio test of the (p, q) model.
        warnings: what the fit had to assume or what looks wrong, one sentence each.
    """

    sources: tuple[str, str]
    step_ps: int
    step_text: str
    rates_bps: Floats
    split: str
    boundaries_bps: tuple[float, float]
    states: npt.NDArray[np.int64]
    counts: Floats
    p: float
    q: float
    p_se: float
    q_se: float
    counted: Floats
    model: Floats
    per_state: tuple[StateFit, ...]
    g_statistic: float
    dof: int
    p_value: float
    warnings: list[str] = field(default_factory=list)

    @property
    def steps(self) -> int:
        return len(self.states)

    @property
    def shares(self) -> Floats:
        """The share of steps in each state."""
        return np.bincount(self.states, minlength=4) / self.steps

    @property
    def model_shares(self) -> Floats:
        """The stationary share of each state under the (p, q) model: link 1 is High half the
        time, link 2 agrees with it with probability q."""
        return np.array([self.q, 1 - self.q, 1 - self.q, self.q]) / 2

    def report(self) -> str:
        """The fit as text: sampling, boundaries, states, p and q, both transition matrices, the
        test of the paper's model, and the warnings."""
        n = self.steps
        duration = n * self.step_ps / PS_PER_S
        lines = [
            "COTAG's two-link Markov model (Wu et al. §5.1, §5.2.3) fitted to",
            f"  link 1: {self.sources[0]}",
            f"  link 2: {self.sources[1]}",
            f"step {self.step_text}: {n} steps ({duration:g} s), each the trace's mean rate "
            "over the step",
            f"High above the {self.split}: link 1 {rate_text(self.boundaries_bps[0], 4)}, "
            f"link 2 {rate_text(self.boundaries_bps[1], 4)}",
            "",
            "state  steps  share  model  link 1 mean, std      link 2 mean, std      correlation",
        ]
        for name, fit, share, model_share in zip(
            STATES, self.per_state, self.shares, self.model_shares, strict=True
        ):
            links = [
                f"{rate_text(m, 4)}, {rate_text(s, 3)}"
                for m, s in zip(fit.mean_bps, fit.std_bps, strict=True)
            ]
            lines.append(
                f"{name:<5} {fit.steps:>6}  {share:.3f}  {model_share:.3f}  "
                f"{links[0]:<21} {links[1]:<21} {fit.correlation:+.3f}"
                + (" (fallback)" if fit.fallback else "")
            )
        lines += [
            "(model: the state's stationary share under the paper's chain with p and q)",
            "",
            f"p = {self.p:.4f} (standard error {self.p_se:.4f}): link 1 flips its level",
            f"q = {self.q:.4f} (standard error {self.q_se:.4f}): link 2 takes link 1's new level",
            f"    (level correlation 2q - 1 = {2 * self.q - 1:+.3f})",
            "",
            "transitions from (row) to (column): counted | seed's model with p, q",
            "          n     HH     HL     LH     LL  |     HH     HL     LH     LL",
        ]
        for i, name in enumerate(STATES):
            counted = " ".join(f"{x:6.3f}" for x in self.counted[i])
            model = " ".join(f"{x:6.3f}" for x in self.model[i])
            lines.append(f"{name:<4} {int(self.counts[i].sum()):>6} {counted}  | {model}")
        worst = _largest_difference(self.counts, self.counted, self.model)
        lines += [
            "",
            f"seed's model against the counted transitions: G = {self.g_statistic:.1f} on "
            f"{self.dof} degrees of freedom,",
            f"    p-value {self.p_value:.3g}; largest difference {worst[2]:.3f} "
            f"({STATES[worst[0]]} -> {STATES[worst[1]]})",
        ]
        for warning in self.warnings:
            lines += textwrap.wrap(f"warning: {warning}", width=96, subsequent_indent="    ")
        return "\n".join(lines) + "\n"

    def channel_toml(self, *, group: str = "cotag", transitions: str = "pq") -> str:
        """The two links' `channel` tables as TOML, each under a `[[link]]` that holds only it:
        the pair's link 1 (member 1) and link 2 (member 2). `transitions` is "pq" (the paper's p
        and q) or "matrix" (the counted matrix, our `transitions` key)."""
        if transitions not in ("pq", "matrix"):
            raise ValueError(f"transitions is 'pq' or 'matrix', not {transitions!r}")
        if transitions == "pq":
            moves = [f"p = {self.p:.6g}", f"q = {self.q:.6g}"]
        else:
            rows = ",\n".join(
                "  [" + ", ".join(_probability_texts(row)) + "]" for row in self.counted
            )
            moves = [f"transitions = [\n{rows},\n]"]
        states = [
            f"{name.lower()} = {{ mean = [{_rates(fit.mean_bps)}], std = [{_rates(fit.std_bps)}], "
            f"correlation = {fit.correlation:.4f} }}"
            for name, fit in zip(STATES, self.per_state, strict=True)
        ]
        tables = []
        for member in (1, 2):
            tables.append(
                "\n".join(
                    [
                        "[[link]]",
                        'kind = "radio"',
                        "",
                        "[link.channel]",
                        'kind = "markov_pair"',
                        f"group = {toml_literal(group)}",
                        f"member = {member}",
                        f"step = {toml_literal(self.step_text)}",
                        *moves,
                        f'start = "{STATES[self.states[0]].lower()}"',
                        "",
                        "[link.channel.states]",
                        *states,
                    ]
                )
            )
        return "\n\n".join(tables) + "\n"

    def toml_file(self, *, group: str = "cotag", transitions: str = "pq") -> str:
        """The report as comments, then the channel tables: the file `fit-markov` writes."""
        header = [
            "# Fitted by `mmtcp fit-markov` (docs/models/markov-pair.md). Each [[link]] below",
            "# holds only the pair's channel: add the link's name, between and other keys, or",
            "# move its [link.channel] tables under a link of your scenario.",
            "#",
        ]
        report = [f"# {line}".rstrip() for line in self.report().splitlines()]
        return "\n".join([*header, *report, "", ""]) + self.channel_toml(
            group=group, transitions=transitions
        )


def rate_text(bps: float, digits: int = 6) -> str:
    """A rate as a scenario writes it, to `digits` significant digits, in the largest unit it
    reaches (Gbps, Mbps, kbps, bps)."""
    value = float(f"{bps:.{digits}g}")
    for unit, scale in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if value >= scale:
            return f"{_decimal(value / scale, digits)}{unit}"
    return f"{round(value)}bps"


def _decimal(x: float, digits: int) -> str:
    """`x` (1 <= x < 1000) with `digits` significant digits, no exponent, no trailing zeros."""
    places = max(digits - len(str(int(x))), 0)
    text = f"{x:.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _rates(pair: tuple[float, float]) -> str:
    return ", ".join(f'"{rate_text(x)}"' for x in pair)


def _probability_texts(row: Floats) -> list[str]:
    """A matrix row with 6 decimals that add up to exactly 1: the rounding is taken up by the
    largest entry."""
    micros = [round(x * 1_000_000) for x in row]
    micros[int(np.argmax(row))] += 1_000_000 - sum(micros)
    return [f"{m / 1_000_000:.6f}".rstrip("0").rstrip(".") for m in micros]


def fig7(p: float, q: float) -> Floats:
    """The paper's transition matrix (Fig. 7): P(from -> to) over HH, HL, LH, LL.

    >>> fig7(0.1, 0.7)[0].round(2).tolist(), fig7(0.1, 0.7)[3].round(2).tolist()
    ([0.63, 0.27, 0.03, 0.07], [0.07, 0.03, 0.27, 0.63])
    """
    from_high = [(1 - p) * q, (1 - p) * (1 - q), p * (1 - q), p * q]
    from_low = [p * q, p * (1 - q), (1 - p) * (1 - q), (1 - p) * q]
    return np.array([from_high, from_high, from_low, from_low])


def step_means(
    starts_ps: npt.ArrayLike, rates_bps: npt.ArrayLike, end_ps: int, step_ps: int
) -> Floats:
    """The mean rate over each whole step [k·step, (k+1)·step) before `end_ps` of the
    piecewise-constant rate that is `rates_bps[i]` from `starts_ps[i]` (the first at 0) on,
    rounded to whole bit/s as the simulator's rates are (which also makes a constant trace's
    means exactly equal).

    >>> step_means([0, 150], [10.0, 40.0], 400, 100).tolist()
    [10.0, 25.0, 40.0, 40.0]
    """
    starts = np.asarray(starts_ps, dtype=np.int64)
    rates = np.asarray(rates_bps, dtype=np.float64)
    edges = np.arange(end_ps // step_ps + 1, dtype=np.int64) * step_ps
    # bit·ps/s offered from 0 to each step start, then to each edge: rate times time, summed.
    spans = np.diff(np.append(starts, end_ps))
    offered = np.concatenate(([0.0], np.cumsum(rates * spans)))
    current = np.searchsorted(starts, edges, side="right") - 1
    at_edges = offered[current] + rates[current] * (edges - starts[current])
    return np.round(np.diff(at_edges) / step_ps)


def read_rates(
    path: str | os.PathLike[str], *, link: int, format: str | None = None
) -> tuple[npt.NDArray[np.int64], Floats, int]:
    """One trace read by the simulator's parser: each step's start (ps) and rate (bit/s), and
    where the trace ends (ps). Raises `ScenarioError` naming the file (and line)."""
    return _core.rate_trace(os.fspath(path), format=format, origin=f"trace of link {link}")


def fit_traces(
    trace1: str | os.PathLike[str],
    trace2: str | os.PathLike[str],
    *,
    step: str = "100ms",
    format: str | None = None,
    split: str = "median",
) -> MarkovFit:
    """Fits the model to two rate traces (csv or mahimahi; `format` None: from each file name),
    link 1's first; `split` as for `fit`. Raises `ScenarioError` naming the file for a bad trace
    or a bad fit input."""
    try:
        step_ps = _core.time_ps(step)
    except ScenarioError as e:
        raise ScenarioError(f"--step: {e}") from None
    if step_ps == 0:
        raise ScenarioError("--step: must be a time greater than zero, e.g. 100ms")
    names = (os.fspath(trace1), os.fspath(trace2))
    traces = [read_rates(path, link=i + 1, format=format) for i, path in enumerate(names)]
    ends = [end for _, _, end in traces]
    if ends[0] != ends[1]:
        raise ScenarioError(
            f"{names[1]}: the trace ends at {ends[1] / PS_PER_S:g} s but {names[0]} at "
            f"{ends[0] / PS_PER_S:g} s; the two links must cover the same time"
        )
    rates = [step_means(starts, bps, end, step_ps) for starts, bps, end in traces]
    if len(rates[0]) < MIN_STEPS:
        raise ScenarioError(
            f"{names[0]}, {names[1]}: {ends[0] / PS_PER_S:g} s make {len(rates[0])} steps of "
            f"{step}; the fit needs at least {MIN_STEPS} (longer traces or a shorter --step)"
        )
    return fit(rates[0], rates[1], step_ps=step_ps, step_text=step, sources=names, split=split)


def fit(
    rates1_bps: npt.ArrayLike,
    rates2_bps: npt.ArrayLike,
    *,
    step_ps: int,
    step_text: str,
    sources: tuple[str, str] = ("link 1", "link 2"),
    split: str = "median",
) -> MarkovFit:
    """Fits the model to two equally long series of per-step rates (bit/s), link 1's first.
    `split` is "median" (§5.2.3) or "two-means" (ours; see the module docstring, step 2). Raises
    `ScenarioError` naming the source when a series has no High and Low or is too short.
    """
    series = [np.asarray(r, dtype=np.float64) for r in (rates1_bps, rates2_bps)]
    if len(series[0]) != len(series[1]):
        raise ScenarioError(
            f"{sources[1]}: {len(series[1])} steps, but {sources[0]} has {len(series[0])}; the "
            "two links must cover the same steps"
        )
    rates = np.column_stack(series)
    n = len(rates)
    if n < MIN_STEPS:
        raise ScenarioError(f"{sources[0]}: {n} steps; the fit needs at least {MIN_STEPS}")
    if split not in SPLITS:
        raise ValueError(f"split is one of {SPLITS}, not {split!r}")
    for link in (0, 1):
        if rates[:, link].min() == rates[:, link].max():
            raise ScenarioError(
                f"{sources[link]}: the rate is {rate_text(rates[0, link], 4)} at every step; a "
                "constant trace has no High and Low to split"
            )
    medians = np.median(rates, axis=0)
    two_means = np.array([two_means_boundary(rates[:, link]) for link in (0, 1)])
    boundaries = medians if split == "median" else two_means
    high = rates > boundaries
    for link in (0, 1):
        if not high[:, link].any():
            raise ScenarioError(f"{sources[link]}: {_nothing_above(rates[:, link], medians[link])}")
    warnings = []
    if split == "median":
        for link in (0, 1):
            differ = int(np.sum(high[:, link] != (rates[:, link] > two_means[link])))
            if differ > WARN_DISAGREEMENT * n:
                warnings.append(_misplaced(link, differ, n, rates[:, link], two_means[link]))
    states = (2 * ~high[:, 0] + ~high[:, 1]).astype(np.int64)
    counts = np.zeros((4, 4))
    np.add.at(counts, (states[:-1], states[1:]), 1)

    # Maximum likelihood under the paper's chain (module docstring, step 4).
    moves = n - 1
    p = float(np.mean(high[1:, 0] != high[:-1, 0]))
    q = float(np.mean(high[1:, 1] == high[1:, 0]))
    model = fig7(p, q)
    left = counts.sum(axis=1)
    counted = np.where(left[:, None] > 0, counts / np.maximum(left, 1)[:, None], model)

    never_left = [STATES[s] for s in range(4) if left[s] == 0]
    if never_left:
        warnings.append(
            f"never left {', '.join(never_left)}: the counted matrix takes "
            f"{'its row' if len(never_left) == 1 else 'their rows'} from the paper's model with "
            "the fitted p and q"
        )
    per_state = tuple(_state_fit(rates, high, states, s, warnings) for s in range(4))

    g_statistic, dof = _g_test(counts, counted, model)
    from scipy.stats import chi2  # imported here: `mmtcp --help` need not load scipy

    p_value = float(chi2.sf(g_statistic, dof))
    if p_value < WARN_P_VALUE:
        i, j, difference = _largest_difference(counts, counted, model)
        warnings.append(
            f"the paper's symmetric (p, q) model fits the counted transitions badly (p-value "
            f"{p_value:.3g} < {WARN_P_VALUE}); largest difference {difference:.3f} at "
            f"{STATES[i]} -> {STATES[j]}: counted {counted[i, j]:.3f}, model {model[i, j]:.3f}; "
            "--transitions matrix writes the counted matrix instead"
        )
    return MarkovFit(
        sources=sources,
        step_ps=step_ps,
        step_text=step_text,
        rates_bps=rates,
        split=split,
        boundaries_bps=(float(boundaries[0]), float(boundaries[1])),
        states=states,
        counts=counts,
        p=p,
        q=q,
        p_se=math.sqrt(p * (1 - p) / moves),
        q_se=math.sqrt(q * (1 - q) / moves),
        counted=counted,
        model=model,
        per_state=per_state,
        g_statistic=g_statistic,
        dof=dof,
        p_value=p_value,
        warnings=warnings,
    )


def _misplaced(link: int, differ: int, n: int, rates: Floats, boundary: float) -> str:
    share = float(np.mean(rates > boundary))
    return (
        f"link {link + 1}: the median split and the two-means split (ours: High above "
        f"{rate_text(boundary, 4)}, where the two levels are tightest) differ on {differ} of {n} "
        f"steps ({differ / n:.0%}); by the latter link {link + 1} is High {share:.0%} of the time, "
        "not half, and the steps the median misplaces add spurious flips to p and outliers to "
        "the states' spreads; --split two-means uses that boundary"
    )


def _nothing_above(rates: Floats, median: float) -> str:
    at_median = int(np.sum(rates == median))
    return (
        f"{at_median} of {len(rates)} steps are at the highest rate, {rate_text(median, 4)}, "
        "which is the median: no step is above it to be High (--split two-means splits it)"
    )


def two_means_boundary(rates: npt.ArrayLike) -> float:
    """The boundary between two levels that minimises the sum of squared deviations of the rates
    from their level's mean (Otsu's threshold; 1-D k-means with two clusters, found exactly by
    trying every cut of the sorted rates): the midpoint of the cut's neighbours. Needs two
    distinct rates.

    >>> two_means_boundary([1.0, 1.2, 0.9, 5.0, 5.5, 4.8, 5.1])
    3.0
    """
    x = np.sort(np.asarray(rates, dtype=np.float64))
    centred = x - x.mean()  # so that the sums lose no precision
    low = np.arange(1, len(x))  # cut k puts x[:k] in the low level
    sums = np.cumsum(centred)[:-1]
    total = centred.sum()
    # The within-level sum of squares is the total's minus this between-level part.
    between = sums**2 / low + (total - sums) ** 2 / (len(x) - low)
    between[x[1:] == x[:-1]] = -np.inf  # a cut between equal rates does not separate them
    cut = int(np.argmax(between))
    return float((x[cut] + x[cut + 1]) / 2)


def _state_fit(
    rates: Floats,
    high: npt.NDArray[np.bool_],
    states: npt.NDArray[np.int64],
    s: int,
    warnings: list[str],
) -> StateFit:
    """The joint Gaussian of state `s` (module docstring, step 5), or its fallback."""
    inside = rates[states == s]
    if len(inside) >= 2:
        std = inside.std(axis=0, ddof=1)
        varies = bool(np.all(std > 0))
        correlation = float(np.corrcoef(inside.T)[0, 1]) if varies else 0.0
        return StateFit(
            len(inside), _pair(inside.mean(axis=0)), _pair(std), correlation, fallback=None
        )
    levels = (s < 2, s % 2 == 0)  # is link 1, link 2 High in state s
    pooled = [rates[high[:, i] == levels[i], i] for i in (0, 1)]
    mean = (float(pooled[0].mean()), float(pooled[1].mean()))
    std = tuple(float(x.std(ddof=1)) if len(x) >= 2 else 0.0 for x in pooled)
    reason = (
        f"{STATES[s]} has {len(inside)} step{'s' if len(inside) != 1 else ''}: its rates are "
        "each link's over all steps in that level, with correlation 0"
    )
    warnings.append(reason)
    return StateFit(len(inside), mean, (std[0], std[1]), 0.0, fallback=reason)


def _largest_difference(counts: Floats, counted: Floats, model: Floats) -> tuple[int, int, float]:
    """(from, to, |counted - model|) of the largest difference, among states left at least once."""
    left = counts.sum(axis=1) > 0
    difference = np.where(left[:, None], np.abs(counted - model), -1.0)
    i, j = np.unravel_index(int(np.argmax(difference)), difference.shape)
    return int(i), int(j), float(difference[i, j])


def _pair(values: Floats) -> tuple[float, float]:
    return float(values[0]), float(values[1])


def _g_test(counts: Floats, counted: Floats, model: Floats) -> tuple[float, int]:
    """The likelihood-ratio statistic of the (p, q) model against the counted matrix, and its
    degrees of freedom (3 free probabilities per state left at least once, minus p and q)."""
    seen = counts > 0
    g = 2 * float(np.sum(counts[seen] * np.log(counted[seen] / model[seen])))
    dof = 3 * int(np.sum(counts.sum(axis=1) > 0)) - 2
    return max(g, 0.0), dof
