"""Where a sweep's runs go: the local process pool (`LocalPool`, this module) or a Dask cluster
(`mmtcp.sweep_dask.DaskCluster`). Both have `describe()` and `run(jobs, finished, tick)`, and
both execute each run with `run_task`, the one function that turns a job into a summary.

The local pool: each worker is `python -P -c "...; _serve_worker()"`, fed one task at a time as a
JSON line on its stdin and answering with one JSON line on its stdout, like `mmtcp bench`'s
workers. It guarantees:

- it never imports the caller's __main__ module in the workers, so `mmtcp.sweep` works from a
  script without an `if __name__ == "__main__"` guard;
- `-P`: the current folder is not on a worker's import path, so a `json.py` or `mmtcp/` lying
  there is not imported in place of the real one;
- workers run in their own process group with SIGINT ignored: Ctrl-C reaches the parent only,
  which then terminates them (no traceback per worker), and the finished runs are saved;
- a worker that dies (SIGKILL, the out-of-memory killer, a crash in the core) fails its run
  only; it is replaced and the other runs go on.

Why not `concurrent.futures.ProcessPoolExecutor`: it was evaluated, and it breaks each of these
guarantees. With the spawn or forkserver context each worker re-imports the caller's __main__ (a
script without the guard runs again in every worker, which fails); its workers share the
terminal's process group, so Ctrl-C raises KeyboardInterrupt in every worker, each printing a
traceback; its spawn workers start as `python -c ...` with the current folder first on the
import path (tried: a `struct.py` there breaks every worker), and they get `-P` only if the
parent process itself runs with it, which neither the `mmtcp` command nor a user's script does;
and one worker's death raises `BrokenProcessPool` for every pending run, ending the sweep
instead of failing one run. So the pool stays hand-written; a maintained executor is used where
it fits: Dask (`mmtcp.sweep_dask`), for more cores than one machine has.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from mmtcp import _core
from mmtcp._core import ScenarioError, SimulationError

_WORKER_CODE = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from mmtcp.worker_pool import _serve_worker; _serve_worker()"
)


class _Worker:
    """One worker process."""

    def __init__(self, started: list[_Worker]):
        import subprocess

        package_parent = str(Path(__file__).resolve().parents[1])
        group = {"process_group": 0} if os.name == "posix" else {}
        with sigint_ignored():  # also inherited by the worker
            self.process = subprocess.Popen(
                # -P: the current folder is not put on the worker's import path, so a `json.py`
                # lying there is not imported in its place.
                [sys.executable, "-P", "-c", _WORKER_CODE, package_parent],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                **group,
            )
            started.append(self)
        stdin, stdout = self.process.stdin, self.process.stdout
        if stdin is None or stdout is None:  # cannot happen with PIPE; for the type checker
            raise RuntimeError("worker process without pipes")
        self.stdin, self.stdout = stdin, stdout

    def send(self, payload: dict[str, Any]) -> None:
        self.stdin.write(json.dumps(payload) + "\n")
        self.stdin.flush()

    def receive(self) -> tuple[str, str] | None:
        """The answer to the task sent, or None if the worker died."""
        line = self.stdout.readline()
        if not line:
            return None
        status, text = json.loads(line)
        return status, text

    def exit_code(self) -> int | None:
        try:
            return self.process.wait(5)
        except Exception:
            return None

    def stop(self, timeout: float) -> None:
        with contextlib.suppress(OSError):
            self.stdin.close()
        with contextlib.suppress(Exception):
            self.process.wait(timeout)
        self.kill()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(Exception):
                self.process.wait(5)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.stdin, self.stdout):
            with contextlib.suppress(OSError):
                stream.close()


@contextlib.contextmanager
def sigint_ignored() -> Iterator[None]:
    """Ignores SIGINT in this process until the block ends, and so in the processes started in
    it: they inherit the disposition, so Ctrl-C at a terminal, which signals the whole process
    group, reaches only the sweep's process, which then stops them."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


Task = TypeVar("Task")

Job = tuple[Task, dict[str, Any]]
"""A task (anything, handed back to `finished`) and its run: `{"source": (source, kind,
{name, base_dir}), "seed": seed, "overrides": [(path, value), ...]}`, the arguments of
`_core.run`."""

Finished = Callable[[Task, bool, str], None]
"""Called in the sweep's process as each run ends: `finished(task, ok, text)`, text being the
summary JSON or the error."""


@dataclass(frozen=True)
class LocalPool:
    """The local process pool of `workers` processes."""

    workers: int

    def describe(self) -> str:
        return f"{self.workers} worker{'s' if self.workers != 1 else ''}"

    def run(
        self, jobs: list[Job[Task]], finished: Finished[Task], tick: Callable[[], None] | None
    ) -> int:
        """Runs `jobs`; returns the number of runs executed."""
        return run_pool(self.workers, jobs, finished, tick)


def run_pool(
    size: int,
    jobs: list[Job[Task]],
    finished: Finished[Task],
    tick: Callable[[], None] | None = None,
) -> int:
    """Runs `jobs` on `size` worker processes; calls `finished(task, ok, text)` in this process
    as each ends. Returns the number of runs executed. A worker that dies fails its run and is
    replaced; `tick` is called about once a second."""
    import selectors

    queue = deque(jobs)
    started: list[_Worker] = []
    busy: dict[_Worker, Task] = {}
    executed = 0
    try:
        for _ in range(size):
            _Worker(started)
        idle = list(started)
        while queue or busy:
            while idle and queue:
                worker = idle.pop()
                task, payload = queue.popleft()
                try:
                    worker.send(payload)
                except OSError:  # it died while idle: fail the run, replace the worker
                    executed += 1
                    finished(task, False, _death_message(worker.exit_code()))
                    worker.kill()
                    idle.append(_Worker(started))
                    continue
                busy[worker] = task
            with selectors.DefaultSelector() as selector:
                for worker in busy:
                    selector.register(worker.stdout, selectors.EVENT_READ, worker)
                ready = [key.data for key, _ in selector.select(timeout=1.0)]
            if tick is not None:
                tick()
            for worker in ready:
                task = busy.pop(worker)
                executed += 1
                answer = worker.receive()
                if answer is None:
                    finished(task, False, _death_message(worker.exit_code()))
                    worker.kill()
                    if queue:
                        idle.append(_Worker(started))
                    continue
                finished(task, answer[0] == "ok", answer[1])
                idle.append(worker)
    except BaseException:
        for worker in started:
            worker.kill()
        raise
    for worker in started:
        worker.stop(timeout=5)
    return executed


def _death_message(code: int | None) -> str:
    if code is not None and code < 0:
        how = f"was killed by signal {-code} ({signal.Signals(-code).name})"
    else:
        how = f"exited with status {code}"
    return death_message(f"the worker process running this {how}")


def death_message(what: str) -> str:
    """The error recorded for a run whose worker died; `what` says which worker and how."""
    return f"WorkerDied: {what} (a crash, or the system ran out of memory); other runs went on"


def _serve_worker() -> None:
    """A worker process: runs each task read from stdin, answers on stdout, until stdin ends or
    the sweep's process is gone (its answer pipe closed: the worker exits without a traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints cannot corrupt the answers
    try:
        for line in sys.stdin:
            status, text = run_task(json.loads(line))
            answers.write(json.dumps([status, text]) + "\n")
            answers.flush()
    except BrokenPipeError:
        os._exit(0)  # not sys.exit: flushing the closed pipe at exit would fail again


def run_task(task: dict[str, Any]) -> tuple[str, str]:
    """Runs one job's run: `("ok", summary JSON)` or `("error", message)`; never raises for a
    failing run. The local pool's workers and Dask's workers both call this."""
    source, kind, where = task["source"]
    try:
        summary, tables, _resolved = _core.run(
            source,
            kind,
            **where,
            seed=task["seed"],
            overrides=[(path, value) for path, value in task["overrides"]],
        )
    except (ScenarioError, SimulationError) as e:
        return "error", f"{type(e).__name__}: {e}"
    except Exception:
        import traceback

        return "error", traceback.format_exc()
    return "ok", with_entity_tables(summary, tables)


ENTITY_TABLES_KEY = "__entity_tables__"
"""The key under which a run's text carries its per-entity summary tables (parquet, base64) when
its summary does not list its flows and links; `sweep_dir.save_run` writes them beside the run
file and takes the key out."""


def with_entity_tables(summary: str, tables: list[Any]) -> str:
    """The summary text, with the per-entity summary tables added under `ENTITY_TABLES_KEY` if
    it does not list every flow and link (a sweep's metrics then read them)."""
    parsed = json.loads(summary)
    if "flows" in parsed and "links" in parsed:
        return summary
    import base64

    import pyarrow as pa
    import pyarrow.parquet as pq

    from mmtcp.tables import SUMMARY_TABLES, core_tables

    encoded = {}
    for name, table in core_tables(tables).items():
        if name in SUMMARY_TABLES:
            sink = pa.BufferOutputStream()
            pq.write_table(table.to_arrow(), sink)
            encoded[name] = base64.b64encode(sink.getvalue().to_pybytes()).decode("ascii")
    return json.dumps({**parsed, ENTITY_TABLES_KEY: encoded})
