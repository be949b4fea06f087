"""Architecture conditions without rules: every condition whose value depends on the GPU
generation (the outermost condition only), with its role for a vendor: a gate that decides,
a vendor check, or the body of a device predicate. (Telling hops apart from gates is
audit/hops.py's job.)"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from astroid import nodes
from astroid.const import Context

from gatecheck.audit.prefilter import (
    has_predicate_prefix,
    is_predicate_name,
    mentions_arch,
    names_a_generation,
    names_arch,
)
from gatecheck.containment import bound_hit
from gatecheck.gates.branches import (
    call_name,
    done_then_cleared,
    only_asserts,
    refuses_options,
    resets_computed,
    returns_before_the_work,
)
from gatecheck.gates.feature_gates import branch_disables
from gatecheck.gates.model import Polarity, qualname_of
from gatecheck.loading.lazy import node_class
from gatecheck.loading.trees import lookup, own_nodes
from gatecheck.semantics.admitted import Admission, Semantics
from gatecheck.semantics.patterns import case_of
from gatecheck.semantics.values import FunctionRef, NoneOr, is_constant

_SLOT_OWNERS = (
    nodes.If,
    nodes.While,
    nodes.IfExp,
    nodes.Assert,
    nodes.Return,
    nodes.Assign,
    nodes.AnnAssign,
    nodes.Comprehension,
    nodes.Call,
    nodes.Subscript,
    nodes.MatchCase,
)
# Test markers whose first argument is a condition: skip when true / run only when true.
_SKIP_WHEN_TRUE = frozenset({"skipif", "skipIf", "xfail"})
_RUN_WHEN_TRUE = frozenset({"skipUnless"})


class SlotKind(enum.Enum):
    IF = "if"
    WHILE = "while"
    IFEXP = "ifexp"
    # A `match` statement's `case`: its pattern is the condition (semantics/patterns.py:
    # taken where the subject matches and the guard holds).
    CASE = "case"
    ASSERT = "assert"
    RETURN = "return"
    ASSIGN = "assign"
    COMPREHENSION = "comprehension"
    ARGUMENT = "argument"  # a condition passed to a call (`pytest.mark.skipif(cond)`)
    # A table looked up by the device (`{"90a": f, "100a": g}[get_device_arch()]`): the
    # generations whose key is there (a missing one raises KeyError: table_lookup).
    LOOKUP = "lookup"
    # A device predicate bound by a call (`is_blackwell = lru_cache(maxsize=1)(partial(
    # _check, majors=[10, 12]))`) or to a lambda (`is_hopper = lambda: _check(9)`): where
    # a fix of the predicate goes; its answer when called (Semantics.call_admission).
    BOUND = "bound"
    # Kernel declarations (gatecheck/audit/declarations.py): what a kernel is declared
    # supported on or built for, read from a list rather than from a condition.
    DECORATOR = "decorator"  # `@supported_compute_capability([100, 103])`
    BUILD = "build"  # `supported_major_versions=[9, 10]`, arch-list keywords
    MINIMUM = "minimum"  # `def get_min_capability(cls): return 80`
    # A class's own value of a bound its classmethod's gate reads through `cls`
    # (`CUDA_MINIMUM_COMPUTE_CAPABILITY = (8, 0)`): that gate's answer for the class
    # (gatecheck/audit/class_bounds.py).
    ATTRIBUTE = "attribute"

    @property
    def is_declaration(self) -> bool:
        return self in (SlotKind.DECORATOR, SlotKind.BUILD, SlotKind.MINIMUM, SlotKind.ATTRIBUTE)

    @property
    def when(self) -> str:
        """When the slot's condition lets the code through, as reports say it."""
        return "where its key is found" if self is SlotKind.LOOKUP else "when true"


class Role(enum.Enum):
    GATE = "gate"  # tells generations of a vendor apart: reported
    HOP = "hop"  # only passes on a gate function's (or gate binding's) answer
    VENDOR = "vendor"  # tells vendors apart, not generations of one vendor
    PREDICATE = "predicate"  # inside a device predicate's definition
    # Compares a value the device decides with a constant, the same on every registered
    # generation: about hardware outside the registry (`major < 7`, `arch == "gfx1100"`).
    CONSTANT = "constant"


@dataclass(frozen=True, eq=False)
class ArchCondition:
    condition: nodes.NodeNG
    statement: nodes.NodeNG
    kind: SlotKind
    path: Path
    module: str
    qualname: str
    admission: Admission
    polarity: Polarity
    # The feature's admitted set through this condition (polarity applied).
    admits: frozenset[str]
    role: Role
    # Operands of the and/or/not structure that depend on the generation within the vendor.
    arch_terms: tuple[nodes.NodeNG, ...] = ()
    # Hops: what they pass on (qualnames of gate functions or gate bindings).
    via: tuple[str, ...] = ()

    @property
    def line(self) -> int:
        return int(self.condition.lineno or 1)


def condition_text(condition: nodes.NodeNG) -> str:
    """A condition's source, whitespace collapsed; a `case` pattern as the case spells it
    (`case 12 if head_dim > 64`), its text alone being a bare value."""
    case = case_of(condition)
    if case is None:
        text = condition.as_string()
    else:
        guard = "" if case.guard is None else f" if {case.guard.as_string()}"
        text = f"case {condition.as_string()}{guard}"
    return " ".join(text.split())


# Where a node sits in its tree: each step the index among its parent's children (in
# get_children() order), and the class it has there.
NodePath = tuple[tuple[int, str], ...]


def module_path(module: nodes.Module) -> Path:
    """Where a module's conditions are reported: its file, or its name for a module
    built from memory."""
    return Path(module.file) if module.file else Path(str(module.name))


def node_path(node: nodes.NodeNG) -> NodePath:
    """The steps from the module down to `node` (a tree built lazily or at once has the
    same children in the same order: loading/lazy.py)."""
    steps: list[tuple[int, str]] = []
    while node.parent is not None:
        parent = node.parent
        index = next(i for i, child in enumerate(parent.get_children()) if child is node)
        steps.append((index, node_class(node).__name__))
        node = parent
    return tuple(reversed(steps))


def node_at(module: nodes.Module, path: NodePath) -> nodes.NodeNG | None:
    """The node at `path` in `module`, None where a step leads nowhere or to a node of
    another class."""
    node: nodes.NodeNG = module
    for index, kind in path:
        child = next(itertools.islice(node.get_children(), index, None), None)
        if child is None or node_class(child).__name__ != kind:
            return None
        node = child
    return node


@dataclass(frozen=True)
class FoundCondition:
    """An ArchCondition without its nodes, as a worker process sends it back (nodes do
    not cross processes; the receiver has the same tree and puts its own nodes back):
    the arch terms by their index among the condition's operands, the condition and its
    statement by where they sit in the tree (node_path)."""

    admission: Admission
    polarity: Polarity
    admits: frozenset[str]
    role: Role
    terms: tuple[int, ...]
    qualname: str
    kind: SlotKind
    condition_path: NodePath
    statement_path: NodePath

    @classmethod
    def of(cls, condition: ArchCondition) -> FoundCondition:
        leaves = list(operands(condition.condition))
        terms = tuple(next(i for i, n in enumerate(leaves) if n is t) for t in condition.arch_terms)
        return cls(
            condition.admission,
            condition.polarity,
            condition.admits,
            condition.role,
            terms,
            condition.qualname,
            condition.kind,
            node_path(condition.condition),
            node_path(condition.statement),
        )

    def placed(self, module: nodes.Module) -> ArchCondition | None:
        """The ArchCondition on this tree, its nodes found by their paths (no walk of
        the tree; a function body waiting on the way is built: loading/lazy.py); None
        where a path does not lead to a node of the class the sender's did."""
        condition = node_at(module, self.condition_path)
        statement = node_at(module, self.statement_path)
        if condition is None or statement is None:
            return None
        return self.condition_at(module, condition, statement, self.kind)

    def condition_at(
        self, module: nodes.Module, condition: nodes.NodeNG, statement: nodes.NodeNG, kind: SlotKind
    ) -> ArchCondition:
        """The ArchCondition classify_condition gave for this slot, on this tree."""
        leaves = list(operands(condition))
        return ArchCondition(
            condition,
            statement,
            kind,
            module_path(module),
            str(module.name),
            self.qualname,
            self.admission,
            self.polarity,
            self.admits,
            self.role,
            tuple(leaves[i] for i in self.terms),
        )


@dataclass(frozen=True)
class ModuleNodes:
    """The nodes of a module the audit reads, from one walk of its tree (three walks
    were 5% of a cold audit): the owners of condition slots (for outermost_slots), the
    definitions whose decorators may declare generations, and the calls (for
    audit/declarations.py); each in the tree's order, as `nodes_of_class` gives it."""

    owners: list[nodes.NodeNG]
    definitions: list[nodes.FunctionDef | nodes.ClassDef]
    calls: list[nodes.Call]


_DEFINITIONS = (nodes.FunctionDef, nodes.ClassDef)


def module_nodes(module: nodes.Module) -> ModuleNodes:
    found = ModuleNodes([], [], [])
    owners, definitions, calls = found.owners, found.definitions, found.calls
    for node in module.nodes_of_class((*_SLOT_OWNERS, *_DEFINITIONS)):
        if isinstance(node, _SLOT_OWNERS):
            owners.append(node)
        if isinstance(node, _DEFINITIONS):
            definitions.append(node)
        if isinstance(node, nodes.Call):
            calls.append(node)
    return found


def outermost_slots(
    module: nodes.Module, walked: ModuleNodes | None = None
) -> list[tuple[nodes.NodeNG, nodes.NodeNG, SlotKind]]:
    """The condition slots of `module` not nested in another one's condition; `walked`:
    its module_nodes, when the caller has them."""
    slots = _first_per_node(_slots(module, walked))
    conditions = {id(condition) for condition, _, _ in slots}
    return [
        slot
        for slot in slots
        if _enclosing(slot[0], conditions) is None or _picks_a_value(slot, conditions)
    ]


def picked_within(
    slots: Sequence[tuple[nodes.NodeNG, nodes.NodeNG, SlotKind]],
) -> dict[int, int]:
    """For each slot of outermost_slots that is a ternary picking a value inside another
    slot's condition (_picks_a_value), the index of that slot: the caller lists the
    ternary only where the condition around it is not a row itself (one gate, one row)."""
    index_of = {id(condition): i for i, (condition, _, _) in enumerate(slots)}
    conditions = set(index_of)
    within: dict[int, int] = {}
    for i, (condition, _, _) in enumerate(slots):
        outer = _enclosing(condition, conditions)
        if outer is not None:
            within[i] = index_of[id(outer)]
    return within


def _picks_a_value(slot: tuple[nodes.NodeNG, nodes.NodeNG, SlotKind], conditions: set[int]) -> bool:
    """A ternary whose value is an operand of a comparison or of arithmetic inside the
    condition around it (`return rows <= (40 if major == 9 else 24)`): it picks a bound
    per generation, as `t = 40 if major == 9 else 24; rows <= t` does, while the
    condition around it, which compares that bound with an unknown, tells no generations
    apart. A ternary whose truth is the condition's (`(a if sm90 else b) and c`) is
    read with it."""
    _, owner, kind = slot
    if kind is not SlotKind.IFEXP:
        return False
    child, parent = owner, owner.parent
    while parent is not None and id(child) not in conditions:
        if isinstance(parent, (nodes.Compare, nodes.BinOp)):
            return True
        child, parent = parent, parent.parent
    return False


def _first_per_node(
    slots: Iterator[tuple[nodes.NodeNG, nodes.NodeNG, SlotKind]],
) -> list[tuple[nodes.NodeNG, nodes.NodeNG, SlotKind]]:
    """One slot per condition node, the first found: a predicate's `return
    TABLE[arch]` is its answer (a RETURN slot, found at the statement, before the lookup
    inside it)."""
    seen: set[int] = set()
    kept: list[tuple[nodes.NodeNG, nodes.NodeNG, SlotKind]] = []
    for slot in slots:
        if id(slot[0]) not in seen:
            seen.add(id(slot[0]))
            kept.append(slot)
    return kept


def _slots(
    module: nodes.Module, walked: ModuleNodes | None
) -> Iterator[tuple[nodes.NodeNG, nodes.NodeNG, SlotKind]]:
    tests = {nodes.If: SlotKind.IF, nodes.While: SlotKind.WHILE, nodes.IfExp: SlotKind.IFEXP}
    owners = module.nodes_of_class(_SLOT_OWNERS) if walked is None else walked.owners
    tested: dict[int, frozenset[str]] = {}  # per function: the tables it tests keys in
    for node in owners:
        if isinstance(node, (nodes.If, nodes.While, nodes.IfExp)):
            yield node.test, node, tests[type(node)]
        elif isinstance(node, nodes.Assert):
            yield node.test, node, SlotKind.ASSERT
        elif isinstance(node, nodes.MatchCase):
            yield node.pattern, node, SlotKind.CASE
        elif isinstance(node, nodes.Comprehension):
            for test in node.ifs:
                yield test, node, SlotKind.COMPREHENSION
        elif isinstance(node, nodes.Call):
            for argument in condition_arguments(node):
                yield argument, statement_of(node), SlotKind.ARGUMENT
        elif isinstance(node, nodes.Subscript):
            if table_lookup(node, tested):
                yield node, statement_of(node), SlotKind.LOOKUP
        elif (bound := bound_predicate(node)) is not None:
            yield bound, node, SlotKind.BOUND
        elif (
            _is_bool_expression(node.value)
            or _is_truth_call(node.value)
            or _predicate_answer(node)
            or kept_answer(node)
            or answer_from_device_values(node)
        ):
            kind = SlotKind.RETURN if isinstance(node, nodes.Return) else SlotKind.ASSIGN
            yield node.value, node, kind


# Decorators that keep the function they wrap (a cache): `lru_cache(maxsize=1)(f)` is f.
_CACHES = frozenset({"cache", "lru_cache"})


def bound_predicate(statement: nodes.NodeNG) -> nodes.NodeNG | None:
    """The value a module or class binds device-predicate names to when it is a function
    made by a call, not written with `def`: `partial(_check, majors=[10, 12])`, perhaps
    cached (`lru_cache(maxsize=1)(partial(...))`), whose answer is the call's; or the body
    of a lambda taking nothing (`lambda: _check(9)`). None for any other binding."""
    if not isinstance(statement, nodes.Assign) or not isinstance(
        statement.scope(), (nodes.Module, nodes.ClassDef)
    ):
        return None
    targets = statement.targets
    if not all(isinstance(t, nodes.AssignName) and is_predicate_name(t.name) for t in targets):
        return None
    value = statement.value
    if isinstance(value, nodes.Lambda):
        arguments = value.args
        takes = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        if takes or arguments.vararg or arguments.kwarg:
            return None
        return value.body
    inner = value
    while isinstance(inner, nodes.Call) and len(inner.args) == 1 and _is_cache(inner.func):
        inner = inner.args[0]
    if isinstance(inner, nodes.Call) and call_name(inner.func) == "partial" and inner.args:
        return value
    return None


def _is_cache(func: nodes.NodeNG) -> bool:
    if isinstance(func, nodes.Call):  # `lru_cache(maxsize=1)`
        func = func.func
    return call_name(func) in _CACHES


def table_lookup(node: nodes.Subscript, tested: dict[int, frozenset[str]] | None = None) -> bool:
    """A dict of constant keys looked up by a value that is not a constant, where a
    missing key raises (no `try` around it): written out (`{"90a": True, "100a":
    False}[get_device_arch()]`) or a module's own dict bound once (`_FLAGS[arch]`).
    Whether the key depends on the device is the evaluation's to say; where it does,
    the generations whose key is there are the ones the code goes on for (key_found).
    `tested`: the tables each function tests keys in, by the function's id, kept by the
    caller across the lookups of one module (one walk of each function)."""
    if isinstance(node.slice, (nodes.Const, nodes.Slice)) or node.ctx is not Context.Load:
        return False
    name = node.value
    if _constant_table(name) is None:
        return False
    if isinstance(name, nodes.Name) and name.name in _membership_tested(node, tested):
        return False  # `if cap in SIZES: ... SIZES[cap]`: the test is the gate
    return not _inside_try(node)


def _membership_tested(
    node: nodes.NodeNG, tested: dict[int, frozenset[str]] | None
) -> frozenset[str]:
    """The names the function (or module) around `node` tests a key's membership in
    (`if cap not in KERNELS: return None`): there the test decides, and the lookup past
    it does not raise."""
    scope = function_scope(node)
    if tested is not None and id(scope) in tested:
        return tested[id(scope)]
    names = frozenset(
        right.name
        for compare in scope.nodes_of_class(nodes.Compare)
        for op, right in compare.ops
        if op in ("in", "not in") and isinstance(right, nodes.Name)
    )
    if tested is not None:
        tested[id(scope)] = names
    return names


def _constant_key(key: nodes.NodeNG) -> bool:
    """A constant, or a tuple of constants and dotted names from outside (`("100a",
    torch.float)`: FlashInfer's DeepGEMM tables, keyed by arch and dtype) with one
    constant at least."""
    if isinstance(key, nodes.Const):
        return True
    return (
        isinstance(key, nodes.Tuple)
        and all(isinstance(e, nodes.Const) or _dotted(e) for e in key.elts)
        and any(isinstance(e, nodes.Const) for e in key.elts)
    )


def _dotted(node: nodes.NodeNG) -> bool:
    """`torch.float`, `DataType.FP8`: an attribute of a name, however deep."""
    while isinstance(node, nodes.Attribute):
        node = node.expr
        if isinstance(node, nodes.Name):
            return True
    return False


def _module_dict(name: nodes.Name) -> nodes.NodeNG | None:
    """The dict a module binds `name` to once (`_FLAGS = {...}`, annotated or not), when
    no function or class around the use binds the name too; or the function around the
    use, in its own body (`table = {8: KernAmpere, 9: KernHopper}; return
    table[cap[0]]()`, quack's kernel choice)."""
    scope = name.scope()
    while not isinstance(scope, nodes.Module):
        if name.name in scope.locals:
            if not isinstance(scope, nodes.FunctionDef):
                return None
            break
        scope = scope.parent.scope() if scope.parent is not None else scope.root()
    bound = scope.locals.get(name.name, [])
    if len(bound) != 1 or not isinstance(bound[0], nodes.AssignName):
        return None
    assign = bound[0].parent
    if isinstance(assign, nodes.AnnAssign) and assign.parent is scope:
        return assign.value  # `SIZES: dict[int, int] = {90: 8192}`
    if not isinstance(assign, nodes.Assign) or assign.parent is not scope:
        return None
    return assign.value if len(assign.targets) == 1 else None


def device_table(term: nodes.NodeNG) -> tuple[str, nodes.Dict] | None:
    """The dict of constant keys a term looks its value up in where a missing key gives
    nothing, with how the term spells it: `TABLE[key]` (KeyError: table_lookup), or
    `TABLE.get(key)` with no default, tested as it is or through a name bound once from
    it in the term's function (`m = TABLE.get(cap); if m is None: return None`). None
    for any other term (a default given, `.get(key, 0)`, is a fallback, not a miss)."""
    if isinstance(term, nodes.Subscript) and table_lookup(term):
        table = _constant_table(term.value)
        return None if table is None else (term.value.as_string(), table)
    subject: nodes.NodeNG = term
    if isinstance(term, nodes.UnaryOp) and term.op == "not":
        subject = term.operand
    elif isinstance(term, nodes.Compare) and len(term.ops) == 1:
        op, right = term.ops[0]
        if op not in ("is", "is not", "==", "!=") or not _is_none(right):
            return None
        subject = term.left
    if isinstance(subject, nodes.Name):
        bound = subject.scope().locals.get(subject.name, [])
        assign = bound[0].parent if len(bound) == 1 else None
        if not (isinstance(assign, nodes.Assign) and len(assign.targets) == 1):
            return None
        if not isinstance(assign.targets[0], nodes.AssignName):
            return None
        subject = assign.value
    if not (
        isinstance(subject, nodes.Call)
        and isinstance(subject.func, nodes.Attribute)
        and subject.func.attrname == "get"
        and len(subject.args) == 1
        and not subject.keywords
    ):
        return None
    spelled = subject.func.expr
    table = _constant_table(spelled)
    return None if table is None else (spelled.as_string(), table)


def _constant_table(spelled: nodes.NodeNG) -> nodes.Dict | None:
    """The dict of constant keys `spelled` is, written out or a module's (_module_dict)."""
    table = _module_dict(spelled) if isinstance(spelled, nodes.Name) else spelled
    if not (
        isinstance(table, nodes.Dict)
        and table.items
        and all(_constant_key(key) for key, _ in table.items)
    ):
        return None
    return table


def _is_none(node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.Const) and node.value is None


def _inside_try(node: nodes.NodeNG) -> bool:
    """In the body of a `try` with handlers, in its function: a missing key may be
    what the handler is for (`except KeyError: fallback`)."""
    parent = node.parent
    while parent is not None and not isinstance(parent, (nodes.FunctionDef, nodes.Module)):
        in_body = isinstance(parent, nodes.Try) and any(n is node for n in parent.body)
        if in_body and parent.handlers:
            return True
        node, parent = parent, parent.parent
    return False


def key_found(admission: Admission, everything: frozenset[str]) -> Admission:
    """A table lookup's admission (SlotKind.LOOKUP): true where a key may be found (the
    value read, whatever its truth), false where the lookup raises or its key is not
    known (the truth unknown)."""
    found = admission.can_be_true | admission.can_be_false
    unknown = admission.can_be_true & admission.can_be_false
    return dataclasses.replace(
        admission,
        can_be_true=found,
        can_be_false=(everything - found) | unknown,
        free_true_sets=(),
        receivers=(),
    )


def condition_arguments(call: nodes.Call) -> list[nodes.NodeNG]:
    """A test marker's condition (whatever its shape), and any argument written as a
    condition (`f(x, major >= 9)`, `f(enabled=not is_sm90())`), also deferred into a
    lambda (`SM80OrLater = LazyVal(lambda: cap >= (8, 0))`, torch's test flags: the
    lambda's body)."""
    arguments = [*call.args, *(k.value for k in call.keywords or [])]
    if call_name(call) in _SKIP_WHEN_TRUE | _RUN_WHEN_TRUE:
        first = call.args[0] if call.args else _keyword(call, "condition")
        return [first] if first is not None else []
    found: list[nodes.NodeNG] = []
    for argument in arguments:
        if isinstance(argument, nodes.Lambda):
            argument = argument.body
        if _is_bool_expression(argument) or _device_predicate_call(argument):
            found.append(argument)
    return found


def _device_predicate_call(node: nodes.NodeNG | None) -> bool:
    """A device predicate's answer passed on as it is (`kernel[grid](...,
    launch_pdl=current_platform.is_arch_support_pdl())`, `self.use_sm90 =
    is_sm90_supported()`): the callee's parameter is set by device there."""
    return isinstance(node, nodes.Call) and is_predicate_name(call_name(node))


def _keyword(call: nodes.Call, name: str) -> nodes.NodeNG | None:
    return next((k.value for k in call.keywords or [] if k.arg == name), None)


# Calls that give a truth from what they read: a predicate returned or stored as one
# (`return any(gfx in arch for gfx in ("gfx942", "gfx950"))`, `is_cdna =
# name.startswith("gfx9")`). Only as a whole return or assignment: as an argument they
# are mostly string handling.
_TRUTH_BUILTINS = frozenset(("any", "all"))
_TRUTH_METHODS = frozenset(("startswith", "endswith"))
# Device tests torch answers with a bool, called by name or through its module
# (idioms/bf16_support.py): `return torch.cuda.is_bf16_supported()`.
_TRUTH_FUNCTIONS = frozenset(("is_bf16_supported",))


def _is_truth_call(node: nodes.NodeNG | None) -> bool:
    if not isinstance(node, nodes.Call):
        return False
    func = node.func
    if isinstance(func, nodes.Name):
        return func.name in _TRUTH_BUILTINS or func.name in _TRUTH_FUNCTIONS
    return isinstance(func, nodes.Attribute) and (
        func.attrname in _TRUTH_METHODS or func.attrname in _TRUTH_FUNCTIONS
    )


def _is_bool_expression(node: nodes.NodeNG | None) -> bool:
    if isinstance(node, nodes.UnaryOp):
        return node.op == "not"
    return isinstance(node, (nodes.BoolOp, nodes.Compare)) or written_comparison(node)


def _predicate_answer(node: nodes.NodeNG) -> bool:
    """A predicate's answer returned as a name, a call, an item or an attribute rather
    than written as a condition (`def is_fp8_available(): return check_fp8_support()[0]`,
    `ok, _ = probe(); return ok`): the `return` of a function named like a predicate
    (`is_`/`has_`/`supports_`). Whether it depends on the device is the evaluation's to
    say; the name only says where to look."""
    if not isinstance(node, nodes.Return) or not isinstance(
        node.value, (nodes.Name, nodes.Call, nodes.Subscript, nodes.Attribute)
    ):
        return False
    function = node.scope()
    if not isinstance(function, nodes.FunctionDef):
        return False
    name = str(function.name)
    if has_predicate_prefix(name) or subject_predicate_name(name):
        return True
    # A device predicate's answer returned by a function not named as one
    # (`def _match_mma_sm120(target): return target_is_sm120(target)`, TileLang's
    # matchers), as kept_answer reads it kept under such a name: its only answer. The
    # last exit of a chain (`if is_sm90(): return x` then `return is_sm100()`) is read
    # with the chain, one dispatch.
    return (
        isinstance(node.value, nodes.Call)
        and subject_predicate_name(call_name(node.value))
        and _only_return(node, function)
    )


def _only_return(node: nodes.Return, function: nodes.FunctionDef) -> bool:
    returns = function.nodes_of_class(
        nodes.Return, skip_klass=(nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)
    )
    return all(r is node for r in returns)


# A predicate named for what it asks of a subject: `target_is_hopper`, `device_has_tma`,
# `arch_supports_fp8`; an arch or vendor word after the verb (prefilter.is_predicate_name
# reads the words so for `is_`/`has_`/`supports_` at the front).
_SUBJECT_VERB = re.compile(r"^_*[a-z0-9]+_(?:is|has|supports?)_(.+)$", re.IGNORECASE)


def subject_predicate_name(name: str) -> bool:
    """`target_is_sm120`, `device_has_hopper_tma`: a device predicate's name with its
    subject first; also one with the verb at the front (is_predicate_name)."""
    found = _SUBJECT_VERB.match(name)
    if found is None:
        return is_predicate_name(name)
    return is_predicate_name(f"is_{found.group(1)}")


def answer_from_device_values(node: nodes.NodeNG) -> bool:
    """A function's `return` of a call passed the device's values, read in that function
    (`major, minor = get_device_capability(); return _cap_ok(major, minor)`) or in the
    call itself: the callee answers for the device whatever either is named. Whether the
    answer depends on the device is the evaluation's to say; the arguments only say
    where to look."""
    if not isinstance(node, nodes.Return) or not isinstance(node.value, nodes.Call):
        return False
    function = node.scope()
    if not isinstance(function, nodes.FunctionDef):
        return False
    call = node.value
    if call_name(call.func) in _VALUE_BUILTINS or condition_arguments(call):
        # `return getattr(props, "shared_memory_per_block_optin", None)` is a value, no
        # answer; `return partial(gemm, pdl=is_arch_support_pdl())`: the arguments
        # written as conditions are slots of their own (a slot inside another's is not
        # looked at).
        return False
    passed = [*call.args, *(k.value for k in call.keywords or ())]
    for argument in passed:
        if isinstance(argument, nodes.Starred):
            argument = argument.value
        if isinstance(argument, nodes.Name):
            if _read_from_device(function, argument.name):
                return True
        elif _device_read(argument):
            return True
    return False


# Builtins whose result is a value, not an answer about the device.
_VALUE_BUILTINS = frozenset(
    {"getattr", "int", "float", "str", "min", "max", "round", "abs", "len", "sum", "sorted"}
    | {"tuple", "list", "dict", "set", "frozenset"}
)


def _read_from_device(function: nodes.FunctionDef, name: str) -> bool:
    """Whether the function binds `name` only by assignments of a value read from the
    device (`major, minor = torch.cuda.get_device_capability()`)."""
    bound = function.locals.get(name)
    if not bound:
        return False
    for binding in bound:
        statement = binding.statement() if isinstance(binding, nodes.AssignName) else None
        if not isinstance(statement, nodes.Assign) or statement.scope() is not function:
            return False
        if not _device_read(statement.value):
            return False
    return True


def _device_read(value: nodes.NodeNG) -> bool:
    """A value read from the device as written: a call whose callee spells an arch idiom
    (`torch.cuda.get_device_capability(dev)`), an item, an attribute or arithmetic of
    one, a tuple holding one; not a call that only passes such a value on among its
    arguments (`result = run(x, use_mtp=_sm120_mma_ok())`)."""
    if isinstance(value, nodes.Call):
        return mentions_arch(value.func.as_string())
    if isinstance(value, nodes.Subscript):
        return _device_read(value.value)
    if isinstance(value, nodes.Attribute):
        return mentions_arch(value.attrname) or _device_read(value.expr)
    if isinstance(value, nodes.BinOp):
        return _device_read(value.left) or _device_read(value.right)
    if isinstance(value, nodes.Tuple):
        return any(_device_read(e) for e in value.elts)
    if isinstance(value, nodes.IfExp):  # `cap(dev) if dev is not None else cap()`
        return _device_read(value.body) or _device_read(value.orelse)
    return False


# A name for a feature switch: what it holds says whether the feature is on (`use_tma`,
# `enable_pdl`, `run_fused`, `self.allow_deep_gemm`, `fp8_supported`).
_SWITCH_NAME = re.compile(
    r"^_*(use|enable|run|allow|can|should)_|_(supported|enabled|available)$", re.IGNORECASE
)


def kept_answer(node: nodes.NodeNG) -> bool:
    """A call's answer kept under a feature switch's name rather than tested
    (`run_tma = supports_tma()`, `enable_pdl = device_support_pdl(device)`,
    `self.use_deep_gemm = deep_gemm_supported()[0]`), or a device predicate's answer kept
    under any name but a predicate's: the switch is set by device there, and is often
    only passed on as an argument (`kernel(..., enable_pdl=enable_pdl)`), never tested.
    Whether the call depends on the device is the evaluation's to say; the names only say
    where to look."""
    if not isinstance(node, (nodes.Assign, nodes.AnnAssign)):
        return False
    value = node.value
    if isinstance(value, nodes.Subscript):
        value = value.value
    if not isinstance(value, nodes.Call):
        return False
    names = assigned_names(node)
    if not names:
        return False
    if all(_SWITCH_NAME.search(n) for n in names):
        return True
    # A device predicate's answer under any other name (`pdl = is_arch_support_pdl()`,
    # `self.blackwell = is_blackwell()`); under a predicate's own name it defines one
    # (`_is_sm100 = is_sm100_supported()`: vocabulary, as before).
    return _device_predicate_call(value) and not all(is_predicate_name(n) for n in names)


def only_kept_answer(statement: nodes.NodeNG) -> bool:
    """A slot only as a kept answer (kept_answer), not also as a condition written out
    (`use_psum = is_device_capability_family(100)` is one either way)."""
    if not kept_answer(statement):
        return False
    value = statement.value
    return not (_is_bool_expression(value) or _is_truth_call(value))


# A callee named for a comparison with what it is given (Triton's
# `cuda_capability_geq(10, 0)`, `capability_at_least(9)`, `sm_or_later(90)`).
_COMPARING_NAME = re.compile(
    r"(^|_)(geq|ge|gt|leq|le|lt|eq|at_least|at_most|or_later|or_newer|or_above|or_higher)$",
    re.IGNORECASE,
)


def written_comparison(node: nodes.NodeNG | None) -> bool:
    """A predicate called with a number written at the call (`current_platform.
    has_device_capability(75)`, `is_device_capability_family(100)`, `is_arch(9, 0)`,
    `cuda_capability_geq(10, 0)`): a comparison of the device with that number, written
    out where it is called, as `capability >= (7, 5)` would be. Whether it depends on
    the device is the evaluation's to say; a predicate without one
    (`is_sm100_supported()`) decides in its own body and is vocabulary here."""
    if not isinstance(node, nodes.Call):
        return False
    callee = call_name(node)
    arguments = [*node.args, *(k.value for k in node.keywords or [])]
    if has_predicate_prefix(callee) or _COMPARING_NAME.search(callee):
        return any(_number_literal(a) or _arch_text(a) for a in arguments)
    # An arch spelled as text, given to a callee named for matching the arch (FlashInfer's
    # `_match_sm_version(a.device, ["100", "103"])`): the allowlist, written at the call
    # (not `_resolve_target_arch(dev, supported=("sm_100a",))`, which returns a name).
    return (
        names_arch(callee)
        and _MATCHING_WORD.search(callee) is not None
        and any(_arch_text(a) for a in arguments)
    )


# A callee that answers whether something matches (`_match_sm_version`, `check_arch`).
_MATCHING_WORD = re.compile(r"(^|_)(match|matches|check|checks|require|requires)(_|$)", re.I)
# An SM or gfx arch written as text: "100", "90a", "sm_120", "gfx942".
_ARCH_TEXT = re.compile(r"^(?:sm_?)?\d{2,3}[af]?$|^gfx\d[0-9a-f]+$", re.IGNORECASE)


def _arch_text(node: nodes.NodeNG) -> bool:
    if isinstance(node, nodes.Const):
        return isinstance(node.value, str) and _ARCH_TEXT.match(node.value) is not None
    if isinstance(node, (nodes.Tuple, nodes.List, nodes.Set)):
        return bool(node.elts) and all(_arch_text(e) for e in node.elts)
    return False


def _number_literal(node: nodes.NodeNG) -> bool:
    if isinstance(node, nodes.Const):
        return type(node.value) is int
    if isinstance(node, (nodes.Tuple, nodes.List)):
        return bool(node.elts) and all(_number_literal(e) for e in node.elts)
    return False


def _enclosing(condition: nodes.NodeNG, conditions: set[int]) -> nodes.NodeNG | None:
    """The nearest of `conditions` (ids) holding `condition` in its statement, if any."""
    parent = condition.parent
    while parent is not None and not parent.is_statement:
        if id(parent) in conditions:
            return parent
        parent = parent.parent
    return None


def varies(admission: Admission, generations: frozenset[str]) -> bool:
    """Whether the condition's (three-valued) truth differs between these generations."""
    values = {(g in admission.can_be_true, g in admission.can_be_false) for g in generations}
    return len(values) > 1 or admission.depends_on(generations)


def classify_condition(
    semantics: Semantics,
    module: nodes.Module,
    condition: nodes.NodeNG,
    statement: nodes.NodeNG,
    kind: SlotKind,
    vendor_gens: frozenset[str],
) -> ArchCondition | None:
    if kind is SlotKind.BOUND and not isinstance(condition.parent, nodes.Lambda):
        admission = semantics.call_admission(condition)
    else:
        admission = semantics.admission(condition)
    if kind is SlotKind.LOOKUP:
        everything = semantics.registry.all_names()
        if not everything - (admission.can_be_true | admission.can_be_false):
            return None  # raises on no generation: its key is there wherever it is known
        admission = key_found(admission, everything)
    constant: nodes.NodeNG | None = None
    if not varies(admission, semantics.registry.all_names()):
        if admission.bounds:
            path = module_path(module)
            where = (path, int(condition.lineno or 1), int(condition.col_offset or 0))
            consequence = "whether it is an architecture gate is unknown"
            bound_hit(
                semantics.project.diagnostics,
                where,
                condition_text(condition),
                admission.bounds,
                consequence,
            )
        elif admission.reads_device:
            # A test about hardware outside the registry (`major < 7`): listed apart.
            constant = constant_test(semantics, condition)
        if constant is None:
            return None
    polarity, admits = feature_side(statement, kind, admission, vendor_gens, condition)
    deciding = vendor_gens
    if constant is not None:
        role = Role.CONSTANT
    elif _in_predicate_definition(statement, kind):
        role = Role.PREDICATE
    elif (told := told_apart(semantics, admission, vendor_gens)) is not None:
        # Also `if _is_gfx95_supported:` in an sm120 audit: it tells another vendor's
        # generations apart, an architecture gate all the same (listed, classed as
        # another vendor's: classify.py).
        role, deciding = Role.GATE, told
    else:
        role = Role.VENDOR
    terms: tuple[nodes.NodeNG, ...] = ()
    if role is Role.GATE and kind is not SlotKind.LOOKUP:
        terms = tuple(a for a in operands(condition) if varies(semantics.admission(a), deciding))
    elif constant is not None:
        terms = (constant,)
    path = module_path(module)
    return ArchCondition(
        condition,
        statement,
        kind,
        path,
        str(module.name),
        qualname_of(statement),
        admission,
        polarity,
        admits,
        role,
        terms,
    )


# String tests against literals: what they are called on is compared with the literals
# (`arch.startswith("gfx11")`), which write an allowlist out.
STRING_TESTS = ("startswith", "endswith")


def constant_test(semantics: Semantics, condition: nodes.NodeNG) -> nodes.NodeNG | None:
    """A leaf of `condition` that compares a value the device decides (known and not the
    same on every registered generation: `torch.cuda.get_device_capability()[0]`) with a
    literal (`< 7`, `.startswith("gfx11")`) and is itself true everywhere or false
    everywhere, or None. Asked only of a condition whose truth is the same on every
    generation and whose evaluation read the device."""
    return _constant_test(semantics, condition, _CONSTANT_DEPTH)


# How many calls or names deep a constant test is looked for behind a leaf (`if
# self.half_ok():` whose body tests `major >= 7`; `big = on_gfx1250()`, whose body returns
# a module flag `_ON_GFX1250 = "gfx1250" in arch`).
_CONSTANT_DEPTH = 3


def _constant_test(
    semantics: Semantics, condition: nodes.NodeNG, depth: int
) -> nodes.NodeNG | None:
    every = semantics.registry.all_names()
    for leaf, folded in _constant_leaves(condition):
        compared = _compared_with_a_literal(leaf)
        if compared is None:
            if depth == 0 or not _behind_a_constant_test(semantics, leaf, depth - 1):
                continue
        elif not _told_apart(semantics, compared):
            continue
        # The test itself is the same everywhere (not a test that varies, in a condition
        # some other operand keeps constant: `use_block_sparsity and cc == 9`); an item's
        # test, folded by `any`/`all`, as the fold reads it (its variable is each item).
        test = semantics.admission(folded)
        if not (test.can_be_true and test.can_be_false) and (
            test.can_be_true == every or test.can_be_false == every
        ):
            return folded
    return None


def _behind_a_constant_test(semantics: Semantics, leaf: nodes.NodeNG, depth: int) -> bool:
    """A call of a project function, or a name bound once, whose own answer is such a
    test (`def half_ok(): major = cap()[0]; if major >= 7: return True`; `MODERN =
    cap()[0] >= 6` then `if MODERN and ...`): the call site is the same test."""
    if isinstance(leaf, nodes.UnaryOp) and leaf.op == "not":
        leaf = leaf.operand
    sources: list[nodes.NodeNG] = []
    if isinstance(leaf, nodes.Call) and not leaf.args and not leaf.keywords:
        callee = semantics.values(leaf.func, semantics.registry.names[:1])
        function = next(iter(callee.values()), None)
        if isinstance(function, FunctionRef) and isinstance(function.node, nodes.FunctionDef):
            body = function.node
            sources = [n.test for n in own_nodes(body.body, nodes.If)]
            sources += [r.value for r in own_nodes(body.body, nodes.Return) if r.value is not None]
    elif isinstance(leaf, nodes.Name):
        _scope, found = lookup(leaf, leaf.name)
        if len(found) == 1 and isinstance(found[0], nodes.AssignName):
            statement = found[0].statement()
            if isinstance(statement, nodes.Assign) and len(statement.targets) == 1:
                sources = [statement.value]
    return any(_constant_test(semantics, source, depth) is not None for source in sources)


# Builtins that fold a comprehension's items to one truth: a test of each item (`any(
# cap(i)[0] >= 6 for i in range(n))`) is a leaf of the condition.
_FOLDS = ("any", "all")


def _constant_leaves(condition: nodes.NodeNG) -> Iterator[tuple[nodes.NodeNG, nodes.NodeNG]]:
    """(leaf, the test it is) for operands(condition), with the item tested by
    `any`/`all` over a comprehension taken for the call: the device's capability
    compared with a floor below every registered generation (`has_modern =
    any(cap(i)[0] >= 6 for i in ...)`) is such a test however the devices are gathered,
    and so is an arch searched for each of a few literals (`any(a in arch for a in
    ["gfx11", "gfx12"])`), the call being the test."""
    for leaf in operands(condition):
        if (
            isinstance(leaf, nodes.Call)
            and isinstance(leaf.func, nodes.Name)
            and leaf.func.name in _FOLDS
            and len(leaf.args) == 1
            and not leaf.keywords
            and isinstance(leaf.args[0], (nodes.GeneratorExp, nodes.ListComp))
        ):
            for item in operands(leaf.args[0].elt):
                yield item, (leaf if _each_literal_compared(item) else item)
        else:
            yield leaf, leaf


def _each_literal_compared(leaf: nodes.NodeNG) -> bool:
    return (
        isinstance(leaf, nodes.Compare)
        and len(leaf.ops) == 1
        and (_each_literal(leaf.left) or _each_literal(leaf.ops[0][1]))
    )


def _compared_with_a_literal(leaf: nodes.NodeNG) -> nodes.NodeNG | None:
    if isinstance(leaf, nodes.Compare) and len(leaf.ops) == 1:
        other = leaf.ops[0][1]
        if _literal(other) or _each_literal(other):
            return leaf.left
        if _literal(leaf.left) or _each_literal(leaf.left):
            return other
        return None
    return string_test_receiver(leaf)


def _each_literal(node: nodes.NodeNG) -> bool:
    """`a` in `any(a in arch for a in ["gfx11", "gfx12"])`: a comprehension's variable
    over literals, each of them a literal compared (vLLM's ROCm `on_gfx1x()`)."""
    if not isinstance(node, nodes.Name):
        return False
    scope = node.scope()
    if not isinstance(scope, nodes.ComprehensionScope):
        return False
    for generator in scope.generators:
        target = generator.target
        if isinstance(target, nodes.AssignName) and target.name == node.name:
            return _literal(generator.iter)
    return False


def string_test_receiver(node: nodes.NodeNG) -> nodes.NodeNG | None:
    """What a string test against literals is called on (`arch` in
    `arch.startswith(("sm_10", "sm_12"))`), or None: the test writes an allowlist out."""
    if (
        isinstance(node, nodes.Call)
        and isinstance(node.func, nodes.Attribute)
        and node.func.attrname in STRING_TESTS
        and node.args
        and _literal(node.args[0])
    ):
        return node.func.expr
    return None


def _literal(node: nodes.NodeNG) -> bool:
    if isinstance(node, nodes.Const):
        return node.value is not None
    return isinstance(node, (nodes.Tuple, nodes.List, nodes.Set)) and all(
        _literal(e) for e in node.elts
    )


def _told_apart(semantics: Semantics, node: nodes.NodeNG) -> bool:
    """Whether `node`'s value is known on every registered generation and differs
    between two of them."""
    seen: list[object] = []
    for value in semantics.values(node, semantics.registry.names, optional=True).values():
        if isinstance(value, NoneOr):
            # A helper's None off the device (`return None` before CUDA is up): the
            # comparison reads the value where there is one (`x is not None and x < 6`).
            value = value.value
        if not is_constant(value):
            return False
        if value not in seen:
            seen.append(value)
    return len(seen) > 1


def told_apart(
    semantics: Semantics, admission: Admission, vendor_gens: frozenset[str]
) -> frozenset[str] | None:
    """The generations the condition tells apart: the audited vendor's, else another
    vendor's (other_vendor_told_apart), else None (it tells only vendors apart, or
    nothing)."""
    if varies(admission, vendor_gens):
        return vendor_gens
    return other_vendor_told_apart(semantics, admission, vendor_gens)


def other_vendor_told_apart(
    semantics: Semantics, admission: Admission, vendor_gens: frozenset[str]
) -> frozenset[str] | None:
    """The generations of another vendor that the condition tells apart, if any (it is
    the same on every generation of the audited vendor)."""
    registry = semantics.registry
    for vendor in dict.fromkeys(g.vendor for g in registry.generations):
        names = registry.vendor_names(vendor)
        if names != vendor_gens and varies(admission, names):
            return names
    return None


def feature_side(
    statement: nodes.NodeNG,
    kind: SlotKind,
    admission: Admission,
    vendor_gens: frozenset[str],
    condition: nodes.NodeNG | None = None,
) -> tuple[Polarity, frozenset[str]]:
    """Which way the condition gates: the body (enables) unless the body only bails out
    (`if cond: raise/return False`), or the condition skips a test (`skipif(cond)`), or
    its value is assigned to a name for an off state (`skip_x = ...`), or -- not assigned
    to a name -- only the else side depends on the generation (`if not is_sm100():
    fallback()`): then the feature is where it can be false. A value assigned to any
    other name enables where it can be true."""
    true_side, false_side = admission.can_be_true, admission.can_be_false
    if kind is SlotKind.LOOKUP:
        return Polarity.ENABLES, true_side  # on where the key is found
    if kind is SlotKind.BOUND:
        return Polarity.ENABLES, true_side  # the predicate's answer
    marker = _marker_of(condition) if kind is SlotKind.ARGUMENT else ""
    if marker in _SKIP_WHEN_TRUE:
        return Polarity.DISABLES, false_side
    if marker in _RUN_WHEN_TRUE:
        return Polarity.ENABLES, true_side
    if kind is SlotKind.IF and (
        (branch_disables(statement.body) and not done_then_cleared(statement))
        or returns_before_the_work(statement)
        or resets_computed(statement)
    ):
        return Polarity.DISABLES, false_side
    if kind is SlotKind.CASE and branch_disables(statement.body):
        return Polarity.DISABLES, false_side  # `case 12 if paged: raise ...`
    if kind is SlotKind.IF and not statement.orelse and refuses_options(statement.body):
        # `if arch // 10 not in [10, 11]: assert not deterministic`: the option is
        # refused where the test is true, as `if <test> and deterministic: raise` says.
        return Polarity.DISABLES, false_side
    if kind is SlotKind.IF and not statement.orelse and only_asserts(statement.body):
        # A branch that only asserts checks its path (`assert self.num_threads ==
        # mma.size`, `assert head_dim <= 256` on sm90's): it turns no feature on or off.
        return Polarity.ENABLES, true_side | false_side
    names = assigned_names(statement) if kind is SlotKind.ASSIGN else []
    if names:
        # The value is kept under a name, and the name says what true means, whatever
        # the operators: `is_fp8_deprecated = 100 <= sm < 120` is off where true,
        # `use_atomic_add = dtype == half or major >= 9` on where true.
        if any(_OFF_STATE.search(n) for n in names):
            return Polarity.DISABLES, false_side
        return Polarity.ENABLES, true_side
    if kind is SlotKind.RETURN and _returned_as_answer(statement):
        # A function's answer: its name says what true means, as a name a value is
        # kept under does (`def spring_bf16_ok(): return torch.cuda.is_bf16_supported()`
        # is on where true, even where only an older generation can make it false).
        function = statement.scope()
        if isinstance(function, nodes.FunctionDef) and _OFF_STATE.search(str(function.name)):
            return Polarity.DISABLES, false_side
        return Polarity.ENABLES, true_side
    if _restricted(false_side, vendor_gens) and not _restricted(true_side, vendor_gens):
        return Polarity.DISABLES, false_side
    return Polarity.ENABLES, true_side


def _returned_as_answer(statement: nodes.NodeNG) -> bool:
    """A `return` of a device test's answer as such: a call, not a condition written out
    (`return not is_sm90()` keeps the older reading)."""
    return isinstance(statement, nodes.Return) and isinstance(statement.value, nodes.Call)


# A name for an off state: set True, the feature is off (`is_fp8_deprecated`, `x_unsupported`,
# `disable_x`, `needs_fallback`).
_OFF_STATE = re.compile(
    r"(^|_)(deprecated|unsupported|disabled?|broken|fallback)(_|$)|^_*(no|not|avoid|skip)_",
    re.IGNORECASE,
)


def _marker_of(condition: nodes.NodeNG | None) -> str:
    call = condition.parent if condition is not None else None
    if isinstance(call, nodes.Keyword):
        call = call.parent
    return call_name(call) if isinstance(call, nodes.Call) else ""


def _restricted(generations: frozenset[str], vendor_gens: frozenset[str]) -> bool:
    inside = generations & vendor_gens
    return bool(inside) and inside != vendor_gens


def operands(condition: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
    """The leaves of the and/or/not structure (`a or (b and not c)` -> a, b, c)."""
    if isinstance(condition, nodes.BoolOp):
        for value in condition.values:
            yield from operands(value)
    elif isinstance(condition, nodes.UnaryOp) and condition.op == "not":
        yield from operands(condition.operand)
    else:
        yield condition


def negated(term: nodes.NodeNG, condition: nodes.NodeNG) -> bool:
    """Whether `term` sits under an odd number of `not`s inside `condition`."""
    count = 0
    node: nodes.NodeNG | None = term.parent
    while node is not None and node is not condition.parent:
        if isinstance(node, nodes.UnaryOp) and node.op == "not":
            count += 1
        node = node.parent
    return count % 2 == 1


def _in_predicate_definition(statement: nodes.NodeNG, kind: SlotKind) -> bool:
    if kind is SlotKind.BOUND:
        return True
    if kind is SlotKind.ASSIGN:
        targets = assigned_names(statement)
        if targets and all(is_predicate_name(t) for t in targets):
            # Unless a local flag written out under a name promising no generation: a gate.
            generic = not any(names_a_generation(t) for t in targets)
            if not (generic and local_flag(statement)):
                return True
    scope = function_scope(statement)
    return isinstance(scope, nodes.FunctionDef) and is_predicate_name(str(scope.name))


def local_flag(statement: nodes.NodeNG) -> bool:
    """A function's local name for a test written out there, a number or an arch written
    in it (`is_supported_arch = is_cuda() and (cap(90) or family(100))`, `is_sm100 =
    _match_sm_version(a.device, "100")`): the allowlist is spelled at the assignment. A
    name that promises no generation is a gate there, its readers its hops; one that
    names a generation (`is_sm100`, `is_hopper`) is a predicate whose uses decide, its
    test listed beside them (audit/definitions.py), as a `def is_sm100()` body is. Under
    a module's or a class's name, or for other predicates' answers (`is_sm100 = _is_cuda
    and is_sm100_supported()`), a name is vocabulary."""
    if not isinstance(statement, (nodes.Assign, nodes.AnnAssign)):
        return False
    if not isinstance(function_scope(statement), nodes.FunctionDef):
        return False
    targets = statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
    if not all(isinstance(t, nodes.AssignName) for t in targets):
        return False
    value = statement.value
    return value is not None and any(
        _compares_with_a_literal(n) if isinstance(n, nodes.Compare) else written_comparison(n)
        for n in value.nodes_of_class((nodes.Compare, nodes.Call))
    )


def _compares_with_a_literal(compare: nodes.Compare) -> bool:
    """`major >= 9`, `cap in (90, 100)`, `arch == "sm_90a"`: a number or an arch
    written on a side (not `q.dtype == torch.float32`, not `x is not None`)."""
    sides = [compare.left, *(right for _, right in compare.ops)]
    return any(_number_literal(s) or _arch_text(s) for s in sides)


def assigned_names(statement: nodes.NodeNG) -> list[str]:
    if isinstance(statement, nodes.Assign):
        targets = list(statement.targets)
    elif isinstance(statement, nodes.AnnAssign):
        targets = [statement.target]
    else:
        return []
    names: list[str] = []
    for target in targets:
        for node in target.nodes_of_class((nodes.AssignName, nodes.AssignAttr)):
            names.append(str(node.name if isinstance(node, nodes.AssignName) else node.attrname))
    return names


def statement_of(node: nodes.NodeNG) -> nodes.NodeNG:
    while node.parent is not None and not node.is_statement:
        node = node.parent
    return node


def function_scope(node: nodes.NodeNG) -> nodes.NodeNG:
    scope = node.scope()
    while isinstance(scope, nodes.Lambda) and scope.parent is not None:
        scope = scope.parent.scope()
    return scope
