"""A gate admits the generations where its device reading is unknown (the CuTe DSL's arch
on sm70 or sm75, where the DSL does not run; Thor's two names in one range test), and
enumerates none of them: the enumeration evidence counts the majors where one of its arch
terms answers (classify.py: _told; a flag unknown wherever it admits keeps them all:
tests/test_rebound_flags.py). Each case a mini project audited for sm120: (source
of mod.py, expected class of its one gate, a piece of its first reason)."""

from __future__ import annotations

import pytest

from tests.test_audit import MakeTree, audit, mod_gates

HEAD = "from cutlass.base_dsl import BaseDSL\nfrom cutlass.base_dsl.arch import Arch\n\n\n"

CASES = [
    pytest.param(
        "def fast(a, b):\n"
        "    arch = BaseDSL._get_dsl().get_arch_enum()\n"
        "    if arch >= Arch.sm_103 and arch <= Arch.sm_103f:\n"
        "        return a()\n"
        "    return b()\n",
        "probably-deliberate",
        "a single-generation gate: admits only sm103 (sm70, sm75, sm110: unknown",
        id="a-cute-range-of-one-generation",
    ),
    # Still enumerations: a capability the device always gives, a CuTe test of two majors
    # (its unknown sm70 and sm75 no longer counted among them).
    pytest.param(
        "def fast(a, b):\n"
        "    if torch.cuda.get_device_capability()[0] in (9, 10):\n"
        "        return a()\n"
        "    return b()\n",
        "likely-gap",
        "enumerates 2 majors (sm90, sm100, sm103) but not sm120",
        id="majors-read-from-the-device",
    ),
    pytest.param(
        "def fast(a, b):\n"
        "    arch = BaseDSL._get_dsl().get_arch_enum()\n"
        "    if arch == Arch.sm_90a or arch == Arch.sm_100a:\n"
        "        return a()\n"
        "    return b()\n",
        "likely-gap",
        "enumerates 2 majors (sm90, sm100) but not sm120",
        id="a-cute-test-of-two-majors",
    ),
]


@pytest.mark.parametrize(("source", "gate_class", "reason"), CASES)
def test_unknown_generations_enumerate_nothing(
    make_tree: MakeTree, source: str, gate_class: str, reason: str
) -> None:
    (row,) = mod_gates(audit(make_tree, HEAD + source))
    assert row.gate_class.value == gate_class, row.reasons
    assert reason in row.reasons[0], row.reasons
