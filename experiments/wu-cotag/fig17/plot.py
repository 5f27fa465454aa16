"""Figures of wu-cotag-fig17 (Wu et al. Fig. 17): one figure per reading of the flows' burst rate
and of p (`latency-<rate>-p<p>.png`): the burst's short-term throughput against the server-gateway
latency, one line per scheme and PER (the mean over the seeds with its 95 % CI)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import error_bar, interval_label, split_by, wrapped_title

SCHEMES = {"cubic": "TCP CUBIC (sprayed)", "mptcp": "MP-TCP (LIA)", "cotag": "COTAG"}
COLOURS = {"cubic": "tab:orange", "mptcp": "tab:green", "cotag": "tab:blue"}
STYLES = {"0": "-", "0.01%": "--", "0.1%": ":"}
METRIC = "burst.throughput_bps"


def _ms(text: str) -> float:
    return float(text.removesuffix("ms"))


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws one figure per (rate, p) reading into `out_dir` and returns their paths."""
    paths = []
    for (rate, p_value), mine in split_by(points, "rate", "p"):
        figure = Figure(figsize=(7, 4.8), layout="constrained")
        axes = figure.subplots()
        for scheme in SCHEMES:
            for per, style in STYLES.items():
                line = sorted(
                    (
                        (_ms(p["overrides"]["link.core.delay"]), p)
                        for p in mine
                        if p["overrides"]["scheme"] == scheme and p["overrides"]["per"] == per
                    ),
                    key=lambda item: item[0],
                )
                shown = [(x, error_bar(p["metrics"].get(METRIC), 1e-9)) for x, p in line]
                shown = [(x, b) for x, b in shown if b is not None]
                if not shown:
                    continue
                axes.errorbar(
                    [x for x, _ in shown],
                    [b[0] for _, b in shown],
                    yerr=[[b[1] for _, b in shown], [b[2] for _, b in shown]],
                    capsize=3,
                    color=COLOURS[scheme],
                    linestyle=style,
                    marker="o",
                    label=f"{SCHEMES[scheme]}, PER {per}",
                )
        axes.set_xlabel("server-gateway latency (ms)")
        axes.set_ylabel("short-term throughput during the burst (Gbit/s)")
        axes.set_ylim(bottom=0)
        axes.legend(fontsize=7)
        wrapped_title(
            figure,
            f"Fig. 17: ten CUBIC flows bursting at {rate} each, correlation -0.34, p = {p_value}; "
            f"{interval_label(mine)}",
        )
        path = out_dir / f"latency-{rate}-p{p_value}.png"
        figure.savefig(path)
        paths.append(path)
    return paths
