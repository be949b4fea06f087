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
FIRST = 3 + MAJOR_OR_NONE.count("\n")  # the snippet's first line in mod.py


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
        pytest.param(
            "    def unchecked(self):\n"
            "        cap = self.capability_major()\n"
            "        return cap < 8\n",
            {},
            id="used-without-the-test-is-unknown",
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
    report = audit(make_tree, MAJOR_OR_NONE + snippet)
    found = {
        gate.found.line - FIRST: sorted(gate.found.admission.can_be_true)
        for gate in report.gates
        if gate.path.name == "mod.py"
    }
    assert found == rows
