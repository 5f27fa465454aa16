"""The Python API: run or validate a scenario and hold what a run produced.

A scenario is the path of a TOML file, or a dict of the same structure (sent to the core as JSON,
with trace paths resolved against the current directory). Overrides replace any key before
validation, as `mmtcp run --set` does; they are a dict `{"link.1.delay": "20ms", "simulation.seed":
3}` or an iterable of `"path=value"` strings.

    import mmtcp
    result = mmtcp.run("scenarios/demo.toml", seed=7, overrides={"simulation.duration": "2s"})
    result.summary["flows"][0]["goodput_bps"]  # bit/s over the run
    result.table("flow_summary")  # one row per flow, a pandas DataFrame
    result.timeseries.plot(x="time_s", y="flow.bulk.goodput_bps")  # a pandas DataFrame
    result.save("out/demo")  # summary.json, the tables, timeseries.parquet, scenario.resolved.toml
    result.plot("out/demo")  # out/demo/plots/*.png

One run is one call into Rust (`mmtcp._core`), which holds no Python objects while it runs: the
summary comes back as JSON text and the tables (time series, per-entity summaries) as numpy
arrays, one per column.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmtcp import _core
from mmtcp._core import ScenarioError
from mmtcp.tables import RawTable, core_tables, to_pandas, wide_columns, write_parquet

if TYPE_CHECKING:
    # Imported where used instead: `import mmtcp` stays light for the CLI's start-up and for the
    # benchmark worker, whose peak memory should be the simulation's, not pandas'.
    import numpy as np
    import numpy.typing as npt
    import pandas as pd

Scenario = str | os.PathLike[str] | Mapping[str, Any]
Overrides = Mapping[str, Any] | Iterable[str]
ProgressCallback = Callable[[float, float, int, float], bool | None]

DICT_SCENARIO_NAME = "<dict>"
"""Stands for the file in error messages about a scenario given as a dict."""

SEED_LIMIT = 2**63
"""Seeds are below this: TOML integers are signed 64-bit, and a resolved scenario must re-run."""

PLOT_FORMATS = ("png", "svg")
"""The file formats of a run's plots (`Result.plot`, `mmtcp run --plot-format`); the first is
the default."""


class Result:
    """What one run produced.

    Attributes:
        summary: `summary.json`'s content: run statistics, `aggregates` over the flows and links,
            and — when the run has at most `metrics.summary_entries` flows and links — one entry
            per flow and per link and the resolved scenario.
        tables: the per-entity tables by name (`mmtcp.tables`): the long-form time series
            `flows`, `links`, `proxies` and the summaries `flow_summary`, `link_summary`,
            `flow_drops`, every entity of the run; `table(name)` gives one as a DataFrame.
        timeseries: the wide view of the time series: `time_s` first, then
            `flow.<name>.<metric>`, `link.<name>.<fwd|rev>.<metric>`, `proxy.<name>.<column>`
            columns. A pandas DataFrame, built on first use: `mmtcp run` saves the columns
            without importing pandas.
        resolved_scenario: the scenario as run, every default filled in, as TOML text (for a
            run too large to list its entities, computed on first use).
    """

    def __init__(
        self,
        summary: dict[str, Any],
        timeseries: pd.DataFrame | Mapping[str, npt.NDArray[np.float64]] | None,
        resolved_scenario: str | Callable[[], str],
        tables: Mapping[str, RawTable] | None = None,
    ):
        """`timeseries` is a DataFrame, or its columns (name → float64 array, `time_s` first), or
        None to build it from `tables`; `resolved_scenario` its text or a function computing it."""
        self.summary = summary
        self.tables: dict[str, RawTable] = dict(tables or {})
        self._resolved = resolved_scenario
        self._series = timeseries

    @property
    def resolved_scenario(self) -> str:
        if callable(self._resolved):
            self._resolved = self._resolved()
        return self._resolved

    @property
    def lists_entities(self) -> bool:
        """Whether the summary lists every flow and link (at most `metrics.summary_entries` of
        each): a small run, whose wide time series `save` writes as `timeseries.parquet`."""
        return "flows" in self.summary and "links" in self.summary

    def _wide(self) -> pd.DataFrame | Mapping[str, npt.NDArray[np.float64]]:
        if self._series is None:
            self._series = wide_columns(self.tables)
        return self._series

    @property
    def timeseries(self) -> pd.DataFrame:
        series = self._wide()
        if isinstance(series, Mapping):
            import pandas as pd

            series = pd.DataFrame(series, copy=False)
            self._series = series
        return series

    def table(self, name: str) -> pd.DataFrame:
        """The table `name` (one of `mmtcp.tables.TABLES`) as a DataFrame."""
        if name not in self.tables:
            raise KeyError(f"no table {name!r}; this run has {', '.join(self.tables) or 'none'}")
        return to_pandas(self.tables[name])

    def save(self, out_dir: str | os.PathLike[str], *, resolved: bool | None = None) -> Path:
        """Writes `summary.json`, the tables (`<name>.parquet`), and for a small run (the summary
        lists its entities) `timeseries.parquet` and `scenario.resolved.toml`, into `out_dir`
        (created if missing); returns its path. `resolved` True or False writes the resolved
        scenario or leaves it out whatever the run's size."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        summary = json.dumps(self.summary, indent=2, ensure_ascii=False) + "\n"
        (out / "summary.json").write_text(summary, encoding="utf-8")
        write_parquet(self.tables, out)
        small = self.lists_entities or not self.tables
        # A file this run does not write is removed: an earlier run's in the same folder would
        # pass for this one's.
        for stale in ("timeseries.parquet", "scenario.resolved.toml"):
            (out / stale).unlink(missing_ok=True)
        if small:
            series = self._wide()
            if isinstance(series, Mapping):
                # Straight from the float64 buffers: pa.array() on a numpy array imports pandas
                # (to test for a Series), which would cost `mmtcp run` a third of a second.
                columns = [
                    pa.Array.from_buffers(pa.float64(), len(c), [None, pa.py_buffer(c)])
                    for c in series.values()
                ]
                table = pa.Table.from_arrays(columns, names=list(series))
            else:
                table = pa.Table.from_pandas(series, preserve_index=False)
            pq.write_table(table, out / "timeseries.parquet")
        if resolved if resolved is not None else small:
            (out / "scenario.resolved.toml").write_text(self.resolved_scenario, encoding="utf-8")
        return out

    def plot(self, out_dir: str | os.PathLike[str], plot_format: str = "png") -> list[Path]:
        """Draws the standard plots into `out_dir/plots/` as PNG (or `plot_format="svg"`) and
        returns the files written: a line per flow and link for a run of few (`report.FEW`),
        distributions across them for a larger one (`mmtcp.plot_many`)."""
        from mmtcp.report import detailed

        plots = Path(out_dir) / "plots"
        few = detailed(self.summary, "flows") and detailed(self.summary, "links")
        if self.tables and not few:
            from mmtcp.plot_many import plot_distributions

            arrow = {name: table.to_arrow() for name, table in self.tables.items()}
            return plot_distributions(self.summary, arrow, plots, plot_format)
        from mmtcp.plot import plot_result

        return plot_result(self.summary, self.timeseries, plots, plot_format)

    def __repr__(self) -> str:
        flows = self.summary["aggregates"]["flows"]["count"] if "aggregates" in self.summary else 0
        return (
            f"Result(seed={self.summary['seed']}, sim_seconds={self.summary['sim_seconds']}, "
            f"flows={flows}, tables={list(self.tables)})"
        )


def run(
    scenario_or_path: Scenario,
    *,
    seed: int | None = None,
    overrides: Overrides | None = None,
    progress: ProgressCallback | None = None,
) -> Result:
    """Runs a scenario to its stop time.

    Args:
        scenario_or_path: path of a TOML scenario, or a dict of the same structure.
        seed: replaces `simulation.seed`.
        overrides: keys to replace before validation (see the module docstring).
        progress: called as `progress(sim_seconds, stop_seconds, events, wall_seconds)` about ten
            times a wall-second; returning False stops the run with `SimulationError`.

    Raises:
        ScenarioError: the scenario, a trace file, the seed or an override is invalid.
        SimulationError: the simulator failed internally.
        KeyboardInterrupt: Ctrl-C during the run.
    """
    source, kind, where = _source(scenario_or_path)
    _check_seed(seed, where.get("name", source))
    pairs = override_pairs(overrides)
    summary, tables, resolved = _core.run(
        source, kind, **where, seed=seed, overrides=pairs, progress=progress
    )

    def resolve() -> str:
        return _core.validate(source, kind, **where, seed=seed, overrides=pairs)

    return Result(json.loads(summary), None, resolved or resolve, core_tables(tables))


def validate(scenario_or_path: Scenario, *, overrides: Overrides | None = None) -> str:
    """Loads, overrides and validates a scenario; returns it resolved (every default filled in)
    as TOML text. Raises `ScenarioError` if it is invalid."""
    source, kind, where = _source(scenario_or_path)
    return _core.validate(source, kind, **where, overrides=override_pairs(overrides))


def ieee80211ad_trace(scenario: str, **keys: Any) -> str:
    """Drago et al.'s synthetic IEEE 802.11ad received-power trace, as CSV text.

    `scenario` is `"a"` (a trolley crossing the path in 0.2 m steps) or `"b"` (a human-like
    blocker crossing at 0.1 m/s); `keys` set any other key of the synthetic source
    (docs/models/ieee80211ad.md), e.g. `speed=0.2`. The lines are `time,tx_deg,rx_deg,power_dbm`
    for every beam pair every `interval`, one period of the blocker's walk: the file a
    `{ kind = "ieee80211ad", source = { kind = "trace", file = ..., repeat = true } }` channel
    replays. A bad key or value raises `ScenarioError` naming it.
    """
    return _core.ieee80211ad_trace(
        _toml_document({"scenario": scenario, **keys}), name="ieee80211ad_trace"
    )


@dataclass(frozen=True)
class DualTrace:
    """The stand-in for Wu et al.'s measured 802.11ad links: one rate trace per access point.

    Attributes:
        ap1_csv, ap2_csv: each AP's rates as csv text (`time,rate`), the format a `trace`
            channel and `mmtcp fit-markov` read.
        mean_bps: the two traces' time-average rates, bit/s (AP1 first).
        correlation: Pearson correlation of the two links' per-sample rates.
        scale: the factor applied to the PHY rates; None with `mean_total_rate="none"`.
    """

    ap1_csv: str
    ap2_csv: str
    mean_bps: tuple[float, float]
    correlation: float
    scale: float | None


def ieee80211ad_dual_trace(**keys: Any) -> DualTrace:
    """Two 802.11ad rate traces of a user walking between two access points (Wu et al. §5.2.2).

    `keys` set any of the generator's keys (docs/models/ieee80211ad.md), e.g. `duration="60s"`,
    `seed=3`, `mean_total_rate="none"`. A bad key or value raises `ScenarioError` naming it.
    """
    result = _core.ieee80211ad_dual_trace(_toml_document(keys), name="ieee80211ad_dual_trace")
    ap1_mean, ap2_mean = result["mean_bps"]
    return DualTrace(
        result["ap1"], result["ap2"], (ap1_mean, ap2_mean), result["correlation"], result["scale"]
    )


def _source(scenario: Scenario) -> tuple[str, str, dict[str, str]]:
    """Splits a scenario into `_core`'s `(source, kind, {name, base_dir})` arguments."""
    if isinstance(scenario, Mapping):
        where = {"name": DICT_SCENARIO_NAME, "base_dir": os.getcwd()}
        try:
            return json.dumps(scenario, allow_nan=True), "json", where
        except (TypeError, ValueError, RecursionError) as e:
            # A value JSON cannot hold (an object, a set) or a dict that contains itself.
            raise TypeError(f"the scenario dict cannot be read as a scenario: {e}") from None
    if isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
        if not Path(path).is_file():
            raise ScenarioError(f"{path}: no such scenario file")
        return path, "path", {}
    raise TypeError(f"a scenario is a path or a dict, not {type(scenario).__name__}: {scenario!r}")


def _check_seed(seed: int | None, scenario_name: str) -> None:
    valid = isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < SEED_LIMIT
    if seed is not None and not valid:
        raise ScenarioError(
            f"{scenario_name}: seed: {seed!r} is not a seed; expected an integer from 0 to 2^63-1"
        )


def override_pairs(overrides: Overrides | None) -> list[tuple[str, str]]:
    """Turns overrides into the `(path, value text)` pairs the core takes.

    A dict's values become TOML literal text (a str is passed as it is: the core reads it as a
    TOML value if it is one, else as a string); strings are split at their first `=`.

    >>> override_pairs({"link.1.delay": "20ms", "simulation.seed": 3, "flow.0.app.rate": 1e9})
    [('link.1.delay', '20ms'), ('simulation.seed', '3'), ('flow.0.app.rate', '1000000000.0')]
    >>> override_pairs(["link.1.delay=20ms"])
    [('link.1.delay', '20ms')]
    """
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [(str(path), toml_value_text(value)) for path, value in overrides.items()]
    expected = "overrides is a dict or an iterable of 'path=value' strings"
    if isinstance(overrides, str) or not isinstance(overrides, Iterable):
        raise TypeError(f"{expected}, not {type(overrides).__name__}: {overrides!r:.80}")
    texts = list(overrides)
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"{expected}; found {type(text).__name__}: {text!r:.80}")
    return [split_override(text) for text in texts]


def split_override(text: str) -> tuple[str, str]:
    """Splits `"path=value"` at its first `=`; raises `ScenarioError` if there is none.

    >>> split_override("flow.0.app.size = 5MB")
    ('flow.0.app.size', '5MB')
    """
    path, sep, value = text.partition("=")
    path = path.strip()
    if not sep or not path:
        raise ScenarioError(f"override {text!r}: expected PATH=VALUE, e.g. link.1.delay=20ms")
    return path, value.strip()


def _toml_document(keys: Mapping[str, Any]) -> str:
    """`keys` as a TOML document, for the core functions that take their settings as TOML
    text (a value TOML cannot hold raises TypeError)."""
    import tomli_w

    return tomli_w.dumps(dict(keys))


def toml_value_text(value: Any) -> str:
    """The text of an override's value: a str as it is, anything else as a TOML literal.

    >>> toml_value_text("cubic"), toml_value_text(2.5), toml_value_text([1, "a"])
    ('cubic', '2.5', '[1, "a"]')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return toml_literal(value)


TOML_DEPTH_LIMIT = 32
"""Nesting a value may have in an override: scenarios nest a few levels; a list or dict that
contains itself would otherwise recurse until Python's stack gives out."""


def toml_literal(value: Any, depth: int = 0) -> str:
    """`value` (bool, int, float, str, list, tuple or dict thereof) as a one-line TOML literal:
    scalars and keys as tomli_w writes them, lists and dicts inline (tomli_w writes a dict as a
    table of its own, and long lists over several lines, where an override needs one line).

    >>> toml_literal({"loss": 0.01, "kind": "x"})
    '{ loss = 0.01, kind = "x" }'
    """
    if depth > TOML_DEPTH_LIMIT:
        raise TypeError(
            f"cannot write a value nested more than {TOML_DEPTH_LIMIT} levels deep as TOML "
            "(does a list or dict contain itself?)"
        )
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_literal(item, depth + 1) for item in value) + "]"
    if isinstance(value, Mapping):
        items = ", ".join(
            f"{_toml_key(str(k))} = {toml_literal(v, depth + 1)}" for k, v in value.items()
        )
        return "{ " + items + " }" if items else "{}"
    if not isinstance(value, (bool, int, float, str)):
        raise TypeError(f"cannot write {type(value).__name__} {value!r} as a TOML value")
    return _tomli_w_line({"v": value}).removeprefix("v = ")


def _toml_key(key: str) -> str:
    """`key` as tomli_w writes it: bare if it can be, else quoted."""
    return _tomli_w_line({key: 0}).removesuffix(" = 0")


def _tomli_w_line(table: Mapping[str, Any]) -> str:
    """The one line tomli_w writes for a table of one scalar."""
    import tomli_w

    return tomli_w.dumps(dict(table)).rstrip("\n")
