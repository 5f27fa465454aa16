"""Figure of wu-cotag-fig13 (seed 000 Fig. 13), `deployment.png`: per (PER, latency) pair a bar
per scheme — sprayed CUBIC, COTAG, MP-TCP and MuSher at the server and at the gateway — the
burst's throughput (mean over the seeds with its 95 % CI) and a thin line from the 5th to the
95th percentile of its 10 ms throughputs (the seed's spread, averaged over the seeds)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import error_bar, interval_label, wrapped_title

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
    pairs = list(dict.fromkeys(_pair(p["overrides"]) for p in points))
    schemes = [s for s in SCHEMES if any(p["overrides"]["scheme"] == s for p in points)]
    figure = Figure(figsize=(max(7, 2.2 * len(pairs)), 4.8), layout="constrained")
    axes = figure.subplots()
    width = 0.8 / max(len(schemes), 1)
    for k, scheme in enumerate(schemes):
        label, colour = SCHEMES[scheme]
        for i, pair in enumerate(pairs):
            point = next(
                (
                    p
                    for p in points
                    if p["overrides"]["scheme"] == scheme and _pair(p["overrides"]) == pair
                ),
                None,
            )
            bar = error_bar(point["metrics"].get(THROUGHPUT), 1e-6) if point else None
            if bar is None:
                continue
            x = i + (k - (len(schemes) - 1) / 2) * width
            axes.bar(
                x,
                bar[0],
                width,
                yerr=[[bar[1]], [bar[2]]],
                capsize=2,
                color=colour,
                label=label if i == 0 else None,
            )
            low = point["metrics"].get("burst.short_term_bps.p5") or {}
            high = point["metrics"].get("burst.short_term_bps.p95") or {}
            if low.get("mean") is not None and high.get("mean") is not None:
                axes.plot([x, x], [low["mean"] * 1e-6, high["mean"] * 1e-6], color="black", lw=0.8)
    axes.set_xticks(range(len(pairs)), pairs, fontsize=8)
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
