"""The terminal table of a sweep's points: each point's overrides and runs, and each metric as
`mean ± ci95` rounded to a few significant digits (`mean (min..max)` with 2 seeds)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from mmtcp.api import override_pairs
from mmtcp.report import Table, format_table

MIN_SEEDS_FOR_CI = 3
"""Below this many values a table shows the min-max range instead of the 95 % CI."""


def points_table(points: list[dict[str, Any]], metrics: Sequence[str]) -> str:
    """A terminal table: one row per point, its overrides, then `mean ± ci95` of each metric."""
    return format_table(*points_rows(points, metrics))


def points_rows(points: list[dict[str, Any]], metrics: Sequence[str]) -> Table:
    """The cells of `points_table` (for the terminal and the HTML report)."""
    keys: list[str] = []
    for point in points:
        keys += [k for k in point["overrides"] if k not in keys]
    header = [*(keys or ["point"]), "runs", *metrics]
    rows = []
    for point in points:
        overrides = dict(override_pairs(point["overrides"]))
        cells = [overrides.get(k, "-") for k in keys] if keys else [point["id"]]
        cells.append(
            str(point["runs"]) + (f" ({point['failed']} failed)" if point["failed"] else "")
        )
        cells += [format_estimate(point["metrics"][m]) for m in metrics]
        rows.append(cells)
    return header, rows


def format_estimate(stats: Mapping[str, Any]) -> str:
    """`mean ± ci95` with an SI prefix for large values, e.g. `19.8M ± 0.12M`; with 2 values
    (a t interval from 2 values is 12.7 standard errors wide) `mean (min..max)` instead; the mean
    alone when there is no interval; `-` without values.

    >>> format_estimate({"mean": 19.8e6, "ci95": 1.2e5})
    '19.8M ± 0.12M'
    >>> format_estimate({"mean": 27.61, "ci95": None}), format_estimate({"mean": None})
    ('27.61', '-')
    >>> format_estimate({"mean": 1236.0, "ci95": 1300.0}), format_estimate({"mean": 3, "ci95": 0})
    ('1.236k ± 1.3k', '3 ± 0')
    >>> format_estimate({"n": 2, "mean": 1.42e9, "ci95": 17e9, "min": 1.3e9, "max": 1.54e9})
    '1.42G (1.3G..1.54G)'
    """
    mean, ci = stats.get("mean"), stats.get("ci95")
    if mean is None:
        return "-"
    scale, prefix = 1.0, ""
    for factor, name in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(mean) >= factor:
            scale, prefix = factor, name
            break
    text = f"{significant(mean / scale, 4)}{prefix}"
    n, low, high = stats.get("n"), stats.get("min"), stats.get("max")
    if n is not None and 2 <= n < MIN_SEEDS_FOR_CI and low is not None and high is not None:
        low_text, high_text = (significant(v / scale, 3) for v in (low, high))
        return f"{text} ({low_text}{prefix}..{high_text}{prefix})"
    if ci is not None and math.isfinite(ci):
        ci = 0.0 if ci <= 1e-9 * abs(mean) else ci
        text += f" ± {significant(ci / scale, 2)}{prefix}"
    return text


def estimate_legend(points: Sequence[Mapping[str, Any]]) -> str:
    """What the cells of `points_table` show: `mean ± 95 % CI over the seeds`, and the min-max
    range where a point has fewer than 3 values."""
    legend = "mean ± 95 % CI over the seeds"
    counts = [stats.get("n") for point in points for stats in point.get("metrics", {}).values()]
    if any(n is not None and 2 <= n < MIN_SEEDS_FOR_CI for n in counts):
        legend += f"; mean (min..max) where fewer than {MIN_SEEDS_FOR_CI} seeds have a value"
    return legend


def significant(value: float, digits: int) -> str:
    """`value` rounded to `digits` significant digits, in fixed-point notation.

    >>> significant(0.0026123, 2), significant(130.4, 2), significant(91.4123, 4), significant(0, 2)
    ('0.0026', '130', '91.41', '0')
    """
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    exponent = math.floor(math.log10(abs(value)))
    decimals = digits - 1 - exponent
    rounded = round(value, decimals)
    text = f"{rounded:.{max(decimals, 0)}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text
