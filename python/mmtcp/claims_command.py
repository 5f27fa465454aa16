"""`mmtcp claims`: the verdicts the experiments keep (their recorded claims.json), as the
per-paper headline table and the per-experiment counts, or one experiment's table; and
`--write`, which regenerates the READMEs' generated tables from them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mmtcp._core import ScenarioError
from mmtcp.claim_tables import (
    RECORDED,
    claims_markdown,
    claims_table,
    papers_markdown,
    papers_text,
    recorded_claims,
    stale,
    write_generated,
)
from mmtcp.reproduce import (
    Experiment,
    experiment_roots,
    find_experiment,
    find_experiments,
    write_readme_table,
)
from mmtcp.shipped import EXPERIMENTS

PAPERS_COMMAND = "mmtcp claims --markdown"
"""The command that prints the top README's Papers table."""


def run_claims_command(args: argparse.Namespace) -> int:
    roots = experiment_roots(args.experiments_dir)
    if args.name:
        experiment = find_experiment(args.name, roots)
        if args.from_dir is not None:
            if args.write:
                raise ScenarioError(
                    "claims: --write regenerates the README from the recorded claims.json, not "
                    "from --from; record a run with `mmtcp reproduce NAME --record`"
                )
            entries = _read_from(Path(args.from_dir))
        else:
            entries = _recorded(experiment)
            _warn_if_stale(experiment, entries)
            if args.write:
                write_readme_table(experiment, entries)
        print(claims_markdown(entries) if args.markdown else claims_table(entries))
        return 0
    if args.from_dir is not None:
        raise ScenarioError("claims: --from reads one reproduction: give the experiment's NAME")
    experiments = find_experiments(roots, on_error=_warn)
    recorded: list[tuple[str, list[dict[str, Any]] | None]] = []
    for experiment in experiments:
        if not experiment.claims:
            continue
        entries = recorded_claims(experiment.directory)
        if entries is not None:
            _warn_if_stale(experiment, entries)
            if args.write:
                write_readme_table(experiment, entries)
        recorded.append((experiment.name, entries))
    if args.write and args.experiments_dir is None:
        readme = EXPERIMENTS.parent / "README.md"
        if readme.is_file():  # a checkout: the top README's Papers table
            write_generated(readme, PAPERS_COMMAND, papers_markdown(recorded))
    print(papers_markdown(recorded) if args.markdown else papers_text(recorded))
    return 0


def _recorded(experiment: Experiment) -> list[dict[str, Any]]:
    entries = recorded_claims(experiment.directory)
    if entries is None:
        raise ScenarioError(
            f"{experiment.directory / RECORDED}: no recorded full run; run "
            f"`mmtcp reproduce {experiment.name} --record`, or read a run with --from DIR"
        )
    return entries


def _read_from(folder: Path) -> list[dict[str, Any]]:
    if not (folder / RECORDED).is_file():
        raise ScenarioError(f"{folder}: --from: no {RECORDED} here (a `mmtcp reproduce` folder)")
    entries = recorded_claims(folder)
    assert entries is not None
    return entries


def _warn_if_stale(experiment: Experiment, entries: list[dict[str, Any]]) -> None:
    why = stale([claim.id for claim in experiment.claims], entries)
    if why is not None:
        _warn(
            f"{experiment.directory / RECORDED}: {why}; run `mmtcp reproduce {experiment.name} "
            "--record` again"
        )


def _warn(message: str) -> None:
    print(f"mmtcp: warning: {message}", file=sys.stderr)
