"""BASE and the working tree audited at the same time: the BASE audit in a forked child
process (its answer sent back pickled), the working tree's in this one. Where fork is not
the platform's way (macOS, Windows) or there is one core, one after the other.

And work started before it is known to be wanted (`speculated`): what decides runs in a
child, the work here, abandoned at its next progress event if the decision says so."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from gatecheck import progress

T = TypeVar("T")
U = TypeVar("U")


def can_fork() -> bool:
    return sys.platform == "linux" and (os.cpu_count() or 1) > 1


def spare_cores() -> bool:
    """Whether a second process would run beside this one rather than take its time:
    the last minute's load leaves this one and another a core each (less a half)."""
    try:
        cores = len(os.sched_getaffinity(0))
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return False
    return can_fork() and load <= cores - 1.5


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


class Abandoned(BaseException):
    """Raised at a progress event of work no longer wanted. Not an Exception: the
    audit's per-condition containment never takes it for one condition's failure."""


class _Checking:
    """The progress listener around work being speculated on: each stage and step first
    looks whether the decision came (a file's tree being built is never interrupted:
    `parsed` does not look)."""

    def __init__(self, inner: progress.ProgressListener | None, check: Callable[[], None]) -> None:
        self.inner, self.check = inner, check

    def stage(self, description: str, total: int | None) -> None:
        self.check()
        if self.inner is not None:
            self.inner.stage(description, total)

    def advance(self, steps: int = 1) -> None:
        self.check()
        if self.inner is not None:
            self.inner.advance(steps)

    def parsed(self, path: Path) -> None:
        if self.inner is not None:
            self.inner.parsed(path)


def speculated(
    decide: Callable[[], T], work: Callable[[], U], wanted: Callable[[T], bool]
) -> tuple[U | None, T | None]:
    """decide() in a child and work() here at the same time: (work's answer, None) unless
    decide's answer came first and `wanted` refused it, then (None, that answer) with the
    work abandoned. A child that fails or dies decides nothing: the work goes on. Work
    whose answer never depends on the decision only (the decision says what is cheaper)."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def child() -> None:
        try:
            with progress.listening(None):
                payload = pickle.dumps((True, decide()))
        except BaseException:  # the parent goes on without a decision
            payload = pickle.dumps((False, None))
        send.send_bytes(payload)
        send.close()

    process = context.Process(target=child, daemon=True)
    process.start()
    send.close()
    decision: list[T] = []
    listening = [True]

    def check() -> None:
        if not listening[0] or not receive.poll():
            return
        listening[0] = False
        try:
            ok, value = pickle.loads(receive.recv_bytes())
        except (EOFError, OSError, pickle.UnpicklingError):
            return
        if ok and not wanted(value):
            decision.append(value)
            raise Abandoned

    abandoned = False
    try:
        with progress.listening(_Checking(progress.current(), check)):
            answer = work()
    except Abandoned:
        abandoned = True
    finally:
        receive.close()
        if process.is_alive():
            process.kill()
        process.join()
    return (None, decision[0]) if abandoned else (answer, None)
