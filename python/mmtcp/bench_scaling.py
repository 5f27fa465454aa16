"""The scaling benchmarks of `mmtcp bench`: scenarios too large to keep as files, generated.

- `bottleneck-N` (N = 1, 100, 1000, 10 000): N CUBIC flows from one server to one client through
  a 10 Gbit/s, 10 ms bottleneck (drop-tail, 10 000 packets), for 2 s: the cost of per-flow state.

      server ──(100 Gbit/s, 1 ms)── router ──(10 Gbit/s, 10 ms)── client

- `star-N` (N = 10, 100, 1000, 10 000): N UEs, each on its own 20 Mbit/s, 2 ms link from a base
  station fed by a link that never limits them, each with one CUBIC download; 10 s for 10 UEs
  down to 1 s for 10 000, so that each runs a few million events: the cost of many nodes,
  links and flows at once.

      server ──(N x 40 Mbit/s, 5 ms)── bs ──(20 Mbit/s, 2 ms)── ue<i>,  i = 1..N

- `star10m-N` (N = 10, 1000, 10 000): issue 28's star, as a user would write it: N UEs, each on
  its own 10 Mbit/s, 2 ms link with a 100-packet buffer, behind a 40 Gbit/s, 5 ms core, one CUBIC
  download each, sampled every 10 ms; 2 s for 10 and 1000 UEs, 1 ms for 10 000 (sampled every
  100 us). These run end to end (`END_TO_END`): the run and the writing of its results, as
  `mmtcp run --no-plots --no-report` does, so that the cost of the outputs shows.

      server ──(40 Gbit/s, 5 ms)── bs ──(10 Mbit/s, 2 ms, 100 pkt)── ue<i>,  i = 1..N

The others sample the time series every 100 ms (with 10 000 flows, 10 ms rows would take
`metrics.series_memory`'s whole default). `write_scenarios(dir)` writes them as JSON scenario
files, which `mmtcp bench` runs like the files of `scenarios/bench/`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BOTTLENECK_FLOWS = (1, 100, 1000, 10_000)
STAR_UES = (10, 100, 1000, 10_000)
STAR_SECONDS = {10: "10s", 100: "5s", 1000: "2s", 10_000: "1s"}
STAR_LINK_MBPS = 20
STAR10M_UES = (10, 1000, 10_000)
STAR10M_SECONDS = {10: ("2s", "10ms"), 1000: ("2s", "10ms"), 10_000: ("1ms", "100us")}
"""Duration and sampling interval of `star10m-N`."""
END_TO_END = frozenset(f"star10m-{n}" for n in STAR10M_UES)
"""The scaling scenarios `mmtcp bench` times end to end: run, then results written."""


def bottleneck(flows: int) -> dict[str, Any]:
    """`flows` CUBIC flows sharing a 10 Gbit/s bottleneck."""
    return {
        "simulation": {"duration": "2s", "seed": 1},
        "metrics": {"interval": "100ms"},
        "node": [{"name": "server"}, {"name": "router"}, {"name": "client"}],
        "link": [
            {"name": "core", "between": ["server", "router"], "rate": "100Gbps", "delay": "1ms"},
            {
                "name": "bottleneck",
                "between": ["router", "client"],
                "rate": "10Gbps",
                "delay": "10ms",
                "buffer": "10000pkt",
            },
        ],
        "flow": [
            {"name": f"f{i}", "from": "server", "to": "client", "transport": {"cc": "cubic"}}
            for i in range(flows)
        ],
    }


def star(ues: int) -> dict[str, Any]:
    """`ues` UEs, each on its own link from one base station, each with one download."""
    names = [f"ue{i}" for i in range(1, ues + 1)]
    core_rate = f"{2 * STAR_LINK_MBPS * ues}Mbps"
    links = [{"name": "core", "between": ["server", "bs"], "rate": core_rate, "delay": "5ms"}]
    links += [
        {"name": f"l{ue}", "between": ["bs", ue], "rate": f"{STAR_LINK_MBPS}Mbps", "delay": "2ms"}
        for ue in names
    ]
    return {
        "simulation": {"duration": STAR_SECONDS[ues], "seed": 1},
        "metrics": {"interval": "100ms"},
        "node": [{"name": "server"}, {"name": "bs"}] + [{"name": ue} for ue in names],
        "link": links,
        "flow": [
            {"name": f"to-{ue}", "from": "server", "to": ue, "transport": {"cc": "cubic"}}
            for ue in names
        ],
    }


def star10m(ues: int) -> dict[str, Any]:
    """Issue 28's star: `ues` UEs on 10 Mbit/s, 100-packet links behind a 40 Gbit/s core."""
    names = [f"ue{i}" for i in range(1, ues + 1)]
    duration, interval = STAR10M_SECONDS[ues]
    links = [{"name": "core", "between": ["server", "bs"], "rate": "40Gbps", "delay": "5ms"}]
    links += [
        {
            "name": f"l{ue}",
            "between": ["bs", ue],
            "rate": "10Mbps",
            "delay": "2ms",
            "buffer": "100pkt",
        }
        for ue in names
    ]
    return {
        "simulation": {"duration": duration, "seed": 1},
        "metrics": {"interval": interval},
        "node": [{"name": "server"}, {"name": "bs"}] + [{"name": ue} for ue in names],
        "link": links,
        "flow": [
            {"name": f"to-{ue}", "from": "server", "to": ue, "transport": {"cc": "cubic"}}
            for ue in names
        ],
    }


def scenarios() -> dict[str, dict[str, Any]]:
    """Every scaling scenario by name, in the order the benchmark runs them."""
    found = {f"bottleneck-{n}": bottleneck(n) for n in BOTTLENECK_FLOWS}
    found.update({f"star-{n}": star(n) for n in STAR_UES})
    found.update({f"star10m-{n}": star10m(n) for n in STAR10M_UES})
    return found


def write_scenarios(directory: Path) -> list[Path]:
    """Writes every scaling scenario to `directory/<name>.json`; returns the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, scenario in scenarios().items():
        path = directory / f"{name}.json"
        path.write_text(json.dumps(scenario), encoding="utf-8")
        paths.append(path)
    return paths
