"""Hops: a condition whose generation-dependent operands only pass on what a gate
function or a gate binding decided. Names never decide what a gate admits (the semantics
read bodies); they only decide where a decision is reported: a function named like a
device predicate is vocabulary, so each call site is a gate; any other function holding a
gate (`apply_flashinfer_allreduce_fusion`) is a gate function, so its call sites are hops."""

from __future__ import annotations

from dataclasses import replace

from astroid import nodes

from gatecheck.audit.conditions import (
    ArchCondition,
    Role,
    assigned_names,
    only_kept_answer,
    written_comparison,
)
from gatecheck.audit.prefilter import is_predicate_name
from gatecheck.gates.model import qualname_of
from gatecheck.loading.project import Project, lookup
from gatecheck.semantics.admitted import Semantics
from gatecheck.semantics.resolve import MAX_IMPORT_HOPS, follow_imports, module_definitions
from gatecheck.semantics.values import FunctionRef, ModuleRef, PartialRef


class HopSources:
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
        # A switch set by a call (`use_tma = supports_tma()`, conditions.kept_answer) is
        # reported where it is set, and its tests stay what they were: the call may be
        # one of several bindings, and its test is where the code branches.
        self.bound_conditions = {
            id(c.condition) for c in deciding if not only_kept_answer(c.statement)
        }
        self.provided = {key for c in deciding for key in provided_keys(c)}
        self._following: set[int] = set()

    def resolve(self, condition: ArchCondition) -> ArchCondition:
        sources = [self.source(term) for term in condition.arch_terms]
        if not sources or any(s is None for s in sources):
            return condition
        via = tuple(dict.fromkeys(s for s in sources if s is not None))
        return replace(condition, role=Role.HOP, via=via)

    def source(self, term: nodes.NodeNG) -> str | None:
        if isinstance(term, nodes.Call):
            if written_comparison(term):
                # `is_fa_version_supported(4)`: the number written at the call decides
                # there, as `capability >= 75` would (conditions.written_comparison).
                return None
            return self._function_source(term.func)
        if isinstance(term, (nodes.Name, nodes.Attribute)):
            return self._binding_source(term)
        if (
            isinstance(term, nodes.Compare)
            and len(term.ops) == 1
            and isinstance(term.ops[0][1], nodes.Const)
            and isinstance(term.left, (nodes.Name, nodes.Attribute))
        ):
            # `arc == "sm80"`, `reason is not None` on a flag set under a deciding if.
            flag = self._flag_source(self._bindings(term.left))
            return None if flag is None else f"{flag}.{_term_name(term.left)}".lstrip(".")
        return None

    def _function_source(self, func: nodes.NodeNG) -> str | None:
        if isinstance(func, (nodes.Name, nodes.Attribute)) and is_predicate_name(_term_name(func)):
            return None  # `is_sm90 = partial(_major_in, [9])`: called as a predicate
        value = self.evaluator.value(func)
        # A method through an alias chosen at runtime (values.OneOf): every option's.
        found = [self._function(v) for v in getattr(value, "options", (value,))]
        return found[0] if found and all(found) else None

    def _function(self, value: object) -> str | None:
        while isinstance(value, PartialRef):
            value = value.func
        if isinstance(value, FunctionRef) and isinstance(value.node, nodes.FunctionDef):
            self._asked(value.node)
            return self.functions.get(id(value.node))
        return None

    def _asked(self, node: nodes.NodeNG) -> None:
        """What impact re-audits by (loading/readlog.py): whose conditions decided here."""
        if self.project.read_log is not None:
            self.project.read_log.asked(str(node.root().name))

    def _binding_source(self, term: nodes.Name | nodes.Attribute) -> str | None:
        bindings = self._bindings(term)
        flag = self._flag_source(bindings)
        if flag is not None:
            return f"{flag}.{_term_name(term)}".lstrip(".")
        for binding in bindings:
            statement = binding.statement()
            value = getattr(statement, "value", None)
            if not isinstance(statement, (nodes.Assign, nodes.AnnAssign)) or value is None:
                continue
            self._asked(statement)
            key = f"{qualname_of(statement)}.{_term_name(term)}".lstrip(".")
            if id(value) in self.bound_conditions:
                return key
            source = None
            if isinstance(value, nodes.Call):
                source = self._function_source(value.func)
            elif isinstance(value, (nodes.Name, nodes.Attribute)):
                source = self._alias_source(value)
            if source is not None:
                # A binding that is a condition of its own (a switch kept from a call)
                # is where its readers' decision is reported; any other binding only
                # passes on what the function it calls, or the name it copies, decided
                # (`is_sm100 = _match_sm_version(dev, "100")`): its readers are that
                # function's (that name's) hops, not hops of nothing.
                return key if key in self.provided else source
        return None

    def _flag_source(self, bindings: list[nodes.NodeNG]) -> str | None:
        """`use_x = False` then `if cap >= (9, 0): use_x = True`: every binding a
        constant, and at least one under a deciding `if`: a reading passes that `if`'s
        decision on (a non-constant value might decide something of its own)."""
        decided: list[nodes.NodeNG] = []
        for binding in bindings:
            statement = binding.statement()
            value = getattr(statement, "value", None)
            if not isinstance(statement, (nodes.Assign, nodes.AnnAssign)):
                return None
            if not isinstance(value, nodes.Const):
                return None
            gate = self._deciding_if(statement)
            if gate is not None:
                decided.append(gate)
        return qualname_of(decided[0]) if decided else None

    def _deciding_if(self, statement: nodes.NodeNG) -> nodes.If | None:
        self._asked(statement)
        child, parent = statement, statement.parent
        while isinstance(parent, nodes.If) and child is not parent.test:
            if id(parent.test) in self.bound_conditions:
                return parent
            child, parent = parent, parent.parent
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

    def _module_bindings(self, module_name: str, name: str) -> list[nodes.NodeNG]:
        return module_definitions(self.project, module_name, name, MAX_IMPORT_HOPS)

    def _follow_imports(self, found: list[nodes.NodeNG], name: str) -> list[nodes.NodeNG]:
        return follow_imports(self.project, found, name, MAX_IMPORT_HOPS)


def provided_keys(condition: ArchCondition) -> list[str]:
    """What a deciding condition provides to the hops reading it: its scope's qualified
    name (the function a caller calls) and each name its statement assigns there."""
    keys = [condition.qualname]
    names = assigned_names(condition.statement)
    return keys + [f"{condition.qualname}.{name}".lstrip(".") for name in names]


def _term_name(term: nodes.Name | nodes.Attribute) -> str:
    return str(term.name if isinstance(term, nodes.Name) else term.attrname)


def _enclosing_class(node: nodes.NodeNG) -> nodes.ClassDef | None:
    scope = node.scope()
    while scope is not None and not isinstance(scope, nodes.Module):
        if isinstance(scope, nodes.ClassDef):
            return scope
        scope = scope.parent.scope() if scope.parent is not None else None
    return None
