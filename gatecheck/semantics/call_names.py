"""Calls spelled in a file's text, read without building it (stdlib only).

The callers search (`semantics.callers`) indexes files by the names they call, and a
cached audit asks whether a changed file spells a call of a name that search looked for.
Both read calls the same way, from here.
"""

from __future__ import annotations

import re
from collections.abc import Collection

# The files spelling a call of a function before the callers search gives up on it (a
# name called everywhere is a helper whose callers cannot all be read): semantics.callers
# reads no call site of it then, so no change of one can matter (impact/scope.py).
MAX_CALLER_FILES = 8

# A name followed by `(`, not the name of a `def`. Written for speed (the callers index
# runs it over every file of the project): the word boundary first, the ASCII start as a
# lookahead and possessive repeats (a name's characters given back can never be followed
# by `(`, so no backtracking can find a match the plain `\b[A-Za-z_]\w*\s*\(` would not):
# 2.4x faster, the same matches.
CALLED = re.compile(r"\b(?=[A-Za-z_])(?<!def )(\w++)\s*+\(")


def called_names(text: str) -> list[str]:
    """Every name spelled before `(` in `text`, in order, repeats kept."""
    return CALLED.findall(text)


def spells_call_of(text: str, names: Collection[str]) -> bool:
    """Whether `text` spells a call of one of `names`."""
    return bool(names) and any(name in names for name in called_names(text))
