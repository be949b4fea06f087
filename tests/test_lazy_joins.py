"""A join stops at an unknown that decides it (gatecheck/semantics/lazy_joins.py): the
values after it are not evaluated, so neither are their reads (a naming convention a
discarded caller's argument rested on is not the answer's assumption), except where an
environment variable was read: the condition may be read again with none set, and the
rest's device reads call for that reading. In that reading (no variable set, the last
world asked) an unknown is final again."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from astroid import nodes

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Semantics, admission_of, in_memory_project
from gatecheck.semantics.lazy_joins import until_unknown
from gatecheck.semantics.values import UNKNOWN


@pytest.mark.parametrize(
    ("values", "environment", "unset", "yielded"),
    [
        pytest.param([1, 2, 3], False, False, [1, 2, 3], id="no-unknown-every-value"),
        pytest.param([1, UNKNOWN, 3], False, False, [1, UNKNOWN], id="stops-after-the-unknown"),
        pytest.param([UNKNOWN, 2, 3], False, False, [UNKNOWN], id="an-unknown-first-is-all"),
        pytest.param(
            [1, UNKNOWN, 3], True, False, [1, UNKNOWN, 3], id="an-environment-read-reads-on"
        ),
        pytest.param(
            [1, UNKNOWN, 3], True, True, [1, UNKNOWN], id="where-none-is-set-it-stops-again"
        ),
        pytest.param(
            [(1, UNKNOWN), 2], False, False, [(1, UNKNOWN), 2], id="a-part-unknown-is-no-stop"
        ),
    ],
)
def test_until_unknown(
    ruleset: RuleSet, values: list[Any], environment: bool, unset: bool, yielded: list[Any]
) -> None:
    semantics = Semantics(in_memory_project({"m": ""}), ruleset.registry)
    ev = semantics.evaluator("sm90", unset_environment=unset)
    evaluated: list[Any] = []

    def each() -> Iterator[Any]:
        for value in values:
            evaluated.append(value)
            yield value

    ev.reads.environment = environment
    assert list(until_unknown(ev, each())) == yielded
    assert evaluated == yielded  # what is not yielded is not evaluated either


def _test_of(module: nodes.Module, function: str) -> nodes.NodeNG:
    func = next(f for f in module.nodes_of_class(nodes.FunctionDef) if f.name == function)
    statement = func.body[0]
    assert isinstance(statement, nodes.Return) and statement.value is not None
    return statement.value


# The first caller passes what nothing can read; the second a parameter read by its name
# (it was the answer's assumption, though the answer is unknown whatever it passes).
DISCARDED = """
import vendor_lib


def _at_least_hopper(x):
    return x >= 9


def first():
    return _at_least_hopper(vendor_lib.probe())


def second(device_capability):
    return _at_least_hopper(device_capability)
"""

# The first caller passes an environment variable (None where it is unset: `.lower()`
# would raise, so it is read as the other caller's value); the second the device's
# platform name.
ENVIRONMENT = """
import os
import torch


def _is_b200(platform):
    return platform.lower() == "b200"


def pick():
    override = os.getenv("CONSISTENCY_PLATFORM")
    if override:
        return _is_b200(override)
    major = torch.cuda.get_device_capability()[0]
    return _is_b200("b200" if major == 10 else "h100")
"""


@pytest.mark.parametrize(
    ("source", "function", "admitted", "assumed"),
    [
        pytest.param(DISCARDED, "_at_least_hopper", None, set(), id="a-discarded-reading"),
        pytest.param(
            ENVIRONMENT,
            "_is_b200",
            {"sm100", "sm103"},
            {"CONSISTENCY_PLATFORM unset"},
            id="after-an-environment-variable",
        ),
    ],
)
def test_callers_after_an_unknown(
    ruleset: RuleSet,
    source: str,
    function: str,
    admitted: set[str] | None,
    assumed: set[str],
) -> None:
    project = in_memory_project({"gate": source})
    module = project.module("gate")
    assert module is not None
    semantics = Semantics(
        project, ruleset.registry, follow_callers=True, assume_unset_environment=True
    )
    admission = semantics.admission(_test_of(module, function))
    everything = ruleset.registry.all_names()
    assert admission.can_be_true == (everything if admitted is None else admitted)
    assert set(admission.assumed) == assumed


RETURNS = [
    pytest.param(
        "import vendor_lib\n\n\ndef pick():\n"
        "    if vendor_lib.ready():\n        return vendor_lib.value()\n"
        "    return is_hopper()\n",
        None,
        set(),
        id="a-path-returning-an-unknown-ends-the-body",
    ),
    pytest.param(
        "import os\nimport torch\n\n\ndef pick():\n"
        "    if os.getenv('FAST'):\n        return os.getenv('FAST') == '1'\n"
        "    return torch.cuda.get_device_capability()[0] >= 9\n",
        {"sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942", "gfx950"},
        {"FAST unset"},
        id="after-an-environment-variable-the-body-runs-on",
    ),
]


@pytest.mark.parametrize(("source", "admitted", "assumed"), RETURNS)
def test_a_body_after_an_unknown_return(
    ruleset: RuleSet, source: str, admitted: set[str] | None, assumed: set[str]
) -> None:
    """The first case read `is_hopper()` by its name (an assumption) for a value the
    unknown return made unknown anyway; the second needs the rest's device read to be
    read again where FAST is unset."""
    admission = admission_of(
        source, "pick()", ruleset.registry, follow_flow=True, assume_unset_environment=True
    )
    everything = ruleset.registry.all_names()
    assert admission.can_be_true == (everything if admitted is None else admitted)
    assert set(admission.assumed) == assumed


# The device read behind an override, then a body that read a variable before a path
# returning an unknown: unknown on NVIDIA as read (the override may be set), so it is read
# again with no variable set. There the unknown return decides `flag()`, and what its
# body would do after it (a constant too large: a bound) is not read.
AFTER_A_VARIABLE = """
import os
import torch


def capability():
    override = os.environ.get("ARCH_OVERRIDE")
    if override is not None:
        return int(override)
    return torch.cuda.get_device_capability()[0]


def flag():
    level = os.environ.get("LEVEL")
    if vendor_lib.ready():
        return vendor_lib.value()
    return 2 ** 100000 > 1
"""


def test_where_no_variable_is_set_an_unknown_return_ends_the_body(ruleset: RuleSet) -> None:
    admission = admission_of(
        AFTER_A_VARIABLE,
        "capability() == 9 and flag()",
        ruleset.registry,
        assume_unset_environment=True,
    )
    assert admission.unset_environment
    assert "sm90" in admission.can_be_true
    assert not {"sm80", "sm100", "sm120"} & admission.can_be_true
    assert set(admission.assumed) == {"ARCH_OVERRIDE unset", "LEVEL unset"}
    assert not admission.bounds  # the constant past the unknown return was not computed
