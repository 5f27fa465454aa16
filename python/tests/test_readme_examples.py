"""The README's tutorial runs as written: its scenario, every `mmtcp` command on it or on a file
of the repository, and its Python snippet. Runs and sweeps are shortened with a duration
override (sweeps also to two seeds), and outputs go to a temporary folder; nothing else is
changed."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w*)\n(.*?)```", README, re.S)
SHORT = ["--set", "simulation.duration=2s"]


def tutorial_scenario() -> str:
    """The first TOML block: the tutorial's complete scenario (`blockage.toml`)."""
    return next(body for lang, body in BLOCKS if lang == "toml")


def command_blocks() -> list[list[list[str]]]:
    """The `mmtcp` commands of each shell block, as argument lists after `mmtcp`: a block's
    commands run in order in one folder, since a later one may use what an earlier one wrote
    (`mmtcp scenarios --copy DIR`, then a run of a scenario in DIR)."""
    blocks = []
    for lang, body in BLOCKS:
        if lang != "sh":
            continue
        found = []
        for line in body.splitlines():
            line = line.split(" # ")[0].strip()
            if line.startswith("mmtcp "):
                found.append(shlex.split(line)[1:])
        if found:
            blocks.append(found)
    return blocks


def test_the_readme_has_the_tutorial_commands() -> None:
    names = [c[0] for block in command_blocks() for c in block]
    assert names.count("run") >= 4, names
    assert {"validate", "sweep", "reproduce", "fit-markov", "scenarios"} <= set(names), names


def run_command(args: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    """Runs one README command in `folder`, shortened and with its output kept in `folder`."""
    argv = [str(REPO / a) if a.startswith(("scenarios/", "examples/")) else a for a in args]
    if argv[0] in ("run", "sweep"):
        argv += SHORT
    if argv[0] == "sweep":
        argv[argv.index("--seeds") + 1] = "2"
    if argv[0] in ("run", "sweep", "reproduce") and "--list" not in argv:
        out = str(folder / "out" / "-".join(a for a in args[:2] if "/" not in a))
        if "--out" in argv:
            argv[argv.index("--out") + 1] = out
        else:
            argv += ["--out", out]
    return subprocess.run(
        [sys.executable, "-m", "mmtcp", *argv],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("block", command_blocks(), ids=lambda b: " ".join(b[0])[:70])
def test_readme_commands_run(block: list[list[str]], tmp_path: Path) -> None:
    (tmp_path / "blockage.toml").write_text(tutorial_scenario(), encoding="utf-8")
    for args in block:
        proc = run_command(args, tmp_path)
        assert proc.returncode == 0, f"mmtcp {shlex.join(args)}: {proc.stderr}"
        if args[0] == "validate" and "--print" in args:
            setting = next(a for a in args if a.startswith("flow.0.transport.profile="))
            assert f'profile = "{setting.split("=")[1]}"' in proc.stdout


def test_readme_python_snippet_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = next(body for lang, body in BLOCKS if lang == "python")
    (tmp_path / "blockage.toml").write_text(
        tutorial_scenario().replace('duration = "20s"', 'duration = "2s"'), encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(os.environ, "MPLBACKEND", "Agg")
    exec(compile(snippet, "README.md", "exec"), {})
    assert (tmp_path / "out" / "from-python" / "summary.json").is_file()
