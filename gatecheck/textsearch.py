"""Whether a text holds any of a few needles, the prefilters' question over every file of a
project (20 MB of text on sglang 0.5.9, asked for a feature's flags and its dashed CLI
options). A text without a substring all the needles share holds none of them: one scan
for that core first, the needles themselves only in the texts that hold it."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import ahocorasick

# A shorter core is in too many texts to save a scan.
MIN_CORE = 6


def needle_key(needles: Iterable[str]) -> tuple[str, ...]:
    """A group of needles as searches remember it: sorted, once each, no ''."""
    return tuple(sorted({n for n in needles if n}))


def holds_any(needles: Iterable[str]) -> Callable[[str], bool]:
    """`lambda text: any(n in text for n in needles)`, the same answer for every text."""
    return _holds_any(tuple(sorted(set(needles))))


@functools.lru_cache(maxsize=256)
def _holds_any(needles: tuple[str, ...]) -> Callable[[str], bool]:
    if not needles:
        return _nothing
    core = common_core(needles)
    if len(needles) == 1 or len(core) < MIN_CORE:
        return lambda text: any(n in text for n in needles)
    return lambda text: core in text and any(n in text for n in needles)


def common_core(needles: tuple[str, ...]) -> str:
    """The longest string every needle contains (the first such, scanning the shortest
    needle left to right, when several are as long); '' when they share nothing."""
    if not needles:
        return ""
    shortest = min(needles, key=len)
    for length in range(len(shortest), 0, -1):
        for start in range(len(shortest) - length + 1):
            piece = shortest[start : start + length]
            if all(piece in n for n in needles):
                return piece
    return ""


def _nothing(text: str) -> bool:
    return False


# Up to this many words each is looked for with str.find (a scan at C speed per word);
# more, one pass of an Aho-Corasick automaton finds them all (about 80 MB/s whatever their
# number: 241 names over sglang 0.5.23's 68 MB of text took 6.2 s one by one, 0.9 s in
# one pass).
FEW_WORDS = 8


class Words:
    """Which of many words a text holds, and where: the widening's question for every
    file of a project and every name found to carry the device (audit/widening.py)."""

    def __init__(self, words: Iterable[str]) -> None:
        self.words = tuple(sorted({w for w in words if w}))
        self._automaton: Any = None
        if len(self.words) > FEW_WORDS:
            automaton = ahocorasick.Automaton()
            for word in self.words:
                automaton.add_word(word, word)
            automaton.make_automaton()
            self._automaton = automaton

    def held(self, text: str) -> tuple[str, ...]:
        """The words `text` holds, in sorted order."""
        if self._automaton is None:
            return tuple(w for w in self.words if w in text)
        return tuple(sorted({word for _, word in self._automaton.iter(text)}))

    def holds_any(self, text: str) -> bool:
        if self._automaton is None:
            return any(w in text for w in self.words)
        return next(self._automaton.iter(text), None) is not None

    def spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of every occurrence of every word, overlapping ones included,
        sorted."""
        if self._automaton is None:
            return sorted((at, at + len(w)) for w in self.words for at in offsets(text, w))
        return sorted((last + 1 - len(word), last + 1) for last, word in self._automaton.iter(text))


def offsets(text: str, word: str) -> Iterator[int]:
    """Every offset where `word` starts in `text`, overlapping ones included, in order."""
    at = text.find(word)
    while at >= 0:
        yield at
        at = text.find(word, at + 1)
