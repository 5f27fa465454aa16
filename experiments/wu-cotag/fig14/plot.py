"""Figure of wu-cotag-fig14 (seed 000 Fig. 14), `channels.png`: one panel per channel (the
stand-in traces, the Markov model fitted to them); per (PER, latency) pair a bar per scheme, the
burst's throughput (mean over the seeds with its 95 % CI), and a thin line from the 5th to the
95th percentile of its 10 ms throughputs (the seed's spread, averaged over the seeds)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import error_bar, interval_label, wrapped_title

SCHEMES = {"cubic": "TCP CUBIC (sprayed)", "mptcp": "MP-TCP (LIA)", "cotag": "COTAG"}
COLOURS = {"cubic": "tab:orange", "mptcp": "tab:green", "cotag": "tab:blue"}
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
        pairs = list(dict.fromkeys(_pair(p["overrides"]) for p in here))
        schemes = [s for s in SCHEMES if any(p["overrides"]["scheme"] == s for p in here)]
        width = 0.8 / max(len(schemes), 1)
        for k, scheme in enumerate(schemes):
            for i, pair in enumerate(pairs):
                point = next(
                    (
                        p
                        for p in here
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
                    capsize=3,
                    color=COLOURS[scheme],
                    label=SCHEMES[scheme] if i == 0 else None,
                )
                low = point["metrics"].get("burst.short_term_bps.p5") or {}
                high = point["metrics"].get("burst.short_term_bps.p95") or {}
                if low.get("mean") is not None and high.get("mean") is not None:
                    axes.plot(
                        [x, x], [low["mean"] * 1e-6, high["mean"] * 1e-6], color="black", lw=0.8
                    )
        axes.set_xticks(range(len(pairs)), pairs, fontsize=8)
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
