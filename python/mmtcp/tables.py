"""A run's per-entity tables: the long-form time series and the per-entity summaries.

The core hands every table over as numpy arrays that own the Rust buffers (text as uint32 codes
into a list of distinct strings, nulls as a bool validity array); this module turns them into
pyarrow tables (without copying the values), parquet files and pandas DataFrames, and builds the
wide time series (`Result.timeseries`, `timeseries.parquet`: one column per entity and metric) as
a view of the long ones. docs/metrics.md describes every table and column.

| table | file | one row per |
|---|---|---|
| `flows` | `flows.parquet` | sample, flow (MP-TCP: subflow, and the connection) |
| `links` | `links.parquet` | sample, link direction |
| `proxies` | `proxies.parquet` | sample, processor column |
| `flow_summary` | `flow_summary.parquet` | flow (and MP-TCP subflow) |
| `link_summary` | `link_summary.parquet` | link direction |
| `flow_drops` | `flow_drops.parquet` | flow and place where its packets were dropped |
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pandas as pd
    import pyarrow as pa

SERIES_TABLES = ("flows", "links", "proxies")
"""The long-form time series, in the order of the wide view's columns."""

SUMMARY_TABLES = ("flow_summary", "link_summary", "flow_drops")
"""The per-entity summaries."""

TABLES = SERIES_TABLES + SUMMARY_TABLES


@dataclass(frozen=True)
class Column:
    """One column as the core returns it: `kind` is f64, u64, i64, bool or text (`values` then
    holds codes into `dictionary`); `valid` is False where the value is null (None: no null)."""

    name: str
    kind: str
    values: npt.NDArray[Any]
    dictionary: list[str] | None
    valid: npt.NDArray[np.bool_] | None

    def texts(self, rows: int | None = None) -> list[str]:
        """A text column's values, one str per row (the first `rows` rows: entity keys)."""
        assert self.dictionary is not None, f"{self.name} is not a text column"
        return [self.dictionary[code] for code in self.values[:rows].tolist()]


@dataclass(frozen=True)
class RawTable:
    """A table as the core returns it: its name, its number of rows, its columns."""

    name: str
    rows: int
    columns: tuple[Column, ...]

    def column(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(f"table {self.name} has no column {name!r}")

    @classmethod
    def from_core(cls, raw: tuple[str, int, list[tuple[Any, ...]]]) -> RawTable:
        name, rows, columns = raw
        return cls(name, rows, tuple(Column(*c) for c in columns))

    def to_arrow(self) -> pa.Table:
        """The table in Arrow form, sharing the numpy buffers (text as dictionary arrays)."""
        import pyarrow as pa

        arrays = [_arrow_array(c, self.rows) for c in self.columns]
        return pa.Table.from_arrays(arrays, names=[c.name for c in self.columns])


def core_tables(raw: Sequence[tuple[str, int, list[tuple[Any, ...]]]]) -> dict[str, RawTable]:
    """The core's tables by name."""
    return {table.name: table for table in map(RawTable.from_core, raw)}


def _validity(valid: npt.NDArray[np.bool_] | None) -> Any:
    """An Arrow validity bitmap (least significant bit first) of a bool array, or None."""
    if valid is None:
        return None
    import numpy as np
    import pyarrow as pa

    return pa.py_buffer(np.packbits(valid, bitorder="little"))


def _string_array(texts: list[str]) -> pa.Array:
    """`texts` as an Arrow string array, built from its buffers (pa.array() imports pandas)."""
    import numpy as np
    import pyarrow as pa

    encoded = [text.encode("utf-8") for text in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    data = pa.py_buffer(b"".join(encoded))
    return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets), data])


def _arrow_array(column: Column, rows: int) -> pa.Array:
    # pa.Array.from_buffers, not pa.array(): pa.array() on a numpy array imports pandas (to test
    # for a Series), which costs `mmtcp run` a third of a second.
    import numpy as np
    import pyarrow as pa

    validity = _validity(column.valid)
    if column.kind == "text":
        codes = column.values.astype(np.int32, copy=False)
        indices = pa.Array.from_buffers(pa.int32(), rows, [validity, pa.py_buffer(codes)])
        return pa.DictionaryArray.from_arrays(indices, _string_array(column.dictionary or []))
    if column.kind == "bool":
        bits = pa.py_buffer(np.packbits(column.values, bitorder="little"))
        return pa.Array.from_buffers(pa.bool_(), rows, [validity, bits])
    arrow_type = {"f64": pa.float64(), "u64": pa.uint64(), "i64": pa.int64()}[column.kind]
    return pa.Array.from_buffers(arrow_type, rows, [validity, pa.py_buffer(column.values)])


def write_parquet(tables: Mapping[str, RawTable], out_dir: Path) -> list[Path]:
    """Writes each table to `out_dir/<name>.parquet`; returns the paths."""
    import pyarrow.parquet as pq

    paths = []
    for name, table in tables.items():
        path = out_dir / f"{name}.parquet"
        pq.write_table(table.to_arrow(), path)
        paths.append(path)
    return paths


def read_saved(folder: Path, names: Sequence[str] = TABLES) -> dict[str, pa.Table]:
    """The tables `names` a run saved in `folder` (`<name>.parquet`), those present."""
    import pyarrow.parquet as pq

    files = {name: folder / f"{name}.parquet" for name in names}
    return {name: pq.read_table(path) for name, path in files.items() if path.is_file()}


def to_pandas(table: RawTable) -> pd.DataFrame:
    """The table as a DataFrame (text columns categorical, nullable integers as floats)."""
    return table.to_arrow().to_pandas()


def wide_columns(tables: Mapping[str, RawTable]) -> dict[str, npt.NDArray[np.float64]]:
    """The wide time series: `time_s`, then one column per entity and metric that applies to it,
    in the order the core samples them — `flow.<flow>.<metric>` for TCP flows and
    `flow.<flow>.sf<k>.<metric>` for MP-TCP subflows (in the scenario's order), then each MP-TCP
    connection's `flow.<flow>.<metric>`; `link.<link>.<fwd|rev>.<metric>`;
    `proxy.<processor>.<column>`."""
    import numpy as np

    samples, times = 0, np.empty(0)
    series = [tables[name] for name in SERIES_TABLES if name in tables]
    for table in series:
        if table.rows:
            time = table.column("time_s").values
            entities = entities_per_sample(time)
            samples, times = table.rows // entities, time[::entities]
            break
    columns: dict[str, npt.NDArray[np.float64]] = {"time_s": np.ascontiguousarray(times)}
    for table in series:
        if not table.rows:
            continue
        entities = table.rows // samples
        for e, prefix, metrics in _wide_entities(table, entities):
            for column, label in metrics:
                values = column.values.reshape(samples, entities)[:, e]
                columns[f"{prefix}.{label}"] = np.ascontiguousarray(values)
    return columns


def entities_per_sample(time: npt.NDArray[np.float64]) -> int:
    """Entities per sample of a time-major long table: the rows sharing the first time."""
    import numpy as np

    later = np.flatnonzero(time != time[0])
    return int(later[0]) if len(later) else len(time)


WideEntity = tuple[int, str, list[tuple[Column, str]]]
"""An entity of the wide view: its index, its columns' prefix, its metric columns and labels."""

SERIES_KEYS = {"flows": ("flow", "subflow"), "links": ("link", "direction")}
SERIES_KEYS["proxies"] = ("processor", "metric")


def _wide_entities(table: RawTable, entities: int) -> list[WideEntity]:
    """Per entity of a long-form series: its index, its wide-column prefix, and the metric
    columns that apply to it with their labels."""
    first, second = (table.column(k) for k in SERIES_KEYS[table.name])
    metrics = [c for c in table.columns if c.name not in ("time_s", first.name, second.name)]
    names = first.texts(entities)
    seconds = second.texts(entities) if second.kind == "text" else []
    found = []
    for e in range(entities):
        applies = [c for c in metrics if c.valid is None or c.valid[e]]
        if table.name == "flows":
            sub = second.valid is None or second.valid[e]
            prefix = f"flow.{names[e]}" + (f".sf{int(second.values[e])}" if sub else "")
            found.append((e, prefix, [(c, c.name) for c in applies]))
        elif table.name == "links":
            found.append((e, f"link.{names[e]}.{seconds[e]}", [(c, c.name) for c in applies]))
        else:
            found.append((e, f"proxy.{names[e]}", [(c, seconds[e]) for c in applies]))
    return found


def _unflatten(row: Mapping[str, Any], skip: tuple[str, ...]) -> dict[str, Any]:
    """A table row as a summary entry: dotted columns nested again, nulls left out."""
    entry: dict[str, Any] = {}
    for key, value in row.items():
        if value is None or key in skip:
            continue
        node = entry
        *parents, last = key.split(".")
        for parent in parents:
            node = node.setdefault(parent, {})
        node[last] = value
    return entry


ENTRY_TABLES = {"flows": ("flow_summary", "flow"), "links": ("link_summary", "link")}
"""Where a summary entry's row is: the table and its name column."""


class SummaryEntries:
    """The summary's entry of one flow or link, rebuilt from the per-entity tables, for a run
    whose summary.json does not list them (more than `metrics.summary_entries`).

    `load(name)` returns the table `name` (`flow_summary`, `link_summary`, `flow_drops`) as a
    pyarrow Table, or None if the run has none; it is called at most once per table.
    """

    def __init__(self, load: Callable[[str], pa.Table | None]):
        self._load = load
        self._tables: dict[str, pa.Table | None] = {}
        self._index: dict[str, tuple[list[str], dict[str, list[int]]]] = {}

    def _table(self, name: str) -> pa.Table | None:
        if name not in self._tables:
            self._tables[name] = self._load(name)
        return self._tables[name]

    def _rows_of(self, table_name: str, key: str) -> tuple[list[str], dict[str, list[int]]]:
        """The table's entity names in order (first row of each) and each name's rows."""
        if table_name not in self._index:
            table = self._table(table_name)
            rows: dict[str, list[int]] = {}
            for i, name in enumerate([] if table is None else table.column(key).to_pylist()):
                rows.setdefault(name, []).append(i)
            self._index[table_name] = (list(rows), rows)
        return self._index[table_name]

    def entry(self, kind: str, segment: str) -> dict[str, Any] | None:
        """The entry of the flow (`kind="flows"`) or link (`"links"`) named `segment`, else
        the one at that index; None if there is none."""
        table_name, key = ENTRY_TABLES[kind]
        names, rows = self._rows_of(table_name, key)
        if segment not in rows:
            if not (segment.isascii() and segment.isdigit() and int(segment) < len(names)):
                return None
            segment = names[int(segment)]
        table = self._table(table_name)
        assert table is not None
        records = [table.slice(i, 1).to_pylist()[0] for i in rows[segment]]
        return self._flow(segment, records) if kind == "flows" else self._link(segment, records)

    def _flow(self, name: str, records: list[dict[str, Any]]) -> dict[str, Any]:
        flow = next(r for r in records if r["subflow"] is None)
        entry = {"name": name, **_unflatten(flow, ("flow", "subflow"))}
        subflows = [r for r in records if r["subflow"] is not None]
        if subflows:
            entry["subflows"] = [
                {"name": f"{name}.sf{r['subflow']}", **_unflatten(r, ("flow", "subflow"))}
                for r in subflows
            ]
        drops = self._table("flow_drops")
        if drops is not None:
            import pyarrow.compute as pc

            places = drops.filter(pc.equal(drops["flow"].cast("string"), name)).to_pylist()
            by_place = {r["place"]: r["segments"] for r in places}
            entry.setdefault("dropped_segments", {})["by_place"] = by_place
        return entry

    def _link(self, name: str, records: list[dict[str, Any]]) -> dict[str, Any]:
        directions = [_unflatten(r, ("link", "direction", "kind")) for r in records]
        fwd = directions[0]
        drops = sum(d.get("drops", {}).get(k, 0) for d in directions for k in ("queue", "error"))
        kind = records[0]["kind"]
        entry = {
            "name": name,
            "kind": kind,
            "between": [fwd.get("from"), fwd.get("to")],
            "utilisation": fwd.get("utilisation"),
            "drops": drops,
            "directions": directions,
        }
        if kind == "radio":
            entry["mean_capacity_bps"] = fwd.get("mean_capacity_bps")
        return entry
