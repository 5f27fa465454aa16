"""The package as installed: version, exceptions, public names, and `_core.pyi` against the
compiled module. None of these needs the simulation core."""

from __future__ import annotations

import ast
import importlib.metadata
import inspect
import pickle
from pathlib import Path

import pytest

import mmtcp
from mmtcp import _core

STUB = Path(_core.__file__).with_name("_core.pyi")


def test_version_is_the_distribution_version(cli):
    assert mmtcp.__version__ == importlib.metadata.version("mmtcp")
    proc = cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"mmtcp {mmtcp.__version__}"


def test_exceptions_are_value_and_runtime_errors():
    assert issubclass(mmtcp.ScenarioError, ValueError)
    assert issubclass(mmtcp.SimulationError, RuntimeError)
    assert mmtcp.ScenarioError is _core.ScenarioError
    assert mmtcp.SimulationError is _core.SimulationError


@pytest.mark.parametrize("error", [mmtcp.ScenarioError, mmtcp.SimulationError])
def test_exceptions_survive_pickling(error):
    # Runs of a sweep report their errors across process boundaries.
    copy = pickle.loads(pickle.dumps(error("x.toml: link[0].rate: bad")))
    assert type(copy) is error
    assert str(copy) == "x.toml: link[0].rate: bad"


def test_public_names():
    for name in mmtcp.__all__:
        assert hasattr(mmtcp, name), name


def _stub_functions() -> dict[str, ast.FunctionDef]:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def _stub_other_names() -> set[str]:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    names = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    names |= {
        node.target.id
        for node in tree.body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    }
    return names


def test_stub_names_match_the_compiled_module():
    compiled = {name for name in vars(_core) if not name.startswith("__")} | {"__version__"}
    stubbed = set(_stub_functions()) | _stub_other_names()
    assert stubbed == compiled


@pytest.mark.parametrize("name", sorted(_stub_functions()))
def test_stub_signature_matches_the_compiled_function(name):
    stub = _stub_functions()[name]
    args = stub.args
    stubbed = [(a.arg, "POSITIONAL_OR_KEYWORD") for a in args.posonlyargs + args.args]
    stubbed += [(a.arg, "KEYWORD_ONLY") for a in args.kwonlyargs]
    stub_defaults = [ast.literal_eval(d) for d in args.defaults]
    stub_defaults += [ast.literal_eval(d) for d in args.kw_defaults if d is not None]

    signature = inspect.signature(getattr(_core, name))
    compiled = [(p.name, p.kind.name) for p in signature.parameters.values()]
    compiled_defaults = [
        p.default for p in signature.parameters.values() if p.default is not inspect.Parameter.empty
    ]
    assert stubbed == compiled
    assert stub_defaults == compiled_defaults
