"""A progress bar on stderr for long runs, used as `mmtcp.run(..., progress=ProgressBar())`.

It stays silent for the first `delay` wall-seconds, so short runs print nothing, then redraws
one line in place: simulated time out of the stop time, percentage, and event rate. `clear()`
erases it when the run ends. The CLI uses it only when stderr is a terminal.
"""

from __future__ import annotations

import shutil
import sys
from typing import TextIO

_CLEAR_LINE = "\r\x1b[K"


class ProgressBar:
    """Draws `[#####-----] 4.20/10.00 s simulated  42%  12.3 M events/s` on one line."""

    def __init__(self, stream: TextIO = sys.stderr, *, delay: float = 2.0, width: int = 30):
        self.stream = stream
        self.delay = delay
        self.width = width
        self.shown = False

    def __call__(self, sim_seconds: float, stop_seconds: float, events: int, wall: float) -> None:
        if wall < self.delay:
            return
        fraction = min(sim_seconds / stop_seconds, 1.0) if stop_seconds > 0 else 1.0
        filled = round(fraction * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        rate = events / wall / 1e6
        line = (
            f"[{bar}] {sim_seconds:.2f}/{stop_seconds:.2f} s simulated "
            f"{fraction:4.0%}  {rate:.1f} M events/s"
        )
        columns = shutil.get_terminal_size().columns
        self.stream.write(_CLEAR_LINE + line[: columns - 1])
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        """Erases the bar, if it was drawn."""
        if self.shown:
            self.stream.write(_CLEAR_LINE)
            self.stream.flush()
            self.shown = False
