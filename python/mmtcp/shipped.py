"""The files that ship with the package: the paper experiments and the example scenarios.

They are in `mmtcp/data/`: `experiments/` (every experiment of `mmtcp reproduce`) and
`scenarios/` (the demo and tutorial scenarios, the traces they read, and `bench/`, the scenarios
of `mmtcp bench`). In a checkout the two are symbolic links to the repository's `experiments/`
and `scenarios/`, so an editable install reads the files being edited; a wheel or an sdist holds
copies of them (`[tool.maturin] include` in pyproject.toml). Both keep the repository's layout,
so a scenario's relative path to a trace (`../../../scenarios/traces/...`) holds in either place.
Nothing here is looked for in the current directory.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from mmtcp._core import ScenarioError

DATA = Path(__file__).resolve().parent / "data"
EXPERIMENTS = (DATA / "experiments").resolve()
SCENARIOS = (DATA / "scenarios").resolve()
BENCH_SCENARIOS = SCENARIOS / "bench"


def scenario_files(root: Path = SCENARIOS) -> list[Path]:
    """The scenarios of `root` (the shipped ones by default), then those of its `bench/`."""
    return sorted(root.glob("*.toml")) + sorted((root / "bench").glob("*.toml"))


def copy_scenarios(destination: Path) -> list[Path]:
    """Copies the shipped scenarios, with their traces and `bench/`, into the new folder
    `destination`; returns the copied scenario files."""
    if destination.exists():
        raise ScenarioError(f"{destination}: already exists; name a new folder to copy into")
    if not SCENARIOS.is_dir():
        raise ScenarioError(f"{SCENARIOS}: no such directory (this installation has no scenarios)")
    shutil.copytree(SCENARIOS, destination, ignore=shutil.ignore_patterns("__pycache__"))
    return scenario_files(destination)
