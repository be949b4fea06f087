"""The audit's second core: worker processes that evaluate part of the candidate
modules, so that the main process only puts together what they found.

Nearly every condition of a candidate module reads no arch term (9,038 of 9,585 on sglang
0.5.9) and is dropped after a full evaluation; that evaluation is most of a cold audit.
Workers are forked once the candidate trees are built (they share them, copy-on-write).
The main process then takes the modules left from the front, the workers from the back
(Claims), each evaluating every condition of a module as the single-process run does; a
worker sends back per condition whether it varies, what it found (FoundCondition) and
what it diagnosed. The main process then goes through the workers' modules in the
single-process order, putting each found condition on its own tree (by its node path:
conditions.node_path, no walk of the module) and replaying the diagnostics: the report
is the single-process one (tests/test_audit_workers.py; scripts/compare_answers.py on
real corpora).

A round of the widening (audit/widening.py) large enough for two processes is shared the
same way, by workers forked for it (they start with every tree and memo entry the main
process holds: no warm-up), and so are the widening's own checks of a round (whether each
definition varies: VariesOutcome) and its scan of the texts for the names found, and the
classification of the gates (ClassOutcome: a report row is plain data). `claimed` runs
any of these: the main process's items a prefix, each worker's answer with what it
diagnosed (`added`), put back where the single-process run says it (`replay`).

A worker that fails (killed, out of memory, an exception) costs only time: the modules it
took are evaluated in the main process. No fork (not POSIX), no worker. The workers are
forked by gatecheck/forking.py.
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Generic, TypeVar

from gatecheck import forking, progress
from gatecheck.audit.conditions import FoundCondition
from gatecheck.audit.report import AuditedGate
from gatecheck.containment import BOUND_HIT
from gatecheck.loading.project import FileDiagnostic, Project
from gatecheck.semantics.admitted import Semantics

# A share smaller than this much source text is not worth a process (a fork, the memo
# and the callers index built again): small projects run in one.
MIN_SHARE_CHARS = 400_000
MAX_JOBS = 4
# Gates a classifying process takes at least (a fork and its copied pages cost about as
# much as classifying a hundred; sglang 0.5.23 lists about 850).
MIN_SHARE_GATES = 200


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
class ClassOutcome:
    """One gate as a worker classified it (None: no row), with what it diagnosed."""

    gate: AuditedGate | None
    diagnostics: tuple[FileDiagnostic, ...] = ()


@dataclass(frozen=True)
class VariesOutcome:
    """Whether a definition the widening follows varies (audit/widening.py), with what
    its evaluation diagnosed."""

    varies: bool
    diagnostics: tuple[FileDiagnostic, ...] = ()


K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True)
class Share(Generic[K, V]):
    """A worker's answer for the items it took (modules by path, gates by index), and
    what it read besides."""

    items: dict[K, V]
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


def plan(weights: Sequence[int], jobs: int, min_share: int = MIN_SHARE_CHARS) -> int:
    """How many processes share the items, the main one included: at most `jobs`, each
    with `min_share` of weight to do (1: no worker). They are forked with nothing
    evaluated first: a fifth of the weight evaluated before the fork, so that the trees
    and callers its names lead to were built once, was slower than each process building
    its own in parallel. Cold audits, -j 2, the two taking turns (seconds): vLLM 0.33.0
    23.2 / 25.8 / 23.0 against 29.9 / 28.8 / 27.1 with a fifth first; vLLM 0.18.0 7.1 /
    6.3 / 7.1 against 7.4 / 7.3 / 7.2; FlashInfer 0.6.6 4.7 / 4.5 / 4.5 against 5.2 /
    5.2 / 4.9; lmdeploy 0.18.0 1.4 / 1.6 / 1.6 against 1.9 / 1.8 / 1.8; sglang 0.5.9
    6.1 / 7.8 / 7.3 / 6.6 against 6.8 / 7.5 / 8.2 / 7.2; sglang 0.5.23 36.5 / 38.3 /
    37.4 / 35.9 against 36.2 / 45.8 / 37.7 / 35.3."""
    total = sum(weights)
    count = min(jobs, len(weights), total // min_share if min_share > 0 else jobs)
    return max(count, 1)


class Claims:
    """The items, claimed one at a time from both ends of their list:
    the main process from the front, the workers from the back, until the two meet. No
    process waits while another has work left, whatever each item costs (fixed shares
    left a worker idle for 3.7 s of a 37 s audit of sglang 0.5.23, and the main process
    for a while on other trees). The main process's items are a prefix, the workers' the
    rest: the report keeps the single-process order. Two indices in a page shared with
    the forked workers, under a lock."""

    _LAYOUT = struct.Struct("qq")

    def __init__(self, count: int) -> None:
        self._shared = mmap.mmap(-1, self._LAYOUT.size)  # anonymous: shared across fork
        self._lock = multiprocessing.get_context("fork").Lock()
        self._LAYOUT.pack_into(self._shared, 0, 0, count)

    def front(self) -> int | None:
        """The next item from the front (the main process), None once none is left."""
        with self._lock:
            front, back = self._LAYOUT.unpack_from(self._shared, 0)
            if front >= back:
                return None
            self._LAYOUT.pack_into(self._shared, 0, front + 1, back)
            return int(front)

    def back(self) -> int | None:
        """The next item from the back (a worker), None once none is left."""
        with self._lock:
            front, back = self._LAYOUT.unpack_from(self._shared, 0)
            if front >= back:
                return None
            self._LAYOUT.pack_into(self._shared, 0, front, back - 1)
            return int(back - 1)

    def taken_from_front(self) -> int:
        """How many items the front has taken: the workers took the others."""
        with self._lock:
            front, _ = self._LAYOUT.unpack_from(self._shared, 0)
            return int(front)


def claimed(
    project: Project,
    semantics: Semantics,
    count: int,
    processes: int,
    task: Callable[[Claims], Share[K, V]],
    here: Callable[[int], None],
) -> tuple[dict[K, V], frozenset[Path], int]:
    """Items 0..count-1 taken from both ends (Claims): this process's from the front,
    each given to `here`; `processes - 1` forked workers' (`task`) from the back. What
    the workers sent back (the files they built and the calls they searched taken in
    here), the files they could not build, and how many the front took."""
    claims = Claims(count)
    forked = [forking.start(partial(task, claims)) for _ in range(processes - 1)]
    while (index := claims.front()) is not None:
        here(index)
    items: dict[K, V] = {}
    unbuildable: frozenset[Path] = frozenset()
    for worker in forked:
        answer = None if worker is None else worker.result()
        if answer is not None:
            project.built_elsewhere(answer.built)
            semantics.note_searched_calls(answer.searched_calls)
            items.update(answer.items)
            unbuildable |= answer.unbuildable
    return items, unbuildable, claims.taken_from_front()


def answered(
    project: Project, semantics: Semantics, claims: Claims, answer: Callable[[int], V]
) -> Share[int, V]:
    """A worker's task over items by index: `answer(i)` of each it claims from the back
    (`claimed`'s `task`, with `claims` left to bind), sent back with what it built."""
    tried = project.tried_paths()
    out: dict[int, V] = {}
    with progress.listening(None):
        while (index := claims.back()) is not None:
            out[index] = answer(index)
    return share(project, semantics, tried, out)


def share(
    project: Project, semantics: Semantics, tried: frozenset[Path], items: dict[K, V]
) -> Share[K, V]:
    """A worker's answer: `items`, and what it built or failed to build since `tried`."""
    built, unbuildable = project.tried_since(tried)
    return Share(items, built, unbuildable, semantics.searched_call_names())


def added(project: Project, before: int) -> tuple[FileDiagnostic, ...]:
    """The diagnostics added since there were `before` (what a worker sends back)."""
    return tuple(project.diagnostics[before:])


def replay(
    project: Project, diagnostics: Iterable[FileDiagnostic], unbuildable: frozenset[Path]
) -> None:
    """A worker's diagnostics, where the single-process run adds them: a file that fails
    to build, or a bound hit, is said once (by whichever process came to it first)."""
    for diagnostic in diagnostics:
        if diagnostic.path in unbuildable:
            said = project.unbuildable_elsewhere(diagnostic.path)
        else:
            said = diagnostic.code == BOUND_HIT
        if said and diagnostic in project.diagnostics:
            continue
        project.diagnostics.append(diagnostic)
