"""Fixes are verified by one shared re-analysis per file, not one per fix (issue #15,
item 13: SARIF for 1,000 failing gates in one file ran for more than 10 minutes, one
re-analysis of the whole project per gate). The answers are the ones the one-by-one
verification gives: the same fixes kept, the same refusals with the same reasons."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gatecheck.config.loader import load_registry
from gatecheck.config.model import RuleSet
from gatecheck.fixing import fixer
from gatecheck.fixing.fixer import FixReport, plan_fixes
from gatecheck.fixing.source import FAST_PATH, analyse_in_memory, memory_path
from gatecheck.gates.results import Analysis

HEAD = "import torch\nfrom pkg.utils import is_sm90_supported, is_sm100_supported\n"
UTILS = """\
import torch
def _cap():
    return torch.cuda.get_device_capability()
def is_sm90_supported():
    return _cap() == (9, 0)
def is_sm100_supported():
    return _cap()[0] == 10
def is_sm120_supported():
    return _cap()[0] == 12
"""


def contained(index: int) -> str:
    """An `if` test fixed in place; the odd ones cannot be fixed (minor 1 has no sm120)."""
    minor = index % 2
    return (
        f"def adjust_{index}(args):\n"
        "    major, minor = torch.cuda.get_device_capability()\n"
        f"    if major in (9, 10) and minor == {minor}:\n"
        "        args.go = True\n"
    )


def through_import(index: int) -> str:
    """A `return` gate whose fix imports a sibling: read by its callers, so not contained."""
    return (
        f"def enabled_{index}(args):\n"
        "    return (is_sm90_supported() or is_sm100_supported()) and args.go\n"
    )


def _plan(source: str, *, one_by_one: bool, monkeypatch: pytest.MonkeyPatch) -> tuple:
    contents = {
        memory_path("gate"): source.encode(),
        memory_path("pkg", package=True): b"",
        memory_path("pkg.utils"): UTILS.encode(),
    }
    ruleset = RuleSet(load_registry(), (FAST_PATH,))
    calls: list[int] = []

    def rerun(overrides: dict[Path, bytes]) -> Analysis:
        calls.append(1)
        return analyse_in_memory({**contents, **overrides}, ruleset)

    with monkeypatch.context() as patch:
        if one_by_one:
            # The verification without the shared reading: each plan alone, in order.
            patch.setattr(fixer, "_shared", lambda *_args: None)
        report = plan_fixes(analyse_in_memory(contents, ruleset), ruleset, [], rerun=rerun)
    return _answers(report), len(calls)


def _answers(report: FixReport) -> tuple:
    return (
        sorted((f.start, p.summary) for f, p in report.fixed),
        sorted((f.start, reason) for f, reason in report.refused),
        {path: change.after for path, change in report.changes.items()},
    )


SHAPES: list[tuple[str, Callable[[int], str], int]] = [
    ("contained-if-tests", contained, 8),
    ("mixed-with-an-import-fix", lambda i: contained(i) if i % 3 else through_import(i), 6),
]


@pytest.mark.parametrize(("shape", "count"), [pytest.param(s, c, id=i) for i, s, c in SHAPES])
def test_shared_verification_gives_the_one_by_one_answers(
    monkeypatch: pytest.MonkeyPatch, shape: Callable[[int], str], count: int
) -> None:
    source = HEAD + "".join(shape(i) for i in range(count))
    shared, _reruns = _plan(source, one_by_one=False, monkeypatch=monkeypatch)
    alone, one_by_one_reruns = _plan(source, one_by_one=True, monkeypatch=monkeypatch)
    assert shared == alone
    fixed, refused, _changes = shared
    assert fixed and refused, "the shape must mix fixes and refusals to tell anything"
    assert one_by_one_reruns == count + 1


def test_many_contained_gates_cost_two_reanalyses(monkeypatch: pytest.MonkeyPatch) -> None:
    count = 200
    source = HEAD + "".join(contained(i) for i in range(count))
    (fixed, refused, _changes), reruns = _plan(source, one_by_one=False, monkeypatch=monkeypatch)
    # All of them together, then the ones kept, together again: not one per gate.
    assert reruns == 2
    assert len(fixed) == count // 2
    assert {reason for _start, reason in refused} == {
        "after the edit the gate still excludes sm120; file left untouched"
    }
    assert len(refused) == count // 2


def test_an_edit_reaching_a_gate_it_does_not_own_is_verified_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A `return` gate is read by its callers: its plan is not judged by the shared run."""
    source = HEAD + through_import(0) + contained(1)
    (fixed, refused, _changes), reruns = _plan(source, one_by_one=False, monkeypatch=monkeypatch)
    assert len(fixed) == 1 and len(refused) == 1
    assert reruns == 3  # together (fails), then each alone
