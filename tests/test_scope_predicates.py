"""Predicates and aliases a module has at hand (semantics/predicates.py): an alias is read
by the truth of its value on each generation, never by its Python type."""

from __future__ import annotations

from pathlib import Path

import pytest

from gatecheck.config.model import RuleSet
from gatecheck.discovery import discover
from gatecheck.loading.project import Project
from gatecheck.semantics.admitted import Semantics
from gatecheck.semantics.predicates import module_predicates
from tests.conftest import write_tree

UTILS = """
import torch

def is_cuda():
    # None on ROCm builds (torch.version.cuda is None there), a version string on CUDA.
    return torch.cuda.is_available() and torch.version.cuda

def is_sm120_supported():
    return is_cuda() and torch.cuda.get_device_capability()[0] == 12

def is_sm100_supported():
    return is_cuda() and torch.cuda.get_device_capability() == (10, 0)
"""

HEADER = """
import os
import torch
from pkg.utils import is_cuda, is_sm100_supported, is_sm120_supported

_is_cuda = is_cuda()
FLAG = os.environ.get("X") == "1"
"""

SM12X = {"sm120", "sm121"}

CASES = [
    # None on AMD, a bool on NVIDIA (the seed's alias in sglang's communicator.py).
    pytest.param("_is_cuda and is_sm120_supported()", "alias", SM12X, id="none-on-amd"),
    # An int where it is true, 0 where it is not.
    pytest.param(
        "torch.cuda.get_device_capability()[0] if is_sm120_supported() else 0",
        "alias",
        SM12X,
        id="int-or-zero",
    ),
    # A string where it is true, "" where it is not.
    pytest.param('"sm120" if is_sm120_supported() else ""', "alias", SM12X, id="str-or-empty"),
    # Unknown on the generations where a flag decides, False elsewhere.
    pytest.param("FLAG and is_sm100_supported()", "alias", {"sm100"}, id="unknown-or-false"),
    # An empty list is false, a non-empty one true.
    pytest.param("[1] if is_sm100_supported() else []", "alias", {"sm100"}, id="list-or-empty"),
    # A function is used as name(). (Names are only a cost filter: this one spells "sm1".)
    pytest.param("lambda: is_cuda() and is_sm100_supported()", "call", {"sm100"}, id="lambda"),
]


def _predicates(tmp_path: Path, ruleset: RuleSet, expr: str) -> dict[str, tuple[str, set[str]]]:
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": UTILS,
            "pkg/gate.py": HEADER + f"\n_is_sm1x = {expr}\n",
        },
    )
    found = discover([tmp_path])
    project = Project(found.files, found.roots)
    module = project.module("pkg.gate")
    assert module is not None
    semantics = Semantics(project, ruleset.registry)
    return {p.name: (p.form, set(p.admits)) for p in module_predicates(module, semantics)}


@pytest.mark.parametrize(("expr", "form", "expected"), CASES)
def test_alias_read_by_truth(
    tmp_path: Path, ruleset: RuleSet, expr: str, form: str, expected: set[str]
) -> None:
    assert _predicates(tmp_path, ruleset, expr)["_is_sm1x"] == (form, expected)


@pytest.mark.parametrize(
    "expr",
    [
        pytest.param("is_cuda()", id="vendor-only-is-not-an-arch-alias"),
        pytest.param("FLAG", id="no-arch-term"),
        pytest.param("is_sm120_supported if FLAG else True", id="call-or-alias-mixed"),
    ],
)
def test_alias_noop(tmp_path: Path, ruleset: RuleSet, expr: str) -> None:
    assert "_is_sm1x" not in _predicates(tmp_path, ruleset, expr)
