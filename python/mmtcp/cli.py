"""The `mmtcp` command line.

    mmtcp run SCENARIO [--seed N] [--set PATH=VALUE]... [--out DIR] [--no-plots] [--quiet]
    mmtcp validate SCENARIO [--set PATH=VALUE]... [--print]
    mmtcp plot DIR
    mmtcp bench [--dir DIR] [--engine-events N]
    mmtcp --version

`run` writes `summary.json`, `timeseries.parquet`, `scenario.resolved.toml` and `plots/*.png`
into DIR (default `out/<scenario stem>`) and prints a summary table.

Exit status: 0 on success; 2 on bad input (the scenario, a trace file, an override or the command
line), reported as one line on stderr that names the file and the field; 1 on anything else,
reported as `mmtcp: internal error: ...` (with the traceback when MMTCP_DEBUG=1); 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from mmtcp import __version__
from mmtcp._core import ScenarioError, SimulationError
from mmtcp.api import run, split_override, validate
from mmtcp.bench import DEFAULT_ENGINE_EVENTS, run_suite
from mmtcp.progress import ProgressBar
from mmtcp.report import run_report

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it

RESULT_FILES = ("summary.json", "timeseries.parquet")


class _Parser(argparse.ArgumentParser):
    """Reports a usage error as one line instead of the usage block plus the error."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _seed(text: str) -> int:
    if not (text.isascii() and text.isdigit() and int(text) < 2**64):
        raise argparse.ArgumentTypeError(f"{text!r} is not a seed; expected 0 to 2^64-1")
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
    p.add_argument("--no-plots", action="store_true", help="do not draw plots/*.png")
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
    p.set_defaults(handler=_cmd_plot)

    p = commands.add_parser("bench", help="time the benchmark scenarios and the event engine")
    p.add_argument(
        "--dir",
        dest="bench_dir",
        default="scenarios/bench",
        metavar="DIR",
        help="directory of benchmark scenarios (default scenarios/bench)",
    )
    p.add_argument(
        "--engine-events",
        type=_count,
        default=DEFAULT_ENGINE_EVENTS,
        metavar="N",
        help=f"events of the engine micro-benchmark (default {DEFAULT_ENGINE_EVENTS:_})",
    )
    p.set_defaults(handler=_cmd_bench)
    return parser


def _cmd_run(args: argparse.Namespace) -> int:
    scenario = Path(args.scenario)
    out_dir = Path(args.out) if args.out else Path("out") / scenario.stem
    bar = ProgressBar() if not args.quiet and sys.stderr.isatty() else None
    try:
        result = run(scenario, seed=args.seed, overrides=args.overrides, progress=bar)
    finally:
        if bar is not None:
            bar.clear()
    result.save(out_dir)
    if not args.no_plots:
        result.plot(out_dir)
    if not args.quiet:
        print(run_report(result.summary))
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
    missing = [name for name in RESULT_FILES if not (directory / name).is_file()]
    if missing:
        raise ScenarioError(
            f"{directory}: no {' or '.join(missing)}; expected a directory written by 'mmtcp run'"
        )
    for path in plot_dir(directory):
        print(path)
    return EXIT_OK


def _cmd_bench(args: argparse.Namespace) -> int:
    directory = Path(args.bench_dir)
    if not directory.is_dir():
        raise ScenarioError(f"{directory}: no such directory")
    return run_suite(directory, engine_events=args.engine_events)


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
    except Exception as e:  # anything else is a bug: say so, and keep the traceback on demand
        if os.environ.get("MMTCP_DEBUG") == "1":
            traceback.print_exc()
        message = str(e) if isinstance(e, SimulationError) else f"{type(e).__name__}: {e}"
        print(f"mmtcp: internal error: {message}", file=sys.stderr)
        return EXIT_INTERNAL
