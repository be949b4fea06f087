"""A condition Unknown on every generation still depends on the generation when, with
its unknown operands fixed alike, generations answer differently (free_atoms.py)."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import admission_of

PREDICATES = """
import os
import torch
flag = os.environ.get("USE_X") == "1"
other = os.environ.get("USE_Y") == "1"
def is_sm100():
    return torch.version.cuda is not None and float(torch.version.cuda) >= 12.8 and (
        torch.cuda.get_device_capability()[0] == 10)
def is_sm120():
    return float(torch.version.cuda) >= 12.8 and torch.cuda.get_device_capability()[0] == 12
use_fast = flag and not (is_sm100() or is_sm120())
"""

# (expr, whether it depends on the generation once its unknown operands are free)
CASES = [
    ("flag and not (is_sm100() or is_sm120())", True),
    ("use_fast", True),  # a name bound once to the same expression
    ("flag or is_sm120()", True),
    ("flag and other", False),
    ("flag", False),
    ("not flag", False),
    ("flag and (other or not other)", False),
]


@pytest.mark.parametrize(("expr", "depends"), CASES)
def test_depends_on_generation(ruleset: RuleSet, expr: str, depends: bool) -> None:
    admission = admission_of(PREDICATES, expr, ruleset.registry)
    every = ruleset.registry.all_names()
    assert admission.can_be_true == every and admission.can_be_false == every
    assert admission.depends_on_generation is depends


def test_dependence_is_per_generation_set(ruleset: RuleSet) -> None:
    admission = admission_of(PREDICATES, "flag and not is_sm120()", ruleset.registry)
    assert admission.depends_on(frozenset({"sm90", "sm120"}))
    assert not admission.depends_on(frozenset({"sm80", "sm90"}))
    assert not admission.depends_on(ruleset.registry.vendor_names("amd"))


def test_too_many_free_atoms_say_nothing(ruleset: RuleSet) -> None:
    names = [f"f{i}" for i in range(9)]
    source = "import os, torch\n" + "".join(f"{n} = os.environ.get('{n}')\n" for n in names)
    expr = (
        " and ".join(names[:-1])
        + f" and ({names[-1]} or torch.cuda.get_device_capability()[0] == 12)"
    )
    admission = admission_of(source, expr, ruleset.registry)
    assert admission.can_be_true == ruleset.registry.all_names()
    assert not admission.depends_on_generation
