"""A name inside a parameter's default is read where the `def` runs, in the enclosing
scope (loading/trees.lookup): `def apply(x, fp8_ok: bool = fp8_ok())` calls the module's
`fp8_ok`, not the parameter of that name (SGLang's `apply_fp8_linear(...,
cutlass_fp8_supported: bool = cutlass_fp8_supported())`). astroid looks up a default
itself there, but a name nested in one (a call's function, a list's item) in the
function's own scope, where the parameter shadows it: the default read itself, a cycle,
unknown. The noop: a name in the body is the parameter's."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY
from tests.test_callers_union import _admits

FP8_OK = (
    "def fp8_ok():\n"
    "    major, minor = torch.cuda.get_device_capability()\n"
    "    return major >= 9 or (major, minor) == (8, 9)\n\n"
)
FP8 = {"sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942", "gfx950"}

CASES = [
    pytest.param(
        FP8_OK + "def apply(x, fp8_ok: bool = fp8_ok()):\n"
        "    return fp8_ok and x > 0  # gate\n\n"
        "def run():\n    return apply(1)\n",
        FP8,
        id="a-call-in-a-default-of-the-same-name",
    ),
    pytest.param(
        FP8_OK + "def apply(x, *, fp8_ok=fp8_ok()):\n"
        "    return fp8_ok  # gate\n\n"
        "def run():\n    return apply(1)\n",
        FP8,
        id="a-keyword-only-default",
    ),
    pytest.param(
        FP8_OK + "def apply(x, fp8_ok=[fp8_ok()]):\n"
        "    return fp8_ok[0]  # gate\n\n"
        "def run():\n    return apply(1)\n",
        FP8,
        id="nested-in-a-list",
    ),
    # noop: the body's name is the parameter, whose one caller passes an unknown
    pytest.param(
        FP8_OK + "def apply(x, fp8_ok=fp8_ok()):\n"
        "    return fp8_ok  # gate\n\n"
        "def run(flag):\n    return apply(1, fp8_ok=flag)\n",
        EVERY,
        id="noop-a-caller-passes-another-value",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_default_scope(ruleset: RuleSet, source: str, expected: object) -> None:
    admitted = _admits(ruleset, source)
    assert admitted == (ruleset.registry.all_names() if expected == EVERY else expected)
