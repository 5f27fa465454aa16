"""Figures of the example experiment: goodput, and mean and p99 RTT, against the bottleneck
buffer, each point the mean over the seeds with its 95 % confidence interval."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

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
    seeds = max(p["runs"] for p in points) if points else 0
    figure.suptitle(f"CUBIC over a 100 Mbit/s, 30 ms path (mean and 95 % CI over {seeds} seeds)")

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "buffer.png"
    figure.savefig(path, dpi=120)
    return [path]


def _errorbar(axes, buffers, points, metric, scale, label) -> None:
    means, errors, xs = [], [], []
    for x, point in zip(buffers, points, strict=True):
        stats = point["metrics"][metric]
        if stats["mean"] is None:
            continue
        xs.append(x)
        means.append(stats["mean"] * scale)
        errors.append((stats["ci95"] or 0.0) * scale)
    axes.errorbar(xs, means, yerr=errors, marker="o", capsize=3, label=label)


def _packets(buffer: str) -> int:
    if not buffer.endswith("pkt"):
        raise ValueError(f"expected a buffer in packets such as 250pkt, not {buffer!r}")
    return int(buffer.removesuffix("pkt"))
