"""The wheel gives a working `mmtcp` outside the checkout, its experiments and scenarios with it.

The test builds the wheel as a user would (`maturin build --release`), with the repository's
`target/` as cargo's target directory (or CARGO_TARGET_DIR if set), so the Rust build is the
incremental one `make setup` left there. It installs the wheel without its dependencies into a
new virtualenv in a temporary folder outside the checkout, and makes numpy, pandas and the rest
visible there through a `.pth` file naming the site-packages of the interpreter running the tests
(plain paths: that interpreter's own `.pth` files, such as the editable install's link to
python/, are not read). Installing the dependencies again from the package index would take a
minute and the network for nothing this test checks. The new virtualenv's site-packages come
first, so `import mmtcp` there is the wheel's, which the test checks before anything else.

From a folder that is neither the checkout nor the virtualenv it then runs the installed
command: `mmtcp reproduce --list`, `mmtcp scenarios`, `mmtcp bench` (its default folder, without
the scaling scenarios), `mmtcp run` of a shipped scenario and of a shipped experiment's scenario
that reads a trace by a relative path, `mmtcp reproduce example-chain --quick` (the experiment's
plot.py from the installed copy), and the README's `mmtcp scenarios --copy` then `mmtcp run` of
the copy; it also compares the files shipped with those of the repository's experiments/ and
scenarios/. Without the data in the wheel each of these fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from helpers import REPO

pytestmark = [pytest.mark.core, pytest.mark.wheel]


def _data_files(root: Path) -> set[str]:
    return {
        str(path.relative_to(root))
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def _build_wheel(out: Path) -> Path:
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_DIR", str(REPO / "target"))
    maturin = [sys.executable, "-m", "maturin"]
    proc = subprocess.run(
        [*maturin, "build", "--release", "--interpreter", sys.executable, "--out", str(out)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    (wheel,) = out.glob("mmtcp-*.whl")
    return wheel


def _venv_with(wheel: Path, venv: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site_packages,) = venv.glob("lib/python*/site-packages")
    ours = dict.fromkeys([sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])
    (site_packages / "mmtcp-test-dependencies.pth").write_text(
        "".join(f"{path}\n" for path in ours), encoding="utf-8"
    )
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
    subprocess.run(
        [*pip, "install", "--quiet", "--no-deps", "--no-index", str(wheel)],
        check=True,
        timeout=300,
    )


def test_the_installed_wheel_runs_shipped_scenarios_and_experiments(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    _venv_with(_build_wheel(tmp_path / "wheel"), venv)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MMTCP_DEBUG")}

    def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [str(a) for a in args],
            cwd=elsewhere,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        return proc

    where = run(venv / "bin" / "python", "-c", "import mmtcp.shipped as s; print(s.DATA)")
    data = Path(where.stdout.strip())
    assert data.is_relative_to(venv), data
    assert _data_files(data / "experiments") == _data_files(REPO / "experiments")
    assert _data_files(data / "scenarios") == _data_files(REPO / "scenarios")

    mmtcp = venv / "bin" / "mmtcp"
    listing = run(mmtcp, "reproduce", "--list").stdout
    for name in ("example-chain", "kim2017-fig5", "kim2017-fig6", "wu-cotag-fig16"):
        assert f"\n{name} " in listing, listing
    assert str(data / "experiments") in listing

    scenarios = [Path(line) for line in run(mmtcp, "scenarios").stdout.splitlines()]
    assert data / "scenarios" / "demo.toml" in scenarios
    assert data / "scenarios" / "bench" / "cotag-128b.toml" in scenarios
    bench = run(mmtcp, "bench", "--no-scaling", "--engine-events", "1000").stdout
    for scenario in sorted((REPO / "scenarios" / "bench").glob("*.toml")):
        assert f"\n{scenario.stem} " in bench, bench

    # demo.toml shortened; fig10-12's scenario (2.1 s) reads ../../../scenarios/traces/*.csv.
    trace_reader = data / "experiments" / "wu-cotag" / "fig10-12" / "scenario.toml"
    demo = [data / "scenarios" / "demo.toml", "--set", "simulation.duration=2s"]
    for name, scenario in (("demo", demo), ("fig10-12", [trace_reader])):
        out = elsewhere / "out" / name
        run(mmtcp, "run", *scenario, "--no-plots", "--quiet", "--out", out)
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        assert all(flow["goodput_bps"] > 0 for flow in summary["flows"]), name

    run(mmtcp, "reproduce", "example-chain", "--quick", "--quiet", "--workers", "1")
    figures = elsewhere / "out" / "reproduce" / "example-chain-quick" / "figures"
    assert list(figures.glob("*.png")), "plot.py drew nothing"

    # The verdicts each shipped experiment keeps, summarised per paper from the installed copy.
    papers = run(mmtcp, "claims").stdout
    assert "Headline claims per paper" in papers
    assert "no recorded full run" not in papers, papers

    # The README's way to scenarios of one's own: a copy, run with its plots.
    run(mmtcp, "scenarios", "--copy", "my-scenarios")
    short = ["--set", "simulation.duration=2s"]
    run(mmtcp, "run", "my-scenarios/demo.toml", "--out", "out/copy", "--quiet", *short)
    assert (elsewhere / "out" / "copy" / "plots" / "goodput.png").is_file()
