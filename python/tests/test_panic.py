"""A Rust panic surfaces as `mmtcp.SimulationError` and never takes the interpreter down."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from helpers import SCENARIOS

import mmtcp
from mmtcp import _core


def test_panic_becomes_simulation_error():
    with pytest.raises(mmtcp.SimulationError, match="boom at the core"):
        _core._panic_for_tests("boom at the core")


def test_interpreter_survives_panics():
    # In a child process, so that an abort would show as its exit status, not kill pytest.
    script = textwrap.dedent(
        """
        import mmtcp
        from mmtcp import _core
        for attempt in range(3):
            try:
                _core._panic_for_tests(f"panic {attempt}")
            except mmtcp.SimulationError as e:
                assert f"panic {attempt}" in str(e), e
        print("survived")
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "survived"


@pytest.mark.core
def test_runs_work_after_a_panic():
    with pytest.raises(mmtcp.SimulationError):
        _core._panic_for_tests("first")
    result = mmtcp.run(SCENARIOS / "small.toml")
    assert result.summary["sim_seconds"] == pytest.approx(2.0)
