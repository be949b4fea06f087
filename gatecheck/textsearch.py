"""Whether a text holds any of a few needles, the prefilters' question over every file of a
project (20 MB of text on sglang 0.5.9, asked for a feature's flags and its dashed CLI
options). A text without a substring all the needles share holds none of them: one scan
for that core first, the needles themselves only in the texts that hold it."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

# A shorter core is in too many texts to save a scan.
MIN_CORE = 6


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
