"""Helpers for the figures of experiments (their `plot.py`): error bars that the number of seeds
can support, clipped where the quantity cannot be negative; the paper's stated values drawn on
the axes; titles that wrap instead of being clipped.

    from mmtcp.figures import error_bars, interval_label, paper_line, wrapped_title

    means, yerr = error_bars([p["metrics"]["flows.bulk.goodput_bps"] for p in points], 1e-6)
    axes.errorbar(xs, means, yerr=yerr, marker="o", capsize=3)
    paper_line(axes, 100, "server's rate, 100 Mbit/s")
    wrapped_title(figure, f"Goodput ({interval_label(points)})")

With 3 or more values a bar spans the 95 % confidence interval of the mean; with 2 it spans the
min..max range (a t interval from 2 values is 12.7 standard errors wide); with 1, nothing. The
lower end is clipped at `floor` (0 by default: goodput, RTT, ratios are never negative).
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from mmtcp.sweep_table import MIN_SEEDS_FOR_CI

PAPER_COLOUR = "dimgrey"


def error_bar(
    stats: Mapping[str, Any] | None, scale: float = 1.0, floor: float | None = 0.0
) -> tuple[float, float, float] | None:
    """`(mean, below, above)` of one point's statistics of a metric (a points.json entry),
    scaled; None without a mean.

    >>> error_bar({"n": 2, "mean": 5.0, "ci95": 60.0, "min": 1.0, "max": 9.0})
    (5.0, 4.0, 4.0)
    >>> error_bar({"n": 3, "mean": 5.0, "ci95": 6.0, "min": 1.0, "max": 9.0})
    (5.0, 5.0, 6.0)
    >>> error_bar({"n": 3, "mean": 5.0, "ci95": 6.0}, floor=None)
    (5.0, 6.0, 6.0)
    """
    if not stats or stats.get("mean") is None:
        return None
    mean = stats["mean"] * scale
    n = stats.get("n")
    if n is not None and 2 <= n < MIN_SEEDS_FOR_CI and stats.get("min") is not None:
        below, above = mean - stats["min"] * scale, stats["max"] * scale - mean
    else:
        half = stats.get("ci95")
        half = abs(half * scale) if half is not None and math.isfinite(half) else 0.0
        below = above = half
    if floor is not None:
        below = max(0.0, min(below, mean - floor))
    return mean, below, above


def error_bars(
    stats: Sequence[Mapping[str, Any] | None], scale: float = 1.0, floor: float | None = 0.0
) -> tuple[list[float], list[list[float]]]:
    """The means and the `yerr` (2 x N: below, above) of points that have a mean; points
    without one are left out, so filter the x values the same way (`error_bar(s) is not
    None`)."""
    bars = [b for b in (error_bar(s, scale, floor) for s in stats) if b is not None]
    return [b[0] for b in bars], [[b[1] for b in bars], [b[2] for b in bars]]


def split_by(
    points: Sequence[Mapping[str, Any]], *keys: str, order: Sequence[Any] | None = None
) -> list[tuple[tuple[Any, ...], list[Mapping[str, Any]]]]:
    """The points grouped by the values of the override `keys` (one figure per reading, a panel
    per channel, a line per scheme): `(values, points)` pairs in the order of the values, or in
    `order` (values of a single key, or tuples of values) with the groups it does not name after.

    >>> points = [{"overrides": {"rate": "2G", "p": 0.1}}, {"overrides": {"rate": "1G", "p": 0.1}}]
    >>> [(values, len(group)) for values, group in split_by(points, "rate", "p")]
    [(('1G', 0.1), 1), (('2G', 0.1), 1)]
    >>> [values for values, _ in split_by(points, "rate", order=["2G", "1G"])]
    [('2G',), ('1G',)]
    """
    groups: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for point in points:
        groups.setdefault(tuple(point["overrides"][k] for k in keys), []).append(point)
    named = [v if isinstance(v, tuple) else (v,) for v in order or ()]
    first = [(values, groups[values]) for values in named if values in groups]
    rest = sorted((item for item in groups.items() if item[0] not in named), key=lambda i: i[0])
    return first + rest


def by_reading(
    points: Sequence[Mapping[str, Any]], axes: Sequence[str]
) -> list[tuple[str, list[Mapping[str, Any]]]]:
    """The points grouped by their overrides beyond the figure's `axes` (the readings of a
    `[[sweep.grids]]` or `[[sweep.point]]`): `(label, points)` pairs, the points without extra
    overrides first with label `""`, then each reading's, labelled `path=value` (joined by `, `)
    in the order they first appear. One figure per reading keeps a reading's bar from replacing
    the setting's.

    >>> points = [{"overrides": {"scheme": "a"}}, {"overrides": {"scheme": "a", "t": "5ms"}}]
    >>> [(label, len(group)) for label, group in by_reading(points, ["scheme"])]
    [('', 1), ('t=5ms', 1)]
    """
    groups: dict[str, list[Mapping[str, Any]]] = {"": []}
    for point in points:
        extra = [f"{k}={v}" for k, v in point["overrides"].items() if k not in axes]
        groups.setdefault(", ".join(extra), []).append(point)
    return [(label, group) for label, group in groups.items() if group]


def file_slug(label: str) -> str:
    """`label` as part of a file name: runs of other characters than letters, digits, `.` and
    `-` become one `_`.

    >>> file_slug("link.core.rate=6Gbps, start=warm")
    'link.core.rate_6Gbps_start_warm'
    """
    return re.sub(r"[^A-Za-z0-9.-]+", "_", label).strip("_")


def results_table(
    points: Sequence[Mapping[str, Any]],
    rows: Sequence[str],
    column: str,
    metric: str,
    scale: float = 1.0,
    digits: int = 2,
) -> str:
    """A markdown table of `metric` (mean ± 95 % CI half-width, scaled): one row per combination
    of the override `rows` (in the points' order), one column per value of the override `column`
    (in the points' order); a cell without a point or a mean is `-`. For the generated "Results"
    tables of a README (`figures/results.md`), never retyped.

    >>> pts = [
    ...     {"overrides": {"per": "0", "s": "a"}, "metrics": {"m": {"mean": 2e9, "ci95": 1e8}}},
    ...     {"overrides": {"per": "0", "s": "b"}, "metrics": {"m": {"mean": 1e9, "ci95": None}}},
    ... ]
    >>> print(results_table(pts, ["per"], "s", "m", 1e-9))
    | per | a | b |
    |---|---|---|
    | 0 | 2.00 ± 0.10 | 1.00 |
    """
    keys = list(dict.fromkeys(tuple(p["overrides"][k] for k in rows) for p in points))
    columns = list(dict.fromkeys(p["overrides"][column] for p in points))
    at = {(tuple(p["overrides"][k] for k in rows), p["overrides"][column]): p for p in points}
    lines = [
        "| " + " | ".join([*rows, *map(str, columns)]) + " |",
        "|---" * (len(rows) + len(columns)) + "|",
    ]
    for key in keys:
        cells = []
        for value in columns:
            stats = at.get((key, value), {}).get("metrics", {}).get(metric) or {}
            mean, half = stats.get("mean"), stats.get("ci95")
            if mean is None:
                cells.append("-")
            elif half is None or not math.isfinite(half):
                cells.append(f"{mean * scale:.{digits}f}")
            else:
                cells.append(f"{mean * scale:.{digits}f} ± {abs(half * scale):.{digits}f}")
        lines.append("| " + " | ".join([*map(str, key), *cells]) + " |")
    return "\n".join(lines)


def results_by_reading(
    points: Sequence[Mapping[str, Any]],
    axes: Sequence[str],
    split: Sequence[str],
    rows: Sequence[str],
    column: str,
    metric: str,
    scale: float = 1.0,
    digits: int = 2,
) -> str:
    """`results_table`s for a README's "Results": one per reading (`by_reading` over `axes`) and
    per value of the overrides `split`, each under a line naming them.

    >>> pts = [{"overrides": {"s": "a", "r": "1"}, "metrics": {"m": {"mean": 1.0}}},
    ...        {"overrides": {"s": "a", "r": "1", "x": "2"}, "metrics": {"m": {"mean": 3.0}}}]
    >>> print(results_by_reading(pts, ["s", "r"], [], ["r"], "s", "m"))
    At the setting:
    <BLANKLINE>
    | r | a |
    |---|---|
    | 1 | 1.00 |
    <BLANKLINE>
    Reading x=2:
    <BLANKLINE>
    | r | a |
    |---|---|
    | 1 | 3.00 |
    <BLANKLINE>
    """
    out = []
    for reading, theirs in by_reading(points, axes):
        for values, mine in split_by(theirs, *split):
            named = ", ".join(f"{k} = {v}" for k, v in zip(split, values, strict=True))
            title = f"Reading {reading}" if reading else "At the setting"
            out += [f"{title}{', ' + named if named else ''}:", ""]
            out += [results_table(mine, rows, column, metric, scale, digits), ""]
    return "\n".join(out)


def interval_label(points: Sequence[Mapping[str, Any]]) -> str:
    """What the error bars show, for a title: `mean and 95 % CI over 10 seeds`, or `mean and
    min..max over 2 seeds`.

    >>> interval_label([{"runs": 2}]), interval_label([{"runs": 10}, {"runs": 9}])
    ('mean and min..max over 2 seeds', 'mean and 95 % CI over 10 seeds')
    """
    seeds = max((p.get("runs", 0) for p in points), default=0)
    if seeds < MIN_SEEDS_FOR_CI:
        return f"mean and min..max over {seeds} seed{'s' if seeds != 1 else ''}"
    return f"mean and 95 % CI over {seeds} seeds"


def paper_line(
    axes: Axes, value: float, label: str, *, vertical: bool = False, linestyle: str = "--"
) -> None:
    """A dashed line (or `linestyle`) at the paper's stated `value` (horizontal, or vertical),
    labelled `paper: <label>` in the legend."""
    style = {"color": PAPER_COLOUR, "linestyle": linestyle, "linewidth": 1.2}
    style["label"] = f"paper: {label}"
    if vertical:
        axes.axvline(value, **style)
    else:
        axes.axhline(value, **style)


def paper_marker(axes: Axes, x: float, y: float, label: str | None = None) -> None:
    """A marker at the paper's stated value `y` at `x`; the first of a series carries the legend
    label `paper: <label>`."""
    axes.plot(
        [x],
        [y],
        marker="*",
        markersize=12,
        linestyle="",
        color=PAPER_COLOUR,
        label=f"paper: {label}" if label else None,
        zorder=5,
    )


def wrapped_title(figure: Figure, text: str, fontsize: float = 12.0) -> None:
    """`figure.suptitle(text)`, wrapped to the figure's width so that it is never clipped."""
    width_points = figure.get_figwidth() * 72
    characters = max(20, int(width_points / (0.55 * fontsize)))
    figure.suptitle(textwrap.fill(text, characters), fontsize=fontsize)


def grouped_bars(
    axes: Axes,
    points: Sequence[Mapping[str, Any]],
    *,
    group: Callable[[Mapping[str, Any]], str],
    series: Callable[[Mapping[str, Any]], str],
    styles: Mapping[str, tuple[str, str]],
    metric: str,
    scale: float = 1.0,
    spread: tuple[str, str] | None = None,
) -> None:
    """Bars of `metric` (mean and error bar, `error_bar`) grouped along x: one tick per value of
    `group(overrides)`, in the points' order, and within it one bar per value of
    `series(overrides)`, in the order and with the (label, colour) of `styles`. With `spread`
    (two metrics, e.g. a 5th and a 95th percentile), a thin line joins their means over each bar."""
    groups = list(dict.fromkeys(group(p["overrides"]) for p in points))
    shown = [s for s in styles if any(series(p["overrides"]) == s for p in points)]
    width = 0.8 / max(len(shown), 1)
    at = {(group(p["overrides"]), series(p["overrides"])): p for p in points}
    for k, name in enumerate(shown):
        label, colour = styles[name]
        for i, g in enumerate(groups):
            point = at.get((g, name))
            bar = error_bar(point["metrics"].get(metric), scale) if point else None
            if bar is None:
                continue
            x = i + (k - (len(shown) - 1) / 2) * width
            axes.bar(
                x,
                bar[0],
                width,
                yerr=[[bar[1]], [bar[2]]],
                capsize=3,
                color=colour,
                label=label if i == 0 else None,
            )
            if spread is not None:
                low, high = (point["metrics"].get(m) or {} for m in spread)
                if low.get("mean") is not None and high.get("mean") is not None:
                    axes.plot(
                        [x, x], [low["mean"] * scale, high["mean"] * scale], color="black", lw=0.8
                    )
    axes.set_xticks(range(len(groups)), groups, fontsize=8)
