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


def commands() -> list[list[str]]:
    """Every `mmtcp` command of the shell blocks, as argument lists after `mmtcp`."""
    found = []
    for lang, body in BLOCKS:
        if lang != "sh":
            continue
        for line in body.splitlines():
            line = line.split(" # ")[0].strip()
            if line.startswith("mmtcp "):
                found.append(shlex.split(line)[1:])
    return found


def test_the_readme_has_the_tutorial_commands() -> None:
    names = [c[0] for c in commands()]
    assert names.count("run") >= 4, names
    assert {"validate", "sweep", "reproduce", "fit-markov"} <= set(names), names


@pytest.mark.parametrize("args", commands(), ids=lambda a: " ".join(a))
def test_readme_command_runs(args: list[str], tmp_path: Path) -> None:
    (tmp_path / "blockage.toml").write_text(tutorial_scenario(), encoding="utf-8")
    argv = [str(REPO / a) if a.startswith(("scenarios/", "examples/")) else a for a in args]
    if argv[0] in ("run", "sweep"):
        argv += SHORT
    if argv[0] == "sweep":
        argv[argv.index("--seeds") + 1] = "2"
    if argv[0] in ("run", "sweep", "reproduce") and "--list" not in argv:
        if "--out" in argv:
            argv[argv.index("--out") + 1] = str(tmp_path / "out")
        else:
            argv += ["--out", str(tmp_path / "out")]
    proc = subprocess.run(
        [sys.executable, "-m", "mmtcp", *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    if argv[0] == "validate" and "--print" in argv:
        profile = next(a.split("=")[1] for a in argv if a.startswith("flow.0.transport.profile="))
        assert f'profile = "{profile}"' in proc.stdout


def test_readme_python_snippet_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = next(body for lang, body in BLOCKS if lang == "python")
    (tmp_path / "blockage.toml").write_text(
        tutorial_scenario().replace('duration = "20s"', 'duration = "2s"'), encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(os.environ, "MPLBACKEND", "Agg")
    exec(compile(snippet, "README.md", "exec"), {})
    assert (tmp_path / "out" / "from-python" / "summary.json").is_file()
