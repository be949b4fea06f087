"""The audit's second core: worker processes that find which conditions of their share of
the candidate modules vary, so that the main process evaluates only those.

Nearly every condition of a candidate module reads no arch term (9,038 of 9,585 on sglang
0.5.9) and is dropped after a full evaluation; that evaluation is most of a cold audit.
A worker is forked once the candidate trees are built (it shares them, copy-on-write),
evaluates every condition of its share as the single-process run does, and sends back per
condition only whether it varies and what it diagnosed. The main process evaluates its
own share meanwhile, then, module by module in the single-process order, evaluates the
conditions a worker found varying and replays the diagnostics of the others: the report
is the single-process one (tests/test_audit_workers.py; scripts/compare_answers.py on
real corpora).

A worker that fails (killed, out of memory, an exception) costs only time: its share is
evaluated in the main process. No fork (not POSIX), no worker.
"""

from __future__ import annotations

import os
import pickle
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from gatecheck.audit.conditions import FoundCondition
from gatecheck.loading.project import FileDiagnostic

T = TypeVar("T")

# A share smaller than this much source text is not worth a process (a fork, a second
# warm-up of the memo and the callers index): small projects run in one.
MIN_SHARE_CHARS = 400_000
MAX_JOBS = 4
# How much lighter a worker's share is than an even one, as a fraction of an even share
# (sglang 0.5.9: a worker took 14 s of CPU for a share the single-process run evaluates
# in 7.7 s once warm; see shares()).
HEAD_START = 0.2
# The fraction of the weight evaluated before the fork (see plan()).
WARM_UP = 0.2


@dataclass(frozen=True)
class SlotOutcome:
    """One condition slot as a worker evaluated it: whether it is an arch condition, the
    diagnostics its evaluation added, and the condition found (the main process takes
    it as it is; a found slot without it -- the declarations -- is evaluated again)."""

    found: bool
    diagnostics: tuple[FileDiagnostic, ...] = ()
    condition: FoundCondition | None = None


@dataclass(frozen=True)
class ModuleOutcome:
    slots: tuple[SlotOutcome, ...]
    declared: SlotOutcome


@dataclass(frozen=True)
class ShareOutcome:
    """A worker's answer for its share: per module path, and what it read besides."""

    modules: dict[Path, ModuleOutcome]
    # Files the worker built, and those it failed to build (their diagnostics are in
    # the outcomes, once), beyond what the main process had built before the fork.
    built: frozenset[Path]
    unbuildable: frozenset[Path]
    searched_calls: frozenset[str]


def default_jobs() -> int:
    """The cores this process may run on (at most MAX_JOBS)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_JOBS))


def can_fork() -> bool:
    return hasattr(os, "fork")


def shares(
    weights: Sequence[int],
    jobs: int,
    min_share: int = MIN_SHARE_CHARS,
    head_start: float = HEAD_START,
) -> list[range]:
    """Contiguous shares of the items (in order), at most `jobs`, each of at least
    `min_share` weight (one share: no worker). The first is the main process's; each
    worker's is lighter by `head_start` of a share's weight, as a worker warms up alone
    what the main process shares between its share and the replay (the trees it builds
    for name resolution, the callers index, the memo)."""
    total = sum(weights)
    count = min(jobs, len(weights), total // min_share if min_share > 0 else jobs)
    if count <= 1:
        return [range(len(weights))]
    # Share i ends where the weight so far reaches bounds[i] of the total.
    first = (1 + head_start * (count - 1)) / count
    rest = (1 - first) / (count - 1)
    bounds = [first + rest * i for i in range(count - 1)]
    out: list[range] = []
    start, acc = 0, 0
    for index, weight in enumerate(weights):
        acc += weight
        while len(out) < count - 1 and acc >= total * bounds[len(out)]:
            out.append(range(start, index + 1))
            start = index + 1
    out.append(range(start, len(weights)))
    return [r for r in out if len(r)]


def plan(
    weights: Sequence[int],
    jobs: int,
    min_share: int = MIN_SHARE_CHARS,
    warm_up: float = WARM_UP,
    head_start: float = HEAD_START,
) -> tuple[range, list[range]]:
    """The items the main process evaluates before forking (the first `warm_up` of the
    weight: what every share's evaluation builds first -- the trees most names resolve
    to, the callers index -- is then built once and shared), and the shares of the rest
    (the main process's first; one share: no worker)."""
    total = sum(weights)
    acc, cut = 0, 0
    while cut < len(weights) and acc < total * warm_up:
        acc += weights[cut]
        cut += 1
    rest = shares(weights[cut:], jobs, min_share, head_start)
    return range(cut), [range(r.start + cut, r.stop + cut) for r in rest]


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
            except BaseException:  # any failure: the parent does the share
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
        except Exception:  # a truncated answer: the parent does the share
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
    """A worker for `task`, or None when this system cannot fork or the fork fails."""
    if not can_fork():
        return None
    try:
        return Forked(task)
    except OSError:
        return None
