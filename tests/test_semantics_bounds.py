"""Bounds on what one condition may cost (#15 items 3, 9, 14, 17): past a bound the
value is Unknown and the Admission says which bound was hit; odd constant expressions
never raise out of the evaluator. Pure: in-memory sources through admission_of()."""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatecheck.config.loader import load_ruleset
from gatecheck.config.model import RuleSet
from gatecheck.semantics import bounds
from gatecheck.semantics.admitted import admission_of

PREDICATE = "from sgl_kernel import is_sm90_supported"


@pytest.mark.parametrize(
    ("expr", "note"),
    [
        pytest.param("10**10**10", bounds.CONSTANT_TOO_LARGE, id="int-power"),
        pytest.param("'a' * 10**9", bounds.CONSTANT_TOO_LARGE, id="str-repeat"),
        pytest.param("[0] * 10**10", bounds.CONSTANT_TOO_LARGE, id="list-repeat"),
        pytest.param("2**4000 * 2**4000", bounds.CONSTANT_TOO_LARGE, id="int-product"),
        pytest.param("'%0999999999d' % 1", bounds.CONSTANT_TOO_LARGE, id="printf-width"),
        pytest.param("'ab'.replace('a', 'x' * 90000) * 2", bounds.CONSTANT_TOO_LARGE, id="method"),
        pytest.param('f"{10**5000}"', bounds.CONSTANT_TOO_LARGE, id="fstring-digit-limit"),
    ],
)
def test_constant_past_the_bound_is_unknown(ruleset: RuleSet, expr: str, note: str) -> None:
    admission = admission_of(PREDICATE, f"is_sm90_supported() and {expr}", ruleset.registry)
    # Unknown, not an error and not false: the predicate still decides.
    assert admission.can_be_true == {"sm90"}
    assert admission.bounds == {note}


@pytest.mark.parametrize(
    "expr",
    [
        pytest.param("({}[[]])", id="unhashable-key"),
        pytest.param("{[]: 1}", id="unhashable-dict-literal"),
        pytest.param("{[1], 2}", id="unhashable-set"),
        pytest.param("1 / 0", id="zero-division"),
        pytest.param("(1,)[5]", id="index-error"),
        pytest.param("int('x')", id="value-error"),
        pytest.param("2.0 ** 10000", id="overflow"),
        pytest.param("'a' < 1", id="unorderable"),
    ],
)
def test_raising_constant_is_unknown(ruleset: RuleSet, expr: str) -> None:
    """The analysed code would raise there: no value, so Unknown, and no bound was hit."""
    admission = admission_of(PREDICATE, f"is_sm90_supported() and {expr}", ruleset.registry)
    assert admission.can_be_true == {"sm90"}
    assert not admission.bounds


def test_a_large_known_constant_is_still_computed(ruleset: RuleSet) -> None:
    admission = admission_of(
        "import torch", "torch.cuda.get_device_capability()[0] * 2**64 > 2**67"
    )
    assert admission.can_be_true == {"sm90", "sm100", "sm103", "sm110", "sm120", "sm121"} | {
        "gfx90a",
        "gfx942",
        "gfx950",
    }
    assert not admission.bounds


def test_long_literal_is_unknown_without_evaluating_it(ruleset: RuleSet) -> None:
    big = "[" + ",".join(["1"] * (bounds.MAX_LENGTH + 1)) + "]"
    source = f"{PREDICATE}\nBIG = {big}"
    admission = admission_of(source, "is_sm90_supported() and 3 in BIG", ruleset.registry)
    assert admission.can_be_true == {"sm90"}
    assert admission.bounds == {bounds.LITERAL_TOO_LONG}


def test_deep_conditional_chain_is_unknown_and_said(ruleset: RuleSet) -> None:
    chain = " else ".join(f"is_sm90_supported() if X{i}" for i in range(1000)) + " else 0"
    source = PREDICATE + "\n" + "\n".join(f"X{i} = FLAG" for i in range(1000))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))  # as the CLI does: astroid builds it recursively
    try:
        admission = admission_of(source, chain, ruleset.registry)
    finally:
        sys.setrecursionlimit(limit)
    assert admission.can_be_true == ruleset.registry.all_names()
    assert admission.bounds == {bounds.TOO_NESTED}


def test_predicate_too_deep_to_follow_is_said(ruleset: RuleSet) -> None:
    lines = ["import torch", "def p0():", "    return torch.cuda.get_device_capability()[0] == 9"]
    for i in range(1, 26):
        lines += [f"def p{i}():", f"    return p{i - 1}()"]
    admission = admission_of("\n".join(lines), "p25()", ruleset.registry)
    assert admission.can_be_true == ruleset.registry.all_names()
    assert admission.bounds == {bounds.CALL_DEPTH}
    # 24 deep is followed.
    assert admission_of("\n".join(lines), "p23()", ruleset.registry).can_be_true == {
        "sm90",
        "gfx90a",
        "gfx942",
        "gfx950",
    }


TREE_WALK = """\
import torch


class Meta:
    def __init__(self, parent, key):
        self.parent = parent
        self.key = key


def build(a, key, parent, flag):
    for inner in ("x", "y", "z"):
        child = build(a, inner, Meta(parent, key), flag)
    return torch.cuda.get_device_capability()[0] >= 9
"""


def test_a_recursion_on_new_objects_is_followed_a_few_levels(ruleset: RuleSet) -> None:
    """Each level calls itself three times on a new object: followed to the call depth
    that was 3 ** 24 calls (a condition reaching it spent the whole step budget and
    read as unknown); MAX_RECURSION levels of it are followed, the rest is unknown."""
    admission = admission_of(TREE_WALK, "build(0, 'a', None, True)", ruleset.registry)
    assert admission.can_be_true == {"sm90", "sm100", "sm103", "sm110", "sm120", "sm121"} | {
        "gfx90a",
        "gfx942",
        "gfx950",
    }
    assert admission.bounds == {bounds.RECURSION}


def test_a_recursion_within_the_bound_is_followed(ruleset: RuleSet) -> None:
    source = (
        "import torch\n"
        "def major_at(levels):\n"
        "    if levels == 0:\n"
        "        return torch.cuda.get_device_capability()[0]\n"
        "    return major_at(levels - 1)\n"
    )
    deep = bounds.MAX_RECURSION - 1  # this many calls in progress below the first
    admission = admission_of(source, f"major_at({deep}) == 12", ruleset.registry)
    assert admission.can_be_true == {"sm120", "sm121"}
    assert not admission.bounds
    past = admission_of(source, f"major_at({deep + 1}) == 12", ruleset.registry)
    assert past.can_be_true == ruleset.registry.all_names()
    assert past.bounds == {bounds.RECURSION}


@pytest.mark.usefixtures("default_recursion_limit")
def test_alias_chain_deeper_than_the_stack_is_said(ruleset: RuleSet) -> None:
    lines = ["import torch", "A0 = torch.cuda.get_device_capability()[0] == 9"]
    lines += [f"A{i} = A{i - 1}" for i in range(1, 4000)]
    admission = admission_of("\n".join(lines), "A3999", ruleset.registry)
    assert admission.can_be_true == ruleset.registry.all_names()
    assert admission.bounds == {bounds.TOO_DEEP}


# -- fuzzing: odd constant expressions never raise out of the evaluator ------------------

_ATOMS = st.sampled_from(
    [
        "0",
        "1",
        "-1",
        "10",
        "10**5000",
        "2**4096",
        "1.5",
        "1e308",
        "float('nan')",
        "True",
        "None",
        "''",
        "'a'",
        "'%s'",
        "'%0999999d'",
        "b'x'",
        "()",
        "[]",
        "{}",
        "[[]]",
        "{1: 2}",
        "{1, 2}",
        "(1, 'a')",
        "FLAG",
        "torch.cuda.get_device_capability()",
    ]
)
_BINARY = st.sampled_from(["+", "-", "*", "/", "//", "%", "**", "&", "|", "<", "==", "in", "and"])


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(children, _BINARY, children).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(children, children).map(lambda t: f"({t[0]})[{t[1]}]"),
        st.tuples(children, children).map(lambda t: f"({t[0]})[{t[1]}:]"),
        children.map(lambda c: f"(not {c})"),
        children.map(lambda c: f"-({c})"),
        children.filter(lambda c: '"' not in c).map(lambda c: f'f"{{ {c} }}"'),
        st.tuples(
            st.sampled_from(["len", "str", "int", "tuple", "sorted", "abs", "max", "set"]), children
        ).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(children, children, children).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.tuples(children, children).map(lambda t: f"{{{t[0]}: {t[1]}}}"),
        st.tuples(children, children).map(lambda t: f"[x for x in {t[0]} if x == {t[1]}]"),
        st.tuples(children, children).map(lambda t: f"({t[0]}).get({t[1]})"),
    )


EXPRESSIONS = st.recursive(_ATOMS, _combine, max_leaves=8)


# A module constant, not the fixture: a failing case's report then stays short.
_REGISTRY = load_ruleset(None).registry


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=EXPRESSIONS)
def test_odd_constant_expressions_never_raise(expr: str) -> None:
    source = (
        "import os, torch\nfrom sgl_kernel import is_sm90_supported\nFLAG = os.environ.get('X')"
    )
    admission = admission_of(source, f"is_sm90_supported() and {expr}", _REGISTRY)
    assert admission.can_be_true <= {"sm90"}
