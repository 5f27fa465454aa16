"""Every example of docs/ (docs/*.md, docs/models/*.md) is checked: its TOML validates, its
`mmtcp` commands run and its Python snippets run.

- **`toml` blocks** must be valid TOML, and then, by what they hold:
  - a sweep file (a top-level `scenario` key) is loaded as `mmtcp sweep` loads it, from a file
    next to the repository's `scenarios/`, and every point is validated (`make_spec` and
    `validate_points`, without running);
  - a complete scenario (`node`, `link` and `flow`) must pass `mmtcp.validate`;
  - anything else is a fragment, placed into the first of the small base scenarios below (`BASES`)
    that has every node and link it names (`between`, `from`, `to`, paths, a processor's `device`
    and `ways`, the names of its `[[node]]`s; the names of its own links and flows do not count),
    then validated. A `[[node]]`, `[[link]]` or `[[flow]]` replaces the base's entry of the same
    name or is added. A table fragment (`[link.radio.amc]`, `[flow.transport]`, `[metrics]`)
    replaces the innermost table it names: `link` tables in the base's last link (a radio link
    with the full stack), `flow` tables in its first flow. A bare `transport` or `app` key goes
    into the first flow; a bare `channel` or `reverse_channel` key must be valid in one of the
    base's radio links (in its `radio` table if it has one: rate and SINR channels share kinds'
    names). A link with a `markov_pair` channel left without its partner gets one: its copy
    with the other `member`.
- **`sh` blocks**: every line starting with `mmtcp ` or `.venv/bin/mmtcp ` (continued with `\\`,
  `# comments` dropped, `> FILE` redirecting its output) runs and must exit 0. Any other
  non-comment line makes the block one to mark (below).
- **`python` blocks** are executed.

The `sh` and `python` blocks of one page run in the page's order in one temporary folder, a
reader's working copy: it holds a copy of the repository's `scenarios/` and every `toml` block
that the text before it says to save (``Save as `buffers.toml` ``), under that name; other
repository paths in a command are read from the repository. Runs are shortened and nothing else
changed: `mmtcp run` and `mmtcp sweep` get `--set simulation.duration=1s` after the page's own
options, sweeps run two seeds, and in Python `mmtcp.run` and `mmtcp.sweep` are replaced by
wrappers that do the same (the duration override added last, `seeds=2`).

**Blocks that are not tested** say so in the page: an HTML comment `<!-- not tested: REASON -->`,
on one line, just before the fence (invisible on the rendered page). Such a block is reported as a
skip with its reason (`pytest -rs`). Fences of languages other than those above (`text`, `rust`,
plain) are output, diagrams or code excerpts and are not run; a new language fails
`test_every_block_language_is_known`, so a ```` ```bash ```` block cannot slip through.
"""

from __future__ import annotations

import copy
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO

import mmtcp
from mmtcp.sweep_spec import make_spec, validate_points

DOCS = sorted(p for p in (REPO / "docs").rglob("*.md"))
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
NOT_TESTED = re.compile(r"<!-- *not tested: *([^\n]*?) *-->\s*\Z")
SAVE_AS = re.compile(r"Save as `([^`/]+)`[^\n`]*(?:\n[^\n`]+)*\Z")
RUNNABLE = {"toml", "sh", "python"}
NOT_RUN = {"", "text", "rust"}
COMMAND = re.compile(r"^(?:\.venv/bin/)?mmtcp\s")
SHORT = "simulation.duration=1s"
SEEDS = 2
OUTPUT_OPTIONS = ("--out", "--out-prefix")


@dataclass(frozen=True)
class Block:
    doc: str  # path relative to the repository
    line: int  # line of the opening fence
    lang: str
    body: str
    not_tested: str | None  # the reason given in the page, if it is marked
    save_as: str | None  # the file name the text before the block asks to save it as

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def blocks_of(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    found = []
    for m in FENCE.finditer(text):
        before = text[: m.start()].rstrip()
        marked = NOT_TESTED.search(before)
        save = SAVE_AS.search(before) if m.group(1) == "toml" else None
        found.append(
            Block(
                doc=str(path.relative_to(REPO)),
                line=text.count("\n", 0, m.start()) + 1,
                lang=m.group(1),
                body=m.group(2),
                not_tested=marked.group(1) if marked else None,
                save_as=save.group(1) if save else None,
            )
        )
    return found


BLOCKS = [b for doc in DOCS for b in blocks_of(doc)]


def test_the_docs_have_examples() -> None:
    kinds = {lang: sum(b.lang == lang for b in BLOCKS) for lang in RUNNABLE}
    assert kinds["toml"] >= 25, kinds
    assert kinds["sh"] >= 6, kinds
    assert kinds["python"] >= 4, kinds


def test_every_block_language_is_known() -> None:
    unknown = [f"{b.id} ```{b.lang}" for b in BLOCKS if b.lang not in RUNNABLE | NOT_RUN]
    assert not unknown, "blocks this test neither runs nor knows to skip: " + ", ".join(unknown)


def test_every_not_tested_mark_has_a_reason() -> None:
    for block in BLOCKS:
        if block.not_tested is not None:
            assert block.lang in RUNNABLE, f"{block.id}: a mark on a block that is never run"
            assert block.not_tested, f"{block.id}: <!-- not tested: --> without a reason"


def test_no_command_hides_in_an_output_block() -> None:
    # Output blocks show what a command prints (`mmtcp: error: ...`), never a command to type.
    for block in BLOCKS:
        if block.lang in NOT_RUN:
            for line in block.body.splitlines():
                assert not COMMAND.match(line.lstrip("$ ")), f"{block.id}: {line}"


# ---- TOML -----------------------------------------------------------------------------------

TUTORIAL = re.findall(r"```toml\n(.*?)```", (REPO / "README.md").read_text(encoding="utf-8"), re.S)[
    0
]

# The base scenarios fragments are placed into, in the order they are tried. Each ends with the
# link `link` tables go into and starts with the flow `flow` tables go into.
BASES: dict[str, str] = {
    # The README tutorial's scenario (server, bs, ue; the rate radio link `radio`) and a radio link
    # with the full stack, `air`, between bs and ue.
    "tutorial": TUTORIAL
    + """
[[link]]
name = "air"
between = ["bs", "ue"]
kind = "radio"
[link.radio]
channel = { kind = "cellular" }
""",
    # An eNB with an LTE and a 28 GHz link to the UE, an upload (scenarios/lte-and-28ghz.toml's
    # names).
    "cellular": """
[[node]]
name = "server"
[[node]]
name = "enb"
[[node]]
name = "ue"
[[flow]]
name = "upload"
from = "ue"
to = "server"
[[link]]
name = "core"
between = ["server", "enb"]
rate = "10Gbps"
[[link]]
name = "lte"
between = ["enb", "ue"]
kind = "radio"
channel = { kind = "constant", rate = "100Mbps" }
[[link]]
name = "mmw"
between = ["enb", "ue"]
kind = "radio"
[link.radio]
channel = { kind = "cellular" }
""",
    # Two disjoint paths through the routers r0 and r1.
    "routers": """
[[node]]
name = "server"
[[node]]
name = "r0"
[[node]]
name = "r1"
[[node]]
name = "ue"
[[flow]]
from = "server"
to = "ue"
[[link]]
between = ["server", "r0"]
rate = "1Gbps"
[[link]]
between = ["server", "r1"]
rate = "1Gbps"
[[link]]
between = ["r0", "ue"]
rate = "1Gbps"
[[link]]
between = ["r1", "ue"]
rate = "1Gbps"
""",
    # A proxy node between the server and an access point (scenarios/bench/proxy-bdp-80211ad.toml).
    "proxy": """
[[node]]
name = "server"
[[node]]
name = "proxy"
[[node]]
name = "ap"
[[node]]
name = "ue"
[[flow]]
from = "server"
to = "ue"
[[link]]
between = ["server", "proxy"]
rate = "10Gbps"
[[link]]
between = ["proxy", "ap"]
rate = "10Gbps"
[[link]]
name = "air"
between = ["ap", "ue"]
kind = "radio"
[link.radio]
channel = { kind = "cellular" }
""",
    # A gateway, two access points and a dual-connected device (scenarios/cotag-dual-ap.toml's
    # names).
    "dual-ap": """
[[node]]
name = "server"
[[node]]
name = "gw"
[[node]]
name = "ap1"
[[node]]
name = "ap2"
[[node]]
name = "d"
[[flow]]
name = "a"
from = "server"
to = "d"
[[link]]
name = "core"
between = ["server", "gw"]
rate = "10Gbps"
[[link]]
name = "a1"
between = ["gw", "ap1"]
rate = "10Gbps"
[[link]]
name = "a2"
between = ["gw", "ap2"]
rate = "10Gbps"
[[link]]
name = "r1"
between = ["ap1", "d"]
kind = "radio"
channel = { kind = "constant", rate = "1Gbps" }
[[link]]
name = "r2"
between = ["ap2", "d"]
kind = "radio"
channel = { kind = "constant", rate = "1Gbps" }
""",
    # The two ends of docs/models/markov-pair.md's pair of links (the fragment brings the links).
    "pair": """
[[node]]
name = "gateway"
[[node]]
name = "device"
[[flow]]
from = "gateway"
to = "device"
""",
}
REF_KEYS = {"between", "from", "to", "path", "ack_path", "device", "ways"}
ELEMENTS = ("node", "link", "flow")


def strings_under(value: Any, keys: set[str]) -> Iterator[str]:
    """Every string (or string in a list) held by one of `keys`, at any depth of `value`."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in keys and isinstance(inner, str):
                yield inner
            elif key in keys and isinstance(inner, list):
                yield from (s for s in inner if isinstance(s, str))
            else:
                yield from strings_under(inner, keys)
    elif isinstance(value, list):
        for inner in value:
            yield from strings_under(inner, keys)


def entries(table: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    value = table.get(kind)
    return value if isinstance(value, list) else []


def referenced_names(fragment: dict[str, Any]) -> set[str]:
    """The node and link names a fragment needs from its base scenario."""
    names = set(strings_under(fragment, REF_KEYS))
    names |= {n["name"] for n in entries(fragment, "node") if "name" in n}
    names -= {
        e["name"] for kind in ("link", "flow") for e in entries(fragment, kind) if "name" in e
    }
    return names


def base_names(base: dict[str, Any]) -> set[str]:
    return {e["name"] for kind in ("node", "link") for e in entries(base, kind) if "name" in e}


def put(target: dict[str, Any], table: dict[str, Any]) -> None:
    """Sets `table`'s keys in `target`, descending into a table that `table` names alone (so
    `{radio = {amc = {...}}}` replaces `radio.amc`, not `radio`)."""
    for key, value in table.items():
        single = isinstance(value, dict) and len(value) == 1
        if single and isinstance(next(iter(value.values())), dict) and key in target:
            put(target[key], value)
        else:
            target[key] = copy.deepcopy(value)


def add_markov_partners(scenario: dict[str, Any]) -> None:
    groups: dict[str, list[dict[str, Any]]] = {}
    for link in scenario["link"]:
        channel = link.get("channel", {})
        if channel.get("kind") == "markov_pair":
            groups.setdefault(channel["group"], []).append(link)
    for links in groups.values():
        if len(links) == 1:
            partner = copy.deepcopy(links[0])
            partner["name"] = f"{links[0].get('name', 'link')}-partner"
            partner["channel"]["member"] = 3 - partner["channel"]["member"]
            scenario["link"].append(partner)


def choose_base(fragment: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The first base scenario that has every node and link the fragment names, as a table."""
    wanted = referenced_names(fragment)
    for name, text in BASES.items():
        base = tomllib.loads(text)
        if wanted <= base_names(base):
            for kind in ELEMENTS:
                base.setdefault(kind, [])
            return name, base
    raise AssertionError(f"no base scenario has the nodes and links {sorted(wanted)}")


def placed(fragment: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The base the fragment goes into, and the scenarios it makes there: one, or for a bare
    channel two (as the rate radio link's channel, and in the radio-stack link's `radio`)."""
    name, base = choose_base(fragment)
    for kind in ELEMENTS:
        value = fragment.get(kind)
        if isinstance(value, list):
            for entry in value:
                names = [e.get("name") for e in base[kind]]
                if "name" in entry and entry["name"] in names:
                    base[kind][names.index(entry["name"])] = entry
                else:
                    base[kind].append(entry)
        elif isinstance(value, dict):
            put(base[kind][-1] if kind == "link" else base[kind][0], value)
    rest = {k: v for k, v in fragment.items() if k not in ELEMENTS}
    for key in ("transport", "app"):
        if key in rest:
            put(base["flow"][0], {key: rest.pop(key)})
    channels = {k: rest.pop(k) for k in ("channel", "reverse_channel") if k in rest}
    put(base, rest)
    add_markov_partners(base)
    if not channels:
        return name, [base]
    made = []
    for i, link in enumerate(base["link"]):
        if link.get("kind") == "radio":
            scenario = copy.deepcopy(base)
            target = scenario["link"][i]
            put(target.get("radio", target), channels)
            made.append(scenario)
    return name, made


def toml_kind(table: dict[str, Any]) -> str:
    if "scenario" in table:
        return "sweep"
    if all(isinstance(table.get(kind), list) for kind in ELEMENTS):
        return "scenario"
    return "fragment"


TOML_BLOCKS = [b for b in BLOCKS if b.lang == "toml" and b.not_tested is None]


@pytest.mark.parametrize(
    "block", [b for b in BLOCKS if b.not_tested is not None], ids=lambda b: b.id
)
def test_not_tested_block(block: Block) -> None:
    """One skip per block a page marks, so that `pytest -rs` lists them with their reasons."""
    pytest.skip(f"{block.id}: not tested: {block.not_tested}")


@pytest.mark.parametrize("block", TOML_BLOCKS, ids=lambda b: b.id)
def test_toml_block(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        table = tomllib.loads(block.body)
    except tomllib.TOMLDecodeError as e:
        pytest.fail(f"{block.id}: not valid TOML: {e}")
    # Trace files of a scenario given as a dict are read relative to the current folder.
    monkeypatch.chdir(REPO / "scenarios")
    kind = toml_kind(table)
    if kind == "sweep":
        # As `mmtcp sweep FILE` reads it, the file saved next to the repository's scenarios/.
        (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
        path = tmp_path / (block.save_as or "sweep.toml")
        path.write_text(block.body, encoding="utf-8")
        spec = make_spec(path)
        validate_points(spec, spec.expand())
    elif kind == "scenario":
        mmtcp.validate(table)
    else:
        base, scenarios = placed(table)
        errors = []
        for scenario in scenarios:
            try:
                mmtcp.validate(scenario)
                break
            except mmtcp.ScenarioError as e:
                errors.append(str(e))
        else:
            pytest.fail(f"{block.id} in base scenario {base!r}: " + " / ".join(errors))


# ---- commands and Python snippets -----------------------------------------------------------


def commands(block: Block) -> list[list[str]]:
    """The `mmtcp` commands of an `sh` block, as argument lists after `mmtcp` (a `>` and its
    file stay in the list)."""
    text = block.body.replace("\\\n", " ")
    found = []
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        assert COMMAND.match(line), (
            f"{block.id}: {line!r} is not an mmtcp command; mark the block <!-- not tested: ... -->"
        )
        assert not {"|", "&&", ";", "<"} & set(words), f"{block.id}: {line!r}"
        found.append(words[1:])
    return found


def run_command(args: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    """Runs one documented command in `folder`, shortened."""
    argv = list(args)
    stdout_file = None
    if ">" in argv:
        at = argv.index(">")
        stdout_file = folder / argv[at + 1]
        del argv[at : at + 2]
    outputs = {argv[i + 1] for i, a in enumerate(argv[:-1]) if a in OUTPUT_OPTIONS}
    for value in outputs:
        (folder / value).parent.mkdir(parents=True, exist_ok=True)
    argv = [
        str(REPO / a)
        if "/" in a and a not in outputs and not (folder / a).exists() and (REPO / a).exists()
        else a
        for a in argv
    ]
    if argv[0] in ("run", "sweep"):
        argv += ["--set", SHORT]
    if argv[0] == "sweep":
        if "--seeds" in argv:
            argv[argv.index("--seeds") + 1] = str(SEEDS)
        else:
            argv += ["--seeds", str(SEEDS)]
    proc = subprocess.run(
        [sys.executable, "-m", "mmtcp", *argv],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if stdout_file is not None:
        stdout_file.write_text(proc.stdout, encoding="utf-8")
    return proc


def shortened(function: Any, sweep: bool) -> Any:
    def call(scenario: Any, **kwargs: Any) -> Any:
        overrides = kwargs.get("overrides") or {}
        if isinstance(overrides, dict):
            overrides = {**overrides, "simulation.duration": "1s"}
        else:
            overrides = [*overrides, SHORT]
        kwargs["overrides"] = overrides
        if sweep:
            kwargs["seeds"] = SEEDS
        return function(scenario, **kwargs)

    return call


PAGES = [
    doc
    for doc in DOCS
    if any(b.lang == "python" or (b.lang == "sh" and b.not_tested is None) for b in blocks_of(doc))
]


@pytest.mark.core
@pytest.mark.parametrize("doc", PAGES, ids=lambda d: str(d.relative_to(REPO)))
def test_commands_and_snippets_of_a_page_run(
    doc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(REPO / "scenarios", tmp_path / "scenarios")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(os.environ, "MPLBACKEND", "Agg")
    monkeypatch.setattr(mmtcp, "run", shortened(mmtcp.run, sweep=False))
    monkeypatch.setattr(mmtcp, "sweep", shortened(mmtcp.sweep, sweep=True))
    for block in blocks_of(doc):
        if block.lang not in RUNNABLE or block.not_tested is not None:
            continue  # a marked block is reported by test_not_tested_block
        if block.save_as:
            (tmp_path / block.save_as).write_text(block.body, encoding="utf-8")
        if block.lang == "sh":
            for args in commands(block):
                proc = run_command(args, tmp_path)
                assert proc.returncode == 0, f"{block.id}: mmtcp {shlex.join(args)}: {proc.stderr}"
        elif block.lang == "python":
            exec(compile(block.body, block.id, "exec"), {"__name__": "__docs__"})
