"""The memo (semantics/reads.py) keeps one object for what many entries hold alike: a
Recorded per distinct reads, an entry per (singleton value, reads). What get answers is
what was put."""

from __future__ import annotations

from typing import Any

import pytest

from gatecheck.semantics.reads import DEVICE, NOTHING, Memo, Recorded
from gatecheck.semantics.values import UNKNOWN


def _reads(**fields: Any) -> Recorded:
    return Recorded(**fields)  # a new object each call, equal to the last


@pytest.mark.parametrize(
    ("value", "fields", "entry_shared"),
    [
        (UNKNOWN, {"assumed": frozenset({"a convention"})}, True),
        (UNKNOWN, {"device": True, "files": 3}, True),
        (None, {"bounds": frozenset({"call depth"})}, True),
        (True, {}, True),
        (False, {"device": True}, True),
        (7, {"files": 1}, False),
        ((9, 0), {"assumed": frozenset({"x"})}, False),
    ],
)
def test_alike_entries_are_one_object(
    value: Any, fields: dict[str, Any], entry_shared: bool
) -> None:
    memo = Memo()
    memo.put("first", value, _reads(**fields))
    memo.put("second", value, _reads(**fields))
    first, second = memo.get("first"), memo.get("second")
    assert first == second == (value, _reads(**fields))
    assert first is not None and second is not None
    assert first[1] is second[1]  # one Recorded for equal reads
    assert (first is second) is entry_shared
    # Where each goes is the reads' device flag (see Memo).
    assert ("first" in memo.own) is _reads(**fields).device


@pytest.mark.parametrize(("recorded", "device"), [(NOTHING, False), (DEVICE, True)])
def test_the_common_reads_stay_the_singletons(recorded: Recorded, device: bool) -> None:
    memo = Memo()
    memo.put(1, UNKNOWN, Recorded(device=device))  # equal to the singleton, another object
    memo.put(2, UNKNOWN, recorded)
    found = memo.get(1)
    assert found is not None and found[1] is recorded  # `recorded is not NOTHING` holds
    assert memo.get(2) is found
