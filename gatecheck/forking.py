"""A task run in a forked child process, its answer sent back through a pipe: the second
core for the audit's workers (audit/workers.py) and for the text scan a run makes while it
imports the analysis machinery (loading/prescan.py). No fork (not POSIX), no child: the
caller does the work itself."""

from __future__ import annotations

import os
import pickle
import sys
import warnings
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


def can_fork() -> bool:
    return hasattr(os, "fork")


class Forked(Generic[T]):
    """`task()` run in a forked child; `result()` its value, or None if it failed."""

    def __init__(self, task: Callable[[], T]) -> None:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: run, send, and leave without the parent's teardown
            code = 1
            try:
                os.close(read)
                _quiet_child()
                payload = pickle.dumps(task(), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as sink:
                    sink.write(payload)
                code = 0
            except BaseException:  # any failure: the parent does the work
                pass
            finally:
                os._exit(code)
        os.close(write)
        self._pid = pid
        self._read = read

    def result(self) -> T | None:
        with os.fdopen(self._read, "rb") as source:
            payload = source.read()
        _, status = os.waitpid(self._pid, 0)
        if status != 0 or not payload:
            return None
        try:
            value: T = pickle.loads(payload)
        except Exception:  # a truncated answer: the parent does the work
            return None
        return value


def _quiet_child() -> None:
    """A forked child writes nothing: a thread of the parent (rich's progress refresh)
    may have held the lock of stderr at the fork, and the child would wait for it
    forever. Warnings (a SyntaxWarning of analysed code) are not the report's."""
    warnings.simplefilter("ignore")
    sink = open(os.devnull, "w")  # noqa: SIM115 - left open for the child's life
    sys.stdout = sys.stderr = sink


def start(task: Callable[[], T]) -> Forked[T] | None:
    """A child running `task`, or None when this system cannot fork or the fork fails."""
    if not can_fork():
        return None
    try:
        return Forked(task)
    except OSError:
        return None
