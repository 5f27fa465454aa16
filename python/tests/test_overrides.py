"""Overrides as the API takes them, turned into the `(path, value text)` pairs the core reads.
None of these needs the simulation core."""

from __future__ import annotations

import math
import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mmtcp import ScenarioError
from mmtcp.api import override_pairs, split_override, toml_literal, toml_value_text

scalars = (
    st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@given(values)
def test_toml_literal_reads_back_as_the_same_value(value):
    parsed = tomllib.loads(f"x = {toml_literal(value)}")["x"]
    assert _same(parsed, value)


@given(st.text())
def test_a_str_value_is_passed_as_it_is(text):
    assert toml_value_text(text) == text


@given(st.text(st.characters(exclude_characters="="), min_size=1), st.text())
def test_split_override_splits_at_the_first_equals(path, value):
    if path.strip():
        assert split_override(f"{path}={value}") == (path.strip(), value.strip())


@pytest.mark.parametrize("text", ["link.1.delay", "=20ms", "  =x", ""])
def test_split_override_rejects_text_without_a_path_and_an_equals(text):
    with pytest.raises(ScenarioError, match="PATH=VALUE"):
        split_override(text)


def test_override_pairs_from_a_dict_and_from_strings():
    assert override_pairs(None) == []
    assert override_pairs(
        {"link.1.delay": "20ms", "flow.0.transport.cc": "newreno", "simulation.seed": 3}
    ) == [("link.1.delay", "20ms"), ("flow.0.transport.cc", "newreno"), ("simulation.seed", "3")]
    assert override_pairs({"link.0.forward.loss": 0.5, "flow.0.transport.sack": True}) == [
        ("link.0.forward.loss", "0.5"),
        ("flow.0.transport.sack", "true"),
    ]
    assert override_pairs(["a.b=1", "c = x=y"]) == [("a.b", "1"), ("c", "x=y")]


def test_override_pairs_rejects_a_single_string_and_unknown_types():
    with pytest.raises(TypeError):
        override_pairs("link.1.delay=20ms")
    with pytest.raises(TypeError):
        override_pairs({"simulation.duration": object()})
