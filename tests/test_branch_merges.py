"""Where branches meet (semantics/env.merge_into: an if/else, a try and its handlers, a
loop's exits), a name each leaves a different constant in is one of them, as a
function's returns are (logic.join_returns) and as a conditional expression gives:
accelerate's `check_cuda_fp8_capability` reads the capability in a try whose handler
reads it another way, and `cc = (0, 0)` on a path that has no device is the same shape.
A comparison of it is each one's, known where all agree. A branch leaving an unknown, or
a value that is no constant: unknown, as before."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

SOURCE = """\
import os
import torch
from extlib import probe, Thing


def from_try():
    try:
        probe()
        cc = torch.cuda.get_device_capability()
    except Exception:
        cc = (0, 0)
    return cc >= (8, 9)


def from_if():
    if os.environ.get("NO_GPU"):
        cc = (0, 0)
    else:
        cc = torch.cuda.get_device_capability()
    return cc >= (8, 9)


def from_elif():
    if os.environ.get("A"):
        major = 0
    elif os.environ.get("B"):
        major = 1
    else:
        major = torch.cuda.get_device_capability()[0]
    return major >= 10


def with_unknown():
    if os.environ.get("A"):
        cc = probe()
    else:
        cc = torch.cuda.get_device_capability()
    return cc >= (8, 9)


def with_object():
    if os.environ.get("A"):
        cc = Thing()
    else:
        cc = torch.cuda.get_device_capability()
    return cc >= (8, 9)


def flag_in_try():
    use = False
    try:
        if torch.cuda.get_device_capability()[0] >= 9:
            import fast_kernel  # noqa: F401
            use = True
    except ImportError:
        pass
    return use


def flag_in_try_then_reset():
    use = False
    try:
        use = True
        probe()
        use = torch.cuda.get_device_capability()[0] >= 9
    except ImportError:
        pass
    return use


def every_cap_or_none(device):
    if device == "cuda":
        caps = tuple(torch.cuda.get_device_capability(i) for i in range(torch.cuda.device_count()))
    else:
        caps = ()
    return caps


def every_cap_or_unknown(device):
    if device == "cuda":
        caps = tuple(torch.cuda.get_device_capability(i) for i in range(torch.cuda.device_count()))
    else:
        caps = probe()
    return caps
"""

FP8 = frozenset(
    {"sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942", "gfx950"}
)

CASES = [
    pytest.param("from_try()", FP8, id="a-try-and-its-handler"),
    pytest.param("from_if()", FP8, id="an-if-and-its-else"),
    pytest.param(
        "from_elif()",
        frozenset({"sm100", "sm103", "sm110", "sm120", "sm121"}),
        id="three-branches",
    ),
    # One of a few containers (the per-device values, a constant tuple): a membership
    # test is each one's.
    pytest.param("(7, 5) in every_cap_or_none(d)", frozenset({"sm75"}), id="per-device-or-empty"),
    pytest.param(
        "(12, 0) not in every_cap_or_none(d)",
        EVERY,
        id="not-in-per-device-or-empty",
    ),
    pytest.param(
        "(12, 0) not in every_cap_or_none(d) and torch.cuda.get_device_capability()[0] == 12",
        frozenset({"sm120", "sm121"}),
        id="not-in-per-device-or-empty-on-sm12x",
    ),
    pytest.param(
        "torch.cuda.get_device_capability() in every_cap_or_none(d)",
        EVERY,
        id="the-device-in-its-own-per-device-values",
    ),
    # A handler that binds nothing sees what the body left where it raised: the value
    # before the `try` or one the body's statements bound (lmdeploy 0.7.3's
    # flash_mla_available: `use = True` past an import that may fail, sm90 up only).
    pytest.param(
        "flag_in_try()",
        frozenset({"sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942"})
        | {"gfx950"},
        id="a-flag-set-in-a-try-whose-handler-passes",
    ),
    # noops: a branch leaves what is not a constant
    pytest.param(
        "flag_in_try_then_reset()", EVERY, id="noop-a-handler-past-a-constant-the-body-bound"
    ),
    pytest.param("(7, 5) in every_cap_or_unknown(d)", EVERY, id="noop-per-device-or-unknown"),
    pytest.param("with_unknown()", EVERY, id="noop-a-branch-leaves-an-unknown"),
    pytest.param("with_object()", EVERY, id="noop-a-branch-leaves-an-object"),
]


@pytest.mark.parametrize(("expr", "admitted"), CASES)
def test_branch_merges(ruleset: RuleSet, expr: str, admitted: object) -> None:
    assert_can_be_true(ruleset, SOURCE, expr, admitted)
