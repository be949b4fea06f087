"""Calls spelled in a file's text, read without building it (stdlib only).

The callers search (`semantics.callers`) indexes files by the names they call, and a
cached audit asks whether a changed file spells a call of a name that search looked for.
Both read calls the same way, from here.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

# The files spelling a call of a function before the callers search gives up on it (a
# name called everywhere is a helper whose callers cannot all be read): semantics.callers
# reads no call site of it then, so no change of one can matter (impact/scope.py).
MAX_CALLER_FILES = 8

# A name followed by `(`, not the name of a `def`.
CALLED = re.compile(r"(?<!def )\b([A-Za-z_]\w*)\s*\(")


def called_names(text: str) -> Iterator[str]:
    for match in CALLED.finditer(text):
        yield match.group(1)


def spells_call_of(text: str, names: Collection[str]) -> bool:
    """Whether `text` spells a call of one of `names`."""
    return bool(names) and any(name in names for name in called_names(text))
