"""A `for` target over a known list or tuple, read in the loop's body where no statement
walk binds it (the audit evaluates each condition on its own): it is one of the items
(env.loop_item), so a condition there can be true where it can for some item. xFormers'
device table (`for lim in LIMITS: if lim.sm == device_sm`) and vLLM's kernel choice
(`for kernel in KERNELS: if kernel.get_min_capability() > cc: continue`) were unknown
on every generation."""

from __future__ import annotations

import pytest
from astroid import nodes

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Semantics, admission_of, in_memory_project

AMD = frozenset({"gfx90a", "gfx942", "gfx950"})
NV_BELOW_9 = frozenset({"sm70", "sm75", "sm80", "sm86", "sm87", "sm89"})
EVERY = "every"

HEADER = """
import os
from dataclasses import dataclass

import torch

class Fast:
    @classmethod
    def min_capability(cls):
        return 90

class Slow:
    @classmethod
    def min_capability(cls):
        return 80

KERNELS = [Fast, Slow]

@dataclass
class Limit:
    name: str
    sm: tuple

LIMITS = (Limit("H100", (9, 0)), Limit("A100", (8, 0)), Limit("A30", (8, 0)))

def capability():
    major, minor = torch.cuda.get_device_capability()
    return major * 10 + minor
"""

# (body of `def probe():` after the header, the generations the condition on the line
# marked HERE admits, or EVERY)
CASES = [
    pytest.param(
        "cc = capability()\nfor k in [90, 80]:\n    if k > cc:  # HERE\n        return k\n",
        NV_BELOW_9,
        id="ints",
    ),
    pytest.param(
        "here = torch.cuda.get_device_capability()\n"
        "for t in ((9, 0), (8, 0), (7, 5)):\n"
        "    if t == here:  # HERE\n"
        "        return t\n",
        {"sm75", "sm80", "sm90", "gfx90a"},
        id="capability-tuples",
    ),
    pytest.param(
        "here = torch.cuda.get_device_capability()\n"
        "for lim in LIMITS:\n"
        "    if lim.sm == here:  # HERE\n"
        "        return lim\n",
        {"sm80", "sm90", "gfx90a"},
        id="table-of-records",
    ),
    pytest.param(
        "cc = capability()\n"
        "for kernel in KERNELS:\n"
        "    if kernel.min_capability() > cc:  # HERE\n"
        "        continue\n"
        "    return kernel\n",
        NV_BELOW_9,
        id="classes-with-a-classmethod-bound",
    ),
    pytest.param(
        "cc = capability()\n"
        "for kernel in (Fast, Slow):\n"
        "    if os.environ.get('X') or kernel.min_capability() > cc:  # HERE\n"
        "        break\n"
        "else:\n"
        "    return None\n",
        EVERY,  # the environment variable is unknown beside it
        id="beside-an-unknown",
    ),
    pytest.param(
        "cc = capability()\n"
        "for kernel in (Fast, Slow):\n"
        "    if kernel.min_capability() <= cc:  # HERE\n"
        "        break\n"
        "else:\n"
        "    return None\n",
        {"sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110"}
        | {"sm120", "sm121"}
        | AMD,
        id="with-break-and-else",
    ),
    pytest.param(
        "major = torch.cuda.get_device_capability()[0]\n"
        "for wanted, _ in ((9, 0), (10, 0)):\n"
        "    if wanted == major:  # HERE\n"
        "        return True\n",
        {"sm90", "sm100", "sm103"} | AMD,
        id="tuple-target",
    ),
    # Each name of a tuple target is one of its items: the pairs are not kept together,
    # so (8, 0) is admitted beside (9, 0) and (8, 6) (wider, never narrower).
    pytest.param(
        "here = torch.cuda.get_device_capability()\n"
        "for major, minor in ((9, 0), (8, 6)):\n"
        "    if (major, minor) == here:  # HERE\n"
        "        return True\n",
        {"sm80", "sm86", "sm90", "gfx90a"},
        id="tuple-target-pairs-not-kept",
    ),
    # Noops: shapes where one of the items is not all the name can hold.
    pytest.param(
        "cc = capability()\n"
        "for k in [90, 80]:\n"
        "    while cc:\n"
        "        if k > cc:  # HERE\n"
        "            break\n"
        "        k = 200\n",
        EVERY,  # the inner loop's next turn reads 200, true everywhere
        id="noop-rebound-in-the-body",
    ),
    pytest.param(
        "cc = capability()\n"
        "ks = [90]\n"
        "for k in ks:\n"
        "    if k > cc:  # HERE\n"
        "        return k\n"
        "    if len(ks) < 2:\n"
        "        ks.append(200)\n",
        EVERY,  # the list grows while it is iterated: 200 comes next
        id="noop-list-changed-in-the-loop",
    ),
    pytest.param(
        "cc = capability()\n"
        "for k in [90, int(os.environ.get('SM', '0'))]:\n"
        "    if k > cc:  # HERE\n"
        "        return k\n",
        EVERY,
        id="noop-an-item-unknown",
    ),
    pytest.param(
        "cc = capability()\n"
        "for k in [70, 75, 80, 86, 87, 89, 90, 100, 120]:\n"
        "    if k == cc:  # HERE\n"
        "        return k\n",
        EVERY,  # more options than logic.MAX_OPTIONS
        id="noop-too-many-items",
    ),
    pytest.param(
        "cc = capability()\n"
        "for k in os.environ.get('SMS', '90').split(','):\n"
        "    if int(k) > cc:  # HERE\n"
        "        return k\n",
        EVERY,
        id="noop-items-not-known",
    ),
]


def _marked_condition(module: nodes.Module, source: str) -> nodes.NodeNG:
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "# HERE" in text)
    for statement in module.nodes_of_class(nodes.If):
        if statement.lineno == line:
            return statement.test
    raise AssertionError(line)


@pytest.mark.parametrize(("body", "admitted"), CASES)
def test_loop_target_in_the_body(ruleset: RuleSet, body: str, admitted: object) -> None:
    indented = "".join(f"    {line}\n" for line in body.splitlines())
    source = f"{HEADER}\ndef probe():\n{indented}"
    project = in_memory_project({"gate": source})
    module = project.module("gate")
    assert module is not None
    semantics = Semantics(project, ruleset.registry, follow_callers=True)
    admission = semantics.admission(_marked_condition(module, source))
    expected = ruleset.registry.all_names() if admitted == EVERY else admitted
    assert admission.can_be_true == expected


# The same target read after its loop (a non-empty loop leaves it one of the items) and
# in a function's statement walk, where a loop with a break reads its iterations alike.
AFTER = [
    pytest.param(
        "cc = capability()\nfor k in [90, 80]:\n    pass\n",
        "k > cc",
        NV_BELOW_9,
        id="after-the-loop",
    ),
    pytest.param(
        "cc = capability()\nfor k in []:\n    pass\n",
        "k > cc",
        EVERY,
        id="noop-after-an-empty-loop",
    ),
    pytest.param(
        "def first_fit():\n"
        "    cc = capability()\n"
        "    for kernel in KERNELS:\n"
        "        if kernel.min_capability() > cc:\n"
        "            continue\n"
        "        return True\n"
        "    return False\n",
        "first_fit()",
        {"sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110"}
        | {"sm120", "sm121"}
        | AMD,
        id="walked-with-continue",
    ),
]


@pytest.mark.parametrize(("source", "expr", "admitted"), AFTER)
def test_loop_target_read_otherwise(
    ruleset: RuleSet, source: str, expr: str, admitted: object
) -> None:
    admission = admission_of(HEADER + source, expr, ruleset.registry)
    expected = ruleset.registry.all_names() if admitted == EVERY else admitted
    assert admission.can_be_true == expected
