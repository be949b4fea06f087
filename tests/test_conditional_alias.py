"""A platform class, instance or module chosen by a condition no generation decides
(semantics/idioms/conditional_alias.py, values.OneOf): both sides of the three-valued
answer, a module alias across modules, and the audit row it makes. Pure: in memory."""

from __future__ import annotations

import textwrap

import pytest

from gatecheck.audit.conditions import classify_condition, outermost_slots
from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Semantics, admission_of, in_memory_project
from gatecheck.semantics.idioms.conditional_alias import _PLATFORMS
from gatecheck.semantics.logic import MAX_OPTIONS, MAX_REFERENCES, either
from gatecheck.semantics.values import UNKNOWN, ClassRef, OneOf
from tests.test_audit import MakeTree, audit, verdicts

ALIAS = _PLATFORMS + "Platform = NvmlPlatform if nvml_ok else NonNvmlPlatform\n"
SM12X = {"sm120", "sm121"}


def test_true_where_either_can_be_false_where_either_can(ruleset: RuleSet) -> None:
    # sm120: both options say True; sm121: NvmlPlatform says False, NonNvmlPlatform True.
    admission = admission_of(ALIAS, "Platform.supports_fp4()", ruleset.registry)
    every = ruleset.registry.all_names()
    assert admission.can_be_true == SM12X
    assert admission.can_be_false == every - {"sm120"}


def test_options_that_agree_keep_a_two_valued_answer(ruleset: RuleSet) -> None:
    source = _PLATFORMS + "Platform = NonNvmlPlatform if nvml_ok else NonNvmlPlatform\n"
    admission = admission_of(source, "Platform.supports_fp4()", ruleset.registry)
    assert admission.can_be_true == SM12X
    assert admission.can_be_false == ruleset.registry.all_names() - SM12X


def test_a_module_alias_across_modules(ruleset: RuleSet) -> None:
    modules = {
        "pkg.nvml_utils": "import torch\ndef fast():\n"
        "    return torch.cuda.get_device_capability() == (12, 0)\n",
        "pkg.plain_utils": "import torch\ndef fast():\n"
        "    return torch.cuda.get_device_capability()[0] in (10, 12)\n",
    }
    source = (
        "import os\nfrom pkg import nvml_utils, plain_utils\n"
        "utils = nvml_utils if os.environ.get('NVML') else plain_utils\n"
    )
    admission = admission_of(source, "utils.fast()", ruleset.registry, modules=modules)
    assert admission.can_be_true == {"sm100", "sm103", "sm120", "sm121"}
    assert admission.can_be_false == ruleset.registry.all_names() - {"sm120"}


def test_the_audit_lists_a_gate_through_the_alias(ruleset: RuleSet) -> None:
    source = ALIAS + "if Platform.supports_fp4():\n    kernel = 'fp4'\n"
    project = in_memory_project({"mod": textwrap.dedent(source)})
    module = project.module("mod")
    assert module is not None
    semantics = Semantics(project, ruleset.registry)
    nvidia = ruleset.registry.vendor_names("nvidia")
    found = [
        classify_condition(semantics, module, condition, statement, kind, nvidia)
        for condition, statement, kind in outermost_slots(module)
    ]
    last_if = source.count("\n") - 1
    gates = [f for f in found if f is not None and f.line == last_if]
    assert [(g.role.value, g.polarity.value, set(g.admits & nvidia)) for g in gates] == [
        ("gate", "enables", SM12X)
    ]


def _classes(count: int) -> list[ClassRef]:
    project = in_memory_project({"m": "".join(f"class C{i}:\n    pass\n" for i in range(count))})
    module = project.module("m")
    assert module is not None
    return [ClassRef(node) for node in module.body]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        pytest.param([1, 1], 1, id="equal-values-join"),
        pytest.param([1, 2], (1, 2), id="different-constants-are-one-of-them"),
        pytest.param(["hopper", "cuda", "hopper"], ("hopper", "cuda"), id="each-option-once"),
        pytest.param([1, "a"], (1, "a"), id="constants-of-two-kinds"),
        pytest.param([True, UNKNOWN], UNKNOWN, id="unknown-wins"),
        pytest.param([list(range(i)) for i in (1, 2)], ([0], [0, 1]), id="lists-of-constants-too"),
        pytest.param([[0], [[0]]], [UNKNOWN], id="lists-holding-lists-join-item-by-item"),
        pytest.param(list(range(MAX_OPTIONS + 1)), UNKNOWN, id="past-max-options"),
    ],
)
def test_either_on_plain_values(values: list[object], expected: object) -> None:
    """Differing constants stay one of them (a comparison or truth test of it is each
    option's); anything else meeting joins as before."""
    found = either(values)
    if isinstance(expected, tuple):
        assert isinstance(found, OneOf) and found.options == expected
    else:
        assert found is expected or found == expected


def test_either_keeps_differing_references_and_flattens() -> None:
    a, b, c = _classes(3)
    inner = either([a, b])
    assert isinstance(inner, OneOf) and inner.options == (a, b)
    outer = either([inner, c, a])
    assert isinstance(outer, OneOf) and outer.options == (a, b, c)
    assert either([a, ClassRef(a.node)]) == a  # one class, two references: no choice


@pytest.mark.parametrize(
    ("values", "reason"),
    [
        pytest.param("ref-and-none", "None is no reference: the call may fail instead"),
        pytest.param("ref-and-unknown", "an unknown option can be anything"),
        pytest.param("too-many", "past MAX_REFERENCES options the alias is unknown"),
    ],
)
def test_either_refusals(values: str, reason: str) -> None:
    refs = _classes(MAX_REFERENCES + 1)
    cases = {
        "ref-and-none": [refs[0], None],
        "ref-and-unknown": [refs[0], UNKNOWN],
        "too-many": refs,
    }
    assert either(cases[values]) is UNKNOWN, reason


def test_a_call_through_the_alias_of_a_gate_holding_method_is_a_hop(
    make_tree: MakeTree,
) -> None:
    # Both options share the method (one inherits it): the call site only passes on
    # the gate inside it, as a direct call would (test_audit's hop rule).
    report = audit(
        make_tree,
        "import os\n"
        "class CommunicatorBase:\n"
        "    def fuse(self, n):\n"
        "        return (is_sm90_supported() or is_sm100_supported()) and n > 0\n"
        "class CpCommunicator(CommunicatorBase):\n"
        "    pass\n"
        "comm = CpCommunicator() if os.environ.get('CP') else CommunicatorBase()\n"
        "def forward(x):\n"
        "    if comm.fuse(x) and x > 2:\n"
        "        return 1\n",
    )
    assert [line for line, _ in verdicts(report)] == [6]
    assert [h.line for h in report.hops] == [11]
