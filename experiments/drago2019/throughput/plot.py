"""Figures of drago2019-throughput (Drago et al. Fig. 10): mean application throughput per scheme
over the runs of both channel scenarios (as Fig. 10), with its 95 % CI, and per scenario, at the
claims' reading (35 dB blockage, the longest run) once per wall reflection loss
(`throughput_r<loss>.png`, `throughput_per_scenario_r<loss>.png`); `throughput.csv` holds every
reading: run length, depth, walls, scenario (A, B or pooled), scheme. The per-scenario bars come
from `../rtt/plot.py`.
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


DURATION = "simulation.duration"


def seconds(text: str) -> float:
    """A run length as written in the grid ("30s", "150s")."""
    return float(str(text).removesuffix("s"))


def goodputs(point: dict[str, Any], runs: Path) -> list[float]:
    """Goodput of every run of `point` (bit/s)."""
    values = []
    for path in sorted((runs / point["id"]).glob("seed-*.json")):
        summary = json.loads(path.read_text(encoding="utf-8"))
        values.append(summary["flows"][0]["goodput_bps"])
    return values


def reading(point: dict[str, Any]) -> tuple[float, float, float]:
    """(run length s, blockage dB, walls dB) of a point."""
    o = point["overrides"]
    return seconds(o.get(DURATION, "0s")), float(o[_rtt.DEPTH]), float(o[_rtt.WALLS])


def table(points: list[dict[str, Any]], runs: Path) -> list[tuple]:
    """Mean and 95 % CI per reading, scenario (and both pooled, as Fig. 10) and scheme."""
    groups: dict[tuple, list[float]] = {}
    for point in points:
        for scenario in (str(point["overrides"][_rtt.SOURCE]), "pooled"):
            key = (*reading(point), scenario, _rtt.scheme(point))
            groups.setdefault(key, []).extend(goodputs(point, runs))
    rows = []
    for key in sorted(groups):
        stats = describe(groups[key])
        if stats.n:
            rows.append((*key, stats))
    return rows


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws the figures into `out_dir` and returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = out_dir.parent / "runs"
    if not points or not runs.is_dir():
        return []
    longest = max(reading(p)[0] for p in points)
    rows = table(points, runs)
    csv = ["duration_s,blockage_db,walls_db,scenario,scheme,mean_mbps,ci95_mbps,runs"]
    csv += [
        f"{d:g},{b:g},{w:g},{sc},{key},{st.mean / 1e6:.6g},{(st.ci95 or 0.0) / 1e6:.6g},{st.n}"
        for d, b, w, sc, key, st in rows
    ]
    (out_dir / "throughput.csv").write_text("\n".join(csv) + "\n", encoding="utf-8")
    paths = [out_dir / "throughput.csv"]
    for walls in sorted({reading(p)[2] for p in points}):
        chosen = [p for p in points if reading(p) == (longest, _rtt.CLAIM_DEPTH, walls)]
        if not chosen:
            continue
        where = f"{longest:g} s runs, {_rtt.CLAIM_DEPTH:.0f} dB blockage, {walls:.0f} dB walls"
        paths.append(
            _rtt.bars(
                chosen,
                [("flows.tcp.goodput_bps", "throughput")],
                1e-6,
                "Mbit/s",
                f"Application throughput per scenario, {where} ({interval_label(chosen)})",
                out_dir / f"throughput_per_scenario_r{walls:.0f}.png",
            )
        )
        bars = []
        for key, label, colour in _rtt.SCHEMES:
            match = [
                st
                for d, b, w, sc, k, st in rows
                if (d, b, w, sc, k) == (longest, _rtt.CLAIM_DEPTH, walls, "pooled", key)
            ]
            bar = error_bar(match[0].as_dict(), 1e-6) if match else None  # clipped at 0
            if bar is not None:
                bars.append((key, label, colour, bar))
        figure = Figure(figsize=(6, 4.5), layout="constrained")
        axes = figure.subplots()
        axes.bar(
            [r[1] for r in bars],
            [r[3][0] for r in bars],
            yerr=[[r[3][1] for r in bars], [r[3][2] for r in bars]],
            capsize=4,
            color=[r[2] for r in bars],
        )
        cubic = [r[3][0] for r in bars if r[0] == "cubic"]
        if cubic:
            # §I: "more than double the performance in terms of throughput".
            paper_line(axes, 2 * cubic[0], "reactive more than double CUBIC (2x CUBIC's mean)")
            axes.legend(loc="upper left", fontsize="small")
        axes.set_ylabel("application throughput (Mbit/s)")
        axes.grid(True, axis="y", alpha=0.3)
        wrapped_title(figure, f"Scenarios A and B together (Fig. 10), {where}")
        path = out_dir / f"throughput_r{walls:.0f}.png"
        figure.savefig(path, dpi=120)
        paths.append(path)
    return paths
