"""docs/models/cotag.md's configuration snippets are the ones its complete scenarios run."""

from __future__ import annotations

import re

from helpers import REPO

DOC = (REPO / "docs" / "models" / "cotag.md").read_text(encoding="utf-8")
NAMES = ("cotag-dual-ap.toml", "spray-dual-ap.toml")
SCENARIOS = [(REPO / "scenarios" / name).read_text(encoding="utf-8") for name in NAMES]


def test_every_toml_snippet_of_the_page_is_in_a_scenario_that_runs() -> None:
    snippets = re.findall(r"```toml\n(.*?)```", DOC, re.S)
    assert len(snippets) >= 2
    for snippet in snippets:
        assert any(snippet.strip() in s for s in SCENARIOS), snippet


def test_the_page_names_the_scenarios_it_runs() -> None:
    for name in ("cotag-dual-ap.toml", "spray-dual-ap.toml", "mptcp-dual-ap.toml"):
        name = f"scenarios/{name}"
        assert f".venv/bin/mmtcp run {name}" in DOC
