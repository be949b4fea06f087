"""A capability that arrives as a parameter (issue 17, item 1): read inside its function
with no caller binding it, a parameter annotated with a capability class or named like a
capability is the device's, marked assumed. Called with an argument, the argument wins."""

from __future__ import annotations

import pytest
from astroid import nodes

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Semantics, admission_of, in_memory_project

SOURCE = """
from typing import Optional

class DeviceCapability:
    pass

class Backend:
    @classmethod
    def supports_compute_capability(cls, capability: DeviceCapability):
        return capability.major in [9, 10]

def pick(sm_version):
    return sm_version >= 100

class Kernel:
    def __init__(self, device_capability):
        self.ok = device_capability.major == 12

def plain(capability):
    return capability.major == 12

def defaulted(device_capability=None):
    return device_capability is None

def other_encoding(device_capability: int):
    return device_capability >= 100

def optional_string(device_capability: "DeviceCapability | None"):
    return device_capability is not None and device_capability.major == 10

def optional_typing(capability: Optional[DeviceCapability]):
    return capability.major == 12

def two_classes(capability: DeviceCapability | int):
    return capability.major == 12
"""

NVIDIA_9_10 = {"sm90", "sm100", "sm103"}

# (function name, the generations its first returned/assigned expression admits, or
# None: unknown everywhere)
CASES = [
    ("supports_compute_capability", NVIDIA_9_10 | {"gfx90a", "gfx942", "gfx950"}),
    ("pick", {"sm100", "sm103", "sm110", "sm120", "sm121"}),
    ("__init__", {"sm120", "sm121"}),
    ("plain", None),  # neither annotated nor named like a capability
    ("defaulted", None),  # the caller may leave the default
    ("other_encoding", None),  # annotated, but not with a capability class
    ("optional_string", {"sm100", "sm103"}),  # may be None; a capability where it is not
    ("optional_typing", {"sm120", "sm121"}),
    ("two_classes", None),  # a union of two kinds: no one class
]


def _expression_in(module: nodes.Module, function: str) -> nodes.NodeNG:
    for func in module.nodes_of_class(nodes.FunctionDef):
        if func.name == function:
            statement = func.body[0]
            assert isinstance(statement, (nodes.Return, nodes.Assign))
            assert statement.value is not None
            return statement.value
    raise AssertionError(function)


@pytest.mark.parametrize(("function", "admitted"), CASES)
def test_parameter_inside_its_function(
    ruleset: RuleSet, function: str, admitted: set[str] | None
) -> None:
    project = in_memory_project({"gate": SOURCE})
    module = project.module("gate")
    assert module is not None
    admission = Semantics(project, ruleset.registry).admission(_expression_in(module, function))
    if admitted is None:
        assert admission.can_be_true == ruleset.registry.all_names()
        assert not admission.assumed
    else:
        assert admission.can_be_true == admitted
        assert admission.assumed


def test_an_argument_wins_over_the_convention(ruleset: RuleSet) -> None:
    assert admission_of(SOURCE, "pick(90)", ruleset.registry).can_be_true == frozenset()
    assert admission_of(SOURCE, "pick(120)", ruleset.registry).can_be_false == frozenset()


TVM_SOURCE = """
from tvm.target import Target

class MyTarget:
    arch = "sm_90"

def supports(target: Target):
    return target.arch in ("sm_90", "sm_90a")

def by_attrs(target: Target):
    return target.attrs["arch"] == "sm_120"

def own_class(target: MyTarget):
    return target.arch in ("sm_90", "sm_90a")

def not_annotated(target):
    return target.arch in ("sm_90", "sm_90a")
"""
AMD = {"gfx90a", "gfx942", "gfx950"}  # no CUDA target there: unknown


@pytest.mark.parametrize(
    ("function", "admitted"),
    [
        # TVM's Target: the compile target TileLang passes along, taken to be the
        # device's as `Target.current()` is ("sm_90" or "sm_90a" on Hopper).
        ("supports", {"sm90", *AMD}),
        ("by_attrs", {"sm120", *AMD}),
        ("own_class", None),  # a class of the project's, not TVM's target
        ("not_annotated", None),  # named `target`, nothing says what it holds
    ],
)
def test_a_parameter_annotated_with_tvm_target(
    ruleset: RuleSet, function: str, admitted: set[str] | None
) -> None:
    project = in_memory_project({"gate": TVM_SOURCE})
    module = project.module("gate")
    assert module is not None
    semantics = Semantics(project, ruleset.registry)
    admission = semantics.admission(_expression_in(module, function))
    if admitted is None:
        assert admission.can_be_true == ruleset.registry.all_names()
        assert not admission.assumed
    else:
        assert admission.can_be_true == admitted
        assert "parameter 'target: Target' (the device's compile target)" in admission.assumed
