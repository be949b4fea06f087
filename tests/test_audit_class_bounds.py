"""Each class's own value of a bound its classmethod's gate reads through `cls` is a row
where the class assigns it (gatecheck/audit/class_bounds.py, kind `attribute`): the
generations the feature may be on through that gate for that class. Mini projects in the
layout of xFormers' operators (a base refusing by `cls.MIN`/`cls.MAX`, subclasses setting
their own); the noops say why no row is made."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

import astroid
import pytest
from astroid import nodes

from gatecheck.audit import AuditReport, run_audit
from gatecheck.audit.class_bounds import own_assignment, read_through_receiver
from gatecheck.config.model import RuleSet
from gatecheck.reporting.audit_json import render_audit_json
from gatecheck.reporting.audit_markdown import render_audit_markdown

MakeTree = Callable[[Mapping[str, str]], Path]
OLDER = ("sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90")
FROM_SM80 = ("sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121")
FROM_SM100 = ("sm100", "sm103", "sm110", "sm120", "sm121")

# A base refusing by two class-level bounds, as xFormers' not_supported_reasons does.
REFUSING = """\
import torch


class OpBase:
    MIN = (5, 0)
    MAX = None

    @classmethod
    def refusals(cls, device):
        reasons = []
        capability = torch.cuda.get_device_capability(device)
        if capability < cls.MIN:
            reasons.append("too old")
        if cls.MAX is not None and capability > cls.MAX:
            reasons.append("too new")
        return reasons
"""
# The same bound read by an enabling test (kept under a name that says so).
ENABLING = """\
import torch


class OpBase:
    MIN = (5, 0)

    @classmethod
    def configure(cls, device):
        use_fast_path = torch.cuda.get_device_capability(device) >= cls.MIN
        return use_fast_path
"""
# Read through an instance: the instance's class is whatever made it, not each subclass.
ON_INSTANCE = """\
import torch


class OpBase:
    MIN = (5, 0)

    def refusals(self, device):
        if torch.cuda.get_device_capability(device) < self.MIN:
            return ["too old"]
        return []
"""
# Two gates reading one bound: each lets through its own generations.
TWO_GATES = """\
import torch


class OpBase:
    MIN = (5, 0)

    @classmethod
    def refusals(cls, device):
        reasons = []
        if torch.cuda.get_device_capability(device) < cls.MIN:
            reasons.append("too old")
        return reasons

    @classmethod
    def fast_refusals(cls, device):
        reasons = []
        if torch.cuda.get_device_capability(device) < (cls.MIN[0] + 1, 0):
            reasons.append("no fast path")
        return reasons
"""


def _ops(body: str) -> str:
    return f"from pkg.ops.common import OpBase\n\n\n{body}"


def _files(base: str, ops: Mapping[str, str]) -> dict[str, str]:
    files = {"pkg/__init__.py": "", "pkg/ops/__init__.py": "", "pkg/ops/common.py": base}
    files.update({f"pkg/ops/{name}.py": _ops(body) for name, body in ops.items()})
    return files


def audit(make_tree: MakeTree, ruleset: RuleSet, base: str, ops: Mapping[str, str]) -> AuditReport:
    return run_audit([make_tree(_files(base, ops))], ruleset, "sm120")


def bound_rows(report: AuditReport) -> list[tuple[str, int, str, str, tuple[str, ...]]]:
    """(file, line, condition, feature, NVIDIA generations admitted) of each bound row (a
    class's own, or a construction's: kind `attribute`)."""
    return sorted(
        (
            g.path.name,
            g.start.line,
            g.condition,
            g.feature,
            tuple(x for x in report.registry.ordered(g.admits) if x.startswith("sm")),
        )
        for g in report.gates
        if g.found.kind.value == "attribute"
    )


@pytest.mark.parametrize(
    ("base", "ops", "expected"),
    [
        pytest.param(
            REFUSING,
            {"flash": "class FlashOp(OpBase):\n    MIN = (8, 0)\n    MAX = (9, 0)\n"},
            [
                ("flash.py", 5, "(8, 0)", "pkg.ops.flash.FlashOp", FROM_SM80),
                ("flash.py", 6, "(9, 0)", "pkg.ops.flash.FlashOp", OLDER),
            ],
            id="a-minimum-and-a-maximum-each-read-by-its-own-gate",
        ),
        pytest.param(
            REFUSING,
            {
                "flash": "class FlashOp(OpBase):\n    MIN = (8, 0)\n",
                "blackwell": "class BlackwellOp(OpBase):\n    MIN: tuple = (10, 0)\n",
            },
            [
                ("blackwell.py", 5, "(10, 0)", "pkg.ops.blackwell.BlackwellOp", FROM_SM100),
                ("flash.py", 5, "(8, 0)", "pkg.ops.flash.FlashOp", FROM_SM80),
            ],
            id="each-subclass-in-its-own-file-annotated-or-not",
        ),
        pytest.param(
            REFUSING.replace("MIN = (5, 0)", "MIN = (8, 0)"),
            {"blackwell": "class BlackwellOp(OpBase):\n    MIN = (10, 0)\n"},
            # The base's own (8, 0) is the default the gate's row reads: no row of its own.
            [("blackwell.py", 5, "(10, 0)", "pkg.ops.blackwell.BlackwellOp", FROM_SM100)],
            id="the-defining-class-value-is-the-gate-row-s",
        ),
        pytest.param(
            ENABLING,
            {"blackwell": "class BlackwellOp(OpBase):\n    MIN = (10, 0)\n"},
            [("blackwell.py", 5, "(10, 0)", "pkg.ops.blackwell.BlackwellOp", FROM_SM100)],
            id="an-enabling-gate-its-true-side",
        ),
        pytest.param(
            REFUSING,
            {
                "flash": "class FlashOp(OpBase):\n    MIN = (8, 0)\n\n\nclass Flash3(FlashOp):\n"
                "    MAX = (9, 0)\n"
            },
            [
                ("flash.py", 5, "(8, 0)", "pkg.ops.flash.FlashOp", FROM_SM80),
                ("flash.py", 9, "(9, 0)", "pkg.ops.flash.Flash3", OLDER),
            ],
            id="a-subclass-of-a-subclass-sets-the-other-bound",
        ),
        pytest.param(
            TWO_GATES,
            {"flash": "class FlashOp(OpBase):\n    MIN = (8, 0)\n"},
            # The first refusal lets sm80 on through, the second (a major past the
            # bound's) sm90 on: the bound lets through what both do.
            [("flash.py", 5, "(8, 0)", "pkg.ops.flash.FlashOp", FROM_SM80[4:])],
            id="two-gates-reading-one-bound",
        ),
    ],
)
def test_each_class_bound_is_a_row(
    make_tree: MakeTree,
    ruleset: RuleSet,
    base: str,
    ops: Mapping[str, str],
    expected: list[tuple[str, int, str, str, tuple[str, ...]]],
) -> None:
    assert bound_rows(audit(make_tree, ruleset, base, ops)) == expected


@pytest.mark.parametrize(
    ("base", "ops"),
    [
        # The bound (5, 0) every generation meets: the feature's side is all of them.
        pytest.param(REFUSING, {"old": "class OldOp(OpBase):\n    MIN = (5, 0)\n"}, id="meets-all"),
        # The gate answers the same for both classes: the bound decides nothing.
        pytest.param(
            REFUSING.replace("capability < cls.MIN", "capability < max(cls.MIN, (9, 0))"),
            {"flash": "class FlashOp(OpBase):\n    MIN = (8, 0)\n"},
            id="the-same-answer-for-every-class",
        ),
        # `self.MIN`: not read once per class, no class is the reading's.
        pytest.param(
            ON_INSTANCE,
            {"flash": "class FlashOp(OpBase):\n    MIN = (8, 0)\n"},
            id="read-through-an-instance",
        ),
        # Assigned twice in the class body: which one holds is not the class's one value.
        pytest.param(
            REFUSING,
            {"flash": "class FlashOp(OpBase):\n    MIN = (8, 0)\n    MIN = (9, 0)\n"},
            id="assigned-twice",
        ),
        # A class attribute no gate reads through `cls` (`NAME` is not compared).
        pytest.param(
            REFUSING,
            {"flash": "class FlashOp(OpBase):\n    NAME = 'flash'\n    MIN = (5, 0)\n"},
            id="not-read-by-a-gate",
        ),
    ],
)
def test_noop_no_bound_row(
    make_tree: MakeTree, ruleset: RuleSet, base: str, ops: Mapping[str, str]
) -> None:
    assert bound_rows(audit(make_tree, ruleset, base, ops)) == []


def test_a_bound_row_is_a_declaration_said_as_such(make_tree: MakeTree, ruleset: RuleSet) -> None:
    """Shown among the declarations, with where the generation stands against the bound;
    the row's reasons say it is outside what the class declares, not in a branch."""
    ops = {"flash": "class FlashOp(OpBase):\n    MIN = (8, 0)\n    MAX = (9, 0)\n"}
    report = audit(make_tree, ruleset, REFUSING, ops)
    section = render_audit_markdown(report).split("### Kernel declarations", 1)[1]
    assert "sm120 is outside the bound declared here" in section
    assert "sm120 is within the bound declared here" in section
    rows = json.loads(render_audit_json(report))["gates"]
    maximum = next(r for r in rows if r["kind"] == "attribute" and r["condition"] == "(9, 0)")
    assert maximum["declaration"] is True
    assert maximum["feature_source"] == "class"
    assert maximum["reasons"][0].endswith("sm120 is outside what it declares")


def test_a_bound_row_reads_the_base_module(make_tree: MakeTree, ruleset: RuleSet) -> None:
    """The row derives from the base's gate: `impact` must audit the class's file again
    when the base changes (its file's reads hold the base's module)."""
    files = _files(REFUSING, {"flash": "class FlashOp(OpBase):\n    MIN = (8, 0)\n"})
    report = run_audit([make_tree(files)], ruleset, "sm120", record_reads=True)
    reads = {r.path.name: r.reads for r in report.reads}
    assert "pkg.ops.common" in reads["flash.py"]


def test_only_keeps_rows_in_the_files_audited(make_tree: MakeTree, ruleset: RuleSet) -> None:
    """`only` (impact's files): a row in a file outside them is not made."""
    root = make_tree(_files(REFUSING, {"flash": "class FlashOp(OpBase):\n    MIN = (8, 0)\n"}))
    report = run_audit([root], ruleset, "sm120", only=[root / "pkg/ops/common.py"])
    assert bound_rows(report) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "class A:\n    @classmethod\n    def f(cls, d):\n        return d < cls.MIN or d > cls.MAX\n",
            ("MIN", "MAX"),
        ),
        (
            "class A:\n    @classmethod\n    def f(klass, d):\n        return d < klass.LO and klass.LO\n",
            ("LO",),
        ),
        # A function outside a class has no receiver.
        ("def f(cls, d):\n    return d < cls.MIN\n", ()),
        # Another name's attributes are not the receiver's.
        ("class A:\n    @classmethod\n    def f(cls, d):\n        return d < other.MIN\n", ()),
    ],
)
def test_read_through_receiver(source: str, expected: tuple[str, ...]) -> None:
    module = astroid.parse(source)
    compare = next(module.nodes_of_class(nodes.Compare))
    condition = compare.parent if isinstance(compare.parent, nodes.BoolOp) else compare
    assert read_through_receiver(condition) == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("    MIN = (8, 0)\n", "(8, 0)"),
        ("    MIN: tuple = (8, 0)\n", "(8, 0)"),
        ("    MIN: tuple\n", None),  # declared, not assigned
        ("    MIN = (8, 0)\n    MIN = (9, 0)\n", None),
        ("    MIN = MAX = (8, 0)\n", None),  # one value, two names: not the bound alone
        ("    if x:\n        MIN = (8, 0)\n", None),  # not at the class's top level
    ],
)
def test_own_assignment(body: str, expected: str | None) -> None:
    cls = next(astroid.parse(f"class A:\n{body}").nodes_of_class(nodes.ClassDef))
    found = own_assignment(cls, "MIN")
    assert (None if found is None else found.as_string()) == expected
