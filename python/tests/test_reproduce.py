"""`mmtcp reproduce`: listing experiments, running one (quick) end to end with its figures, the
`[quick]` table, and the errors. Runs need the simulation core."""

from __future__ import annotations

import json
import re
import textwrap

import pytest
from helpers import REPO, SCENARIOS, assert_bad_input

from mmtcp.reproduce import Experiment, find_experiments, load_experiment

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
EXAMPLE = REPO / "experiments" / "example" / "chain"


def test_list_finds_the_example_from_anywhere(cli, tmp_path):
    proc = cli("reproduce", "--list", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    header, *rows = proc.stdout.splitlines()
    assert header.split()[:2] == ["name", "title"]
    example = next(row for row in rows if row.startswith("example-chain "))
    assert "bottleneck buffer" in example
    assert str(EXAMPLE) in example


@pytest.mark.core
def test_quick_example_runs_plots_and_prints_a_table(cli, tmp_path):
    proc = cli("reproduce", "example-chain", "--quick", "--workers", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out" / "reproduce" / "example-chain-quick"
    rows = (out / "points.csv").read_text().splitlines()
    assert len(rows) == 1 + 3  # header, three buffers
    assert rows[0].startswith("point,link.bottleneck.buffer,runs,failed,")
    figure = out / "figures" / "buffer.png"
    assert figure.read_bytes().startswith(PNG_MAGIC)
    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["seeds"] == [1, 2, 3]
    assert manifest["set"] == {"simulation.duration": "2s"}
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("example-chain (quick): Example")
    assert lines[1].startswith("claim: A drop-tail buffer")
    table = [line for line in lines if line.startswith(("25pkt", "250pkt", "1000pkt"))]
    assert len(table) == 3
    assert all(line.count("±") == 3 for line in table)
    assert f"figure: {figure.relative_to(tmp_path)}" in lines
    report = out / "report.html"
    assert f"report: {report.relative_to(tmp_path)}" in lines
    page = report.read_text(encoding="utf-8")
    # Per claim, the verdict at the paper's setting and the summary over the readings.
    cells = re.findall(r'<td class="verdict ([a-z-]+)">', page)
    assert len(cells) == 2 * 3
    assert set(cells) <= {"holds", "fails", "not-settled"}
    assert "Example: CUBIC goodput and RTT against the bottleneck buffer" in page
    assert page.count("data:image/png;base64,") == 1


def test_unknown_name_lists_the_available_ones(cli, tmp_path):
    line = assert_bad_input(cli("reproduce", "nope", cwd=tmp_path), "'nope'", "example-chain")
    assert "available" in line


def test_name_or_list_is_required(cli, tmp_path):
    assert_bad_input(cli("reproduce", cwd=tmp_path), "NAME", "--list")


def _experiment(root, name="tiny", extra=""):
    folder = root / "paper" / name
    folder.mkdir(parents=True)
    (folder / "scenario.toml").write_text((SCENARIOS / "lossy.toml").read_text())
    (folder / "experiment.toml").write_text(
        textwrap.dedent(
            f"""\
            name = "{name}"
            title = "A tiny experiment"
            claim = "Loss hurts."
            {extra}
            [sweep]
            scenario = "scenario.toml"
            seeds = 5
            metrics = ["flows.bulk.goodput_bps", "flows.bulk.rto_count"]
            set = {{ "simulation.duration" = "1s" }}
            [sweep.grid]
            "link.wire.forward.loss" = [0.0, 0.01, 0.05]
            "link.wire.delay" = ["10ms", "20ms"]

            [quick]
            seeds = "3,4"
            grid = {{ "link.wire.forward.loss" = [0.02] }}
            set = {{ "simulation.duration" = "0.3s" }}
            """
        )
    )
    (folder / "plot.py").write_text(
        textwrap.dedent(
            """\
            from matplotlib.figure import Figure

            def plot(points, out_dir):
                figure = Figure()
                axes = figure.subplots()
                axes.plot([p["metrics"]["flows.bulk.goodput_bps"]["mean"] for p in points])
                path = out_dir / "goodput.png"
                figure.savefig(path)
                (out_dir / "ids.txt").write_text(" ".join(p["id"] for p in points))
                return [path]
            """
        )
    )
    return folder


def test_quick_replaces_seeds_and_grid_and_set_key_by_key(tmp_path):
    folder = _experiment(tmp_path)
    experiment = load_experiment(folder / "experiment.toml")
    full, quick = experiment.spec(quick=False), experiment.spec(quick=True)
    assert full.scenario == str(folder / "scenario.toml")
    assert (full.seeds, quick.seeds) == ([1, 2, 3, 4, 5], [3, 4])
    assert len(full.expand()) == 6
    assert [p.overrides for p in quick.expand()] == [
        {"link.wire.forward.loss": 0.02, "link.wire.delay": "10ms"},
        {"link.wire.forward.loss": 0.02, "link.wire.delay": "20ms"},
    ]
    assert quick.fixed == {"simulation.duration": "0.3s"}


@pytest.mark.core
def test_an_experiments_folder_of_the_current_directory_is_not_run_unless_named(cli, tmp_path):
    _experiment(tmp_path / "experiments", name="planted")
    listing = cli("reproduce", "--list", cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    names = [line.split()[0] for line in listing.stdout.splitlines()[1:]]
    assert "planted" not in names
    assert "example-chain" in names
    proc = cli("reproduce", "planted", "--quick", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    named = cli("reproduce", "--list", "--dir", tmp_path / "experiments", cwd=tmp_path)
    assert [line.split()[0] for line in named.stdout.splitlines()[1:]] == ["planted"]


def test_an_experiment_of_another_folder(cli, tmp_path):
    root = tmp_path / "mine"
    _experiment(root, extra='table = ["flows.bulk.rto_count"]')
    listing = cli("reproduce", "--list", "--dir", root, cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert [line.split()[0] for line in listing.stdout.splitlines()] == ["name", "tiny"]

    out = tmp_path / "here"
    proc = cli("reproduce", "tiny", "--quick", "--dir", root, "--out", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (out / "figures" / "goodput.png").read_bytes().startswith(PNG_MAGIC)
    ids = (out / "figures" / "ids.txt").read_text().split()
    assert len(ids) == 2
    assert "flows.bulk.rto_count" in proc.stdout
    assert "flows.bulk.goodput_bps" not in proc.stdout  # only the `table` metrics are printed


def test_bad_experiments_are_reported(cli, tmp_path):
    good = _experiment(tmp_path)
    bad = _experiment(tmp_path, name="broken", extra="figure = 3")
    listing = cli("reproduce", "--list", "--dir", tmp_path)
    assert listing.returncode == 0
    assert "tiny" in listing.stdout
    assert "broken" not in listing.stdout
    assert "unknown key 'figure'" in listing.stderr
    assert_bad_input(cli("reproduce", "broken", "--dir", tmp_path), str(bad), "'figure'")
    with pytest.raises(Exception, match="unknown key 'figure'"):
        load_experiment(bad / "experiment.toml")
    assert isinstance(load_experiment(good / "experiment.toml"), Experiment)


def test_two_experiments_with_one_name_are_refused(tmp_path):
    _experiment(tmp_path / "a")
    _experiment(tmp_path / "b")
    with pytest.raises(Exception, match="also the name of"):
        find_experiments([tmp_path])
