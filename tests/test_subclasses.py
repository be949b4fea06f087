"""A classmethod runs for its class or any subclass (semantics/subclasses.py): a
condition that reads through `cls` an attribute some subclass defines anew can be true
(false) wherever it can for one of those classes, each read as a whole (xFormers'
`AttentionOpBase.not_supported_reasons`: `cls.CUDA_MINIMUM_COMPUTE_CAPABILITY` is each
operator's own bound). In-memory mini-projects modelled on that layout."""

from __future__ import annotations

from pathlib import Path

import pytest
from astroid import nodes

from gatecheck.audit import run_audit
from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Semantics, in_memory_project
from tests.conftest import write_tree

_CLASS = """
import torch


class OpBase:
    MIN_CAPABILITY = (5, 0)
    MAX_CAPABILITY = None
"""
BASE = (
    _CLASS
    + """
    @classmethod
    def not_supported(cls, device):
        capability = torch.cuda.get_device_capability(device)
        too_old = capability < cls.MIN_CAPABILITY
        too_new = cls.MAX_CAPABILITY is not None and capability > cls.MAX_CAPABILITY
        return too_old or too_new

    def on_instance(self, device):
        return torch.cuda.get_device_capability(device) < self.MIN_CAPABILITY
"""
)
# The shape of xFormers' not_supported_reasons: each test appends a reason (disabling).
REASONS = (
    _CLASS
    + """
    @classmethod
    def not_supported_reasons(cls, device):
        reasons = []
        capability = torch.cuda.get_device_capability(device)
        if capability < cls.MIN_CAPABILITY:
            reasons.append("too old")
        if cls.MAX_CAPABILITY is not None and capability > cls.MAX_CAPABILITY:
            reasons.append("too new")
        return reasons
"""
)
OPS = """
from pkg.ops.common import OpBase


class FlashOp(OpBase):
    MIN_CAPABILITY = (8, 0)


class Flash3Op(FlashOp):
    MAX_CAPABILITY = (9, 0)


class PlainOp(FlashOp):
    pass
"""
BLACKWELL = """
from .common import OpBase


class BlackwellOp(OpBase):
    MIN_CAPABILITY = (10, 0)
"""
OPAQUE = """
import vendor_probe

from pkg.ops.common import OpBase


class ProbedOp(OpBase):
    MIN_CAPABILITY = vendor_probe.minimum()
"""
# Read only on AMD parts (ROCm's torch names its HIP release): unknown on every NVIDIA
# generation, it tells nothing of them.
ROCM_ONLY = """
import torch
import vendor_probe
from pkg.ops.common import OpBase


class RocmOp(OpBase):
    MIN_CAPABILITY = (9, 0) if torch.version.hip else vendor_probe.minimum()
"""
ELSEWHERE = """
from pkg.ops.common import OpBase


class FarOp(OpBase):
    MIN_CAPABILITY = (12, 0)
"""

OLDER = {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90"}
NEWER = {"sm100", "sm103", "sm110", "sm120", "sm121"}


def _semantics(ruleset: RuleSet, modules: dict[str, str]) -> tuple[Semantics, nodes.Module]:
    project = in_memory_project(modules)
    module = project.module("pkg.ops.common")
    assert module is not None
    return Semantics(project, ruleset.registry, ruleset.vocabulary), module


def _value_of(module: nodes.Module, target: str) -> nodes.NodeNG:
    for assign in module.nodes_of_class(nodes.Assign):
        names = [t.name for t in assign.targets if isinstance(t, nodes.AssignName)]
        if names == [target]:
            return assign.value
    raise AssertionError(target)


def _nvidia(generations: frozenset[str]) -> set[str]:
    return {g for g in generations if g.startswith("sm")}


LAYOUTS = {
    "subclasses below": {
        "pkg.ops.common": BASE,
        "pkg.ops.flash": OPS,
        "pkg.ops.blackwell": BLACKWELL,
    },
    "no subclass": {"pkg.ops.common": BASE},
    # ProbedOp's bound cannot be read: unknown on every generation, it tells nothing of
    # the generation and leaves the others' answer as it is.
    "an unreadable override": {
        "pkg.ops.common": BASE,
        "pkg.ops.flash": OPS,
        "pkg.ops.blackwell": BLACKWELL,
        "pkg.ops.probed": OPAQUE,
    },
    # RocmOp's bound is known on AMD parts only: of NVIDIA's it says nothing, and the
    # others' answer stands there (vendor by vendor: Semantics._told_by_vendor).
    "an override read on another vendor only": {
        "pkg.ops.common": BASE,
        "pkg.ops.flash": OPS,
        "pkg.ops.blackwell": BLACKWELL,
        "pkg.ops.rocm": ROCM_ONLY,
    },
}


@pytest.mark.parametrize(
    ("layout", "target", "can_be_true", "can_be_false"),
    [
        # (5, 0) on the base, (8, 0) and (10, 0) below: older than one of them.
        ("subclasses below", "too_old", OLDER, OLDER | NEWER),
        # Only Flash3Op sets a maximum; read per class, `is not None` and the
        # comparison hold together (one class, not one value of each).
        ("subclasses below", "too_new", NEWER, OLDER | NEWER),
        # Alone, the base's own bound admits every generation: never older.
        ("no subclass", "too_old", set(), OLDER | NEWER),
        ("no subclass", "too_new", set(), OLDER | NEWER),
        ("an unreadable override", "too_old", OLDER, OLDER | NEWER),
        ("an override read on another vendor only", "too_old", OLDER, OLDER | NEWER),
    ],
)
def test_classmethod_reads_each_class(
    ruleset: RuleSet, layout: str, target: str, can_be_true: set[str], can_be_false: set[str]
) -> None:
    semantics, module = _semantics(ruleset, LAYOUTS[layout])
    admission = semantics.admission(_value_of(module, target))
    assert _nvidia(admission.can_be_true) == can_be_true
    assert _nvidia(admission.can_be_false) == can_be_false


def test_subclass_outside_the_folder_is_not_looked_for(ruleset: RuleSet) -> None:
    """Subclasses are looked for below the defining module's folder only."""
    semantics, module = _semantics(ruleset, {"pkg.ops.common": BASE, "pkg.far": ELSEWHERE})
    admission = semantics.admission(_value_of(module, "too_old"))
    assert _nvidia(admission.can_be_true) == set()


def test_instance_method_is_not_widened(ruleset: RuleSet) -> None:
    """`self.x`: the instance's class is whatever made it (a class-level value read
    through an instance stays a default, unknown), not every subclass."""
    semantics, module = _semantics(ruleset, LAYOUTS["subclasses below"])
    compare = next(
        c
        for c in module.nodes_of_class(nodes.Compare)
        if c.frame().name == "on_instance"  # type: ignore[union-attr]
    )
    admission = semantics.admission(compare)
    assert admission.can_be_true == admission.can_be_false == ruleset.registry.all_names()


def test_called_on_a_class_reads_that_class(ruleset: RuleSet) -> None:
    """A call names the class: `FlashOp.not_supported(d)` is FlashOp's answer alone."""
    modules = dict(LAYOUTS["subclasses below"])
    modules["pkg.use"] = (
        "from pkg.ops.flash import FlashOp\n"
        "import torch\n"
        "refused = FlashOp.not_supported(torch.device('cuda'))\n"
    )
    project = in_memory_project(modules)
    module = project.module("pkg.use")
    assert module is not None
    semantics = Semantics(project, ruleset.registry, ruleset.vocabulary)
    admission = semantics.admission(_value_of(module, "refused"))
    assert _nvidia(admission.can_be_true) == {"sm70", "sm75"}
    assert _nvidia(admission.can_be_false) == OLDER - {"sm70", "sm75"} | NEWER


def test_audit_lists_the_base_class_gates(tmp_path: Path, ruleset: RuleSet) -> None:
    """End to end: both tests of the base class are listed (neither was: the base's own
    bounds admit every generation); each class's own bound is a row of its own
    (tests/test_audit_class_bounds.py)."""
    root = write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/ops/__init__.py": "",
            "pkg/ops/common.py": REASONS,
            "pkg/ops/flash.py": OPS,
            "pkg/ops/blackwell.py": BLACKWELL,
        },
    )
    report = run_audit([root], ruleset, "sm120")
    lines = sorted((g.path.name, g.start.line) for g in report.gates if g.path.name == "common.py")
    assert lines == [("common.py", 13), ("common.py", 15)]
    # Which operator shuts sm120 out, though another admits it (the row admits).
    too_new = next(g for g in report.gates if g.start.line == 15)
    assert too_new.reasons[-1] == (
        "read for each of the 4 classes its classmethod may run for: "
        "shuts sm120 out for 1 of them (flash.Flash3Op)"
    )
    too_old = next(g for g in report.gates if g.start.line == 13)
    assert not any("shuts" in r for r in too_old.reasons)
