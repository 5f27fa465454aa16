"""Figures of wu-cotag-fig10-12 (Wu et al. Figs. 10-12): throughput of ten CUBIC flows during the
2 s window against the server-gateway latency (mean over the seeds with its 95 % CI).

- `single-link.png` (Figs. 10 and 11): one access point, the ideal link at PER 0 and the actual
  (trace-driven) link at every PER.
- `single-dual.png` (Fig. 12): the actual links, one access point against two with the gateway
  spraying, at every PER.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import error_bar, interval_label, split_by, wrapped_title

METRIC = "burst.throughput_bps"
STYLES = {"0": "-", "0.01%": "--", "0.1%": ":"}


def _ms(text: str) -> float:
    return float(text.removesuffix("ms"))


def _line(axes, points, label, colour, style) -> None:
    shown = sorted(
        (
            (_ms(p["overrides"]["link.core.delay"]), error_bar(p["metrics"].get(METRIC), 1e-6))
            for p in points
        ),
        key=lambda item: item[0],
    )
    shown = [(x, b) for x, b in shown if b is not None]
    if not shown:
        return
    axes.errorbar(
        [x for x, _ in shown],
        [b[0] for _, b in shown],
        yerr=[[b[1] for _, b in shown], [b[2] for _, b in shown]],
        capsize=3,
        marker="o",
        color=colour,
        linestyle=style,
        label=label,
    )


def _finish(figure, axes, title, points, path: Path) -> Path:
    axes.set_xlabel("server-gateway latency (ms)")
    axes.set_ylabel("throughput of the ten flows (Mbit/s)")
    axes.set_ylim(bottom=0)
    axes.legend(fontsize=8)
    wrapped_title(figure, f"{title}; {interval_label(points)}")
    figure.savefig(path)
    return path


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws the two figures into `out_dir` and returns their paths."""
    paths = []
    lines = dict(split_by(points, "channel", "connectivity", "per"))
    figure = Figure(figsize=(7, 4.8), layout="constrained")
    axes = figure.subplots()
    _line(axes, lines.get(("ideal", "single", "0"), []), "ideal link, PER 0", "tab:grey", "-")
    for per, style in STYLES.items():
        actual = lines.get(("actual", "single", per), [])
        _line(axes, actual, f"actual link, PER {per}", "tab:blue", style)
    paths.append(
        _finish(
            figure,
            axes,
            "Figs. 10-11: ten CUBIC flows over one access point, 128-byte packets",
            points,
            out_dir / "single-link.png",
        )
    )
    figure = Figure(figsize=(7, 4.8), layout="constrained")
    axes = figure.subplots()
    for connectivity, colour in [("single", "tab:blue"), ("dual", "tab:orange")]:
        for per, style in STYLES.items():
            chosen = lines.get(("actual", connectivity, per), [])
            _line(axes, chosen, f"{connectivity} connectivity, PER {per}", colour, style)
    paths.append(
        _finish(
            figure,
            axes,
            "Fig. 12: one access point against two with the gateway spraying, actual links",
            points,
            out_dir / "single-dual.png",
        )
    )
    return paths
