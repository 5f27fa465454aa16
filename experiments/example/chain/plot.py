"""Figures of the example experiment: goodput, and mean and p99 RTT, against the bottleneck
buffer, each point the mean over the seeds with its 95 % confidence interval (min..max with 2
seeds), clipped at 0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import error_bar, interval_label, wrapped_title

BUFFER = "link.bottleneck.buffer"
BDP_PACKETS = 250  # 100 Mbit/s x 30 ms / 1500 B


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws `buffer.png` into `out_dir` and returns its path."""
    points = sorted(points, key=lambda p: _packets(p["overrides"][BUFFER]))
    buffers = [_packets(p["overrides"][BUFFER]) for p in points]

    figure = Figure(figsize=(10, 4), layout="constrained")
    goodput_axes, rtt_axes = figure.subplots(1, 2)
    _errorbar(goodput_axes, buffers, points, "flows.bulk.goodput_bps", 1e-6, "goodput")
    goodput_axes.set_ylabel("goodput (Mbit/s)")
    goodput_axes.set_ylim(bottom=0)
    _errorbar(rtt_axes, buffers, points, "flows.bulk.rtt_ms.mean", 1, "mean")
    _errorbar(rtt_axes, buffers, points, "flows.bulk.rtt_ms.p99", 1, "p99")
    rtt_axes.set_ylabel("RTT (ms)")
    for axes in (goodput_axes, rtt_axes):
        axes.set_xscale("log")
        axes.set_xlabel("bottleneck buffer (packets)")
        axes.axvline(BDP_PACKETS, color="grey", linestyle=":", label="BDP (250 packets)")
        axes.grid(True, alpha=0.3)
        axes.legend()
    wrapped_title(figure, f"CUBIC over a 100 Mbit/s, 30 ms path ({interval_label(points)})")

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "buffer.png"
    figure.savefig(path, dpi=120)
    return [path]


def _errorbar(axes, buffers, points, metric, scale, label) -> None:
    xs, means, below, above = [], [], [], []
    for x, point in zip(buffers, points, strict=True):
        bar = error_bar(point["metrics"][metric], scale)  # clipped at 0
        if bar is not None:
            xs.append(x)
            means.append(bar[0])
            below.append(bar[1])
            above.append(bar[2])
    axes.errorbar(xs, means, yerr=[below, above], marker="o", capsize=3, label=label)


def _packets(buffer: str) -> int:
    if not buffer.endswith("pkt"):
        raise ValueError(f"expected a buffer in packets such as 250pkt, not {buffer!r}")
    return int(buffer.removesuffix("pkt"))
