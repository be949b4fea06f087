"""Pure `str` methods of a known value are evaluated (semantics/attributes.py): an arch
string parsed by hand (`"".join(c for c in arch if c.isdigit())`, `.removesuffix("a")`)
stays the device's. `join` reads a tuple or list only: a set's order is the hash seed's,
and an answer must not depend on the run."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

SOURCE = """\
import torch


def arch():
    major, minor = torch.cuda.get_device_capability()
    return f"sm_{major}{minor}a"
"""

CASES = [
    pytest.param(
        'int("".join(c for c in arch() if c.isdigit())) == 90',
        frozenset({"sm90", "gfx90a"}),
        id="digits-joined",
    ),
    pytest.param('arch().removesuffix("a") == "sm_90"', frozenset({"sm90", "gfx90a"}), id="suffix"),
    pytest.param(
        'arch().removeprefix("sm_").rstrip("a") == "120"', frozenset({"sm120"}), id="prefix"
    ),
    pytest.param('arch().rsplit("_", 1)[1] == "121a"', frozenset({"sm121"}), id="rsplit"),
    pytest.param("arch()[3:].isdigit()", frozenset(), id="isdigit-false"),
    pytest.param('arch().count("1") == 2', frozenset({"sm110", "sm121"}), id="count"),
    pytest.param(
        'int("".join(map(str, torch.cuda.get_device_capability()))) >= 100',
        frozenset({"sm100", "sm103", "sm110", "sm120", "sm121"}),
        id="join-over-map",
    ),
    pytest.param(
        '".".join(map(str, torch.cuda.get_device_capability())) == "9.0"',
        frozenset({"sm90", "gfx90a"}),
        id="join-over-map-dotted",
    ),
    # noops: unknown where the order or the items are not known
    pytest.param('"".join({arch(), "x"}) == "x"', EVERY, id="noop-join-over-a-set"),
    pytest.param('"".join(input()) == "sm_90a"', EVERY, id="noop-join-over-unknown"),
    pytest.param(
        '"".join(torch.cuda.get_device_capability()) == "90"', EVERY, id="noop-join-over-ints"
    ),
]


@pytest.mark.parametrize(("expr", "admitted"), CASES)
def test_string_methods(ruleset: RuleSet, expr: str, admitted: frozenset[str]) -> None:
    assert_can_be_true(ruleset, SOURCE, expr, admitted)
