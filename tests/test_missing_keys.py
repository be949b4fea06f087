"""A lookup in a table read whole whose key it lacks raises KeyError: where the
capability picks the key, the comparison or condition that always makes the lookup has
no value on the generations the table lacks (semantics/expressions.py `_subscript`,
noted for diverging.py), whatever its other operands are. SGLang's symmetric-memory
all-reduce tests `world_size in SIZES[capability]` with sizes for majors 9 and 10 only:
a KeyError on sm110/sm120/sm121, read before as a `False` that an unknown world size
made unknown everywhere. Noops: a lookup that may not run, `.get` (no raise), a table
changed elsewhere (its items are not known), keys that are names from outside the scan
(two names may be one object)."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

SOURCE = """\
import os
import torch

SIZES = {9: {2: 64, 4: 32}, 10: {2: 64, 4: 64, 8: 32}}
FLAT = {9: 1, 10: 2}
MIN_MAJOR = {2: 0, 3: 8, 4: 9}
SUPPORTED = {(9, 0): True, (10, 0): True}
GROWN = {9: 1}
BY_CAP_AND_SIZE = {(103, 4, 1): 80, (103, 8, 1): 64, (90, 8, 1): 32}
sm = major * 10 + torch.cuda.get_device_capability()[1]
DTYPES = {torch.float8_e4m3fn: 1}
ws = int(os.environ["WORLD_SIZE"])
major = torch.cuda.get_device_capability()[0]


def register(sm, size):
    GROWN[sm] = size


def flat_size():
    return FLAT[torch.cuda.get_device_capability()[0]]
"""

# Majors 9 and 10: sm90, sm100, sm103 and (ROCm reports 9.x) the gfx9 parts.
MAJORS_9_10 = frozenset({"sm90", "sm100", "sm103", "gfx90a", "gfx942", "gfx950"})

CASES = [
    pytest.param("ws in SIZES[major]", MAJORS_9_10, id="in-a-row-of-the-table"),
    pytest.param("ws not in SIZES[major]", MAJORS_9_10, id="not-in-a-row-of-the-table"),
    pytest.param("FLAT[major] > ws", MAJORS_9_10, id="compared-with-an-unknown"),
    pytest.param("ws < FLAT[major]", MAJORS_9_10, id="right-of-an-unknown"),
    pytest.param("flat_size() >= ws", MAJORS_9_10, id="through-a-function"),
    pytest.param(
        "SUPPORTED[torch.cuda.get_device_capability()]",
        frozenset({"sm90", "sm100", "gfx90a"}),
        id="truth-of-the-entry",
    ),
    # noops: the lookup may not run; .get does not raise; a table changed elsewhere
    pytest.param("ws > 3 and FLAT[major] > 0", EVERY, id="noop-a-later-operand-may-not-run"),
    pytest.param("FLAT.get(major, 0) > ws", EVERY, id="noop-get-does-not-raise"),
    pytest.param("GROWN[major] > ws", EVERY, id="noop-a-table-changed-elsewhere"),
    # keys named from outside the scan: two names may be one object (torch.float and
    # torch.float32), so a key not found by name may be there
    pytest.param(
        "DTYPES[torch.float8_e4m3fnuz if torch.version.hip else torch.float8_e4m3fn] > ws",
        EVERY,
        id="noop-keys-named-from-outside",
    ),
    # A key not read: one of the table's values (transformers' FlashAttention minimum
    # major per version, `major < MIN_MAJOR[version]`); a missing key raises.
    pytest.param(
        "major < MIN_MAJOR[ws]",
        frozenset({"sm70", "sm75", "sm80", "sm86", "sm87", "sm89"}),
        id="a-key-not-read-one-of-the-values",
    ),
    pytest.param("major < GROWN[ws]", EVERY, id="noop-a-key-not-read-table-changed-elsewhere"),
    # A key known in part (the capability beside a world size): only the entries whose
    # keys agree with it can be found; elsewhere the default (vLLM 0.32's all-reduce
    # sizes, keyed by capability, world size and node count).
    pytest.param(
        "BY_CAP_AND_SIZE.get((sm, ws, 1)) is not None",
        frozenset({"sm90", "sm103", "gfx90a"}),  # ROCm reports 9.0 on gfx90a
        id="a-key-known-in-part",
    ),
    pytest.param(
        "BY_CAP_AND_SIZE.get((sm, 8, 1), 0) > 40", frozenset({"sm103"}), id="a-key-known-whole"
    ),
    pytest.param(
        "BY_CAP_AND_SIZE.get((ws, 8, 1)) is not None and sm > 0",
        EVERY,
        id="noop-the-device-not-in-the-key",
    ),
    pytest.param("major < SIZES[ws]", EVERY, id="noop-a-key-not-read-values-not-constants"),
]


@pytest.mark.parametrize(("expr", "admitted"), CASES)
def test_missing_keys(ruleset: RuleSet, expr: str, admitted: object) -> None:
    assert_can_be_true(ruleset, SOURCE, expr, admitted)
