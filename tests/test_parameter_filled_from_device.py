"""A parameter that defaults to None and that its function fills from the device when it
is None (`if compute_capability is None: compute_capability = cap.to_int()`, vLLM's
kernel `is_supported`): read with no caller binding it, a value a caller passes stands
for a device's, in the form the fill gives, marked assumed. A fill that reads nothing
from the device, one that gives a setting the device decides rather than the device's
capability, SM number or major, or no fill, leaves the parameter unknown."""

from __future__ import annotations

import pytest
from astroid import nodes

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Semantics, admission_of, in_memory_project
from gatecheck.semantics.conventions import identifies

SOURCE = """
import os
import cutlass
import torch
import tvm

class Kernel:
    @classmethod
    def is_supported(cls, compute_capability: int | None = None):
        if compute_capability is None:
            capability = torch.cuda.get_device_capability()
            compute_capability = capability[0] * 10 + capability[1]
        return compute_capability in (100, 103) or 120 <= compute_capability < 130

def as_tuple(capability=None):
    if capability is None:
        capability = torch.cuda.get_device_capability()
    return capability >= (9, 0)

def constant_fill(block=None):
    if block is None:
        block = 64
    return block > 32

def no_fill(capability=None):
    if capability is None:
        return False
    return capability >= 90

def fill_in_a_try(capability=None):
    try:
        if capability is None:
            capability = torch.cuda.get_device_capability()
    except RuntimeError:
        pass
    return capability >= (9, 0)

def fill_from_the_environment(sm=None):
    if sm is None:
        sm = int(os.environ.get("SM", "90"))
    return sm >= 100

def tuning(enable_pdl=None):
    if enable_pdl is None:
        enable_pdl = torch.cuda.get_device_capability()[0] >= 9
    return enable_pdl

def optional_major(major=None):
    if major is None:
        major = -1 if not torch.cuda.is_available() else torch.cuda.get_device_capability()[0]
    return major >= 10

def cute_arch(spec, arch=None):
    if arch is None:
        arch = cutlass.base_dsl.BaseDSL._get_dsl().get_arch_enum()
    return arch.major == 9

def required(sm_major):
    if sm_major is None:
        sm_major = torch.cuda.get_device_capability()[0]
    return sm_major == 9

def device_arch():
    major, minor = torch.cuda.get_device_capability()
    return major * 10 + minor

def ternary_fill(x, _arch=None):
    arch = device_arch() if _arch is None else _arch
    return arch // 10 == 12

def ternary_fill_not_none(x, _arch=None):
    arch = _arch if _arch is not None else device_arch()
    return arch // 10 in [10, 11]

def ternary_fill_in_place(x, _arch=None):
    return (device_arch() if _arch is None else _arch) >= 90

def ternary_constant_fill(block=None):
    size = 64 if block is None else block
    return size > 32

def ternary_other_name(x, _arch=None, other=None):
    arch = device_arch() if _arch is None else other
    return arch // 10 == 12

def compute_version_text(compute_version=None):
    if compute_version is None:
        compute_version = tvm.cuda(0).compute_version
    return int(compute_version.split(".")[0]) >= 9

def arch_name_text(arch=None):
    if arch is None:
        major, minor = torch.cuda.get_device_capability()
        arch = f"sm_{major}{minor}"
    return arch in ("sm_90", "sm_100")

def other_text(mode=None):
    if mode is None:
        mode = "fast" if torch.cuda.get_device_capability()[0] >= 9 else "slow"
    return mode == "fast"
"""

FROM_SM90 = {"sm90", "sm100", "sm103", "sm110", "sm120", "sm121"}

# (function, what its returned expression admits; None: unknown on every generation,
# nothing assumed)
CASES = [
    ("is_supported", {"sm100", "sm103", "sm120", "sm121"}),
    ("as_tuple", FROM_SM90 | {"gfx90a", "gfx942", "gfx950"}),
    ("constant_fill", None),  # the fill reads nothing from the device
    ("no_fill", None),  # None only returns early: nothing says what a caller passes
    ("fill_in_a_try", None),  # not a top-level `if ... is None:` of the function
    ("fill_from_the_environment", None),  # an environment variable is not the device
    ("required", None),  # no default: the None test is the caller's business
    # A setting the device decides, not the device: a caller's value is a tuning choice.
    ("tuning", None),
    # The major, or -1 (one of a few options, the device's among them).
    ("optional_major", {"sm100", "sm103", "sm110", "sm120", "sm121"}),
    # The CuTe DSL's compile target (quack's `make_mma(spec, arch=None)`): not known
    # where the DSL has no target (before sm80, AMD), as the idiom reads it in place.
    ("cute_arch", {"sm90", "sm70", "sm75", "gfx90a", "gfx942", "gfx950"}),
    # The fill written as a choice (flash-attn-4's `_get_device_arch() if _arch is None
    # else _arch`), either way round, kept in a local or read in place.
    ("ternary_fill", {"sm120", "sm121"}),
    ("ternary_fill_not_none", {"sm100", "sm103", "sm110"}),
    ("ternary_fill_in_place", FROM_SM90 | {"gfx90a", "gfx942", "gfx950"}),
    ("ternary_constant_fill", None),  # the fill reads nothing from the device
    ("ternary_other_name", None),  # the other side is not the parameter tested
    # The device spelled as text: TVM's compute version ("9.0", TileLang's probes; not
    # known on AMD, where `tvm.cuda(0)` has none), an arch name.
    ("compute_version_text", FROM_SM90 | {"gfx90a", "gfx942", "gfx950"}),
    ("arch_name_text", {"sm90", "sm100", "gfx90a"}),
    ("other_text", None),  # a setting the device decides, spelled as text
]


def returned(module: nodes.Module, function: str) -> nodes.NodeNG:
    """The expression the last statement of `function` (a `return`) returns."""
    for func in module.nodes_of_class(nodes.FunctionDef):
        if func.name == function:
            statement = func.body[-1]
            assert isinstance(statement, nodes.Return) and statement.value is not None
            return statement.value
    raise AssertionError(function)


@pytest.mark.parametrize(("function", "admitted"), CASES)
def test_parameter_filled_from_the_device(
    ruleset: RuleSet, function: str, admitted: set[str] | None
) -> None:
    project = in_memory_project({"gate": SOURCE})
    module = project.module("gate")
    assert module is not None
    semantics = Semantics(project, ruleset.registry, follow_callers=True)
    admission = semantics.admission(returned(module, function))
    if admitted is None:
        assert admission.can_be_true == ruleset.registry.all_names()
        assert not admission.assumed
    else:
        assert admission.can_be_true == admitted
        assert any("its None default is the device's" in a for a in admission.assumed)


def test_a_callers_argument_wins(ruleset: RuleSet) -> None:
    assert admission_of(SOURCE, "as_tuple((8, 0))", ruleset.registry).can_be_true == frozenset()
    assert admission_of(SOURCE, "as_tuple((12, 0))", ruleset.registry).can_be_false == frozenset()


@pytest.mark.parametrize("function", ["is_supported", "as_tuple", "cute_arch"])
def test_the_none_test_itself_is_the_callers(ruleset: RuleSet, function: str) -> None:
    """`if capability is None:` reads what the caller passed, which may be the default:
    true or false on every generation (not a gate)."""
    project = in_memory_project({"gate": SOURCE})
    module = project.module("gate")
    assert module is not None
    func = next(f for f in module.nodes_of_class(nodes.FunctionDef) if f.name == function)
    test = func.body[0]
    assert isinstance(test, nodes.If)
    semantics = Semantics(project, ruleset.registry, follow_callers=True)
    admission = semantics.admission(test.test)
    assert admission.can_be_true == admission.can_be_false == ruleset.registry.all_names()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ((12, 0), True),
        (120, True),
        (12, True),
        ((10, 0), False),
        # A tuple holding a dict (FlashInfer 0.7.4's `(route, {...})` return): compared,
        # not hashed, so no TypeError ends the condition's analysis.
        (("sm_120a", {"arches": ["sm_120a"]}), False),
        ((12, [0]), False),
        (True, False),  # a flag the device decides is not its identity
    ],
)
def test_identifies(ruleset: RuleSet, value: object, expected: bool) -> None:
    assert identifies(value, ruleset.registry.get("sm120")) is expected
