"""Paper experiments and `mmtcp reproduce`.

An experiment is a folder `experiments/<paper>/<figure>/` holding:

- `experiment.toml`: `name` (e.g. `polese2017-retx`), `title`, `claim` (what the paper reports),
  optionally `paper` (the reference) and `table` (the metrics printed after the run; default:
  the sweep's metrics), a `[sweep]` table with the keys of a sweep file (`scenario` relative to
  the experiment's folder, `seeds`, `[sweep.grid]`, `[[sweep.grids]]`, `[[sweep.point]]`,
  `sweep.set`, `sweep.metrics`), and a `[quick]` table whose `seeds`, `grid`, `grids`, `point`,
  `set` and `metrics` replace those of `[sweep]` (grid and set key by key; `grids` or `point`
  replace all explicit points) for a version that runs in under a minute;
- `scenario.toml` (or whatever `sweep.scenario` names);
- `plot.py`: `def plot(points: list[dict], out_dir: Path) -> list[Path]`, drawing the figures
  from the points of points.json;
- `README.md`: the claim, what mmtcp gets, how to run it;
- optionally `[[claims]]` tables: the paper's claims as predicates over the sweep's results,
  checked when the experiment loads and given a verdict after the run (`mmtcp.claims`), with
  `[[readings]]` (the readings of parameters the paper does not state) and `source` (the paper
  the claims quote unless they say otherwise);
- `claims.json`: the verdicts of its last full reproduction, recorded with `--record`
  (`mmtcp.claim_tables`).

`reproduce(name)` runs the experiment's sweep into `out/reproduce/<name>[-quick]/` (resumable, as
any sweep), evaluates its claims into `claims.json` there, then runs its `plot.py` into
`figures/`. Experiments are those shipped with the package (`mmtcp.shipped`: the repository's
`experiments/` in a checkout, a copy of it in an installed wheel), or those of the folder the
user names: a `plot.py` is code, and none is run from a folder the user did not name.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import sys
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from mmtcp._core import ScenarioError
from mmtcp.claim_tables import (
    RECORDED,
    claims_markdown,
    read_text,
    replace_generated,
    write_generated,
)
from mmtcp.claim_verdicts import evaluate_claims, read_run_values, write_claims
from mmtcp.claims import Claim, Reading, parse_claims, parse_readings
from mmtcp.metrics import check_metrics
from mmtcp.shipped import EXPERIMENTS
from mmtcp.sweep import SweepResult, run_spec
from mmtcp.sweep_spec import SweepSpec, apply_table, read_toml, spec_from_table

EXPERIMENT_FILE = "experiment.toml"
EXPERIMENT_KEYS = (
    "name",
    "title",
    "claim",
    "paper",
    "source",
    "table",
    "sweep",
    "quick",
    "readings",
    "claims",
)
QUICK_KEYS = ("seeds", "grid", "grids", "point", "set", "metrics", "variants")


@dataclass(frozen=True)
class Experiment:
    """One experiment folder, its experiment.toml read (not yet run)."""

    name: str
    title: str
    claim: str
    paper: str | None
    directory: Path
    config: dict[str, Any]
    claims: tuple[Claim, ...] = ()
    readings: tuple[Reading, ...] = ()

    @property
    def path(self) -> Path:
        return self.directory / EXPERIMENT_FILE

    def spec(self, quick: bool = False) -> SweepSpec:
        """The sweep to run: `[sweep]`, with `[quick]` applied if `quick`."""
        origin = str(self.path)
        sweep_table = self.config["sweep"]
        spec = spec_from_table(sweep_table, self.directory, f"{origin}: sweep", self.name)
        if quick:
            spec.origin = f"{origin}: quick"
            if "point" in self.config["quick"] or "grids" in self.config["quick"]:
                spec.points = []
            apply_table(spec, self.config["quick"], f"{origin}: quick")
        return spec

    def table_metrics(self, metrics: Sequence[str]) -> list[str]:
        """The metrics printed after the run: `table`, else the sweep's `metrics`."""
        table = self.config.get("table")
        return list(table) if table is not None else list(metrics)


@dataclass(frozen=True)
class Reproduction:
    """What `reproduce` produced: the sweep's result and the figures drawn."""

    experiment: Experiment
    sweep: SweepResult
    figures: list[Path]
    table_metrics: list[str]
    claims: list[dict[str, Any]]
    """The claims.json entries: id, claim, quote, where, source, paper, headline, ours, verdict,
    readings, summary... (`mmtcp.claim_verdicts`)."""


def experiment_roots(directory: str | os.PathLike[str] | None = None) -> list[Path]:
    """Where experiments are looked for: `directory` if given, else the shipped ones. Never an
    `experiments/` the current directory happens to hold: its `plot.py` files are code."""
    if directory is not None:
        root = Path(directory)
        if not root.is_dir():
            raise ScenarioError(f"{root}: no such experiments directory")
        return [root]
    return [EXPERIMENTS] if EXPERIMENTS.is_dir() else []


def load_experiment(path: str | os.PathLike[str]) -> Experiment:
    """Reads and checks an experiment.toml (the sweep itself is checked when it runs)."""
    path = Path(path)
    config = read_toml(path)
    unknown = [key for key in config if key not in EXPERIMENT_KEYS]
    if unknown:
        raise ScenarioError(
            f"{path}: unknown key {unknown[0]!r}; allowed: {', '.join(EXPERIMENT_KEYS)}"
        )
    for key in ("name", "title", "claim"):
        if not isinstance(config.get(key), str) or not config[key].strip():
            raise ScenarioError(f"{path}: {key}: expected a non-empty string")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", config["name"]):
        raise ScenarioError(
            f"{path}: name: {config['name']!r} is not a name; use letters, digits, '.', '_', '-'"
        )
    if not isinstance(config.get("sweep"), dict):
        raise ScenarioError(f"{path}: expected a [sweep] table (the keys of a sweep file)")
    quick = config.setdefault("quick", {})
    if not isinstance(quick, dict):
        raise ScenarioError(f"{path}: quick: expected a table")
    unknown = [key for key in quick if key not in QUICK_KEYS]
    if unknown:
        raise ScenarioError(
            f"{path}: quick: unknown key {unknown[0]!r}; allowed: {', '.join(QUICK_KEYS)}"
        )
    if "table" in config:
        table = config["table"]
        if not isinstance(table, list) or not all(isinstance(m, str) for m in table):
            raise ScenarioError(f"{path}: table: expected a list of metric paths")
        check_metrics(table, f"{path}: table")
    paper = config.get("paper")
    source = config.get("source")
    if source is not None and (not isinstance(source, str) or not source.strip()):
        raise ScenarioError(f'{path}: source: expected the paper, e.g. "Polese et al. 2017a"')
    experiment = Experiment(
        name=config["name"],
        title=config["title"].strip(),
        claim=" ".join(config["claim"].split()),
        paper=paper if isinstance(paper, str) else None,
        directory=path.parent,
        config=config,
    )
    readings = parse_readings(config.get("readings"), str(path))
    if "claims" not in config:
        if readings:
            raise ScenarioError(f"{path}: readings: an experiment without [[claims]] has none")
        return experiment
    claims = parse_claims(
        config["claims"],
        str(path),
        experiment.spec(quick=False),
        experiment.spec(quick=True),
        readings,
        source,
    )
    return dataclasses.replace(experiment, claims=tuple(claims), readings=tuple(readings))


def find_experiments(
    roots: Sequence[Path], on_error: Callable[[str], None] | None = None
) -> list[Experiment]:
    """Every experiment under `roots`, sorted by name; the first root wins a name found twice.
    An unreadable experiment.toml is reported to `on_error` (raised if None)."""
    found: dict[str, Experiment] = {}
    for root in roots:
        in_root: dict[str, Experiment] = {}
        for path in sorted(root.rglob(EXPERIMENT_FILE)):
            try:
                experiment = load_experiment(path)
            except ScenarioError as e:
                if on_error is None:
                    raise
                on_error(str(e))
                continue
            if experiment.name in in_root:
                raise ScenarioError(
                    f"{path}: name {experiment.name!r} is also the name of "
                    f"{in_root[experiment.name].path}"
                )
            in_root[experiment.name] = experiment
        for name, experiment in in_root.items():
            found.setdefault(name, experiment)
    return sorted(found.values(), key=lambda e: e.name)


def find_experiment(name: str, roots: Sequence[Path]) -> Experiment:
    """The experiment called `name`; a `ScenarioError` saying what is wrong with its
    experiment.toml if it cannot be read, or listing the available names if there is none."""
    broken: list[str] = []
    experiments = find_experiments(roots, on_error=broken.append)
    for experiment in experiments:
        if experiment.name == name:
            return experiment
    for root in roots:
        for path in sorted(root.rglob(EXPERIMENT_FILE)):
            if _declared_name(path) == name:
                load_experiment(path)  # raises what is wrong with it
    where = ", ".join(str(root) for root in roots) or "no shipped experiments found"
    names = ", ".join(e.name for e in experiments) or "none"
    raise ScenarioError(f"no experiment named {name!r} in {where}; available: {names}")


def _declared_name(path: Path) -> str | None:
    try:
        with open(path, "rb") as f:
            name = tomllib.load(f).get("name")
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    return name if isinstance(name, str) else None


def reproduce(
    name: str,
    *,
    quick: bool = False,
    workers: int | None = None,
    out: str | os.PathLike[str] | None = None,
    force: bool = False,
    directory: str | os.PathLike[str] | None = None,
    stream: TextIO | None = None,
    warn: Callable[[str], None] | None = None,
    dask: Any = None,
    record: bool = False,
) -> Reproduction:
    """Runs experiment `name` (its quick version if `quick`) and draws its figures.

    Output: `out` (default `out/reproduce/<name>[-quick]`) holds the sweep's files (sweep.json,
    runs/, points.csv, points.json), `claims.json` (the claims' verdicts; `[]` without claims)
    and `figures/`. `record` (full version only) also keeps claims.json in the experiment's
    folder and regenerates the claims table of its README.md.
    """
    if record and quick:
        raise ScenarioError("reproduce: --record keeps a full run's verdicts; not with --quick")
    experiment = find_experiment(name, experiment_roots(directory))
    if record:
        readme = experiment.directory / "README.md"
        # Checked before the run: a README without the markers would be found only after it.
        replace_generated(read_text(readme), markdown_command(experiment.name), "", str(readme))
    spec = experiment.spec(quick)
    out_dir = Path(out) if out is not None else default_out_dir(experiment.name, quick)
    kwargs: dict[str, Any] = {
        "workers": workers,
        "out": out_dir,
        "force": force,
        "stream": stream,
        "dask": dask,
    }
    if warn is not None:
        kwargs["warn"] = warn
    result = run_spec(spec, **kwargs)
    table = experiment.table_metrics(result.metrics)
    unknown = [m for m in table if m not in result.metrics]
    if unknown:
        (warn or _warn_python)(
            f"{experiment.path}: table: {unknown[0]} is not one of the sweep's metrics"
        )
        table = [m for m in table if m in result.metrics]
    points = spec.expand()
    metrics = sorted(
        {m for claim in experiment.claims for m in (claim.metric, claim.over_metric) if m}
    )
    values = read_run_values(result.out_dir / "runs", points, result.seeds, metrics)
    claims = evaluate_claims(experiment.claims, points, spec.fixed, values)
    write_claims(result.out_dir / "claims.json", claims)
    if record and not result.failures:
        record_claims(experiment, claims)
    figures = draw(experiment, result.points, out_dir / "figures")
    return Reproduction(experiment, result, figures, table, claims)


def markdown_command(name: str) -> str:
    """The command that prints an experiment's README table."""
    return f"mmtcp claims {name} --markdown"


def record_claims(experiment: Experiment, entries: Sequence[dict[str, Any]]) -> None:
    """Keeps `entries` as the experiment's recorded claims.json and regenerates its README's
    claims table from them."""
    write_claims(experiment.directory / RECORDED, entries)
    write_readme_table(experiment, entries)


def write_readme_table(experiment: Experiment, entries: Sequence[dict[str, Any]]) -> None:
    """Regenerates the claims table of the experiment's README.md from `entries`."""
    write_generated(
        experiment.directory / "README.md",
        markdown_command(experiment.name),
        claims_markdown(entries),
    )


def _warn_python(message: str) -> None:
    import warnings

    warnings.warn(message, stacklevel=3)


def default_out_dir(name: str, quick: bool) -> Path:
    return Path("out") / "reproduce" / (f"{name}-quick" if quick else name)


def draw(experiment: Experiment, points: list[dict[str, Any]], figures_dir: Path) -> list[Path]:
    """Calls the experiment's `plot.py` (none: no figures) on matplotlib's Agg backend."""
    plot_file = experiment.directory / "plot.py"
    if not plot_file.is_file():
        return []
    import matplotlib

    matplotlib.use("Agg", force=True)
    module_name = "mmtcp_experiment_" + re.sub(r"\W", "_", experiment.name)
    module_spec = importlib.util.spec_from_file_location(module_name, plot_file)
    if module_spec is None or module_spec.loader is None:
        raise ScenarioError(f"{plot_file}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_name] = module
    try:
        module_spec.loader.exec_module(module)
        plot = getattr(module, "plot", None)
        if not callable(plot):
            raise ScenarioError(f"{plot_file}: defines no plot(points, out_dir) function")
        figures_dir.mkdir(parents=True, exist_ok=True)
        try:
            written = plot(points, figures_dir)
        except Exception as e:
            raise RuntimeError(f"{plot_file}: plot() failed: {type(e).__name__}: {e}") from e
    finally:
        sys.modules.pop(module_name, None)
    return [Path(p) for p in written or []]
