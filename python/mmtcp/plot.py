"""The standard plots of a run, drawn from its summary and time series.

`plot_dir(result_dir)` reads `summary.json` and `timeseries.parquet` from a directory written by
`mmtcp run` (or `Result.save`) and writes into `result_dir/plots/` (PNG, or SVG with
`plot_format="svg"`):

- `goodput.png`: goodput of each flow over time, with each radio link's forward capacity; the
  y axis stops a little above the 99th percentile of each flow's goodput (and the capacity), so
  that the burst of a receiver releasing its reordering buffer after an outage does not flatten
  the rest: samples above the axis are marked on its top edge, labelled with the peak;
- `cwnd.png`: congestion window (wide, pale), bytes in flight (thin, drawn over it) and
  slow-start threshold (dashed), one panel per flow;
- `rtt.png`: round-trip time of each flow (the mean of the samples in each interval); the line
  is broken where no sample came for more than `RTT_GAP_INTERVALS` sampling intervals (an
  outage), and bridged across shorter gaps;
- `queues.png`: queue occupancy of each link direction;
- `radio.png`: SINR and MCS of each direction of a link with the radio stack (`[link.radio]`).

A plot whose columns are absent from the time series is skipped. Names from the scenario (flows,
links, nodes) are shown literally: a `$` in them does not start matplotlib's mathtext, and a
leading `_` does not hide the line from the legend. Figures
are drawn with matplotlib's object API on the Agg canvas: no display, no pyplot global state.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from mmtcp.api import PLOT_FORMATS

Summary = dict[str, Any]
Key = TypeVar("Key")

RTT_GAP_INTERVALS = 3
"""The RTT line is broken where consecutive samples are more than this many intervals apart."""
GOODPUT_PERCENTILE = 99.0
"""The goodput axis reaches a little above this percentile of each flow's samples."""

DPI = 120
_WIDTH_INCHES = 10.0
_HEADROOM = 1.1


def plot_dir(result_dir: str | os.PathLike[str], plot_format: str = "png") -> list[Path]:
    """Draws the plots of the run saved in `result_dir`; returns the files written. A run
    without `timeseries.parquet` (more than `metrics.summary_entries` flows or links) or with
    more than `report.FEW` flows or links gets the distribution plots of `mmtcp.plot_many` (a
    folder written before the long tables existed, with only `timeseries.parquet`, a line per
    entity)."""
    from mmtcp.report import detailed

    directory = Path(result_dir)
    summary = json.loads((directory / "summary.json").read_text(encoding="utf-8"))
    wide = directory / "timeseries.parquet"
    few = detailed(summary, "flows") and detailed(summary, "links")
    if not wide.is_file() or (not few and (directory / "flows.parquet").is_file()):
        from mmtcp.plot_many import plot_distributions
        from mmtcp.tables import read_saved

        return plot_distributions(summary, read_saved(directory), directory / "plots", plot_format)
    timeseries = pd.read_parquet(wide, engine="pyarrow")
    return plot_result(summary, timeseries, directory / "plots", plot_format)


def plot_result(
    summary: Summary, timeseries: pd.DataFrame, plots_dir: Path, plot_format: str = "png"
) -> list[Path]:
    """Draws every plot whose columns are present into `plots_dir` as `<plot>.<plot_format>`
    (one of `PLOT_FORMATS`); returns the files written."""
    if plot_format not in PLOT_FORMATS:
        raise ValueError(f"plot format {plot_format!r}; expected one of {', '.join(PLOT_FORMATS)}")
    plots_dir.mkdir(parents=True, exist_ok=True)
    written = []
    drawers: dict[str, Callable[[Summary, pd.DataFrame], Figure | None]] = {
        "goodput": goodput_figure,
        "cwnd": cwnd_figure,
        "rtt": rtt_figure,
        "queues": queues_figure,
        "radio": radio_figure,
    }
    for stem, draw in drawers.items():
        figure = draw(summary, timeseries)
        if figure is not None:
            path = plots_dir / f"{stem}.{plot_format}"
            figure.savefig(path, dpi=DPI, format=plot_format)
            written.append(path)
    return written


def literal(text: str) -> str:
    """`text` as matplotlib shows it literally: each `$` escaped, so that a name such as
    `$\\alpha$_x` or `a$b` is not read as mathtext (which may fail to parse); and a leading `_`,
    which would leave the line out of the legend, behind a zero-width space.

    >>> literal("a$b"), literal("_x"), literal("x")
    ('a\\\\$b', '\\u200b_x', 'x')
    """
    escaped = text.replace("$", r"\$")
    return "\u200b" + escaped if escaped.startswith("_") else escaped


def _tcp_connections(summary: Summary) -> list[str]:
    """The names of every TCP connection: single-path flows, and each MP-TCP flow's subflows."""
    names = []
    for flow in summary["flows"]:
        names.extend(s["name"] for s in flow.get("subflows") or [{"name": flow["name"]}])
    return names


def goodput_figure(summary: Summary, ts: pd.DataFrame) -> Figure | None:
    """Goodput per flow over time (an MP-TCP flow's and each of its subflows'), with each radio
    link's forward capacity overlaid."""
    names = []
    for flow in summary["flows"]:
        names.append(flow["name"])
        names.extend(s["name"] for s in flow.get("subflows") or [])
    flows = _present(ts, [(name, f"flow.{name}.goodput_bps") for name in names])
    if not flows:
        return None
    figure, ax = new_figure(height=5.0)
    time = ts["time_s"]
    for name, column in flows:
        ax.plot(time, ts[column] / 1e6, label=literal(f"{name} goodput"), linewidth=1.2)
    radio = [link for link in summary["links"] if link["kind"] == "radio"]
    capacities = _present(ts, [(link, f"link.{link['name']}.fwd.capacity_bps") for link in radio])
    for link, column in capacities:
        a, b = link["between"]
        ax.plot(
            time,
            ts[column] / 1e6,
            label=literal(f"{link['name']} capacity ({a}→{b})"),
            drawstyle="steps-post",
            linestyle="--",
            linewidth=1.0,
        )
    goodput = [ts[column].to_numpy() / 1e6 for _, column in flows]
    capacity = [ts[column].to_numpy() / 1e6 for _, column in capacities]
    top = goodput_axis_top(goodput, capacity)
    peak = max(float(np.nanmax(values, initial=0.0)) for values in goodput)
    if peak > top:
        above = np.any([values > top for values in goodput], axis=0)
        ax.plot(
            time[above],
            np.full(int(above.sum()), top),
            linestyle="",
            marker="^",
            color="black",
            clip_on=False,
            label=f"above the axis (peak {peak:,.0f} Mbit/s)",
        )
    finish_axes(ax, title="Goodput per flow", ylabel="rate (Mbit/s)")
    ax.set_ylim(0, top)
    return figure


def goodput_axis_top(goodput: list[np.ndarray], capacity: list[np.ndarray]) -> float:
    """The top of the goodput axis (Mbit/s): `_HEADROOM` times the larger of each flow's
    `GOODPUT_PERCENTILE`th percentile and the highest capacity; 1 when everything is 0.

    >>> spike = np.r_[np.full(199, 10.0), 5000.0]
    >>> round(goodput_axis_top([spike], []), 6), round(goodput_axis_top([spike], [np.r_[50.0]]), 6)
    (11.0, 55.0)
    """
    levels = [float(np.nanpercentile(values, GOODPUT_PERCENTILE)) for values in goodput]
    levels += [float(np.nanmax(values, initial=0.0)) for values in capacity]
    finite = [level for level in levels if np.isfinite(level)]
    return _HEADROOM * max(finite) if finite and max(finite) > 0 else 1.0


def cwnd_figure(summary: Summary, ts: pd.DataFrame) -> Figure | None:
    """Congestion window, slow-start threshold and bytes in flight: one panel per flow."""
    # Bytes in flight is often equal to the window: the window is drawn wide and pale, and bytes
    # in flight thin and dark over it, so that both show where they coincide.
    metrics: list[tuple[str, str, dict[str, Any]]] = [
        ("cwnd_bytes", "cwnd", {"linewidth": 3.0, "alpha": 0.4, "color": "tab:blue", "zorder": 2}),
        ("ssthresh_bytes", "ssthresh", {"linestyle": "--", "color": "tab:green", "zorder": 3}),
        ("inflight_bytes", "bytes in flight", {"linewidth": 1.0, "color": "black", "zorder": 4}),
    ]
    panels = []
    for name in _tcp_connections(summary):
        lines = _present(ts, [((label, style), f"flow.{name}.{m}") for m, label, style in metrics])
        if lines:
            panels.append((name, lines))
    if not panels:
        return None
    figure = Figure(figsize=(_WIDTH_INCHES, 2.0 + 2.5 * len(panels)), layout="constrained")
    axes = figure.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    time = ts["time_s"]
    for ax, (name, lines) in zip(axes, panels, strict=True):
        # pandas' max skips NaN (ssthresh is NaN until the first loss) without warning.
        peak = max(float(np.nan_to_num(ts[column].max())) for _, column in lines)
        scale, unit = byte_unit(peak)
        for (label, style), column in lines:
            ax.plot(time, ts[column] / scale, label=label, **{"linewidth": 1.2, **style})
        title = literal(f"Flow {name}: window and bytes in flight")
        finish_axes(ax, title=title, ylabel=f"size ({unit})")
        ax.set_ylim(bottom=0)
    for ax in axes[:-1]:
        ax.set_xlabel("")
    return figure


def rtt_figure(summary: Summary, ts: pd.DataFrame) -> Figure | None:
    """Round-trip time per flow (per subflow of an MP-TCP flow): intervals without a sample
    (NaN) are bridged, unless more than `RTT_GAP_INTERVALS` in a row are (`broken_at_gaps`)."""
    flows = _present(ts, [(name, f"flow.{name}.rtt_ms") for name in _tcp_connections(summary)])
    if not flows:
        return None
    figure, ax = new_figure(height=4.5)
    interval = float(np.median(np.diff(ts["time_s"]))) if len(ts) > 1 else 0.0
    for name, column in flows:
        samples = ts[["time_s", column]].dropna()
        time, rtt = broken_at_gaps(
            samples["time_s"].to_numpy(), samples[column].to_numpy(), RTT_GAP_INTERVALS * interval
        )
        ax.plot(time, rtt, label=literal(name), linewidth=1.2)
    finish_axes(ax, title="Round-trip time per flow", ylabel="RTT (ms)")
    ax.set_ylim(bottom=0)
    return figure


def broken_at_gaps(
    time: np.ndarray, values: np.ndarray, max_gap: float
) -> tuple[np.ndarray, np.ndarray]:
    """`time` and `values` with a NaN inserted between consecutive samples more than `max_gap`
    apart, where matplotlib then breaks the line.

    >>> broken_at_gaps(np.array([0.0, 0.1, 0.2, 1.0]), np.array([1.0, 2.0, 3.0, 4.0]), 0.3)
    (array([0. , 0.1, 0.2, 0.6, 1. ]), array([ 1.,  2.,  3., nan,  4.]))
    """
    gaps = np.flatnonzero(np.diff(time) > max_gap) + 1
    middles = (time[gaps - 1] + time[gaps]) / 2
    return np.insert(time, gaps, middles), np.insert(values.astype(float), gaps, np.nan)


def queues_figure(summary: Summary, ts: pd.DataFrame) -> Figure | None:
    """Queue occupancy (bytes) of each link direction."""
    candidates = []
    for link in summary["links"]:
        a, b = link["between"]
        for direction, arrow in (("fwd", f"{a}→{b}"), ("rev", f"{b}→{a}")):
            label = literal(f"{link['name']} {direction} ({arrow})")
            candidates.append((label, f"link.{link['name']}.{direction}.queue_bytes"))
    queues = _present(ts, candidates)
    if not queues:
        return None
    figure, ax = new_figure(height=4.5)
    scale, unit = byte_unit(max(np.nanmax(ts[column], initial=0.0) for _, column in queues))
    for label, column in queues:
        ax.plot(ts["time_s"], ts[column] / scale, label=label, drawstyle="steps-post")
    finish_axes(ax, title="Queue occupancy per link direction", ylabel=f"queue ({unit})")
    ax.set_ylim(bottom=0)
    return figure


def radio_figure(summary: Summary, ts: pd.DataFrame) -> Figure | None:
    """SINR (top) and the MCS it allows (bottom) of each radio-stack direction; an outage
    (SINR of minus infinity, no MCS) shows as a gap."""
    candidates = []
    for link in summary["links"]:
        a, b = link["between"]
        for direction, arrow in (("fwd", f"{a}→{b}"), ("rev", f"{b}→{a}")):
            prefix = f"link.{link['name']}.{direction}"
            candidates.append((literal(f"{link['name']} {direction} ({arrow})"), prefix))
    radios = [(label, prefix) for label, prefix in candidates if f"{prefix}.sinr_db" in ts.columns]
    if not radios:
        return None
    figure = Figure(figsize=(_WIDTH_INCHES, 6.5), layout="constrained")
    sinr_ax, mcs_ax = figure.subplots(2, 1, sharex=True)
    for label, prefix in radios:
        sinr = ts[f"{prefix}.sinr_db"].replace(-np.inf, np.nan)
        sinr_ax.plot(ts["time_s"], sinr, label=label, drawstyle="steps-post")
        mcs_ax.plot(ts["time_s"], ts[f"{prefix}.mcs"], label=label, drawstyle="steps-post")
    finish_axes(sinr_ax, title="SINR per radio direction (sampled)", ylabel="SINR (dB)")
    finish_axes(mcs_ax, title="MCS the SINR allows", ylabel="MCS index")
    return figure


def _present(ts: pd.DataFrame, wanted: list[tuple[Key, str]]) -> list[tuple[Key, str]]:
    """The `(key, column)` pairs whose column is in the time series."""
    return [(key, column) for key, column in wanted if column in ts.columns]


def new_figure(height: float) -> tuple[Figure, Axes]:
    """A figure of the plots' width and `height` inches with one axes (also `plot_many`'s)."""
    figure = Figure(figsize=(_WIDTH_INCHES, height), layout="constrained")
    return figure, figure.add_subplot()


def finish_axes(ax: Axes, *, title: str, ylabel: str) -> None:
    """Title, time axis, y label, grid and legend, as every plot of a run has them."""
    ax.set_title(title)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize="small")


def byte_unit(largest: float) -> tuple[float, str]:
    """A divisor and unit name that keep `largest` bytes readable (decimal units, as the core)."""
    for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if largest >= scale:
            return scale, unit
    return 1.0, "bytes"
