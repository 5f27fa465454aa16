"""Figures of kim2017-fig5 (and, through `draw`, kim2017-fig6): the rate and the delivery ratio
of plain TCP NewReno, PEP (with either timer rule) and mmPEP against the NLOS duration, each
value the mean over the seeds with its 95 % CI (Kim et al. Fig. 5 and 6).

- `rate.png`: in-order goodput at the mobile's application (Kim et al.'s "rate");
- `delivery_ratio.png`: segments delivered to the application ÷ segments that reached the
  mobile's TCP, duplicates included (Kim et al.'s "delivery ratio");
- `timeline.png` (Fig. 5 only): one extra run per scheme, LOS = NLOS = 1 s with a 3 MB RLC
  buffer, seed 1: the application rate, the proxy's cache and its retransmissions over time —
  why PEP collapses after the first NLOS period and mmPEP does not;
- `results.md`: the README's "Results" tables (means over the seeds), generated from the points.

One panel per RLC buffer size (the paper does not state it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

import mmtcp
from mmtcp.figures import error_bar, interval_label, paper_line, wrapped_title

SCENARIO = Path(__file__).parent / "scenario.toml"
CHANNEL = "link.air.radio.channel"
PROXY = "node.bs.processors"
BUFFER = "link.air.radio.rlc.buffer"
SCHEMES = [
    ("tcp", "TCP NewReno", "tab:red", "-"),
    ("pep", "PEP", "tab:orange", "--"),
    ("pep-gbn", "PEP, go-back-N timer", "tab:green", "-."),
    ("mmpep", "mmPEP", "tab:blue", ":"),
]


def seconds(value: str) -> float:
    """'0.5s' or '100ms' → seconds."""
    text = str(value).strip()
    if text.endswith("ms"):
        return float(text[:-2]) / 1e3
    return float(text.rstrip("s"))


def scheme(point: dict[str, Any]) -> str:
    """'tcp', 'pep', 'pep-gbn' (PEP whose timer goes back N) or 'mmpep'."""
    processors = point["overrides"].get(PROXY) or []
    if not processors:
        return "tcp"
    kind = processors[0]["kind"]
    return f"{kind}-gbn" if processors[0].get("timeout") == "go_back_n" else kind


def nlos_seconds(point: dict[str, Any]) -> float:
    return seconds(point["overrides"][CHANNEL]["nlos_duration"])


def draw(points: list[dict[str, Any]], out_dir: Path, title: str) -> list[Path]:
    """Rate and delivery ratio against the NLOS duration, one line per scheme."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    buffers = sorted({str(p["overrides"].get(BUFFER, "")) for p in points}, key=_megabytes)
    for metric, scale, ylabel, name in [
        ("flows.tcp.goodput_bps", 1e-6, "rate (Mbit/s)", "rate.png"),
        ("flows.tcp.delivery_ratio", 1.0, "delivery ratio", "delivery_ratio.png"),
    ]:
        figure = Figure(figsize=(5.5 * len(buffers), 4.5), layout="constrained")
        panels = figure.subplots(1, len(buffers), squeeze=False)[0]
        for axes, buffer in zip(panels, buffers, strict=True):
            mine = [p for p in points if str(p["overrides"].get(BUFFER, "")) == buffer]
            for key, label, colour, style in SCHEMES:
                line = sorted((p for p in mine if scheme(p) == key), key=nlos_seconds)
                xs, ys, below, above = [], [], [], []
                for p in line:
                    bar = error_bar(p["metrics"].get(metric), scale)  # clipped at 0
                    if bar is not None:
                        xs.append(nlos_seconds(p))
                        ys.append(bar[0])
                        below.append(bar[1])
                        above.append(bar[2])
                if xs:
                    axes.errorbar(
                        xs,
                        ys,
                        yerr=[below, above],
                        marker="o",
                        capsize=3,
                        label=label,
                        color=colour,
                        linestyle=style,
                    )
            if metric == "flows.tcp.goodput_bps":
                # §IV: "the maximum sending rate of the server that is fixed to 100 Mbps"; mmPEP
                # is "almost close" to it.
                paper_line(axes, 100.0, "server's maximum sending rate, 100 Mbit/s")
            axes.set_ylim(bottom=0)
            axes.set_title(f"RLC buffer {buffer}" if buffer else "")
            axes.set_xlabel("NLOS duration (s)")
            axes.set_ylabel(ylabel)
            axes.grid(True, alpha=0.3)
            axes.legend()
        wrapped_title(figure, f"{title} ({interval_label(points)})")
        path = out_dir / name
        figure.savefig(path, dpi=120)
        paths.append(path)
    return paths


def _variant(point: dict[str, Any]) -> str:
    """What a point sets beyond the grid's channel, schemes and RLC buffer (a reading's extra
    keys, e.g. `rlf_timeout = 1s`), or '' for the grid's own points."""
    extras = [
        f"`{key.rsplit('.', 1)[-1]} = {value}`"
        for key, value in sorted(point["overrides"].items())
        if key not in (CHANNEL, PROXY, BUFFER)
    ]
    for processor in point["overrides"].get(PROXY) or []:
        extras += [
            f"`{key} = {str(value).lower()}`"
            for key, value in sorted(processor.items())
            if key not in ("kind", "cache", "timeout")
        ]
    return ", ".join(extras)


def _buffer_label(buffer: str) -> str:
    return "unbounded (4 GB)" if buffer == "4GB" else buffer


def _mean_text(points: list[dict[str, Any]], metric: str, scale: float, fmt: str) -> str:
    values = [p["metrics"][metric]["mean"] for p in points if p["metrics"].get(metric)]
    return fmt.format(values[0] * scale) if values else "-"


def results_tables(points: list[dict[str, Any]]) -> str:
    """The README's "Results" tables: per RLC buffer (and per reading's extra setting), the
    rate in Mbit/s and the delivery ratio of each scheme present, against the NLOS duration."""
    groups: dict[tuple[float, str], list[dict[str, Any]]] = {}
    for p in points:
        buffer = str(p["overrides"].get(BUFFER, ""))
        groups.setdefault((_megabytes(buffer), buffer, _variant(p)), []).append(p)
    out: list[str] = []
    for (_, buffer, variant), mine in sorted(groups.items()):
        present = [
            (key, label) for key, label, _, _ in SCHEMES if any(scheme(p) == key for p in mine)
        ]
        short = {"tcp": "TCP", "pep": "PEP", "pep-gbn": "PEP-gbn", "mmpep": "mmPEP"}
        names = [short[key] for key, _ in present]
        title = f"RLC buffer {_buffer_label(buffer)}" + (f", {variant}" if variant else "")
        out += [f"{title}:", ""]
        out.append("| NLOS | " + " | ".join(names) + " | DR " + " / ".join(names) + " |")
        out.append("|---" * (len(names) + 2) + "|")
        for nlos in sorted({nlos_seconds(p) for p in mine}):
            at = [p for p in mine if nlos_seconds(p) == nlos]
            rates = [
                _mean_text(
                    [p for p in at if scheme(p) == key], "flows.tcp.goodput_bps", 1e-6, "{:.1f}"
                )
                for key, _ in present
            ]
            ratios = [
                _mean_text(
                    [p for p in at if scheme(p) == key], "flows.tcp.delivery_ratio", 1.0, "{:.3f}"
                )
                for key, _ in present
            ]
            out.append(f"| {nlos:g}s | " + " | ".join(rates) + " | " + " / ".join(ratios) + " |")
        out.append("")
    return "\n".join(out)


def _megabytes(text: str) -> float:
    """'3MB' → 3.0, '4GB' → 4000.0 (the order of the panels and tables)."""
    digits = "".join(c for c in text if c.isdigit() or c == ".")
    scale = 1000.0 if text.strip().upper().endswith("GB") else 1.0
    return float(digits) * scale if digits else 0.0


def timeline(points: list[dict[str, Any]], out_dir: Path) -> Path:
    """Runs each scheme of the sweep once (LOS = NLOS = 1 s, RLC buffer 3 MB, seed 1, 10 s) and
    draws its application rate, the proxy's cache and the proxy's retransmissions."""
    processors = {}
    for p in points:
        processors.setdefault(scheme(p), p["overrides"].get(PROXY) or [])
    figure = Figure(figsize=(12, 8), layout="constrained")
    rate_axes, cache_axes, rtx_axes = figure.subplots(3, 1, sharex=True)
    for key, label, colour, style in SCHEMES:
        if key not in processors:
            continue
        overrides = {
            PROXY: processors[key],
            BUFFER: "3MB",
            f"{CHANNEL}.los_duration": "1s",
            f"{CHANNEL}.nlos_duration": "1s",
            "simulation.duration": "10s",
        }
        ts = mmtcp.run(SCENARIO, seed=1, overrides=overrides).timeseries
        t = ts["time_s"]
        goodput = ts["flow.tcp.goodput_bps"] / 1e6
        rate_axes.plot(t, goodput, label=label, color=colour, linestyle=style)
        if processors[key]:
            kind = processors[key][0]["kind"]
            cache = ts[f"proxy.bs.{kind}.cache_bytes"] / 1e6
            cache_axes.plot(t, cache, label=label, color=colour, linestyle=style)
            rtx = ts[f"proxy.bs.{kind}.retransmitted_segments"]
            rtx_axes.plot(t, rtx, label=label, color=colour, linestyle=style)
    rate_axes.set_ylabel("application rate (Mbit/s)")
    cache_axes.set_ylabel("proxy cache (MB)")
    rtx_axes.set_ylabel("proxy retransmissions\nper 100 ms")
    rtx_axes.set_yscale("symlog")
    rtx_axes.set_xlabel("time (s); NLOS from 1 to 2 s, 3 to 4 s, ...")
    for axes in (rate_axes, cache_axes, rtx_axes):
        axes.grid(True, alpha=0.3)
        axes.legend(loc="upper left")
    figure.suptitle("LOS = NLOS = 1 s, RLC buffer 3 MB, seed 1")
    path = out_dir / "timeline.png"
    figure.savefig(path, dpi=120)
    return path


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws the three figures and the results tables into `out_dir`; returns their paths."""
    paths = draw(points, out_dir, "LOS = NLOS duration, server capped at 100 Mbit/s")
    paths.append(timeline(points, out_dir))
    paths.append(write_results(points, out_dir))
    return paths


def write_results(points: list[dict[str, Any]], out_dir: Path) -> Path:
    """Writes `results.md` (the README's "Results" tables) into `out_dir`."""
    path = out_dir / "results.md"
    path.write_text(results_tables(points), encoding="utf-8")
    return path
