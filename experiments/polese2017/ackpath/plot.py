"""Figure of polese2017-ackpath: TCP throughput with the ACKs on mmWave or on LTE, per RLC buffer
and UE speed (Polese et al. 2017a Fig. 11), one panel per reading (the obstacles' size: 2-8 m, the
scenario's, then each reading of experiment.toml; LTE's channel), each bar the mean over the
seeds with its 95 % CI (min..max with 2 seeds), clipped at 0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import error_bar, interval_label, wrapped_title

BUFFER = "link.mmw.radio.rlc.buffer"
SPEED = "link.mmw.radio.channel.ue_velocity"
ACKS = "flow.tcp.ack_path"
GOODPUT = "flows.tcp.goodput_bps"
OBSTACLES = "link.mmw.radio.channel.obstacles"
SCENARIO_OBSTACLES = "obstacles of 2-8 m (scenario.toml)"
LTE_PROPAGATION = "link.lte.radio.channel.propagation"


def _reading(point: dict[str, Any]) -> str:
    if LTE_PROPAGATION in point["overrides"]:
        return "LTE as UMa with fading (lte-uma-fading)"
    size = point["overrides"].get(OBSTACLES)
    if size is None:
        return SCENARIO_OBSTACLES
    return f"obstacles of {size['min_size_m']:g}-{size['max_size_m']:g} m"


def _key(point: dict[str, Any]) -> tuple[float, str, str]:
    o = point["overrides"]
    return float(o[SPEED][1]), str(o[BUFFER]), str(o[ACKS][2])


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws `throughput.png` into `out_dir` and returns its path."""
    readings = list(dict.fromkeys(_reading(p) for p in points))
    readings.sort(key=lambda r: r != SCENARIO_OBSTACLES)
    figure = Figure(figsize=(7 * len(readings), 4.5), layout="constrained")
    axes_row = figure.subplots(1, len(readings), squeeze=False)[0]
    for axes, reading in zip(axes_row, readings, strict=True):
        _panel(axes, [p for p in points if _reading(p) == reading])
        axes.set_title(reading)
        axes.set_ylabel("TCP throughput (Mbit/s)")
    wrapped_title(
        figure, f"Data on 28 GHz, ACKs on 28 GHz or LTE, moving UE ({interval_label(points)})"
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "throughput.png"
    figure.savefig(path, dpi=120)
    return [path]


def _panel(axes, points: list[dict[str, Any]]) -> None:
    by_key = {_key(p): p for p in points}
    groups = sorted(
        {(speed, buffer) for speed, buffer, _ in by_key}, key=lambda g: (g[0], float(g[1][:-2]))
    )
    width = 0.38
    for offset, (acks, label, colour) in enumerate(
        [("mmw", "ACKs on mmWave", "tab:blue"), ("lte", "ACKs on LTE", "tab:orange")]
    ):
        xs, heights, errors = [], [], [[], []]
        for i, (speed, buffer) in enumerate(groups):
            point = by_key.get((speed, buffer, acks))
            bar = error_bar(point["metrics"][GOODPUT], 1e-6) if point else None
            if bar is None:
                continue
            mean, below, above = bar
            xs.append(i + (offset - 0.5) * width)
            heights.append(mean)
            errors[0].append(below)
            errors[1].append(above)
        axes.bar(xs, heights, width, yerr=errors, capsize=3, label=label, color=colour)
    axes.set_xticks(range(len(groups)), [f"RLC {b}\n{s:g} m/s" for s, b in groups])
    axes.set_ylim(bottom=0)
    axes.grid(True, axis="y", alpha=0.3)
    axes.legend()
