"""Evaluate expressions for one GPU generation: arch terms to concrete values, everything
else to UNKNOWN, following bindings across modules and reading function bodies.

One Evaluator per (generation, feature-flag assumptions); it memoizes bindings and calls,
so a whole scan evaluates each predicate body once per generation. The Evaluator holds
the state; the work is done by one module per concept (expressions, statements, calls,
resolve, classes, dispatch, attributes), which reach each other through it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from astroid import nodes

from gatecheck.config.model import Generation, Registry, VocabularyEntry
from gatecheck.loading.project import Project
from gatecheck.semantics import (
    attributes,
    bindings,
    bounds,
    calls,
    expressions,
    resolve,
    statements,
    subclasses,
)
from gatecheck.semantics.env import Env
from gatecheck.semantics.oracle import IdiomRegistry, default_idioms
from gatecheck.semantics.reads import Activation, Epoch, Memo, Reads
from gatecheck.semantics.values import UNKNOWN, FunctionRef, Tri, truth

__all__ = ["Env", "Evaluator", "Memo"]
MAX_CALL_DEPTH = bounds.MAX_CALL_DEPTH


@dataclass
class Evaluator:
    project: Project
    registry: Registry
    generation: Generation
    vocabulary: Sequence[VocabularyEntry] = ()
    # Attribute/variable names standing for a feature flag, and the value to read for them.
    flag_values: Mapping[str, Any] = field(default_factory=dict)
    # A name bound more than once under `if`s holds what its block leaves (flow.py);
    # off, the bindings meet (as `check` has always read them).
    follow_flow: bool = False
    idioms: IdiomRegistry = field(default_factory=default_idioms)
    reads: Reads = field(default_factory=Reads)
    binding_memo: Memo = field(default_factory=Memo)
    call_memo: Memo = field(default_factory=Memo)
    # Bindings and calls being evaluated (a cycle reads as UNKNOWN), each with its
    # activation (reads.py), the innermost one, and the call depth.
    active: dict[Any, Activation] = field(default_factory=dict)
    top: Activation | None = None
    depth: int = 0
    # Each function's calls in progress (id of its node -> their keys, outermost first):
    # a recursion on other arguments each time is followed MAX_RECURSION levels deep.
    nesting: dict[int, list[Any]] = field(default_factory=dict)
    # The loops being run (statements._loop): the environments their `break` and
    # `continue` statements leave, innermost last.
    loop_exits: list[list[tuple[str, Env]]] = field(default_factory=list)
    # The question being answered (reads.py): Semantics gives its evaluators one.
    epoch: Epoch = field(default_factory=Epoch)
    # Facts about classes that no generation changes, shared by every generation's
    # evaluator (Semantics gives them one dict): runtime platform dispatch per (declared
    # class, vendor), attributes set on the instance per class.
    facts: dict[Any, Any] = field(default_factory=dict)
    # Every node an evaluation started from, by id, shared as `facts` is. Facts and memos
    # are keyed by node identity (`id(node)`), which names one node only while it lives:
    # a node made for one question and then dropped (a fix's candidate test, parsed
    # where the gate is: fixing/strategies/base.py) would give its id, and so its
    # answers, to the next object made, often the next candidate, read in another scope.
    # The project's own trees live as long as the run; a question's node is kept here.
    held: dict[int, nodes.NodeNG] = field(default_factory=dict)
    # A parameter read where no call bound it takes the value every caller passes
    # (callers.py); off, only the naming conventions are asked.
    follow_callers: bool = False
    # Every environment variable read is unset (os.environ.get answers its default):
    # one assignment of those unknowns, the same on every device (Semantics.admission).
    unset_environment: bool = False
    # Where the generation entered the condition being evaluated, and the memos it
    # consulted, while Semantics asks for them (see replay.py); None: not kept.
    trace: list[tuple[Any, ...]] | None = None
    # The calls noted as certainly raising (values.RAISES) since the statement or the
    # condition being evaluated began; each trims what it noted (diverging.py).
    raising: list[nodes.NodeNG] = field(default_factory=list)
    # Evaluation steps left for the condition being evaluated (see bounds.MAX_STEPS).
    _steps_left: int = 0
    _entered: int = 0

    # -- entry points --------------------------------------------------------------------
    def value(self, node: nodes.NodeNG, env: Env | None = None, optional: bool = False) -> Any:
        """`optional`: a result that may be None stays NoneOr (expressions.may_be_none)."""
        if self._too_nested(node):
            self.reads.bounds.add(bounds.TOO_NESTED)
            return UNKNOWN
        # What `with self._entry():` does, written out: the entry point of every
        # condition and every caller's argument evaluated.
        outermost = self._entered == 0
        if outermost:
            self._steps_left = bounds.MAX_STEPS
            self.held[id(node)] = node
            self.epoch.begin()
            self.raising.clear()  # what an evaluation ended by an exception left
        self._entered += 1
        try:
            return expressions.may_be_none(self, node, env) if optional else self.eval(node, env)
        except RecursionError:
            if not outermost:
                raise
            self.reads.bounds.add(bounds.TOO_DEEP)
            return UNKNOWN
        except bounds.WorkExceeded:
            if not outermost:
                raise
            self.reads.bounds.add(bounds.TOO_MUCH_WORK)
            return UNKNOWN
        finally:
            self._entered -= 1

    def _too_nested(self, node: nodes.NodeNG) -> bool:
        # Once per node for every generation: the facts are shared (see Semantics).
        key = ("too-nested", id(node))
        found = self.facts.get(key)
        if found is None:
            found = self.facts[key] = bounds.lookup_work_over(node, bounds.MAX_LOOKUP_WORK)
        return bool(found)

    def truth(self, node: nodes.NodeNG, env: Env | None = None) -> Tri:
        return truth(self.value(node, env))

    def can_complete(self, func: FunctionRef) -> bool:
        """Whether some path through the body returns instead of raising."""
        with self._entry():
            return statements.can_complete(self, func)
        return True

    def module_attribute(self, module_name: str, attr: str) -> Any:
        with self._entry():
            return resolve.module_attribute(self, self.project.canonical(module_name), attr)
        return UNKNOWN

    def binding_of(self, bound: nodes.NodeNG, local: str) -> Any:
        """The value a binding statement (import, def, assignment) gives `local`."""
        with self._entry():
            return resolve.binding_of(self, bound, local)
        return UNKNOWN

    def attribute(self, receiver: Any, name: str) -> Any:
        with self._entry():
            return attributes.attribute(self, receiver, name)
        return UNKNOWN

    def call(self, func: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        with self._entry():
            return calls.call(self, func, args, kwargs)
        return UNKNOWN

    def receivers(self, node: nodes.NodeNG) -> tuple[nodes.ClassDef, ...]:
        """The classes the classmethod around `node` may run for (subclasses.py)."""
        with self._entry():
            return subclasses.receivers(self, node)
        return ()

    def tracking(self) -> _Tracking:
        """Collect what the evaluation inside reads besides the code (see Reads): `with
        ev.tracking() as reads:`."""
        return _Tracking(self)

    def _entry(self) -> _Entry:
        """The outermost entry sets the work budget; a bound hit anywhere inside ends
        the evaluation as UNKNOWN and is recorded (suppressing the exception makes the
        `with` body's fallback return run)."""
        return _Entry(self)

    # -- the modules' entry points, for each other -----------------------------------------
    # The modules' own functions, bound as methods: `ev.resolve_name(node)` is
    # `resolve.resolve_name(ev, node)` without a forwarding frame (hundreds of thousands
    # of calls on a cold audit).
    def eval(self, node: nodes.NodeNG, env: Env | None) -> Any:
        self._steps_left -= 1
        if self._steps_left < 0:
            raise bounds.WorkExceeded
        # expressions.evaluate, inlined: the handler for the node's class.
        return _HANDLERS.get(type(node), _unknown)(self, node, env)

    def eval_step(self) -> None:
        """The step eval() counts, for a node evaluated by other means."""
        self._steps_left -= 1
        if self._steps_left < 0:
            raise bounds.WorkExceeded

    resolve_name = resolve.resolve_name
    get_attribute = attributes.attribute
    binding_value = bindings.binding_value
    memoized = bindings.memoized
    call_node = calls.call_node
    invoke = calls.call
    bind_arguments = calls.bind_arguments
    run_body = statements.run_body


_HANDLERS = expressions.TABLE
_unknown = expressions.unknown


# The two context managers entered around every evaluation step that memoizes or
# bounds (150,000 times on a cold sglang 0.5.9 audit), written as classes: a
# generator-based contextmanager costs several Python calls more on each entry.


class _Tracking:
    __slots__ = ("_ev", "_log", "_saved")

    def __init__(self, ev: Evaluator) -> None:
        self._ev = ev

    def __enter__(self) -> Reads:
        ev = self._ev
        self._saved = ev.reads
        log = self._log = ev.project.read_log  # the modules read go to this Reads (readlog.py)
        reads = ev.reads = Reads(log=log)
        if log is not None:
            log.push(reads)
        return reads

    def __exit__(self, *exc: object) -> None:
        if self._log is not None:
            self._log.pop()
        # An enclosing tracking() holds `saved` and must see these reads too.
        ev = self._ev
        self._saved.absorb(ev.reads)
        ev.reads = self._saved


class _Entry:
    __slots__ = ("_ev", "_outermost")

    def __init__(self, ev: Evaluator) -> None:
        self._ev = ev

    def __enter__(self) -> None:
        ev = self._ev
        self._outermost = outermost = ev._entered == 0
        if outermost:
            ev._steps_left = bounds.MAX_STEPS
            ev.epoch.begin()
        ev._entered += 1

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> bool:
        ev = self._ev
        ev._entered -= 1
        if kind is None or not self._outermost:
            return False
        if issubclass(kind, RecursionError):
            ev.reads.bounds.add(bounds.TOO_DEEP)
            return True
        if issubclass(kind, bounds.WorkExceeded):
            ev.reads.bounds.add(bounds.TOO_MUCH_WORK)
            return True
        return False
