"""The calls that bind a gate's parameters, as its call sites.

A gate that tests a parameter (`if cap < (major, 0): raise` in `def require(major)`, or
a closure's `(major, minor)` in a factory `atleast(major, minor)` whose checks are
registered as `constraints=[atleast(9, 0)]`) admits the union of what its callers pass:
that is its row. Each call that passes a value decides the gate for the code that makes
it, and is where a reader looks: `require(9)` shuts out sm80, `atleast(8, 0)` only
sm70 and sm75. Such a call need not sit in a condition (a statement, a list's item, a
decorator's argument), so it is no hop (audit/hops.py); it is reported among the gate's
call sites with the gate's condition read under that call's arguments alone: the
parameters the condition reads are bound to what the call passes (its default where it
passes none), each generation's value.

Only parameters read by name in the condition (of its own function or of an enclosing
one, a closure's), and of each function at most MAX_SITES calls, all resolved by the
project (semantics/callers.py, the search the parameter's value is read by); a call the
hops already report is not repeated, and where every call gives the row's set none is
reported (the parameter decides nothing the generation does: a tensor whose device
index is passed on). A local computed from a parameter is read as before (the union of
the callers'), so a site's set is never narrower than the truth."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from astroid import nodes

from gatecheck.audit.conditions import SlotKind, key_found, module_path
from gatecheck.audit.report import CallSite
from gatecheck.gates.model import qualname_of
from gatecheck.semantics import callers, resolve

if TYPE_CHECKING:
    from gatecheck.audit.conditions import ArchCondition
    from gatecheck.semantics.admitted import Semantics
    from gatecheck.semantics.evaluator import Evaluator

# More calls than this: none is reported (a helper called from everywhere).
MAX_SITES = 8


def binding_sites(
    semantics: Semantics, gate: ArchCondition, hops: Sequence[ArchCondition]
) -> tuple[CallSite, ...]:
    """The calls binding the parameters `gate`'s condition reads, each with the gate's
    admitted set under its arguments; those inside a hop's condition are left out, and
    all of them where none differs from the row's set."""
    generations = semantics.registry.names
    ev = semantics.evaluator(generations[0])
    in_hops = {id(h.condition) for h in hops}
    found: list[CallSite] = []
    for func, parameters in _parameters_read(ev, gate.condition).items():
        calls = callers.call_sites(ev, func)
        if not calls or len(calls) > MAX_SITES:
            continue
        for call, offset in calls:
            if _inside(call, in_hops):
                continue
            passed = [callers.argument_node(call, offset, func, p) for p in parameters]
            if any(node is None for node in passed):
                continue
            unset = gate.admission.unset_environment  # read as the row was
            values = [
                semantics.values(node, generations, optional=True, unset_environment=unset)
                for node in passed
                if node is not None
            ]
            env_for = {
                gen: {p.name: value[gen] for p, value in zip(parameters, values, strict=True)}
                for gen in generations
            }
            admission = semantics.admission(gate.condition, env_for=env_for)
            if gate.kind is SlotKind.LOOKUP:
                admission = key_found(admission, semantics.registry.all_names())
            found.append(_site(call, admission.can_be_true))
    # Calls that all give the row's set tell nothing apart (the parameter decides nothing
    # the generation does, or every caller passes alike): none is reported.
    row = gate.admission.can_be_true
    return tuple(found) if any(site.admitted != row for site in found) else ()


def _site(call: nodes.Call, admitted: frozenset[str]) -> CallSite:
    path = module_path(call.root())
    text = " ".join(call.as_string().split())
    line = int(call.lineno or 1)
    column = int(call.col_offset or 0)
    end_line = int(call.end_lineno or line)
    return CallSite(path, line, column, qualname_of(call), text, admitted, end_line)


def _parameters_read(
    ev: Evaluator, condition: nodes.NodeNG
) -> dict[nodes.FunctionDef, tuple[nodes.AssignName, ...]]:
    """Each function (not a method: its calls are searched another way) whose parameters
    the condition reads by name, bound nowhere else in it, with those parameters: the
    condition's own function's, an enclosing one's (a closure's free variables)."""
    read: dict[nodes.FunctionDef, dict[str, nodes.AssignName]] = {}
    for name in condition.nodes_of_class(nodes.Name):
        looked = resolve.looked_up(ev, name)
        if looked is None:
            continue
        scope, bindings = looked
        if not isinstance(scope, nodes.FunctionDef) or not bindings:
            continue
        if not isinstance(scope.parent, (nodes.Module, nodes.FunctionDef)):
            continue
        if all(
            isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Arguments)
            for b in bindings
        ):
            for binding in bindings:
                assert isinstance(binding, nodes.AssignName)
                read.setdefault(scope, {})[str(binding.name)] = binding
    return {func: tuple(parameters.values()) for func, parameters in read.items()}


def _inside(node: nodes.NodeNG, conditions: set[int]) -> bool:
    """Whether `node` is one of `conditions` or inside one."""
    current: nodes.NodeNG | None = node
    while current is not None:
        if id(current) in conditions:
            return True
        current = current.parent
    return False
