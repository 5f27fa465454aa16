"""Self-contained HTML reports: `mmtcp report DIR` writes `DIR/report.html` for a run folder
(`mmtcp run`), a sweep folder (`mmtcp sweep`) or a reproduction folder (`mmtcp reproduce`), and
`mmtcp run` and `mmtcp reproduce` write it when they finish.

The page holds the tables the terminal shows (a run's flows and links; a sweep's points, as
`mean ± 95 % CI`), a reproduction's claims with their verdicts, the figures (`plots/` of a run,
`figures/` of a reproduction) embedded as data URIs, and the scenario as text. Nothing is loaded
from elsewhere: the file can be copied alone, and opened without a network. Every text from the
folder (names, the scenario, claims) is HTML-escaped.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mmtcp._core import ScenarioError
from mmtcp.claim_tables import HEADLINE_MARK, headline_first
from mmtcp.claim_verdicts import SUMMARIES
from mmtcp.report import cost_line, detailed, run_tables
from mmtcp.reproduce import EXPERIMENT_FILE, Experiment, load_experiment
from mmtcp.sweep_table import estimate_legend, points_rows

REPORT_FILE = "report.html"
FIGURE_TYPES = {".png": "image/png", ".svg": "image/svg+xml"}
RUN_PLOTS = ("goodput_cdf", "goodput", "cwnd", "rtt", "queues", "radio")
"""The order of a run's plots on the page (others follow, by name)."""

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222;
       background: #fff; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; vertical-align: top; }
th { background: #f0f0f0; text-align: left; }
td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.wide { overflow-x: auto; }
pre { background: #f6f6f6; border: 1px solid #ddd; padding: 0.8em; overflow-x: auto;
      font-size: 0.85em; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #555; }
td.claim { min-width: 24em; }
.verdict { font-weight: bold; white-space: nowrap; }
.holds { background: #d7f5d7; color: #0b5d0b; }
.fails { background: #fbd5d5; color: #8c1010; }
.not-testable { background: #eee; color: #555; }
.not-settled { background: #fff3cd; color: #6b5000; }
.holds-under-a-reading { background: #e6f3d0; color: #3d5d0b; }
.warning { background: #fff3cd; border: 1px solid #e0c060; padding: 0.5em; }
.meta { color: #444; }
"""

# Marks the page once loaded: `data-figures="loaded/total"` on <body>, and a visible warning if
# a figure could not be decoded (the browser test reads the attribute).
_SCRIPT = """
window.addEventListener("load", function () {
  var images = Array.prototype.slice.call(document.images);
  var broken = images.filter(function (image) {
    return !(image.complete && image.naturalWidth > 0);
  });
  document.body.setAttribute("data-figures", (images.length - broken.length) + "/" + images.length);
  if (broken.length > 0) {
    var warning = document.getElementById("broken-figures");
    warning.textContent = broken.length + " figure(s) could not be shown.";
    warning.hidden = false;
  }
});
"""


def folder_kind(directory: Path) -> str:
    """`run`, `sweep` or `reproduction`; a `ScenarioError` for anything else."""
    if not directory.is_dir():
        raise ScenarioError(f"{directory}: no such folder")
    if (directory / "summary.json").is_file():
        return "run"
    if (directory / "sweep.json").is_file():
        return "reproduction" if (directory / "claims.json").is_file() else "sweep"
    raise ScenarioError(
        f"{directory}: not a run, sweep or reproduction folder (no summary.json or sweep.json)"
    )


def write_report(directory: str | os.PathLike[str], experiment: Experiment | None = None) -> Path:
    """Writes `directory/report.html` and returns its path. `experiment` (a reproduction's)
    gives the title and claim; without it they are read from the experiment.toml that
    sweep.json names, if it is still there."""
    folder = Path(directory)
    kind = folder_kind(folder)
    try:
        if experiment is None and kind == "reproduction":
            experiment = _experiment_of(folder)
        title, body = _run_page(folder) if kind == "run" else _sweep_page(folder, experiment)
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as e:
        # A summary.json, sweep.json, points.json or claims.json of another shape.
        raise ScenarioError(
            f"{folder}: not a {kind} folder as mmtcp writes it ({type(e).__name__}: {e})"
        ) from None
    path = folder / REPORT_FILE
    try:
        path.write_text(_page(title, body), encoding="utf-8")
    except OSError as e:
        raise ScenarioError(f"{path}: cannot write: {e.strerror}") from None
    return path


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_e(title)}</title>\n<style>{_STYLE}</style>\n</head>\n"
        '<body data-figures="pending">\n'
        '<p id="broken-figures" class="warning" hidden></p>\n'
        f"{body}\n<script>{_SCRIPT}</script>\n</body>\n</html>\n"
    )


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ScenarioError(f"{path}: cannot be read as JSON: {e}") from None


def _run_page(folder: Path) -> tuple[str, str]:
    summary = _read_json(folder / "summary.json")
    tables = run_tables(summary, _summary_tables(folder, summary))
    cost = cost_line(summary)
    scenario = str(summary.get("scenario_file", "?"))
    title = f"mmtcp run: {Path(scenario).name}"
    parts = [
        f"<h1>{_e(title)}</h1>",
        '<p class="meta">'
        f"scenario {_e(scenario)}, seed {_e(summary.get('seed', '?'))}, "
        f"mmtcp {_e(summary.get('mmtcp_version', '?'))}; {_e(cost)}"
        + (f"; stopped by {_e(summary['stopped_by'])}" if "stopped_by" in summary else "")
        + "</p>",
    ]
    for caption, (header, rows) in tables:
        parts += [f"<h2>{_e(caption)}</h2>", _table(header, rows)]
    parts.append("<h2>Plots</h2>")
    parts.append(
        _figures(folder, folder / "plots", RUN_PLOTS, "no plots (mmtcp plot DIR draws them)")
    )
    resolved = folder / "scenario.resolved.toml"
    parts.append("<h2>Scenario (resolved: every default filled in)</h2>")
    if resolved.is_file() or "scenario" in summary:
        parts.append(_text_file(resolved, resolved.name))
    else:
        parts.append(
            "<p>not written for a run of more than metrics.summary_entries flows or links "
            "(<code>mmtcp run --resolved</code> writes it)</p>"
        )
    return title, "\n".join(parts)


def _summary_tables(folder: Path, summary: Mapping[str, Any]) -> dict[str, Any]:
    """The run's flow_summary and link_summary tables, where saved (pyarrow Tables), for a run
    whose tables show distributions and top entities (none needed otherwise: reading parquet
    imports pandas)."""
    if detailed(dict(summary), "flows") and detailed(dict(summary), "links"):
        return {}
    from mmtcp.tables import read_saved

    return read_saved(folder, ("flow_summary", "link_summary"))


def _sweep_page(folder: Path, experiment: Experiment | None) -> tuple[str, str]:
    manifest = _read_json(folder / "sweep.json")
    points_file = folder / "points.json"
    points = _read_json(points_file) if points_file.is_file() else []
    metrics = list(manifest.get("metrics") or [])
    scenario = manifest.get("scenario")
    quick = str(manifest.get("sweep_file") or "").endswith(": quick")
    claims_file = folder / "claims.json"
    parts = []
    if claims_file.is_file():
        name = experiment.name if experiment else folder.name
        title = f"mmtcp reproduce: {name}{' (quick)' if quick else ''}"
        parts.append(f"<h1>{_e(title)}</h1>")
        if experiment is not None:
            parts.append(f"<p><strong>{_e(experiment.title)}</strong></p>")
            if experiment.paper:
                parts.append(f'<p class="meta">paper: {_e(experiment.paper)}</p>')
            parts.append(f"<p>claim: {_e(experiment.claim)}</p>")
            metrics = [m for m in experiment.table_metrics(metrics) if m in metrics]
        parts += ["<h2>Claims</h2>", _claims_table(_read_json(claims_file))]
    else:
        title = f"mmtcp sweep: {Path(str(scenario)).name if scenario else folder.name}"
        parts.append(f"<h1>{_e(title)}</h1>")
    settings = [
        ["scenario", str(scenario or "(a dict)")],
        ["seeds", ", ".join(map(str, manifest.get("seeds", [])))],
        *([f"grid: {k}", ", ".join(map(str, v))] for k, v in manifest.get("grid", {}).items()),
        *([f"set: {k}", str(v)] for k, v in manifest.get("set", {}).items()),
        ["mmtcp", str(manifest.get("mmtcp_version", "?"))],
    ]
    parts += ["<h2>Sweep</h2>", _table(["setting", "value"], settings, align=False)]
    if points:
        header, rows = points_rows(points, metrics)
        parts += [
            "<h2>Points</h2>",
            f'<p class="meta">{_e(estimate_legend(points))}; every metric in points.csv</p>',
            f'<div class="wide">{_table(header, rows)}</div>',
        ]
    else:
        parts += ["<h2>Points</h2>", "<p>no points.json: the sweep has not finished</p>"]
    if (folder / "figures").is_dir():
        parts += ["<h2>Figures</h2>", _figures(folder, folder / "figures", (), "no figures")]
    parts.append("<h2>Scenario</h2>")
    if scenario:
        parts.append(_text_file(Path(scenario), scenario, manifest.get("scenario_sha256")))
    else:
        parts.append("<p>the sweep's scenario was given as a dict, not a file</p>")
    return title, "\n".join(parts)


def _experiment_of(folder: Path) -> Experiment | None:
    """The experiment whose experiment.toml sweep.json names (as `<path>: sweep` or
    `<path>: quick`), if it can still be read."""
    origin = _read_json(folder / "sweep.json").get("sweep_file") or ""
    path = Path(origin.rpartition(": ")[0])
    if path.name != EXPERIMENT_FILE or not path.is_file():
        return None
    try:
        return load_experiment(path)
    except ScenarioError:
        return None


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], align: bool = True) -> str:
    """An HTML table; with `align`, cells after the first that look like numbers are
    right-aligned, as in the terminal."""
    head = "".join(f"<th>{_e(cell)}</th>" for cell in header)
    body = []
    for row in rows:
        cells = [f"<td>{_e(row[0])}</td>"]
        cells += [
            f'<td class="number">{_e(cell)}</td>'
            if align and _numeric(cell)
            else f"<td>{_e(cell)}</td>"
            for cell in row[1:]
        ]
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table>\n<tr>{head}</tr>\n" + "\n".join(body) + "\n</table>"


def _numeric(cell: str) -> bool:
    return cell == "-" or cell.lstrip("+-")[:1].isdigit()


def _claims_table(entries: Sequence[Mapping[str, Any]]) -> str:
    if not entries:
        return "<p>the experiment states no claims</p>"
    header = "".join(
        f"<th>{h}</th>"
        for h in (
            "claim",
            "the paper",
            "expected",
            "ours (95 % CI), paper's setting",
            "verdict",
            "under the readings",
            "summary",
        )
    )
    rows = []
    for entry in headline_first(entries):
        verdict = str(entry.get("verdict", "?"))
        summary = str(entry.get("summary", verdict))
        under = ", ".join(entry.get("holds_under") or [])
        readings = "; ".join(f"{n}: {v}" for n, v in (entry.get("readings") or {}).items())
        note = entry.get("note") or ""
        mark = (HEADLINE_MARK + " " if entry.get("headline") else "") + (
            "(own) " if entry.get("own") else ""
        )
        where = entry.get("where") or ""
        rows.append(
            '<tr><td class="claim">'
            f"<strong>{_e(mark)}{_e(entry.get('id', ''))}</strong><br>{_e(entry.get('claim', ''))}"
            + (f'<br><span class="meta">{_e(where)}: “{_e(entry.get("quote", ""))}”</span>')
            + (f'<br><span class="meta">note: {_e(note)}</span>' if note else "")
            + f"</td><td>{_e(entry.get('paper', ''))}</td>"
            f"<td>{_e(_expected(entry))}</td>"
            f'<td class="number">{_e(entry.get("ours", "-"))}</td>'
            f'<td class="verdict {verdict.replace(" ", "-")}">{_e(verdict)}</td>'
            f"<td>{_e(readings or '-')}</td>"
            f'<td class="verdict {summary.replace(" ", "-")}">{_e(summary)}'
            f"{_e(f' ({under})') if under else ''}</td></tr>"
        )
    counts = {s: sum(e.get("summary", e.get("verdict")) == s for e in entries) for s in SUMMARIES}
    total = (
        f'<p class="meta">{len(entries)} claims: '
        + ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        + f" ({HEADLINE_MARK}: a headline result of the paper; own: mmtcp's claim, not the "
        "paper's; verdicts at the paper's setting, summary over the readings)</p>"
    )
    return f"{total}\n<table>\n<tr>{header}</tr>\n" + "\n".join(rows) + "\n</table>"


def _expected(entry: Mapping[str, Any]) -> str:
    """The claim's test: e.g. `ratio ≤ 0.9`, `value in [10, 20]`, `means decreasing`."""
    if entry.get("kind") is None:
        return "-"
    kind = str(entry.get("measure") or entry.get("kind"))
    prefix = ""
    if entry.get("kind") == "order":
        prefix = f"means {entry.get('direction', 'in order')} along the points, each step's "
    low, high = entry.get("bounds") or [None, None]
    kind = prefix + kind
    if low is not None and high is not None:
        return f"{kind} in [{low:g}, {high:g}]"
    if low is not None:
        return f"{kind} ≥ {low:g}"
    if high is not None:
        return f"{kind} ≤ {high:g}"
    return kind


def _figures(folder: Path, figures_dir: Path, order: Sequence[str], none: str) -> str:
    """Every PNG and SVG of `figures_dir` as <img> with a data URI: first the stems of `order`,
    then the others by name; of a stem in both formats, the newer file."""
    newest: dict[str, Path] = {}
    files = sorted(figures_dir.iterdir()) if figures_dir.is_dir() else []
    for path in files:
        if path.suffix in FIGURE_TYPES and path.is_file():
            kept = newest.get(path.stem)
            if kept is None or path.stat().st_mtime > kept.stat().st_mtime:
                newest[path.stem] = path
    if not newest:
        return f"<p>{_e(none)}</p>"
    stems = [s for s in order if s in newest] + sorted(s for s in newest if s not in order)
    parts = []
    for stem in stems:
        path = newest[stem]
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        shown = path.relative_to(folder).as_posix()
        parts.append(
            f'<figure><img src="data:{FIGURE_TYPES[path.suffix]};base64,{data}" '
            f'alt="{_e(shown)}"><figcaption>{_e(shown)}</figcaption></figure>'
        )
    return "\n".join(parts)


def _text_file(path: Path, shown: str, sha256: str | None = None) -> str:
    """The file in a <pre>, titled `shown`; a note if its hash is no longer `sha256`."""
    try:
        data = path.read_bytes()
    except OSError as e:
        return f"<p>{_e(shown)}: cannot be read ({_e(e.strerror)})</p>"
    note = ""
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        note = '<p class="warning">this file has changed since the sweep ran</p>\n'
    text = data.decode("utf-8", errors="replace")
    return f'{note}<p class="meta">{_e(shown)}</p>\n<pre>{_e(text)}</pre>'
