"""What an evaluation read besides the code: naming conventions (its answer is then
assumed, not proven), the device (it may differ per generation), bounds it hit (its
answer is Unknown for want of work, not of knowledge), and cycles it met.

An evaluation reached again while it is in progress reads as unknown there (a cycle cut:
a parameter whose callers pass a parameter whose callers pass the first; a function
called again with the arguments it is being evaluated for), and so does a call nested
past the depth bound. What is computed past a cut depends on what is in progress. vLLM
0.33.0's `FlashAttentionBackend.supports_combination(..., device_capability)` has two
overrides that call it through `super()`, each one's parameter given by the other's
call: read past a cut at the first, the second's took the naming convention, was kept in
the memo, and was read from there when the first was later evaluated on its own, so a
row's assumptions followed the order of the modules (and so the audit's worker
processes). An entry (a memo entry or a fact) is used only where evaluating it again
would give it, so that every answer is the one a fresh run gives whatever was asked
before (tests/test_evaluation_order.py):

- one that met no cut (nearly all) anywhere;
- one whose cuts were all at itself or at evaluations inside it (the first evaluation
  of a cycle, which closes it) where none of the evaluations on its cycles (`cycle`) is
  in progress: entered from one of them, the cut falls elsewhere;
- one that met a cut at an evaluation still in progress below it only while that
  evaluation is (`cut`: its deepest such): the same key reached along the same
  evaluations for the same question (an admission, which asks every generation, or one
  entry into an evaluator: `Epoch`). Inside one evaluation of a cycle the entries it
  makes are shared as the memo always shared them; outside it they are made again;
- one that met the depth bound (`depth`) at the same call depth only.
"""

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
    # Where it met a cut (see the module's docstring): the deepest evaluation in progress
    # below it that it met, (key, activation); the evaluations on the cycles inside it
    # (their keys); 1 + the call depth it was looked up at when it met the depth bound
    # (0: it did not).
    cut: tuple[Any, Activation] | None = None
    cycle: frozenset[Any] = frozenset()
    depth: int = 0

    def holds(self, active: dict[Any, Activation], depth: int) -> bool:
        """Whether the entry is what evaluating it gives now, with `active` (key ->
        activation) in progress at call depth `depth`."""
        if self.depth and self.depth != depth + 1:
            return False
        if self.cut is not None:
            return active.get(self.cut[0]) == self.cut[1]
        return not self.cycle or self.cycle.isdisjoint(active)


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
    # The evaluations in progress it met as cuts, not yet ended, and those on the cycles
    # it met (Recorded.cut, .cycle): None while there is none (most evaluations); whether
    # it met the depth bound.
    cuts: set[tuple[Any, Activation]] | None = None
    cycle: set[Any] | None = None
    deep: bool = False
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
        if other.cut is not None:  # a cut an evaluation inside this one left open
            if self.cuts is None:
                self.cuts = {other.cut}
            else:
                self.cuts.add(other.cut)
        if other.cycle:
            if self.cycle is None:
                self.cycle = set(other.cycle)
            else:
                self.cycle |= other.cycle
        if other.depth:
            self.deep = True
        if other.files:
            self.files |= other.files
            if self.log is not None:
                self.log.replay(other.files)

    @property
    def depth(self) -> bool:
        """Whether it met the depth bound (read as Recorded.depth by absorb)."""
        return self.deep

    @property
    def cut(self) -> tuple[Any, Activation] | None:
        """The deepest cut left open (read as Recorded.cut by absorb)."""
        return min(self.cuts, key=_level) if self.cuts else None

    def cut_at(self, key: Any, activation: Activation) -> None:
        """The evaluation `key`, in progress as `activation`, was met (read as unknown)."""
        if self.cuts is None:
            self.cuts = {(key, activation)}
        else:
            self.cuts.add((key, activation))

    def close(self, key: Any, activation: Activation) -> None:
        """The evaluation `key` (these its reads), `activation`, ends: its cuts at itself
        are no longer open, and with a cut it is on a cycle."""
        cuts = self.cuts
        if cuts:
            cuts.discard((key, activation))
            if self.cycle is None:
                self.cycle = {key}
            else:
                self.cycle.add(key)

    def frozen(self, depth: int = 0) -> Recorded:
        """What a memo entry keeps; `depth`: the call depth it was looked up at."""
        plain = not (self.assumed or self.bounds or self.files or self.environment)
        if plain and not (self.cuts or self.cycle or self.deep):
            return DEVICE if self.device else NOTHING
        cut = self.cut
        return Recorded(
            frozenset(self.assumed) if self.assumed else _NONE,
            self.device,
            frozenset(self.bounds) if self.bounds else _NONE,
            self.files,
            self.environment,
            cut,
            # Held while `cut` is in progress, whatever else is: its cycles do not matter.
            frozenset(self.cycle) if self.cycle and cut is None else _NONE,
            depth + 1 if self.deep else 0,
        )


def _level(cut: tuple[Any, Activation]) -> int:
    return cut[1][0]


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


# An evaluation in progress (Evaluator.active): (level, question, the activation below it,
# key). An entry computed past a cut at it holds while it is in progress: the same key,
# reached along the same evaluations, for the same question (the other generations'
# evaluations of the question walk the same way: replay.py).
Activation = tuple[int, int, Any, Any]


def enter(ev: Evaluator, key: Any) -> Activation:
    """Put the evaluation `key` in progress (leave() takes it off)."""
    below = ev.top
    activation = (0 if below is None else below[0] + 1, ev.epoch.current, below, key)
    ev.active[key] = activation
    ev.top = activation
    return activation


def leave(ev: Evaluator, key: Any, activation: Activation) -> None:
    del ev.active[key]
    ev.top = activation[2]


# How many times a run evaluates again an entry made past a cut or the depth bound
# (Recorded.holds false) before it reuses such entries wherever they are met, as the memo
# did before answers were made independent of order. Large cycles of callers re-entered
# from every condition (unsloth 2026.10.9's studio/ installers: more than 100,000 in the
# first minute, the audit past 20 minutes where it took 90 s) cost that much; the largest
# counts of the corpora measured: sglang 0.5.23 6,920, vLLM 0.33.0 672. Past it the
# answers may depend on the order modules are evaluated in again (on such a project only).
MAX_SCOPED_MISSES = 50_000


@dataclass(slots=True)
class Epoch:
    """The question being answered, shared by the evaluators of a run (Semantics): an
    admission, which asks every generation, or one entry into an evaluator outside one
    (`open`: the questions in progress). What is computed past a cut holds for it only,
    until the run has evaluated such entries again MAX_SCOPED_MISSES times (`missed`)."""

    current: int = 0
    open: int = 0
    missed: int = 0

    def begin(self) -> None:
        """An entry into an evaluator: a new question, unless one is being answered."""
        if not self.open:
            self.current += 1

    def spent(self) -> bool:
        """An entry does not hold here: whether to use it all the same (the run has
        evaluated such entries again too often), counting the miss."""
        self.missed += 1
        return self.missed > MAX_SCOPED_MISSES


T = TypeVar("T")


def remembered(ev: Evaluator, key: Any, compute: Callable[[], T], meanwhile: T) -> T:
    """`ev.facts[key]`, computed once per run (`meanwhile` while it is: a search reached
    again from inside itself finds that, a cycle cut), with what it read, replayed on
    every later use as a memo hit's (the assumptions of a callers search's callees
    went to the first reader only), and kept as a memo entry is (see the module's
    docstring)."""
    held = ev.facts.get(key)
    if held is not None:
        value, _, recorded = held
        if recorded is NOTHING or recorded.holds(ev.active, ev.depth) or ev.epoch.spent():
            if recorded is not NOTHING:
                ev.reads.absorb(recorded)
            found: T = value
            return found
    if key in ev.active:
        ev.reads.cut_at(key, ev.active[key])
        return meanwhile
    activation = enter(ev, key)
    try:
        with ev.tracking() as reads:
            value = compute()
            reads.close(key, activation)
        kept = reads.frozen(ev.depth)
        ev.facts[key] = (value, kept.files, kept)
        return value
    finally:
        leave(ev, key, activation)
