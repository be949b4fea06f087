"""`split_lines` splits where CPython ends a line, as the regex it short-cuts does."""

from __future__ import annotations

import random
import re

import pytest

from gatecheck.reporting.columns import split_lines

REFERENCE = re.compile(r"\r\n|\r|\n")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", [""]),
        ("a", ["a"]),
        ("a\n", ["a", ""]),
        ("a\nb", ["a", "b"]),
        ("a\r\nb", ["a", "b"]),
        ("a\rb", ["a", "b"]),
        ("a\r\rb", ["a", "", "b"]),
        ("a\n\r\nb\r", ["a", "", "b", ""]),
        ("a\x0cb\x1cc\u2028d\n", ["a\x0cb\x1cc\u2028d", ""]),  # not line breaks for Python
        ("\n\n", ["", "", ""]),
    ],
)
def test_split_lines(text: str, expected: list[str]) -> None:
    assert split_lines(text) == expected == REFERENCE.split(text)


def test_split_lines_matches_the_regex_on_generated_texts() -> None:
    rng = random.Random(20)
    alphabet = ["a", "é", "\n", "\r", "\r\n", "\x0c", "\u2028", " "]
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(30)))
        assert split_lines(text) == REFERENCE.split(text), repr(text)
