"""mmtcp: a fast packet-level simulator of TCP over millimetre-wave links.

The simulation runs in Rust (`mmtcp._core`); this package is its Python face:

- `mmtcp.run(scenario, seed=..., overrides=...)` runs a scenario (a TOML path or a dict) and
  returns a `Result` with `.summary` (dict), `.timeseries` (pandas DataFrame), `.save(dir)` and
  `.plot(dir)`;
- `mmtcp.validate(scenario, overrides=...)` checks a scenario and returns it resolved, as TOML;
- `ScenarioError` (a `ValueError`) reports a bad scenario, trace or override in one line naming
  the file and the field; `SimulationError` (a `RuntimeError`) reports an internal failure;
- `mmtcp.ieee80211ad_trace("b")` writes Drago et al.'s synthetic 802.11ad beam-pair trace as CSV;
- `mmtcp.ieee80211ad_dual_trace(duration="60s")` generates the stand-in for Wu et al.'s measured
  802.11ad links: two rate traces of a user walking between two access points;
- `mmtcp.sweep(scenario, grid=..., seeds=..., workers=..., out=...)` runs a scenario over a grid of
  overrides x seeds on a process pool and returns a `SweepResult` (per-point mean and 95 % CI);
- the `mmtcp` command (`mmtcp.cli`) runs, validates, plots, benchmarks, sweeps and reproduces
  experiments from the shell.
"""

from mmtcp._core import ScenarioError, SimulationError, __version__
from mmtcp.api import DualTrace, Result, ieee80211ad_dual_trace, ieee80211ad_trace, run, validate
from mmtcp.sweep import SweepResult, sweep

__all__ = [
    "DualTrace",
    "Result",
    "ScenarioError",
    "SimulationError",
    "SweepResult",
    "__version__",
    "ieee80211ad_dual_trace",
    "ieee80211ad_trace",
    "run",
    "sweep",
    "validate",
]
