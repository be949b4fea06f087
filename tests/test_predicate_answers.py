"""A predicate's answer returned as a name, a call, an item or an attribute rather than
written as a condition is a slot (audit/conditions._predicate_answer): `ok, _ = probe();
return ok` in `is_fp8_ok`, `return supports_tma()` in `has_fast`. Where it only passes a
gate function's answer on it is a hop of that gate (listed under it); a predicate whose
answer comes from outside the scan tells nothing. A function not named like a predicate
is not looked into (its returns are values, not answers)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset

MakeTree = Callable[[Mapping[str, str]], Path]

SOURCE = """\
import torch
from te.fp8 import check_fp8_support


def probe():
    major, minor = torch.cuda.get_device_capability()
    if (major, minor) >= (8, 9):
        return True, ""
    return False, "needs Ada"


def is_fp8_ok():
    ok, _ = probe()
    return ok


def supports_tma():
    return torch.cuda.get_device_capability()[0] >= 9


def has_fast():
    return supports_tma()


def is_fp8_available():
    return check_fp8_support()[0]


def pick():
    ok, _ = probe()
    return ok
"""


def test_a_predicates_answer_returned_by_name_or_call_is_a_hop(make_tree: MakeTree) -> None:
    tree = make_tree({"pkg/__init__.py": "", "pkg/a.py": SOURCE})
    report = run_audit([tree], load_ruleset([]), "sm120")
    rows = sorted(g.found.line for g in report.gates)
    assert rows == [7, 18]  # probe's test and supports_tma's return
    # is_fp8_ok's `return ok` (probe's answer) and has_fast's `return supports_tma()`;
    # not is_fp8_available (from outside the scan), nor pick's (no predicate's name).
    assert sorted(h.line for h in report.hops) == [14, 22]


VERSIONS = """\
import torch


def _is_fa3_supported():
    if torch.cuda.get_device_capability()[0] != 9:
        return False, "FA3 needs Hopper"
    return True, None


def is_fa_version_supported(version):
    if version == 3:
        return _is_fa3_supported()[0]
    return True


def pick():
    if is_fa_version_supported(3):
        return "fa3"
    return "fa2"
"""


def test_a_number_written_at_the_call_keeps_the_call_a_gate(make_tree: MakeTree) -> None:
    """`is_fa_version_supported(3)` decides at the call, as `capability >= 75` would
    (conditions.written_comparison), also once the function's own answers are rows: a
    gate of its own, not a hop of them (vLLM's `is_fa_version_supported(4)` call sites)."""
    tree = make_tree({"pkg/__init__.py": "", "pkg/v.py": VERSIONS})
    report = run_audit([tree], load_ruleset([]), "sm120")
    rows = {g.found.line: sorted(g.found.admission.can_be_true) for g in report.gates}
    assert rows[17] == ["gfx90a", "gfx942", "gfx950", "sm90"]
    assert 17 not in {h.line for h in report.hops}
