"""A sweep's output folder: `sweep.json` says which sweep the folder holds (a changed sweep is
refused, not mixed with the old runs), and each run is saved as it ends in
`runs/<point>/seed-<seed>.json` (or `.error.txt`, with the command that reruns it alone), written
atomically, so that an interrupted sweep resumes from the runs saved."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mmtcp import _core
from mmtcp._core import ScenarioError
from mmtcp.api import override_pairs
from mmtcp.sweep_spec import Point, SweepSpec


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
            import shutil

            shutil.rmtree(out_dir / "runs", ignore_errors=True)
            for name in ("points.csv", "points.json"):
                (out_dir / name).unlink(missing_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_atomically(sweep_json, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


def remove_temporaries(out_dir: Path) -> None:
    """Deletes the temporary files of writes an interrupted sweep left unfinished."""
    for stale in [*out_dir.glob(".*.tmp"), *(out_dir / "runs").glob("*/.*.tmp")]:
        stale.unlink(missing_ok=True)


def run_path(runs_dir: Path, point: Point, seed: int) -> Path:
    """The summary of a successful run."""
    return runs_dir / point.id / f"seed-{seed}.json"


def error_path(runs_dir: Path, point: Point, seed: int) -> Path:
    """The error message of a failed run."""
    return runs_dir / point.id / f"seed-{seed}.error.txt"


def save_run(spec: SweepSpec, runs_dir: Path, point: Point, seed: int, ok: bool, text: str) -> None:
    """Saves a run as it ends: its summary `text` if `ok` (replacing the error of an earlier
    attempt), else the error `text` and the command that reruns it alone."""
    path = run_path(runs_dir, point, seed)
    failed = error_path(runs_dir, point, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    if ok:
        write_atomically(path, text)
        failed.unlink(missing_ok=True)
    else:
        command = _command_line(spec, point, seed)
        write_atomically(failed, f"{text.rstrip()}\n\nto rerun alone: {command}\n")


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
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()
