"""Figure and table of polese2017-levels: single-path CUBIC goodput over the 28 GHz uplink (HARQ +
RLC AM) at each calibration step and distance, beside the papers' levels.

- `levels.png`: goodput against distance, one line per step (mean and 95 % CI over the seeds),
  the papers' 2.86 Gbit/s at 50 m and 450 Mbit/s at 150 m as stars;
- `calibration.md`: the same as a Markdown table (Mbit/s, mean [95 % CI]), the table of the
  README's "Calibration" section.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import error_bars, interval_label, paper_marker, wrapped_title

DISTANCE = "link.air.radio.channel.distance_m"
GOODPUT = "flows.tcp.goodput_bps"
P = "link.air.radio."
DISTANCES = (50.0, 75.0, 100.0, 150.0)
# The papers' levels (Polese et al. 2017a §IV: 800 Mbit/s is 28 % of the SP-TCP reference at
# 50 m; Polese et al. 2017b: a gain of more than 450 Mbit/s is 100 % at 150 m).
PAPER = {50.0: 2860.0, 150.0: 450.0}

# Each step by the keys that tell its points apart (experiment.toml), in order.
STEPS = [
    ("0 · before calibration", lambda o: P + "amc.overhead" in o),
    ("1 · + ns-3 frame (overhead 0.46)", lambda o: P + "channel.beamforming_loss_db" in o),
    ("2 · + beamforming gain -4 dB, m 4.5", lambda o: P + "rlc.max_retx" in o),
    (
        "3 · + ns-3 RLC AM and S1-U queue: the setting",
        lambda o: set(o) == {DISTANCE},
    ),
    ("state LOS (reading)", lambda o: o.get(P + "channel.visibility") == "los"),
    ("state NLOS (reading)", lambda o: o.get(P + "channel.visibility") == "nlos"),
]


def _step(point: dict[str, Any]) -> str | None:
    overrides = point["overrides"]
    for name, matches in STEPS:
        if matches(overrides):
            return name
    return None


def _by_step(points: list[dict[str, Any]]) -> dict[str, dict[float, dict[str, Any] | None]]:
    table: dict[str, dict[float, dict[str, Any] | None]] = {}
    for point in points:
        step = _step(point)
        if step is not None:
            row = table.setdefault(step, {})
            row[float(point["overrides"][DISTANCE])] = point["metrics"].get(GOODPUT)
    order = [name for name, _ in STEPS]
    return {name: table[name] for name in order if name in table}


def _cell(stats: dict[str, Any] | None) -> str:
    if not stats or stats.get("mean") is None:
        return "-"
    mean = stats["mean"] / 1e6
    if stats.get("ci95") is None:
        return f"{mean:.0f}"
    half = stats["ci95"] / 1e6
    return f"{mean:.0f} [{max(mean - half, 0.0):.0f}, {mean + half:.0f}]"


def calibration_table(points: list[dict[str, Any]]) -> str:
    """The Markdown table: one row per step, one column per distance, the papers' row last."""
    rows = _by_step(points)
    header = "| step | " + " | ".join(f"{d:g} m" for d in DISTANCES) + " |"
    lines = [header, "|---" * (len(DISTANCES) + 1) + "|"]
    for step, row in rows.items():
        lines.append(f"| {step} | " + " | ".join(_cell(row.get(d)) for d in DISTANCES) + " |")
    paper = " | ".join(f"≈ {PAPER[d]:.0f}" if d in PAPER else "" for d in DISTANCES)
    lines.append(f"| the papers (Polese et al. 2017a/b) | {paper} |")
    return "\n".join(lines) + "\n"


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws `levels.png` and writes `calibration.md` into `out_dir`; returns their paths."""
    figure = Figure(figsize=(8, 5), layout="constrained")
    axes = figure.subplots()
    for step, row in _by_step(points).items():
        distances = [d for d in DISTANCES if d in row]
        stats = [row[d] for d in distances]
        means, yerr = error_bars(stats, 1e-6)
        xs = [d for d, s in zip(distances, stats, strict=True) if s and s.get("mean") is not None]
        axes.errorbar(xs, means, yerr=yerr, capsize=3, marker="o", label=step)
    for i, (distance, level) in enumerate(sorted(PAPER.items())):
        paper_marker(axes, distance, level, "SP-TCP level" if i == 0 else None)
    axes.set_xlabel("UE-eNB distance (m)")
    axes.set_ylabel("CUBIC goodput, HARQ + RLC AM (Mbit/s)")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small")
    label = interval_label(points)
    wrapped_title(figure, f"The 28 GHz uplink, one calibration factor at a time ({label})")
    figure_path = out_dir / "levels.png"
    figure.savefig(figure_path, dpi=120)
    table_path = out_dir / "calibration.md"
    table_path.write_text(calibration_table(points), encoding="utf-8")
    return [figure_path, table_path]
