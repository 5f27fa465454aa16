"""Figures of polese2017-mptcp, each value the mean over the seeds with its 95 % CI (min..max with
2 seeds), clipped at 0:

- `throughput.png`: the MP-TCP flow's goodput against the distance per secondary link and
  controller, single-path CUBIC on 28 GHz dotted (Polese et al. 2017a Fig. 5, Polese et al.
  2017b Fig. 3);
- `subflows.png`: each subflow's goodput with CUBIC, per distance and secondary link (Fig. 6);
- `download.png`: download time against the file size, one panel per distance (Figs. 7 and 9);
- `trace.png`: the two subflows' goodput over time of one upload at 50 m with LTE beside
  28 GHz, for CUBIC, OLIA and BALIA (Fig. 8), at the paper setting and under the reading most
  favourable to a shift (mmWave state redrawn every second, 1 GiB buffers);
- `readings.png`: goodput against distance under each reading of the unstated values (README,
  "Readings"), one panel each;
- `results.md`: the README's "Results" tables (means over the seeds), generated from the points.

The first three figures show the paper-setting points only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

import mmtcp
from mmtcp.figures import error_bar, interval_label, wrapped_title

SCENARIO = Path(__file__).with_name("scenario.toml")
DISTANCE = "link.mmw28.radio.channel.distance_m"
SUBFLOWS = "flow.mp.transport.subflows"
CC = "flow.mp.transport.cc"
VARIANT = "flow.mp.transport.variant"
APP = "flow.mp.app"
SP_TRANSPORT = "flow.mp.transport"
TRACE_SEED = 1
PAPER_SETTING = "paper setting"
REDRAW = "link.mmw28.radio.channel.state_redraw"
LTE_RLC = "link.lte.radio.rlc.buffer"
LTE_PROPAGATION = "link.lte.radio.channel.propagation"
SEND_BUFFER = "flow.mp.transport.send_buffer"
# The reading traced beside the paper setting in trace.png (experiment.toml's overrides).
TRACE_READING = {
    **{f"link.{link}.radio.channel.state_redraw": "periodic" for link in ("mmw28", "mmw73")},
    **{f"link.{link}.radio.channel.state_dwell": "1s" for link in ("mmw28", "mmw73")},
    "flow.mp.transport.send_buffer": "1GiB",
    "flow.mp.transport.receive_buffer": "1GiB",
}


def _reading(point: dict[str, Any]) -> str:
    """The reading a point belongs to (experiment.toml): `paper setting` without extra keys."""
    o = point["overrides"]
    parts = []
    if LTE_RLC in o:
        parts.append("lte-rlc-" + str(o[LTE_RLC]).lower())
    if LTE_PROPAGATION in o:
        parts.append("lte-uma-fading")
    if REDRAW in o:
        parts.append("redraw-1s")
    buffer = o.get(SEND_BUFFER) or o.get(SP_TRANSPORT, {}).get("send_buffer", "16MB")
    if buffer != "16MB":
        parts.append("conn-" + str(buffer).lower())
    return "-".join(parts) or PAPER_SETTING


def _secondary(point: dict[str, Any]) -> str:
    subflows = point["overrides"].get(SUBFLOWS)
    return "single path" if subflows is None else subflows[1]["path"][1]


def _key(point: dict[str, Any]) -> tuple[str, str]:
    o = point["overrides"]
    form = " v0.90" if VARIANT in o else ""
    return (_secondary(point), o.get(CC, "cubic") + form)


def _size(point: dict[str, Any]) -> float | None:
    app = point["overrides"].get(APP)
    return float(app["size"].removesuffix("MB")) if app else None


def _line(axes, points, metric, scale, label, style="-o") -> None:
    xs, ys, lo, hi = [], [], [], []
    for p in points:
        bar = error_bar(p["metrics"].get(metric), scale)
        if bar is None:
            continue
        xs.append(float(p["overrides"][DISTANCE]))
        ys.append(bar[0])
        lo.append(bar[1])
        hi.append(bar[2])
    if xs:
        axes.errorbar(xs, ys, yerr=[lo, hi], fmt=style, capsize=3, label=label)


def plot(points: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draws the figures into `out_dir` and returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    all_uploads = [p for p in points if _size(p) is None]
    uploads = [p for p in all_uploads if _reading(p) == PAPER_SETTING]
    downloads = [p for p in points if _size(p) is not None and _reading(p) == PAPER_SETTING]
    paths = [_throughput(uploads, out_dir), _subflows(uploads, out_dir)]
    if downloads:
        paths.append(_download(downloads, out_dir))
    readings = {_reading(p) for p in all_uploads} - {PAPER_SETTING}
    paths.append(_trace(out_dir, with_reading=bool(readings)))
    if readings:
        paths.append(_readings(all_uploads, out_dir))
    results = out_dir / "results.md"
    results.write_text(results_tables(points), encoding="utf-8")
    paths.append(results)
    return paths


def _throughput(points, out_dir: Path) -> Path:
    figure = Figure(figsize=(9, 5), layout="constrained")
    axes = figure.subplots()
    for key in sorted({_key(p) for p in points}):
        series = sorted(
            (p for p in points if _key(p) == key), key=lambda p: float(p["overrides"][DISTANCE])
        )
        secondary, cc = key
        if secondary == "single path":
            _line(axes, series, "flows.mp.goodput_bps", 1e-6, "SP-TCP CUBIC on 28 GHz", "k:o")
        else:
            style = "--o" if secondary == "lte" else "-s"
            _line(axes, series, "flows.mp.goodput_bps", 1e-6, f"28 GHz + {secondary}, {cc}", style)
    axes.set_xlabel("distance d (m)")
    axes.set_ylabel("goodput (Mbit/s)")
    axes.set_ylim(bottom=0)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8)
    wrapped_title(figure, f"MP-TCP upload throughput against distance ({interval_label(points)})")
    path = out_dir / "throughput.png"
    figure.savefig(path, dpi=120)
    return path


def _subflows(points, out_dir: Path) -> Path:
    figure = Figure(figsize=(9, 4.5), layout="constrained")
    axes = figure.subplots()
    cubic = [p for p in points if _key(p)[1] == "cubic" and _secondary(p) != "single path"]
    groups = sorted({(float(p["overrides"][DISTANCE]), _secondary(p)) for p in cubic})
    by = {(float(p["overrides"][DISTANCE]), _secondary(p)): p for p in cubic}
    for k, (metric, label) in enumerate(
        [
            ("flows.mp.subflows.0.goodput_bps", "28 GHz subflow"),
            ("flows.mp.subflows.1.goodput_bps", "second subflow"),
        ]
    ):
        xs, ys, lo, hi = [], [], [], []
        for i, group in enumerate(groups):
            bar = error_bar(by[group]["metrics"].get(metric), 1e-6)
            if bar is None:
                continue
            xs.append(i + (k - 0.5) * 0.4)
            ys.append(bar[0])
            lo.append(bar[1])
            hi.append(bar[2])
        axes.bar(xs, ys, 0.4, yerr=[lo, hi], capsize=3, label=label)
    axes.set_xticks(range(len(groups)), [f"{d:g} m\n+ {s}" for d, s in groups])
    axes.set_ylabel("goodput (Mbit/s)")
    axes.set_ylim(bottom=0)
    axes.grid(True, axis="y", alpha=0.3)
    axes.legend()
    wrapped_title(figure, f"Contribution of the two subflows, CUBIC ({interval_label(points)})")
    path = out_dir / "subflows.png"
    figure.savefig(path, dpi=120)
    return path


def _download(points, out_dir: Path) -> Path:
    distances = sorted({float(p["overrides"][DISTANCE]) for p in points})
    figure = Figure(figsize=(4 * len(distances), 4), layout="constrained")
    axes_row = figure.subplots(1, len(distances), squeeze=False)[0]
    for axes, d in zip(axes_row, distances, strict=True):
        here = [p for p in points if float(p["overrides"][DISTANCE]) == d]
        for key in sorted({_key(p) for p in here}):
            series = sorted((p for p in here if _key(p) == key), key=_size)
            xs, ys, lo, hi = [], [], [], []
            for p in series:
                bar = error_bar(p["metrics"].get("flows.mp.completion_seconds"), 1.0)
                if bar is None:
                    continue
                xs.append(_size(p))
                ys.append(bar[0])
                lo.append(bar[1])
                hi.append(bar[2])
            axes.errorbar(xs, ys, yerr=[lo, hi], fmt="-o", capsize=3, label=f"+ {key[0]}, {key[1]}")
        axes.set_title(f"d = {d:g} m")
        axes.set_xlabel("file size (MB)")
        axes.set_ylabel("download time (s)")
        axes.set_ylim(bottom=0)
        axes.grid(True, alpha=0.3)
        axes.legend(fontsize=8)
    wrapped_title(figure, f"MP-TCP download time ({interval_label(points)})")
    path = out_dir / "download.png"
    figure.savefig(path, dpi=120)
    return path


def _trace(out_dir: Path, with_reading: bool) -> Path:
    rows = [(PAPER_SETTING, {})] + (
        [("redraw-1s, 1 GiB buffers", TRACE_READING)] if with_reading else []
    )
    figure = Figure(figsize=(12, 3.5 * len(rows)), layout="constrained")
    grid = figure.subplots(len(rows), 3, sharey=True, squeeze=False)
    for axes_row, (reading, extra) in zip(grid, rows, strict=True):
        for axes, cc in zip(axes_row, ["cubic", "olia", "balia"], strict=True):
            overrides = {
                "flow.mp.transport.cc": cc,
                "metrics.interval": "100ms",
                **{
                    f"link.{link}.radio.channel.distance_m": 50.0
                    for link in ("mmw28", "lte", "mmw73")
                },
                "link.lte.radio.reverse_channel.distance_m": 50.0,
                **extra,
            }
            series = mmtcp.run(SCENARIO, seed=TRACE_SEED, overrides=overrides).timeseries
            for k, label in [(0, "28 GHz subflow"), (1, "LTE subflow")]:
                axes.plot(series["time_s"], series[f"flow.mp.sf{k}.goodput_bps"] / 1e6, label=label)
            axes.set_title(f"{cc} ({reading})")
            axes.set_xlabel("time (s)")
            axes.grid(True, alpha=0.3)
        axes_row[0].set_ylabel("goodput (Mbit/s)")
    grid[0][0].legend()
    wrapped_title(
        figure, f"Subflow throughput over time at 50 m, LTE beside 28 GHz (seed {TRACE_SEED})"
    )
    path = out_dir / "trace.png"
    figure.savefig(path, dpi=120)
    return path


def _readings(points, out_dir: Path) -> Path:
    readings = [PAPER_SETTING, *sorted({_reading(p) for p in points} - {PAPER_SETTING})]
    shown = [("lte", "cubic"), ("lte", "balia"), ("mmw73", "cubic"), ("single path", "cubic")]
    figure = Figure(figsize=(4 * len(readings), 4), layout="constrained")
    axes_row = figure.subplots(1, len(readings), sharey=True, squeeze=False)[0]
    for axes, reading in zip(axes_row, readings, strict=True):
        here = [p for p in points if _reading(p) == reading]
        for secondary, cc in shown:
            series = sorted(
                (p for p in here if _key(p) == (secondary, cc)),
                key=lambda p: float(p["overrides"][DISTANCE]),
            )
            label = "SP-TCP CUBIC" if secondary == "single path" else f"+ {secondary}, {cc}"
            _line(
                axes,
                series,
                "flows.mp.goodput_bps",
                1e-6,
                label,
                "k:o" if secondary == "single path" else "-o",
            )
        axes.set_title(reading)
        axes.set_xlabel("distance d (m)")
        axes.grid(True, alpha=0.3)
    axes_row[0].set_ylim(bottom=0)  # once every panel is drawn: the axes are shared
    axes_row[0].set_ylabel("goodput (Mbit/s)")
    axes_row[0].legend(fontsize=8)
    wrapped_title(figure, f"Upload goodput under each reading ({interval_label(points)})")
    path = out_dir / "readings.png"
    figure.savefig(path, dpi=120)
    return path


DISTANCES = (50.0, 75.0, 100.0, 150.0)
CONTROLLERS = ("cubic", "lia", "olia", "balia")
GOODPUT = "flows.mp.goodput_bps"
SHARE = "flows.mp.subflows.1.share"


def _mean(points, reading, key, d, metric, scale=1e-6, size=None, fmt="{:.0f}") -> str:
    """The mean of `metric` at one point (`key`: secondary link and controller), formatted;
    empty if the sweep has no such point."""
    for point in points:
        if (
            _reading(point) == reading
            and _key(point) == key
            and point["overrides"][DISTANCE] == d
            and _size(point) == size
        ):
            stats = point["metrics"].get(metric)
            if stats and stats.get("mean") is not None:
                return fmt.format(stats["mean"] * scale)
    return ""


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def results_tables(points: list[dict[str, Any]]) -> str:
    """The README's result tables, from the points (means over the seeds)."""
    setting = PAPER_SETTING
    sp = ("single path", "cubic")
    both = [(secondary, cc) for secondary in ("lte", "mmw73") for cc in CONTROLLERS]
    names = ["CUBIC", "LIA", "OLIA", "BALIA"]
    out = ["Goodput (Mbit/s) of the uploads at the paper's setting:", ""]
    header = [
        "d",
        "SP-TCP 28 GHz",
        *(f"+ LTE: {n}" for n in names),
        *(f"+ 73 GHz: {n}" for n in names),
    ]
    rows = [
        [f"{d:g} m", *(_mean(points, setting, k, d, GOODPUT) for k in [sp, *both])]
        for d in DISTANCES
    ]
    out += _table(header, rows)

    out += [
        "",
        "The two subflows with uncoupled CUBIC (Fig. 6; Mbit/s) and the secondary's share:",
        "",
    ]
    header = ["d", "SP-TCP 28 GHz", "+ LTE: 28 GHz subflow", "LTE subflow", "LTE's share"]
    header += ["+ 73 GHz: 28 GHz subflow", "73 GHz subflow", "73 GHz's share"]
    rows = []
    for d in DISTANCES:
        row = [f"{d:g} m", _mean(points, setting, sp, d, GOODPUT)]
        for secondary in ("lte", "mmw73"):
            key = (secondary, "cubic")
            row += [
                _mean(points, setting, key, d, "flows.mp.subflows.0.goodput_bps"),
                _mean(points, setting, key, d, "flows.mp.subflows.1.goodput_bps"),
                _mean(points, setting, key, d, SHARE, 1.0, fmt="{:.3f}"),
            ]
        rows.append(row)
    out += _table(header, rows)

    out += ["", "Mean RTT (ms) with LTE beside 28 GHz:", ""]
    keys = [sp, ("lte", "cubic"), ("lte", "balia")]
    rows = [
        [
            f"{d:g} m",
            *(
                _mean(points, setting, k, d, "flows.mp.rtt_ms.mean", 1.0, fmt="{:.1f}")
                for k in keys
            ),
        ]
        for d in DISTANCES
    ]
    out += _table(["d", "SP-TCP 28 GHz", "+ LTE: CUBIC", "BALIA"], rows)

    out += [
        "",
        "With the Linux v0.90 forms (the reading `linux-v0.90`), goodput (Mbit/s) and LTE's share:",
        "",
    ]
    coupled = [cc + " v0.90" for cc in CONTROLLERS[1:]]
    rows = []
    for d in DISTANCES:
        shares = [
            _mean(points, setting, ("lte", cc), d, SHARE, 1.0, fmt="{:.3f}") for cc in coupled
        ]
        rows.append(
            [
                f"{d:g} m",
                *(_mean(points, setting, ("lte", cc), d, GOODPUT) for cc in coupled),
                f"{min(shares)} to {max(shares)}" if all(shares) else "",
                *(_mean(points, setting, ("mmw73", cc), d, GOODPUT) for cc in coupled),
            ]
        )
    header = [
        "d",
        "+ LTE: LIA",
        "OLIA",
        "BALIA",
        "LTE's share (LIA to BALIA)",
        "+ 73 GHz: LIA",
        "OLIA",
        "BALIA",
    ]
    out += _table(header, rows)

    out += [
        "",
        "Download times (s, mean over the seeds; the readings repeat the LTE downloads):",
        "",
    ]
    columns = [
        ("CUBIC + LTE", setting, ("lte", "cubic")),
        ("CUBIC + 73 GHz", setting, ("mmw73", "cubic")),
        ("BALIA + LTE", setting, ("lte", "balia")),
        ("BALIA v0.90 + LTE", setting, ("lte", "balia v0.90")),
        ("CUBIC + LTE, conn-1gib", "conn-1gib", ("lte", "cubic")),
        ("BALIA + LTE, conn-1gib", "conn-1gib", ("lte", "balia")),
        ("CUBIC + LTE, redraw-1s", "redraw-1s", ("lte", "cubic")),
        ("BALIA + LTE, redraw-1s", "redraw-1s", ("lte", "balia")),
    ]
    time = "flows.mp.completion_seconds"
    rows = [
        [
            f"{d:g} m",
            f"{size:g} MB",
            *(_mean(points, r, k, d, time, 1.0, size=size, fmt="{:.3f}") for _, r, k in columns),
        ]
        for d in DISTANCES
        for size in (1.0, 5.0, 10.0)
    ]
    out += _table(["d", "size", *(c[0] for c in columns)], rows)

    out += [
        "",
        "Goodput (Mbit/s) under each reading (a reading without a point repeats the setting's):",
        "",
    ]
    readings = sorted(
        {_reading(p) for p in points if _size(p) is None}, key=lambda r: (r != setting, r)
    )
    rows = []
    for reading in readings:
        for d in DISTANCES:
            row = [reading, f"{d:g} m"]
            for k in [sp, *both]:
                row.append(
                    _mean(points, reading, k, d, GOODPUT) or _mean(points, setting, k, d, GOODPUT)
                )
            row.append(
                " / ".join(
                    _mean(points, reading, ("lte", cc), d, SHARE, 1.0, fmt="{:.3f}")
                    or _mean(points, setting, ("lte", cc), d, SHARE, 1.0, fmt="{:.3f}")
                    for cc in ("cubic", "balia")
                )
            )
            rows.append(row)
    header = [
        "reading",
        "d",
        "SP-TCP",
        *(f"+ LTE: {n}" for n in names),
        *(f"+ 73 GHz: {n}" for n in names),
    ]
    out += _table([*header, "LTE's share (CUBIC / BALIA)"], rows)
    return "\n".join(out) + "\n"
