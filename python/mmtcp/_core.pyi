"""Type stubs of `mmtcp._core`, the compiled bindings (crates/mmtcp-python).

Use the public API in `mmtcp` instead; these functions take the scenario already split into
`source` and `kind`, and return raw JSON text and numpy arrays.
"""

import os
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

__version__: str

class ScenarioError(ValueError):
    """The scenario, a trace file or an override is invalid.

    The message is one line naming the file, the field and what is allowed.
    """

class SimulationError(RuntimeError):
    """The simulator failed internally, a panic included."""

def run(
    source: str,
    kind: Literal["path", "toml", "json"],
    *,
    name: str | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    seed: int | None = None,
    overrides: Sequence[tuple[str, str]] | None = None,
    progress: Callable[[float, float, int, float], bool | None] | None = None,
) -> tuple[str, dict[str, npt.NDArray[np.float64]], str]:
    """Runs a scenario with the GIL released.

    Returns the summary as JSON text, the time series as float64 arrays in column order
    (`time_s` first), and the resolved scenario as TOML text.
    `progress(sim_seconds, stop_seconds, events, wall_seconds)` is called about ten times a
    wall-second; returning False stops the run with `SimulationError`, and a pending signal stops
    it with that signal's exception (`KeyboardInterrupt` for Ctrl-C).
    """

def validate(
    source: str,
    kind: Literal["path", "toml", "json"],
    *,
    name: str | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    seed: int | None = None,
    overrides: Sequence[tuple[str, str]] | None = None,
) -> str:
    """Loads, overrides and validates a scenario; returns the resolved scenario as TOML text."""

def bench_engine(events: int) -> dict[str, int | float]:
    """Times `events` events through the bare event engine.

    Returns `{"events": int, "wall_seconds": float, "events_per_second": float}`.
    """

def _panic_for_tests(message: str) -> None:
    """Test hook: panics in Rust; always raises `SimulationError` carrying `message`."""

def ieee80211ad_trace(config: str, *, name: str | None = None) -> str:
    """Drago et al.'s synthetic 802.11ad beam-pair trace as CSV `time,tx_deg,rx_deg,power_dbm`.

    `config` is TOML text with the synthetic source's keys (`scenario = "a"` or `"b"`, ...);
    a bad key or value raises `ScenarioError` naming it.
    """

def ieee80211ad_dual_trace(config: str, *, name: str | None = None) -> dict[str, Any]:
    """The stand-in for Wu et al.'s measured 802.11ad links: two rate traces, one per AP.

    `config` is TOML text with any of the generator's keys (docs/models/ieee80211ad.md). Returns
    `{"ap1": str, "ap2": str, "mean_bps": (float, float), "correlation": float, "scale": float |
    None}`: each AP's trace as csv text (`time,rate`, the format of a `trace` channel), their
    time-average rates in bit/s, the Pearson correlation of their per-sample rates, and the
    factor applied to the PHY rates (None with `mean_total_rate = "none"`). A bad key or value
    raises `ScenarioError` naming it.
    """

def rate_trace(
    path: str | os.PathLike[str],
    *,
    format: Literal["csv", "mahimahi"] | None = None,
    origin: str = "",
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], int]:
    """A rate trace read whole, in the syntax of a `trace` channel (csv or mahimahi; `format`
    None: from the file name), for `mmtcp fit-markov`.

    Returns each step's start in picoseconds, its rate in bit/s, and where the trace ends in
    picoseconds (a csv trace at its last row's time, a mahimahi trace at its period). A bad or
    missing trace raises `ScenarioError` naming the file and line; `origin` ends the message.
    """

def time_ps(text: str) -> int:
    """A time as a scenario writes it (`"100ms"`), in picoseconds; `ScenarioError` if it is not."""
