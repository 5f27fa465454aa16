"""Figure of wu-cotag-fig13 (Wu et al. Fig. 13), `deployment.png`: per (PER, latency) pair a bar
per scheme — sprayed CUBIC, COTAG, MP-TCP and MuSher at the server and at the gateway — the
burst's throughput (mean over the seeds with its 95 % CI) and a thin line from the 5th to the
95th percentile of its 10 ms throughputs (the paper's spread, averaged over the seeds)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import grouped_bars, interval_label, wrapped_title

SCHEMES = {
    "cubic": ("TCP CUBIC (sprayed)", "tab:orange"),
    "mptcp-server": ("MP-TCP at the server", "tab:olive"),
    "musher-server": ("MuSher at the server", "tab:purple"),
    "mptcp-gateway": ("MP-TCP at the gateway", "tab:green"),
    "musher-gateway": ("MuSher at the gateway", "tab:pink"),
    "cotag": ("COTAG", "tab:blue"),
}
THROUGHPUT = "burst.throughput_bps"


def _pair(o: dict[str, Any]) -> str:
    return f"PER {o['per']}\n{o['link.core.delay']}"


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws `deployment.png` into `out_dir` and returns its path."""
    groups = len({_pair(p["overrides"]) for p in points})
    figure = Figure(figsize=(max(7, 2.2 * groups), 4.8), layout="constrained")
    axes = figure.subplots()
    grouped_bars(
        axes,
        points,
        group=_pair,
        series=lambda o: o["scheme"],
        styles=SCHEMES,
        metric=THROUGHPUT,
        scale=1e-6,
        spread=("burst.short_term_bps.p5", "burst.short_term_bps.p95"),
    )
    axes.set_ylabel("short-term throughput during the burst (Mbit/s)")
    axes.set_ylim(bottom=0)
    axes.legend(fontsize=7)
    wrapped_title(
        figure,
        "Fig. 13: MP-TCP and MuSher at the gateway or the server, sprayed CUBIC and COTAG, "
        f"128-byte packets over the stand-in traces; bars: {interval_label(points)}; "
        "lines: 5th-95th percentile of 10 ms throughputs",
    )
    path = out_dir / "deployment.png"
    figure.savefig(path)
    return [path]
