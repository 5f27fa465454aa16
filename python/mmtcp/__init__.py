"""mmtcp: a fast packet-level simulator of TCP over millimetre-wave links.

The simulation runs in Rust (`mmtcp._core`); this package is its Python face:

- `mmtcp.run(scenario, seed=..., overrides=...)` runs a scenario (a TOML path or a dict) and
  returns a `Result` with `.summary` (dict), `.timeseries` (pandas DataFrame), `.save(dir)` and
  `.plot(dir)`;
- `mmtcp.validate(scenario, overrides=...)` checks a scenario and returns it resolved, as TOML;
- `ScenarioError` (a `ValueError`) reports a bad scenario, trace or override in one line naming
  the file and the field; `SimulationError` (a `RuntimeError`) reports an internal failure;
- the `mmtcp` command (`mmtcp.cli`) runs, validates, plots and benchmarks from the shell.
"""

from mmtcp._core import ScenarioError, SimulationError, __version__
from mmtcp.api import Result, run, validate

__all__ = ["Result", "ScenarioError", "SimulationError", "__version__", "run", "validate"]
