"""Two paths that give a list (or a tuple) of one length meet item by item, and a name
unpacked from one of a few constant tuples is each one's item (semantics/logic.py, env.py):
vLLM's `get_supported_kernel_block_sizes` returns `[MultipleOf(64)]` on one path and
`[block_size]` on another, never an empty list; sglang's benchmark probes return
`(False, "why")` or `(True, "")`."""

from __future__ import annotations

from typing import Any

import pytest

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import admission_of
from gatecheck.semantics.logic import join
from gatecheck.semantics.values import UNKNOWN, OneOf

SOURCE = """
import torch
from elsewhere import flaky, block


class Size:
    def __init__(self, n):
        self.n = n


def sizes():
    major, _ = torch.cuda.get_device_capability()
    if major == 9 and (b := block()):
        return [b]
    return [Size(16)]


def probe():
    major = torch.cuda.get_device_capability()[0]
    if major < 10:
        return False, "too old"
    if flaky():
        return True, "fast path"
    return True, "slow path"


ok, how = probe()
"""
BELOW_10 = {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90", "gfx90a", "gfx942", "gfx950"}


@pytest.mark.parametrize(
    ("expr", "can_be_true"),
    [
        # Both paths give one item: never empty, on sm90 too.
        ("not sizes()", set()),
        ("len(sizes()) == 1", "all"),
        # From sm100 on, both paths give True: `ok` is known there.
        ("not ok", BELOW_10),
        ("ok", "all-but-below-10"),
    ],
)
def test_admitted(ruleset: RuleSet, expr: str, can_be_true: Any) -> None:
    every = set(ruleset.registry.all_names())
    named = {"all": every, "all-but-below-10": every - BELOW_10}
    expected = named[can_be_true] if isinstance(can_be_true, str) else can_be_true
    assert set(admission_of(SOURCE, expr, ruleset.registry).can_be_true) == expected


class _Item:
    """A value that is no constant (an instance the evaluator made)."""


ITEM = _Item()


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ([1], [2], [UNKNOWN]),
        ([ITEM, "x"], [ITEM, "y"], [ITEM, UNKNOWN]),
        ((ITEM, 1), (ITEM, 2), (ITEM, UNKNOWN)),
        # Tuples of constants stay whole (join_returns makes them one of them).
        ((1, 2), (1, 3), UNKNOWN),
        ([1], [1, 2], UNKNOWN),  # two lengths
        ([1], (1,), UNKNOWN),  # two types
        ([1], [1], [1]),
    ],
)
def test_join(a: Any, b: Any, expected: Any) -> None:
    assert join(a, b) == expected


def test_unpacked_from_one_of_constants() -> None:
    from gatecheck.semantics.env import index_path

    options = OneOf(((False, "too old"), (True, "fast")))
    assert isinstance(index_path(options, [0]), OneOf)
    assert index_path(OneOf(((True, "a"), (True, "b"))), [0]) is True
    assert index_path(OneOf(((True, "a"), None)), [1]) == "a"  # None has no items
