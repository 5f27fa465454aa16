"""Figures of wu-cotag-fig17 (Wu et al. Fig. 17): one figure per reading of the flows' burst rate
and of p (`latency-<rate>-p<p>.png`), and one per reading of the grids
(`latency-<rate>-p<p>-<reading>.png`, e.g. the server-gateway rate): the burst's short-term
throughput against the server-gateway latency, one line per scheme and PER (the mean over the
seeds with its 95 % CI)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import (
    by_reading,
    error_bar,
    file_slug,
    interval_label,
    results_by_reading,
    split_by,
    wrapped_title,
)

SCHEMES = {
    "cubic": "TCP CUBIC (sprayed)",
    "mptcp": "MP-TCP (LIA, sprayed)",
    "mptcp-direct": "MP-TCP (LIA, a subflow per AP)",
    "cotag": "COTAG",
}
COLOURS = {
    "cubic": "tab:orange",
    "mptcp": "tab:green",
    "mptcp-direct": "tab:olive",
    "cotag": "tab:blue",
}
STYLES = {"0": "-", "0.01%": "--", "0.1%": ":", "0.64%": "-."}
METRIC = "burst.throughput_bps"
AXES = ["scheme", "per", "link.core.delay", "rate", "p"]


def _ms(text: str) -> float:
    return float(text.removesuffix("ms"))


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws one figure per reading into `out_dir` and returns their paths."""
    paths = []
    for reading, theirs in by_reading(points, AXES):
        paths += _figures(theirs, reading, out_dir)
    return [*paths, write_results(points, out_dir)]


def _figures(points: list[dict[str, Any]], reading: str, out_dir: Path) -> list[Path]:
    paths = []
    for (rate, p_value), mine in split_by(points, "rate", "p"):
        figure = Figure(figsize=(7, 4.8), layout="constrained")
        axes = figure.subplots()
        lines = dict(split_by(mine, "scheme", "per"))
        for scheme in SCHEMES:
            for per, style in STYLES.items():
                here = lines.get((scheme, per), [])
                line = sorted(
                    ((_ms(p["overrides"]["link.core.delay"]), p) for p in here),
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
            f"Fig. 17: ten CUBIC flows bursting at {rate} each, correlation -0.34, p = {p_value}"
            f"{'; ' + reading if reading else ''}; {interval_label(mine)}",
        )
        suffix = f"-{file_slug(reading)}" if reading else ""
        path = out_dir / f"latency-{rate}-p{p_value}{suffix}.png"
        figure.savefig(path)
        paths.append(path)
    return paths


def write_results(points: list[dict[str, Any]], out_dir: Path) -> Path:
    """Writes `results.md`, the README's "Results" tables: burst throughput in Gbit/s, mean ± 95 %
    CI over the seeds, one table per reading."""
    path = out_dir / "results.md"
    text = results_by_reading(
        points, AXES, ["rate", "p"], ["per", "link.core.delay"], "scheme", METRIC, 1e-9, 2
    )
    path.write_text(text, encoding="utf-8")
    return path
