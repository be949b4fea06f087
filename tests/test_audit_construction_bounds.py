"""Each construction's value of a field a method's gate reads through `self` is a row at
that value (gatecheck/audit/construction_bounds.py, kind `attribute`): the generations the
gate lets through for an instance holding it. Mini projects in the shape of a kernel
registry (a @dataclass capability record refusing by `cc < self.min_cc`, one record
constructed beside each kernel); the noops say why no row is made."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck.audit import AuditReport, run_audit
from gatecheck.config.model import RuleSet
from tests.test_audit_class_bounds import bound_rows

MakeTree = Callable[[Mapping[str, str]], Path]
FROM_SM90 = ("sm90", "sm100", "sm103", "sm110", "sm120", "sm121")
FROM_SM100 = FROM_SM90[1:]

RECORD = """\
from dataclasses import dataclass
from typing import Optional, Tuple

import torch


@dataclass(frozen=True)
class Needs:
    min_cc: Optional[Tuple[int, int]] = None
    tag: str = ""

    def ok(self, device=None):
        cc = torch.cuda.get_device_capability(device)
        if self.min_cc is not None and cc < self.min_cc:
            return False
        return True
"""
# A class that is not a dataclass: its fields are not read from its constructions here.
PLAIN = RECORD.replace("@dataclass(frozen=True)\n", "")
STATIC = RECORD.replace(
    "    def ok(self, device=None):\n", "    @staticmethod\n    def ok(self, device=None):\n"
)


def _kernel(body: str) -> str:
    return f"from pkg.reg.needs import Needs\n\n\n{body}"


def audit(
    make_tree: MakeTree,
    ruleset: RuleSet,
    record: str,
    kernels: Mapping[str, str],
    only: tuple[str, ...] | None = None,
) -> AuditReport:
    files = {"pkg/__init__.py": "", "pkg/reg/__init__.py": "", "pkg/reg/needs.py": record}
    files.update({f"pkg/reg/{name}.py": _kernel(body) for name, body in kernels.items()})
    root = make_tree(files)
    return run_audit(
        [root], ruleset, "sm120", only=None if only is None else [root / p for p in only]
    )


REGISTERED = """\
def register(needs):
    def wrap(fn):
        return fn

    return wrap


@register(Needs(min_cc=(9, 0)))
def hopper_norm(x):
    return x
"""


@pytest.mark.parametrize(
    ("kernels", "expected"),
    [
        pytest.param(
            {"a": "A = Needs(min_cc=(9, 0))\n", "b": "B = Needs(min_cc=(10, 0), tag='b')\n"},
            [
                ("a.py", 4, "(9, 0)", "pkg.reg.a", FROM_SM90),
                ("b.py", 4, "(10, 0)", "pkg.reg.b", FROM_SM100),
            ],
            id="a-keyword-in-each-file",
        ),
        pytest.param(
            {"a": "A = Needs((9, 0))\n", "b": "B = Needs(min_cc=(10, 0))\n"},
            [
                ("a.py", 4, "(9, 0)", "pkg.reg.a", FROM_SM90),
                ("b.py", 4, "(10, 0)", "pkg.reg.b", FROM_SM100),
            ],
            id="positional-or-keyword",
        ),
        pytest.param(
            # A construction leaving the default (None: no bound) is not a row.
            {"a": REGISTERED, "b": "B = Needs(min_cc=(10, 0))\n", "c": "C = Needs()\n"},
            [
                ("a.py", 11, "(9, 0)", "pkg.reg.a.hopper_norm", FROM_SM90),
                ("b.py", 4, "(10, 0)", "pkg.reg.b", FROM_SM100),
            ],
            id="registered-by-a-decorator-the-kernel-is-the-feature",
        ),
    ],
)
def test_each_construction_bound_is_a_row(
    make_tree: MakeTree,
    ruleset: RuleSet,
    kernels: Mapping[str, str],
    expected: list[tuple[str, int, str, str, tuple[str, ...]]],
) -> None:
    assert bound_rows(audit(make_tree, ruleset, RECORD, kernels)) == expected


# Made by a classmethod through `cls(...)` (sglang's `CapabilityRequirement.cuda(min_sm=
# ...)`): each call of the classmethod is a construction, at the value it passes.
FACTORY = RECORD.replace(
    "    def ok(self, device=None):\n",
    "    @classmethod\n    def at_least(cls, cc=None):\n        return cls(min_cc=cc)\n\n"
    "    def ok(self, device=None):\n",
)


def test_each_call_of_a_factory_classmethod_is_a_construction(
    make_tree: MakeTree, ruleset: RuleSet
) -> None:
    kernels = {
        "a": "A = Needs.at_least((9, 0))\n",
        "b": "B = Needs.at_least(cc=(10, 0))\n",
        "c": "C = Needs.at_least()\n",
    }
    assert bound_rows(audit(make_tree, ruleset, FACTORY, kernels)) == [
        ("a.py", 4, "(9, 0)", "pkg.reg.a", FROM_SM90),
        ("b.py", 4, "(10, 0)", "pkg.reg.b", FROM_SM100),
    ]


@pytest.mark.parametrize(
    ("record", "kernels"),
    [
        # One value: every construction answers alike, the gate's row says it.
        pytest.param(
            RECORD,
            {"a": "A = Needs(min_cc=(9, 0))\n", "b": "B = Needs(min_cc=(9, 0))\n"},
            id="one-value",
        ),
        # A value not known: which generations it lets through cannot be said.
        pytest.param(
            RECORD,
            {"a": "import os\nA = Needs(min_cc=os.environ['CC'])\n", "b": "B = Needs((10, 0))\n"},
            id="a-value-not-known",
        ),
        pytest.param(
            PLAIN,
            {"a": "A = Needs(min_cc=(9, 0))\n", "b": "B = Needs(min_cc=(10, 0))\n"},
            id="not-a-dataclass",
        ),
        pytest.param(
            STATIC,
            {"a": "A = Needs(min_cc=(9, 0))\n", "b": "B = Needs(min_cc=(10, 0))\n"},
            id="a-static-method-has-no-self",
        ),
    ],
)
def test_noop_no_construction_row(
    make_tree: MakeTree, ruleset: RuleSet, record: str, kernels: Mapping[str, str]
) -> None:
    assert bound_rows(audit(make_tree, ruleset, record, kernels)) == []


def test_only_keeps_rows_in_the_files_audited(make_tree: MakeTree, ruleset: RuleSet) -> None:
    kernels = {"a": "A = Needs(min_cc=(9, 0))\n", "b": "B = Needs(min_cc=(10, 0))\n"}
    report = audit(make_tree, ruleset, RECORD, kernels, only=("pkg/reg/needs.py", "pkg/reg/a.py"))
    assert [r[0] for r in bound_rows(report)] == ["a.py"]


def test_a_record_constructed_in_many_files_keeps_its_gate(
    make_tree: MakeTree, ruleset: RuleSet
) -> None:
    """Constructed beside each of nine kernels (past a function's eight caller files),
    the record's field is still read from its constructions: the gate is a row, and so
    is each construction's bound."""
    kernels = {f"k{i}": f"K = Needs(min_cc=({9 + i % 2}, 0))\n" for i in range(9)}
    report = audit(make_tree, ruleset, RECORD, kernels)
    gate = [g for g in report.gates if g.path.name == "needs.py"]
    assert [g.start.line for g in gate] == [14]
    assert len(bound_rows(report)) == 9
