"""Another generation's evaluation is taken from one it would retrace (semantics/replay.py):
values compared exactly, and the answers the same as evaluating every generation anew
(shortcuts off), on idioms where the replay is taken and where it must not be."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import astroid
import pytest
from astroid import nodes

from gatecheck.config.loader import load_ruleset
from gatecheck.semantics.admitted import Admission, Semantics, in_memory_project
from gatecheck.semantics.reads import DEVICE, NOTHING
from gatecheck.semantics.replay import (
    BINDING,
    BINDING_ADDED,
    CALL,
    CALL_ADDED,
    OPAQUE,
    added,
    interchangeable,
    same,
)
from gatecheck.semantics.values import (
    UNKNOWN,
    Capability,
    ClassRef,
    ExternalRef,
    InstanceRef,
    NoneOr,
    OneOf,
)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (1, 1, True),
        (True, 1, False),  # equal, yet `True + 1` and `1 + 1` are both 2 but print apart
        (True, True, True),
        ("sm90", "sm90", True),
        (1.0, 1.0, True),
        (0.0, -0.0, False),
        (None, None, True),
        ((9, 0), (9, 0), True),
        ((9, 0), (9, True), False),
        ((9, 0), Capability((9, 0)), False),
        (Capability((12, 0)), Capability((12, 0)), True),
        (Capability((12, 0)), Capability((12, 1)), False),
        ([1], [1], False),  # mutable: only the same list
        (UNKNOWN, UNKNOWN, True),
        (UNKNOWN, None, False),
        (ExternalRef("torch.version.cuda"), ExternalRef("torch.version.cuda"), True),
        (ExternalRef("torch.version.cuda"), ExternalRef("torch.version.hip"), False),
        (NoneOr(1), NoneOr(1), True),
        (NoneOr(1), NoneOr(True), False),
        (("a", (1, 2)), ("a", (1, 2)), True),
    ],
)
def test_same(a: Any, b: Any, expected: bool) -> None:
    assert same(a, b) is expected


_CLASS = astroid.extract_node("class C:\n    pass")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, True),
        (90, True),
        ("9.0a", True),
        (None, True),
        (UNKNOWN, True),
        ((9, (0, "a")), True),
        (Capability((10, 3)), True),
        (ExternalRef("torch.version.hip"), True),
        (NoneOr((9, 0)), True),
        ([9, 0], False),  # a list is made anew
        ((9, [0]), False),
        (ClassRef(_CLASS), False),  # hashed by identity
        (InstanceRef(_CLASS), False),
        (OneOf((True, False)), False),
        (NoneOr([1]), False),
    ],
)
def test_interchangeable(value: Any, expected: bool) -> None:
    assert interchangeable(value) is expected


@pytest.mark.parametrize(
    ("kind", "value", "device", "expected"),
    [
        (BINDING, True, False, (BINDING, 7, None)),
        (CALL, [1], False, (CALL, 7, None)),  # shared: found there by the others
        (BINDING, True, True, (BINDING_ADDED, 7, (True, DEVICE))),
        (CALL, (9, 0), True, (CALL_ADDED, 7, ((9, 0), DEVICE))),
        (CALL, [9, 0], True, OPAQUE),
        (BINDING, InstanceRef(_CLASS), True, OPAQUE),
    ],
)
def test_added(kind: int, value: Any, device: bool, expected: tuple[Any, ...]) -> None:
    assert added(kind, 7, value, DEVICE if device else NOTHING) == expected


UTILS = """
import torch

def _capability():
    return torch.cuda.get_device_capability()

def is_sm90_supported():
    return _capability() == (9, 0)

def is_sm100_family():
    return _capability()[0] == 10

def is_hopper_or_later():
    return _capability() >= (9, 0)

def is_hip():
    return torch.version.hip is not None

class Config:
    def use_fast(self, n):
        return is_sm100_family() and n > 4
"""

GATE = """
import torch
from pkg.utils import is_sm90_supported, is_sm100_family, is_hopper_or_later, is_hip, Config
CAP = torch.cuda.get_device_capability()
HOPPER = is_hopper_or_later()
FLAG = os.environ.get("FAST") == "1"
"""

# Conditions evaluated in this order over one Semantics: the later ones find the
# predicates' bodies memoized (each generation's own memo), which is where replays start.
CONDITIONS = [
    "is_sm90_supported()",
    "is_sm90_supported() and FLAG",
    "is_sm100_family() or is_sm90_supported()",
    "not is_sm90_supported() and HOPPER",
    "HOPPER and CAP[1] == 0",
    "CAP >= (12, 0) or is_hip()",
    "is_hip()",
    "is_hip() or FLAG",
    "Config().use_fast(8)",
    "Config().use_fast(2)",
    "HOPPER if FLAG else is_sm90_supported()",
]


def _conditions(project: Any) -> list[nodes.NodeNG]:
    module = project.module("pkg.gate")
    assert module is not None
    found = []
    for stmt in module.body:
        if isinstance(stmt, nodes.Assign) and stmt.targets[0].as_string().startswith("C_"):
            found.append(stmt.value)
    return found


def _admissions(shortcuts: bool) -> tuple[list[Admission], list[int]]:
    source = GATE + "".join(f"C_{i} = ({c})\n" for i, c in enumerate(CONDITIONS))
    project = in_memory_project({"pkg.utils": UTILS, "pkg.gate": "import os\n" + source})
    registry = load_ruleset(None).registry
    semantics = Semantics(project, registry, shortcuts=shortcuts)
    admissions, evaluated = [], []
    for node in _conditions(project):
        admissions.append(semantics.admission(node))
        count = 0

        def compute(gen: str, ev: Any, node: nodes.NodeNG = node) -> Any:
            nonlocal count
            count += 1
            return ev.value(node)

        list(semantics._each(compute, None, None, shortcuts))
        evaluated.append(count)
    return admissions, evaluated


def test_replayed_answers_are_evaluated_answers() -> None:
    fast, fast_counts = _admissions(True)
    slow, slow_counts = _admissions(False)
    assert fast == slow
    generations = len(load_ruleset(None).registry.names)
    assert slow_counts == [generations] * len(CONDITIONS)
    # A condition asked again (its predicates memoized) is evaluated once per distinct
    # path: sm90 or not; the vendor's answer; ...
    by_condition: Mapping[str, int] = dict(zip(CONDITIONS, fast_counts, strict=True))
    assert by_condition["is_sm90_supported()"] == 2
    assert by_condition["is_hip()"] == 2
    assert by_condition["is_sm90_supported() and FLAG"] == 2
    assert by_condition["is_hip() or FLAG"] == 2
    # Every generation reads its own capability: no two retrace each other.
    assert by_condition["CAP >= (12, 0) or is_hip()"] == generations
    assert sum(fast_counts) < sum(slow_counts) / 2
