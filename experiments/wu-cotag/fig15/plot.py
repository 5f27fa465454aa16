"""Figures of wu-cotag-fig15 (Wu et al. Fig. 15 a-c): one figure per reading of the flows' burst
rate and of p (`burst-<rate>-p<p>.png`), and one per reading of the explicit points and grids
(`burst-<rate>-p<p>-<reading>.png`, e.g. the server-gateway rate), one panel per link
correlation; per (PER, latency) pair a bar per scheme, the burst's short-term throughput (its
mean over the seeds with the 95 % CI), and a thin line from the 5th to the 95th percentile of
the 10 ms throughputs (the paper's spread, averaged over the seeds). The dashed line is the
links' mean total rate (2 x 6.5 Gbit/s)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import (
    by_reading,
    file_slug,
    grouped_bars,
    interval_label,
    paper_line,
    results_by_reading,
    split_by,
    wrapped_title,
)

STYLES = {
    "cubic": ("TCP CUBIC (sprayed)", "tab:orange"),
    "mptcp": ("MP-TCP (LIA, sprayed)", "tab:green"),
    "mptcp-direct": ("MP-TCP (LIA, a subflow per AP)", "tab:olive"),
    "cotag": ("COTAG", "tab:blue"),
}
SPREAD = ("burst.short_term_bps.p5", "burst.short_term_bps.p95")
CORRELATIONS = ["-0.34", "0", "+0.34"]
MEAN_TOTAL_BPS = 13e9
THROUGHPUT = "burst.throughput_bps"
AXES = ["scheme", "correlation", "per", "link.core.delay", "rate", "p"]


def _pair(o: dict[str, Any]) -> str:
    return f"PER {o['per']}\n{o['link.core.delay']}"


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws one figure per reading into `out_dir` and returns their paths."""
    paths = []
    for reading, theirs in by_reading(points, AXES):
        paths += _figures(theirs, reading, out_dir)
    return [*paths, write_results(points, out_dir)]


def _figures(points: list[dict[str, Any]], reading: str, out_dir: Path) -> list[Path]:
    paths = []
    for (rate, p_value), mine in split_by(points, "rate", "p"):
        panels = split_by(mine, "correlation", order=CORRELATIONS)
        figure = Figure(figsize=(6 * len(panels), 4.8), layout="constrained")
        axes_row = figure.subplots(1, len(panels), squeeze=False)[0]
        for axes, ((correlation,), here) in zip(axes_row, panels, strict=True):
            grouped_bars(
                axes,
                here,
                group=_pair,
                series=lambda o: o["scheme"],
                styles=STYLES,
                metric=THROUGHPUT,
                scale=1e-9,
                spread=SPREAD,
            )
            paper_line(axes, MEAN_TOTAL_BPS * 1e-9, "mean total link rate")
            axes.set_ylabel("short-term throughput during the burst (Gbit/s)")
            axes.set_title(f"correlation {correlation}")
            axes.set_ylim(bottom=0)
            axes.legend(fontsize=7, loc="upper right")
        wrapped_title(
            figure,
            f"Fig. 15: ten CUBIC flows bursting at {rate} each, p = {p_value}"
            f"{'; ' + reading if reading else ''}; "
            f"bars: {interval_label(mine)}; lines: 5th-95th percentile of 10 ms throughputs",
        )
        suffix = f"-{file_slug(reading)}" if reading else ""
        path = out_dir / f"burst-{rate}-p{p_value}{suffix}.png"
        figure.savefig(path)
        paths.append(path)
    return paths


def write_results(points: list[dict[str, Any]], out_dir: Path) -> Path:
    """Writes `results.md`, the README's "Results" tables: burst throughput in Gbit/s, mean ± 95 %
    CI over the seeds, one table per reading."""
    path = out_dir / "results.md"
    text = results_by_reading(
        points,
        AXES,
        ["rate", "p"],
        ["correlation", "per", "link.core.delay"],
        "scheme",
        THROUGHPUT,
        1e-9,
        2,
    )
    path.write_text(text, encoding="utf-8")
    return path
