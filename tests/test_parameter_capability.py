"""A capability that arrives as a parameter (issue 17, item 1): read inside its function
with no caller binding it, a parameter annotated with a capability class or named like a
capability is the device's, marked assumed. Called with an argument, the argument wins."""

from __future__ import annotations

import pytest
from astroid import nodes

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Admission, Semantics, admission_of, in_memory_project

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

def tvm_probe(compute_version):
    return compute_version in ("8.9", "9.0") or int(compute_version.split(".")[0]) >= 10

def a_version(version):
    return int(version.split(".")[0]) >= 9

def sm_typed(sm_version: int):
    return sm_version >= 100

def sm_optional(sm_version: Optional[int]):
    return sm_version >= 100

def sm_as_text(sm_version: str):
    return sm_version >= "100"

def either_form(compute_version: str | tuple[int, int]):
    return isinstance(compute_version, str) and compute_version.startswith("12.")
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
    # TVM's compute version, "major.minor" (TileLang's probes, called from C++).
    ("tvm_probe", {"sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a"}),
    ("a_version", None),  # some version: a library's, a protocol's
    # Annotated with the type of the value the name promises: read as the name says.
    ("sm_typed", {"sm100", "sm103", "sm110", "sm120", "sm121"}),
    ("sm_optional", {"sm100", "sm103", "sm110", "sm120", "sm121"}),
    ("sm_as_text", None),  # another type: another encoding
    ("either_form", {"sm120", "sm121"}),
]


def _expression_in(module: nodes.Module, function: str) -> nodes.NodeNG:
    for func in module.nodes_of_class(nodes.FunctionDef):
        if func.name == function:
            statement = func.body[0]
            assert isinstance(statement, (nodes.Return, nodes.Assign))
            assert statement.value is not None
            return statement.value
    raise AssertionError(function)


def _admission(
    ruleset: RuleSet, source: str, function: str, follow_callers: bool = False
) -> Admission:
    """What the first returned or assigned expression of `function` in `source` admits
    (`follow_callers`: as the audit reads it)."""
    project = in_memory_project({"gate": source})
    module = project.module("gate")
    assert module is not None
    semantics = Semantics(project, ruleset.registry, follow_callers=follow_callers)
    return semantics.admission(_expression_in(module, function))


def _assert_read(ruleset: RuleSet, admission: Admission, admitted: set[str] | None) -> None:
    """`admitted` by the convention, marked assumed; None: unknown everywhere, unmarked."""
    if admitted is None:
        assert admission.can_be_true == ruleset.registry.all_names()
        assert not admission.assumed
    else:
        assert admission.can_be_true == admitted
        assert admission.assumed


@pytest.mark.parametrize(("function", "admitted"), CASES)
def test_parameter_inside_its_function(
    ruleset: RuleSet, function: str, admitted: set[str] | None
) -> None:
    _assert_read(ruleset, _admission(ruleset, SOURCE, function), admitted)


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
    admission = _admission(ruleset, TVM_SOURCE, function)
    if admitted is None:
        assert admission.can_be_true == ruleset.registry.all_names()
        assert not admission.assumed
    else:
        assert admission.can_be_true == admitted
        assert "parameter 'target: Target' (the device's compile target)" in admission.assumed


INSTANCE_SOURCE = """
import enum
from typing import Optional

import torch

class Board:
    def __init__(self):
        major, minor = torch.cuda.get_device_capability()
        self.sm = major * 10 + minor
        self.label = "board"

class Fixed:
    sm = 90

class Base:
    def __init__(self):
        self.sm = 0

class Cuda(Base):
    def __init__(self):
        major, minor = torch.cuda.get_device_capability()
        self.sm = major * 10 + minor

class Color(enum.Enum):
    RED = 1

def annotated(board: Board):
    return 80 <= board.sm < 89

def optional_typing(board: Optional[Board]):
    return board.sm >= 120

def optional_union(board: Board | None):
    return board.sm == 90

def not_from_the_device(board: Board):
    return board.label == "board"

def class_default(fixed: Fixed):
    return fixed.sm == 90

def base_annotated(dev: Base):
    return dev.sm >= 120

def an_enum(color: Color):
    return color.value == 1

def unannotated(board):
    return board.sm >= 120

ONE_BOARD = Board()

def which_instance(board: Board):
    return board == ONE_BOARD and board.sm >= 120

def maybe_none(board: Optional[Board]):
    return board is None or board.sm >= 120
"""
INSTANCE_ASSUMED = "(an instance of the class)"


@pytest.mark.parametrize(
    ("function", "admitted", "assumed"),
    [
        # What the class's `__init__` sets from the device is the attribute's value.
        ("annotated", {"sm80", "sm86", "sm87"}, True),
        ("optional_typing", {"sm120", "sm121"}, True),
        ("optional_union", {"sm90", "gfx90a"}, True),  # ROCm's torch: gfx90a is (9, 0)
        # Read through the instance, but not from the device: nothing to assume.
        ("not_from_the_device", None, False),
        # A class-level value read through an instance is only a default.
        ("class_default", None, False),
        # The base's instance (sm 0) or its subclass's (the device's): either.
        ("base_annotated", {"sm120", "sm121"}, True),
        ("an_enum", None, False),
        ("unannotated", None, False),
        # Which instance it is, or whether it is None, is not known.
        ("which_instance", {"sm120", "sm121"}, True),
        ("maybe_none", None, True),
    ],
)
def test_a_parameter_annotated_with_a_class_of_the_project(
    ruleset: RuleSet, function: str, admitted: set[str] | None, assumed: bool
) -> None:
    admission = _admission(ruleset, INSTANCE_SOURCE, function, follow_callers=True)
    if admitted is None:
        assert admission.can_be_true == ruleset.registry.all_names()
    else:
        assert admission.can_be_true == admitted
    noted = any(INSTANCE_ASSUMED in a for a in admission.assumed)
    assert noted == assumed, admission.assumed


def test_check_keeps_its_answers_for_an_annotated_instance(ruleset: RuleSet) -> None:
    # `check` reads no callers: the audit's reading is its own (0.10 -> 0.21 s of the
    # check's evaluation on sglang 0.5.9 when every annotated parameter was searched).
    admission = _admission(ruleset, INSTANCE_SOURCE, "annotated")
    assert admission.can_be_true == ruleset.registry.all_names()
    assert not admission.assumed


# `arch: str` in a module writing arch names out (FlashInfer's CuTe DSL backends): the
# arch's name as such code spells it ("sm_100", "sm_100a", "sm_100f", "100"), assumed.
ARCH_TEXT_SOURCE = """
FAST_ARCHS = ("sm_100a", "sm_103a")

def in_table(arch: str):
    return arch in FAST_ARCHS

def by_prefix(arch: str | None):
    return arch.startswith("sm_12")

def model(arch: str):
    return arch == "llama"

def untyped(arch):
    return arch in FAST_ARCHS

def typed_int(arch: int):
    return arch in FAST_ARCHS

def other_name(kind: str):
    return kind in FAST_ARCHS
"""

NO_ARCH_NAMES = """
def model(arch: str):
    return arch == "llama"
"""

ARCH_TEXT_CASES = [
    pytest.param(ARCH_TEXT_SOURCE, "in_table", {"sm100", "sm103"}, id="in-a-tuple-of-names"),
    pytest.param(ARCH_TEXT_SOURCE, "by_prefix", {"sm120", "sm121"}, id="a-prefix"),
    # Noops: a model's name is no spelling of an arch (false, as it is on a device);
    # unannotated, another type, another name; a module writing no arch name out.
    pytest.param(ARCH_TEXT_SOURCE, "model", set(), id="compared-with-another-name"),
    pytest.param(ARCH_TEXT_SOURCE, "untyped", None, id="noop-unannotated"),
    pytest.param(ARCH_TEXT_SOURCE, "typed_int", None, id="noop-an-int"),
    pytest.param(ARCH_TEXT_SOURCE, "other_name", None, id="noop-another-name"),
    pytest.param(NO_ARCH_NAMES, "model", None, id="noop-a-module-writing-no-arch-name"),
]


@pytest.mark.parametrize(("source", "function", "admitted"), ARCH_TEXT_CASES)
def test_an_arch_text_parameter(
    ruleset: RuleSet, source: str, function: str, admitted: set[str] | None
) -> None:
    _assert_read(ruleset, _admission(ruleset, source, function), admitted)
