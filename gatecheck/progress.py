"""Progress of a long scan, as events (no rich here: the CLI draws them).

The pipeline reports stages ("building trees", 163 files) and steps; the loader reports
each file it parses. A run without a listener (library use, tests, a pipe) pays one
context-variable lookup per event. The listener is ambient (a context variable) so that
the loader deep inside a run needs no extra parameter threaded through every layer.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Protocol


class ProgressListener(Protocol):
    def stage(self, description: str, total: int | None) -> None: ...

    def advance(self, steps: int = 1) -> None: ...

    def parsed(self, path: Path) -> None: ...


_listener: ContextVar[ProgressListener | None] = ContextVar("gatecheck_progress", default=None)


@contextmanager
def listening(listener: ProgressListener | None) -> Iterator[None]:
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


def current() -> ProgressListener | None:
    """The listener events go to now (to wrap it)."""
    return _listener.get()


def stage(description: str, total: int | None = None) -> None:
    listener = _listener.get()
    if listener is not None:
        listener.stage(description, total)


def advance(steps: int = 1) -> None:
    listener = _listener.get()
    if listener is not None:
        listener.advance(steps)


def parsed(path: Path) -> None:
    listener = _listener.get()
    if listener is not None:
        listener.parsed(path)
