"""Human-readable tables for the terminal: the summary of a run and the benchmark results.

Tables are plain text, first column left-aligned and the others right-aligned:

    >>> print(format_table(["flow", "goodput Mbit/s"], [["bulk", "912.4"], ["video", "8.0"]]))
    flow   goodput Mbit/s
    bulk            912.4
    video             8.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

MISSING = "-"
"""Printed for a value the run did not produce (a bulk flow's completion time, say)."""

FEW = 24
"""Most flows (and links) the reports and plots show one by one; beyond, they show distributions
across them and the `TOP` flows (link directions) with the most goodput (utilisation)."""
TOP = 10


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Aligns cells in columns: the first column to the left, the others to the right."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True))
        return "  ".join([first, *rest]).rstrip()

    return "\n".join(line(row) for row in [header, *rows])


def number(value: float | None, digits: int = 1, scale: float = 1.0) -> str:
    """`value / scale` with `digits` decimals and thousands separators; `-` for None."""
    if value is None:
        return MISSING
    return f"{value / scale:,.{digits}f}"


Table = tuple[list[str], list[list[str]]]
"""A table as data: its header and its rows of cells (text)."""


def run_report(summary: dict[str, Any], tables: Mapping[str, pa.Table] | None = None) -> str:
    """The table `mmtcp run` prints: flows, links, and the cost of the run."""
    texts = [
        (f"{caption}\n" if caption not in PLAIN_CAPTIONS else "") + format_table(header, rows)
        for caption, (header, rows) in run_tables(summary, tables)
    ]
    return "\n\n".join([*texts, cost_line(summary)])


PLAIN_CAPTIONS = ("Flows", "Links", "Radio directions", "Packet processors")
"""Captions the terminal leaves out: the table's header says as much."""


def detailed(summary: dict[str, Any], kind: str) -> bool:
    """Whether the reports show each of the run's `kind` (`flows` or `links`): the summary lists
    them and there are at most `FEW` (or it has no `aggregates` to show instead: a summary written
    before them)."""
    return kind in summary and (len(summary[kind]) <= FEW or "aggregates" not in summary)


def run_tables(
    summary: dict[str, Any], tables: Mapping[str, pa.Table] | None = None
) -> list[tuple[str, Table]]:
    """The tables of a run as `(caption, (header, rows))`: flows and links, then the radio
    directions and the packet processors when the run has them. With more than `FEW` flows
    (links), their distributions and the top `TOP` from `tables["flow_summary"]`
    (`tables["link_summary"]`) instead. The terminal report and the HTML report show these
    same cells."""
    tables = tables or {}
    found = []
    if detailed(summary, "flows"):
        found.append(("Flows", flow_table(summary["flows"])))
    else:
        found.append((flow_totals(summary), flow_distributions(summary)))
        if "flow_summary" in tables:
            top = top_rows(tables["flow_summary"], "goodput_bps", TOP, only_null="subflow")
            found.append((f"The {len(top)} flows with the most goodput", flow_table(top)))
    if detailed(summary, "links"):
        found.append(("Links", link_table(summary)))
        radio = radio_table(summary)
        if radio is not None:
            found.append(("Radio directions", radio))
    else:
        links = summary["aggregates"]["links"]
        caption = f"{links['count']:,} links, {links['drops']:,} packets dropped on them"
        found.append((caption, link_distributions(summary)))
        if "link_summary" in tables:
            top = top_rows(tables["link_summary"], "utilisation", TOP)
            caption = f"The {len(top)} link directions most used"
            found.append((caption, direction_table(top)))
    processors = processor_table(summary)
    if processors is not None:
        found.append(("Packet processors", processors))
    return found


def field(record: Mapping[str, Any], path: str) -> Any:
    """`record`'s value at a dotted `path`: nested (a summary entry) or flat (a table row)."""
    if path in record:
        return record[path]
    node: Any = record
    for key in path.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def top_rows(
    table: pa.Table, by: str, n: int, only_null: str | None = None
) -> list[dict[str, Any]]:
    """The `n` rows of `table` with the largest `by` (rows where `only_null` is not null left
    out, e.g. MP-TCP subflows), as flat dicts; ties keep the table's order."""
    import pyarrow.compute as pc

    if only_null is not None:
        table = table.filter(pc.is_null(table[only_null]))
    order = pc.sort_indices(table, sort_keys=[(by, "descending", "at_end")])
    return table.take(order[:n]).to_pylist()


def flow_table(flows: Sequence[Mapping[str, Any]]) -> Table:
    """Per flow (summary entries or `flow_summary` rows): goodput, bytes delivered,
    retransmissions, RTOs, RTT, delivery ratio, completion time."""
    header = [
        "flow",
        "goodput Mbit/s",
        "delivered MB",
        "retransmitted",
        "RTOs",
        "RTT p50 ms",
        "RTT p99 ms",
        "delivery ratio",
        "completion s",
    ]
    rows = [
        [
            str(field(flow, "name") or field(flow, "flow")),
            number(field(flow, "goodput_bps"), 1, 1e6),
            number(field(flow, "bytes_delivered"), 1, 1e6),
            number(field(flow, "retransmitted_segments"), 0),
            number(field(flow, "rto_count"), 0),
            number(field(flow, "rtt_ms.p50"), 1),
            number(field(flow, "rtt_ms.p99"), 1),
            number(field(flow, "delivery_ratio"), 4),
            number(field(flow, "completion_seconds"), 3),
        ]
        for flow in flows
    ]
    return header, rows


def _distribution_header(counted: str) -> list[str]:
    return ["", counted, "mean", "min", "p10", "p50", "p90", "p99", "max"]


def _distribution_row(
    label: str, d: Mapping[str, Any] | None, digits: int, scale: float
) -> list[str]:
    if d is None:
        return [label, "0"] + [MISSING] * 7
    stats = ("mean", "min", "p10", "p50", "p90", "p99", "max")
    return [label, f"{d['count']:,}", *(number(d[k], digits, scale) for k in stats)]


def flow_totals(summary: dict[str, Any]) -> str:
    """One line: the flows' count, total goodput, Jain's index, retransmissions, RTOs, drops."""
    a = summary["aggregates"]["flows"]
    return (
        f"{a['count']:,} flows: {number(a['total_goodput_bps'], 1, 1e6)} Mbit/s in all, "
        f"Jain's index {number(a['jain_fairness'], 3)}, {a['retransmitted_segments']:,} "
        f"retransmitted, {a['rto_count']:,} RTOs, {a['dropped_segments']:,} dropped"
    )


def flow_distributions(summary: dict[str, Any]) -> Table:
    """The flows' goodput, RTT and completion times across flows (`aggregates.flows`)."""
    a = summary["aggregates"]["flows"]
    rows = [
        _distribution_row("goodput Mbit/s", a["goodput_bps"], 2, 1e6),
        _distribution_row("RTT mean ms", a["rtt_mean_ms"], 1, 1),
        _distribution_row("RTT p99 ms", a["rtt_p99_ms"], 1, 1),
        _distribution_row("completion s", a["completion_seconds"], 3, 1),
    ]
    return _distribution_header("flows"), rows


def link_distributions(summary: dict[str, Any]) -> Table:
    """The forward directions' utilisation across links (`aggregates.links`)."""
    header = _distribution_header("links")
    utilisation = summary["aggregates"]["links"]["utilisation"]
    return header, [_distribution_row("utilisation", utilisation, 3, 1)]


def direction_table(directions: Sequence[Mapping[str, Any]]) -> Table:
    """Per link direction (`link_summary` rows): kind, utilisation, drops, mean capacity."""
    header = ["link direction", "kind", "utilisation", "drops", "mean capacity Mbit/s"]
    rows = [
        [
            f"{d['link']} {d['from']}→{d['to']}",
            str(d["kind"]),
            number(d["utilisation"], 3),
            number((d["drops.queue"] or 0) + (d["drops.error"] or 0), 0),
            number(d["mean_capacity_bps"], 1, 1e6),
        ]
        for d in directions
    ]
    return header, rows


def link_table(summary: dict[str, Any]) -> Table:
    """Per link: kind, utilisation, drops, mean capacity."""
    header = ["link", "kind", "utilisation", "drops", "mean capacity Mbit/s"]
    rows = [
        [
            link["name"],
            link["kind"],
            number(link["utilisation"], 3),
            number(link["drops"], 0),
            number(link.get("mean_capacity_bps"), 1, 1e6),
        ]
        for link in summary["links"]
    ]
    return header, rows


# The RLC counters summed in the "RLC drops" column: the SDU buffer refused the packet, CoDel or
# the discard timer dropped it at the head of the buffer, or a radio link failure's RLC
# re-establishment discarded it. (Summaries from before a counter existed lack it: counted 0.)
RLC_DROPS = ("drops_buffer", "drops_codel", "drops_discard_timer", "drops_rlf")


def radio_table(summary: dict[str, Any]) -> Table | None:
    """Per direction of a link with the radio stack: SINR, block errors, what HARQ and RLC did;
    None when the run has no such link."""
    rows = []
    for link in summary["links"]:
        for d in link["directions"]:
            radio = d.get("radio")
            if radio is None:
                continue
            rate = radio["tb_error_rate"]
            rows.append(
                [
                    f"{link['name']} {d['from']}→{d['to']}",
                    number(radio["mean_sinr_db"], 1),
                    number(None if rate is None else 100 * rate, 2),
                    number(radio["harq"]["retransmissions"], 0),
                    number(radio["harq"]["failed"], 0),
                    number(radio["rlc"]["retx_segments"], 0),
                    number(radio["rlc"]["sdus_lost"], 0),
                    number(sum(radio["rlc"].get(key, 0) for key in RLC_DROPS), 0),
                ]
            )
    if not rows:
        return None
    header = [
        "radio direction",
        "mean SINR dB",
        "TB errors %",
        "HARQ retx",
        "HARQ failed",
        "RLC retx",
        "RLC lost",
        "RLC drops",
    ]
    return header, rows


def processor_table(summary: dict[str, Any]) -> Table | None:
    """Per packet processor: where it sits and its counters (nested counters flattened as
    `a.b`); None when the run has none."""
    rows = []
    for p in summary.get("processors", []):
        counters = ", ".join(f"{k}={_counter(v)}" for k, v in _flatten(p["stats"]))
        rows.append([p["name"], p["kind"], counters or MISSING])
    if not rows:
        return None
    return ["processor", "kind", "counters"], rows


def _flatten(stats: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(stats, dict):
        return [kv for k, v in stats.items() for kv in _flatten(v, f"{prefix}{k}.")]
    return [(prefix.rstrip("."), stats)]


def _counter(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.4g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def cost_line(summary: dict[str, Any]) -> str:
    """One line: simulated time, wall time, speed-up over real time, events and event rate."""
    sim, wall = summary["sim_seconds"], summary["wall_seconds"]
    return (
        f"simulated {sim:,.3f} s in {wall:,.3f} s of wall time "
        f"({speed_up(sim, wall)} real time); {summary['events']:,} events "
        f"({summary['events_per_second'] / 1e6:,.2f} M events/s)"
    )


def speed_up(sim_seconds: float, wall_seconds: float) -> str:
    """How many times faster than real time, e.g. `12.5x`."""
    if wall_seconds <= 0:
        return "inf x"
    return f"{sim_seconds / wall_seconds:,.1f}x"
