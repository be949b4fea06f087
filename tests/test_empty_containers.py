"""Membership of a value not known in a container the device may leave empty: `x in []`
is false whatever `x` is. vLLM's Marlin kernels test `c.weight_type not in
query_marlin_supported_quant_types(...)`, a helper that returns `[]` below sm75 (sm80 in
0.8.5) and a list of objects it does not read above: true on the older generations, not
known on the others (semantics/expressions.py `_compare`). Noops: a container that is
not empty, or not known to be, says nothing of a value not known."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

SOURCE = """\
import torch

from elsewhere import scalar_types


def supported_types(has_zp=False):
    major, minor = torch.cuda.get_device_capability()
    if major * 10 + minor < 75:
        return []
    return [scalar_types.uint4, scalar_types.uint8]


def some_types():
    return [scalar_types.uint4]


NONE_YET = ()


def kernel_for(c):
    return c.weight_type
"""
EVERY_BUT_SM70 = frozenset(
    {"sm75", "sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110"}
    | {"sm120", "sm121", "gfx90a", "gfx942", "gfx950"}
)

CASES = [
    pytest.param(
        "kernel_for(c) in supported_types()", EVERY_BUT_SM70, id="in-a-helper-list-empty-on-sm70"
    ),
    pytest.param(
        "not (kernel_for(c) not in supported_types())", EVERY_BUT_SM70, id="not-in-negated"
    ),
    pytest.param("kernel_for(c) in NONE_YET", frozenset(), id="in-an-empty-module-constant"),
    # Noops: nothing is known of the value or of what the container holds.
    pytest.param("kernel_for(c) in some_types()", EVERY, id="noop-a-list-not-empty"),
    pytest.param("kernel_for(c) not in supported_types()", EVERY, id="noop-not-in-is-true-anyway"),
]


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_membership_in_an_empty_container(ruleset: RuleSet, expr: str, expected: object) -> None:
    assert_can_be_true(ruleset, SOURCE, expr, expected)
