"""Figures of wu-cotag-fig13 (Wu et al. Fig. 13), `deployment.png` at the setting and
`deployment-<reading>.png` per reading of the grids: per (PER, latency) pair a bar
per scheme — sprayed CUBIC, COTAG, MP-TCP and MuSher at the server and at the gateway — the
burst's throughput (mean over the seeds with its 95 % CI) and a thin line from the 5th to the
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
    wrapped_title,
)

SCHEMES = {
    "cubic": ("TCP CUBIC (sprayed)", "tab:orange"),
    "mptcp-server": ("MP-TCP at the server (sprayed)", "tab:olive"),
    "musher-server": ("MuSher at the server (sprayed)", "tab:purple"),
    "mptcp-server-pinned": ("MP-TCP at the server (a subflow per AP)", "tab:gray"),
    "musher-server-pinned": ("MuSher at the server (a subflow per AP)", "tab:brown"),
    "mptcp-gateway": ("MP-TCP at the gateway", "tab:green"),
    "musher-gateway": ("MuSher at the gateway", "tab:pink"),
    "cotag": ("COTAG", "tab:blue"),
}
THROUGHPUT = "burst.throughput_bps"
AXES = ["scheme", "per", "link.core.delay"]


def _pair(o: dict[str, Any]) -> str:
    return f"PER {o['per']}\n{o['link.core.delay']}"


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws one figure per reading into `out_dir` and returns their paths."""
    paths = [_figure(theirs, reading, out_dir) for reading, theirs in by_reading(points, AXES)]
    return [*paths, write_results(points, out_dir)]


def _figure(points: list[dict[str, Any]], reading: str, out_dir: Path) -> Path:
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
        f"128-byte packets over the stand-in traces{'; ' + reading if reading else ''}; "
        f"bars: {interval_label(points)}; "
        "lines: 5th-95th percentile of 10 ms throughputs",
    )
    path = out_dir / (f"deployment-{file_slug(reading)}.png" if reading else "deployment.png")
    figure.savefig(path)
    return path


def write_results(points: list[dict[str, Any]], out_dir: Path) -> Path:
    """Writes `results.md`, the README's "Results" tables: burst throughput in Mbit/s, mean ± 95 %
    CI over the seeds, one table per reading."""
    path = out_dir / "results.md"
    text = results_by_reading(
        points, AXES, [], ["per", "link.core.delay"], "scheme", THROUGHPUT, 1e-6, 1
    )
    path.write_text(text, encoding="utf-8")
    return path
