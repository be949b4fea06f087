"""What an audit read for each file whose conditions it evaluated: the modules it looked
up (found or not: a module added or removed since changes the answer), and the searches
over the text of many files (the callers of a function, the subclasses in a folder). Off
unless asked for (`Project.read_log` is None): `impact` asks, to know which of BASE's files
can answer differently from the working tree's (gatecheck/impact/reuse.py).

Keys are module names, or a search: `calls:NAME` (the files spelling a call of NAME),
`text:NEEDLE` (the files whose text holds NEEDLE), `dir:FOLDER/` (every file below FOLDER).

A read goes to the innermost frame: the evaluator opens one per memo entry being computed
(semantics/reads.py keeps the entry's reads with it and replays them on every hit), the
audit one per file whose conditions it evaluates. A closed frame's reads go to the frame
around it, so a file's frame holds everything read for it, memoised or not. A frame holds
its reads as the bits of an int (one bit per key, numbered by the log): memo hits are
counted in the millions, and or-ing two ints costs the same however much they read."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from gatecheck.loading.project import Project

CALLS = "calls:"
TEXT = "text:"
DIR = "dir:"


@dataclass(frozen=True)
class FileReads:
    """Plain data (cached with the report): what was read for one file's conditions, and
    the modules whose conditions telling its gates from hops asked about (a gate turns into
    a hop when the function it calls holds a gate: the answer of that function's file,
    found or not)."""

    path: Path
    reads: frozenset[str]
    hops: frozenset[str] = frozenset()


class Frame(Protocol):
    """What holds a frame's reads (the bits of `files`): an evaluation's Reads."""

    files: int


class ReadFrame:
    """A frame of its own (a file's reads, or a search's kept to be replayed)."""

    __slots__ = ("files",)

    def __init__(self) -> None:
        self.files = 0


class ReadLog:
    def __init__(self) -> None:
        self._frames: list[Frame] = []
        self._muted = 0
        self._bits: dict[str, int] = {}
        self._keys: list[str] = []
        self._by_file: dict[Path, int] = {}
        self._hops: dict[Path, int] = {}
        self._asked: int | None = None  # hop sources asked of, while a file's are told

    def _bit(self, key: str) -> int:
        found = self._bits.get(key)
        if found is None:
            found = self._bits[key] = 1 << len(self._keys)
            self._keys.append(key)
        return found

    def note(self, key: str) -> None:
        if self._frames and not self._muted:
            self._frames[-1].files |= self._bit(key)

    def asked(self, module: str) -> None:
        """Telling a gate from a hop asked whether `module` holds a deciding condition
        here (audit/hops.py): that module's conditions must be found for the same answer."""
        if self._asked is not None:
            self._asked |= self._bit(module)

    def replay(self, reads: int) -> None:
        """A memoised answer's reads, read again by whoever takes the answer."""
        if self._frames and reads:
            self._frames[-1].files |= reads

    def push(self, frame: Frame) -> None:
        self._frames.append(frame)

    def pop(self) -> None:
        frame = self._frames.pop()
        if self._frames and frame.files:
            self._frames[-1].files |= frame.files

    def numbered(self) -> list[tuple[str, int]]:
        """Every key read so far, with its bit."""
        return list(self._bits.items())

    def fresh(self) -> ReadLog:
        """A log numbering keys as this one does (a memo kept from this one's run reads
        the same there), with nothing recorded yet."""
        other = ReadLog()
        other._bits, other._keys = self._bits, self._keys
        return other

    def keys(self, reads: int) -> frozenset[str]:
        found = []
        while reads:
            low = reads & -reads
            found.append(self._keys[low.bit_length() - 1])
            reads ^= low
        return frozenset(found)

    @contextmanager
    def muted(self) -> Iterator[None]:
        """A scan of many files' text that notes its own key instead of every file."""
        self._muted += 1
        try:
            yield
        finally:
            self._muted -= 1

    @contextmanager
    def reading_for(self, path: Path, *, hops: bool = False) -> Iterator[None]:
        """Reads inside are `path`'s; frames already open (another file's) see none.
        `hops`: what is `asked` inside is too (telling `path`'s gates from hops)."""
        frame = ReadFrame()
        saved, self._frames = self._frames, [frame]
        asked, self._asked = self._asked, (0 if hops else None)
        try:
            yield
        finally:
            self._frames = saved
            self._by_file[path] = self._by_file.get(path, 0) | frame.files
            if self._asked:
                self._hops[path] = self._hops.get(path, 0) | self._asked
            self._asked = asked

    def results(self) -> tuple[FileReads, ...]:
        return tuple(
            FileReads(path, self.keys(reads), self.keys(self._hops.get(path, 0)))
            for path, reads in sorted(self._by_file.items())
        )


_OFF: AbstractContextManager[None] = nullcontext()


def reading_for(
    project: Project, path: Path, *, hops: bool = False
) -> AbstractContextManager[None]:
    """`project.read_log.reading_for(...)`, nothing when no log is kept."""
    log = project.read_log
    return _OFF if log is None else log.reading_for(path, hops=hops)
