"""The per-entity tables (issue 28): every flow and link of a run, with the values summary.json
held for it; the wide time series as a view of the long ones; metric paths read from the tables
when the summary does not list the entities, in a run and in a sweep."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
from helpers import REPO

import mmtcp
from mmtcp.aggregate import _flatten
from mmtcp.metrics import metric_value
from mmtcp.tables import SummaryEntries

SHIPPED = REPO / "scenarios"


def numbers(entry: dict[str, Any], prefix: str) -> dict[str, Any]:
    """Every number of a summary entry by its metric path (as runs.parquet names them)."""
    found: dict[str, Any] = {}
    _flatten(entry, prefix, found)
    return found


def unlisted(result: mmtcp.Result) -> SummaryEntries:
    return SummaryEntries(lambda name: result.tables[name].to_arrow())


@pytest.mark.parametrize(
    "scenario", ["mptcp-dual-ap.toml", "lte-and-28ghz.toml", "cotag-dual-ap.toml", "demo.toml"]
)
def test_tables_rebuild_every_number_the_summary_lists(scenario):
    """The same run with `metrics.summary_entries = 0` lists nothing; every number the full
    summary held for a flow (subflows and drops by place included) or link comes back from
    the tables through its metric path."""
    short = {"simulation.duration": "300ms"}
    full = mmtcp.run(SHIPPED / scenario, overrides=short)
    bare = mmtcp.run(SHIPPED / scenario, overrides={**short, "metrics.summary_entries": 0})
    assert "flows" not in bare.summary
    assert "links" not in bare.summary
    assert "scenario" not in bare.summary
    assert "scenario" in full.summary
    entries = unlisted(bare)
    checked = 0
    for kind in ("flows", "links"):
        for entry in full.summary[kind]:
            for path, value in numbers(entry, f"{kind}.{entry['name']}").items():
                got = metric_value(bare.summary, path, entries)
                assert got == (None if value is None else pytest.approx(float(value))), path
                checked += 1
    assert checked > 50
    assert bare.summary["aggregates"] == full.summary["aggregates"]
    assert bare.resolved_scenario.replace("summary_entries = 0", "summary_entries = 100") == (
        full.resolved_scenario
    ), "the resolved scenario of a large run is computed on request"


def test_the_wide_view_is_the_long_tables_reshaped():
    result = mmtcp.run(SHIPPED / "mptcp-dual-ap.toml", overrides={"simulation.duration": "200ms"})
    wide = result.timeseries
    flows = result.table("flows")
    samples = len(wide)
    assert len(flows) % samples == 0
    sub = flows[(flows["flow"] == flows["flow"].iloc[0]) & (flows["subflow"] == 1)]
    name = f"flow.{flows['flow'].iloc[0]}.sf1.cwnd_bytes"
    np.testing.assert_array_equal(wide[name].to_numpy(), sub["cwnd_bytes"].to_numpy())
    conn = flows[(flows["flow"] == flows["flow"].iloc[0]) & flows["subflow"].isna()]
    assert conn["cwnd_bytes"].isna().all(), "a connection has no cwnd: null in its rows"
    assert f"flow.{flows['flow'].iloc[0]}.cwnd_bytes" not in wide.columns
    links = result.table("links")
    wired = links[links["sinr_db"].isna()]
    assert len(wired)
    assert not any(
        c.endswith(".sinr_db") and c.startswith(f"link.{wired['link'].iloc[0]}.")
        for c in wide.columns
    )
    np.testing.assert_array_equal(wide["time_s"].to_numpy(), flows["time_s"].unique())


def star(ues: int) -> dict[str, Any]:
    names = [f"ue{i}" for i in range(ues)]
    return {
        "simulation": {"duration": "50ms", "seed": 1},
        "metrics": {"interval": "10ms"},
        "node": [{"name": "server"}, {"name": "bs"}] + [{"name": n} for n in names],
        "link": [
            {
                "name": "core",
                "between": ["server", "bs"],
                "rate": "40Gbps",
                "delay": "1ms",
                "buffer": "30000pkt",
            }
        ]
        + [
            {"name": f"l{n}", "between": ["bs", n], "rate": "10Mbps", "delay": "1ms"} for n in names
        ],
        "flow": [{"name": f"to-{n}", "from": "server", "to": n} for n in names],
    }


def test_a_2000_flow_run_keeps_every_flow_in_its_tables_and_a_sweep_selects_from_them(tmp_path):
    """Issue 28's must-show: the per-flow tables of a 2000-flow run hold every flow with the
    values summary.json held before (the same run listing its entries), and `mmtcp sweep`
    reads a flow's metric from them."""
    scenario = star(2000)
    listed = mmtcp.run(scenario, overrides={"metrics.summary_entries": 2001})
    large = mmtcp.run(scenario)
    assert "flows" not in large.summary
    assert len(listed.summary["flows"]) == 2000
    out = large.save(tmp_path / "run")
    assert not (out / "timeseries.parquet").exists()
    assert not (out / "scenario.resolved.toml").exists()
    table = pq.read_table(out / "flow_summary.parquet")
    assert table.num_rows == 2000
    rows = {r["flow"]: r for r in table.to_pylist()}
    for entry in listed.summary["flows"]:
        row = rows[entry["name"]]
        for key in ("goodput_bps", "bytes_delivered", "retransmitted_segments", "rto_count"):
            assert row[key] == entry[key], (entry["name"], key)
        assert row["rtt_ms.p99"] == entry["rtt_ms"]["p99"]
        assert row["dropped_segments.total"] == entry["dropped_segments"]["total"]
    flows = pq.read_table(out / "flows.parquet")
    assert flows.num_rows == 5 * 2000, "5 samples of 2000 flows"

    metric = "flows.to-ue1234.goodput_bps"
    sweep = mmtcp.sweep(
        scenario, points=[{}], seeds=[1], metrics=[metric], out=tmp_path / "sweep", workers=1
    )
    expected = next(f for f in listed.summary["flows"] if f["name"] == "to-ue1234")
    assert expected["goodput_bps"] > 0
    assert sweep.stats(0, metric).mean == expected["goodput_bps"]
    run_file = next((tmp_path / "sweep" / "runs").glob("*/seed-1.json"))
    assert "__entity_tables__" not in run_file.read_text(encoding="utf-8")
    assert run_file.with_name("seed-1.flow_summary.parquet").is_file()


def test_a_save_into_a_used_folder_removes_what_this_run_does_not_write(tmp_path):
    small = mmtcp.run(star(2))
    small.save(tmp_path)
    assert (tmp_path / "timeseries.parquet").is_file()
    mmtcp.run(star(2), overrides={"metrics.summary_entries": 1}).save(tmp_path)
    assert not (tmp_path / "timeseries.parquet").exists()
    assert not (tmp_path / "scenario.resolved.toml").exists()
    assert Path(tmp_path / "flows.parquet").is_file()


def test_a_run_of_many_flows_reports_and_plots_distributions(tmp_path):
    """Beyond `report.FEW` flows: the printed tables give the distributions across flows and the
    top ten, the plots their percentiles and CDF, report.html the same tables; from the saved
    folder too, when the summary does not list the flows."""
    from mmtcp.html_report import write_report
    from mmtcp.plot import plot_dir
    from mmtcp.report import FEW, run_report

    result = mmtcp.run(star(FEW + 6), overrides={"metrics.summary_entries": FEW + 1})
    out = result.save(tmp_path / "run")
    arrow = {name: result.tables[name].to_arrow() for name in ("flow_summary", "link_summary")}
    text = run_report(result.summary, arrow)
    assert f"{FEW + 6} flows:" in text
    assert "The 10 flows with the most goodput" in text
    top = text.split("The 10 flows with the most goodput")[1].splitlines()[2:12]
    goodputs = [float(line.split()[1]) for line in top]
    assert goodputs == sorted(goodputs, reverse=True)
    assert len(top) == 10
    assert sum(line.startswith("to-ue") for line in text.splitlines()) == 10
    stems = sorted(p.stem for p in result.plot(out))
    assert stems == ["goodput", "goodput_cdf", "queues", "rtt"]
    assert sorted(p.stem for p in plot_dir(out)) == stems, "from the saved tables alone"
    page = write_report(out).read_text(encoding="utf-8")
    assert "The 10 flows with the most goodput" in page
    assert "mmtcp run --resolved" in page, "no resolved scenario for an unlisted run"


def test_plot_and_report_of_a_folder_from_before_the_tables(tmp_path, cli):
    """A run folder written before issue 28 (summary.json without aggregates, listing its many
    flows, and timeseries.parquet only) still plots a line per flow and reports every flow; a
    folder with neither time series is refused, naming both files."""
    from mmtcp.html_report import write_report
    from mmtcp.report import FEW

    result = mmtcp.run(star(FEW + 2))
    result.save(tmp_path)
    old = dict(result.summary)
    del old["aggregates"]
    (tmp_path / "summary.json").write_text(json.dumps(old), encoding="utf-8")
    for name in ("flows", "links", "proxies", "flow_summary", "link_summary", "flow_drops"):
        (tmp_path / f"{name}.parquet").unlink()
    proc = cli("plot", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(Path(p).stem for p in proc.stdout.split()) == ["cwnd", "goodput", "queues", "rtt"]
    page = write_report(tmp_path).read_text(encoding="utf-8")
    assert f"to-ue{FEW + 1}" in page, "every flow listed"
    (tmp_path / "timeseries.parquet").unlink()
    proc = cli("plot", tmp_path)
    assert proc.returncode == 2
    assert "no timeseries.parquet or flows.parquet" in proc.stderr
