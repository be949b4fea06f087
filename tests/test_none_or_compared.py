"""A value that may be None compared whole (expressions._none_or): a helper returns None
off CUDA and the device's capability on it, and the caller tests `helper(dev) == (8, 0)`.
Equality and membership do not raise on None, so the comparison is None's outcome or the
capability's: false wherever both are (None is not (8, 0)), unknown where they differ.
`!=`, `not in` and `is None` are true for None, so they stay true everywhere."""

from __future__ import annotations

import pytest
from astroid import nodes

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Semantics, in_memory_project
from tests.admission import EVERY, assert_can_be_true

HELPERS = """\
import torch

def cap(device):
    if device.type != "cuda":
        return None
    return torch.cuda.get_device_capability(device)

def cap_on_cuda(device):
    if device.type == "cuda":
        return torch.cuda.get_device_capability(device)
    return None

def name_or_none(device):
    if device.type != "cuda":
        return None
    return torch.cuda.get_device_name(device)
"""

CASES = [
    pytest.param("cap(dev) == (8, 0)", {"sm80"}, id="equal-to-a-capability"),
    pytest.param("cap_on_cuda(dev) == (8, 0)", {"sm80"}, id="guard-the-other-way-round"),
    pytest.param("(8, 9) == cap(dev)", {"sm89"}, id="capability-on-the-right"),
    pytest.param("cap(dev) in ((8, 0), (8, 9))", {"sm80", "sm89"}, id="in-a-tuple-of-capabilities"),
    pytest.param("cap(dev) in {(9, 0)}", {"sm90", "gfx90a"}, id="in-a-set-of-capabilities"),
    pytest.param(
        "cap(dev) == (9, 0) and cap(dev) is not None", {"sm90", "gfx90a"}, id="then-a-none-test"
    ),
]

# Each stays true on every generation: None makes it true, or the other side is unknown.
NOOPS = [
    pytest.param("cap(dev) != (8, 0)", id="not-equal-is-true-for-none"),
    pytest.param("cap(dev) not in ((8, 0),)", id="not-in-is-true-for-none"),
    pytest.param("cap(dev) is None", id="a-none-test-alone"),
    pytest.param("cap(dev) == None", id="equal-to-none"),
    pytest.param("cap(dev) == cap(other)", id="two-values-that-may-be-none"),
    pytest.param("cap(dev) == wanted", id="against-an-unknown"),
    pytest.param("name_or_none(dev) == 'H100'", id="none-or-an-unknown-value"),
]


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_none_or_a_capability_compared(ruleset: RuleSet, expr: str, expected: set[str]) -> None:
    assert_can_be_true(ruleset, HELPERS, expr, expected)


@pytest.mark.parametrize("expr", NOOPS)
def test_none_or_a_capability_compared_noop(ruleset: RuleSet, expr: str) -> None:
    assert_can_be_true(ruleset, HELPERS, expr, EVERY)


# A keyword-only parameter every caller passes the helper's result (a tuning table's
# selector, called with `capability=cap(x.device)`): None or the capability.
PARAMETER_CASES = [
    pytest.param(
        "def pick(*, capability, rows):\n"
        "    if capability == (8, 0):  # gate\n"
        "        return 1\n"
        "\n"
        "def run(x):\n"
        "    return pick(capability=cap(x.device), rows=1)\n",
        {"sm80"},
        id="parameter-given-the-helper-result",
    ),
    pytest.param(
        "def pick(*, capability):\n"
        "    if capability == (8, 9):  # gate\n"
        "        return 1\n"
        "\n"
        "def run(x):\n"
        "    c = cap(x.device)\n"
        "    return pick(capability=c)\n",
        {"sm89"},
        id="parameter-given-a-local-holding-it",
    ),
]


def _admits_marked(ruleset: RuleSet, source: str) -> frozenset[str]:
    """What the test on the line marked `# gate` admits, its parameters from the callers."""
    text = HELPERS + source
    project = in_memory_project({"gate": text})
    module = project.module("gate")
    assert module is not None
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "# gate" in t)
    test = next(n for n in module.nodes_of_class(nodes.If) if n.lineno == line).test
    return Semantics(project, ruleset.registry, follow_callers=True).admission(test).can_be_true


@pytest.mark.parametrize(("source", "expected"), PARAMETER_CASES)
def test_parameter_none_or_a_capability(ruleset: RuleSet, source: str, expected: set[str]) -> None:
    assert _admits_marked(ruleset, source) == expected
