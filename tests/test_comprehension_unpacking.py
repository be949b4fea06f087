"""A comprehension whose target unpacks each item (`for major, _ in caps`) over a known list
or tuple of known tuples (expressions._comprehension): each item is unpacked into the
names, as a `for` over one name binds it. A capability list built item by item
(`[get_device_capability(0), get_device_capability(1)]`) and a table of (name, major)
pairs are read; an item not known, a starred target, or an unknown list stay unknown."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

SOURCE = """\
import torch

def cap(i):
    return torch.cuda.get_device_capability(i)

TABLE = [("hopper", 9), ("blackwell", 10)]
"""
MAJOR = "torch.cuda.get_device_capability()[0]"

CASES = [
    pytest.param(
        "all(major in (10, 12) for major, _ in [cap(0), cap(1)])",
        {"sm100", "sm103", "sm120", "sm121"},
        id="capabilities-unpacked",
    ),
    pytest.param(
        f"any(m == {MAJOR} for _, m in TABLE)",
        {"sm90", "sm100", "sm103", "gfx90a", "gfx942", "gfx950"},
        id="a-table-of-pairs",
    ),
    pytest.param(
        f'[name for name, m in TABLE if m == {MAJOR}] == ["blackwell"]',
        {"sm100", "sm103"},
        id="a-filtered-list-of-names",
    ),
]

# Each stays unknown: every generation admitted.
NOOPS = [
    pytest.param(f'any(m == {MAJOR} for _, m in [("a", unknown)])', id="an-item-not-known"),
    pytest.param(f"any(m == {MAJOR} for _, *m in TABLE)", id="a-starred-target"),
    pytest.param(f"any(m == {MAJOR} for _, m in unknown)", id="over-an-unknown-list"),
]


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_unpacking_comprehension(ruleset: RuleSet, expr: str, expected: set[str]) -> None:
    assert_can_be_true(ruleset, SOURCE, expr, expected)


@pytest.mark.parametrize("expr", NOOPS)
def test_unpacking_comprehension_noop(ruleset: RuleSet, expr: str) -> None:
    assert_can_be_true(ruleset, SOURCE, expr, EVERY)


# Several `for`s over known sequences, a dict's values among them (FlashInfer 0.7.4's
# `sorted({a for r in PROGRAMS.values() for a in r["arches"]})`): every item, in order.
NESTED = (
    SOURCE
    + """
ARCH = {(10, 0): "sm_100a", (10, 3): "sm_103a", (12, 0): "sm_120a"}
PROGRAMS = {"pre": {"arches": ["sm_100a", "sm_103a"]}, "post": {"arches": ["sm_107a"]}}
"""
)
ARCH = "ARCH.get(torch.cuda.get_device_capability())"


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        pytest.param(
            f'{ARCH} in sorted({{a for r in PROGRAMS.values() for a in r["arches"]}})',
            {"sm100", "sm103"},
            id="a-set-over-a-dicts-values",
        ),
        pytest.param(
            f'{ARCH} in [a for r in PROGRAMS.values() if r["arches"] for a in r["arches"] if a != "sm_103a"]',
            {"sm100"},
            id="filtered-at-each-level",
        ),
        pytest.param(
            f"{ARCH} in [v for v in ARCH.values()]",
            {"sm100", "sm103", "sm120"},
            id="one-for-over-a-dicts-values",
        ),
    ],
)
def test_nested_comprehension(ruleset: RuleSet, expr: str, expected: set[str]) -> None:
    assert_can_be_true(ruleset, NESTED, expr, expected)


@pytest.mark.parametrize(
    "expr",
    [
        pytest.param(f"{ARCH} in [a for r in unknown for a in r]", id="an-outer-loop-not-known"),
        pytest.param(
            f"{ARCH} in [a for r in PROGRAMS.values() for a in load(r)]",
            id="an-inner-loop-not-known",
        ),
    ],
)
def test_nested_comprehension_noop(ruleset: RuleSet, expr: str) -> None:
    assert_can_be_true(ruleset, NESTED, expr, EVERY)
