"""A predicate returned or stored as a call that gives a truth (audit/conditions.py
_is_truth_call): `return any(major == m for m in (10, 12))`, `is_bw =
name.startswith("sm10")` are condition slots like `return major >= 10`, so the function
is a gate whose callers are its hops, and the files calling it are searched (the
widening). As an argument such a call is not a slot."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset

MakeTree = Callable[[Mapping[str, str]], Path]

HEAD = "import torch\n\ndef _major():\n    return torch.cuda.get_device_capability()[0]\n\n"
BLACKWELL = ("sm100", "sm103", "sm120", "sm121")


def rows(make_tree: MakeTree, source: str) -> list[tuple[str, int, tuple[str, ...]]]:
    report = run_audit(
        [make_tree({"pkg/__init__.py": "", "pkg/m.py": HEAD + source})], load_ruleset([]), "sm120"
    )
    return sorted((g.path.name, g.found.line, tuple(sorted(g.admits))) for g in report.gates)


CASES = [
    pytest.param(
        "def new_gpu():\n    return any(_major() == m for m in (10, 12))\n",
        [("m.py", 7, BLACKWELL)],
        id="any-returned",
    ),
    pytest.param(
        "def new_gpu():\n    return all(_major() != m for m in (7, 8, 9, 11))\n",
        [("m.py", 7, BLACKWELL)],
        id="all-returned",
    ),
    pytest.param(
        'def sm10x():\n    name = "sm%d" % _major()\n    return name.startswith("sm10")\n',
        [("m.py", 8, ("sm100", "sm103"))],
        id="startswith-returned",
    ),
    pytest.param(
        'USE = ("sm%d" % _major()).endswith("12")\n',
        [("m.py", 6, ("sm120", "sm121"))],
        id="endswith-assigned",
    ),
    # Noops.
    pytest.param(
        'def f(name):\n    return name.startswith("sm")\n',
        [],
        id="a-truth-call-that-does-not-vary",
    ),
    pytest.param(
        'def log(flag):\n    print(flag)\n\ndef run():\n    log(("sm%d" % _major()).startswith("sm10"))\n',
        [],
        id="an-argument-is-not-a-slot",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_a_truth_call_is_a_condition_slot(
    make_tree: MakeTree, source: str, expected: list[tuple[str, int, tuple[str, ...]]]
) -> None:
    assert rows(make_tree, source) == expected
