"""Figures of polese2017-retx: throughput, latency and download time of TCP CUBIC over 28 GHz
for three link-layer configurations, each value the mean over the seeds with its 95 % CI.

- `throughput.png`: goodput per distance (Polese et al. 2017a Fig. 1, Polese et al. 2017b
  Fig. 2a bars);
- `latency.png`: mean RTT per distance, and RTT against goodput (Polese et al. 2017a Fig. 3);
- `download.png`: download time against file size, one panel per distance (Polese et al. 2017a
  Fig. 4, Polese et al. 2017b Fig. 2b);
- `trace.png`: throughput over time of one run per configuration at 150 m (Polese et al. 2017a
  Fig. 2);
- `readings.png`: goodput per distance under each reading of the unstated values (README,
  "Readings");
- `am_gain.png` and `am_gain.csv`: what HARQ + RLC AM adds over HARQ + RLC UM and over no HARQ
  with RLC UM, seed by seed (the figure at the paper's setting, the CSV for every reading). Every
  configuration of a seed sees the same channel realisation (the channel's random stream
  depends on the seed and the link, not on HARQ or RLC), so the paired differences are much
  tighter than the overlap of the per-configuration intervals suggests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

import mmtcp
from mmtcp.figures import error_bar, interval_label, paper_marker, wrapped_title
from mmtcp.stats import describe

SCENARIO = Path(__file__).with_name("scenario.toml")
DISTANCE = "link.air.radio.channel.distance_m"
REDRAW = "link.air.radio.channel.state_redraw"
BLER = "link.air.radio.amc.target_bler"
VISIBILITY = "link.air.radio.channel.visibility"
HARQ = "link.air.radio.harq.enabled"
RLC = "link.air.radio.rlc.mode"
APP = "flow.tcp.app.kind"
SIZE = "flow.tcp.app.size"

CONFIGS = [("false", "um"), ("true", "um"), ("true", "am")]
LABELS = {
    ("false", "um"): "no HARQ, RLC UM",
    ("true", "um"): "HARQ, RLC UM",
    ("true", "am"): "HARQ, RLC AM",
}
COLOURS = {("false", "um"): "tab:red", ("true", "um"): "tab:orange", ("true", "am"): "tab:blue"}


def _config(point: dict[str, Any]) -> tuple[str, str]:
    o = point["overrides"]
    return str(o[HARQ]).lower(), str(o[RLC])


def _distance(point: dict[str, Any]) -> str:
    return f"{float(point['overrides'][DISTANCE]):g} m"


PAPER_SETTING = "paper setting"


def _reading(point: dict[str, Any]) -> str:
    """The reading a point belongs to (experiment.toml): `paper setting` without extra keys."""
    o = point["overrides"]
    parts = []
    if REDRAW in o:
        parts.append("redraw-1s")
    if BLER in o:
        parts.append("bler-1e-4")
    if VISIBILITY in o:
        parts.append(f"state-{o[VISIBILITY]}")
    return "-".join(parts) or PAPER_SETTING


def _stat(point: dict[str, Any], metric: str, scale: float) -> tuple[float, float] | None:
    stats = point["metrics"].get(metric)
    if not stats or stats["mean"] is None:
        return None
    return stats["mean"] * scale, (stats["ci95"] or 0.0) * scale


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws the three figures into `out_dir` and returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    all_bulk = [p for p in points if str(p["overrides"].get(APP, "bulk")) == "bulk"]
    all_downloads = [p for p in points if str(p["overrides"].get(APP, "bulk")) == "download"]
    bulk = [p for p in all_bulk if _reading(p) == PAPER_SETTING]
    downloads = [p for p in all_downloads if _reading(p) == PAPER_SETTING]
    seeds = max((p["runs"] for p in points), default=0)
    paths = []
    if bulk:
        paths.append(_bars(bulk, "flows.tcp.goodput_bps", 1e-6, "goodput (Mbit/s)", seeds, out_dir))
        paths.append(_latency(bulk, seeds, out_dir))
        paths.append(_trace(out_dir))
    if {_reading(p) for p in all_bulk} - {PAPER_SETTING}:
        paths.append(_readings(all_bulk, out_dir))
    if downloads:
        paths.append(_downloads(downloads, seeds, out_dir))
    runs = out_dir.parent / "runs"
    if runs.is_dir():
        paths.extend(_am_gain(all_bulk, all_downloads, runs, out_dir))
    return paths


def _groups(points: list[dict[str, Any]]) -> list[str]:
    def key(label: str) -> tuple[float, str]:
        return float(label.split()[0]), label

    return sorted({_distance(p) for p in points}, key=key)


def _bar_axes(axes, points, metric, scale, ylabel) -> None:
    groups = _groups(points)
    width = 0.8 / len(CONFIGS)
    for c, config in enumerate(CONFIGS):
        xs, means, below, above = [], [], [], []
        for g, group in enumerate(groups):
            match = [p for p in points if _distance(p) == group and _config(p) == config]
            bar = error_bar(match[0]["metrics"].get(metric), scale) if match else None
            if bar is not None:  # clipped at 0
                xs.append(g + (c - 1) * width)
                means.append(bar[0])
                below.append(bar[1])
                above.append(bar[2])
        colour = COLOURS[config]
        yerr = [below, above]
        axes.bar(xs, means, width, yerr=yerr, capsize=3, label=LABELS[config], color=colour)
    axes.set_xticks(range(len(groups)), groups)
    axes.set_xlabel("UE-eNB distance")
    axes.set_ylabel(ylabel)
    axes.grid(True, axis="y", alpha=0.3)
    axes.legend()


# Single-path CUBIC over 28 GHz as stated in the papers' MP-TCP sections (the reference of
# Polese et al. 2017a Fig. 5 / Polese et al. 2017b Fig. 3, with the module's default HARQ + RLC
# AM): at 50 m MP-TCP gains 800 Mbit/s = 28 % (Polese et al. 2017a §IV), so 800 / 0.28 = 2857
# Mbit/s; at 150 m it gains "more than 450 Mbit/s (about 100 percent)" (Polese et al. 2017b), so
# about 450 Mbit/s.
STATED_SP_TCP_MBPS = {"50 m": 800 / 0.28, "150 m": 450.0}


def _bars(points, metric, scale, ylabel, seeds, out_dir) -> Path:
    figure = Figure(figsize=(9, 4.5), layout="constrained")
    axes = figure.subplots()
    _bar_axes(axes, points, metric, scale, ylabel)
    groups = _groups(points)
    width = 0.8 / len(CONFIGS)
    labelled = False
    for g, group in enumerate(groups):
        if group in STATED_SP_TCP_MBPS:
            label = (
                None if labelled else "SP-TCP CUBIC (Polese et al. 2017a §IV, Polese et al. 2017b)"
            )
            paper_marker(axes, g + width, STATED_SP_TCP_MBPS[group], label)
            labelled = True
    axes.legend()
    wrapped_title(figure, f"TCP CUBIC uplink over 28 GHz ({interval_label(points)})")
    path = out_dir / "throughput.png"
    figure.savefig(path, dpi=120)
    return path


def _latency(points, seeds, out_dir) -> Path:
    figure = Figure(figsize=(12, 4.5), layout="constrained")
    bars, tradeoff = figure.subplots(1, 2)
    _bar_axes(bars, points, "flows.tcp.rtt_ms.mean", 1.0, "mean RTT (ms)")
    for config in CONFIGS:
        xs, ys = [], []
        for p in points:
            g = _stat(p, "flows.tcp.goodput_bps", 1e-6)
            r = _stat(p, "flows.tcp.rtt_ms.mean", 1.0)
            if _config(p) == config and g and r:
                xs.append(g[0])
                ys.append(r[0])
                tradeoff.annotate(_distance(p), (g[0], r[0]), fontsize=7)
        tradeoff.plot(xs, ys, marker="o", linestyle="", color=COLOURS[config], label=LABELS[config])
    tradeoff.set_xlabel("goodput (Mbit/s)")
    tradeoff.set_ylabel("mean RTT (ms)")
    tradeoff.grid(True, alpha=0.3)
    tradeoff.legend()
    wrapped_title(
        figure, f"Latency and the throughput-latency trade-off ({interval_label(points)})"
    )
    path = out_dir / "latency.png"
    figure.savefig(path, dpi=120)
    return path


def _megabytes(size: str) -> float:
    return float(size.removesuffix("MB"))


def _downloads(points, seeds, out_dir) -> Path:
    groups = _groups(points)
    figure = Figure(figsize=(4 * len(groups), 4), layout="constrained")
    axes_list = figure.subplots(1, len(groups), sharey=True, squeeze=False)[0]
    for axes, group in zip(axes_list, groups, strict=True):
        for config in CONFIGS:
            metric = "flows.tcp.completion_seconds"
            rows = sorted(
                (
                    (_megabytes(str(p["overrides"][SIZE])), p)
                    for p in points
                    if _distance(p) == group and _config(p) == config
                ),
                key=lambda row: row[0],
            )
            bars = [(size, error_bar(p["metrics"].get(metric))) for size, p in rows]
            bars = [(size, bar) for size, bar in bars if bar is not None]  # clipped at 0
            axes.errorbar(
                [size for size, _ in bars],
                [bar[0] for _, bar in bars],
                yerr=[[bar[1] for _, bar in bars], [bar[2] for _, bar in bars]],
                marker="o",
                capsize=3,
                color=COLOURS[config],
                label=LABELS[config],
            )
        axes.set_title(group)
        axes.set_xlabel("file size (MB)")
        axes.grid(True, alpha=0.3)
    axes_list[0].set_ylabel("download time (s)")
    axes_list[0].legend()
    wrapped_title(
        figure, f"wget download time of a file hosted on the UE ({interval_label(points)})"
    )
    path = out_dir / "download.png"
    figure.savefig(path, dpi=120)
    return path


def _per_seed(runs: Path, point: dict[str, Any], read) -> dict[int, float]:
    """Seed → value read from that run's summary (runs without the value are left out)."""
    values = {}
    for path in (runs / point["id"]).glob("seed-*.json"):
        value = read(json.loads(path.read_text(encoding="utf-8")))
        if value is not None:
            values[int(path.stem.removeprefix("seed-"))] = value
    return values


def _paired(runs, um_point, am_point, read, change) -> tuple[float, float, int] | None:
    um = _per_seed(runs, um_point, read)
    am = _per_seed(runs, am_point, read)
    diffs = [change(um[seed], am[seed]) for seed in sorted(um.keys() & am.keys())]
    if len(diffs) < 2:
        return None
    stats = describe(diffs)
    return stats.mean, stats.ci95 or 0.0, len(diffs)


def _goodput(summary: dict[str, Any]) -> float | None:
    return summary["flows"][0]["goodput_bps"]


def _completion(summary: dict[str, Any]) -> float | None:
    return summary["flows"][0]["completion_seconds"]


def _am_gain(bulk, downloads, runs: Path, out_dir: Path) -> list[Path]:
    def partner(points, point, config):
        o = point["overrides"]
        for p in points:
            q = p["overrides"]
            keys = (o.keys() | q.keys()) - {HARQ, RLC}
            same = all(str(q.get(k)) == str(o.get(k)) for k in keys)
            if same and _config(p) == config:
                return p
        return None

    rows = []
    for point in bulk:
        other = partner(bulk, point, ("true", "um"))
        if _config(point) == ("true", "am") and other:
            gain = _paired(runs, other, point, _goodput, lambda um, am: (am - um) / 1e6)
            if gain:
                row = (_distance(point), "bulk", "HARQ + UM", "goodput gain (Mbit/s)", *gain)
                rows.append((_reading(point), *row))
    for baseline in [("true", "um"), ("false", "um")]:
        for point in downloads:
            other = partner(downloads, point, baseline)
            if _config(point) == ("true", "am") and other:
                saved = _paired(runs, other, point, _completion, lambda b, am: 100 * (b - am) / b)
                if saved:
                    size = str(point["overrides"][SIZE])
                    label = "HARQ + UM" if baseline == ("true", "um") else "no HARQ + UM"
                    row = (_distance(point), size, label, "download time saved (%)", *saved)
                    rows.append((_reading(point), *row))
    if not rows:
        return []
    csv = ["reading,distance,workload,baseline,quantity,mean,ci95,seeds"]
    csv += [f"{r},{d},{w},{b},{q},{m:.6g},{c:.6g},{n}" for r, d, w, b, q, m, c, n in rows]
    csv_path = out_dir / "am_gain.csv"
    csv_path.write_text("\n".join(csv) + "\n", encoding="utf-8")
    rows = [row[1:] for row in rows if row[0] == PAPER_SETTING]

    figure = Figure(figsize=(16, 4.5), layout="constrained")
    bulk_axes, *download_axes = figure.subplots(1, 3)
    bulk_rows = [r for r in rows if r[1] == "bulk"]
    bulk_axes.bar(
        [r[0] for r in bulk_rows],
        [r[4] for r in bulk_rows],
        yerr=[r[5] for r in bulk_rows],
        capsize=3,
        color=COLOURS[("true", "am")],
    )
    # Polese et al. 2017a §III: RLC AM adds "100 Mbit/s at d = 75 m and 50 Mbit/s at d = 100 m"; at
    # d = 150 m it "does not improve the performance of RLC UM".
    stated = {"75 m": 100.0, "100 m": 50.0, "150 m": 0.0}
    labelled = False
    for x, row in enumerate(bulk_rows):
        if row[0] in stated:
            paper_marker(bulk_axes, x, stated[row[0]], None if labelled else "AM gain stated")
            labelled = True
    if labelled:
        bulk_axes.legend()
    bulk_axes.axhline(0, color="black", linewidth=0.8)
    bulk_axes.set_ylabel("goodput, HARQ + AM minus HARQ + UM (Mbit/s)")
    bulk_axes.set_xlabel("UE-eNB distance")
    bulk_axes.grid(True, axis="y", alpha=0.3)
    sizes = sorted({r[1] for r in rows if r[1] != "bulk"}, key=_megabytes)
    groups = sorted({r[0] for r in rows if r[1] != "bulk"}, key=lambda g: float(g.split()[0]))
    width = 0.8 / max(len(sizes), 1)
    for axes, baseline in zip(download_axes, ["HARQ + UM", "no HARQ + UM"], strict=True):
        for i, size in enumerate(sizes):
            picked = {r[0]: r for r in rows if r[1] == size and r[2] == baseline}
            offset = (i - (len(sizes) - 1) / 2) * width
            xs = [g + offset for g in range(len(groups)) if groups[g] in picked]
            values = [picked[g] for g in groups if g in picked]
            heights = [v[4] for v in values]
            axes.bar(xs, heights, width, yerr=[v[5] for v in values], capsize=3, label=size)
        axes.set_xticks(range(len(groups)), groups)
        axes.axhline(0, color="black", linewidth=0.8)
        axes.set_ylabel(f"download time saved by HARQ + AM over {baseline} (%)")
        axes.set_xlabel("UE-eNB distance")
        axes.grid(True, axis="y", alpha=0.3)
        axes.legend(title="file")
    wrapped_title(figure, "What HARQ + RLC AM adds (paired by seed; mean and 95 % CI)")
    path = out_dir / "am_gain.png"
    figure.savefig(path, dpi=120)
    return [path, csv_path]


# Polese et al. 2017a Fig. 2 is one simulation per configuration at 150 m. Seed 3 draws NLOS
# there (as ns-3 does 89 % of the time at 150 m: p_LOS = 0.107, p_out = 0), with a shadowing that
# leaves the link above the lowest MCS; seed 1's draw is below it and carries nothing.
TRACE_SEED = 3
TRACE_BIN_S = 0.1


def _trace(out_dir: Path) -> Path:
    """Throughput over time at 150 m, one run per configuration, in 100 ms bins."""
    figure = Figure(figsize=(10, 6), layout="constrained")
    rate_axes, sinr_axes = figure.subplots(2, 1, sharex=True, height_ratios=[3, 1])
    for harq, mode in CONFIGS:
        overrides = {DISTANCE: 150.0, HARQ: harq == "true", RLC: mode}
        series = mmtcp.run(SCENARIO, seed=TRACE_SEED, overrides=overrides).timeseries
        bins = (series["time_s"] / TRACE_BIN_S).astype(int)
        rate = series.groupby(bins)["link.air.fwd.throughput_bps"].mean()
        label = LABELS[(harq, mode)]
        rate_axes.plot(
            rate.index * TRACE_BIN_S,
            rate.to_numpy() / 1e6,
            label=label,
            color=COLOURS[(harq, mode)],
        )
        if (harq, mode) == ("true", "am"):
            sinr_axes.plot(
                series["time_s"], series["link.air.fwd.sinr_db"], color="black", linewidth=0.8
            )
    rate_axes.set_ylabel("uplink radio throughput (Mbit/s)")
    rate_axes.grid(True, alpha=0.3)
    rate_axes.legend()
    sinr_axes.set_ylabel("SINR (dB)")
    sinr_axes.set_xlabel("time (s)")
    sinr_axes.grid(True, alpha=0.3)
    wrapped_title(
        figure,
        f"TCP CUBIC at 150 m, seed {TRACE_SEED}, {TRACE_BIN_S * 1000:g} ms bins "
        "(Polese et al. 2017a Fig. 2 plots the PDCP throughput of one simulation)",
    )
    path = out_dir / "trace.png"
    figure.savefig(path, dpi=120)
    return path


def _readings(points: list[dict[str, Any]], out_dir: Path) -> Path:
    """Goodput per distance, one panel per reading."""
    readings = sorted({_reading(p) for p in points}, key=lambda r: (r != PAPER_SETTING, r))
    figure = Figure(figsize=(5 * len(readings), 4.5), layout="constrained")
    axes_list = figure.subplots(1, len(readings), sharey=True, squeeze=False)[0]
    for axes, reading in zip(axes_list, readings, strict=True):
        picked = [p for p in points if _reading(p) == reading]
        _bar_axes(axes, picked, "flows.tcp.goodput_bps", 1e-6, "goodput (Mbit/s)")
        axes.set_title(reading)
    wrapped_title(figure, f"Goodput under each reading ({interval_label(points)})")
    path = out_dir / "readings.png"
    figure.savefig(path, dpi=120)
    return path
