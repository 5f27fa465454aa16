"""A progress bar on stderr for long runs, used as `mmtcp.run(..., progress=ProgressBar())`.

It stays silent for the first `delay` wall-seconds, so short runs print nothing (and tqdm, which
draws it, is not even imported), then redraws one line in place: simulated time out of the stop
time, percentage, and event rate. `clear()` erases it when the run ends. The CLI uses it only
when stderr is a terminal.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO


class ProgressBar:
    """Draws ` 42%|######    | 4.20/10.00 s simulated, 12.3 M events/s` on one line."""

    def __init__(self, stream: TextIO = sys.stderr, *, delay: float = 2.0, width: int = 30):
        self.stream = stream
        self.delay = delay
        self.width = width
        self.bar: Any = None

    def __call__(self, sim_seconds: float, stop_seconds: float, events: int, wall: float) -> None:
        if wall < self.delay:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(
                total=max(stop_seconds, 0.0),
                file=self.stream,
                leave=False,  # close() erases it
                bar_format="{percentage:3.0f}%|{bar:" + str(self.width) + "}| "
                "{n:.2f}/{total:.2f} s simulated{postfix}",
            )
        self.bar.n = min(sim_seconds, stop_seconds) if stop_seconds > 0 else 0.0
        self.bar.set_postfix_str(f"{events / wall / 1e6:.1f} M events/s", refresh=False)
        self.bar.refresh()

    def clear(self) -> None:
        """Erases the bar, if it was drawn."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None
