"""Wu et al.'s reproductions (`wu-cotag-*`): each quick version runs, draws its figures and writes
a claims.json with every claim of the experiment, some of them testable in the quick grid."""

from __future__ import annotations

import json

import pytest
from helpers import REPO

from mmtcp.reproduce import find_experiments

NAMES = sorted(
    e.name for e in find_experiments([REPO / "experiments"]) if e.name.startswith("wu-cotag-")
)
VERDICTS = {"holds", "fails", "not testable"}


def test_every_figure_of_the_issue_has_an_experiment():
    assert NAMES == [
        "wu-cotag-fig10-12",
        "wu-cotag-fig13",
        "wu-cotag-fig14",
        "wu-cotag-fig15",
        "wu-cotag-fig16",
        "wu-cotag-fig17",
    ]


@pytest.mark.parametrize("name", NAMES)
def test_quick_version_writes_figures_and_claims(cli, tmp_path, name):
    out = tmp_path / "out"
    proc = cli("reproduce", name, "--quick", "--workers", "2", "--out", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    figures = sorted((out / "figures").glob("*.png"))
    assert figures, f"{name} drew no figure"
    assert all(f.stat().st_size > 10_000 for f in figures), figures
    experiment = next(e for e in find_experiments([REPO / "experiments"]) if e.name == name)
    entries = json.loads((out / "claims.json").read_text())
    assert [e["id"] for e in entries] == [c["id"] for c in experiment.config["claims"]]
    assert {e["verdict"] for e in entries} <= VERDICTS
    tested = [e for e in entries if e["verdict"] != "not testable"]
    assert tested, f"no claim of {name} is testable in its quick grid"
    assert all(e["n"] == 3 for e in tested), tested
