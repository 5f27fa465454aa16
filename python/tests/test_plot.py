"""Saving results and drawing the plots, from contract-shaped fake data. None of these needs the
simulation core."""

from __future__ import annotations

import json

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
