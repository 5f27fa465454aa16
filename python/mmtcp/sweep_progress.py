"""A sweep's progress on stderr: runs done out of the total, failures, elapsed time and ETA.

On a terminal it is a tqdm bar redrawn in place (tqdm is imported then only); anywhere else (a
log file, CI, captured output) plain lines, one every few seconds and one at the end, with no
carriage returns or escape codes.
"""

from __future__ import annotations

import time
from typing import Any, TextIO


class SweepProgress:
    """`sweep: 14/36 runs, 1 failed, 4.2s elapsed, ETA 6.1s` on stderr: a tqdm bar with the same
    numbers on a terminal (`sweep: 39%|####      | 14/36 runs, 1 failed [00:04<00:06]`), a plain
    line every few seconds otherwise."""

    _PLAIN_INTERVAL = 5.0

    def __init__(self, stream: TextIO, total: int, skipped: int):
        self.stream = stream
        self.total = total
        self.skipped = skipped
        self.done = skipped
        self.failed = 0
        self.started = time.monotonic()
        self.last_line = 0.0
        self.tty = stream.isatty()
        self.bar: Any = None

    def start(self, points: int, seeds: int, to_run: int, where: str) -> None:
        """Prints the plan: `where` says what the runs go to (`2 workers`)."""
        resumed = f", {self.skipped} already done" if self.skipped else ""
        plan = f"{to_run} to run on {where}" if to_run else "nothing to run"
        self._print(
            f"sweep: {_plural(points, 'point')} x {_plural(seeds, 'seed')} = "
            f"{_plural(self.total, 'run')}{resumed}; {plan}"
        )
        if self.tty and to_run:
            from tqdm import tqdm

            self.bar = tqdm(
                total=self.total,
                initial=self.skipped,  # the ETA counts the runs of this sweep only
                desc="sweep",
                unit="run",
                file=self.stream,
                dynamic_ncols=True,
                bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} runs{postfix} "
                "[{elapsed}<{remaining}]",
            )

    def update(self, ok: bool) -> None:
        self.done += 1
        self.failed += not ok
        if self.bar is not None:
            if not ok:
                self.bar.set_postfix_str(f"{self.failed} failed", refresh=False)
            self.bar.update(1)
            return
        now = time.monotonic()
        if self.done == self.total or now - self.last_line >= self._PLAIN_INTERVAL:
            self._print(self._line(now))
            self.last_line = now

    def tick(self) -> None:
        """Redraws the bar on a terminal (elapsed time and ETA move on between runs)."""
        if self.bar is not None:
            self.bar.refresh()

    def close(self) -> None:
        """Ends the bar (left on the screen with its last numbers)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def _line(self, now: float) -> str:
        elapsed = now - self.started
        executed = self.done - self.skipped
        remaining = self.total - self.done
        eta = f", ETA {_duration(elapsed / executed * remaining)}" if executed and remaining else ""
        failed = f", {self.failed} failed" if self.failed else ""
        return f"sweep: {self.done}/{self.total} runs{failed}, {_duration(elapsed)} elapsed{eta}"

    def _print(self, line: str) -> None:
        print(line, file=self.stream, flush=True)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _duration(seconds: float) -> str:
    """`4.2s`, `3m05s` or `2h07m`."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"
