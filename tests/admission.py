"""The assertion of the (source, expr, expected) tables against the pure entry point."""

from __future__ import annotations

from typing import Any

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import admission_of

# An expected admitted set of every registry generation (the condition is no gate).
EVERY = "every"


def assert_can_be_true(
    ruleset: RuleSet, source: str, expr: str, expected: object, **options: Any
) -> None:
    """`expr` at the end of module `source` can be true on exactly `expected` (a set of
    generation names, or EVERY)."""
    admission = admission_of(source, expr, ruleset.registry, **options)
    every = ruleset.registry.all_names()
    assert admission.can_be_true == (every if expected == EVERY else expected)
