"""Calls spelled in a file's text, read without building it (stdlib only).

The callers search (`semantics.callers`) indexes files by the names they call, and a
cached audit asks whether a changed file spells a call of a name that search looked for.
Both read calls the same way, from here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

# The files spelling a call of a function before the callers search gives up on it (a
# name called everywhere is a helper whose callers cannot all be read): semantics.callers
# reads no call site of it then, so no change of one can matter (impact/scope.py, which
# takes the larger of the two). A method's search, asked only for a parameter whose name
# speaks of the device, reads more: vLLM 0.33.0's `is_supported(cls,
# compute_capability=None)` is spelled in 21 files.
MAX_CALLER_FILES = 8
MAX_METHOD_CALLER_FILES = 24
# A @dataclass's constructions (its fields' values): a capability record registered once
# per kernel (`Capability(min_cc=(9, 0))` beside each of liger-kernel's 20 backends) is
# constructed in as many files as there are kernels (33 files there).
MAX_CONSTRUCTION_FILES = 64

# A name followed by `(`, not the name of a `def`: `\b(?=[A-Za-z_])(?<!def )(\w++)\s*+\(`
# (a word starting with an ASCII letter or `_`, whole, not just after "def "). Matched
# in the reversed text, where each match starts at a `(`: the regex engine skips to the
# next `(` with a fast scan of one character, where a pattern starting at a word
# boundary is tried at every position of the text. Reversed, the word is whole on both
# sides (possessive, and after the spaces), its last character is the name's first
# and " fed" does not follow it. The callers index runs it over every file of the
# project: 1.1 s -> 0.15 s on sglang 0.5.9 (20 MB), the same names in the same order
# (tests/test_call_names.py: the forward pattern on a table, on generated text and on
# every file of the cached corpora).
_CALLED_REVERSED = re.compile(r"\(\s*+(\w++)(?<=[A-Za-z_])(?! fed)")


def called_names(text: str) -> list[str]:
    """Every name spelled before `(` in `text`, in order, repeats kept."""
    return [name[::-1] for name in reversed(_CALLED_REVERSED.findall(text[::-1]))]


# A Triton kernel's launch, `name[grid](...)`: the name before a one-level subscript
# followed by `(` (a grid written with brackets inside, `[lambda m: (m["B"],)]`, is not
# read; nor one spelled with a space before the `(`). Forward, `\b([A-Za-z_]\w*)\s*
# \[[^\[\]\n]*\]\(`; matched in the reversed text, as _CALLED_REVERSED is, each match
# starting at the literal `(]` (0.06 s against 1.0 s forward over sglang 0.5.23's and
# vLLM 0.33.0's 7,950 files, the same names: tests/test_call_names.py).
_LAUNCHED_REVERSED = re.compile(r"\(\][^\[\]\n]*+\[\s*+(\w++)(?<=[A-Za-z_])")


# A name spelled as a method's call, `x.name(...)` (any white space around the dot and
# before the `(`): forward `\.\s*([A-Za-z_]\w*)\s*\(`, matched in the reversed text
# as _CALLED_REVERSED is. A method is run only by such a call (`Cls.m(obj)` included), so
# the files spelling it so are the ones its callers' search reads: `supported(` bare in
# 40 of FlashInfer 0.7.4's files, `.supported(` in 12.
_ATTRIBUTE_CALLED_REVERSED = re.compile(r"\(\s*+(\w++)(?<=[A-Za-z_])\s*+\.")


def attribute_called_name_set(text: str) -> set[str]:
    """Every name spelled `x.name(` in `text` (a subset of `called_name_set`)."""
    return {name[::-1] for name in _ATTRIBUTE_CALLED_REVERSED.findall(text[::-1])}


def called_name_set(text: str) -> set[str]:
    """`set(called_names(text))`, each name turned round once, and the names launched
    as `name[grid](...)`."""
    reversed_text = text[::-1]
    found = set(_CALLED_REVERSED.findall(reversed_text))
    found.update(_LAUNCHED_REVERSED.findall(reversed_text))
    return {name[::-1] for name in found}


def spells_call_of(text: str, names: Collection[str]) -> bool:
    """Whether `text` spells a call of one of `names`."""
    return bool(names) and not called_name_set(text).isdisjoint(names)


def call_arguments(text: str, name: str) -> list[str]:
    """The text between the parentheses of each call of `name` spelled in `text`
    (`replace(cfg, **changes)` -> `cfg, **changes`; `x.replace(...)` too, not `def
    replace(...)`), read past nested brackets, strings and comments; an unclosed call
    runs to the end of the text."""
    found = []
    for match in re.finditer(rf"(?<!\w)(?<!def ){re.escape(name)}\s*\(", text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if "#" in text[line_start : match.start()]:
            continue  # a comment's (a `#` in a string before the call is too rare to read)
        found.append(text[match.end() : _closing(text, match.end())])
    return found


def _closing(text: str, start: int) -> int:
    """Where the bracket opened just before `start` closes (the text's end if never)."""
    depth, at, end = 1, start, len(text)
    while at < end:
        char = text[at]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return at
        elif char == "#":
            newline = text.find("\n", at)
            at = end if newline < 0 else newline
            continue
        elif char in "'\"":
            at = _string_end(text, at)
            continue
        at += 1
    return end


def _string_end(text: str, start: int) -> int:
    quote = text[start : start + 3] if text[start : start + 3] in ('"""', "'''") else text[start]
    at = start + len(quote)
    while at < len(text) and not text.startswith(quote, at):
        at += 2 if text[at] == "\\" else 1
    return at + len(quote)


# A call of a function defined in module `a.b.mod` is written in a file that imports it:
# one spelling `mod` (`from a.b.mod import f`, `from .mod import f`, `from a.b import
# mod`), or the name of a package whose `__init__` passes it on (spells its name, or
# imports `*`), or that reaches it otherwise: a star import, or a call `x.f(...)` on
# something (a module chosen at run time). The callers search reads only those: in
# FlashInfer 0.7.4, 59 files call a `library_name(...)`, each its own module's.
_STAR_IMPORT = "import *"


def reaching_words(
    module: str, name: str, package_text: Callable[[str], str | None]
) -> frozenset[str]:
    """The words an importer of `name` from `module` spells: the module's last name, and
    each enclosing package's whose `__init__` (`package_text(package)`, None when there
    is none) spells `name` or imports `*`."""
    return reaching_words_in(module, name, lambda package: spelled_words(package_text(package)))


def reaching_words_in(
    module: str, name: str, package_words: Callable[[str], frozenset[str] | None]
) -> frozenset[str]:
    """reaching_words, each package's `__init__` given as its spelled_words (which a
    search of many names makes once per package)."""
    parts = module.split(".")
    words = {parts[-1]}
    for end in range(len(parts) - 1, 0, -1):
        spelled = package_words(".".join(parts[:end]))
        if spelled is not None and (STAR in spelled or name in spelled):
            words.add(parts[end - 1])
    return frozenset(words)


# In spelled_words: the text imports `*` (no word is spelled so).
STAR = "*"
_WORD = re.compile(r"\w+")


def spelled_words(text: str | None) -> frozenset[str] | None:
    """The words `text` spells (what `\\bword\\b` finds), and STAR where it imports `*`;
    None for no text."""
    if text is None:
        return None
    found = set(_WORD.findall(text))
    if _STAR_IMPORT in text:
        found.add(STAR)
    return frozenset(found)


@dataclass(frozen=True)
class ImportShape:
    """What may_reach reads of a file's text whatever the name looked for: whether it
    imports `*`, and whether it imports relatively (`from .`: the file's own packages
    are then named without being spelled). A search of many names makes it once a file."""

    star: bool
    relative: bool


def import_shape(text: str) -> ImportShape:
    return ImportShape(_STAR_IMPORT in text, "from ." in text)


def may_reach(
    text: str,
    module: str,
    name: str,
    words: Collection[str],
    dotted: bool | None = None,
    shape: ImportShape | None = None,
) -> bool:
    """Whether `text` (of module `module`) can call `name` defined where `words`
    (reaching_words) are spelled by its importers. A relative import (`from .. import
    f`) names the file's own packages without spelling them. `dotted`: whether the text
    spells `x.name(` (from attribute_called_name_set), `shape` its import_shape, when
    the caller knows."""
    if shape is None:
        shape = import_shape(text)
    if shape.star:
        return True
    own = set(module.split(".")) if shape.relative else set()
    for word in words:
        # A substring first: most files do not spell the word at all.
        if word in own or (word in text and re.search(rf"\b{re.escape(word)}\b", text)):
            return True
    if dotted is None:
        return re.search(rf"\.\s*{re.escape(name)}\s*\(", text) is not None
    return dotted
