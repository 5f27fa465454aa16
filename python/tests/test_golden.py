"""The golden table (golden.py): every scenario and the short version of every experiment computes
what `golden.csv` pins. A failure lists each entry that changed; if the change is deliberate,
rewrite the table with `.venv/bin/python python/tests/golden.py --update` and say why in the
commit."""

from __future__ import annotations

import golden
import pytest

pytestmark = pytest.mark.core


def test_every_scenario_and_short_experiment_computes_the_pinned_results():
    pinned = golden.read_table()
    measured = golden.measure_all()
    changes = list(golden.differences(pinned, measured))
    assert not changes, (
        "results differ from python/tests/golden.csv:\n"
        + "\n".join(changes)
        + "\nIf this is deliberate: .venv/bin/python python/tests/golden.py --update, and say why"
        " in the commit."
    )


def test_the_table_covers_every_scenario_and_experiment():
    names = {row["name"] for row in golden.read_table()}
    expected = {case.name for case in golden.cases()}
    assert names == expected
    assert any(name.startswith("scenarios/demo") for name in names)
    assert any(name.startswith("kim2017-fig5/") for name in names)


def test_differences_name_the_changed_fields_and_ignore_equal_rows():
    row = dict.fromkeys(golden.COLUMNS, "1") | {"name": "a", "summary_sha256": "ab" * 32}
    same = dict(row)
    changed = row | {"summary_sha256": "cd" * 32, "events": "2"}
    assert list(golden.differences([row], [same])) == []
    (line,) = golden.differences([row], [changed])
    assert line.startswith("changed  a:")
    assert "summary_sha256 abababababab → cdcdcdcdcdcd" in line
    assert "events 1 → 2" in line
    assert "goodput_bps" not in line
    assert list(golden.differences([row], [])) == ["removed  a"]


def test_the_canonical_summary_leaves_out_only_what_the_simulation_does_not_decide():
    summary = {
        "wall_seconds": 1.5,
        "events_per_second": 3.0,
        "scenario_file": "/somewhere/x.toml",
        "mmtcp_version": "0.1.0",
        "events": 7,
        "flows": [{"goodput_bps": 2.5}],
    }
    moved = summary | {"wall_seconds": 9.0, "scenario_file": "x.toml", "events_per_second": 1.0}
    assert golden.canonical_summary(summary) == golden.canonical_summary(moved)
    assert golden.canonical_summary(summary) != golden.canonical_summary(summary | {"events": 8})
    nested = summary | {"flows": [{"goodput_bps": 2.0}]}
    assert golden.canonical_summary(summary) != golden.canonical_summary(nested)
