"""`bindings.under_type_checking` (a pure function of the tree, kept once per statement
by the evaluator), and a declaration under `if TYPE_CHECKING:` read the same for every
generation that reads the device (the kept answer, not the first one only)."""

from __future__ import annotations

import textwrap

import astroid
import pytest
from astroid import nodes

from gatecheck.semantics.admitted import admitted
from gatecheck.semantics.bindings import under_type_checking

# Each source binds `x` once; whether that statement is under `if ...TYPE_CHECKING:`.
CASES = [
    ("x = 1", False),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    x = 1", True),
    ("import typing\nif typing.TYPE_CHECKING:\n    x = 1", True),
    ("if TYPE_CHECKING:\n    pass\nelse:\n    x = 1", False),
    ("if TYPE_CHECKING:\n    if flag:\n        x = 1", True),
    ("if flag:\n    x = 1", False),
    ("if TYPE_CHECKING:\n    def f():\n        x = 1", False),
    ("def f():\n    if TYPE_CHECKING:\n        x = 1", True),
    ("if TYPE_CHECKING:\n    class C:\n        x = 1", True),
    ("if TYPE_CHECKING:\n    for _ in y:\n        x = 1", True),
]


def _statement_binding_x(source: str) -> nodes.NodeNG:
    module = astroid.parse(textwrap.dedent(source))
    (target,) = [n for n in module.nodes_of_class(nodes.AssignName) if n.name == "x"]
    return target.parent


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_under_type_checking(source: str, expected: bool) -> None:
    assert under_type_checking(_statement_binding_x(source)) is expected


DECLARED = """
import torch
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    LIMIT: int = 0
else:
    LIMIT = 0
"""


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        # read once per generation (the device decides the left side): the declaration
        # is a declaration for each of them, not only for the first
        ("torch.cuda.get_device_capability() >= (12, 0) and LIMIT == 0", {"sm120", "sm121"}),
        ("torch.cuda.get_device_capability() >= (12, 0) or LIMIT == 0", None),
    ],
)
def test_declaration_read_alike_per_generation(expr: str, expected: set[str] | None) -> None:
    found = admitted(DECLARED, expr)
    if expected is None:
        # LIMIT's runtime value is the else branch's or unknown: not narrowed to sm12x
        assert found >= {"sm120", "sm121", "sm90"}
    else:
        assert found == expected
