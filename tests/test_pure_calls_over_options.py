"""A pure method of a known value called with one of a few constants (semantics/calls.py):
each option's answer, one of them. A device name read in a `try` with a fallback in its
handler (`except Exception: return "gfx90a"`) is one of two names; a table looked up by
it (`TABLE.get(arch(), 0)`) answers each one's entry, as `TABLE[arch()]` did. Another
argument not known keeps it unknown."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

SOURCE = """
import torch
from elsewhere import something


def arch():
    try:
        return torch.cuda.get_device_properties(0).gcnArchName
    except Exception:
        return "gfx90a"


TABLE = {"gfx942": 304, "gfx950": 256}
"""


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        pytest.param("TABLE.get(arch(), 0) > 0", {"gfx942", "gfx950"}, id="get-with-a-default"),
        pytest.param("TABLE.get(arch()) == 304", {"gfx942"}, id="get-without-a-default"),
        # gfx942: "gfx942" or the fallback "gfx90a", counted once or not at all.
        pytest.param(
            '"gfx942 gfx950".count(arch()) == 1', {"gfx942", "gfx950"}, id="a-method-of-a-constant"
        ),
    ],
)
def test_each_option_is_looked_up(ruleset: RuleSet, expr: str, expected: object) -> None:
    assert_can_be_true(ruleset, SOURCE, expr, expected)


NOOPS = [
    pytest.param("TABLE.get(arch(), something) == 0", id="another-argument-not-known"),
]


@pytest.mark.parametrize("expr", NOOPS)
def test_refusals_stay_unknown(ruleset: RuleSet, expr: str) -> None:
    assert_can_be_true(ruleset, SOURCE, expr, EVERY)
