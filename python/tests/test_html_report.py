"""`mmtcp report`: the self-contained report.html of a run, a sweep and a reproduction folder,
its errors, and the page as headless Chromium renders it (skipped, with the reason, when
/usr/bin/chromium is missing). None of these needs the simulation core."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import assert_bad_input, fake_summary, fake_timeseries

from mmtcp import Result
from mmtcp.html_report import write_report

CHROMIUM = Path("/usr/bin/chromium")
PLOTS = ["goodput", "cwnd", "rtt", "queues"]
HOSTILE = '<b>&"x"'
"""A flow name that breaks the page unless escaped."""
RESOLVED = '[simulation]\nduration = "2s"\n# </pre><script>alert(1)</script>\n'


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run folder as `mmtcp run` writes it (fake results), with its report.html."""
    folder = tmp_path_factory.mktemp("run")
    summary = fake_summary()
    summary["flows"][1]["name"] = HOSTILE
    summary["flows"][0]["goodput_bps"] = 12.34e6
    result = Result(summary, fake_timeseries(summary), RESOLVED)
    result.save(folder)
    result.plot(folder)
    write_report(folder)
    return folder


def _sources(page: str) -> list[str]:
    return re.findall(r"""(?:src|href)\s*=\s*["']?([^"'\s>]*)""", page, flags=re.IGNORECASE)


def test_a_run_report_has_the_tables_the_scenario_and_the_plots(run_dir):
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr>(.*?)</tr>", page)
    bulk = next(row for row in rows if row.startswith("<td>bulk</td>"))
    cells = re.findall(r"<td[^>]*>(.*?)</td>", bulk)
    assert cells[:6] == ["bulk", "12.3", "10.4", "35", "1", "24.0"]
    assert any(row.startswith("<td>radio</td><td>radio</td>") for row in rows)
    # User text is escaped: the hostile name and the scenario's comment stay text.
    assert "<td>&lt;b&gt;&amp;&quot;x&quot;</td>" in page
    assert HOSTILE not in page
    assert "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert" not in page
    assert page.count("<script>") == 1  # the page's own
    # The four plots, in order, each the file's bytes as a data URI.
    sources = _sources(page)
    assert len(sources) == len(PLOTS)
    for source, name in zip(sources, PLOTS, strict=True):
        prefix = "data:image/png;base64,"
        assert source.startswith(prefix)
        data = base64.b64decode(source[len(prefix) :])
        assert data == (run_dir / "plots" / f"{name}.png").read_bytes()
    assert "url(" not in page
    assert "@import" not in page


def test_svg_plots_are_embedded_and_the_newer_format_wins(tmp_path, run_dir):
    shutil.copytree(run_dir, tmp_path, dirs_exist_ok=True)
    result = Result(*_load(tmp_path))
    result.plot(tmp_path, "svg")  # newer than the PNGs
    page = write_report(tmp_path).read_text(encoding="utf-8")
    sources = _sources(page)
    assert len(sources) == len(PLOTS)
    assert all(s.startswith("data:image/svg+xml;base64,") for s in sources)
    svg = base64.b64decode(sources[0].split(",", 1)[1]).decode()
    assert svg == (tmp_path / "plots" / "goodput.svg").read_text()


def _load(folder: Path) -> tuple[dict, object, str]:
    import pandas as pd

    summary = json.loads((folder / "summary.json").read_text())
    timeseries = pd.read_parquet(folder / "timeseries.parquet")
    return summary, timeseries, (folder / "scenario.resolved.toml").read_text()


def test_report_cli_writes_the_file_and_prints_its_path(cli, tmp_path, run_dir):
    shutil.copytree(run_dir, tmp_path, dirs_exist_ok=True)
    (tmp_path / "report.html").unlink()
    proc = cli("report", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(tmp_path / "report.html")
    assert (tmp_path / "report.html").read_text() == (run_dir / "report.html").read_text()


def _sweep_dir(folder: Path, claims: list[dict] | None) -> Path:
    """A sweep folder (a reproduction's when `claims` is given), with one figure."""
    scenario = folder / "scenario.toml"
    scenario.write_text('[simulation]\nduration = "1s"  # a <tag>\n')
    stats = {"n": 3, "mean": 41.5e6, "std": 1e6, "ci95": 2.5e6, "min": 40e6, "max": 42e6}
    manifest = {
        "mmtcp_version": "0.1.0",
        "sweep_file": None,
        "scenario": str(scenario),
        "scenario_sha256": "0" * 64,
        "seeds": [1, 2, 3],
        "grid": {"link.wire.delay": ["10ms", "<20ms>"]},
        "set": {},
        "metrics": ["flows.bulk.goodput_bps"],
    }
    points = [
        {
            "id": f"p00{i}",
            "overrides": {"link.wire.delay": delay},
            "runs": 3,
            "failed": i,
            "metrics": {"flows.bulk.goodput_bps": stats},
        }
        for i, delay in enumerate(["10ms", "<20ms>"])
    ]
    (folder / "sweep.json").write_text(json.dumps(manifest))
    (folder / "points.json").write_text(json.dumps(points))
    if claims is not None:
        (folder / "claims.json").write_text(json.dumps(claims))
        (folder / "figures").mkdir()
        figure = Result(fake_summary(), fake_timeseries(fake_summary()), "").plot(folder)[0]
        figure.rename(folder / "figures" / "fig.png")
    return folder


CLAIMS = [
    {
        "id": "short",
        "claim": "small buffers <hurt>",
        "quote": "a small buffer hurts",
        "where": "Fig. 2",
        "paper": "qualitative",
        "headline": False,
        "kind": "less",
        "measure": "ratio",
        "bounds": [None, 0.9],
        "ours": "0.403x [0.281, 0.525] (n=3)",
        "verdict": "holds",
        "note": "",
        "readings": {},
        "summary": "holds",
        "holds_under": [],
    },
    {
        "id": "no-gain",
        "claim": "no gain",
        "quote": "no gain beyond",
        "where": "§4",
        "paper": "1.0",
        "headline": True,
        "kind": "ratio",
        "measure": "ratio",
        "bounds": [0.95, 1.05],
        "ours": "1.3x [1.2, 1.4] (n=3)",
        "verdict": "fails",
        "note": "",
        "readings": {"deep": "not settled", "walls-30dB": "holds"},
        "summary": "holds under a reading",
        "holds_under": ["walls-30dB"],
    },
    {
        "id": "delay",
        "claim": "only delay",
        "quote": "only delay",
        "where": "Fig. 3",
        "paper": "qualitative",
        "headline": False,
        "kind": "order",
        "measure": "ratio",
        "direction": "increasing",
        "bounds": [None, 0.952],
        "ours": "-",
        "verdict": "not testable",
        "note": "at: no such point in this sweep",
        "readings": {},
        "summary": "not testable",
        "holds_under": [],
    },
]


def test_a_reproduction_report_has_the_claims_with_their_verdicts(tmp_path):
    folder = _sweep_dir(tmp_path, CLAIMS)
    page = write_report(folder).read_text(encoding="utf-8")
    verdicts = re.findall(r'<td class="verdict ([a-z-]+)">([^<]*)</td>', page)
    # Headline first; per claim the verdict at the paper's setting, then the summary.
    assert verdicts == [
        ("fails", "fails"),
        ("holds-under-a-reading", "holds under a reading (walls-30dB)"),
        ("holds", "holds"),
        ("holds", "holds"),
        ("not-testable", "not testable"),
        ("not-testable", "not testable"),
    ]
    for style in (".holds {", ".fails {", ".not-settled {", ".holds-under-a-reading {"):
        assert style in page
    assert "3 claims: 1 holds, 1 holds under a reading, 1 not testable" in page
    assert "<td>deep: not settled; walls-30dB: holds</td>" in page
    assert "<strong>★ no-gain</strong>" in page
    for expected in (
        "ratio ≤ 0.9",
        "ratio in [0.95, 1.05]",
        "means increasing along the points, each step&#x27;s ratio ≤ 0.952",
    ):
        assert f"<td>{expected}</td>" in page
    assert "small buffers &lt;hurt&gt;" in page
    assert "Fig. 2: “a small buffer hurts”" in page
    assert "note: at: no such point in this sweep" in page
    assert "<h2>Figures</h2>" in page
    assert _sources(page)[0].startswith("data:image/png;base64,")
    assert "figures/fig.png" in page


def test_a_sweep_report_has_the_points_and_the_scenario(tmp_path):
    folder = _sweep_dir(tmp_path, None)
    page = write_report(folder).read_text(encoding="utf-8")
    assert "<h2>Claims</h2>" not in page
    assert "mmtcp sweep: scenario.toml" in page
    rows = re.findall(r"<tr>(.*?)</tr>", page)
    assert "<td>&lt;20ms&gt;</td>" in rows[-1]
    assert '<td class="number">3 (1 failed)</td>' in rows[-1]
    assert '<td class="number">41.5M ± 2.5M</td>' in rows[-1]
    assert "# a &lt;tag&gt;" in page
    assert "this file has changed since the sweep ran" in page
    assert _sources(page) == []


def test_bad_folders_are_one_line_errors(cli, tmp_path):
    assert_bad_input(cli("report", tmp_path / "missing"), "missing", "no such folder")
    assert_bad_input(cli("report", tmp_path), str(tmp_path), "not a run, sweep or reproduction")
    (tmp_path / "file").write_text("x")
    assert_bad_input(cli("report", tmp_path / "file"), "no such folder")
    (tmp_path / "summary.json").write_text("{not json")
    assert_bad_input(cli("report", tmp_path), "summary.json", "cannot be read as JSON")
    (tmp_path / "summary.json").write_text('{"flows": 3}')
    assert_bad_input(cli("report", tmp_path), "not a run folder as mmtcp writes it")
    (tmp_path / "summary.json").unlink()
    (tmp_path / "sweep.json").write_text('{"grid": []}')
    assert_bad_input(cli("report", tmp_path), "not a sweep folder as mmtcp writes it")
    assert not (tmp_path / "report.html").exists()


def _chromium(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    if not CHROMIUM.exists():
        pytest.skip(
            f"{CHROMIUM} not found: report.html is not checked in a browser "
            "(apt-get install chromium)"
        )
    return subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--window-size=1200,2000",
            *args,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _figures_loaded(page: Path, profile: Path) -> str:
    proc = _chromium(page, profile, "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = re.search(r'<body[^>]*data-figures="([^"]*)"', proc.stdout)
    assert found, proc.stdout[:2000]
    return found.group(1)


def test_the_report_renders_in_a_browser_with_its_figures(tmp_path, run_dir):
    from PIL import Image

    page = run_dir / "report.html"
    assert _figures_loaded(page, tmp_path / "profile") == f"{len(PLOTS)}/{len(PLOTS)}"
    screenshot = tmp_path / "page.png"
    proc = _chromium(page, tmp_path / "profile", f"--screenshot={screenshot}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    image = Image.open(screenshot).convert("RGB")
    assert image.size == (1200, 2000)
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None
    assert len(colours) > 200  # text, table borders and plot lines, anti-aliased
    background = max(colours)[0]
    assert background < 0.9 * image.width * image.height  # not a blank page
    # The figures' colours are on the page: matplotlib's default blue (tab:blue) and orange.
    present = {colour for _, colour in colours}
    assert (31, 119, 180) in present
    assert (255, 127, 14) in present


def test_the_browser_check_sees_a_broken_figure(tmp_path, run_dir):
    """The check of the previous test is not vacuous: a figure that cannot be decoded is
    counted as not loaded, and the page says so."""
    page = tmp_path / "report.html"
    text = (run_dir / "report.html").read_text(encoding="utf-8")
    page.write_text(text.replace("data:image/png;base64,iVBOR", "data:image/png;base64,AAAA", 1))
    assert _figures_loaded(page, tmp_path / "profile") == f"{len(PLOTS) - 1}/{len(PLOTS)}"
