"""What a predicate's name promises where no body can be read (semantics/conventions.py):
never narrower than the bodies such names stand for. FlashInfer's is_sm100a_supported
tests major 10 (sm103 passes), so an "a" suffix on a minor of 0 names the family."""

from __future__ import annotations

import pytest

from gatecheck.semantics.admitted import admitted

CASES = [
    ("is_sm100a_supported", ["sm100", "sm103"]),
    ("is_sm120a_supported", ["sm120", "sm121"]),
    ("is_sm90a_supported", ["sm90"]),
    ("is_sm100f_supported", ["sm100", "sm103"]),
    ("is_sm100_supported", ["sm100", "sm103"]),
    # Noops: an explicit minor pins it.
    ("is_sm103a_supported", ["sm103"]),
    ("is_sm121_supported", ["sm121"]),
]


@pytest.mark.parametrize(("name", "expected"), CASES)
def test_a_predicate_read_by_its_name(name: str, expected: list[str]) -> None:
    source = f"from extlib.utils import {name}\n"
    assert sorted(admitted(source, f"{name}()")) == expected
