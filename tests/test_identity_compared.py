"""`is` and `is not` against True, False or None (singletons: the answer is Python's),
never between ints or strings (their identity is an implementation detail): lmdeploy
tests its config's flag as `use_flash_mla is True`. Pure: in memory."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

SOURCE = """\
import torch

def flash_mla_available():
    return torch.cuda.get_device_capability()[0] >= 9

def major():
    return torch.cuda.get_device_capability()[0]

USE = flash_mla_available()
"""

FROM_SM90 = frozenset(
    {"sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942", "gfx950"}
)
UP_TO_SM89 = frozenset({"sm70", "sm75", "sm80", "sm86", "sm87", "sm89"})

CASES = [
    pytest.param("USE is True", FROM_SM90, id="is-true"),
    pytest.param("USE is not True", UP_TO_SM89, id="is-not-true"),
    pytest.param("USE is False", UP_TO_SM89, id="is-false"),
    pytest.param("True is USE", FROM_SM90, id="true-on-the-left"),
    pytest.param("(major() >= 9) is not False", FROM_SM90, id="a-comparison-is-not-false"),
    # Noops: identity that is no singleton's, or a value that is no bool.
    pytest.param("major() is 9", EVERY, id="ints-identity-is-unknown"),
    pytest.param("major() is True", frozenset(), id="an-int-is-never-true"),
    pytest.param("USE is flag", EVERY, id="an-unknown-side"),
]


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_identity_with_a_singleton(ruleset: RuleSet, expr: str, expected: object) -> None:
    assert_can_be_true(ruleset, SOURCE, expr, expected)
