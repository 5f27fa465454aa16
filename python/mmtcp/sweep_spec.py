"""A sweep's definition, before it runs: `SweepSpec` (scenario, seeds, grid, explicit points,
fixed overrides, metrics) and its `Point`s, from a sweep file, an experiment's `[sweep]` table or
`mmtcp.sweep`'s arguments; seed specs and `--grid` values; every point checked against the
scenario."""

from __future__ import annotations

import itertools
import os
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmtcp._core import ScenarioError
from mmtcp.api import (
    SEED_LIMIT,
    Scenario,
    override_pairs,
    split_override,
    toml_value_text,
    validate,
)
from mmtcp.metrics import check_metrics

SeedSpec = int | str | Sequence[int]

SWEEP_KEYS = ("scenario", "seeds", "grid", "grids", "point", "set", "metrics", "variants")
"""The keys a sweep file may hold (an experiment's `[sweep]` table holds the same)."""

MAX_SEEDS = 100_000
_SLUG_LENGTH = 60


@dataclass(frozen=True)
class Point:
    """One combination of overrides; its runs are one per seed.

    Attributes:
        id: folder name under `runs/`: `p<index>` then the overrides, e.g.
            `p001-link.radio.buffer=5MB`.
        overrides: this point's own overrides (grid values or an explicit `[[point]]`), path →
            value as given; the sweep's fixed overrides (`set`) are not repeated here.
    """

    id: str
    overrides: dict[str, Any]


@dataclass
class SweepSpec:
    """A sweep before it runs: what a sweep file or the command line says.

    Attributes:
        scenario: scenario file path (relative to the current directory) or a dict.
        seeds: the seeds every point runs with.
        grid: override path → values; the points are their cartesian product.
        points: explicit points (override dicts), run in addition to the grid's.
        fixed: overrides applied to every run (`set`).
        metrics: dotted paths into summary.json; None for the default set.
        variants: axis name → value name → the overrides that value stands for. A grid key or
            point key that names an axis selects one of its values by name (`scheme = "cotag"`);
            the runs get the value's overrides, the point keeps the name.
        origin: names the sweep in error messages (the sweep file, or `sweep`).
        stem: names the default output folder `out/sweep-<stem>`.
    """

    scenario: str | dict[str, Any]
    seeds: list[int] | None = None
    grid: dict[str, list[Any]] = field(default_factory=dict)
    points: list[dict[str, Any]] = field(default_factory=list)
    fixed: dict[str, Any] = field(default_factory=dict)
    metrics: list[str] | None = None
    variants: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    origin: str = "sweep"
    stem: str = "sweep"

    def applied(self, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """`overrides` as a run gets them: every variant axis replaced by its value's overrides.

        >>> spec = SweepSpec("s.toml", variants={"scheme": {"a": {"x.y": 1, "x.z": 2}}})
        >>> spec.applied({"scheme": "a", "w.v": 3})
        {'x.y': 1, 'x.z': 2, 'w.v': 3}
        """
        out: dict[str, Any] = {}
        for key, value in overrides.items():
            axis = self.variants.get(key)
            if axis is None:
                out[key] = value
                continue
            if not isinstance(value, str) or value not in axis:
                raise ScenarioError(
                    f"{self.origin}: {key} = {toml_value_text(value)}: not a value of "
                    f"variants.{key}; allowed: {', '.join(axis)}"
                )
            for path, v in axis[value].items():
                if path in overrides or path in out:
                    raise ScenarioError(
                        f"{self.origin}: variants.{key}.{value} sets {path}, "
                        "which the point or another variant also sets"
                    )
                out[path] = v
        return out

    def expand(self) -> list[Point]:
        """The points: the grid's cartesian product (the last key varying fastest), then the
        explicit points; one point without overrides if there are neither."""
        for key in self.grid:
            if key in self.fixed:
                raise ScenarioError(f"{self.origin}: {key} is both in the grid and in set")
        for axis, values in self.variants.items():
            for value, bundle in values.items():
                for path in bundle:
                    if path in self.fixed:
                        raise ScenarioError(
                            f"{self.origin}: variants.{axis}.{value} sets {path}, "
                            "which set also sets"
                        )
        combos: list[dict[str, Any]] = []
        if self.grid:
            keys = list(self.grid)
            for values in itertools.product(*(self.grid[k] for k in keys)):
                combos.append(dict(zip(keys, values, strict=True)))
        for index, point in enumerate(self.points):
            for key in point:
                if key in self.fixed:
                    raise ScenarioError(f"{self.origin}: point[{index}]: {key} is also in set")
            combos.append(dict(point))
        if not combos:
            combos = [{}]
        seen: dict[tuple[tuple[str, str], ...], int] = {}
        width = max(3, len(str(len(combos) - 1)))
        points = []
        for index, overrides in enumerate(combos):
            text = tuple(override_pairs(overrides))
            if text in seen:
                raise ScenarioError(
                    f"{self.origin}: point {_describe(overrides)} appears twice in the sweep"
                )
            seen[text] = index
            points.append(Point(_point_id(index, width, text), overrides))
        return points


def _point_id(index: int, width: int, pairs: Sequence[tuple[str, str]]) -> str:
    name = f"p{index:0{width}d}"
    if not pairs:
        return name
    slug = "_".join(f"{path}={value}" for path, value in pairs)
    slug = re.sub(r"[^A-Za-z0-9.=+-]+", "_", slug).strip("_.")[:_SLUG_LENGTH]
    return f"{name}-{slug}" if slug else name


def _describe(overrides: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in override_pairs(overrides)) or "(no overrides)"


def parse_seeds(spec: SeedSpec, where: str | None = "seeds") -> list[int]:
    """The seeds of a seed spec: `10` or `"10"` (seeds 1 to 10), `"1-10"`, `"3,7,9"` (ranges and
    single seeds, comma-separated), or a list of integers.

    >>> parse_seeds(3), parse_seeds("4-6"), parse_seeds("3,7,9"), parse_seeds("1-2,8")
    ([1, 2, 3], [4, 5, 6], [3, 7, 9], [1, 2, 8])
    """

    def bad(detail: str) -> ScenarioError:
        return ScenarioError(
            f"{where + ': ' if where else ''}{spec!r} {detail}; expected a count (10: seeds 1 to "
            f"10), a range (1-10), a list (3,7,9) or a list of integers"
        )

    seeds: list[int] = []
    if isinstance(spec, bool):
        raise bad("is not a seed spec")
    if isinstance(spec, int) or (isinstance(spec, str) and re.fullmatch(r"\s*\d+\s*", spec)):
        count = int(spec)
        if not 1 <= count <= MAX_SEEDS:
            raise bad(f"is not a seed count from 1 to {MAX_SEEDS:,}")
        return list(range(1, count + 1))
    if isinstance(spec, str):
        for part in spec.split(","):
            match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
            if match is None:
                raise bad(f"has {part.strip()!r}, which is neither a seed nor a range")
            first = int(match[1])
            last = int(match[2]) if match[2] is not None else first
            if last < first:
                raise bad(f"has the empty range {part.strip()}")
            if last - first >= MAX_SEEDS:
                raise bad(f"has more than {MAX_SEEDS:,} seeds")
            seeds.extend(range(first, last + 1))
    elif isinstance(spec, Sequence):
        for seed in spec:
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise bad(f"has {seed!r}, which is not an integer")
            seeds.append(seed)
    else:
        raise bad("is not a seed spec")
    if not seeds:
        raise bad("has no seed")
    if len(seeds) > MAX_SEEDS:
        raise bad(f"has more than {MAX_SEEDS:,} seeds")
    for seed in seeds:
        if not 0 <= seed < SEED_LIMIT:
            raise bad(f"has {seed}, which is not a seed from 0 to 2^63-1")
    seen: set[int] = set()
    for seed in seeds:
        if seed in seen:
            raise bad(f"repeats seed {seed}")
        seen.add(seed)
    return seeds


def split_values(text: str) -> list[str]:
    """Splits `V1,V2,...` at the commas outside brackets, braces and quotes.

    >>> split_values('1MB, 5MB,10MB')
    ['1MB', '5MB', '10MB']
    >>> split_values('{ kind = "constant", rate = "1Gbps" },[1, 2],"a,b"')
    ['{ kind = "constant", rate = "1Gbps" }', '[1, 2]', '"a,b"']
    """
    values, current, depth, quote = [], [], 0, ""
    escaped = False
    for c in text:
        if quote:
            if escaped:
                escaped = False
            elif c == "\\" and quote == '"':
                escaped = True
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            values.append("".join(current).strip())
            current = []
            continue
        current.append(c)
    values.append("".join(current).strip())
    return values


def parse_grid_option(text: str) -> tuple[str, list[str]]:
    """`PATH=V1,V2,...` (the `--grid` option) as `(path, [values])`.

    >>> parse_grid_option("link.radio.buffer=1MB,5MB")
    ('link.radio.buffer', ['1MB', '5MB'])
    """
    path, value = split_override(text)
    values = split_values(value)
    if any(not v for v in values):
        raise ScenarioError(f"--grid {text!r}: expected PATH=V1,V2,... with no empty value")
    return path, values


def is_sweep_file(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is a sweep file (a TOML file with a top-level `scenario` key) rather than a
    scenario."""
    try:
        with open(path, "rb") as f:
            table = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False
    return "scenario" in table


def read_toml(path: Path) -> dict[str, Any]:
    """The table of a TOML file; an unreadable or malformed file is a `ScenarioError`."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise ScenarioError(f"{path}: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{path}: not valid TOML: {e}") from None


def load_sweep_file(path: str | os.PathLike[str]) -> SweepSpec:
    """Reads a sweep file; the scenario path in it is relative to the file's folder."""
    path = Path(path)
    return spec_from_table(read_toml(path), path.parent, str(path), path.stem)


def spec_from_table(table: Mapping[str, Any], base_dir: Path, origin: str, stem: str) -> SweepSpec:
    """A `SweepSpec` from the keys of a sweep file (or an experiment's `[sweep]` table)."""
    unknown = [key for key in table if key not in SWEEP_KEYS]
    if unknown:
        raise ScenarioError(
            f"{origin}: unknown key {unknown[0]!r}; allowed: {', '.join(SWEEP_KEYS)}"
        )
    scenario = table.get("scenario")
    if not isinstance(scenario, str) or not scenario:
        raise ScenarioError(f"{origin}: scenario: expected the path of a scenario file")
    spec = SweepSpec(
        scenario=os.path.normpath(os.path.join(base_dir, scenario)), origin=origin, stem=stem
    )
    apply_table(spec, table, origin)
    return spec


def _grid_values(values: Any, where: str) -> list[Any]:
    """A grid key's values, checked: a non-empty list (an unquoted dotted path reads as a table,
    and the error says to quote it)."""
    if not isinstance(values, list) or not values:
        hint = (
            '; write the override path in quotes, e.g. "link.radio.buffer" = ["1MB"]'
            if isinstance(values, Mapping)
            else ""
        )
        raise ScenarioError(f"{where}: expected a non-empty list of values{hint}")
    return list(values)


def _grids_points(grids: Any, origin: str) -> list[dict[str, Any]]:
    """The points of `[[grids]]`: each table's cartesian product (the last key varying fastest),
    the tables in order; they join the explicit points.

    >>> _grids_points([{"a": [1, 2], "b": ["x"]}, {"a": [3]}], "s")
    [{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'x'}, {'a': 3}]
    """
    if not isinstance(grids, list) or not all(isinstance(g, Mapping) for g in grids):
        raise ScenarioError(
            f'{origin}: grids: expected [[grids]] tables of "override.path" = [values]'
        )
    points = []
    for index, grid in enumerate(grids):
        if not grid:
            raise ScenarioError(f"{origin}: grids[{index}]: expected at least one override path")
        axes = {key: _grid_values(v, f"{origin}: grids[{index}].{key}") for key, v in grid.items()}
        for values in itertools.product(*axes.values()):
            points.append(dict(zip(axes, values, strict=True)))
    return points


def apply_table(spec: SweepSpec, table: Mapping[str, Any], origin: str) -> None:
    """Applies the `seeds`, `grid`, `grids`, `point`, `set` and `metrics` keys of `table` to
    `spec`: seeds and metrics replace, grid keys and set keys replace the same keys, points (and
    the products of `grids`) are added."""
    if "seeds" in table:
        spec.seeds = parse_seeds(table["seeds"], f"{origin}: seeds")
    if "grid" in table:
        grid = table["grid"]
        if not isinstance(grid, Mapping):
            raise ScenarioError(f"{origin}: grid: expected a table of override path = [values]")
        for key, values in grid.items():
            spec.grid[key] = _grid_values(values, f"{origin}: grid.{key}")
    if "point" in table:
        points = table["point"]
        if not isinstance(points, list) or not all(isinstance(p, Mapping) for p in points):
            raise ScenarioError(
                f'{origin}: point: expected [[point]] tables of "override.path" = value'
            )
        spec.points.extend(dict(p) for p in points)
    if "grids" in table:
        spec.points.extend(_grids_points(table["grids"], origin))
    if "set" in table:
        fixed = table["set"]
        if not isinstance(fixed, Mapping):
            raise ScenarioError(f'{origin}: set: expected a table of "override.path" = value')
        spec.fixed.update(fixed)
    if "variants" in table:
        spec.variants.update(_variants(table["variants"], origin))
    if "metrics" in table:
        metrics = table["metrics"]
        if not isinstance(metrics, list) or not all(isinstance(m, str) for m in metrics):
            raise ScenarioError(f"{origin}: metrics: expected a list of dotted paths")
        spec.metrics = check_metrics(metrics, f"{origin}: metrics")


def _variants(table: Any, origin: str) -> dict[str, dict[str, dict[str, Any]]]:
    """`[variants.<axis>]` tables: value name = { "override.path" = value, ... }."""
    if not isinstance(table, Mapping):
        raise ScenarioError(f"{origin}: variants: expected [variants.<axis>] tables")
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for axis, values in table.items():
        if "." in axis:
            raise ScenarioError(
                f"{origin}: variants.{axis}: an axis name has no dots "
                "(dotted keys are override paths)"
            )
        if not isinstance(values, Mapping) or not values:
            raise ScenarioError(
                f"{origin}: variants.{axis}: expected value names, "
                'each = { "override.path" = value }'
            )
        for name, bundle in values.items():
            if not isinstance(bundle, Mapping):
                raise ScenarioError(
                    f'{origin}: variants.{axis}.{name}: expected a table of "override.path" = value'
                )
        out[axis] = {name: dict(bundle) for name, bundle in values.items()}
    return out


def make_spec(
    scenario: Scenario,
    *,
    grid: Mapping[str, Sequence[Any]] | None = None,
    points: Iterable[Mapping[str, Any]] | None = None,
    seeds: SeedSpec | None = None,
    overrides: Mapping[str, Any] | Iterable[str] | None = None,
) -> SweepSpec:
    """The sweep of `scenario` (a scenario, or a sweep file) with these additions."""
    if isinstance(scenario, Mapping):
        spec = SweepSpec(scenario=dict(scenario), stem="dict")
    elif isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
        if not Path(path).is_file():
            raise ScenarioError(f"{path}: no such scenario or sweep file")
        if is_sweep_file(path):
            spec = load_sweep_file(path)
        else:
            spec = SweepSpec(scenario=path, stem=Path(path).stem)
    else:
        raise TypeError(f"a scenario is a path or a dict, not {type(scenario).__name__}")
    if grid is not None and not isinstance(grid, Mapping):
        raise TypeError(f"grid is a dict of path → list of values, not {type(grid).__name__}")
    for key, values in (grid or {}).items():
        if not isinstance(values, (str, Iterable)):
            raise TypeError(f"grid[{key!r}] is a list of values, not {type(values).__name__}")
        if key in spec.grid:
            raise ScenarioError(f"{spec.origin}: grid key {key} is given twice")
        values = list(values) if not isinstance(values, str) else [values]
        if not values:
            raise ScenarioError(f"{spec.origin}: grid key {key} has no values")
        spec.grid[key] = values
    one_point = isinstance(points, (str, Mapping))
    if points is not None and (one_point or not isinstance(points, Iterable)):
        raise TypeError(f"points is a list of override dicts, not {type(points).__name__}")
    for point in points or ():
        if not isinstance(point, Mapping):
            kind = type(point).__name__
            raise TypeError(f"points holds override dicts, not {kind}: {point!r:.80}")
        spec.points.append(dict(point))
    if overrides is not None:
        spec.fixed.update(dict(override_pairs(overrides)))
    if seeds is not None:
        spec.seeds = parse_seeds(seeds)
    return spec


def validate_points(spec: SweepSpec, points: list[Point]) -> list[dict[str, Any]]:
    """Validates every point (the fixed overrides first); an error names the grid value or the
    point at fault. Returns the resolved scenario of every point."""
    scenario = spec.scenario
    prefix = f"{spec.origin}: " if spec.origin != "sweep" else ""

    def check(overrides: Mapping[str, Any]) -> str:
        return validate(scenario, overrides=spec.applied(overrides))

    try:
        check(spec.fixed)
    except ScenarioError as e:
        if not prefix:
            raise
        raise ScenarioError(f"{prefix}{e}") from None
    resolved = []
    for point in points:
        try:
            text = check({**spec.fixed, **point.overrides})
        except ScenarioError as e:
            # Name the single override at fault if there is one, else the whole point.
            for key, value in point.overrides.items():
                try:
                    check({**spec.fixed, key: value})
                except ScenarioError as alone:
                    where = "grid" if key in spec.grid else "point"
                    what = f"{where} {key}={toml_value_text(value)}"
                    raise ScenarioError(f"{spec.origin}: {what}: {alone}") from None
            what = f"point {_describe(point.overrides)}"
            raise ScenarioError(f"{spec.origin}: {what}: {e}") from None
        resolved.append(tomllib.loads(text))
    return resolved
