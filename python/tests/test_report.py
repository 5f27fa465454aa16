"""The terminal tables and the progress bar, fed with contract-shaped data. None of these needs
the simulation core."""

from __future__ import annotations

import io

from helpers import fake_summary

from mmtcp.progress import ProgressBar
from mmtcp.report import MISSING, format_table, run_report


def test_format_table_aligns_columns():
    table = format_table(["a", "bb"], [["xyz", "1"], ["w", "22.5"]])
    assert table.splitlines() == ["a      bb", "xyz     1", "w    22.5"]


def test_run_report_has_a_row_per_flow_and_link():
    summary = fake_summary()
    lines = run_report(summary).splitlines()
    bulk = next(line for line in lines if line.startswith("bulk"))
    fetch = next(line for line in lines if line.startswith("fetch"))
    assert "41.5" in bulk  # goodput in Mbit/s
    assert "10.4" in bulk  # delivered MB
    assert bulk.split()[-1] == MISSING  # a bulk flow has no completion time
    assert fetch.split()[-1] == "0.710"
    core = next(line for line in lines if line.startswith("core"))
    radio = next(line for line in lines if line.startswith("radio"))
    assert core.split()[-1] == MISSING  # a wired link has no mean capacity
    assert radio.split()[-1] == "50.0"
    assert "40.0x real time" in lines[-1]
    assert "123,456 events" in lines[-1]


def test_run_report_adds_a_radio_table_only_for_radio_stacks():
    summary = fake_summary()
    assert "radio direction" not in run_report(summary)
    stack = {
        "mean_sinr_db": 12.345,
        "tb_error_rate": 0.0812,
        "harq": {"retransmissions": 1200, "failed": 3},
        "rlc": {
            "retx_segments": 45,
            "sdus_lost": 2,
            "drops_buffer": 7,
            "drops_codel": 1,
            "drops_discard_timer": 20,
            "drops_rlf": 300,
        },
    }
    summary["links"][1]["directions"][0]["radio"] = stack
    lines = run_report(summary).splitlines()
    header = lines.index(next(line for line in lines if line.startswith("radio direction")))
    row = lines[header + 1].split()
    assert row[-7:] == ["12.3", "8.12", "1,200", "3", "45", "2", "328"]
    assert len([line for line in lines[header + 1 :] if "→" in line]) == 1


def test_run_report_lists_processors_with_flattened_counters():
    summary = fake_summary()
    assert "processor" not in run_report(summary)
    summary["processors"] = [
        {
            "name": "bs.mmpep",
            "kind": "mmpep",
            "node": "bs",
            "stats": {"early_acks": 12345, "batch": {"count": 3, "segments": 42}, "gamma": 0.2077},
        }
    ]
    lines = run_report(summary).splitlines()
    row = next(line for line in lines if line.startswith("bs.mmpep"))
    assert "early_acks=12,345" in row
    assert "batch.count=3, batch.segments=42" in row
    assert "gamma=0.2077" in row


def test_progress_bar_waits_then_draws_then_clears():
    stream = io.StringIO()
    bar = ProgressBar(stream, delay=2.0)
    bar(1.0, 10.0, 1000, 1.0)
    assert stream.getvalue() == ""
    bar(4.2, 10.0, 5_000_000, 2.5)
    drawn = stream.getvalue()
    assert "4.20/10.00 s" in drawn
    assert "42%" in drawn
    assert "2.0 M events/s" in drawn
    bar.clear()
    erased = stream.getvalue().rsplit("events/s", 1)[1]
    assert erased.startswith("\r")
    assert erased.endswith("\r")
    assert erased.strip() == ""
