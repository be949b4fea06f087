"""`re.match(pattern, text)` (and `re.fullmatch`, `re.search`, and the same of the
`regex` package, for the patterns the two read alike) where the pattern is a
string the evaluation knows and so is the text: the capability read off a device's name
(`m = re.match(r"gfx(\\d+)", gcn_arch); major = int(m.group(1)[0])`, as a ROCm platform
may write it). The answer is Python's own, computed on the analyser's constants, never
on the analysed program: a `re.Match` (its `group`, `groups`, `start`, `end`, `span`
read as a string's methods are: attributes.py) or None. `re.compile(pattern)` is a
Compiled pattern whose `match`, `fullmatch` and `search` are those functions.

A pattern that could take long on a short text is not run: nested or repeated groups
(`(a+)+`, `(?:x)*`), more than three unbounded repeats, or a pattern or text past a few
hundred characters; nor one the two modules may read differently (named groups, inline
flags, POSIX classes); nor one given flags other than a number, or a keyword. Those, an
unknown pattern or text, and anything Python refuses, are unknown."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from gatecheck.semantics.idioms._model import NOT_MINE
from gatecheck.semantics.logic import either
from gatecheck.semantics.values import UNKNOWN, OneOf

FUNCTIONS: dict[str, Callable[..., re.Match[str] | None]] = {
    f"{module}.{name}": getattr(re, name)
    for module in ("re", "regex")  # `import regex as re` (vLLM and its forks)
    for name in ("match", "fullmatch", "search")
}
# `re.compile(pattern)`: a Compiled pattern, whose methods are the functions above.
COMPILERS = frozenset({"re.compile", "regex.compile"})
# What `re` and the `regex` package read alike: characters, classes, groups, anchors
# and quantifiers, nothing either module extends (named groups, POSIX classes, flags
# written inline, Unicode properties).
_PLAIN = re.compile(r"[\w\s\\.\[\](?:)*+{},|^$\-]*")
MAX_TEXT = 256
MAX_PATTERN = 256
MAX_REPEATS = 3
# A group repeated more than once (`)*`, `)+`, `){2,}`): `)?` is at most once.
_REPEATED_GROUP = re.compile(r"\)[*+{]")
# What a match answers, as str's methods are read (attributes._SAFE_METHODS).
MATCH_METHODS = frozenset({"group", "groups", "start", "end", "span"})


def computable(pattern: str) -> bool:
    """Whether the pattern is one `re` and `regex` read alike (_PLAIN, no `(?P<name>`,
    no `[:alpha:]`) and the matcher cannot spend long on over MAX_TEXT characters: no
    repeated group (the nesting that backtracks exponentially) and at most MAX_REPEATS
    repeats (each another power of the text's length). Conservative: an escaped `\\*`
    counts as a repeat."""
    if len(pattern) > MAX_PATTERN or _REPEATED_GROUP.search(pattern):
        return False
    if not _PLAIN.fullmatch(pattern) or "(?" in pattern.replace("(?:", "") or "[:" in pattern:
        return False
    return sum(pattern.count(c) for c in "*+{") <= MAX_REPEATS


@dataclass(frozen=True)
class Compiled:
    """`re.compile(pattern, flags)` of a pattern computable() allows, made once at a
    module's top (`_SM = re.compile(r"^sm_(\\d+)")`, then `_SM.match(arch)`): its `match`,
    `fullmatch` and `search` are the module's functions of the pattern, as bounded."""

    pattern: str
    flags: int = 0

    def method(self, name: str) -> Any:
        """The bound method `name` (partial of the function), UNKNOWN for any other."""
        function = FUNCTIONS.get(f"re.{name}")
        if function is None:
            return UNKNOWN
        return partial(_matched, function, self)


def _matched(function: Callable[..., re.Match[str] | None], compiled: Compiled, *args: Any) -> Any:
    if len(args) != 1:
        return UNKNOWN  # a start or end position: not read
    return _run(function, compiled.pattern, args[0], compiled.flags)


def call(dotted: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """The call's answer, UNKNOWN where it is not computed, NOT_MINE for another name."""
    if dotted in COMPILERS:
        return _compiled(args, kwargs)
    function = FUNCTIONS.get(dotted)
    if function is None:
        return NOT_MINE
    if kwargs or not 2 <= len(args) <= 3:
        return UNKNOWN
    flags = args[2] if len(args) == 3 else 0
    texts = args[1].options if isinstance(args[1], OneOf) else (args[1],)
    if len(texts) > 1:
        # One of a few texts (an arch with or without its `a`): each one's match.
        found = [_run(function, args[0], text, flags) for text in texts]
        return UNKNOWN if UNKNOWN in found else either(found)
    return _run(function, args[0], args[1], flags)


def _compiled(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    if kwargs or not 1 <= len(args) <= 2:
        return UNKNOWN
    pattern, flags = args[0], args[1] if len(args) == 2 else 0
    if type(pattern) is not str or type(flags) is not int or not computable(pattern):
        return UNKNOWN
    try:
        re.compile(pattern, flags)
    except (re.error, ValueError, TypeError):
        return UNKNOWN
    return Compiled(pattern, flags)


def _run(function: Callable[..., re.Match[str] | None], pattern: Any, text: Any, flags: Any) -> Any:
    if type(pattern) is not str or type(text) is not str or type(flags) is not int:
        return UNKNOWN
    if len(text) > MAX_TEXT or not computable(pattern):
        return UNKNOWN
    try:
        return function(pattern, text, flags)
    except (re.error, ValueError, TypeError):
        return UNKNOWN
