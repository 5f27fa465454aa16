"""Human-readable tables for the terminal: the summary of a run and the benchmark results.

Tables are plain text, first column left-aligned and the others right-aligned:

    >>> print(format_table(["flow", "goodput Mbit/s"], [["bulk", "912.4"], ["video", "8.0"]]))
    flow   goodput Mbit/s
    bulk            912.4
    video             8.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

MISSING = "-"
"""Printed for a value the run did not produce (a bulk flow's completion time, say)."""


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


def run_report(summary: dict[str, Any]) -> str:
    """The table `mmtcp run` prints: flows, links, and the cost of the run."""
    tables = [format_table(header, rows) for _, (header, rows) in run_tables(summary)]
    return "\n\n".join([*tables, cost_line(summary)])


def run_tables(summary: dict[str, Any]) -> list[tuple[str, Table]]:
    """The tables of a run as `(caption, (header, rows))`: flows and links, then the radio
    directions and the packet processors when the run has them. The terminal report and the
    HTML report show these same cells."""
    tables = [("Flows", flow_table(summary)), ("Links", link_table(summary))]
    radio = radio_table(summary)
    if radio is not None:
        tables.append(("Radio directions", radio))
    processors = processor_table(summary)
    if processors is not None:
        tables.append(("Packet processors", processors))
    return tables


def flow_table(summary: dict[str, Any]) -> Table:
    """Per flow: goodput, bytes delivered, retransmissions, RTOs, RTT, delivery ratio,
    completion time."""
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
            flow["name"],
            number(flow["goodput_bps"], 1, 1e6),
            number(flow["bytes_delivered"], 1, 1e6),
            number(flow["retransmitted_segments"], 0),
            number(flow["rto_count"], 0),
            number(flow["rtt_ms"]["p50"], 1),
            number(flow["rtt_ms"]["p99"], 1),
            number(flow["delivery_ratio"], 4),
            number(flow["completion_seconds"], 3),
        ]
        for flow in summary["flows"]
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
