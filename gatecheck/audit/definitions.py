"""Which device predicates' own tests are rows: the body of a function named as a
predicate (`def is_blackwell(): return major == 10`) is where a fix of the predicate goes,
so its test is listed beside the uses (GateSite.definition). Aliases of other predicates'
answers, bodies that tell only vendors apart and bodies comparing the device with a
caller's choice stay counted only."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from astroid import nodes

from gatecheck.audit.conditions import (
    ArchCondition,
    Role,
    SlotKind,
    function_scope,
    local_flag,
    operands,
    varies,
)
from gatecheck.audit.prefilter import is_predicate_name
from gatecheck.semantics.admitted import Semantics


def listed_definitions(
    conditions: Sequence[ArchCondition], semantics: Semantics, vendor_gens: frozenset[str]
) -> dict[int, ArchCondition]:
    """The predicates' own tests to list, by the id of their condition, each with the
    terms that tell the vendor's generations apart."""
    return {
        id(c): with_arch_terms(c, semantics, vendor_gens)
        for c in conditions
        if c.role is Role.PREDICATE and _listed(c, vendor_gens)
    }


def with_arch_terms(
    condition: ArchCondition, semantics: Semantics, vendor_gens: frozenset[str]
) -> ArchCondition:
    """The condition with its operands that tell these generations apart as its terms."""
    terms = tuple(
        a for a in operands(condition.condition) if varies(semantics.admission(a), vendor_gens)
    )
    return dataclasses.replace(condition, arch_terms=terms)


def _listed(condition: ArchCondition, vendor_gens: frozenset[str]) -> bool:
    """A test in the body of a function named as a device predicate, or kept under a
    local name for a generation in any function (`is_sm100 = _match_sm_version(dev,
    "100")`: conditions.local_flag), not an alias of other predicates' answers (in a
    module or a function: `_is_sm100 = _is_cuda and is_sm100_supported()`), telling the
    audited vendor's generations apart (not `is_hip()`'s body)."""
    if condition.kind is SlotKind.BOUND:
        # `is_blackwell = lru_cache(maxsize=1)(partial(_check, majors=[10, 12]))`: the
        # binding is the predicate's definition, its constants the allowlist.
        return varies(condition.admission, vendor_gens)
    function = function_scope(condition.statement)
    return (
        isinstance(function, nodes.FunctionDef)
        and (is_predicate_name(str(function.name)) or local_flag(condition.statement))
        and varies(condition.admission, vendor_gens)
        and not _another_predicates_answer(condition.condition)
        and not _compares_with_a_parameter(condition.condition, function)
    )


def _compares_with_a_parameter(condition: nodes.NodeNG, function: nodes.FunctionDef) -> bool:
    """`def is_device_capability(cls, capability): return current == capability`: the
    device is compared with what each caller passes; its set is the union of the callers'
    choices, not an allowlist, and each call is the row. A parameter compared with a
    literal (`capability == (9, 0)`, the device passed in) is the allowlist itself."""
    parameters = {
        a.name for a in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    }
    for compare in condition.nodes_of_class(nodes.Compare):
        sides = [compare.left, *(right for _, right in compare.ops)]
        given = [s for s in sides if isinstance(s, nodes.Name) and s.name in parameters]
        # `capability == (9, 0)` with the device passed in is an allowlist written out.
        if given and not any(_literal(s) for s in sides if s not in given):
            return True
    return False


def _literal(node: nodes.NodeNG) -> bool:
    if isinstance(node, nodes.Const):
        return True
    return isinstance(node, (nodes.Tuple, nodes.List, nodes.Set)) and all(
        _literal(e) for e in node.elts
    )


def _another_predicates_answer(condition: nodes.NodeNG) -> bool:
    """`return is_blackwell()` (or its `not`) in `def is_blackwell_system()`: one more
    name for another predicate, whose own test is the row; or `return ok`, a name the
    body's own test was kept under (that test is the row)."""
    while isinstance(condition, nodes.UnaryOp) and condition.op == "not":
        condition = condition.operand
    if isinstance(condition, (nodes.Name, nodes.Attribute)):
        return True
    if not isinstance(condition, nodes.Call) or condition.args or condition.keywords:
        return False
    func = condition.func
    name = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", "")
    return is_predicate_name(str(name))
