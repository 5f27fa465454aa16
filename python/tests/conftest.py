"""Test configuration: the hypothesis profiles and the `cli` fixture.

Hypothesis runs the fast "ci" profile unless MMTCP_HYPOTHESIS_PROFILE=thorough asks for more.
Tests marked `core` run scenarios and so need the simulation core; `-m "not core"` leaves them out.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, deadline=None)
settings.register_profile(
    "thorough", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("MMTCP_HYPOTHESIS_PROFILE", "ci"))

CliRunner = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli() -> CliRunner:
    """Runs `python -m mmtcp ARGS...` and returns the completed process (text output)."""

    def run(
        *args: object, cwd: Path | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != "MMTCP_DEBUG"}
        return subprocess.run(
            [sys.executable, "-m", "mmtcp", *map(str, args)],
            capture_output=True,
            text=True,
            cwd=cwd,
            env=env,
            timeout=timeout,
            check=False,
        )

    return run
