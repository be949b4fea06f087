"""`match` on a device value (gatecheck/semantics/patterns.py): each `case`'s pattern is a
condition, true where the subject matches and the guard holds; the audit lists it as a
row of kind `case`, spelled as the case is, and reads the cases as one dispatch (an
if/elif chain's siblings). The statement walk skips a case that cannot be taken and the
cases after one that surely is."""

from __future__ import annotations

import textwrap

import pytest
from astroid import nodes

from gatecheck.audit.conditions import SlotKind, condition_text
from gatecheck.audit.not_gaps import match_chain
from gatecheck.config.model import RuleSet
from gatecheck.gates.model import Polarity
from gatecheck.semantics.admitted import Semantics, in_memory_project
from tests.test_audit_polarity import conditions
from tests.test_callers_union import _admits

HEADER = "import torch\n\ndef major():\n    return torch.cuda.get_device_capability()[0]\n\n"
MAJOR_9 = {"sm90", "gfx90a", "gfx942", "gfx950"}
MAJOR_10_11 = {"sm100", "sm103", "sm110"}
MAJOR_12 = {"sm120", "sm121"}


def _case_admits(ruleset: RuleSet, source: str) -> frozenset[str]:
    """Where the pattern of the case on the line marked `# gate` can be true."""
    text = HEADER + textwrap.dedent(source)
    project = in_memory_project({"mod": text})
    module = project.module("mod")
    assert module is not None
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "# gate" in t)
    (case,) = (c for c in module.nodes_of_class(nodes.MatchCase) if c.pattern.lineno == line)
    semantics = Semantics(project, ruleset.registry, follow_callers=True)
    return semantics.admission(case.pattern).can_be_true


DISPATCH = """
def tile(head_dim, paged):
    match major():
        case 8:
            return 64
        case 10 | 11:
            return 192
        case 12 if head_dim > 64:
            return 64
        case 12 if paged:
            raise ValueError("paged KV")
        case _:
            return 128
"""

# (source, the generations where the case marked `# gate` is taken)
CASES = [
    pytest.param(DISPATCH.replace("case 8:", "case 8:  # gate"), {"sm80", "sm86", "sm87", "sm89"}),
    pytest.param(DISPATCH.replace("case 10 | 11:", "case 10 | 11:  # gate"), MAJOR_10_11),
    pytest.param(
        DISPATCH.replace("case 12 if head_dim > 64:", "case 12 if head_dim > 64:  # gate"),
        MAJOR_12,
        id="a-guard-the-device-does-not-decide",
    ),
    pytest.param(
        "def f():\n"
        "    match torch.cuda.get_device_capability():\n"
        "        case (9, 0):  # gate\n"
        "            return 1\n",
        {"sm90", "gfx90a"},
        id="a-sequence-pattern-on-the-capability",
    ),
    pytest.param(
        "def f():\n"
        "    match major():\n"
        "        case 9 | 10 if major() == 9:  # gate\n"
        "            return 1\n",
        MAJOR_9,
        id="a-guard-the-device-decides",
    ),
    pytest.param(
        "def f():\n    match major():\n        case 7 | 8 | 9 as m:  # gate\n            return m\n",
        {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89", *MAJOR_9},
        id="an-or-pattern-captured",
    ),
]

# Patterns whose truth is not read: the case is taken on every generation or unknown.
NOOPS = [
    pytest.param(
        "def f():\n    match major():\n        case m if m >= 10:  # gate\n            return m\n",
        id="a-guard-reading-the-capture",
    ),
    pytest.param(
        "class Arch:\n    pass\n\n"
        "def f():\n    match major():\n        case Arch():  # gate\n            return 1\n",
        id="a-class-pattern",
    ),
    pytest.param(
        "def f():\n"
        "    match torch.cuda.get_device_capability():\n"
        "        case (9, *rest):  # gate\n"
        "            return 1\n",
        id="a-starred-sequence",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_a_case_is_taken_where_its_pattern_matches(
    ruleset: RuleSet, source: str, expected: set[str]
) -> None:
    assert _case_admits(ruleset, source) == expected


@pytest.mark.parametrize("source", NOOPS)
def test_patterns_that_are_not_read(ruleset: RuleSet, source: str) -> None:
    assert _case_admits(ruleset, source) == ruleset.registry.all_names()


# (source after the `major()` helper, where the `# gate` line is true) for a function whose
# answer a `match` chooses, called elsewhere: the walk's returns are the taken cases'.
CALLED = [
    pytest.param(
        "def tile():\n"
        "    match major():\n"
        "        case 9:\n"
        "            return 64\n"
        "        case _:\n"
        "            return 128\n"
        "\n"
        "def run():\n"
        "    return tile() == 64  # gate\n",
        MAJOR_9,
        id="the-wildcard-after-a-taken-case-is-not-reached",
    ),
    pytest.param(
        "def tile():\n"
        "    match major():\n"
        "        case 12:\n"
        "            return 64\n"
        "    return 128\n"
        "\n"
        "def run():\n"
        "    return tile() == 128  # gate\n",
        {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm100", "sm103", "sm110", *MAJOR_9},
        id="falling-through-where-no-case-is-taken",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CALLED)
def test_the_walk_takes_the_cases_that_can_be_taken(
    ruleset: RuleSet, source: str, expected: set[str]
) -> None:
    assert _admits(ruleset, source) == expected


def test_the_audit_lists_each_case_spelled_as_written(ruleset: RuleSet) -> None:
    # test_audit_polarity's module binds `major` itself: the match reads the name.
    found = conditions(ruleset, DISPATCH.replace("match major():", "match major:"))
    assert [(c.kind, condition_text(c.condition)) for c in found] == [
        (SlotKind.CASE, "case 8"),
        (SlotKind.CASE, "case 10 | 11"),
        (SlotKind.CASE, "case 12 if head_dim > 64"),
        (SlotKind.CASE, "case 12 if paged"),
    ]
    # The case that refuses shuts its generations out: the feature is where it is not taken.
    refusing = found[-1]
    assert refusing.polarity is Polarity.DISABLES
    assert not MAJOR_12 & refusing.admits - {"sm120", "sm121"}


def test_the_cases_of_a_match_are_one_dispatch() -> None:
    module = in_memory_project({"mod": HEADER + textwrap.dedent(DISPATCH)}).module("mod")
    assert module is not None
    cases = list(module.nodes_of_class(nodes.MatchCase))
    tests, last_else = match_chain(cases[1])
    assert [t.as_string() for t in tests] == ["8", "10 | 11", "12", "12"]
    assert [s.as_string() for s in last_else] == ["return 128"]
