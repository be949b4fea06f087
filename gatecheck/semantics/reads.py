"""What an evaluation read besides the code: naming conventions (its answer is then
assumed, not proven), the device (it may differ per generation) and bounds it hit (its
answer is Unknown for want of work, not of knowledge)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from gatecheck.loading.readlog import ReadLog
    from gatecheck.semantics.evaluator import Evaluator


@dataclass(frozen=True)
class Recorded:
    """A finished evaluation's reads, kept with its memo entry and replayed on a hit."""

    assumed: frozenset[str] = frozenset()
    device: bool = False
    bounds: frozenset[str] = frozenset()
    # The modules and searches it read, when the project keeps a read log (readlog.py:
    # its bits).
    files: int = 0
    # Whether it read an environment variable (os.environ.get, os.getenv): the answer may
    # then change once the environment is fixed (Semantics.admission).
    environment: bool = False


NOTHING = Recorded()
# Read the device and nothing else: most memo entries of a device-dependent evaluation
# (one object for all of them, not a Recorded and two empty frozensets each).
DEVICE = Recorded(device=True)
_NONE: frozenset[str] = frozenset()


@dataclass(slots=True)
class Reads:
    """The reads of an evaluation in progress (slotted: one is made for every memoized
    evaluation, and its fields are read on every memo hit)."""

    # Human-readable reasons: conventions and dispatch guesses the answer rests on.
    assumed: set[str] = field(default_factory=set)
    # Whether any value came from the device: an evaluation that never reads it gives
    # the same answer for every generation, so the others need not be evaluated at all.
    device: bool = False
    # Bounds hit (call depth, work, constant size): why a gate may have vanished.
    bounds: set[str] = field(default_factory=set)
    # The modules and searches read (only when the project keeps a read log), and the
    # log: what is absorbed (a memo hit) is read where the log's innermost frame is.
    files: int = 0
    # Whether an environment variable was read (see Recorded.environment).
    environment: bool = False
    log: ReadLog | None = field(default=None, repr=False, compare=False)

    def absorb(self, other: Reads | Recorded) -> None:
        if other.assumed:
            self.assumed |= other.assumed
        if other.device:
            self.device = True
        if other.bounds:
            self.bounds |= other.bounds
        if other.environment:
            self.environment = True
        if other.files:
            self.files |= other.files
            if self.log is not None:
                self.log.replay(other.files)

    def frozen(self) -> Recorded:
        if not (self.assumed or self.bounds or self.files or self.environment):
            return DEVICE if self.device else NOTHING
        return Recorded(
            frozenset(self.assumed) if self.assumed else _NONE,
            self.device,
            frozenset(self.bounds) if self.bounds else _NONE,
            self.files,
            self.environment,
        )


class Memo:
    """An Evaluator's memo of bindings or calls, each with what it read. An entry that
    read nothing from the device is the same for every generation (the generation only
    enters through intrinsics and conventions, which set `device`), so it goes to a store
    shared by the evaluators of all generations with the same flag assumptions: each
    binding or call is evaluated once per run, not once per generation."""

    def __init__(
        self, shared: dict[Any, tuple[Any, Recorded]] | None = None, base: Memo | None = None
    ) -> None:
        from gatecheck.semantics.values import UNKNOWN  # astroid is imported by now

        self.own: dict[Any, tuple[Any, Recorded]] = {}
        self.shared: dict[Any, tuple[Any, Recorded]] = {} if shared is None else shared
        # The memo of the same generation where environment variables are unknown, for
        # one of the world where none is set (Evaluator.unset_environment): its entries
        # that read no variable are this world's too (a second evaluation of a condition
        # there cost a sixth of a cold audit of sglang 0.5.23 without them).
        self.base = base
        # Entries are kept to the end of the run (sglang 0.5.23: 244,807), and most are
        # alike: their reads are one of 26 distinct Recorded (115,870 objects before they
        # were shared), their value UNKNOWN for 175,562. One object each, then: a
        # Recorded per distinct reads, an entry per (singleton value, reads).
        self._recorded: dict[Recorded, Recorded] = {NOTHING: NOTHING, DEVICE: DEVICE}
        self._unknown = UNKNOWN
        self._entries: dict[tuple[int, int], tuple[Any, Recorded]] = {}

    def get(self, key: Any) -> tuple[Any, Recorded] | None:
        found = self.own.get(key)
        if found is None:
            found = self.shared.get(key)
        if found is None and self.base is not None:
            return _same_here(self.base.get(key))
        return found

    def own_entry(self, key: Any) -> tuple[Any, Recorded] | None:
        """The entry of this generation's own (device-dependent) store, the base's
        included (replay.py retraces through it)."""
        found = self.own.get(key)
        if found is None and self.base is not None:
            return _same_here(self.base.own.get(key))
        return found

    def in_shared(self, key: Any) -> bool:
        """Whether the store every generation shares holds `key` (the base's included)."""
        if key in self.shared:
            return True
        return self.base is not None and _same_here(self.base.shared.get(key)) is not None

    def put(self, key: Any, value: Any, recorded: Recorded) -> None:
        if recorded is not NOTHING and recorded is not DEVICE:
            recorded = self._recorded.setdefault(recorded, recorded)
        entry: tuple[Any, Recorded] = (value, recorded)
        if value is self._unknown or value is None or value is True or value is False:
            # Both are kept alive by the entry itself: their ids name them.
            entry = self._entries.setdefault((id(value), id(recorded)), entry)
        store = self.own if recorded.device else self.shared
        store[key] = entry


def _same_here(entry: tuple[Any, Recorded] | None) -> tuple[Any, Recorded] | None:
    """A base memo's entry, unless it read an environment variable (its answer may differ
    where none is set)."""
    return None if entry is None or entry[1].environment else entry


T = TypeVar("T")


def remembered(ev: Evaluator, key: Any, compute: Callable[[], T], meanwhile: T) -> T:
    """`ev.facts[key]`, computed once per run (`meanwhile` while it is: a search reached
    again from inside itself finds that). With a read log (readlog.py), the modules the
    computation read are kept with it and replayed on every later use, as a memo hit's."""
    if key in ev.facts:
        value, files = ev.facts[key]
        if files:
            ev.reads.absorb(Recorded(files=files))
        found: T = value
        return found
    ev.facts[key] = (meanwhile, 0)
    if ev.project.read_log is None:
        value = compute()
        ev.facts[key] = (value, 0)
        return value
    with ev.tracking() as reads:
        value = compute()
    ev.facts[key] = (value, reads.files)
    return value
