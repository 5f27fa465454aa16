"""Saving results and drawing the plots, from contract-shaped fake data. None of these needs the
simulation core."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from helpers import fake_summary, fake_timeseries

from mmtcp import Result
from mmtcp.plot import plot_dir

PLOTS = ["goodput.png", "cwnd.png", "rtt.png", "queues.png"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _fake_result() -> Result:
    summary = fake_summary()
    return Result(summary, fake_timeseries(summary), '[simulation]\nduration = "2s"\n')


def test_save_writes_the_three_result_files(tmp_path):
    result = _fake_result()
    out = result.save(tmp_path / "run")
    assert json.loads((out / "summary.json").read_text()) == result.summary
    assert list(json.loads((out / "summary.json").read_text())) == list(result.summary)
    saved = pd.read_parquet(out / "timeseries.parquet")
    pd.testing.assert_frame_equal(saved, result.timeseries)
    assert (out / "scenario.resolved.toml").read_text() == result.resolved_scenario


def test_plot_writes_the_four_pngs(tmp_path):
    written = _fake_result().plot(tmp_path)
    assert [p.name for p in written] == PLOTS
    for name in PLOTS:
        assert (tmp_path / "plots" / name).read_bytes().startswith(PNG_MAGIC)


def test_plot_cli_redraws_from_a_result_directory(cli, tmp_path):
    _fake_result().save(tmp_path)
    proc = cli("plot", tmp_path)
    assert proc.returncode == 0, proc.stderr
    for name in PLOTS:
        assert (tmp_path / "plots" / name).read_bytes().startswith(PNG_MAGIC)
    assert plot_dir(tmp_path) == [tmp_path / "plots" / name for name in PLOTS]


def test_plots_whose_columns_are_absent_are_skipped(tmp_path):
    result = _fake_result()
    only_goodput = result.timeseries[
        ["time_s"] + [c for c in result.timeseries.columns if c.endswith("goodput_bps")]
    ]
    written = Result(result.summary, only_goodput, "").plot(tmp_path)
    assert [p.name for p in written] == ["goodput.png"]
    nothing = Result(result.summary, result.timeseries[["time_s"]], "").plot(tmp_path / "empty")
    assert nothing == []


def test_an_mptcp_flow_is_drawn_with_its_subflows(monkeypatch, tmp_path):
    """An MP-TCP flow's goodput panel has the connection and each subflow; the window and RTT
    plots have a panel or line per subflow (the connection has no window of its own)."""
    from mmtcp import plot

    summary = fake_summary()
    name = summary["flows"][0]["name"]
    subflows = [f"{name}.sf0", f"{name}.sf1"]
    summary["flows"][0]["subflows"] = [{"name": s} for s in subflows]
    ts = fake_timeseries(summary)
    for s in subflows:
        for metric in ["goodput_bps", "cwnd_bytes", "ssthresh_bytes", "inflight_bytes", "rtt_ms"]:
            ts[f"flow.{s}.{metric}"] = ts[f"flow.{name}.{metric}"]
    ts = ts.drop(
        columns=[
            f"flow.{name}.{m}" for m in ["cwnd_bytes", "ssthresh_bytes", "inflight_bytes", "rtt_ms"]
        ]
    )
    labels = {}
    for figure_of in [plot.goodput_figure, plot.cwnd_figure, plot.rtt_figure]:
        figure = figure_of(summary, ts)
        labels[figure_of.__name__] = [
            (ax.get_title(), [line.get_label() for line in ax.get_lines()]) for ax in figure.axes
        ]
    goodput_lines = labels["goodput_figure"][0][1]
    for s in [name, *subflows]:
        assert f"{s} goodput" in goodput_lines
    other = summary["flows"][1]["name"]
    assert [title for title, _ in labels["cwnd_figure"]] == [
        f"Flow {s}: window and bytes in flight" for s in [*subflows, other]
    ]
    assert labels["rtt_figure"][0][1] == [*subflows, other]


def test_rtt_line_is_broken_at_an_outage_and_bridged_over_a_short_gap():
    """No RTT sample for 0.5 s (an outage): the line has a NaN there; a single empty interval
    (an interval without an ACK) is bridged."""
    from mmtcp import plot

    summary = fake_summary()
    ts = fake_timeseries(summary)
    rtt = np.full(len(ts), 30.0)
    rtt[50:100] = np.nan  # 0.51 s to 1.00 s: 50 intervals of 10 ms
    rtt[150] = np.nan
    for flow in summary["flows"]:
        ts[f"flow.{flow['name']}.rtt_ms"] = rtt
    line = plot.rtt_figure(summary, ts).axes[0].get_lines()[0]
    x, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
    breaks = np.flatnonzero(np.isnan(y))
    assert len(breaks) == 1
    assert ts["time_s"][49] < x[breaks[0]] < ts["time_s"][100]
    assert not np.isnan(y[x > 1.2]).any()
    assert np.all(np.diff(x) > 0)


def test_a_goodput_spike_does_not_set_the_axis_and_is_marked():
    from mmtcp import plot

    summary = fake_summary()
    ts = fake_timeseries(summary)
    name = summary["flows"][0]["name"]
    ts.loc[120, f"flow.{name}.goodput_bps"] = 5e9  # 5000 Mbit/s in one interval
    ax = plot.goodput_figure(summary, ts).axes[0]
    normal = ts[f"flow.{name}.goodput_bps"].drop(index=120).max() / 1e6
    assert normal <= ax.get_ylim()[1] < 500
    marker = next(line for line in ax.get_lines() if line.get_label().startswith("above"))
    assert "5,000 Mbit/s" in marker.get_label()
    assert list(marker.get_xdata()) == [ts["time_s"][120]]
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert marker.get_label() in labels


def test_goodput_axis_is_not_cut_without_a_spike():
    from mmtcp import plot

    summary = fake_summary()
    ts = fake_timeseries(summary)
    ax = plot.goodput_figure(summary, ts).axes[0]
    assert not [line for line in ax.get_lines() if line.get_label().startswith("above")]
    highest = max(ts[c].max() for c in ts.columns if c.endswith(("goodput_bps", "capacity_bps")))
    assert ax.get_ylim()[1] >= highest / 1e6


def test_bytes_in_flight_is_drawn_over_the_window():
    """Bytes in flight often equals cwnd: it is drawn on top, thinner, over a pale window."""
    from mmtcp import plot

    summary = fake_summary()
    ts = fake_timeseries(summary)
    for flow in summary["flows"]:
        ts[f"flow.{flow['name']}.inflight_bytes"] = ts[f"flow.{flow['name']}.cwnd_bytes"]
    ax = plot.cwnd_figure(summary, ts).axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    cwnd, inflight = lines["cwnd"], lines["bytes in flight"]
    assert inflight.get_zorder() > cwnd.get_zorder()
    assert inflight.get_linewidth() < cwnd.get_linewidth()
    assert (cwnd.get_alpha() or 1.0) < 1.0
    assert inflight.get_color() != cwnd.get_color()


def test_plots_can_be_written_as_svg(cli, tmp_path):
    result = _fake_result()
    written = result.plot(tmp_path / "api", "svg")
    assert [p.name for p in written] == [name.replace(".png", ".svg") for name in PLOTS]
    for path in written:
        assert "<svg" in path.read_text()[:1000]
    result.save(tmp_path / "cli")
    proc = cli("plot", tmp_path / "cli", "--plot-format", "svg")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.suffix for p in (tmp_path / "cli" / "plots").iterdir()) == [".svg"] * 4
    assert cli("plot", tmp_path / "cli", "--plot-format", "pdf").returncode == 2


def test_names_are_drawn_literally(tmp_path):
    """A `$` in a flow or link name is not mathtext: `$\\foo$` (not a TeX symbol) used to fail
    at drawing time, after the results were saved. A name starting with `_` stays in the
    legend (matplotlib leaves such labels out)."""
    import matplotlib.cbook

    from mmtcp import plot

    summary = fake_summary()
    names = ["$\\foo$", "_a$b"]
    for flow, name in zip(summary["flows"], names, strict=True):
        flow["name"] = name
    summary["links"][1]["name"] = "$\\alpha$_x"
    ts = fake_timeseries(summary)
    written = plot.plot_result(summary, ts, tmp_path)
    assert [p.name for p in written] == PLOTS
    figure = plot.goodput_figure(summary, ts)
    labels = [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    shown = [label.replace("\\$", "$").lstrip("\u200b") for label in labels]
    assert shown == ["$\\foo$ goodput", "_a$b goodput", "$\\alpha$_x capacity (bs→ue)"]
    assert not any(matplotlib.cbook.is_math_text(label) for label in labels)
    rtt = plot.rtt_figure(summary, ts).axes[0].get_legend().get_texts()
    assert [text.get_text().replace("\\$", "$").lstrip("\u200b") for text in rtt] == names
    titles = [ax.get_title() for ax in plot.cwnd_figure(summary, ts).axes]
    assert titles[0].replace("\\$", "$") == "Flow $\\foo$: window and bytes in flight"
