"""`self.<tag>` in a method a family of classes shares, each class setting its own tag at
class level, the class made chosen by the device (semantics/instance_classes.py): quack's
`if const_expr(self.arch < 100):` in a mixin of GemmSm90 (`arch = 90`), GemmSm100
(`arch = 100`) and GemmSm120 (`arch = 120`), one picked by `{9: ..., 10: ...}[major]`."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.test_callers_union import _admission, _admits

GFX = {"gfx90a", "gfx942", "gfx950"}  # ROCm reports capability 9.x: major 9's class
FAMILY = """\
class Mixin:
    def small_tile(self):
        return self.arch < 100  # gate

class GemmSm90:
    arch = 90

class GemmSm100(GemmSm90):
    arch = 100

class GemmSm120(GemmSm90):
    arch = 120

class ActSm90(Mixin, GemmSm90):
    pass

class ActSm100(Mixin, GemmSm100):
    pass

class ActSm120(Mixin, GemmSm120):
    pass
"""


def family(made: str) -> str:
    return FAMILY + "\n" + made


CASES = [
    pytest.param(
        family(
            "def pick():\n"
            "    table = {9: ActSm90, 10: ActSm100, 11: ActSm100, 12: ActSm120}\n"
            "    return table[major()]()\n"
        ),
        {"sm90"} | GFX,
        id="table-keyed-by-major",
    ),
    # No key for the older majors: the lookup raises there, no class is made, the
    # method never runs (neither true nor false).
    pytest.param(
        family(
            "def pick():\n"
            "    table = {9: ActSm90, 10: ActSm100, 11: ActSm100, 12: ActSm120}\n"
            "    cls = table[major()]\n"
            "    return cls()\n"
        ),
        {"sm90"} | GFX,
        id="table-then-call",
    ),
    # `sm_to_cls[name][cap[0]]`, the name one of two a caller passes.
    pytest.param(
        family(
            "def pick(name):\n"
            '    table = {"act": {9: ActSm90, 10: ActSm100, 12: ActSm120},\n'
            '             "other": {9: ActSm90, 10: ActSm100, 12: ActSm120}}\n'
            "    return table[name][major()]()\n\n"
            "def act():\n"
            '    return pick("act")\n\n'
            "def other():\n"
            '    return pick("other")\n'
        ),
        {"sm90"} | GFX,
        id="nested-table-one-of-two-names",
    ),
    pytest.param(
        family(
            "def pick():\n"
            "    if major() >= 12:\n"
            "        cls = ActSm120\n"
            "    elif major() >= 10:\n"
            "        cls = ActSm100\n"
            "    else:\n"
            "        cls = ActSm90\n"
            "    return cls()\n"
        ),
        {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90"} | GFX,
        id="chosen-in-branches",
    ),
    # The tag read in the base's own method: its subclasses set it anew.
    pytest.param(
        "class Base:\n"
        "    arch = 90\n\n"
        "    def uses_clc(self):\n"
        "        return self.arch >= 100  # gate\n\n"
        "class Blackwell(Base):\n"
        "    arch = 100\n\n"
        "def pick():\n"
        "    return {9: Base, 10: Blackwell}[major()]()\n",
        {"sm100", "sm103"},
        id="read-in-the-base",
    ),
]

FORWARD = """\
class ForwardBase:
    arch: int = 80

class ForwardSm90(ForwardBase):
    arch = 90

    def use_tma(self):
        return self.arch >= 90  # gate

class ForwardSm100(ForwardBase):
    arch = 100
"""

CASES += [
    # flash-attn's CuTe forward kernels: each class sets its tag, the one made is
    # picked by the branch the device takes; the tag read in one class's own method
    # (the base binds it too): that class's value, where that class is made.
    pytest.param(
        FORWARD + "\n"
        "def forward():\n"
        "    if major() == 9:\n"
        "        kernel = ForwardSm90()\n"
        "    elif major() in (10, 11):\n"
        "        kernel = ForwardSm100()\n"
        "    return kernel\n",
        {"sm90"} | GFX,
        id="made-in-a-branch-of-the-device",
    ),
]

NOOPS = [
    # Made in branches nothing tells apart: either one on every generation.
    pytest.param(
        family("def make(fast):\n    return ActSm120() if fast else ActSm90()\n"),
        id="made-in-branches-of-an-option",
    ),
    # Made by name, in no branch: as before, unknown (the instance may hold anything).
    pytest.param(
        FORWARD + "\ndef forward():\n    return ForwardSm90()\n",
        id="made-by-name-only",
    ),
    # A dataclass's annotated default is a field: each instance holds its own.
    pytest.param(
        "from dataclasses import dataclass\n\n"
        + FORWARD.replace("class ForwardBase:", "@dataclass\nclass ForwardBase:")
        + "\ndef forward():\n"
        "    if major() == 9:\n"
        "        return ForwardSm90()\n"
        "    return ForwardSm100()\n",
        id="a-dataclass-field",
    ),
    # Set on the instance too: it may hold anything.
    pytest.param(
        family(
            "class ActOverride(Mixin, GemmSm90):\n"
            "    def __init__(self, arch):\n"
            "        self.arch = arch\n\n"
            "def pick():\n"
            "    return {9: ActSm90, 10: ActOverride}[major()]()\n"
        ),
        id="set-on-an-instance",
    ),
    # One value for the whole family: no class tells a generation apart.
    pytest.param(
        "class Base:\n"
        "    arch = 90\n\n"
        "    def old(self):\n"
        "        return self.arch < 100  # gate\n\n"
        "class Same(Base):\n"
        "    pass\n\n"
        "def pick():\n"
        "    return {9: Base, 10: Same}[major()]()\n",
        id="one-value",
    ),
    # A class method reads the class it is called on (subclasses.py), not this.
    pytest.param(
        "class Base:\n"
        "    arch = 90\n\n"
        "    @staticmethod\n"
        "    def old(self):\n"
        "        return self.arch < 100  # gate\n\n"
        "class Blackwell(Base):\n"
        "    arch = 100\n\n"
        "def pick():\n"
        "    return {9: Base, 10: Blackwell}[major()]()\n",
        id="not-a-plain-method",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_the_class_made_decides_the_tag(ruleset: RuleSet, source: str, expected: set[str]) -> None:
    assert _admits(ruleset, source) == expected


@pytest.mark.parametrize("source", NOOPS)
def test_tags_that_stay_unknown(ruleset: RuleSet, source: str) -> None:
    assert _admits(ruleset, source) == ruleset.registry.all_names()


def test_a_class_also_made_by_name_is_made_everywhere(ruleset: RuleSet) -> None:
    """ActSm90 made by its name as well: on every generation it may be the instance
    (true everywhere); false only where the table makes another one too."""
    admission = _admission(
        ruleset,
        family(
            "def pick():\n"
            "    table = {9: ActSm90, 10: ActSm100, 12: ActSm120}\n"
            "    return table[major()]()\n\n"
            "def fallback():\n"
            "    return ActSm90()\n"
        ),
    )
    assert admission.can_be_true == ruleset.registry.all_names()
    assert admission.can_be_false == {"sm100", "sm103", "sm120", "sm121"}
