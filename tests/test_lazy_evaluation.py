"""Operands that cannot change a value are not evaluated, so the modules behind them are
never built (most conditions of a large project do not depend on the GPU: building what
they import was most of an audit's evaluation time). Each case: the condition's admitted
set, and which project modules evaluating it built."""

from __future__ import annotations

from pathlib import Path

import pytest
from astroid import nodes

from gatecheck.config.model import RuleSet
from gatecheck.discovery import discover
from gatecheck.loading.project import Project
from gatecheck.semantics.admitted import Semantics
from tests.conftest import write_tree

HEAVY = """
import torch

class Config:
    pass

LIMIT = 4

def value():
    return torch.cuda.get_device_capability()[0] >= 9
"""

GATE = """
import torch
from pkg.heavy import Config, LIMIT, value
from pkg.utils import is_sm90

def gate(param):
    return {expr}
"""

UTILS = """
import torch

def is_sm90():
    return torch.cuda.get_device_capability() == (9, 0)
"""

CASES = [
    # isinstance / hasattr of an unknown value: the class is never resolved
    pytest.param("isinstance(param, Config)", None, set(), id="isinstance-unknown"),
    pytest.param("hasattr(param, LIMIT)", None, set(), id="hasattr-unknown"),
    # a one-step comparison with an unknown left side
    pytest.param("param.size == LIMIT", None, set(), id="compare-unknown-left"),
    pytest.param("param + LIMIT > 3", None, set(), id="binop-unknown-left"),
    # an unresolvable callee: its arguments cannot matter
    pytest.param("param.method(value())", None, set(), id="unknown-callee"),
    # an external call that is neither an intrinsic nor a wrapper: decided by its name
    pytest.param("torch.zeros(value()) is None", None, set(), id="external-call"),
    # ...but the arguments are read where they decide
    # (gfx90a: ROCm reports capability (9, 0), see rules/generations.yaml)
    pytest.param(
        "value() and is_sm90()", {"sm90", "gfx90a"}, {"heavy", "utils"}, id="known-callee"
    ),
    pytest.param(
        "LIMIT == 4 and is_sm90()", {"sm90", "gfx90a"}, {"heavy", "utils"}, id="known-left"
    ),
    pytest.param(
        "torch.cuda.get_device_capability(param)[0] == 12",
        {"sm120", "sm121"},
        set(),
        id="intrinsic-ignores-arguments",
    ),
    # a chained comparison still reads every step (a later step may be False)
    pytest.param("param < 3 < LIMIT - 2", "all-false", {"heavy"}, id="chain-reads-all"),
]


@pytest.mark.parametrize(("expr", "admitted", "built"), CASES)
def test_lazy(
    tmp_path: Path, ruleset: RuleSet, expr: str, admitted: object, built: set[str]
) -> None:
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/heavy.py": HEAVY,
            "pkg/utils.py": UTILS,
            "pkg/gate.py": GATE.format(expr=expr),
        },
    )
    found = discover([tmp_path])
    project = Project(found.files, found.roots)
    module = project.module("pkg.gate")
    assert module is not None
    returned = next(module.nodes_of_class(nodes.Return)).value
    admission = Semantics(project, ruleset.registry).admission(returned)
    every = ruleset.registry.all_names()
    if admitted is None:
        # Unknown for every generation: can be true and can be false everywhere.
        assert admission.can_be_true == every and admission.can_be_false == every
    elif admitted == "all-false":
        assert admission.can_be_true == frozenset()
    else:
        assert set(admission.can_be_true) == admitted
    loaded = {str(m.name).rsplit(".", 1)[-1] for m in project.loaded_modules()} - {"gate"}
    assert loaded == built


def test_method_of_the_class_itself_leaves_bases_unresolved(
    tmp_path: Path, ruleset: RuleSet
) -> None:
    """A lookup the class answers never resolves its bases (the MRO is walked lazily);
    a name only a base binds still is found there."""
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/heavy.py": "class Base:\n    def inherited(self):\n        return True\n",
            "pkg/utils.py": UTILS,
            "pkg/gate.py": (
                "from pkg.heavy import Base\n"
                "from pkg.utils import is_sm90\n\n"
                "class Layer(Base):\n"
                "    def own(self):\n"
                "        return is_sm90()\n\n"
                "    def gate(self):\n"
                "        return self.own()\n\n"
                "    def other(self):\n"
                "        return self.inherited() and is_sm90()\n"
            ),
        },
    )
    found = discover([tmp_path])
    project = Project(found.files, found.roots)
    module = project.module("pkg.gate")
    assert module is not None
    returns = {
        str(r.frame().name): r.value
        for r in module.nodes_of_class(nodes.Return)
        if isinstance(r.frame(), nodes.FunctionDef)
    }
    semantics = Semantics(project, ruleset.registry)
    assert set(semantics.admission(returns["gate"]).can_be_true) == {"sm90", "gfx90a"}
    assert {str(m.name) for m in project.loaded_modules()} == {"pkg.gate", "pkg.utils"}
    assert set(semantics.admission(returns["other"]).can_be_true) == {"sm90", "gfx90a"}
    assert "pkg.heavy" in {str(m.name) for m in project.loaded_modules()}
