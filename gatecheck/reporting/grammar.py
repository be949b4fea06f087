"""Words the reports share: counts ("1 finding in 1 gate", "2 findings in 3 gates") and
what a gate is ("runtime gate, enables the feature when true")."""

from __future__ import annotations


def count(number: int, noun: str, plural: str | None = None) -> str:
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


POLARITY_WORDS = {
    "enables": "enables the feature when true",
    "disables": "disables the feature when true",
}


def enum_text(value: object) -> str:
    """An enum member's value, or the string itself (kinds and polarities are either)."""
    return str(getattr(value, "value", value))


def gate_description(gate: object) -> str:
    """What a finding's admitted set is read from: its kind and polarity."""
    kind = enum_text(getattr(gate, "gate_kind", ""))
    polarity = enum_text(getattr(gate, "polarity", ""))
    return f"{kind} gate, {POLARITY_WORDS.get(polarity, polarity)}"
