"""Conditions the audit reads on their own (no body is run up to them), over a local
that may be None, tested before it is used: `cap = self.capability_major()` then
`cap is not None and cap < 8` (DeepSpeed's op builders). The None test narrows the
operands after it, so the condition is the capability's test: a row (by the generations
where it can be true), not unknown."""

from __future__ import annotations

import pytest

from tests.test_audit import MakeTree, audit

MAJOR_OR_NONE = """\
import torch


class Builder:
    def capability_major(self):
        if not torch.cuda.is_initialized():
            return None
        return torch.cuda.get_device_properties(0).major

"""


@pytest.mark.parametrize(
    ("snippet", "rows"),
    [
        pytest.param(
            "    def is_compatible(self):\n"
            "        cap = self.capability_major()\n"
            "        if cap is not None and cap < 8:\n"
            "            return False\n"
            "        return True\n",
            {2: ["sm70", "sm75"]},
            id="tested-then-compared",
        ),
        pytest.param(
            "    def too_old(self):\n"
            "        cap = self.capability_major()\n"
            "        return not (cap is None or cap >= 8)\n",
            {2: ["sm70", "sm75"]},
            id="none-or-compared-negated",
        ),
        # Ordering None raises: where `cap < 8` has a truth, cap is the major.
        pytest.param(
            "    def unchecked(self):\n"
            "        cap = self.capability_major()\n"
            "        return cap < 8\n",
            {2: ["sm70", "sm75"]},
            id="ordered-without-the-test-raises-on-none",
        ),
        # `==` and `in` do not raise on None, and None is not 7: without the test, the
        # major's test decides where it is false (None's is false too).
        pytest.param(
            "    def unchecked(self):\n"
            "        cap = self.capability_major()\n"
            "        return cap == 7\n",
            {2: ["sm70", "sm75"]},
            id="equality-without-the-test-is-the-majors",
        ),
        pytest.param(
            "    def unchecked(self):\n"
            "        cap = self.capability_major()\n"
            "        return bool(cap) and cap in (7, 8)\n",
            {2: ["sm70", "sm75", "sm80", "sm86", "sm87", "sm89"]},
            id="membership-without-the-test-is-the-majors",
        ),
        pytest.param(
            "    def two_bindings(self, given):\n"
            "        cap = self.capability_major()\n"
            "        if given:\n"
            "            cap = given\n"
            "        return cap is not None and cap < 8\n",
            {},
            id="a-second-binding-is-not-narrowed-here",
        ),
    ],
)
def test_a_none_test_narrows_the_rest_of_the_condition(
    make_tree: MakeTree, snippet: str, rows: dict[int, list[str]]
) -> None:
    assert admitted_rows(make_tree, MAJOR_OR_NONE, snippet) == rows


def admitted_rows(make_tree: MakeTree, preamble: str, snippet: str) -> dict[int, list[str]]:
    """The rows of mod.py, by the snippet's line (0 for its first), as admitted sets."""
    report = audit(make_tree, preamble + snippet)
    first = 3 + preamble.count("\n")
    return {
        gate.found.line - first: sorted(gate.found.admission.can_be_true)
        for gate in report.gates
        if gate.path.name == "mod.py"
    }


PROBE = """\
import torch


def probe(device):
    if device.type != "cuda":
        return None
    return torch.cuda.get_device_capability(device)


class Props:
    def __init__(self):
        self.major = torch.cuda.get_device_properties(0).major


def probe_sm(device):
    if device.type != "cuda":
        return None
    major, minor = torch.cuda.get_device_capability(device)
    return major * 10 + minor


def props(device):
    if device.type != "cuda":
        return None
    return Props()

"""
NEWER_THAN_HOPPER = ["sm100", "sm103", "sm110", "sm120", "sm121", "sm90"]


@pytest.mark.parametrize(
    ("snippet", "rows"),
    [
        # An item, an attribute or an unpacking of None raises: where the condition
        # has a truth, the local is the probe's value.
        pytest.param(
            "def f(device):\n    cap = probe(device)\n    return cap[0] == 10\n",
            {2: ["sm100", "sm103"]},
            id="item-of-a-local",
        ),
        pytest.param(
            "def f(device):\n    return probe(device)[0] == 10\n",
            {1: ["sm100", "sm103"]},
            id="item-of-the-call",
        ),
        pytest.param(
            "def f(device):\n    p = props(device)\n    return p.major == 9\n",
            {2: ["gfx90a", "gfx942", "gfx950", "sm90"]},
            id="attribute-of-a-local",
        ),
        pytest.param(
            "def f(device):\n    major, minor = probe(device)\n    return major == 9\n",
            {2: ["gfx90a", "gfx942", "gfx950", "sm90"]},
            id="unpacked-local",
        ),
        pytest.param(
            "def f(device):\n"
            "    cap = probe(device)\n"
            "    assert cap is not None\n"
            "    major, minor = cap\n"
            "    return major == 12\n",
            {4: ["sm120", "sm121"]},
            id="unpacked-after-an-assert",
        ),
        # `map(int, ...)` of known items, read whole or unpacked.
        pytest.param(
            "def f():\n"
            "    cap = tuple(map(int, torch.cuda.get_device_capability()))\n"
            "    return cap >= (10, 0)\n",
            {2: ["sm100", "sm103", "sm110", "sm120", "sm121"]},
            id="tuple-of-map-int",
        ),
        pytest.param(
            "def f():\n"
            "    major, minor = map(int, torch.cuda.get_device_capability())\n"
            "    return major == 8 and minor == 9\n",
            {2: ["sm89"]},
            id="map-int-unpacked",
        ),
        # A local that may be None passed on: the callee's parameter is its value
        # where the callee dereferences it; compared whole, None's and its value's.
        pytest.param(
            "def dtypes(capability):\n"
            "    major, minor = capability\n"
            "    return major >= 9\n"
            "def whole(capability):\n"
            "    return capability == (9, 0)\n"
            "def for_device(device):\n"
            "    cap = probe(device)\n"
            "    assert cap is not None\n"
            "    return dtypes(cap), whole(cap)\n",
            {2: ["gfx90a", "gfx942", "gfx950", *NEWER_THAN_HOPPER], 4: ["gfx90a", "sm90"]},
            id="passed-on-then-unpacked",
        ),
        # Arithmetic on None raises too (`==` alone would not).
        pytest.param(
            "def f(device):\n    sm = probe_sm(device)\n    return sm // 10 == 10\n",
            {2: ["sm100", "sm103"]},
            id="arithmetic-on-a-local",
        ),
        pytest.param(
            "def f(device):\n    return probe_sm(device) - 100 == 3\n",
            {1: ["sm103"]},
            id="arithmetic-on-a-call",
        ),
        # Equality does not raise on None, and None is not (9, 0): the capability's.
        pytest.param(
            "def f(device):\n    cap = probe(device)\n    return cap == (9, 0)\n",
            {2: ["gfx90a", "sm90"]},
            id="equality-with-none-or-the-capability",
        ),
        # Anything else that does not raise on None stays unknown.
        pytest.param(
            "def f(device):\n    p = props(device)\n    return p.__class__ is Props\n",
            {},
            id="dunder-attributes-exist-on-none",
        ),
        pytest.param(
            "def f(device):\n    cap = probe(device)\n    return 'sm%s' % cap == 'sm(9, 0)'\n",
            {},
            id="formatted-by-percent",
        ),
        pytest.param(
            "def f(device):\n    return len(map(int, probe(device))) == 2\n",
            {},
            id="len-of-an-iterator-raises",
        ),
    ],
)
def test_a_value_that_raises_on_none(
    make_tree: MakeTree, snippet: str, rows: dict[int, list[str]]
) -> None:
    assert admitted_rows(make_tree, PROBE, snippet) == rows
