"""The standard plots of a run, drawn from its summary and time series.

`plot_dir(result_dir)` reads `summary.json` and `timeseries.parquet` from a directory written by
`mmtcp run` (or `Result.save`) and writes into `result_dir/plots/`:

- `goodput.png`: goodput of each flow over time, with each radio link's forward capacity;
- `cwnd.png`: congestion window, slow-start threshold and bytes in flight, one panel per flow;
- `rtt.png`: round-trip time of each flow (the mean of the samples in each interval);
- `queues.png`: queue occupancy of each link direction;
- `radio.png`: SINR and MCS of each direction of a link with the radio stack (`[link.radio]`).

A plot whose columns are absent from the time series is skipped. Figures are drawn with
matplotlib's object API on the Agg canvas: no display, no pyplot global state.
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

Summary = dict[str, Any]
Key = TypeVar("Key")

_DPI = 120
_WIDTH_INCHES = 10.0


def plot_dir(result_dir: str | os.PathLike[str]) -> list[Path]:
    """Draws the plots of the run saved in `result_dir`; returns the files written."""
    directory = Path(result_dir)
    summary = json.loads((directory / "summary.json").read_text(encoding="utf-8"))
    timeseries = pd.read_parquet(directory / "timeseries.parquet", engine="pyarrow")
    return plot_result(summary, timeseries, directory / "plots")


def plot_result(summary: Summary, timeseries: pd.DataFrame, plots_dir: Path) -> list[Path]:
    """Draws every plot whose columns are present into `plots_dir`; returns the files written."""
    plots_dir.mkdir(parents=True, exist_ok=True)
    written = []
    drawers: dict[str, Callable[[Summary, pd.DataFrame], Figure | None]] = {
        "goodput.png": goodput_figure,
        "cwnd.png": cwnd_figure,
        "rtt.png": rtt_figure,
        "queues.png": queues_figure,
        "radio.png": radio_figure,
    }
    for file_name, draw in drawers.items():
        figure = draw(summary, timeseries)
        if figure is not None:
            path = plots_dir / file_name
            figure.savefig(path, dpi=_DPI)
            written.append(path)
    return written


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
    figure, ax = _figure(height=5.0)
    time = ts["time_s"]
    for name, column in flows:
        ax.plot(time, ts[column] / 1e6, label=f"{name} goodput", linewidth=1.2)
    radio = [link for link in summary["links"] if link["kind"] == "radio"]
    capacities = _present(ts, [(link, f"link.{link['name']}.fwd.capacity_bps") for link in radio])
    for link, column in capacities:
        a, b = link["between"]
        ax.plot(
            time,
            ts[column] / 1e6,
            label=f"{link['name']} capacity ({a}→{b})",
            drawstyle="steps-post",
            linestyle="--",
            linewidth=1.0,
        )
    _finish(ax, title="Goodput per flow", ylabel="rate (Mbit/s)")
    ax.set_ylim(bottom=0)
    return figure


def cwnd_figure(summary: Summary, ts: pd.DataFrame) -> Figure | None:
    """Congestion window, slow-start threshold and bytes in flight: one panel per flow."""
    metrics = [
        ("cwnd_bytes", "cwnd", "-"),
        ("ssthresh_bytes", "ssthresh", "--"),
        ("inflight_bytes", "bytes in flight", ":"),
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
        scale, unit = _byte_unit(peak)
        for (label, style), column in lines:
            ax.plot(time, ts[column] / scale, label=label, linestyle=style, linewidth=1.2)
        _finish(ax, title=f"Flow {name}: window and bytes in flight", ylabel=f"size ({unit})")
        ax.set_ylim(bottom=0)
    for ax in axes[:-1]:
        ax.set_xlabel("")
    return figure


def rtt_figure(summary: Summary, ts: pd.DataFrame) -> Figure | None:
    """Round-trip time per flow (per subflow of an MP-TCP flow); intervals without a sample
    (NaN) are bridged."""
    flows = _present(ts, [(name, f"flow.{name}.rtt_ms") for name in _tcp_connections(summary)])
    if not flows:
        return None
    figure, ax = _figure(height=4.5)
    for name, column in flows:
        samples = ts[["time_s", column]].dropna()
        ax.plot(samples["time_s"], samples[column], label=name, linewidth=1.2)
    _finish(ax, title="Round-trip time per flow", ylabel="RTT (ms)")
    ax.set_ylim(bottom=0)
    return figure


def queues_figure(summary: Summary, ts: pd.DataFrame) -> Figure | None:
    """Queue occupancy (bytes) of each link direction."""
    candidates = []
    for link in summary["links"]:
        a, b = link["between"]
        for direction, arrow in (("fwd", f"{a}→{b}"), ("rev", f"{b}→{a}")):
            label = f"{link['name']} {direction} ({arrow})"
            candidates.append((label, f"link.{link['name']}.{direction}.queue_bytes"))
    queues = _present(ts, candidates)
    if not queues:
        return None
    figure, ax = _figure(height=4.5)
    scale, unit = _byte_unit(max(np.nanmax(ts[column], initial=0.0) for _, column in queues))
    for label, column in queues:
        ax.plot(ts["time_s"], ts[column] / scale, label=label, drawstyle="steps-post")
    _finish(ax, title="Queue occupancy per link direction", ylabel=f"queue ({unit})")
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
            candidates.append((f"{link['name']} {direction} ({arrow})", prefix))
    radios = [(label, prefix) for label, prefix in candidates if f"{prefix}.sinr_db" in ts.columns]
    if not radios:
        return None
    figure = Figure(figsize=(_WIDTH_INCHES, 6.5), layout="constrained")
    sinr_ax, mcs_ax = figure.subplots(2, 1, sharex=True)
    for label, prefix in radios:
        sinr = ts[f"{prefix}.sinr_db"].replace(-np.inf, np.nan)
        sinr_ax.plot(ts["time_s"], sinr, label=label, drawstyle="steps-post")
        mcs_ax.plot(ts["time_s"], ts[f"{prefix}.mcs"], label=label, drawstyle="steps-post")
    _finish(sinr_ax, title="SINR per radio direction (sampled)", ylabel="SINR (dB)")
    _finish(mcs_ax, title="MCS the SINR allows", ylabel="MCS index")
    return figure


def _present(ts: pd.DataFrame, wanted: list[tuple[Key, str]]) -> list[tuple[Key, str]]:
    """The `(key, column)` pairs whose column is in the time series."""
    return [(key, column) for key, column in wanted if column in ts.columns]


def _figure(height: float) -> tuple[Figure, Axes]:
    figure = Figure(figsize=(_WIDTH_INCHES, height), layout="constrained")
    return figure, figure.add_subplot()


def _finish(ax: Axes, *, title: str, ylabel: str) -> None:
    ax.set_title(title)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize="small")


def _byte_unit(largest: float) -> tuple[float, str]:
    """A divisor and unit name that keep `largest` bytes readable (decimal units, as the core)."""
    for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if largest >= scale:
            return scale, unit
    return 1.0, "bytes"
