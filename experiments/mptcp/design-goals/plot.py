"""Figure of mptcp-design-goals (`goals.png`): for each controller, goal 1 (the MP-TCP flow's
goodput over LTE + 28 GHz against single-path CUBIC on either link, per reading of the connection
and LTE RLC buffers), goal 2 (the MP-TCP flow and the single-path flow on the shared bottleneck)
and goal 3 (the part of the MP-TCP flow's bytes on the congested path), both at the 64 MiB
points; each bar the mean over the seeds with its 95 % CI
(min..max with 2 seeds), clipped at 0. Goals 2 and 3 are judged in the steady state
(`metrics.steady_from` to the end: the bars); a black marker on each bar gives the same mean
from the flow's start, which the subflows' slow starts weigh on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import error_bar, interval_label, wrapped_title

CC = "flow.g1.transport.cc"
BUFFER = "flow.g1.transport.receive_buffer"
SP = "flow.g1.path"
LTE_RLC = "link.lte1.radio.rlc.buffer"
# The points goals 2 and 3 are judged at (experiment.toml): g1's readings do not touch them.
GOALS_2_3 = "64MiB"


def _reading(overrides: dict[str, Any]) -> str:
    rlc = overrides.get(LTE_RLC)
    return overrides[BUFFER] + (f", LTE RLC {rlc}" if rlc else "")


def _bar(point: dict[str, Any] | None, metric: str, scale: float):
    return error_bar(point["metrics"].get(metric), scale) if point else None


def _from_start(axes, xs, bars, label) -> None:
    """Markers at the means from the flow's start, over the steady-state bars."""
    shown = [(x, b[0]) for x, b in zip(xs, bars, strict=True) if b is not None]
    if shown:
        axes.plot(
            [x for x, _ in shown],
            [y for _, y in shown],
            "_",
            color="black",
            markersize=12,
            markeredgewidth=2,
            label=label,
        )


def _bars(axes, xs, bars, width, label, colour) -> None:
    shown = [(x, b) for x, b in zip(xs, bars, strict=True) if b is not None]
    if not shown:
        return
    axes.bar(
        [x for x, _ in shown],
        [b[0] for _, b in shown],
        width,
        yerr=[[b[1] for _, b in shown], [b[2] for _, b in shown]],
        capsize=3,
        label=label,
        color=colour,
    )


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws `goals.png` into `out_dir` and returns its path."""
    multipath = {}
    single = {}
    for p in points:
        o = p["overrides"]
        if SP in o:
            transport = o["flow.g1.transport"]
            single[(o[SP][1], transport["receive_buffer"])] = p
        else:
            variant = o.get("flow.g1.transport.variant")
            multipath[(o[CC] + ("\nv0.90" if variant else ""), _reading(o))] = p
    ccs = list(dict.fromkeys(cc for cc, _ in multipath))
    buffers = list(dict.fromkeys(b for _, b in multipath))
    figure = Figure(figsize=(14, 4.5), layout="constrained")
    goal1, goal2, goal3 = figure.subplots(1, 3)
    xs = range(len(ccs))

    width = 0.8 / max(len(buffers), 1)
    for k, buffer in enumerate(buffers):
        offsets = [x + (k - (len(buffers) - 1) / 2) * width for x in xs]
        bars = [_bar(multipath.get((cc, buffer)), "flows.g1.goodput_bps", 1e-6) for cc in ccs]
        _bars(goal1, offsets, bars, width, f"MP-TCP, buffers {buffer}", f"C{k}")
        for link, style in [("mmw1", "--"), ("lte1", ":")]:
            bar = _bar(single.get((link, buffer)), "flows.g1.goodput_bps", 1e-6)
            if bar is not None:
                goal1.axhline(
                    bar[0], color=f"C{k}", linestyle=style, label=f"SP-TCP on {link}, {buffer}"
                )
    goal1.set_title("Goal 1: LTE + 28 GHz against single path")
    goal1.set_ylabel("goodput (Mbit/s)")

    def at_goals_2_3(metric: str, scale: float) -> list:
        return [_bar(multipath.get((cc, GOALS_2_3)), metric, scale) for cc in ccs]

    for k, (flow, label) in enumerate([("g2", "MP-TCP flow"), ("g2-sp", "single-path CUBIC")]):
        at = [x + (k - 0.5) * 0.4 for x in xs]
        steady = at_goals_2_3(f"flows.{flow}.steady_goodput_bps", 1e-6)
        _bars(goal2, at, steady, 0.4, f"{label}, steady state", f"C{k + 2}")
        start = at_goals_2_3(f"flows.{flow}.goodput_bps", 1e-6)
        _from_start(goal2, at, start, "from the start" if k == 0 else None)
    goal2.set_title("Goal 2: one shared 100 Mbit/s bottleneck")
    goal2.set_ylabel("goodput (Mbit/s)")

    steady = at_goals_2_3("flows.g3.subflows.0.steady_share", 1.0)
    _bars(goal3, list(xs), steady, 0.6, "share on the congested path, steady state", "C4")
    start = at_goals_2_3("flows.g3.subflows.0.share", 1.0)
    _from_start(goal3, list(xs), start, "from the start")
    goal3.axhline(0.5, color="grey", linestyle=":", label="half")
    goal3.set_title("Goal 3: two paths, the first shared with 2 flows")
    goal3.set_ylabel("share of the MP-TCP flow's bytes")

    for axes in (goal1, goal2, goal3):
        axes.set_xticks(list(xs), ccs)
        axes.set_ylim(bottom=0)
        axes.grid(True, axis="y", alpha=0.3)
        axes.legend(fontsize=8)
    wrapped_title(figure, f"MP-TCP's design goals per controller ({interval_label(points)})")
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "goals.png"
    figure.savefig(path, dpi=120)
    return [path]
