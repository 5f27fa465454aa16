"""Figures of wu-cotag-fig16 (Wu et al. Fig. 16): one figure per reading of the flows' rate and
of p (`time-to-5gb-<rate>-p<p>.png`), and one per reading of the grids
(`time-to-5gb-<rate>-p<p>-<reading>.png`, e.g. the server-gateway rate); per (PER, latency)
pair a bar per scheme, the time from the flows' start until the 5 Gb burst was delivered (the
mean over the seeds with its 95 % CI; a scheme that did not finish within the run has no bar)."""

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
METRIC = "burst.time_to_target_seconds"
AXES = ["scheme", "per", "link.core.delay", "rate", "p"]


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
        groups = len({_pair(p["overrides"]) for p in mine})
        figure = Figure(figsize=(max(6, 1.6 * groups), 4.8), layout="constrained")
        axes = figure.subplots()
        grouped_bars(
            axes,
            mine,
            group=_pair,
            series=lambda o: o["scheme"],
            styles=STYLES,
            metric=METRIC,
        )
        axes.set_ylabel("time to deliver 5 Gb (s)")
        axes.set_ylim(bottom=0)
        axes.legend(fontsize=8)
        wrapped_title(
            figure,
            f"Fig. 16: a 5 Gb burst of ten CUBIC flows writing at {rate} each, correlation -0.34, "
            f"p = {p_value}{'; ' + reading if reading else ''}; {interval_label(mine)}",
        )
        suffix = f"-{file_slug(reading)}" if reading else ""
        path = out_dir / f"time-to-5gb-{rate}-p{p_value}{suffix}.png"
        figure.savefig(path)
        paths.append(path)
    return paths


def write_results(points: list[dict[str, Any]], out_dir: Path) -> Path:
    """Writes `results.md`, the README's "Results" tables: time to deliver 5 Gb in seconds,
    mean ± 95 % CI over the seeds, one table per reading."""
    path = out_dir / "results.md"
    text = results_by_reading(
        points, AXES, ["rate", "p"], ["per", "link.core.delay"], "scheme", METRIC, 1.0, 3
    )
    path.write_text(text, encoding="utf-8")
    return path
