"""`x or default()` where `x` may be anything (logic.bool_op): its truth is known where
the default is true, its value is not -- `x` itself where `x` is true, the default
elsewhere -- so a test of the value (`arch // 10 == 12`) is unknown, never the test of
the number True (False everywhere: a gate that seemed to admit no generation)."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from gatecheck.semantics.logic import bool_op, join
from gatecheck.semantics.values import TRUTHY, UNKNOWN, contains_unknown, truth
from tests.admission import EVERY, assert_can_be_true

HELPERS = """\
import torch

def get_arch():
    major, minor = torch.cuda.get_device_capability()
    return major * 10 + minor

def f(arch):
    arch = arch or get_arch()
    return arch // 10 == 12

def g(arch=None):
    return (arch or get_arch()) // 10 == 12

class Kernel:
    def __init__(self, arch=None):
        self.arch = arch or get_arch()

    def blackwell_consumer(self):
        return self.arch // 10 == 12
"""

CASES = [
    # The value of an undecided `or` is some true value: its tests are unknown.
    pytest.param("f(x)", EVERY, id="parameter-no-caller-fills"),
    pytest.param("Kernel(x).blackwell_consumer()", EVERY, id="attribute-set-in-init"),
    pytest.param("(x or get_arch()) > 0", EVERY, id="compared-inline"),
    # Its truth stays known: true wherever the default is (false negated).
    pytest.param(
        "not (x or get_arch() >= 90)",
        {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89"},
        id="truth-kept",
    ),
    # Decided before any unknown operand: the value itself.
    pytest.param("g()", {"sm120", "sm121"}, id="none-then-the-device"),
]


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_or_fill(ruleset: RuleSet, expr: str, expected: object) -> None:
    assert_can_be_true(ruleset, HELPERS, expr, expected)


@pytest.mark.parametrize(
    ("op", "values", "expected"),
    [
        # Decided after an unknown operand: true, the value not known.
        ("or", [UNKNOWN, 120], TRUTHY),
        ("or", [UNKNOWN, "sm_90"], TRUTHY),
        # A deciding True is the value either way (a comparison's truth).
        ("or", [UNKNOWN, True], True),
        # Decided by the first operand, or never decided: as Python.
        ("or", [90, UNKNOWN], 90),
        ("or", [0, 120], 120),
        ("or", [UNKNOWN, 0], UNKNOWN),
        ("and", [UNKNOWN, False], False),
        ("and", [90, 120], 120),
    ],
)
def test_bool_op_values(op: str, values: list[object], expected: object) -> None:
    assert bool_op(op, values) == expected


def test_truthy_is_true_and_otherwise_unknown() -> None:
    assert truth(TRUTHY) is True
    assert contains_unknown(TRUTHY)
    assert contains_unknown((TRUTHY, 1))


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        # Two paths meeting: some true value either way stays true.
        (TRUTHY, 90, TRUTHY),
        (True, TRUTHY, TRUTHY),
        (TRUTHY, TRUTHY, TRUTHY),
        # One may be false: nothing known.
        (TRUTHY, 0, UNKNOWN),
        (None, TRUTHY, UNKNOWN),
        (UNKNOWN, TRUTHY, UNKNOWN),
    ],
)
def test_truthy_joined(a: object, b: object, expected: object) -> None:
    assert join(a, b) is expected
