"""Find architecture gates without rules: every condition whose value depends on the GPU
generation (the outermost condition only), told apart into the gates that decide, the
call-site hops that only pass a gate function's answer on, vendor checks, and the bodies
of device predicates (vocabulary, decided at their call sites).

Names never decide what a gate admits (the semantics read bodies); they only decide where
a decision is reported: a function named like a device predicate (`is_sm100_supported`)
is vocabulary, so each call site is a gate; any other function holding a gate
(`apply_flashinfer_allreduce_fusion`) is a gate function, so its call sites are hops.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from astroid import nodes

from gatecheck.gates.feature_gates import branch_disables
from gatecheck.gates.model import Polarity, qualname_of
from gatecheck.loading.project import Project, lookup
from gatecheck.loading.resolve import absolute_import_name, imported_name
from gatecheck.semantics.admitted import Admission, Semantics
from gatecheck.semantics.values import FunctionRef, ModuleRef, PartialRef

# Cheap text prefilter: only files that spell an arch idiom are searched for gates
# (resolution still reads any module it needs). Bare "arch" would match model_arch,
# architectures and search, so only its standalone and device spellings count.
ARCH_IDIOM = re.compile(
    r"capability|is_sm_?\d|sm_?\d{2,3}|hopper|blackwell|gfx9|get_device_properties"
    r"|\barch\b|gcnArchName|gcn_arch|cuda_arch|arch_list|\bis_arch_|\bget_arch",
    re.IGNORECASE,
)
# A device predicate asks about the device: is_/has_/supports_ plus an arch or vendor word.
_PREDICATE_PREFIX = re.compile(r"^_*(is|has|supports?)_", re.IGNORECASE)
_ARCH_WORD = re.compile(
    r"^(sm_?\d+[a-z]?|sm|hopper|blackwell|ampere|ada|volta|turing|gfx\w*|mi\d+\w*|cdna\d*"
    r"|capability|arch|cuda|hip|rocm|nvidia|amd)$",
    re.IGNORECASE,
)
# Feature flags: names that switch a feature (`enable_x`, `use_x`, `ENABLE_JIT_DEEPGEMM`).
_MAX_IMPORT_HOPS = 8
FLAG_NAME = re.compile(r"^_*(enable|disable|use|allow|force)_\w+$", re.IGNORECASE)


_SLOT_OWNERS = (
    nodes.If,
    nodes.While,
    nodes.IfExp,
    nodes.Assert,
    nodes.Return,
    nodes.Assign,
    nodes.AnnAssign,
    nodes.Comprehension,
)


class SlotKind(enum.Enum):
    IF = "if"
    WHILE = "while"
    IFEXP = "ifexp"
    ASSERT = "assert"
    RETURN = "return"
    ASSIGN = "assign"
    COMPREHENSION = "comprehension"


class Role(enum.Enum):
    GATE = "gate"  # tells generations of the vendor apart: reported
    HOP = "hop"  # only passes on a gate function's (or gate binding's) answer
    VENDOR = "vendor"  # tells vendors apart, not generations of one vendor
    PREDICATE = "predicate"  # inside a device predicate's definition


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


def is_predicate_name(name: str) -> bool:
    if not _PREDICATE_PREFIX.match(name):
        return False
    return any(_ARCH_WORD.match(word) for word in name.split("_") if word)


def mentions_arch(text: str) -> bool:
    """ARCH_IDIOM.search(text), an order of magnitude faster: the alternation is scanned
    as literals over the lowercased text (re tries every alternative at every position).
    Exact: lowercasing only differs from re.IGNORECASE on four characters, left to re."""
    if not text.isascii() and _CASE_SPECIALS.intersection(text):
        return ARCH_IDIOM.search(text) is not None
    lowered = text.lower()
    if any(literal in lowered for literal in _ARCH_LITERALS):
        return True
    if _SM_NUMBER.search(lowered) or _IS_SM.search(lowered):
        return True
    for match in _ARCH.finditer(lowered):
        start, end = match.span()
        word_before = start > 0 and _is_word(lowered[start - 1])
        if not word_before and not (end < len(lowered) and _is_word(lowered[end])):
            return True  # \barch\b
        for prefix in ("is_", "get_"):
            head = start - len(prefix)
            if head >= 0 and lowered.startswith(prefix, head):
                if head > 0 and _is_word(lowered[head - 1]):
                    continue
                if prefix == "get_" or lowered.startswith("_", end):
                    return True  # \bget_arch, \bis_arch_
    return False


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"  # re's \w on str


# The alternatives of ARCH_IDIOM, lowercased; those without a boundary are plain literals.
_ARCH_LITERALS = (
    "capability",
    "hopper",
    "blackwell",
    "gfx9",
    "get_device_properties",
    "gcnarchname",
    "gcn_arch",
    "cuda_arch",
    "arch_list",
)
_SM_NUMBER = re.compile(r"sm_?\d\d")  # sm_?\d{2,3}: two digits are enough to match
_IS_SM = re.compile(r"is_sm_?\d")
_ARCH = re.compile("arch")
# Non-ASCII characters that re.IGNORECASE matches with ASCII letters (or that lower()
# turns into two characters): K (Kelvin), long s, dotted and dotless i.
_CASE_SPECIALS = frozenset("\u0130\u0131\u017f\u212a")


def discover(
    project: Project,
    semantics: Semantics,
    modules: Iterable[nodes.Module],
    vendor: str,
    on_module: Callable[[], None] | None = None,
) -> list[ArchCondition]:
    """Every generation-dependent condition of the modules, with its role for `vendor`."""
    vendor_gens = semantics.registry.vendor_names(vendor)
    conditions: list[ArchCondition] = []
    for module in modules:
        for condition, statement, kind in outermost_slots(module):
            found = _classify(semantics, module, condition, statement, kind, vendor_gens)
            if found is not None:
                conditions.append(found)
        if on_module is not None:
            on_module()
    holders = _HopSources(project, semantics, vendor_gens, conditions)
    return [holders.resolve(c) if c.role is Role.GATE else c for c in conditions]


def outermost_slots(module: nodes.Module) -> list[tuple[nodes.NodeNG, nodes.NodeNG, SlotKind]]:
    slots = list(_slots(module))
    conditions = {id(condition) for condition, _, _ in slots}
    return [slot for slot in slots if not _nested_in(slot[0], conditions)]


def _slots(module: nodes.Module) -> Iterator[tuple[nodes.NodeNG, nodes.NodeNG, SlotKind]]:
    tests = {nodes.If: SlotKind.IF, nodes.While: SlotKind.WHILE, nodes.IfExp: SlotKind.IFEXP}
    for node in module.nodes_of_class(_SLOT_OWNERS):
        if isinstance(node, (nodes.If, nodes.While, nodes.IfExp)):
            yield node.test, node, tests[type(node)]
        elif isinstance(node, nodes.Assert):
            yield node.test, node, SlotKind.ASSERT
        elif isinstance(node, nodes.Comprehension):
            for test in node.ifs:
                yield test, node, SlotKind.COMPREHENSION
        elif _is_bool_expression(node.value):
            kind = SlotKind.RETURN if isinstance(node, nodes.Return) else SlotKind.ASSIGN
            yield node.value, node, kind


def _is_bool_expression(node: nodes.NodeNG | None) -> bool:
    if isinstance(node, nodes.UnaryOp):
        return node.op == "not"
    return isinstance(node, (nodes.BoolOp, nodes.Compare))


def _nested_in(condition: nodes.NodeNG, conditions: set[int]) -> bool:
    parent = condition.parent
    while parent is not None and not parent.is_statement:
        if id(parent) in conditions:
            return True
        parent = parent.parent
    return False


def varies(admission: Admission, generations: frozenset[str]) -> bool:
    """Whether the condition's (three-valued) truth differs between these generations."""
    values = {(g in admission.can_be_true, g in admission.can_be_false) for g in generations}
    return len(values) > 1


def _classify(
    semantics: Semantics,
    module: nodes.Module,
    condition: nodes.NodeNG,
    statement: nodes.NodeNG,
    kind: SlotKind,
    vendor_gens: frozenset[str],
) -> ArchCondition | None:
    admission = semantics.admission(condition)
    if not varies(admission, semantics.registry.all_names()):
        return None
    polarity, admits = feature_side(statement, kind, admission, vendor_gens)
    if _in_predicate_definition(statement, kind):
        role = Role.PREDICATE
    elif varies(admission, vendor_gens):
        role = Role.GATE
    else:
        role = Role.VENDOR
    terms: tuple[nodes.NodeNG, ...] = ()
    if role is Role.GATE:
        terms = tuple(a for a in operands(condition) if varies(semantics.admission(a), vendor_gens))
    path = Path(module.file) if module.file else Path(str(module.name))
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


def feature_side(
    statement: nodes.NodeNG, kind: SlotKind, admission: Admission, vendor_gens: frozenset[str]
) -> tuple[Polarity, frozenset[str]]:
    """Which way the condition gates: the body (enables) unless the body only bails out
    (`if cond: raise/return False`), or only the else side depends on the generation
    (`if not is_sm100(): fallback()`): then the feature is where it can be false."""
    true_side, false_side = admission.can_be_true, admission.can_be_false
    if kind is SlotKind.IF and branch_disables(statement.body):
        return Polarity.DISABLES, false_side
    if _restricted(false_side, vendor_gens) and not _restricted(true_side, vendor_gens):
        return Polarity.DISABLES, false_side
    return Polarity.ENABLES, true_side


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
    if kind is SlotKind.ASSIGN:
        targets = assigned_names(statement)
        if targets and all(is_predicate_name(t) for t in targets):
            return True
    scope = _function_scope(statement)
    return isinstance(scope, nodes.FunctionDef) and is_predicate_name(str(scope.name))


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


class _HopSources:
    """Where a generation-dependent operand gets its value from: a gate function (a
    non-predicate function holding a gate or hop) or a gate binding (a name assigned a
    gate condition or a gate function's result)."""

    def __init__(
        self,
        project: Project,
        semantics: Semantics,
        vendor_gens: frozenset[str],
        conditions: list[ArchCondition],
    ) -> None:
        self.project = project
        self.evaluator = semantics.evaluator(min(vendor_gens))
        deciding = [c for c in conditions if c.role in (Role.GATE, Role.HOP)]
        self.functions: dict[int, str] = {}
        for c in deciding:
            scope = c.statement.scope()
            if isinstance(scope, nodes.FunctionDef):
                self.functions[id(scope)] = qualname_of(c.statement)
        self.bound_conditions = {id(c.condition) for c in deciding}
        self._following: set[int] = set()

    def resolve(self, condition: ArchCondition) -> ArchCondition:
        sources = [self.source(term) for term in condition.arch_terms]
        if not sources or any(s is None for s in sources):
            return condition
        via = tuple(dict.fromkeys(s for s in sources if s is not None))
        return replace(condition, role=Role.HOP, via=via)

    def source(self, term: nodes.NodeNG) -> str | None:
        if isinstance(term, nodes.Call):
            return self._function_source(term.func)
        if isinstance(term, (nodes.Name, nodes.Attribute)):
            return self._binding_source(term)
        return None

    def _function_source(self, func: nodes.NodeNG) -> str | None:
        if isinstance(func, (nodes.Name, nodes.Attribute)) and is_predicate_name(_term_name(func)):
            return None  # `is_sm90 = partial(_major_in, [9])`: called as a predicate
        value = self.evaluator.value(func)
        while isinstance(value, PartialRef):
            value = value.func
        if isinstance(value, FunctionRef) and isinstance(value.node, nodes.FunctionDef):
            return self.functions.get(id(value.node))
        return None

    def _binding_source(self, term: nodes.Name | nodes.Attribute) -> str | None:
        for binding in self._bindings(term):
            statement = binding.statement()
            value = getattr(statement, "value", None)
            if not isinstance(statement, (nodes.Assign, nodes.AnnAssign)) or value is None:
                continue
            if (
                id(value) in self.bound_conditions
                or (isinstance(value, nodes.Call) and self._function_source(value.func))
                or (isinstance(value, (nodes.Name, nodes.Attribute)) and self._alias_source(value))
            ):
                return f"{qualname_of(statement)}.{_term_name(term)}".lstrip(".")
        return None

    def _alias_source(self, value: nodes.Name | nodes.Attribute) -> str | None:
        # `B = A` where A is a gate binding; the guard stops `A = A` style cycles.
        if id(value) in self._following:
            return None
        self._following.add(id(value))
        try:
            return self._binding_source(value)
        finally:
            self._following.discard(id(value))

    def _bindings(self, term: nodes.Name | nodes.Attribute) -> list[nodes.NodeNG]:
        if isinstance(term, nodes.Name):
            try:
                _, found = lookup(term, term.name)
            except Exception:  # astroid lookups can fail on odd scopes: no binding then
                return []
            if not found:
                return self._module_bindings(str(term.root().name), term.name)
            return self._follow_imports(list(found), term.name)
        receiver = self.evaluator.value(term.expr)
        if isinstance(receiver, ModuleRef):
            return self._module_bindings(receiver.name, term.attrname)
        klass = _enclosing_class(term)
        if isinstance(term.expr, nodes.Name) and term.expr.name == "self" and klass is not None:
            return list(klass.instance_attrs.get(term.attrname, [])) + list(
                klass.locals.get(term.attrname, [])
            )
        return []

    def _module_bindings(self, module_name: str, name: str, depth: int = 0) -> list[nodes.NodeNG]:
        module = self.project.module(module_name)
        if module is None or depth > _MAX_IMPORT_HOPS:
            return []
        if name in module.locals:
            return self._follow_imports(list(module.locals[name]), name, depth)
        for stmt in module.body:  # `from x import *` (the loader leaves it unexpanded)
            if isinstance(stmt, nodes.ImportFrom) and stmt.names and stmt.names[0][0] == "*":
                found = self._module_bindings(absolute_import_name(stmt), name, depth + 1)
                if found:
                    return found
        return []

    def _follow_imports(
        self, found: list[nodes.NodeNG], name: str, depth: int = 0
    ) -> list[nodes.NodeNG]:
        out: list[nodes.NodeNG] = []
        for binding in found:
            if isinstance(binding, nodes.ImportFrom):
                original = imported_name(binding, name)
                if original:
                    source = absolute_import_name(binding)
                    out.extend(self._module_bindings(source, original, depth + 1))
            else:
                out.append(binding)
        return out


def _term_name(term: nodes.Name | nodes.Attribute) -> str:
    return str(term.name if isinstance(term, nodes.Name) else term.attrname)


def _enclosing_class(node: nodes.NodeNG) -> nodes.ClassDef | None:
    scope = node.scope()
    while scope is not None and not isinstance(scope, nodes.Module):
        if isinstance(scope, nodes.ClassDef):
            return scope
        scope = scope.parent.scope() if scope.parent is not None else None
    return None


def feature_name(found: ArchCondition) -> tuple[str, str]:
    """What the gate guards, and how that was found: the name it assigns (`self.use_x =
    cond`, or `self.enable_x = True` in its branch), a flag its condition reads, else
    its function, else its module."""
    assigned = assigned_names(found.statement) or assigned_names(_statement_of(found.statement))
    if assigned and found.kind in (SlotKind.ASSIGN, SlotKind.IFEXP):
        return assigned[0], "assigned"
    for name in branch_assignments(found.statement):
        if FLAG_NAME.match(name):
            return name, "assigned"
    for name in identifiers(found.condition):
        if FLAG_NAME.match(name):
            return name, "read"
    if isinstance(_function_scope(found.statement), nodes.FunctionDef):
        return found.qualname, "function"
    return found.module, "module"


def identifiers(node: nodes.NodeNG) -> list[str]:
    names = [
        str(n.name if isinstance(n, nodes.Name) else n.attrname)
        for n in node.nodes_of_class((nodes.Name, nodes.Attribute))
    ]
    return list(dict.fromkeys(names))


def branch_assignments(statement: nodes.NodeNG) -> list[str]:
    if not isinstance(statement, nodes.If):
        return []
    names: list[str] = []
    for stmt in [*statement.body, *statement.orelse]:
        for assign in stmt.nodes_of_class((nodes.Assign, nodes.AnnAssign)):
            names.extend(assigned_names(assign))
    return list(dict.fromkeys(names))


def _statement_of(node: nodes.NodeNG) -> nodes.NodeNG:
    while node.parent is not None and not node.is_statement:
        node = node.parent
    return node


def _function_scope(node: nodes.NodeNG) -> nodes.NodeNG:
    scope = node.scope()
    while isinstance(scope, nodes.Lambda) and scope.parent is not None:
        scope = scope.parent.scope()
    return scope
