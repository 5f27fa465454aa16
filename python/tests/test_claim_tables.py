"""Claim tables (`mmtcp.claim_tables`, `mmtcp claims`, `reproduce --record`): headline claims
first, the README's Markdown table, the per-paper headline summary and the per-experiment counts,
the generated parts of the READMEs (each equal to the claims.json its folder keeps, which in turn
matches its experiment.toml), and recording a full run."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from helpers import REPO, SCENARIOS, assert_bad_input

from mmtcp._core import ScenarioError
from mmtcp.claim_tables import (
    BEGIN,
    END,
    claims_markdown,
    claims_table,
    generated_part,
    papers_markdown,
    papers_tables,
    recorded_claims,
    replace_generated,
    stale,
)
from mmtcp.claims_command import PAPERS_COMMAND
from mmtcp.reproduce import Experiment, load_experiment, markdown_command


def _entry(ident, summary="holds", verdict=None, **keys):
    return {
        "id": ident,
        "claim": f"{ident} is true",
        "quote": "q",
        "where": "Fig. 1",
        "source": "A et al.",
        "paper": "qualitative",
        "headline": False,
        "own": False,
        "ours": "1.2x [1.1, 1.3] (n=10)",
        "verdict": verdict or ("fails" if summary == "holds under a reading" else summary),
        "note": "",
        "readings": {},
        "by_reading": {},
        "summary": summary,
        "holds_under": [],
        **keys,
    }


ENTRIES = [
    _entry("plain"),
    _entry(
        "decided",
        summary="holds under a reading",
        headline=True,
        readings={"walls-30dB": "holds"},
        by_reading={"walls-30dB": {"about": "walls | reflecting at 30 dB", "verdict": "holds"}},
        holds_under=["walls-30dB"],
    ),
    _entry("ours", summary="fails", own=True),
]


def test_the_terminal_table_puts_headlines_first_and_names_the_deciding_reading():
    text = claims_table(ENTRIES)
    found = [re.match(r"(★|own)?\s*(plain|decided|ours)\s", line) for line in text.splitlines()]
    rows = [m.string for m in found if m]
    assert [re.match(r"(★|own)?\s*(\w+)", r)[2] for r in rows] == [
        "decided",
        "plain",
        "ours",
    ]
    assert rows[0].startswith("★")
    assert rows[0].rstrip().endswith("holds under a reading (walls-30dB)")
    assert rows[2].startswith("own")
    assert "decided, under the readings: walls-30dB holds" in text


def test_the_markdown_table_escapes_cells_and_lists_the_readings():
    text = claims_markdown(ENTRIES)
    lines = text.splitlines()
    assert lines[0].startswith("| | claim | where | the paper |")
    assert lines[2].startswith("| ★ | `decided`: decided is true | Fig. 1 |")
    assert "| **fails** | walls-30dB: holds | holds under a reading (walls-30dB) |" in lines[2]
    assert lines[4].startswith("| own | `ours`")
    assert "- `walls-30dB`: walls \\| reflecting at 30 dB" in lines
    assert claims_markdown([]) == "The experiment states no claims."


def test_the_papers_tables_count_headlines_per_paper_and_claims_per_experiment():
    other = [
        _entry("b1", summary="not settled", headline=True, source="B et al."),
        _entry("b2", summary="not testable", source="B et al."),
    ]
    (caption, (header, rows)), (_, (_, experiments)) = papers_tables(
        [("exp-a", ENTRIES), ("exp-b", other), ("exp-c", None)]
    )
    assert "Headline" in caption
    assert header[:7] == [
        "paper",
        "headline claims",
        "hold",
        "under a reading",
        "fail",
        "not settled",
        "not testable",
    ]
    # A et al.: one headline (decided, under a reading); the own claim is not the paper's.
    assert rows[0][:7] == ["A et al.", "1", "0", "1", "0", "0", "0"]
    assert rows[0][7] == "2: 1 hold, 1 under a reading"
    assert rows[1][:7] == ["B et al.", "1", "0", "0", "0", "1", "0"]
    assert experiments[0] == ["exp-a", "2", "1", "1", "1", "1", "0", "0"]
    assert experiments[2][:4] == ["exp-c", "-", "-", "no recorded full run"]


def test_generated_parts_are_replaced_between_the_markers_only():
    command = "mmtcp claims x --markdown"
    text = f"intro\n{BEGIN.format(command=command)}\nold | table\n{END}\noutro\n"
    new = replace_generated(text, command, "| new |", "README.md")
    assert new == f"intro\n{BEGIN.format(command=command)}\n| new |\n{END}\noutro\n"
    assert generated_part(new, command) == "| new |"
    assert generated_part("no markers", command) is None
    with pytest.raises(ScenarioError, match=r"README\.md: no generated claims table"):
        replace_generated("no markers", command, "| new |", "README.md")


def test_stale_names_what_differs():
    entries = [{"id": "a"}, {"id": "b"}]
    assert stale(["a", "b"], entries) is None
    assert "'c' has no recorded verdict" in stale(["a", "b", "c"], entries)
    assert "'b' is not in experiment.toml" in stale(["a"], entries)
    assert "another order" in stale(["b", "a"], entries)


EXPERIMENT_FILES = sorted((REPO / "experiments").rglob("experiment.toml"))


def _experiments() -> list[Experiment]:
    return [e for e in map(load_experiment, EXPERIMENT_FILES) if e.claims]


@pytest.mark.parametrize("path", EXPERIMENT_FILES, ids=lambda p: p.parent.name)
def test_every_readme_table_is_its_recorded_claims_json(path):
    experiment = load_experiment(path)
    entries = recorded_claims(experiment.directory)
    assert entries is not None, f"{experiment.directory}: no claims.json; reproduce --record"
    assert stale([c.id for c in experiment.claims], entries) is None
    for claim, entry in zip(experiment.claims, entries, strict=True):
        assert (entry["quote"], entry["claim"], entry["headline"]) == (
            claim.quote,
            claim.claim,
            claim.headline,
        ), f"{claim.id}: experiment.toml changed since the recorded run"
    readme = (experiment.directory / "README.md").read_text(encoding="utf-8")
    table = generated_part(readme, markdown_command(experiment.name))
    assert table is not None, f"{experiment.directory}/README.md: no generated claims table"
    assert table == claims_markdown(entries), "regenerate it: mmtcp claims --write"


def test_the_top_readme_papers_table_is_mmtcp_claims_output():
    recorded = [(e.name, recorded_claims(e.directory)) for e in _experiments()]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert generated_part(readme, PAPERS_COMMAND) == papers_markdown(recorded)


def test_no_experiment_inflates_a_statement_into_many_claims():
    for experiment in _experiments():
        quotes = [c.quote for c in experiment.claims if not c.own]
        repeated = {q for q in quotes if quotes.count(q) > 1}
        assert not repeated, f"{experiment.name}: one statement, several claims: {repeated}"


def test_mmtcp_claims_prints_the_headlines_per_paper_and_the_counts(cli, tmp_path):
    proc = cli("claims", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no recorded file is stale
    assert "Headline claims per paper" in proc.stdout
    for paper in ("Polese et al. 2017a", "Drago et al.", "Kim et al.", "Wu et al."):
        assert re.search(rf"^{re.escape(paper)}\s+\d+", proc.stdout, re.MULTILINE), paper
    for experiment in _experiments():
        row = re.search(rf"^{re.escape(experiment.name)}\s+(\d+)\s+(\d+)", proc.stdout, re.M)
        assert row, experiment.name
        own = sum(c.own for c in experiment.claims)
        assert (int(row[1]), int(row[2])) == (len(experiment.claims) - own, own)
    markdown = cli("claims", "--markdown", cwd=tmp_path).stdout
    assert markdown.strip().startswith("Headline claims per paper")
    one = cli("claims", "example-chain", "--markdown", cwd=tmp_path)
    example = REPO / "experiments" / "example" / "chain" / "README.md"
    assert one.stdout.strip() == generated_part(
        example.read_text(), markdown_command("example-chain")
    )


def _tiny(root: Path, readme: str) -> Path:
    folder = root / "tiny"
    folder.mkdir()
    (folder / "scenario.toml").write_text((SCENARIOS / "lossy.toml").read_text())
    (folder / "README.md").write_text(readme)
    (folder / "experiment.toml").write_text(
        textwrap.dedent(
            """\
            name = "tiny"
            title = "A tiny experiment"
            claim = "Loss hurts."
            source = "Tiny et al."
            [sweep]
            scenario = "scenario.toml"
            seeds = 3
            metrics = ["flows.bulk.goodput_bps"]
            set = { "simulation.duration" = "0.3s" }
            [sweep.grid]
            "link.wire.forward.loss" = [0.0, 0.05]
            [[claims]]
            id = "loss-hurts"
            claim = "5 % loss costs at least 5 % of the goodput"
            quote = "Loss hurts."
            where = "§1"
            paper = "qualitative"
            headline = true
            kind = "less"
            metric = "flows.bulk.goodput_bps"
            at = { "link.wire.forward.loss" = 0.05 }
            over = { "link.wire.forward.loss" = 0.0 }
            """
        )
    )
    return folder


@pytest.mark.core
def test_record_keeps_the_full_runs_claims_and_regenerates_the_readme(cli, tmp_path):
    command = markdown_command("tiny")
    folder = _tiny(tmp_path, f"# tiny\n\n{BEGIN.format(command=command)}\n{END}\n\nmore\n")
    proc = cli("claims", "tiny", "--dir", tmp_path, cwd=tmp_path)
    assert_bad_input(proc, "claims.json: no recorded full run", "--record")
    quick = cli("reproduce", "tiny", "--quick", "--record", "--dir", tmp_path, cwd=tmp_path)
    assert_bad_input(quick, "--record", "not with --quick")
    proc = cli("reproduce", "tiny", "--record", "--no-report", "--dir", tmp_path, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    recorded = json.loads((folder / "claims.json").read_text())
    assert recorded == json.loads((tmp_path / "out/reproduce/tiny/claims.json").read_text())
    assert recorded[0]["headline"] is True
    readme = (folder / "README.md").read_text()
    assert readme.startswith("# tiny\n\n")
    assert readme.endswith(f"{END}\n\nmore\n")
    assert generated_part(readme, command) == claims_markdown(recorded)
    shown = cli("claims", "tiny", "--dir", tmp_path, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert re.search(r"^★\s+loss-hurts", shown.stdout, re.MULTILINE)
    from_run = cli("claims", "tiny", "--from", tmp_path / "out/reproduce/tiny", "--dir", tmp_path)
    assert from_run.stdout == shown.stdout
    summary = cli("claims", "--dir", tmp_path, cwd=tmp_path)
    assert re.search(r"^Tiny et al\.\s+1\s", summary.stdout, re.MULTILINE)


def test_record_refuses_a_readme_without_the_markers_before_running(cli, tmp_path):
    _tiny(tmp_path, "# tiny\n\nno table here\n")
    proc = cli("reproduce", "tiny", "--record", "--dir", tmp_path, cwd=tmp_path)
    assert_bad_input(proc, "README.md: no generated claims table")
    assert not (tmp_path / "out").exists()  # refused before any run
