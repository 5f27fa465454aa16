"""Figures of wu-cotag-fig14 (Wu et al. Fig. 14), `channels.png` at the setting and
`channels-<reading>.png` per reading of the explicit points and grids: one panel per channel (the
stand-in traces, the Markov model fitted to them); per (PER, latency) pair a bar per scheme, the
burst's throughput (mean over the seeds with its 95 % CI), and a thin line from the 5th to the
95th percentile of its 10 ms throughputs (the paper's spread, averaged over the seeds)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import (
    by_reading,
    file_slug,
    grouped_bars,
    interval_label,
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
CHANNELS = {"trace": "(a) traces (802.11ad stand-in)", "markov": "(b) fitted Markov model"}
THROUGHPUT = "burst.throughput_bps"
AXES = ["scheme", "channel", "per", "link.core.delay"]


def _pair(o: dict[str, Any]) -> str:
    return f"PER {o['per']}\n{o['link.core.delay']}"


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws one figure per reading into `out_dir` and returns their paths."""
    paths = [_figure(theirs, reading, out_dir) for reading, theirs in by_reading(points, AXES)]
    return [*paths, write_results(points, out_dir)]


def _figure(points: list[dict[str, Any]], reading: str, out_dir: Path) -> Path:
    panels = split_by(points, "channel", order=list(CHANNELS))
    figure = Figure(figsize=(6 * len(panels), 4.8), layout="constrained")
    axes_row = figure.subplots(1, len(panels), squeeze=False)[0]
    for axes, ((channel,), here) in zip(axes_row, panels, strict=True):
        grouped_bars(
            axes,
            here,
            group=_pair,
            series=lambda o: o["scheme"],
            styles=STYLES,
            metric=THROUGHPUT,
            scale=1e-6,
            spread=SPREAD,
        )
        axes.set_ylabel("short-term throughput during the burst (Mbit/s)")
        axes.set_title(CHANNELS[channel])
        axes.set_ylim(bottom=0)
        axes.legend(fontsize=7)
    wrapped_title(
        figure,
        "Fig. 14: ten flows of 128-byte packets over two access points"
        f"{'; ' + reading if reading else ''}; bars: "
        f"{interval_label(points)}; lines: 5th-95th percentile of 10 ms throughputs",
    )
    path = out_dir / (f"channels-{file_slug(reading)}.png" if reading else "channels.png")
    figure.savefig(path)
    return path


def write_results(points: list[dict[str, Any]], out_dir: Path) -> Path:
    """Writes `results.md`, the README's "Results" tables: burst throughput in Mbit/s, mean ± 95 %
    CI over the seeds, one table per reading."""
    path = out_dir / "results.md"
    text = results_by_reading(
        points, AXES, [], ["channel", "per", "link.core.delay"], "scheme", THROUGHPUT, 1e-6, 1
    )
    path.write_text(text, encoding="utf-8")
    return path
