"""A "machine facts" object: attributes that no class defines, answered by the class's
`__getattr__` through a table of names to predicate functions (`get_platform().is_sm90`
in sglang 0.5.23, where `PlatformContext.__getattr__` looks `is_sm90` up in a dict and
calls `utils.common.is_sm90_supported`). Python calls `__getattr__` only when the normal
lookup fails, so the evaluator does the same: for an instance whose classes are all known,
after the class attributes and the instance attributes (`self.x = ...`, and
`object.__setattr__(self, "x", ...)` / `setattr(self, "x", ...)` in a method).
`object.__getattribute__(self, "x")` is the normal lookup without that fallback. The
mini-project is modelled on that layout, kept in memory."""

from __future__ import annotations

from pathlib import Path

import pytest
from astroid import nodes

from gatecheck.audit import GateClass, run_audit
from gatecheck.config.model import RuleSet
from gatecheck.loading.project import Project
from gatecheck.semantics.admitted import Admission, Semantics, in_memory_project
from tests.conftest import write_tree

COMMON = """
from functools import lru_cache, partial

import torch


def _check(majors):
    if torch.version.cuda is None:
        return False
    major, _minor = torch.cuda.get_device_capability()
    return major in majors


is_sm90_supported = lru_cache(maxsize=1)(partial(_check, majors=[9]))
is_sm100_supported = lru_cache(maxsize=1)(partial(_check, majors=[10]))
is_sm120_supported = lru_cache(maxsize=1)(partial(_check, majors=[12]))
"""

FACTS = """
from typing import Any, Dict

_PROBES: Dict[str, str] = {
    "is_sm90": "is_sm90_supported",
    "is_sm100": "is_sm100_supported",
    "is_sm120": "is_sm120_supported",
}
_VALUES: Dict[str, str] = {"capability": "get_capability"}


class MachineFacts:
    __slots__ = ("_overrides",)

    def __init__(self) -> None:
        object.__setattr__(self, "_overrides", {__OVERRIDES__})

    def __getattr__(self, name: str) -> Any:
        probe = _PROBES.get(name) or _VALUES.get(name)
        if probe is None:
            raise AttributeError(name)
        overrides = object.__getattribute__(self, "_overrides")
        if name in overrides:
            return overrides[name]
        from pkg.utils import common as _common

        return getattr(_common, probe)()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("facts are read-only")

    def is_cuda(self) -> bool:
        return True


_FACTS = MachineFacts()


def machine() -> MachineFacts:
    return _FACTS
"""

GATE = """
from pkg.facts import machine


def gate():
    return {expr}
"""

NV = {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110"}
NV |= {"sm120", "sm121"}
ALL = NV | {"gfx90a", "gfx942", "gfx950"}


def _files(expr: str, facts: str = FACTS, overrides: str = "") -> dict[str, str]:
    return {
        "pkg/__init__.py": "",
        "pkg/utils/__init__.py": "",
        "pkg/utils/common.py": COMMON,
        "pkg/facts.py": facts.replace("__OVERRIDES__", overrides),
        "pkg/gate.py": GATE.format(expr=expr),
    }


def _tree(expr: str, facts: str = FACTS, overrides: str = "") -> Project:
    return in_memory_project(_files(expr, facts, overrides))


def _admission(project: Project, ruleset: RuleSet) -> Admission:
    module = project.module("pkg.gate")
    assert module is not None
    returned = next(module.nodes_of_class(nodes.Return)).value
    return Semantics(project, ruleset.registry).admission(returned)


CASES = [
    pytest.param("machine().is_sm90", {"sm90"}, id="one-fact"),
    pytest.param("machine().is_sm90 or machine().is_sm100", {"sm90", "sm100", "sm103"}, id="or"),
    pytest.param("machine().is_sm120", {"sm120", "sm121"}, id="the-new-generation"),
    # A method the class defines is found before __getattr__ is ever asked.
    pytest.param("machine().is_cuda()", ALL, id="defined-method-first"),
    # A name the table lacks raises AttributeError: no value, not a gate.
    pytest.param("machine().is_sm999", ALL, id="not-in-the-table"),
]


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_facts_object(ruleset: RuleSet, expr: str, expected: set[str]) -> None:
    admission = _admission(_tree(expr), ruleset)
    assert set(admission.can_be_true) == expected


def test_an_override_set_in_init_answers_first(ruleset: RuleSet) -> None:
    # `object.__setattr__(self, "_overrides", {...})` is an instance attribute: with the
    # fact overridden to True, __getattr__ answers True on every generation.
    project = _tree("machine().is_sm90", overrides='"is_sm90": True')
    admission = _admission(project, ruleset)
    assert set(admission.can_be_true) == ALL
    assert set(admission.can_be_false) == set()


FALLBACK_UNKNOWN = [
    # A base that is not in the project may define the attribute itself.
    pytest.param(
        "class MachineFacts:",
        "from outside import FactsBase\n\n\nclass MachineFacts(FactsBase):",
        id="unknown-base",
    ),
    # Attributes set under names only known at runtime may shadow any fact.
    pytest.param(
        'object.__setattr__(self, "_overrides", {})',
        'object.__setattr__(self, "_overrides", {})\n'
        "        for key in list(_PROBES):\n"
        "            setattr(self, key, False)",
        id="dynamic-setattr",
    ),
]


@pytest.mark.parametrize(("old", "new"), FALLBACK_UNKNOWN)
def test_no_fallback_when_the_lookup_is_not_known_to_fail(
    ruleset: RuleSet, old: str, new: str
) -> None:
    facts = FACTS.replace("__OVERRIDES__", "").replace(old, new)
    assert facts != FACTS.replace("__OVERRIDES__", "")
    admission = _admission(_tree("machine().is_sm90", facts=facts), ruleset)
    assert set(admission.can_be_true) == ALL
    assert set(admission.can_be_false) == ALL


AUTO_ENABLE = """
from pkg.facts import machine


def fusion_overrides(tp_size: int) -> dict:
    if (machine().is_sm90 or machine().is_sm100) and tp_size > 1:
        return {"fusion_backend": "auto"}
    return {}
"""


def test_audit_finds_the_facts_gate(tmp_path: Path, ruleset: RuleSet) -> None:
    project_root = tmp_path  # the audit reads a tree on disk
    write_tree(project_root, {**_files("True"), "pkg/overrides.py": AUTO_ENABLE})
    report = run_audit([project_root / "pkg"], ruleset, "sm120")
    gates = [g for g in report.gates if g.path.name == "overrides.py"]
    assert len(gates) == 1, [(g.path.name, g.found.line) for g in report.gates]
    gate = gates[0]
    assert gate.found.line == 6
    assert gate.admits & NV == {"sm90", "sm100", "sm103"}
    assert gate.gate_class is GateClass.LIKELY_GAP, gate.reasons
