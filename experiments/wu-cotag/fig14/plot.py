"""Figure of wu-cotag-fig14 (Wu et al. Fig. 14), `channels.png`: one panel per channel (the
stand-in traces, the Markov model fitted to them); per (PER, latency) pair a bar per scheme, the
burst's throughput (mean over the seeds with its 95 % CI), and a thin line from the 5th to the
95th percentile of its 10 ms throughputs (the paper's spread, averaged over the seeds)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import grouped_bars, interval_label, wrapped_title

STYLES = {
    "cubic": ("TCP CUBIC (sprayed)", "tab:orange"),
    "mptcp": ("MP-TCP (LIA)", "tab:green"),
    "cotag": ("COTAG", "tab:blue"),
}
SPREAD = ("burst.short_term_bps.p5", "burst.short_term_bps.p95")
CHANNELS = {"trace": "(a) traces (802.11ad stand-in)", "markov": "(b) fitted Markov model"}
THROUGHPUT = "burst.throughput_bps"


def _pair(o: dict[str, Any]) -> str:
    return f"PER {o['per']}\n{o['link.core.delay']}"


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws `channels.png` into `out_dir` and returns its path."""
    channels = [c for c in CHANNELS if any(p["overrides"]["channel"] == c for p in points)]
    figure = Figure(figsize=(6 * len(channels), 4.8), layout="constrained")
    axes_row = figure.subplots(1, len(channels), squeeze=False)[0]
    for axes, channel in zip(axes_row, channels, strict=True):
        here = [p for p in points if p["overrides"]["channel"] == channel]
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
        "Fig. 14: ten flows of 128-byte packets over two access points; bars: "
        f"{interval_label(points)}; lines: 5th-95th percentile of 10 ms throughputs",
    )
    path = out_dir / "channels.png"
    figure.savefig(path)
    return [path]
