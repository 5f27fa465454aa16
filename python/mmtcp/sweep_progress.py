"""A sweep's progress line on stderr: runs done out of the total, failures, elapsed time and
ETA."""

from __future__ import annotations

import time
from typing import TextIO


class SweepProgress:
    """`sweep: 14/36 runs, 1 failed, 4.2s elapsed, ETA 6.1s` on stderr: redrawn in place on a
    terminal, a plain line every few seconds otherwise."""

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
        self.drawn = False

    def start(self, points: int, seeds: int, to_run: int, workers: int) -> None:
        resumed = f", {self.skipped} already done" if self.skipped else ""
        plural = "s" if workers != 1 else ""
        plan = f"{to_run} to run on {workers} worker{plural}" if to_run else "nothing to run"
        self._print(
            f"sweep: {_plural(points, 'point')} x {_plural(seeds, 'seed')} = "
            f"{_plural(self.total, 'run')}{resumed}; {plan}"
        )

    def update(self, ok: bool) -> None:
        self.done += 1
        self.failed += not ok
        now = time.monotonic()
        if self.tty:
            self._draw(now)
        elif self.done == self.total or now - self.last_line >= self._PLAIN_INTERVAL:
            self._print(self._line(now))
            self.last_line = now

    def tick(self) -> None:
        """Redraws the line on a terminal (elapsed time and ETA move on between runs)."""
        now = time.monotonic()
        if self.tty and now - self.last_line >= 1.0:
            self._draw(now)

    def _draw(self, now: float) -> None:
        self.stream.write("\r\x1b[K" + self._line(now))
        self.stream.flush()
        self.drawn = True
        self.last_line = now

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False

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
