"""A sweep's output folder: `sweep.json` says which sweep the folder holds (a changed sweep is
refused, not mixed with the old runs), and each run is saved as it ends in
`runs/<point>/seed-<seed>.json` (or `.error.txt`, with the command that reruns it alone), written
atomically, so that an interrupted sweep resumes from the runs saved. Each run file records the
digest of the run it holds (`run_digest`), so that resuming reruns a file that belongs to another
run instead of counting it."""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mmtcp import _core
from mmtcp._core import ScenarioError
from mmtcp.api import override_pairs
from mmtcp.sweep_spec import Point, SweepSpec
from mmtcp.tables import SummaryEntries
from mmtcp.worker_pool import ENTITY_TABLES_KEY

RUN_DIGEST_KEY = "sweep_run"
"""The key of a run file (first, before the run's summary) that holds its `run_digest`."""

OUTPUT_FILES = ("points.csv", "points.json", "points.parquet", "runs.parquet")
"""The results computed from the runs, deleted with them by `--force`."""

_TEMPORARY_SUFFIX = ".mmtcp-tmp"
_TEMPORARY = re.compile(r"\..+\.\d+" + re.escape(_TEMPORARY_SUFFIX))
"""The name of a temporary file `write_atomically` writes: `.<name>.<pid>.mmtcp-tmp`. Only
such files are deleted as left-overs of an interrupted sweep, never a user's `.notes.tmp`."""


def build_manifest(spec: SweepSpec, points: list[Point], metrics: list[str]) -> dict[str, Any]:
    """What sweep.json holds: the sweep's settings, and the hashes that tell whether a folder
    holds runs of the same sweep (of the mmtcp version, the scenario, every point's overrides)."""
    if isinstance(spec.scenario, Mapping):
        scenario_text = json.dumps(spec.scenario, sort_keys=True).encode()
        scenario_name: str | None = None
    else:
        scenario_text = Path(spec.scenario).read_bytes()
        scenario_name = spec.scenario
    point_overrides = [
        {"id": p.id, "overrides": override_pairs({**spec.fixed, **spec.applied(p.overrides)})}
        for p in points
    ]
    overrides_hash = _sha256(json.dumps(point_overrides).encode())
    scenario_hash = _sha256(scenario_text)
    return {
        "mmtcp_version": _core.__version__,
        "sweep_file": spec.origin if spec.origin != "sweep" else None,
        "scenario": scenario_name,
        "scenario_sha256": scenario_hash,
        "seeds": list(spec.seeds or []),
        "grid": spec.grid,
        "set": spec.fixed,
        "points": [{"id": p.id, "overrides": p.overrides} for p in points],
        "metrics": metrics,
        "overrides_sha256": overrides_hash,
        "hash": _sha256(f"{_core.__version__}\n{scenario_hash}\n{overrides_hash}".encode()),
    }


def claim_out_dir(out_dir: Path, manifest: dict[str, Any], force: bool) -> None:
    """Refuses an output folder that holds another sweep (unless `force`: then its runs are
    deleted), and writes sweep.json."""
    sweep_json = out_dir / "sweep.json"
    if sweep_json.is_file():
        try:
            old = json.loads(sweep_json.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = {}
        if old.get("hash") != manifest["hash"]:
            if not force:
                changed = [
                    what
                    for key, what in (
                        ("scenario_sha256", "the scenario file"),
                        ("overrides_sha256", "the grid, points or set overrides"),
                        ("mmtcp_version", "the mmtcp version"),
                    )
                    if old.get(key) != manifest[key]
                ]
                why = f"{' and '.join(changed)} changed" if changed else "its sweep.json differs"
                raise ScenarioError(
                    f"{out_dir}: holds runs of a different sweep ({why}); rerun with --force "
                    f"(force=True) to delete them and start over, or write elsewhere with --out"
                )
            _delete_results(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_atomically(sweep_json, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


def _delete_results(out_dir: Path) -> None:
    """Deletes the runs and results of the sweep in `out_dir` (for `--force`). A `runs` that is a
    symbolic link is unlinked, not followed: what it points to may lie outside `out_dir`, and
    `--force` deletes nothing there; the new runs go to a fresh `runs/` folder."""
    import shutil

    runs_dir = out_dir / "runs"
    try:
        if runs_dir.is_symlink() or runs_dir.is_file():
            runs_dir.unlink()
        elif runs_dir.exists():
            shutil.rmtree(runs_dir)  # links inside are removed, not followed
        for name in OUTPUT_FILES:
            (out_dir / name).unlink(missing_ok=True)
    except OSError as e:
        raise ScenarioError(
            f"{out_dir}: cannot delete the runs of the other sweep: {e.strerror}: {e.filename}"
        ) from None


def remove_temporaries(out_dir: Path) -> None:
    """Deletes the temporary files of writes an interrupted sweep left unfinished (only names
    `write_atomically` makes)."""
    for stale in [*out_dir.glob(".*"), *(out_dir / "runs").glob("*/.*")]:
        if _TEMPORARY.fullmatch(stale.name) and stale.is_file():
            stale.unlink(missing_ok=True)


def run_digest(manifest: dict[str, Any], overrides: list[tuple[str, str]], seed: int) -> str:
    """What identifies a run: a SHA-256 of the mmtcp version, the scenario text's hash, the
    run's overrides (`set` and the point's, as passed to the core) and its seed."""
    identity = [manifest["mmtcp_version"], manifest["scenario_sha256"], overrides, seed]
    return _sha256(json.dumps(identity).encode())


def saved_digest(path: Path) -> str | None:
    """The run digest recorded in a run file; None if it has none or is not a readable run."""
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    digest = summary.get(RUN_DIGEST_KEY) if isinstance(summary, dict) else None
    return digest if isinstance(digest, str) else None


def run_path(runs_dir: Path, point: Point, seed: int) -> Path:
    """The summary of a successful run."""
    return runs_dir / point.id / f"seed-{seed}.json"


def table_path(run_file: Path, table: str) -> Path:
    """Where a run's per-entity table `table` is kept when its summary does not list the run's
    flows and links: beside its run file, `seed-<seed>.<table>.parquet`."""
    return run_file.with_name(f"{run_file.stem}.{table}.parquet")


def run_entries(run_file: Path) -> SummaryEntries:
    """The flows' and links' summary entries of a run, rebuilt from the tables beside its file
    (for metric paths into a summary that does not list them)."""

    def load(name: str) -> Any:
        path = table_path(run_file, name)
        if not path.is_file():
            return None
        import pyarrow.parquet as pq

        return pq.read_table(path)

    return SummaryEntries(load)


def error_path(runs_dir: Path, point: Point, seed: int) -> Path:
    """The error message of a failed run."""
    return runs_dir / point.id / f"seed-{seed}.error.txt"


def save_run(
    spec: SweepSpec, runs_dir: Path, point: Point, seed: int, digest: str, ok: bool, text: str
) -> None:
    """Saves a run as it ends: its summary `text` (JSON) if `ok`, with the run's `digest` as its
    first key (replacing the error of an earlier attempt), else the error `text` and the command
    that reruns it alone (replacing a run file of another run found under its name)."""
    path = run_path(runs_dir, point, seed)
    failed = error_path(runs_dir, point, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    if ok:
        summary = {RUN_DIGEST_KEY: digest, **json.loads(text)}
        for name, encoded in summary.pop(ENTITY_TABLES_KEY, {}).items():
            # Before the run file: a run counts as done once its file exists.
            temporary = temporary_path(table_path(path, name))
            temporary.write_bytes(base64.b64decode(encoded))
            os.replace(temporary, table_path(path, name))
        write_atomically(path, json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
        failed.unlink(missing_ok=True)
    else:
        command = _command_line(spec, point, seed)
        write_atomically(failed, f"{text.rstrip()}\n\nto rerun alone: {command}\n")
        path.unlink(missing_ok=True)  # a file of another run, rerun and failed, is not this run


def _command_line(spec: SweepSpec, point: Point, seed: int) -> str:
    scenario = spec.scenario if isinstance(spec.scenario, str) else "<dict scenario>"
    parts = ["mmtcp", "run", scenario, "--seed", str(seed)]
    for path, value in override_pairs({**spec.fixed, **spec.applied(point.overrides)}):
        parts += ["--set", f"{path}={value}"]
    return " ".join(_shell_quote(p) for p in parts)


def _shell_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def write_atomically(path: Path, text: str) -> None:
    """Writes `text` to a temporary file next to `path`, then renames it over `path`."""
    temporary = temporary_path(path)
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def temporary_path(path: Path) -> Path:
    """Where to write `path`'s content before renaming it over `path`: a name that
    `remove_temporaries` knows as the sweep's own."""
    return path.with_name(f".{path.name}.{os.getpid()}{_TEMPORARY_SUFFIX}")


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()
