"""A sweep's runs on a Dask cluster (`mmtcp sweep --dask ADDRESS`, `mmtcp.sweep(dask=...)`):
a scheduler's address (`tcp://host:8786`, e.g. a SLURM cluster's from dask-jobqueue), a
`distributed.Client` already connected, or `"local"` for a `distributed.LocalCluster` of worker
processes on this machine.

Each run is one Dask task calling `mmtcp.worker_pool.run_task`, the function the local pool's
workers call, with the same job, so the run files and points.csv are the same bytes as with the
local pool. The workers import it by name: they need mmtcp, the same version, installed. This
module imports dask only when a sweep asks for it, and is the only one that does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from mmtcp._core import ScenarioError
from mmtcp.worker_pool import Finished, Job, death_message, run_task, sigint_ignored

Task = TypeVar("Task")

LOCAL = "local"
"""The `dask` value that starts a `distributed.LocalCluster` for the sweep."""

_WAIT = 1.0
"""Seconds between progress ticks while waiting for runs."""


def check_dask() -> None:
    """Raises `ScenarioError` (one line: how to install it) if dask.distributed is missing."""
    try:
        import distributed  # noqa: F401  (only whether it imports)
    except ImportError:
        raise ScenarioError(
            "--dask needs dask.distributed, which is not installed: pip install 'mmtcp[dask]'"
        ) from None


@dataclass(frozen=True)
class DaskCluster:
    """A Dask cluster to run a sweep on.

    Attributes:
        target: `"local"`, a scheduler address, or a `distributed.Client`.
        workers: the worker processes of a local cluster (ignored for a running cluster, whose
            size is its own).
    """

    target: Any
    workers: int

    def describe(self) -> str:
        if self.target == LOCAL:
            return f"{self.workers} Dask worker{'s' if self.workers != 1 else ''} (local cluster)"
        address = getattr(self.target, "scheduler", None)
        return f"the Dask cluster at {getattr(address, 'address', None) or self.target}"

    def run(
        self, jobs: list[Job[Task]], finished: Finished[Task], tick: Callable[[], None] | None
    ) -> int:
        """Runs `jobs` on the cluster; calls `finished` in this process as each ends. Returns
        the number of runs executed. A run whose worker died (Dask's `KilledWorker`, after its
        retries) or that Dask could not execute fails, and the other runs go on."""
        import contextlib

        from distributed import Client

        with contextlib.ExitStack() as stack:
            if isinstance(self.target, Client):
                client = self.target
            elif self.target == LOCAL:
                client = stack.enter_context(Client(stack.enter_context(self._local_cluster())))
            else:
                client = stack.enter_context(_connect(str(self.target)))
            executed = _run_on(client, jobs, finished, tick)
        return executed

    def _local_cluster(self) -> Any:
        import logging

        from distributed import LocalCluster

        with sigint_ignored():  # Ctrl-C stops the sweep, which closes the cluster
            return LocalCluster(
                n_workers=self.workers,
                threads_per_worker=1,  # a run holds one core; the core releases the GIL anyway
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )


def _connect(address: str) -> Any:
    from distributed import Client

    try:
        return Client(address, timeout="30s")
    except (OSError, ValueError, TypeError) as e:  # refused, timed out, a malformed address
        raise ScenarioError(f"--dask {address}: cannot reach the Dask scheduler: {e}") from None


def _run_on(
    client: Any,
    jobs: list[Job[Task]],
    finished: Finished[Task],
    tick: Callable[[], None] | None,
) -> int:
    from distributed import wait

    # pure=False: each run gets a key of its own, never a result of an earlier sweep on the
    # same cluster.
    submitted = client.map(run_task, [payload for _, payload in jobs], pure=False)
    futures = dict(zip(submitted, (task for task, _ in jobs), strict=True))
    pending = set(futures)
    executed = 0
    try:
        while pending:
            try:
                done, pending = wait(pending, timeout=_WAIT, return_when="FIRST_COMPLETED")
            except TimeoutError:  # nothing ended within _WAIT: tick, and wait again
                done = set()
            if tick is not None:
                tick()
            for future in done:
                executed += 1
                ok, text = _outcome(future)
                finished(futures[future], ok, text)
    finally:
        if pending:  # interrupted: the cluster drops the runs not finished
            client.cancel(list(pending))
    return executed


def _outcome(future: Any) -> tuple[bool, str]:
    """(ok, text) of a finished Dask future, as the local pool reports a run."""
    if future.status == "finished":
        status, text = future.result()
        return status == "ok", text
    error = future.exception() if future.status == "error" else None
    if type(error).__name__ == "KilledWorker":
        return False, death_message(f"the Dask worker running this died: {error}")
    return False, f"DaskError: the run did not execute ({future.status}): {error!r}"
