"""Metrics: dotted paths into a run's summary.json, such as `flows.bulk.goodput_bps` or
`flows.0.rtt_ms.p99`: their syntax, their value in a summary, and the set a sweep reports by
default."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mmtcp.tables import SummaryEntries

from mmtcp._core import ScenarioError


def check_metrics(metrics: Iterable[str], where: str = "metric") -> list[str]:
    """Checks the syntax of metric paths (non-empty dotted segments) and returns them."""
    checked = []
    for metric in metrics:
        if not metric or any(not part for part in metric.split(".")):
            raise ScenarioError(
                f"{where}: {metric!r} is not a metric; expected a dotted path into summary.json "
                f"such as flows.0.goodput_bps or flows.bulk.rtt_ms.p99"
            )
        if metric not in checked:
            checked.append(metric)
    return checked


def metric_value(summary: Any, path: str, entries: SummaryEntries | None = None) -> float | None:
    """The number at a dotted `path` in a summary, or None if there is none (missing, null, or not
    a number). In a list, a segment selects the element with that `name`, else that index.

    A summary of more than `metrics.summary_entries` flows (links) does not list them: a path
    `flows.<flow>.…` (`links.<link>.…`) is then read from the entry `entries` rebuilt from the
    run's per-entity tables (`mmtcp.tables.SummaryEntries`).

    >>> s = {"flows": [{"name": "bulk", "rtt_ms": {"p99": 30.5}, "completion_seconds": None}]}
    >>> metric_value(s, "flows.bulk.rtt_ms.p99"), metric_value(s, "flows.0.rtt_ms.p99")
    (30.5, 30.5)
    >>> metric_value(s, "flows.bulk.completion_seconds"), metric_value(s, "flows.x.rtt_ms")
    (None, None)
    """
    segments = path.split(".")
    node = summary
    kind = segments[0]
    unlisted = isinstance(summary, Mapping) and kind in ("flows", "links") and kind not in summary
    if entries is not None and unlisted and len(segments) > 1:
        node, segments = entries.entry(kind, segments[1]), segments[2:]
    for segment in segments:
        if isinstance(node, Mapping):
            if segment not in node:
                return None
            node = node[segment]
        elif isinstance(node, list):
            named = [e for e in node if isinstance(e, Mapping) and e.get("name") == segment]
            if named:
                node = named[0]
            elif segment.isascii() and segment.isdigit() and int(segment) < len(node):
                node = node[int(segment)]
            else:
                return None
        else:
            return None
    if isinstance(node, bool) or not isinstance(node, (int, float)):
        return None
    return float(node)


PER_FLOW_DEFAULTS = 24
"""Most flows a sweep reports one by one by default; beyond, it reports `AGGREGATE_DEFAULTS`."""

AGGREGATE_DEFAULTS = (
    "aggregates.flows.total_goodput_bps",
    "aggregates.flows.goodput_bps.mean",
    "aggregates.flows.goodput_bps.p10",
    "aggregates.flows.goodput_bps.p50",
    "aggregates.flows.jain_fairness",
    "aggregates.flows.rtt_mean_ms.p50",
    "aggregates.flows.rtt_p99_ms.p99",
    "aggregates.flows.retransmitted_segments",
)
"""The default metrics of a sweep whose scenarios have more than `PER_FLOW_DEFAULTS` flows
(summary.json's `aggregates`, docs/metrics.md); completion times are added when a flow has a
size."""


def default_metrics(resolved_scenarios: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every flow's goodput (and its steady-state goodput where a scenario sets
    `metrics.steady_from`), mean and p99 RTT, mean and p99 one-way delay, completion time (for
    flows with a size) and retransmissions, over the flows of every resolved scenario; with more
    than `PER_FLOW_DEFAULTS` flows, their distributions (`AGGREGATE_DEFAULTS`) instead."""
    flows: dict[str, bool] = {}
    steady = False
    for scenario in resolved_scenarios:
        steady = steady or "steady_from" in scenario.get("metrics", {})
        for index, flow in enumerate(scenario.get("flow", [])):
            name = str(flow.get("name", index))
            key = name if "." not in name else str(index)
            app = flow.get("app", {})
            sized = app.get("kind") == "download" or "size" in app
            flows[key] = flows.get(key, False) or sized
    if len(flows) > PER_FLOW_DEFAULTS:
        completion = ["aggregates.flows.completion_seconds.p50"] if any(flows.values()) else []
        return [*AGGREGATE_DEFAULTS, *completion]
    metrics = []
    for name, sized in flows.items():
        prefix = f"flows.{name}"
        metrics.append(f"{prefix}.goodput_bps")
        if steady:
            metrics.append(f"{prefix}.steady_goodput_bps")
        metrics += [
            f"{prefix}.rtt_ms.mean",
            f"{prefix}.rtt_ms.p99",
            f"{prefix}.owd_ms.mean",
            f"{prefix}.owd_ms.p99",
        ]
        if sized:
            metrics.append(f"{prefix}.completion_seconds")
        metrics.append(f"{prefix}.retransmitted_segments")
    return metrics
