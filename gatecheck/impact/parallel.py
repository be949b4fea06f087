"""BASE and the working tree audited at the same time: the BASE audit in a forked child
process (its answer sent back pickled), the working tree's in this one. Where fork is not
the platform's way (macOS, Windows) or there is one core, one after the other."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
from collections.abc import Callable
from typing import TypeVar

from gatecheck import progress

T = TypeVar("T")
U = TypeVar("U")


def can_fork() -> bool:
    return sys.platform == "linux" and (os.cpu_count() or 1) > 1


def both(first: Callable[[], T], second: Callable[[], U], *, parallel: bool = True) -> tuple[T, U]:
    """first() in a child and second() here; an exception in the child is raised here,
    a child that dies (killed, out of memory) has its work done again here."""
    if not (parallel and can_fork()):
        return first(), second()
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def child() -> None:
        try:
            with progress.listening(None):  # the parent draws the one progress bar
                payload = pickle.dumps((True, first()))
        except BaseException as err:  # sent back: the parent decides
            try:
                payload = pickle.dumps((False, err))
            except Exception:
                payload = pickle.dumps((False, RuntimeError(f"{type(err).__name__}: {err}")))
        send.send_bytes(payload)
        send.close()

    process = context.Process(target=child, daemon=True)
    process.start()
    send.close()
    try:
        second_value = second()
        try:
            ok, value = pickle.loads(receive.recv_bytes())
        except (EOFError, OSError, pickle.UnpicklingError):
            return first(), second_value
    finally:
        receive.close()
        process.join()
    if not ok:
        raise value
    first_value: T = value
    return first_value, second_value
