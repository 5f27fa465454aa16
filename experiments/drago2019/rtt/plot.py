"""Figures of drago2019-rtt (Drago et al. Figs. 6-9), each statistic the mean over the seeds with
its 95 % CI, and time plots from extra runs (scenario B, seed 1, 30 s, 35 dB blockage), once at
the paper's setting (10 dB walls, `_r10`) and once at the outage reading (30 dB walls, `_r30`):

- `timeline_<scheme>_r<walls>.png`: channel rate and application rate (a), congestion window with
  slow start threshold — for the proxies, the proxy's BDP estimate — (b) (Figs. 6 and 7);
- `blockage_rtt_r<walls>.png`: the RTT of each scheme through the blockage that holds the lowest
  channel rate after the start-up (the stretch where the rate stays below its peak) (Fig. 8);
- `blockage_window.csv`: from the same runs, per reading and scheme, the highest RTT (mean per
  10 ms) over the whole run, over the first 2 s (the start-up), after them, and through that
  blockage (0.5 s before it to 1 s after it), and the share of 100 ms intervals after the first
  second with an application rate below 10 Mbit/s (Fig. 6a): what the sweep's whole-run
  summaries cannot separate;
- `rtt_percentiles_r<loss>.png`: RTT percentiles 50, 99 and 99.999 per scenario and scheme at a
  35 dB blockage, one figure per wall reflection loss (Fig. 9);
- `throughput_r<loss>.png`: mean application throughput per scenario and scheme, likewise;
- `sensitivity.png`: p99 and maximum RTT and throughput against the blockage depth, per scenario
  and wall reading (the readings the paper leaves open).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

import mmtcp
from mmtcp.figures import error_bar, interval_label, paper_line, wrapped_title

SCENARIO = Path(__file__).parent / "scenario.toml"
SOURCE = "link.air.radio.channel.source.scenario"
DEPTH = "link.air.radio.channel.source.blockage_db"
WALLS = "link.air.radio.channel.source.reflection_loss_db"
CLAIM_DEPTH = 35.0  # the paper's setting: a whole body (Drago et al. §I, [13])
SETTING_WALLS = 10.0  # the paper's setting: strong reflections, no outage (README)
OUTAGE_WALLS = 30.0  # the wall reading at which a 35 dB blockage reaches outage
START_UP_S = 2.0  # the start-up the blockage window leaves out (slow start, T not yet measured)
PROXY = "node.proxy.processors"
SCHEMES = [
    ("cubic", "TCP CUBIC", "tab:red"),
    ("reactive", "reactive proxy", "tab:blue"),
    ("proactive", "proactive proxy", "tab:green"),
]
TIMELINE_SECONDS = "30s"


def at_reading(points: list[dict[str, Any]], depth: float, walls: float) -> list[dict[str, Any]]:
    """The points of one reading (blockage depth, wall reflection loss), dB."""
    return [
        p
        for p in points
        if float(p["overrides"].get(DEPTH, -1)) == depth
        and float(p["overrides"].get(WALLS, -1)) == walls
    ]


def scheme(point: dict[str, Any]) -> str:
    processors = point["overrides"].get(PROXY) or []
    return processors[0].get("policy", "reactive") if processors else "cubic"


def stat(point: dict[str, Any], metric: str, scale: float = 1.0) -> tuple[float, float] | None:
    stats = point["metrics"].get(metric)
    if not stats or stats["mean"] is None:
        return None
    return stats["mean"] * scale, (stats["ci95"] or 0.0) * scale


def bars(points, metrics, scale, ylabel, title, path: Path) -> Path:
    """One panel per channel scenario; groups of bars per metric, one bar per scheme."""
    scenarios = sorted({str(p["overrides"][SOURCE]) for p in points})
    figure = Figure(figsize=(6 * len(scenarios), 4.5), layout="constrained")
    panels = figure.subplots(1, len(scenarios), squeeze=False)[0]
    width = 0.8 / len(SCHEMES)
    for axes, source in zip(panels, scenarios, strict=True):
        for s, (key, label, colour) in enumerate(SCHEMES):
            match = [
                p for p in points if str(p["overrides"][SOURCE]) == source and scheme(p) == key
            ]
            xs, ys, below, above = [], [], [], []
            for m, (metric, _) in enumerate(metrics):
                bar = error_bar(match[0]["metrics"].get(metric), scale) if match else None
                if bar is not None:  # clipped at 0
                    xs.append(m + (s - 1) * width)
                    ys.append(bar[0])
                    below.append(bar[1])
                    above.append(bar[2])
            yerr = [below, above]
            axes.bar(xs, ys, width, yerr=yerr, capsize=3, label=label, color=colour)
        axes.set_xticks(range(len(metrics)), [name for _, name in metrics])
        axes.set_title(f"scenario {source.upper()}")
        axes.set_ylabel(ylabel)
        axes.grid(True, axis="y", alpha=0.3)
        axes.legend()
    wrapped_title(figure, title)
    figure.savefig(path, dpi=120)
    return path


def timelines(out_dir: Path) -> list[Path]:
    """Runs scenario B once per scheme (seed 1) at the setting's walls and at the outage reading,
    draws the time plots and writes `blockage_window.csv`."""
    paths = []
    rows = [
        "walls_db,scheme,max_rtt_ms,max_rtt_first_2s_ms,max_rtt_after_2s_ms,"
        "blockage_from_s,blockage_to_s,max_rtt_blockage_ms,share_100ms_below_10mbps"
    ]
    for walls in (SETTING_WALLS, OUTAGE_WALLS):
        series = timeline_runs(walls)
        paths.extend(timeline_figures(series, walls, out_dir))
        first, last = blockage(series["cubic"])
        for key, _, _ in SCHEMES:
            ts = series[key]
            time = ts["time_s"].to_numpy()
            rtt = ts["flow.tcp.rtt_ms"].to_numpy()
            near = (time > first - 0.5) & (time < last + 1.0)
            goodput = ts["flow.tcp.goodput_bps"].to_numpy()
            rows_100ms = len(goodput) // 10
            per_100ms = goodput[: rows_100ms * 10].reshape(rows_100ms, 10).mean(axis=1)
            share = float(np.mean(per_100ms[10:] < 10e6)) if rows_100ms > 10 else float("nan")
            rows.append(
                f"{walls:g},{key},{np.nanmax(rtt):.1f},{np.nanmax(rtt[~(time > START_UP_S)]):.1f},"
                f"{np.nanmax(rtt[time > START_UP_S]):.1f},{first:.2f},{last:.2f},"
                f"{np.nanmax(rtt[near]):.1f},{share:.3f}"
            )
        paths.append(blockage_figure(series, walls, (first, last), out_dir))
    path = out_dir / "blockage_window.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    paths.append(path)
    return paths


def blockage(ts: Any) -> tuple[float, float]:
    """The first and last time of the blockage that holds the lowest channel rate after the
    start-up: the stretch around it where the rate stays below the run's highest."""
    time = ts["time_s"].to_numpy()
    capacity = ts["link.air.fwd.capacity_bps"].to_numpy()
    below = capacity < 0.99 * np.nanmax(capacity)
    after = np.flatnonzero(time > START_UP_S)
    first = last = int(after[np.argmin(capacity[after])])
    while first > 0 and below[first - 1]:
        first -= 1
    while last + 1 < len(time) and below[last + 1]:
        last += 1
    return float(time[first]), float(time[last])


def timeline_runs(walls: float) -> dict[str, Any]:
    """The time series of one 30 s run per scheme, scenario B, seed 1."""
    proxies = {
        "cubic": [],
        "reactive": [{"kind": "bdp", "policy": "reactive", "link": "air"}],
        "proactive": [{"kind": "bdp", "policy": "proactive", "link": "air"}],
    }
    delays = {"report_delay": "20ms", "control_delay": "50us"}
    series = {}
    for key, _, _ in SCHEMES:
        processors = [{**p, **delays} for p in proxies[key]]
        overrides = {
            SOURCE: "b",
            DEPTH: CLAIM_DEPTH,
            WALLS: walls,
            PROXY: processors,
            "simulation.duration": TIMELINE_SECONDS,
        }
        series[key] = mmtcp.run(SCENARIO, seed=1, overrides=overrides).timeseries
    return series


def timeline_figures(series: dict[str, Any], walls: float, out_dir: Path) -> list[Path]:
    """`timeline_<scheme>_r<walls>.png`: Figs. 6 and 7."""
    paths = []
    for key, label, _ in SCHEMES:
        ts = series[key]
        t = ts["time_s"].to_numpy()
        figure = Figure(figsize=(12, 4.5), layout="constrained")
        rate_axes, window_axes = figure.subplots(1, 2)
        capacity = ts["link.air.fwd.capacity_bps"] / 1e6
        rate_axes.plot(t, capacity, label="channel rate", color="black")
        # In-order delivery comes in bursts when a hole fills: a 100 ms moving average.
        goodput = ts["flow.tcp.goodput_bps"].rolling(10, min_periods=1).mean() / 1e6
        rate_axes.plot(t, goodput, label="application rate (100 ms mean)", color="tab:blue")
        rate_axes.set_xlabel("time (s)")
        rate_axes.set_ylabel("rate (Mbit/s)")
        rate_axes.legend()
        rate_axes.grid(True, alpha=0.3)
        window_axes.plot(t, ts["flow.tcp.cwnd_bytes"] / 1e6, label="cwnd", color="tab:blue")
        bdp = "proxy.proxy.bdp.tcp.bdp_bytes"
        if bdp in ts:
            # Under a pin the controller's own ssthresh means nothing: show the BDP estimate.
            window_axes.plot(t, ts[bdp] / 1e6, label="proxy's BDP estimate", color="tab:green")
        else:
            ssthresh = ts["flow.tcp.ssthresh_bytes"] / 1e6
            window_axes.plot(t, ssthresh, label="ssthresh", color="tab:orange")
        window_axes.set_xlabel("time (s)")
        window_axes.set_ylabel("MB")
        window_axes.legend()
        window_axes.grid(True, alpha=0.3)
        wrapped_title(
            figure,
            f"{label}, scenario B, {CLAIM_DEPTH:.0f} dB blockage, {walls:.0f} dB walls (seed 1)",
        )
        path = out_dir / f"timeline_{key}_r{walls:.0f}.png"
        figure.savefig(path, dpi=120)
        paths.append(path)
    return paths


def blockage_figure(
    series: dict[str, Any], walls: float, span: tuple[float, float], out_dir: Path
) -> Path:
    """`blockage_rtt_r<walls>.png`: the RTT through the blockage of `span` (Fig. 8)."""
    first, last = span
    figure = Figure(figsize=(8, 4.5), layout="constrained")
    axes = figure.subplots()
    for key, label, colour in SCHEMES:
        ts = series[key]
        window = (ts["time_s"] > first - 1.0) & (ts["time_s"] < last + 2.0)
        axes.plot(ts["time_s"][window], ts["flow.tcp.rtt_ms"][window], label=label, color=colour)
    axes.axvspan(first, last, color="grey", alpha=0.15, label="blockage (rate below its peak)")
    axes.set_xlabel("time (s)")
    axes.set_ylabel("RTT (ms, mean per 10 ms)")
    # §V, Fig. 8: the reactive proxy "guarantees an RTT not higher than 70 ms (with respect to
    # the peak of 200 ms experienced by TCP CUBIC)".
    paper_line(axes, 200.0, "CUBIC's RTT peak, 200 ms")
    paper_line(axes, 70.0, "reactive proxy's highest RTT, 70 ms", linestyle=":")
    axes.set_ylim(bottom=0)
    axes.set_title(
        f"RTT through the deepest blockage after {START_UP_S:g} s ({first:.2f}-{last:.2f} s), "
        f"scenario B, {walls:.0f} dB walls"
    )
    axes.grid(True, alpha=0.3)
    axes.legend()
    path = out_dir / f"blockage_rtt_r{walls:.0f}.png"
    figure.savefig(path, dpi=120)
    return path


def sensitivity(points: list[dict[str, Any]], path: Path) -> Path | None:
    """p99 and maximum RTT and throughput against the blockage depth: one row per metric, one
    column per scenario and wall reading, one line per scheme."""
    depths = sorted({float(p["overrides"][DEPTH]) for p in points if DEPTH in p["overrides"]})
    walls = sorted({float(p["overrides"][WALLS]) for p in points if WALLS in p["overrides"]})
    scenarios = sorted({str(p["overrides"][SOURCE]) for p in points})
    if len(depths) < 2:
        return None
    rows = [
        ("flows.tcp.rtt_ms.p99", 1.0, "p99 RTT (ms)"),
        ("flows.tcp.rtt_ms.max", 1.0, "max RTT (ms)"),
        ("flows.tcp.goodput_bps", 1e-6, "throughput (Mbit/s)"),
    ]
    columns = [(s, w) for s in scenarios for w in walls]
    figure = Figure(figsize=(4 * len(columns), 3.2 * len(rows)), layout="constrained")
    grid = figure.subplots(len(rows), len(columns), squeeze=False)
    for c, (source, wall) in enumerate(columns):
        for r, (metric, scale, ylabel) in enumerate(rows):
            axes = grid[r][c]
            for key, label, colour in SCHEMES:
                xs, ys, below, above = [], [], [], []
                for depth in depths:
                    match = [
                        p
                        for p in at_reading(points, depth, wall)
                        if str(p["overrides"][SOURCE]) == source and scheme(p) == key
                    ]
                    bar = error_bar(match[0]["metrics"].get(metric), scale) if match else None
                    if bar is not None:
                        xs.append(depth)
                        ys.append(bar[0])
                        below.append(bar[1])
                        above.append(bar[2])
                axes.errorbar(
                    xs, ys, yerr=[below, above], marker="o", capsize=3, label=label, color=colour
                )
            if source == "b" and metric == "flows.tcp.rtt_ms.max":
                paper_line(axes, 200.0, "CUBIC's peak, 200 ms")
                paper_line(axes, 70.0, "reactive's highest, 70 ms", linestyle=":")
            axes.set_xlabel("blockage depth (dB)")
            axes.set_ylabel(ylabel)
            axes.set_ylim(bottom=0)
            axes.grid(True, alpha=0.3)
            if r == 0:
                axes.set_title(f"scenario {source.upper()}, walls {wall:.0f} dB")
            if r == 0 and c == 0:
                axes.legend(fontsize="small")
    label = interval_label(points)
    wrapped_title(figure, f"Sensitivity to the readings the paper leaves open ({label})")
    figure.savefig(path, dpi=120)
    return path


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws the figures into `out_dir` and returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    percentiles = [
        ("flows.tcp.rtt_ms.p50", "p50"),
        ("flows.tcp.rtt_ms.p99", "p99"),
        ("flows.tcp.rtt_ms.p99_999", "p99.999"),
    ]
    paths = []
    walls = sorted({float(p["overrides"][WALLS]) for p in points if WALLS in p["overrides"]})
    for wall in walls:
        reading = at_reading(points, CLAIM_DEPTH, wall)
        if not reading:
            continue
        where = f"{CLAIM_DEPTH:.0f} dB blockage, {wall:.0f} dB walls"
        paths.append(
            bars(
                reading,
                percentiles,
                1.0,
                "RTT (ms)",
                f"RTT percentiles, {where} ({interval_label(reading)})",
                out_dir / f"rtt_percentiles_r{wall:.0f}.png",
            )
        )
        paths.append(
            bars(
                reading,
                [("flows.tcp.goodput_bps", "throughput")],
                1e-6,
                "Mbit/s",
                f"Application throughput, {where} ({interval_label(reading)})",
                out_dir / f"throughput_r{wall:.0f}.png",
            )
        )
    extra = sensitivity(points, out_dir / "sensitivity.png")
    if extra is not None:
        paths.append(extra)
    paths.extend(timelines(out_dir))
    return paths
