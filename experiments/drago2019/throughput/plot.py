"""Figure of drago2019-throughput (seed 001 Fig. 10): mean application throughput per scheme over
the runs of both channel scenarios, with its 95 % CI, and per scenario (`throughput.png`;
`throughput.csv` holds the numbers). The per-scenario bars come from `../rtt/plot.py`.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from mmtcp.figures import error_bar, interval_label, paper_line, wrapped_title
from mmtcp.stats import describe

_RTT = Path(__file__).parent.parent / "rtt" / "plot.py"
_spec = importlib.util.spec_from_file_location("drago2019_rtt_plot", _RTT)
if _spec is None or _spec.loader is None:
    raise ImportError(f"cannot load {_RTT}")
_rtt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_rtt)


def pooled(points: list[dict[str, Any]], runs: Path) -> dict[str, list[float]]:
    """Goodput of every run of each scheme, scenarios A and B together (bit/s)."""
    values: dict[str, list[float]] = {key: [] for key, _, _ in _rtt.SCHEMES}
    for point in points:
        for path in sorted((runs / point["id"]).glob("seed-*.json")):
            summary = json.loads(path.read_text(encoding="utf-8"))
            values[_rtt.scheme(point)].append(summary["flows"][0]["goodput_bps"])
    return values


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws the figure into `out_dir` and returns its paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [
        _rtt.bars(
            points,
            [("flows.tcp.goodput_bps", "throughput")],
            1e-6,
            "Mbit/s",
            f"Application throughput per scenario ({interval_label(points)})",
            out_dir / "throughput_per_scenario.png",
        )
    ]
    runs = out_dir.parent / "runs"
    if not runs.is_dir():
        return paths
    values = pooled(points, runs)
    rows = []
    for key, label, colour in _rtt.SCHEMES:
        stats = describe(values[key])
        bar = error_bar(stats.as_dict(), 1e-6)  # clipped at 0
        if bar is not None:
            rows.append((key, label, colour, bar, (stats.ci95 or 0.0) / 1e6, stats.n))
    csv = ["scheme,mean_mbps,ci95_mbps,runs"]
    csv += [f"{key},{bar[0]:.6g},{ci:.6g},{n}" for key, _, _, bar, ci, n in rows]
    (out_dir / "throughput.csv").write_text("\n".join(csv) + "\n", encoding="utf-8")
    figure = Figure(figsize=(6, 4.5), layout="constrained")
    axes = figure.subplots()
    axes.bar(
        [r[1] for r in rows],
        [r[3][0] for r in rows],
        yerr=[[r[3][1] for r in rows], [r[3][2] for r in rows]],
        capsize=4,
        color=[r[2] for r in rows],
    )
    cubic = [r[3][0] for r in rows if r[0] == "cubic"]
    if cubic:
        # §I: "more than double the performance in terms of throughput".
        paper_line(axes, 2 * cubic[0], "reactive more than double CUBIC (2x CUBIC's mean)")
        axes.legend(loc="upper left", fontsize="small")
    axes.set_ylabel("application throughput (Mbit/s)")
    axes.grid(True, axis="y", alpha=0.3)
    wrapped_title(figure, "Scenarios A and B together (mean and 95 % CI over the runs)")
    path = out_dir / "throughput.png"
    figure.savefig(path, dpi=120)
    paths.extend([path, out_dir / "throughput.csv"])
    return paths
