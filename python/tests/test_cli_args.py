"""Command-line errors that are caught before any simulation: each exits 2 with one line on
stderr and no traceback. None of these needs the simulation core."""

from __future__ import annotations

import pytest
from helpers import SCENARIOS, assert_bad_input

SMALL = SCENARIOS / "small.toml"


def test_help_exits_0(cli):
    proc = cli("--help")
    assert proc.returncode == 0
    for command in ("run", "validate", "plot", "bench"):
        assert command in proc.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ((), "required"),
        (("simulate", "x.toml"), "simulate"),
        (("run",), "SCENARIO"),
        (("run", SMALL, "--frobnicate"), "--frobnicate"),
        (("run", SMALL, "--seed", "many"), "many"),
        (("run", SMALL, "--seed", "-1"), "-1"),
        (("bench", "--engine-events", "0"), "--engine-events"),
    ],
)
def test_bad_arguments(cli, args, fragment):
    assert_bad_input(cli(*args), fragment)


@pytest.mark.parametrize("command", ["run", "validate"])
def test_set_without_equals(cli, command):
    line = assert_bad_input(cli(command, SMALL, "--set", "link.1.delay"), "link.1.delay")
    assert "PATH=VALUE" in line


@pytest.mark.parametrize("command", ["run", "validate"])
def test_missing_scenario_file(cli, command, tmp_path):
    missing = tmp_path / "nowhere.toml"
    assert_bad_input(cli(command, missing), str(missing))


def test_plot_without_results(cli, tmp_path):
    assert_bad_input(cli("plot", tmp_path), str(tmp_path), "summary.json")


def test_bench_without_scenarios(cli, tmp_path):
    assert_bad_input(cli("bench", "--dir", tmp_path / "missing"), "missing")
    assert_bad_input(cli("bench", "--dir", tmp_path), "no *.toml")
