"""The plots of a run with many flows or links (more than `mmtcp.report.FEW`): distributions
across the entities instead of a line per entity, drawn from the run's tables.

- `goodput_cdf.png`: the CDF of the flows' goodputs over the run (one value per flow; an MP-TCP
  connection counts once);
- `goodput.png`: the 10th, 50th and 90th percentiles and the mean of the flows' goodputs in each
  sampling interval, with the `TOP_LINES` flows of most goodput drawn thin;
- `rtt.png`: the 10th, 50th and 90th percentiles across flows of each interval's mean RTT (flows
  without an RTT sample in the interval left out);
- `queues.png`: the median, 90th percentile and maximum across link directions of the queue
  occupancy in each interval.

The tables are pyarrow Tables (`Result.tables[name].to_arrow()`, or read from the run's parquet
files); nothing is built per entity in Python beyond the `TOP_LINES` lines.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib.figure import Figure

from mmtcp.plot import DPI, byte_unit, finish_axes, literal, new_figure
from mmtcp.tables import entities_per_sample

if TYPE_CHECKING:
    import numpy.typing as npt
    import pyarrow as pa

TOP_LINES = 5
"""Flows drawn one by one over the goodput percentiles: those with the most goodput."""

PERCENTILES = (10, 50, 90)


def plot_distributions(
    summary: Mapping[str, Any], tables: Mapping[str, pa.Table], plots_dir: Path, plot_format: str
) -> list[Path]:
    """Draws the distribution plots whose tables are present into `plots_dir`; returns the
    files written."""
    plots_dir.mkdir(parents=True, exist_ok=True)
    figures = {
        "goodput_cdf": goodput_cdf_figure(tables),
        "goodput": goodput_figure(tables),
        "rtt": rtt_figure(tables),
        "queues": queues_figure(tables),
    }
    written = []
    for stem, figure in figures.items():
        if figure is not None:
            path = plots_dir / f"{stem}.{plot_format}"
            figure.savefig(path, dpi=DPI, format=plot_format)
            written.append(path)
    return written


def _flows(tables: Mapping[str, pa.Table]) -> pa.Table | None:
    """The flow_summary rows of scenario flows (MP-TCP subflows left out)."""
    import pyarrow.compute as pc

    table = tables.get("flow_summary")
    if table is None or table.num_rows == 0:
        return None
    return table.filter(pc.is_null(table["subflow"]))


def goodput_cdf_figure(tables: Mapping[str, pa.Table]) -> Figure | None:
    flows = _flows(tables)
    if flows is None:
        return None
    goodput = np.sort(flows["goodput_bps"].to_numpy(zero_copy_only=False)) / 1e6
    share = np.arange(1, len(goodput) + 1) / len(goodput)
    figure, ax = new_figure(height=4.5)
    ax.step(goodput, share, where="post", label=f"{len(goodput):,} flows")
    ax.set_title("Goodput per flow over the run: CDF")
    ax.set_xlabel("goodput (Mbit/s)")
    ax.set_ylabel("share of flows")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    return figure


def _per_sample(
    table: pa.Table, metric: str, rows: npt.NDArray[np.bool_] | None = None
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """A long-form series as (times, values [sample, entity], entity rows kept): its `metric`
    reshaped to one row per sample, keeping the entities where `rows` (over one sample) holds."""
    time = table["time_s"].to_numpy()
    entities = entities_per_sample(time)
    samples = len(time) // entities
    kept = np.arange(entities) if rows is None else np.flatnonzero(rows[:entities])
    values = table[metric].to_numpy(zero_copy_only=False).astype(np.float64)
    return time[::entities], values.reshape(samples, entities)[:, kept], kept


def _percentile_lines(ax: Any, time: Any, values: Any, scale: float) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an interval where no entity has a value
        bands = np.nanpercentile(values, PERCENTILES, axis=1)
    for p, line in zip(PERCENTILES, bands, strict=True):
        ax.plot(time, line / scale, label=f"p{p} across {values.shape[1]:,}", linewidth=1.5)


def _top_level_rows(flows: pa.Table) -> npt.NDArray[np.bool_]:
    import pyarrow.compute as pc

    return pc.is_null(flows["subflow"]).to_numpy(zero_copy_only=False)


def goodput_figure(tables: Mapping[str, pa.Table]) -> Figure | None:
    series, summary = tables.get("flows"), _flows(tables)
    if series is None or series.num_rows == 0 or summary is None:
        return None
    time, values, kept = _per_sample(series, "goodput_bps", _top_level_rows(series))
    figure, ax = new_figure(height=5.0)
    _percentile_lines(ax, time, values, 1e6)
    ax.plot(time, values.mean(axis=1) / 1e6, label="mean", linestyle="--", linewidth=1.2)
    top = np.argsort(-summary["goodput_bps"].to_numpy(zero_copy_only=False), kind="stable")
    top_names = [str(n) for n in summary["flow"].take(top[:TOP_LINES]).to_pylist()]
    column_of = {str(n): c for c, n in enumerate(series["flow"].take(kept).to_pylist())}
    for name in top_names:
        line = values[:, column_of[name]] / 1e6
        ax.plot(time, line, linewidth=0.6, alpha=0.7, label=literal(name))
    finish_axes(ax, title="Goodput across flows per interval", ylabel="goodput (Mbit/s)")
    return figure


def rtt_figure(tables: Mapping[str, pa.Table]) -> Figure | None:
    series = tables.get("flows")
    if series is None or series.num_rows == 0:
        return None
    import pyarrow.compute as pc

    # Single-path flows and subflows: the rows where RTT applies (a connection's are null).
    has_rtt = pc.is_valid(series["rtt_ms"]).to_numpy(zero_copy_only=False)
    time, values, _ = _per_sample(series, "rtt_ms", has_rtt)
    if values.shape[1] == 0 or np.isnan(values).all():
        return None
    figure, ax = new_figure(height=4.5)
    _percentile_lines(ax, time, values, 1.0)
    finish_axes(ax, title="RTT across flows per interval (each flow's mean)", ylabel="RTT (ms)")
    return figure


def queues_figure(tables: Mapping[str, pa.Table]) -> Figure | None:
    series = tables.get("links")
    if series is None or series.num_rows == 0:
        return None
    time, values, _ = _per_sample(series, "queue_bytes")
    scale, unit = byte_unit(float(values.max(initial=0.0)))
    figure, ax = new_figure(height=4.5)
    for label, line in (
        ("median", np.median(values, axis=1)),
        ("p90", np.percentile(values, 90, axis=1)),
        ("max", values.max(axis=1)),
    ):
        ax.plot(time, line / scale, label=f"{label} across {values.shape[1]:,} directions")
    finish_axes(ax, title="Queue occupancy across link directions", ylabel=f"queue ({unit})")
    return figure
