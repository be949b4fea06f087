"""Which side of a comparison with data is the device's (gatecheck/semantics/device_data.py):
its values as keys, one unknown each, and the memos that are no such comparison."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from astroid import extract_node, nodes

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset
from gatecheck.config.model import Registry
from gatecheck.semantics.device_data import (
    alike_against,
    device_keys,
    is_literal,
    is_memo,
    stores,
)
from gatecheck.semantics.values import OneOf

MakeTree = Callable[[Mapping[str, str]], Path]


@pytest.fixture(scope="module")
def registry() -> Registry:
    return load_ruleset(None).registry


def _spellings(gen: str) -> OneOf:
    number = gen[2:]
    return OneOf((f"sm_{number}", f"sm_{number}a", f"sm_{number}f", number))


@pytest.mark.parametrize(
    ("values", "keyed"),
    [
        pytest.param(lambda g, cap: cap, True, id="the-capability"),
        pytest.param(lambda g, cap: {(10, 0): "sm_100a"}.get(cap), True, id="a-name-or-none"),
        pytest.param(lambda g, cap: _spellings(g), True, id="one-of-the-names-spellings"),
        # Noops: the same on every generation; not the device's identity (a tuning bound);
        # one of its callers' values beside the device's; not a constant.
        pytest.param(lambda g, cap: "sm_90a", False, id="noop-the-same-everywhere"),
        pytest.param(lambda g, cap: 40 if cap[0] == 9 else 24, False, id="noop-a-tuning-bound"),
        pytest.param(lambda g, cap: OneOf(((8, 0), cap)), False, id="noop-a-callers-constant"),
        pytest.param(lambda g, cap: [cap], False, id="noop-a-list"),
    ],
)
def test_device_keys(
    registry: Registry, values: Callable[[str, tuple[int, int]], Any], keyed: bool
) -> None:
    each = {
        g.name: values(g.name, g.capability) for g in registry.generations if g.vendor == "nvidia"
    }
    assert (device_keys(each, registry) is not None) is keyed


@pytest.mark.parametrize(
    ("source", "memo"),
    [
        ("if cap not in warned:  #@\n    warned.add(cap)\n    log(cap)\n", True),
        ("if cap not in seen:  #@\n    seen[cap] = 1\n", True),
        ("if cap not in seen:  #@\n    seen.setdefault(cap, [])\n", True),
        # A cache: looked up first, filled further down the function.
        (
            "def f(arch):\n    if arch in cache:  #@\n        return cache[arch]\n"
            "    cache[arch] = load(arch)\n    return cache[arch]\n",
            True,
        ),
        # Noops: the branch fills another container, or with another value; not an `if`.
        ("if cap not in warned:  #@\n    other.add(cap)\n", False),
        ("if cap not in warned:  #@\n    warned.add(arch)\n", False),
        ("if arch not in built['arches']:  #@\n    raise RuntimeError(arch)\n", False),
        ("ok = cap not in warned  #@\n", False),
    ],
)
def test_is_memo(source: str, memo: bool) -> None:
    statement = extract_node(source)
    assert isinstance(statement, (nodes.If, nodes.Assign))
    test = statement.test if isinstance(statement, nodes.If) else statement.value
    assert isinstance(test, nodes.Compare)
    assert is_memo(test.left, test.ops[0][1], stores(test.frame())) is memo


def _lines(make_tree: MakeTree, source: str) -> list[int]:
    files = {"pkg/__init__.py": "", "pkg/mod.py": source}
    report = run_audit([make_tree(files)], load_ruleset([]), "sm120")
    return sorted(g.found.line for g in report.gates if g.path.name == "mod.py")


WARN_ONCE = """import torch

_PINNED = {(9, 0): 64, (10, 0): 128}
_WARNED = set()


def tile(device):
    cap = torch.cuda.get_device_capability(device)
    if cap in _PINNED:
        return _PINNED[cap]
    if cap not in _WARNED:
        _WARNED.add(cap)
        print("untuned", cap)
    return 32
"""

CALLERS = """import torch


def _pointer_loads(capability):
    return capability[0] < 9


def run():
    return 1 if _pointer_loads(torch.cuda.get_device_capability()) else 2


def check():
    assert _pointer_loads((8, 0))
    assert not _pointer_loads((9, 0))
"""


def test_a_warning_given_once_per_device_is_no_gate(make_tree: MakeTree) -> None:
    # The `cap in _PINNED` test is one; the memo of the devices warned about is not.
    assert _lines(make_tree, WARN_ONCE) == [9]


def test_a_parameter_some_callers_fill_with_constants_is_not_the_devices(
    make_tree: MakeTree,
) -> None:
    # `_pointer_loads` is called with the device's capability and with constants: its
    # test is read at the call that passes the device's (line 9), not as the device
    # against data in its own body (line 5).
    assert _lines(make_tree, CALLERS) == [9]


@pytest.mark.parametrize(
    ("source", "literal"),
    [
        ("None", True),
        ("(9, 0)", True),
        ("['sm_90a', 'sm_100a']", True),
        ("record['arches']", False),
        ("(major, 0)", False),
        ("quant_config.get_min_capability()", False),
    ],
)
def test_is_literal(source: str, literal: bool) -> None:
    assert is_literal(extract_node(source)) is literal


@pytest.mark.parametrize(
    ("op", "values", "literal", "alike"),
    [
        ("is", [(9, 0), (12, 0)], "None", True),  # never None: the None is a caller's
        ("is", [None, "sm_100a"], "None", False),  # None off a table: the device's
        ("==", [(9, 0), (12, 0)], "(9, 0)", False),
        ("in", [(9, 0), (12, 0)], "((9, 0), (12, 0))", True),
        ("in", [OneOf(("sm_90", "sm_90a")), "sm_100a"], "('sm_90a',)", False),
        ("<", [(9, 0), "sm_100a"], "(10, 0)", False),  # cannot be compared: not alike
    ],
)
def test_alike_against(op: str, values: list[Any], literal: str, alike: bool) -> None:
    each = {f"g{i}": v for i, v in enumerate(values)}
    assert alike_against(op, each, extract_node(literal)) is alike


def test_a_modules_stores_are_its_own_statements() -> None:
    # A module-level test's memo is filled at module level; the functions' bodies are
    # not walked (a lazy tree would build each one).
    module = extract_node("seen = set()\nseen.add(a)\n\ndef f(b):\n    seen.add(b)\n").root()
    assert stores(module) == frozenset({("seen", "a")})
