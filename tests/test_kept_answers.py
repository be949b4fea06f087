"""A call's answer kept under a feature switch's name rather than tested is a slot
(audit/conditions.kept_answer): `enable_pdl = device_support_pdl(device)` (later only
passed on as `kernel(..., enable_pdl=enable_pdl)`), `self.use_tma = supports_tma()`,
`run_fast = probe()[0]`. Where the callee holds the gate, the kept answer is a hop of it
(listed under it); where the call decides by itself (a device predicate), a row. A test of
the switch stays what it was (a row or a hop of its own). A device predicate's answer
counts under any name but a predicate's own (`pdl = is_arch_support_pdl()`; not
`_is_sm100 = is_sm100_supported()`, a definition), and passed on as an argument
(`launch_pdl=current_platform.is_arch_support_pdl()`). Another call's answer under a name
that is no switch's (`value = probe()`), or a value that is no call (`use_x = other`),
is not looked at."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from astroid import extract_node, nodes

from gatecheck.audit import run_audit
from gatecheck.audit.conditions import answer_from_device_values, condition_arguments, kept_answer
from gatecheck.config.loader import load_ruleset

MakeTree = Callable[[Mapping[str, str]], Path]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("enable_pdl = device_support_pdl(device)", True),
        ("self.use_tma = supports_tma()", True),
        ("run_fast = probe()[0]", True),
        ("fp8_supported: bool = check()", True),
        ("_allow_deep_gemm = deep_gemm_ok()", True),
        ("use_a, use_b = pick()", True),
        # a device predicate's answer under any name but a predicate's
        ("pdl = is_arch_support_pdl()", True),
        ("self.blackwell = is_blackwell()", True),
        ("_is_sm100 = is_sm100_supported()", False),
        ("_is_cuda = is_cuda()", False),
        # not a switch's name: a value, whatever it holds
        ("value = probe()", False),
        ("major = get_major()", False),
        ("use_a, major = pick()", False),
        # not a call's answer
        ("use_x = other", False),
        ("use_x = True", False),
        ("use_x = cfg.use_x", False),
    ],
)
def test_which_assignments_keep_an_answer(source: str, expected: bool) -> None:
    statement = extract_node(source)
    assert isinstance(statement, (nodes.Assign, nodes.AnnAssign))
    assert kept_answer(statement) is expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # a device predicate's answer passed on as it is
        (
            "kernel(x, launch_pdl=current_platform.is_arch_support_pdl())",
            ["current_platform.is_arch_support_pdl()"],
        ),
        ("run(is_sm90_supported(), x)", ["is_sm90_supported()"]),
        # as before: a condition written at the call
        ("run(x, fast=major >= 9)", ["major >= 9"]),
        # not a device predicate: a value
        ("run(x, y=get_value())", []),
        ("run(x, fast=is_enabled())", []),
        ("run(x, fast=use_fast)", []),
    ],
)
def test_which_arguments_are_conditions(source: str, expected: list[str]) -> None:
    call = extract_node(source)
    assert isinstance(call, nodes.Call)
    assert [a.as_string() for a in condition_arguments(call)] == expected


UTIL = """\
import torch


def device_support_pdl(device):
    major, _ = torch.cuda.get_device_capability(device)
    return major >= 9


def is_sm90_or_sm100():
    return torch.cuda.get_device_capability()[0] in (9, 10)
"""

OPS = """\
from pkg.util import device_support_pdl, is_sm90_or_sm100


def launch(kernel, x, enable_pdl=None):
    if enable_pdl is None:
        enable_pdl = device_support_pdl(x.device)
    return kernel(x, enable_pdl=enable_pdl)


class Runner:
    def __init__(self):
        self.use_tma = is_sm90_or_sm100()
        value = is_sm90_or_sm100()
        self.value = value

    def go(self):
        if self.use_tma:
            return 1
        return 0
"""


def test_a_kept_answer_is_a_row_or_a_hop_of_its_gate(make_tree: MakeTree) -> None:
    tree = make_tree({"pkg/__init__.py": "", "pkg/util.py": UTIL, "pkg/ops.py": OPS})
    report = run_audit([tree], load_ruleset([]), "sm120")
    rows = {(g.found.path.name, g.found.line): g for g in report.gates}
    # device_support_pdl's return is a gate (no predicate's name): its kept answer at
    # ops.py:6 passes it on, a hop listed as its call site.
    assert ("util.py", 6) in rows
    assert ("ops.py", 6) in {(h.path.name, h.line) for h in report.hops}
    # is_sm90_or_sm100 is a device predicate: the switch set from it is a row of its own,
    # enabling where the predicate can be true; its test at ops.py:17 stays a row too.
    use_tma = rows[("ops.py", 12)]
    assert sorted(use_tma.found.admits) == ["gfx90a", "gfx942", "gfx950", "sm100", "sm103", "sm90"]
    assert ("ops.py", 17) in rows
    # `value = is_sm90_or_sm100()`: a device predicate's answer, under any name a row.
    assert ("ops.py", 13) in rows
    # `self.value = value` keeps no call's answer: not looked at (its reads are).
    assert ("ops.py", 14) not in rows


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # A call passed the device's values, read in the function or in the call: the
        # callee answers for the device whatever either is named.
        (
            "def f():\n    major, minor = torch.cuda.get_device_capability()\n"
            "    return _cap_ok(major, minor)",
            True,
        ),
        ("def f():\n    return ok(torch.cuda.get_device_capability())", True),
        ("def f():\n    cap = get_device_capability()\n    return TABLE.get(cap, 0)", True),
        ("def f():\n    return table.get(current_platform.get_device_capability().to_int())", True),
        # noops: the values are not the device's, or not only; not a call; an argument
        # written as a condition, a slot of its own
        ("def f():\n    return partial(gemm, pdl=current_platform.is_arch_support_pdl())", False),
        (
            "def f():\n    props = torch.cuda.get_device_properties(0)\n    return getattr(props, 'x', 0)",
            False,
        ),
        (
            "def f(x):\n    result = run(x, use_mtp=is_sm120_mma_ok())\n    return scale(result)",
            False,
        ),
        (
            "def f():\n    major = torch.cuda.get_device_properties(0).major\n    return ok(major)",
            True,
        ),
        (
            "def f(dev):\n    major, minor = (\n        get_device_capability(dev) if dev else"
            " get_device_capability()\n    )\n    return ok(major, minor)",
            True,
        ),
        (
            "def f():\n    cap = get_device_capability()\n    return g(cap, fast=cap >= (9, 0))",
            False,
        ),
        ("def f(major):\n    return _cap_ok(major, 0)", False),
        ("def f():\n    major = cfg.major\n    return _cap_ok(major)", False),
        (
            "def f(x):\n    if x:\n        major = get_device_capability()[0]\n"
            "    else:\n        major = x\n    return _cap_ok(major)",
            False,
        ),
        ("def f():\n    major = get_device_capability()[0]\n    return major >= 9", False),
    ],
)
def test_which_returns_answer_for_the_device_values(source: str, expected: bool) -> None:
    function = extract_node(source)
    assert isinstance(function, nodes.FunctionDef)
    returned = function.body[-1]
    assert isinstance(returned, nodes.Return)
    assert answer_from_device_values(returned) is expected
