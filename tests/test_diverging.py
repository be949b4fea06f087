"""A call that certainly raises on a generation has no value there: a condition that
always makes it is neither true nor false on that generation, and a statement holding it
ends its path as a `raise` does (semantics/diverging.py). Read as unknown, a helper that
raises for the generations written after it (sm120) made every test of its result admit
them."""

from __future__ import annotations

import pytest

from gatecheck.semantics.admitted import admitted

OLDER = ["sm110", "sm120", "sm121", "sm70", "sm75", "sm80", "sm86", "sm87", "sm89"]
AMD = ["gfx90a", "gfx942", "gfx950"]
ALL = sorted([*OLDER, *AMD, "sm90", "sm100", "sm103"])

SOURCE = """\
import contextlib
import torch

IS_ROCM = torch.version.hip is not None


def arch():
    if IS_ROCM:
        raise RuntimeError("CUDA only")
    major, minor = torch.cuda.get_device_capability()
    if major == 9:
        return "sm90"
    if major == 10:
        return "sm100"
    raise NotImplementedError(f"sm{major}{minor}")


def fast_path_ok():
    if IS_ROCM:
        raise RuntimeError("CUDA only")
    return torch.cuda.get_device_capability() >= (8, 9)


def uses():
    name = arch()
    return name == "sm90"


def by_branch():
    if arch() == "sm100":
        return True
    return False


def caught():
    try:
        name = arch()
    except NotImplementedError:
        name = "none"
    return name == "none"


def suppressed():
    name = "none"
    with contextlib.suppress(NotImplementedError, RuntimeError):
        name = arch()
    return name == "none"


def always():
    raise NotImplementedError


def always_on_device():
    raise NotImplementedError(torch.cuda.get_device_capability())


def batches():
    yield arch()


def either(flag):
    pick = arch if flag else fast_path_ok
    return pick()
"""

CASES = [
    # The helper's result compared, negated, tested in a branch, read through a local.
    ('arch() == "sm90"', ["sm90"]),
    ('arch() != "sm90"', ["sm100", "sm103"]),
    ("not arch()", []),
    ("uses()", ["sm90"]),
    ("by_branch()", ["sm100", "sm103"]),
    ('("a" if arch() == "sm90" else "b") == "a"', ["sm90"]),
    ('arch() == "sm90" or IS_ROCM', ["sm90"]),
    # A later operand runs where every one before it certainly did not decide (IS_ROCM is
    # false on NVIDIA); a branch runs where the test certainly takes it.
    ('IS_ROCM or arch() == "sm90"', ["gfx90a", "gfx942", "gfx950", "sm90"]),
    ('not IS_ROCM and arch() == "sm100"', ["sm100", "sm103"]),
    ('("sm90" if IS_ROCM else arch()) == "sm90"', ["gfx90a", "gfx942", "gfx950", "sm90"]),
    # An early `raise` on the other vendor: its generations no longer admitted.
    ("fast_path_ok()", ["sm100", "sm103", "sm110", "sm120", "sm121", "sm89", "sm90"]),
    # Noops: where the call may not run, or its exception may be caught.
    pytest.param(
        'flag or arch() == "sm90"',
        ["gfx90a", "gfx942", "gfx950", *OLDER, "sm90", "sm100", "sm103"],
        id="noop: a later operand of or, after an unknown one",
    ),
    pytest.param(
        '"x" if flag else arch()',
        ALL,
        id="noop: a branch the test may not take",
    ),
    pytest.param('any(arch() == "sm90" for _ in range(n))', ALL, id="noop: a comprehension"),
    pytest.param(
        '(lambda: arch())() == "sm90"',
        ["gfx90a", "gfx942", "gfx950", *OLDER, "sm90"],
        id="noop: a lambda body",
    ),
    pytest.param("caught()", ALL, id="noop: caught by a handler"),
    pytest.param("suppressed()", [*OLDER, "gfx90a", "gfx942", "gfx950"], id="noop: a with body"),
    pytest.param("always() == 1", ALL, id="noop: raising without reading the device"),
    pytest.param("always_on_device() == 1", ALL, id="noop: raising on every generation"),
    pytest.param("batches()", ALL, id="noop: a generator function's body runs later"),
    pytest.param("either(flag)", ALL, id="noop: one of two functions"),
]


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_calls_that_certainly_raise(expr: str, expected: list[str]) -> None:
    assert sorted(admitted(SOURCE, expr)) == sorted(expected)
