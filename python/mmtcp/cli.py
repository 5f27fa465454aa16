"""The `mmtcp` command line.

    mmtcp run SCENARIO [--seed N] [--set PATH=VALUE]... [--out DIR] [--no-plots]
              [--plot-format {png,svg}] [--no-report] [--quiet]
    mmtcp validate SCENARIO [--set PATH=VALUE]... [--print]
    mmtcp plot DIR [--plot-format {png,svg}]
    mmtcp report DIR
    mmtcp scenarios [--copy DIR]
    mmtcp bench [--dir DIR] [--no-scaling] [--engine-events N]
    mmtcp sweep SCENARIO --seeds SPEC [--grid PATH=V1,V2,...]... [--set PATH=VALUE]...
                [--metric NAME]... [--workers N] [--dask ADDRESS] [--out DIR] [--force] [--quiet]
    mmtcp sweep SWEEP.toml [same options: they add to or replace the sweep file's]
    mmtcp reproduce --list [--dir DIR]
    mmtcp reproduce NAME [--quick] [--workers N] [--dask ADDRESS] [--out DIR] [--force] [--dir DIR]
                    [--no-report] [--record] [--quiet]
    mmtcp claims [NAME] [--markdown] [--from DIR] [--dir DIR] [--write]
    mmtcp ieee80211ad-trace {a,b} [--set KEY=VALUE]... [--out FILE]
    mmtcp ieee80211ad-dual-trace --out-prefix PREFIX [--set KEY=VALUE]...
    mmtcp fit-markov TRACE1 TRACE2 [--step TIME] [--format {csv,mahimahi}]
                     [--split {median,two-means}] [--transitions {pq,matrix}] [--group NAME]
                     [--out FILE]
    mmtcp --version

`run` writes `summary.json`, `timeseries.parquet`, `scenario.resolved.toml`, `plots/*.png` (or
`.svg`) and `report.html` into DIR (default `out/<scenario stem>`) and prints a summary table.
`sweep` runs a scenario over a grid of overrides x seeds on a process pool (or a Dask cluster:
--dask) into DIR (default `out/sweep-<stem>`; see docs/sweeps.md); `reproduce` runs an experiment
shipped with mmtcp (or one of --dir), checks its claims (claims.json), draws its figures and
writes report.html (`--record` keeps a full run's claims.json in the experiment's folder and
regenerates its README's claims table); `claims` prints, from the claims.json each experiment
keeps, the headline claims per paper and the claims per experiment, or one experiment's claims
(NAME), as text or Markdown (`--write` regenerates the READMEs' tables); `report` writes the
self-contained `DIR/report.html` of a run, sweep or reproduction folder (docs/reports.md);
`scenarios` prints the paths of the shipped scenarios, or copies them (with their traces) into
the new folder DIR; `bench` runs the shipped benchmark scenarios (or those of --dir);
`ieee80211ad-trace` writes Drago et al.'s synthetic 802.11ad beam-pair trace (CSV) to FILE or
stdout;
`ieee80211ad-dual-trace` writes the stand-in for Wu et al.'s measured 802.11ad links, the rate
traces PREFIX-ap1.csv and PREFIX-ap2.csv of a user walking between two access points;
`fit-markov` fits COTAG's two-link Markov model to two rate traces (docs/models/markov-pair.md)
and writes the pair's channel tables as TOML, its report as comments, to FILE or stdout.

Exit status: 0 on success; 2 on bad input (the scenario, a trace file, an override or the command
line), reported as one line on stderr that names the file and the field; 1 on anything else,
reported as `mmtcp: internal error: ...` (with the traceback when MMTCP_DEBUG=1), and when runs of
a sweep failed; 130 on Ctrl-C; 143 when a sweep is stopped by SIGTERM.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tomllib
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from mmtcp import __version__
from mmtcp._core import ScenarioError, SimulationError
from mmtcp.api import (
    PLOT_FORMATS,
    SEED_LIMIT,
    ieee80211ad_dual_trace,
    ieee80211ad_trace,
    run,
    split_override,
    validate,
)
from mmtcp.bench import DEFAULT_ENGINE_EVENTS, run_suite
from mmtcp.claim_tables import claims_table
from mmtcp.claims_command import run_claims_command
from mmtcp.html_report import write_report
from mmtcp.metrics import check_metrics
from mmtcp.progress import ProgressBar
from mmtcp.report import run_report
from mmtcp.reproduce import experiment_roots, find_experiments, reproduce
from mmtcp.shipped import BENCH_SCENARIOS, copy_scenarios, scenario_files
from mmtcp.sweep import SweepInterrupted, SweepResult, run_spec
from mmtcp.sweep_spec import make_spec, parse_grid_option, parse_seeds
from mmtcp.sweep_table import estimate_legend, points_table

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_TERMINATED = 143  # 128 + SIGTERM

RESULT_FILES = ("summary.json",)


class _Parser(argparse.ArgumentParser):
    """Reports a usage error as one line instead of the usage block plus the error."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _seed(text: str) -> int:
    if not (text.isascii() and text.isdigit() and int(text) < SEED_LIMIT):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a seed; expected 0 to 2^63-1 (a TOML integer)"
        )
    return int(text)


def _count(text: str) -> int:
    digits = text.replace("_", "")
    if not (digits.isascii() and digits.isdigit() and int(digits) > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return int(digits)


def _override(text: str) -> str:
    try:
        split_override(text)
    except ScenarioError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _grid(text: str) -> tuple[str, list[str]]:
    try:
        return parse_grid_option(text)
    except ScenarioError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _seeds(text: str) -> list[int]:
    try:
        return parse_seeds(text, None)
    except ScenarioError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _add_set_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        type=_override,
        metavar="PATH=VALUE",
        help="override a scenario key, e.g. --set link.1.delay=20ms (repeatable)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mmtcp",
        description="Packet-level simulator of TCP over millimetre-wave links.",
    )
    parser.add_argument("--version", action="version", version=f"mmtcp {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = commands.add_parser("run", help="run a scenario and write its results and plots")
    p.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML)")
    p.add_argument("--seed", type=_seed, metavar="N", help="replace simulation.seed")
    _add_set_option(p)
    p.add_argument("--out", metavar="DIR", help="output directory (default out/<scenario stem>)")
    p.add_argument("--no-plots", action="store_true", help="do not draw plots/*")
    _add_plot_format_option(p)
    p.add_argument("--no-report", action="store_true", help="do not write report.html")
    p.add_argument(
        "--resolved",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="write scenario.resolved.toml (default: only for a run with at most "
        "metrics.summary_entries flows and links)",
    )
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(handler=_cmd_run)

    p = commands.add_parser("validate", help="check a scenario without running it")
    p.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML)")
    _add_set_option(p)
    p.add_argument(
        "--print",
        dest="print_resolved",
        action="store_true",
        help="print the resolved scenario (every default filled in) instead of 'ok'",
    )
    p.set_defaults(handler=_cmd_validate)

    p = commands.add_parser("plot", help="(re)draw the plots of a result directory")
    p.add_argument("result_dir", metavar="DIR", help="a directory written by 'mmtcp run'")
    _add_plot_format_option(p)
    p.set_defaults(handler=_cmd_plot)

    p = commands.add_parser(
        "report", help="write the self-contained report.html of a run, sweep or reproduction"
    )
    p.add_argument(
        "folder",
        metavar="DIR",
        help="a folder written by 'mmtcp run', 'mmtcp sweep' or 'mmtcp reproduce'",
    )
    p.set_defaults(handler=_cmd_report)

    p = commands.add_parser(
        "ieee80211ad-trace",
        help="write Drago et al.'s synthetic 802.11ad beam-pair trace as CSV",
    )
    p.add_argument("trace_scenario", choices=["a", "b"], help="a: trolley; b: human-like blocker")
    _add_trace_keys_option(p, "a key of the synthetic source, e.g. --set speed=0.2")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    p.set_defaults(handler=_cmd_ieee80211ad_trace)

    p = commands.add_parser(
        "ieee80211ad-dual-trace",
        help="write two 802.11ad rate traces of a user walking between two access points "
        "(the stand-in for Wu et al.'s measured links)",
    )
    p.add_argument(
        "--out-prefix",
        required=True,
        metavar="PREFIX",
        help="write PREFIX-ap1.csv and PREFIX-ap2.csv",
    )
    _add_trace_keys_option(p, "a key of the generator, e.g. --set duration=60s")
    p.set_defaults(handler=_cmd_ieee80211ad_dual_trace)

    p = commands.add_parser(
        "fit-markov",
        help="fit COTAG's two-link Markov model to two rate traces, as a markov_pair channel",
    )
    p.add_argument("trace1", metavar="TRACE1", help="link 1's rate trace (csv or mahimahi)")
    p.add_argument("trace2", metavar="TRACE2", help="link 2's rate trace, over the same time")
    p.add_argument(
        "--step", default="100ms", metavar="TIME", help="the model's step (default 100ms)"
    )
    p.add_argument(
        "--format",
        choices=["csv", "mahimahi"],
        help="the traces' format (default: from each file name, as a trace channel reads it)",
    )
    p.add_argument(
        "--split",
        choices=["median", "two-means"],
        default="median",
        help="the High/Low boundary of each link: its median (Wu et al. §5.2.3, default) or the "
        "rate that makes the two levels tightest (ours)",
    )
    p.add_argument(
        "--transitions",
        choices=["pq", "matrix"],
        default="pq",
        help="write the paper's p and q (default), or the counted 4x4 matrix",
    )
    p.add_argument(
        "--group", default="cotag", metavar="NAME", help="the pair's group (default cotag)"
    )
    p.add_argument("--out", metavar="FILE", help="write the TOML to FILE and print the report")
    p.set_defaults(handler=_cmd_fit_markov)

    p = commands.add_parser(
        "scenarios", help="print the paths of the shipped scenarios, or copy them to a folder"
    )
    p.add_argument(
        "--copy",
        type=Path,
        metavar="DIR",
        help="copy the shipped scenarios, their traces and bench/ into DIR (a new folder)",
    )
    p.set_defaults(handler=_cmd_scenarios)

    p = commands.add_parser("bench", help="time the benchmark scenarios and the event engine")
    p.add_argument(
        "--dir",
        dest="bench_dir",
        default=BENCH_SCENARIOS,
        type=Path,
        metavar="DIR",
        help="directory of benchmark scenarios (default: the shipped ones, scenarios/bench)",
    )
    p.add_argument(
        "--no-scaling",
        dest="scaling",
        action="store_false",
        help="leave out the generated scaling scenarios (N flows on a bottleneck, a star of N UEs)",
    )
    p.add_argument(
        "--engine-events",
        type=_count,
        default=DEFAULT_ENGINE_EVENTS,
        metavar="N",
        help=f"events of the engine micro-benchmark (default {DEFAULT_ENGINE_EVENTS:_})",
    )
    p.set_defaults(handler=_cmd_bench)

    p = commands.add_parser(
        "sweep", help="run a scenario over a grid of overrides x seeds, with confidence intervals"
    )
    p.add_argument(
        "scenario",
        metavar="SCENARIO",
        help="scenario file, or sweep file (TOML with a 'scenario' key; see docs/sweeps.md)",
    )
    p.add_argument(
        "--grid",
        action="append",
        default=[],
        type=_grid,
        metavar="PATH=V1,V2,...",
        help="values of an override; the points are the product of all --grid (repeatable)",
    )
    p.add_argument(
        "--seeds",
        type=_seeds,
        metavar="SPEC",
        help="seeds of every point: 10 (seeds 1 to 10), 1-10, or 3,7,9",
    )
    _add_set_option(p)
    p.add_argument(
        "--metric",
        dest="metrics",
        action="append",
        metavar="NAME",
        help="dotted path into summary.json, e.g. flows.bulk.rtt_ms.p99 (repeatable; default: "
        "every flow's goodput, RTT, one-way delay, completion time, retransmissions)",
    )
    _add_pool_options(p, "output directory (default out/sweep-<stem>)")
    p.set_defaults(handler=_cmd_sweep)

    p = commands.add_parser("reproduce", help="run a paper experiment and draw its figures")
    p.add_argument("name", nargs="?", metavar="NAME", help="experiment name (see --list)")
    p.add_argument("--list", action="store_true", help="list the available experiments")
    p.add_argument("--quick", action="store_true", help="the reduced version (under a minute)")
    _add_experiments_dir_option(p)
    _add_pool_options(p, "output directory (default out/reproduce/<name>[-quick])")
    p.add_argument("--no-report", action="store_true", help="do not write report.html")
    p.add_argument(
        "--record",
        action="store_true",
        help="keep this full run's claims.json in the experiment's folder and regenerate the "
        "claims table of its README.md",
    )
    p.set_defaults(handler=_cmd_reproduce)

    p = commands.add_parser(
        "claims",
        help="the claims' verdicts each experiment keeps: per paper, or one experiment's",
    )
    p.add_argument(
        "name",
        nargs="?",
        metavar="NAME",
        help="one experiment's claims (default: the headline claims per paper and the claims "
        "per experiment, over every experiment)",
    )
    p.add_argument("--markdown", action="store_true", help="print Markdown (the READMEs' tables)")
    p.add_argument(
        "--from",
        dest="from_dir",
        metavar="DIR",
        help="read NAME's claims.json from this reproduction folder instead of the one its "
        "experiment folder keeps",
    )
    _add_experiments_dir_option(p)
    p.add_argument(
        "--write",
        action="store_true",
        help="regenerate the claims tables of the READMEs (NAME's, or every experiment's and "
        "the top README's Papers table) from the claims.json the experiments keep",
    )
    p.set_defaults(handler=run_claims_command)
    return parser


def _add_experiments_dir_option(p: argparse.ArgumentParser) -> None:
    """`--dir DIR` of `reproduce` and `claims`: where the experiments are."""
    p.add_argument(
        "--dir",
        dest="experiments_dir",
        metavar="DIR",
        help="where the experiments are (default: the shipped ones; an experiments/ folder of "
        "the current directory is used only when named here, since its plot.py files are code)",
    )


def _add_trace_keys_option(p: argparse.ArgumentParser, example: str) -> None:
    """`--set KEY=VALUE` (repeatable) of the trace generators: the keys of their settings."""
    p.add_argument(
        "--set",
        dest="trace_keys",
        action="append",
        default=[],
        type=_override,
        metavar="KEY=VALUE",
        help=f"{example} (docs/models/ieee80211ad.md)",
    )


def _add_plot_format_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--plot-format",
        choices=PLOT_FORMATS,
        default=PLOT_FORMATS[0],
        help=f"file format of the plots (default {PLOT_FORMATS[0]})",
    )


def _add_pool_options(command: argparse.ArgumentParser, out_help: str) -> None:
    command.add_argument(
        "--workers",
        type=_count,
        metavar="N",
        help=f"worker processes (default: all {os.cpu_count()} cores)",
    )
    command.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run on a Dask cluster: a scheduler address (tcp://host:8786), or 'local' for a "
        "local cluster of --workers processes; needs pip install 'mmtcp[dask]'",
    )
    command.add_argument("--out", metavar="DIR", help=out_help)
    command.add_argument(
        "--force",
        action="store_true",
        help="if DIR holds runs of a different sweep, delete them instead of refusing",
    )
    command.add_argument(
        "--quiet", action="store_true", help="no progress and no table; warnings and errors only"
    )


def _writable_folder(out_dir: Path) -> None:
    """Says in one line why `out_dir` cannot take a run's results, before the run (which would
    otherwise be lost to it afterwards); creates nothing."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ScenarioError(f"--out {out_dir}: is a file; expected a folder for the results")
    existing = next(p for p in (out_dir, *out_dir.parents) if p.exists() or p == Path(p.anchor))
    if not existing.is_dir():
        raise ScenarioError(f"--out {out_dir}: cannot create the folder: {existing} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        where = "the folder" if existing == out_dir else f"the folder {existing}"
        raise ScenarioError(f"--out {out_dir}: {where} is not writable")


def _cmd_run(args: argparse.Namespace) -> int:
    scenario = Path(args.scenario)
    out_dir = Path(args.out) if args.out else Path("out") / scenario.stem
    _writable_folder(out_dir)
    bar = ProgressBar() if not args.quiet and sys.stderr.isatty() else None
    try:
        result = run(scenario, seed=args.seed, overrides=args.overrides, progress=bar)
    finally:
        if bar is not None:
            bar.clear()
    result.save(out_dir, resolved=args.resolved)
    if not args.no_plots:
        result.plot(out_dir, args.plot_format)
    if not args.no_report:
        write_report(out_dir)
    if not args.quiet:
        names = ("flow_summary", "link_summary")
        tables = {n: result.tables[n].to_arrow() for n in names if n in result.tables}
        print(run_report(result.summary, tables))
        print(f"\nresults in {out_dir}{os.sep}")
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace) -> int:
    resolved = validate(args.scenario, overrides=args.overrides)
    if args.print_resolved:
        print(resolved, end="" if resolved.endswith("\n") else "\n")
    else:
        print(f"ok: {args.scenario}")
    return EXIT_OK


def _cmd_plot(args: argparse.Namespace) -> int:
    from mmtcp.plot import plot_dir  # matplotlib is loaded only by the commands that plot

    directory = Path(args.result_dir)
    series = ("timeseries.parquet", "flows.parquet")
    missing = [name for name in RESULT_FILES if not (directory / name).is_file()]
    if not any((directory / name).is_file() for name in series):
        missing.append(" or ".join(series))
    if missing:
        raise ScenarioError(
            f"{directory}: no {' and no '.join(missing)}; expected a directory written by "
            "'mmtcp run'"
        )
    for path in plot_dir(directory, args.plot_format):
        print(path)
    return EXIT_OK


def _cmd_report(args: argparse.Namespace) -> int:
    print(write_report(args.folder))
    return EXIT_OK


def _cmd_scenarios(args: argparse.Namespace) -> int:
    for path in copy_scenarios(args.copy) if args.copy else scenario_files():
        print(path)
    return EXIT_OK


def _cmd_bench(args: argparse.Namespace) -> int:
    directory = args.bench_dir
    if not directory.is_dir():
        raise ScenarioError(f"{directory}: no such directory")
    return run_suite(directory, scaling=args.scaling, engine_events=args.engine_events)


def _literal(text: str) -> Any:
    """A --set value as TOML reads it (`0.2`, `true`), or else the text itself (`10ms`)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _cmd_ieee80211ad_trace(args: argparse.Namespace) -> int:
    keys = {key: _literal(value) for key, value in map(split_override, args.trace_keys)}
    text = ieee80211ad_trace(args.trace_scenario, **keys)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _cmd_ieee80211ad_dual_trace(args: argparse.Namespace) -> int:
    keys = dict(map(split_override, args.trace_keys))
    traces = ieee80211ad_dual_trace(**{key: _literal(value) for key, value in keys.items()})
    paths = [Path(f"{args.out_prefix}-ap{n}.csv") for n in (1, 2)]
    for path, text in zip(paths, (traces.ap1_csv, traces.ap2_csv), strict=True):
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as e:
            raise ScenarioError(f"{path}: cannot write: {e.strerror}") from None
    ap1, ap2 = (rate / 1e6 for rate in traces.mean_bps)
    scale = "PHY rates" if traces.scale is None else f"PHY rates x {traces.scale:.4f}"
    print(
        f"wrote {paths[0]}, {paths[1]}: mean AP1 {ap1:.1f} Mbit/s, AP2 {ap2:.1f} Mbit/s, "
        f"total {ap1 + ap2:.1f} Mbit/s ({scale}); correlation {traces.correlation:.3f}"
    )
    return EXIT_OK


def _cmd_fit_markov(args: argparse.Namespace) -> int:
    from mmtcp.markov_fit import fit_traces  # numpy is loaded only by the commands that need it

    fitted = fit_traces(
        args.trace1, args.trace2, step=args.step, format=args.format, split=args.split
    )
    text = fitted.toml_file(group=args.group, transitions=args.transitions)
    if args.out:
        try:
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as e:
            raise ScenarioError(f"{args.out}: cannot write: {e.strerror}") from None
    for warning in fitted.warnings:
        _warn(warning)
    if not args.out:
        sys.stdout.write(text)
        return EXIT_OK
    print(fitted.report(), end="")
    print(f"wrote {args.out}")
    return EXIT_OK


def _warn(message: str) -> None:
    print(f"mmtcp: warning: {message}", file=sys.stderr)


def _cmd_sweep(args: argparse.Namespace) -> int:
    grid: dict[str, list[str]] = {}
    for path, values in args.grid:
        if path in grid:
            raise ScenarioError(f"--grid {path}: given twice; list all its values in one --grid")
        grid[path] = values
    spec = make_spec(args.scenario, grid=grid, seeds=args.seeds, overrides=args.overrides)
    if args.metrics:
        spec.metrics = check_metrics(args.metrics, "--metric")
    stream = None if args.quiet else sys.stderr
    try:
        result = run_spec(
            spec,
            workers=args.workers,
            out=args.out,
            force=args.force,
            stream=stream,
            warn=_warn,
            dask=args.dask,
        )
    except KeyboardInterrupt as e:
        return _interrupted(e)
    if not args.quiet:
        shown = result.metrics
        if spec.metrics is None:  # the default set is wide: show goodput, points.csv has all
            shown = [m for m in result.metrics if m.endswith("goodput_bps")]
        print(points_table(result.points, shown))
        print(
            f"\n{estimate_legend(result.points)}; every metric in {result.out_dir / 'points.csv'}"
        )
    return _report_failures(result)


def _cmd_reproduce(args: argparse.Namespace) -> int:
    if args.list:
        if args.name:
            raise ScenarioError("reproduce: give either --list or an experiment NAME, not both")
        roots = experiment_roots(args.experiments_dir)
        experiments = find_experiments(roots, on_error=_warn)
        if not experiments:
            where = ", ".join(map(str, roots)) or "no shipped experiments found"
            print(f"no experiments ({where})")
            return EXIT_OK
        rows = [("name", "title", "claims", "folder")]
        rows += [
            (e.name, e.title, str(len(e.claims)), _shown_path(e.directory)) for e in experiments
        ]
        name_width = max(len(row[0]) for row in rows)
        title_width = max(len(row[1]) for row in rows)
        for name, title, claims, folder in rows:
            print(f"{name:<{name_width}}  {title:<{title_width}}  {claims:>6}  {folder}")
        return EXIT_OK
    if not args.name:
        raise ScenarioError("reproduce: give an experiment NAME, or --list to see them")
    try:
        done = reproduce(
            args.name,
            quick=args.quick,
            workers=args.workers,
            out=args.out,
            force=args.force,
            directory=args.experiments_dir,
            stream=None if args.quiet else sys.stderr,
            warn=_warn,
            dask=args.dask,
            record=args.record,
        )
    except KeyboardInterrupt as e:
        return _interrupted(e)
    report = None if args.no_report else write_report(done.sweep.out_dir, done.experiment)
    if not args.quiet:
        experiment = done.experiment
        print(f"{experiment.name}{' (quick)' if args.quick else ''}: {experiment.title}")
        if experiment.paper:
            print(f"paper: {experiment.paper}")
        print(f"claim: {experiment.claim}\n")
        print(points_table(done.sweep.points, done.table_metrics))
        print(f"\n{estimate_legend(done.sweep.points)}")
        if done.claims:
            print(f"\n{claims_table(done.claims)}")
            print(f"claims: {done.sweep.out_dir / 'claims.json'}")
            if args.record and not done.sweep.failures:
                print(f"recorded: {done.experiment.directory / 'claims.json'} and its README.md")
        for figure in done.figures:
            print(f"figure: {figure}")
        if report is not None:
            print(f"report: {report}")
        print(f"results in {done.sweep.out_dir}{os.sep}")
    return _report_failures(done.sweep)


def _shown_path(path: Path) -> str:
    """`path` relative to the current directory if it is below it, else absolute."""
    absolute = path.resolve()
    try:
        return str(absolute.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(absolute)


def _interrupted(e: KeyboardInterrupt) -> int:
    if isinstance(e, SweepInterrupted):
        how = "terminated" if e.signal == signal.SIGTERM else "interrupted"
        print(
            f"mmtcp: {how}: {e.done} of {e.total} runs are saved in {e.out_dir}; "
            f"run the same command again to resume",
            file=sys.stderr,
        )
        return EXIT_TERMINATED if e.signal == signal.SIGTERM else EXIT_INTERRUPTED
    print("mmtcp: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def _report_failures(result: SweepResult) -> int:
    failures = result.failures
    if not failures:
        return EXIT_OK
    runs = "run" if len(failures) == 1 else "runs"
    print(f"mmtcp: {len(failures)} {runs} failed:", file=sys.stderr)
    for failure in failures[:10]:
        print(f"  {failure.path}: {failure.message}", file=sys.stderr)
    if len(failures) > 10:
        print(f"  ... and {len(failures) - 10} more", file=sys.stderr)
    print("rerun the same command to retry them", file=sys.stderr)
    return EXIT_INTERNAL


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except ScenarioError as e:
        print(f"mmtcp: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("mmtcp: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`mmtcp run ... | head`): what it wanted it got. Point stdout at
        # /dev/null so that the flush at exit does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except Exception as e:  # anything else is a bug: say so, and keep the traceback on demand
        if os.environ.get("MMTCP_DEBUG") == "1":
            traceback.print_exc()
        message = str(e) if isinstance(e, SimulationError) else f"{type(e).__name__}: {e}"
        print(f"mmtcp: internal error: {message}", file=sys.stderr)
        return EXIT_INTERNAL
