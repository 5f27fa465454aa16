"""Figures of wu-cotag-fig16 (seed 000 Fig. 16): one figure per reading of the flows' rate and
of p (`time-to-5gb-<rate>-p<p>.png`); per (PER, latency)
pair a bar per scheme, the time from the flows' start until the 5 Gb burst was delivered (the
mean over the seeds with its 95 % CI; a scheme that did not finish within the run has no bar)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import error_bar, interval_label, wrapped_title

SCHEMES = {"cubic": "TCP CUBIC (sprayed)", "mptcp": "MP-TCP (LIA)", "cotag": "COTAG"}
COLOURS = {"cubic": "tab:orange", "mptcp": "tab:green", "cotag": "tab:blue"}
METRIC = "burst.time_to_target_seconds"


def _pair(o: dict[str, Any]) -> str:
    return f"PER {o['per']}\n{o['link.core.delay']}"


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws one figure per (rate, p) reading into `out_dir` and returns their paths."""
    readings = sorted({(p["overrides"]["rate"], p["overrides"]["p"]) for p in points})
    paths = []
    for rate, p_value in readings:
        mine = [
            p for p in points if (p["overrides"]["rate"], p["overrides"]["p"]) == (rate, p_value)
        ]
        pairs = list(dict.fromkeys(_pair(p["overrides"]) for p in mine))
        schemes = [s for s in SCHEMES if any(p["overrides"]["scheme"] == s for p in mine)]
        figure = Figure(figsize=(max(6, 1.6 * len(pairs)), 4.8), layout="constrained")
        axes = figure.subplots()
        width = 0.8 / max(len(schemes), 1)
        for k, scheme in enumerate(schemes):
            for i, pair in enumerate(pairs):
                point = next(
                    (
                        p
                        for p in mine
                        if p["overrides"]["scheme"] == scheme and _pair(p["overrides"]) == pair
                    ),
                    None,
                )
                bar = error_bar(point["metrics"].get(METRIC)) if point else None
                if bar is None:
                    continue
                axes.bar(
                    i + (k - (len(schemes) - 1) / 2) * width,
                    bar[0],
                    width,
                    yerr=[[bar[1]], [bar[2]]],
                    capsize=3,
                    color=COLOURS[scheme],
                    label=SCHEMES[scheme] if i == 0 else None,
                )
        axes.set_xticks(range(len(pairs)), pairs, fontsize=8)
        axes.set_ylabel("time to deliver 5 Gb (s)")
        axes.set_ylim(bottom=0)
        axes.legend(fontsize=8)
        wrapped_title(
            figure,
            f"Fig. 16: a 5 Gb burst of ten CUBIC flows writing at {rate} each, correlation -0.34, "
            f"p = {p_value}; {interval_label(mine)}",
        )
        path = out_dir / f"time-to-5gb-{rate}-p{p_value}.png"
        figure.savefig(path)
        paths.append(path)
    return paths
