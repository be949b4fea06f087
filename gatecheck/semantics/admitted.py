"""The one semantics every view shares: the set of generations for which a condition
can be true (Kleene three-valued evaluation, one Evaluator per generation). The loop
over generations lives here and only here (`Semantics.per_generation`)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, TypeVar

from gatecheck.config.model import Generation, Registry, VocabularyEntry
from gatecheck.loading.project import Project
from gatecheck.semantics.reads import Epoch, Memo, Reads, Recorded

if TYPE_CHECKING:
    # The evaluator (and astroid) are imported on the first evaluation: a run answered
    # from the cache makes a Semantics and never evaluates.
    from astroid import nodes

    from gatecheck.semantics.env import Env
    from gatecheck.semantics.evaluator import Evaluator
    from gatecheck.semantics.oracle import IdiomRegistry
    from gatecheck.semantics.values import Raises, Tri

T = TypeVar("T")


@dataclass(frozen=True)
class Admission:
    """Generations for which a condition can be true / can be false, whether any
    naming convention (rather than a readable body) went into the answer, and which
    bounds the evaluation hit (an Unknown for want of work: say so, see bounds.py)."""

    can_be_true: frozenset[str]
    can_be_false: frozenset[str]
    assumed: frozenset[str] = frozenset()
    bounds: frozenset[str] = frozenset()
    # Unknown on every generation, yet the generation matters once the unknown operands
    # are taken as free variables: for each assignment of them under which the outcome
    # differs between generations, the generations where it is true (see free_atoms.py).
    free_true_sets: tuple[frozenset[str], ...] = ()
    # Read with no environment variable set, the only reading that told generations
    # apart (environment.py; the audit only): `assumed` names the variables.
    unset_environment: bool = False
    # Read once for each class a classmethod may run for (subclasses.py): per class,
    # its name (`module.Class`, the module's last name) and where it can be true and false.
    receivers: tuple[tuple[str, frozenset[str], frozenset[str]], ...] = ()
    # Whether the evaluation read the device (an idiom, a naming convention), whatever
    # the answer: a test constant over the registry may still be about hardware.
    reads_device: bool = False

    @property
    def admitted(self) -> frozenset[str]:
        return self.can_be_true

    def depends_on(self, generations: frozenset[str]) -> bool:
        """Whether, the same unknowns fixed, these generations can answer differently."""
        return any(0 < len(generations & true) < len(generations) for true in self.free_true_sets)

    @property
    def depends_on_generation(self) -> bool:
        return bool(self.free_true_sets)


def _class_label(cls: nodes.ClassDef) -> str:
    """`cutlass.FwOp`: the class by its module's last name (operators of one family often
    share a class name, each in its own module)."""
    module = str(cls.root().name)
    return f"{module.rsplit('.', 1)[-1]}.{cls.name}"


def _unknown_on(admission: Admission, names: frozenset[str]) -> bool:
    """Whether the condition can be true and false on every one of these generations."""
    return admission.can_be_true & names == admission.can_be_false & names == names


def _union(
    admissions: Sequence[Admission],
    receivers: tuple[tuple[str, frozenset[str], frozenset[str]], ...],
    sides: tuple[frozenset[str], frozenset[str]],
) -> Admission:
    """The answers of one condition for each class a classmethod may run for: can be
    true (false) where `sides` say (Semantics._told_by_vendor), with what was assumed
    or bounded in any of them (`receivers`: each class's answer, kept)."""
    free: list[frozenset[str]] = []
    for each in admissions:
        free.extend(s for s in each.free_true_sets if s not in free)
    return Admission(
        sides[0],
        sides[1],
        frozenset().union(*(a.assumed for a in admissions)),
        frozenset().union(*(a.bounds for a in admissions)),
        tuple(free),
        any(a.unset_environment for a in admissions),
        receivers,
        any(a.reads_device for a in admissions),
    )


class Semantics:
    """Evaluators for every registry generation over one project, memoized."""

    def __init__(
        self,
        project: Project,
        registry: Registry,
        vocabulary: Sequence[VocabularyEntry] = (),
        *,
        shortcuts: bool = True,
        idioms: IdiomRegistry | None = None,
        follow_callers: bool = False,
        follow_flow: bool | None = None,
        assume_unset_environment: bool = False,
    ) -> None:
        self.project = project
        self.registry = registry
        # Each vendor's generations (the free-unknowns analysis asks per vendor).
        self._vendors = [
            registry.vendor_names(vendor)
            for vendor in dict.fromkeys(g.vendor for g in registry.generations)
        ]
        self.vocabulary = tuple(vocabulary)
        self._idioms = idioms
        # Without shortcuts every generation is evaluated in full, by its own evaluator
        # and memo: slower, the same answers (tests hold the shortcuts to that).
        self.shortcuts = shortcuts
        # A parameter read inside its function takes the value its callers pass
        # (callers.py): the audit asks for it; `check` keeps its answers.
        self.follow_callers = follow_callers
        # A flag re-bound under `if`s keeps its device dependence (flow.py): audit only,
        # so by default wherever callers are followed (the audit's Semantics).
        self.follow_flow = follow_callers if follow_flow is None else follow_flow
        # A condition unknown on every generation of a vendor only because an
        # environment variable may override the device reads as with no variable set,
        # assumed (environment.py): the audit asks for it; `check` keeps its answers.
        self.assume_unset_environment = assume_unset_environment
        self._evaluators: dict[tuple[str, tuple[tuple[str, Any], ...], bool], Evaluator] = {}
        # Facts about classes, the same for every generation (see dispatch.py).
        self._facts: dict[Any, Any] = {}
        # Every node an evaluation started from, kept as long as the facts and memos
        # keyed by its id (Evaluator.held).
        self._held: dict[int, Any] = {}
        # What every generation's evaluator reads alike (see Memo), per flag assumptions.
        self._shared: dict[
            tuple[tuple[tuple[str, Any], ...], bool], tuple[dict[Any, Any], dict[Any, Any]]
        ] = {}
        # The question being answered, for every evaluator (reads.py: cycles).
        self._epoch = Epoch()
        # What each function puts in containers (device_data.stores), by its place.
        self._stores: dict[tuple[str, int | None, str], frozenset[tuple[str, str]]] = {}

    def searched_call_names(self) -> frozenset[str]:
        """The names whose callers were searched so far (see `callers.searched_names`)."""
        from gatecheck.semantics.callers import searched_names

        return frozenset(searched_names(self._facts))

    def note_searched_calls(self, names: Iterable[str]) -> None:
        """Names whose callers another process searched (audit/workers.py)."""
        from gatecheck.semantics.callers import searched_names

        searched_names(self._facts).update(names)

    def adopt(self, other: Semantics, keep: Callable[[int], bool]) -> None:
        """`other`'s memo entries (over the same trees) whose reads `keep` holds, as if
        evaluated here (impact/overlay.py: what reads no change answers the same), but
        those computed past a cut, which held for one of its questions (reads.py)."""

        def kept(recorded: Recorded) -> bool:
            return recorded.cut is None and keep(recorded.files)

        for world, stores in other._shared.items():
            mine = self._shared.setdefault(world, ({}, {}))
            for theirs, ours in zip(stores, mine, strict=True):
                ours.update({k: v for k, v in theirs.items() if kept(v[1])})
        for (generation, flag_items, unset), evaluator in other._evaluators.items():
            here = self.evaluator(generation, dict(flag_items), unset_environment=unset)
            pairs = (
                (here.binding_memo, evaluator.binding_memo),
                (here.call_memo, evaluator.call_memo),
            )
            for mine_memo, their_memo in pairs:
                mine_memo.own.update({k: v for k, v in their_memo.own.items() if kept(v[1])})

    def adopt_facts(self, other: Semantics, keep: Callable[[Any, Any], bool]) -> None:
        """`other`'s facts that `keep(key, value)` holds (see adopt)."""
        self._facts.update({k: v for k, v in other._facts.items() if keep(k, v)})

    def fact(self, key: Any) -> Any:
        """A fact of this run (None: not found yet)."""
        return self._facts.get(key)

    def put_fact(self, key: Any, value: Any) -> None:
        """A fact known before anything is evaluated (impact/overlay.py: the working
        tree's, amended for BASE)."""
        self._facts[key] = value

    @property
    def idioms(self) -> IdiomRegistry:
        if self._idioms is None:
            from gatecheck.semantics.oracle import default_idioms

            self._idioms = default_idioms()
        return self._idioms

    def evaluator(
        self,
        generation: str,
        flags: Mapping[str, Any] | None = None,
        *,
        unset_environment: bool = False,
    ) -> Evaluator:
        """`unset_environment`: an evaluator (and memos) of the world where no
        environment variable is set (Evaluator.unset_environment)."""
        # Asked for every generation of every condition evaluated: no flags (nearly
        # every call) is answered without sorting.
        flag_items = tuple(sorted(flags.items(), key=lambda kv: kv[0])) if flags else ()
        key = (generation, flag_items, unset_environment)
        found = self._evaluators.get(key)
        if found is None:
            # With no variable set, what read none is taken from the other world.
            base = self.evaluator(generation, flags) if unset_environment else None
            found = self._new_evaluator(
                self.registry.get(generation), flag_items, unset_environment, base
            )
            self._evaluators[key] = found
        return found

    def former_evaluator(self, generation: str) -> Evaluator | None:
        """An evaluator of the device a registry generation was under earlier toolkits
        (its `formerly` capability: Thor as (10, 1)), sharing what reads no device with
        the registry's; None for a generation never renamed."""
        from dataclasses import replace

        current = self.registry.get(generation)
        if current.formerly is None:
            return None
        key = (f"{generation}@formerly", (), False)
        found = self._evaluators.get(key)
        if found is None:
            major, minor = current.formerly
            former = replace(
                current,
                name=f"{generation}@{major}.{minor}",
                capability=current.formerly,
                formerly=None,
            )
            found = self._new_evaluator(former, (), False, None)
            self._evaluators[key] = found
        return found

    def _new_evaluator(
        self,
        generation: Generation,
        flag_items: tuple[tuple[str, Any], ...],
        unset_environment: bool,
        base: Evaluator | None,
    ) -> Evaluator:
        """An evaluator of `generation` whose memos share, with every evaluator of the
        same flags and environment, what reads no device; `base`: the evaluator of the
        world with the environment read, whose memos it falls back to."""
        from gatecheck.semantics.evaluator import Evaluator

        bindings, calls = (
            ({}, {})
            if not self.shortcuts
            else self._shared.setdefault((flag_items, unset_environment), ({}, {}))
        )
        return Evaluator(
            self.project,
            self.registry,
            generation,
            self.vocabulary,
            dict(flag_items),
            idioms=self.idioms,
            reads=Reads(log=self.project.read_log),  # see loading/readlog.py
            binding_memo=Memo(bindings, None if base is None else base.binding_memo),
            call_memo=Memo(calls, None if base is None else base.call_memo),
            facts=self._facts,
            held=self._held,
            epoch=self._epoch,
            follow_callers=self.follow_callers,
            follow_flow=self.follow_flow,
            unset_environment=unset_environment,
        )

    def _each(
        self,
        compute: Callable[[str, Evaluator], T],
        flags: Mapping[str, Any] | None,
        generations: Collection[str] | None,
        shortcut: bool,
        unset_environment: bool = False,
    ) -> Iterator[tuple[str, T, Reads]]:
        from gatecheck.semantics.replay import OPAQUE, retraced

        names = [g for g in self.registry.names if generations is None or g in generations]
        # The evaluations so far whose path another generation may retrace (replay.py),
        # with their answers and reads.
        retraceable: list[tuple[list[tuple[Any, ...]], T, Reads]] = []
        for index, gen in enumerate(names):
            evaluator = self.evaluator(gen, flags, unset_environment=unset_environment)
            if shortcut:
                found = next((r for r in retraceable if retraced(r[0], evaluator)), None)
                if found is not None:
                    # Every point where the generation enters gives this one what it
                    # gave that one: it would walk the same path to the same answer.
                    yield gen, found[1], found[2]
                    continue
                evaluator.trace = []
            try:
                with evaluator.tracking() as reads:
                    result = compute(gen, evaluator)
                trace = evaluator.trace
            finally:
                evaluator.trace = None
            yield gen, result, reads
            if shortcut and index == 0 and not reads.device:
                # Nothing the device decides was read: every generation answers alike.
                for other in names[1:]:
                    yield other, result, reads
                return
            if trace is not None and not reads.bounds and OPAQUE not in trace:
                retraceable.append((trace, result, reads))

    def per_generation(
        self,
        compute: Callable[[str, Evaluator], T],
        flags: Mapping[str, Any] | None = None,
        generations: Collection[str] | None = None,
    ) -> dict[str, T]:
        """compute(generation, its evaluator) for every registry generation (or those
        of `generations`), in registry order: one question (see _question)."""
        with self._question():
            each = self._each(compute, flags, generations, False)
            return {gen: result for gen, result, _ in each}

    def _device_classes(
        self,
        atom: nodes.NodeNG,
        unset_environment: bool = False,
        env_for: Mapping[str, Env] | None = None,
    ) -> dict[str, Hashable] | None:
        """Each generation's value of the side of `atom` (a comparison) the device
        decides, as device_data.device_keys reads it; None for any other atom, or where
        the other side is read from the function's parameters (its callers decide it: a
        predicate's template, `major() in majors`), or is a memo the function fills with
        the device's value (device_data.is_memo), or a constant every generation's
        value compares with alike (device_data.alike_against). A side reading a local
        that `env_for` (a body's locals, per generation) binds is not read: its value is
        read without them."""
        from astroid import nodes

        from gatecheck.semantics.conventions import reads_a_parameter
        from gatecheck.semantics.device_data import (
            alike_against,
            device_keys,
            is_literal,
            is_memo,
            stores,
        )

        if not (isinstance(atom, nodes.Compare) and len(atom.ops) == 1):
            return None
        names = self.registry.names
        sides = (atom.left, atom.ops[0][1])
        bound = {name for env in (env_for or {}).values() for name in env}
        frame = atom.frame()
        # By the function's place, not the node: a tree dropped is not kept alive here.
        where = (str(frame.root().name), frame.lineno, str(getattr(frame, "name", "")))
        stored = self._stores.get(where)
        if stored is None:
            stored = self._stores[where] = stores(frame)
        for side, other in (sides, sides[::-1]):
            if reads_a_parameter(other) or is_memo(side, other, stored):
                continue
            if bound and any(n.name in bound for n in side.nodes_of_class(nodes.Name)):
                continue
            each = self.values(side, names, unset_environment=unset_environment)
            if is_literal(other) and alike_against(atom.ops[0][0], each, other):
                continue
            keys = device_keys(each, self.registry)
            if keys is not None:
                return keys
        return None

    def values(
        self,
        node: nodes.NodeNG,
        generations: Collection[str],
        optional: bool = False,
        unset_environment: bool = False,
    ) -> dict[str, Any]:
        """What `node` evaluates to on each of `generations`, with the shortcuts the
        admission takes (nothing the device decides read: one evaluation for all).
        `optional`: a result that may be None stays NoneOr (an argument passed on, as
        callers.py reads one); `unset_environment`: read with no environment variable
        set, as an admission that needed it was (Admission.unset_environment)."""

        def value(_gen: str, evaluator: Evaluator) -> Any:
            return evaluator.value(node, optional=optional)

        with self._question():
            each = self._each(value, None, generations, self.shortcuts, unset_environment)
            return {gen: v for gen, v, _ in each}

    @contextmanager
    def _question(self) -> Iterator[None]:
        """One question, whatever it asks of each generation's evaluator: what they
        compute past a cycle cut holds until it is answered (reads.py), the
        generations' evaluations walking alike (replay.py)."""
        epoch = self._epoch
        epoch.begin()
        epoch.open += 1
        try:
            yield
        finally:
            epoch.open -= 1

    def admission(
        self,
        node: nodes.NodeNG,
        flags: Mapping[str, Any] | None = None,
        env_for: Mapping[str, Env] | None = None,
    ) -> Admission:
        """In a classmethod whose subclasses define anew what it reads through `cls`,
        the union of its answers for each class it may run for that tells anything
        (subclasses.py). One question (see _question)."""
        with self._question():
            return self._each_receiver(node, flags, env_for)

    def call_admission(self, node: nodes.NodeNG) -> Admission:
        """The Admission of the answer calling what `node` evaluates to gives, with no
        arguments: a device predicate bound by a call (`is_blackwell = lru_cache(
        maxsize=1)(partial(_check, majors=[10, 12]))`), read as each use `is_blackwell()`
        reads it. One question."""
        with self._question():
            seen = Reads()
            raised: set[str] = set()
            truths = self._truths(node, None, None, seen, raised=raised, called=True)
            if len(raised) == len(truths):
                raised = set()
            return Admission(
                frozenset(g for g, t in truths.items() if t is not False and g not in raised),
                frozenset(g for g, t in truths.items() if t is not True and g not in raised),
                frozenset(seen.assumed),
                frozenset(seen.bounds),
                (),
                False,
                reads_device=seen.device,
            )

    def _each_receiver(
        self,
        node: nodes.NodeNG,
        flags: Mapping[str, Any] | None,
        env_for: Mapping[str, Env] | None,
    ) -> Admission:
        from gatecheck.semantics import subclasses

        if flags is None or subclasses.RECEIVER not in flags:
            options = self.evaluator(self.registry.names[0]).receivers(node)
            if options:
                method, receiver = node.frame(), subclasses.RECEIVER
                each = [
                    self.admission(node, {**(flags or {}), receiver: (method, k)}, env_for)
                    for k in options
                ]
                # A class whose answer is unknown on every generation of a vendor (an
                # override whose body cannot be read: NVML; an AMD backend on NVIDIA
                # parts) says nothing of that vendor's generations.
                kept = tuple(
                    (_class_label(k), a.can_be_true, a.can_be_false)
                    for k, a in zip(options, each, strict=True)
                )
                everything = self.registry.all_names()
                told = [
                    a
                    for a in each
                    if a.free_true_sets or not a.can_be_true == a.can_be_false == everything
                ]
                return _union(told or each, kept, self._told_by_vendor(each))
        return self._admission(node, flags, env_for)

    def _told_by_vendor(self, each: Sequence[Admission]) -> tuple[frozenset[str], frozenset[str]]:
        """Where the classes' answers can be true and false, vendor by vendor, from the
        classes whose answer tells something of that vendor's generations (all of them
        where none does)."""
        true: set[str] = set()
        false: set[str] = set()
        for vendor in dict.fromkeys(g.vendor for g in self.registry.generations):
            names = self.registry.vendor_names(vendor)
            told = [a for a in each if a.free_true_sets or not _unknown_on(a, names)]
            for a in told or each:
                true |= a.can_be_true & names
                false |= a.can_be_false & names
        return frozenset(true), frozenset(false)

    def _admission(
        self,
        node: nodes.NodeNG,
        flags: Mapping[str, Any] | None,
        env_for: Mapping[str, Env] | None,
    ) -> Admission:
        from gatecheck.semantics import free_atoms

        seen = Reads()
        raised: set[str] = set()
        truths = self._truths(node, flags, env_for, seen, raised=raised)
        undecided = self._undecided_vendors(truths)
        unset = False
        if self.assume_unset_environment and seen.environment and seen.device and undecided:
            found = self._unset_reading(node, flags, env_for, truths, undecided)
            if found is not None:
                (truths, seen, raised), unset = found, True
                undecided = self._undecided_vendors(truths)
        if len(raised) == len(truths):
            raised = set()  # raising on every generation: perhaps not the calls that run
        can_true = frozenset(g for g, t in truths.items() if t is not False and g not in raised)
        can_false = frozenset(g for g, t in truths.items() if t is not True and g not in raised)
        free: tuple[frozenset[str], ...] = ()
        if undecided:
            # A global's binding is read where it is made: only without a body's locals.
            follow = None if env_for is not None else self._global_expression
            # An atom comparing the device's value with data nothing decides: one unknown
            # per value the device gives (free_atoms), read where no body's locals are.
            classes_of = None
            if seen.device and not flags:
                classes_of = partial(self._device_classes, unset_environment=unset, env_for=env_for)
            free = free_atoms.free_true_sets(
                node,
                lambda leaf: self._truths(leaf, flags, env_for, seen, unset_environment=unset),
                follow,
                classes_of,
            )
        return Admission(
            can_true,
            can_false,
            frozenset(seen.assumed),
            frozenset(seen.bounds),
            free,
            unset,
            reads_device=seen.device,
        )

    def _unset_reading(
        self,
        node: nodes.NodeNG,
        flags: Mapping[str, Any] | None,
        env_for: Mapping[str, Env] | None,
        truths: Mapping[str, Tri],
        undecided: Sequence[frozenset[str]],
    ) -> tuple[dict[str, Tri], Reads, set[str]] | None:
        """The truths (and reads, and the generations raising) with no environment
        variable set, when they tell apart
        generations of a vendor undecided with them unknown (environment.py); else None.
        Those vendors' generations are asked first: most such conditions (a vendor's test
        beside an environment flag) tell none of them apart either way."""
        asked = frozenset().union(*undecided)
        seen = Reads()
        raised: set[str] = set()
        found = self._truths(node, flags, env_for, seen, True, asked, raised)
        if not any(self._tells_apart(found, gens) for gens in undecided):
            return None
        rest = truths.keys() - asked
        found.update(self._truths(node, flags, env_for, seen, True, rest, raised))
        return {g: found[g] for g in truths}, seen, raised

    def _undecided_vendors(self, truths: Mapping[str, Tri]) -> list[frozenset[str]]:
        """The vendors Unknown on every generation (the others may answer: `is_nvidia and
        cap >= 9` is false on AMD once `is_nvidia` is read, and unknown on NVIDIA)."""
        from gatecheck.semantics.values import UNKNOWN

        return [
            gens for gens in self._vendors if all(truths[g] is UNKNOWN for g in gens if g in truths)
        ]

    @staticmethod
    def _tells_apart(truths: Mapping[str, Tri], generations: frozenset[str]) -> bool:
        """Whether some of these generations answer differently (three-valued)."""
        return len({(truths[g] is not False, truths[g] is not True) for g in generations}) > 1

    def _global_expression(self, name: nodes.Name) -> nodes.NodeNG | None:
        from gatecheck.semantics.resolve import global_expression

        return global_expression(self.project, name)

    def _truths(
        self,
        node: nodes.NodeNG,
        flags: Mapping[str, Any] | None,
        env_for: Mapping[str, Env] | None,
        seen: Reads,
        unset_environment: bool = False,
        generations: Collection[str] | None = None,
        raised: set[str] | None = None,
        called: bool = False,
    ) -> dict[str, Tri]:
        """Each generation's truth of `node`. `raised`, when given, gets the generations
        where a call the condition always makes certainly raises (diverging.py): neither
        true nor false there (their truth reads UNKNOWN; _admission drops them all when
        they are every generation). `called`: the truth of what calling the value with
        no arguments answers (call_admission)."""
        from gatecheck.semantics.calls import call
        from gatecheck.semantics.diverging import raises_in
        from gatecheck.semantics.values import RAISES, UNKNOWN
        from gatecheck.semantics.values import truth as truth_of

        def truth(gen: str, evaluator: Evaluator) -> Tri | Raises:
            # evaluator.truth, without its frame; RAISES where a call it always makes
            # certainly raises (diverging.py)
            value = evaluator.value(node, None if env_for is None else dict(env_for[gen]))
            if called:
                value = call(evaluator, value, [], {})
            noted = evaluator.raising
            if noted:
                hit = raises_in(node, noted)
                noted.clear()
                if hit:
                    return RAISES
            return truth_of(value)

        found: dict[str, Tri] = {}
        shortcut = self.shortcuts and env_for is None
        if generations is not None and not generations:
            return found
        for gen, t, reads in self._each(truth, flags, generations, shortcut, unset_environment):
            seen.absorb(reads)
            if t is RAISES:
                if raised is not None:
                    raised.add(gen)
                t = UNKNOWN
            found[gen] = t
        return found

    def admitted(
        self, node: nodes.NodeNG, flags: Mapping[str, Any] | None = None
    ) -> frozenset[str]:
        return self.admission(node, flags).can_be_true

    def is_arch_dependent(self, admission: Admission) -> bool:
        every = self.registry.all_names()
        return admission.can_be_true != every or admission.can_be_false != every


# -- a pure entry point, for tests and scripts: no files needed --------------------------

_MEMORY_ROOT = Path("/<memory>")
_RESULT = "__gatecheck_result__"


def in_memory_project(modules: Mapping[str, str]) -> Project:
    """A project of in-memory modules, by dotted name ('pkg.utils') or by relative path
    ('pkg/platforms/__init__.py'); missing package __init__ files are empty. Nothing is
    read from or written to disk."""
    files: dict[Path, bytes] = {}
    for name, source in modules.items():
        if name.endswith(".py"):
            relative = PurePosixPath(name)
        else:
            relative = PurePosixPath(*name.split(".")).with_suffix(".py")
        files[_MEMORY_ROOT / relative] = textwrap.dedent(source).encode("utf-8")
    for path in list(files):
        for folder in path.relative_to(_MEMORY_ROOT).parents:
            if str(folder) != ".":
                files.setdefault(_MEMORY_ROOT / folder / "__init__.py", b"")
    return Project(sorted(files), [_MEMORY_ROOT], overrides=files)


def admission_of(
    source: str,
    expr: str,
    registry: Registry | None = None,
    *,
    modules: Mapping[str, str] | None = None,
    vocabulary: Sequence[VocabularyEntry] = (),
    idioms: IdiomRegistry | None = None,
    flags: Mapping[str, Any] | None = None,
    follow_flow: bool = False,
    assume_unset_environment: bool = False,
) -> Admission:
    """The Admission of `expr` evaluated at the end of module `source` (named 'gate';
    `modules` adds other modules it may import, by dotted name; `follow_flow` reads
    re-bound names as the audit does, `assume_unset_environment` an environment override
    of the device as it does)."""
    if registry is None:
        from gatecheck.config.loader import load_ruleset

        registry = load_ruleset(None).registry
    text = f"{source}\n{_RESULT} = ({expr})\n"
    project = in_memory_project({**(modules or {}), "gate": text})
    module = project.module("gate")
    if module is None:
        diagnostic = project.diagnostics[-1] if project.diagnostics else None
        raise ValueError(diagnostic.message if diagnostic else "cannot build the source")
    from astroid import nodes

    assign = module.locals[_RESULT][-1].parent
    assert isinstance(assign, nodes.Assign)
    semantics = Semantics(
        project,
        registry,
        vocabulary,
        idioms=idioms,
        follow_flow=follow_flow,
        assume_unset_environment=assume_unset_environment,
    )
    return semantics.admission(assign.value, flags)


def admitted(
    source: str,
    expr: str,
    registry: Registry | None = None,
    **options: Any,
) -> frozenset[str]:
    """The generations for which `expr`, at the end of module `source`, can be true.

    >>> sorted(admitted("import torch", "torch.cuda.get_device_capability() >= (12, 0)"))
    ['sm120', 'sm121']
    """
    return admission_of(source, expr, registry, **options).can_be_true
