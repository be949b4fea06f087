"""A call handed to a worker and awaited, `pool.submit(f, *args, **kw).result()`, is the
call `f(*args, **kw)` (semantics/calls.py, _deferred): the worker runs the same function
on the same device."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

PROPS = """
import torch
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

def props(device, names, init=False):
    if init or torch.cuda.is_initialized():
        p = torch.cuda.get_device_properties(device)
        return tuple(getattr(p, n) for n in names)
    with ProcessPoolExecutor(max_workers=1) as pool:
        return pool.submit(props, device, names, True).result()

def major(device=0):
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(torch.cuda.get_device_capability, device).result()[0]

def by_keyword():
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(props, 0, names=("major",), init=True).result(timeout=5)[0]
"""

BLACKWELL_DC = frozenset({"sm100", "sm103"})

CASES = [
    pytest.param(
        PROPS, "props(0, ('major',))[0] == 10", BLACKWELL_DC, id="recursion-through-a-pool"
    ),
    pytest.param(
        PROPS, "major() >= 12", frozenset({"sm120", "sm121"}), id="an-intrinsic-submitted"
    ),
    pytest.param(PROPS, "by_keyword() == 10", BLACKWELL_DC, id="keyword-arguments-and-a-timeout"),
]


@pytest.mark.parametrize(("source", "expr", "expected"), CASES)
def test_submitted_call_is_the_call(
    ruleset: RuleSet, source: str, expr: str, expected: frozenset[str]
) -> None:
    assert_can_be_true(ruleset, source, expr, expected)


# Each refusal leaves the condition unknown on every generation (no gate), with its reason.
NOOPS = [
    pytest.param(
        PROPS + "\nclass Queue:\n    def submit(self, fn, *args):\n        return Handle()\n\n"
        "class Handle:\n    def result(self):\n        return None\n\n"
        "def queued():\n    return Queue().submit(torch.cuda.get_device_capability).result()\n",
        "queued() == (10, 0)",
        # The project's own `submit` is read as any method: its body returns a Handle.
        id="a-submit-of-the-project-is-read-as-written",
    ),
    pytest.param(
        PROPS + "\ndef spread(args):\n    with ThreadPoolExecutor(1) as pool:\n"
        "        return pool.submit(*args).result()\n",
        "spread((torch.cuda.get_device_capability,)) == (10, 0)",
        # The task is inside what is unpacked: not read.
        id="the-task-unpacked-is-not-read",
    ),
    pytest.param(
        PROPS + "\ndef later(pool):\n    fut = pool.submit(torch.cuda.get_device_capability)\n"
        "    return fut.result()\n",
        "later(None) == (10, 0)",
        # Only the call awaited where it is made: a future kept in a name may be any.
        id="a-future-kept-in-a-name",
    ),
]


@pytest.mark.parametrize(("source", "expr"), [p.values for p in NOOPS], ids=[p.id for p in NOOPS])
def test_other_shapes_stay_unknown(ruleset: RuleSet, source: str, expr: str) -> None:
    assert_can_be_true(ruleset, source, expr, EVERY)
