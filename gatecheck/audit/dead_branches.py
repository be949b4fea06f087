"""Gates that shut a generation out of code written to handle it.

A function that tests the device picks a path per generation (`per_group = cap >= (10,
0)`: one scale per group from Blackwell on, one shared scale before). Where every call of
it in the project sits past gates that let only some generations through, a test inside
it that is the same on all of those, and different on the audited generation, has a side
only shut-out generations would take: code no run reaches. Developers do not write
dedicated handling for a generation they never let in; dead handling behind a gate that
excludes the generation says the gate was not widened when the code was
(TransformerEngine 2.16.0: `general_grouped_gemm_for_grouped_tensor` kept its Hopper path
while every caller required `cc >= (10, 0)`; 2.18.0 let sm90 through).

The side the generation takes must be a path, not a refusal: an `if` branch that does
work (not one that leaves or switches the feature off), a flag set to its other value (not
an off-state flag set); and the test must read the device itself, not a parameter (FA4's
`AtomLayoutMSdP == 1` in the sm90 backward kernel is what each caller passes for its
generation). The callers are the project's own (semantics/callers.py: every
call resolved, at most MAX_SITES of them), each read where it sits (the gates around it
and the early exits before it in its function: Classifier._reach); a function any call
of which the generation may reach, or with a call that cannot be read, is left alone."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext

from astroid import nodes

from gatecheck.audit.conditions import (
    ArchCondition,
    Role,
    SlotKind,
    condition_text,
    function_scope,
)
from gatecheck.gates.branches import branch_disables, branch_exits, call_name
from gatecheck.gates.model import Polarity
from gatecheck.loading.resolve import parameter_names
from gatecheck.semantics import callers
from gatecheck.semantics.admitted import Semantics
from gatecheck.semantics.evaluator import Evaluator

# More calls than this: the function is a helper called from everywhere, left alone.
MAX_SITES = 8

# Where a statement is reached: the generations that get to it, and the tests that shut
# the audited generation out on the way.
ReachOf = Callable[[nodes.NodeNG], tuple[frozenset[str], list[ArchCondition]]]


def dead_branch_gates(
    semantics: Semantics,
    conditions: Sequence[ArchCondition],
    generation: str,
    vendor_gens: frozenset[str],
    reach_of: ReachOf,
    around: Callable[[str], AbstractContextManager[None]] | None = None,
) -> dict[int, tuple[str, str]]:
    """The conditions (by id) that shut `generation` out of the calls of a function with
    a path only shut-out generations take, each with why and that function's name.
    `around`: entered, with the function's name, around each function's search (what it
    reads is noted per name)."""
    guarded = guarded_calls(conditions)
    by_function: dict[nodes.FunctionDef, list[ArchCondition]] = {}
    for c in conditions:
        if c.role is not Role.GATE or c.kind not in (SlotKind.IF, SlotKind.ASSIGN, SlotKind.IFEXP):
            continue
        scope = function_scope(c.statement)
        if (
            isinstance(scope, nodes.FunctionDef)
            and str(scope.name) in guarded
            and _one_side(c, generation) is not None
        ):
            by_function.setdefault(scope, []).append(c)
    ev = semantics.evaluator(semantics.registry.names[0])
    found: dict[int, tuple[str, str]] = {}
    for function, inside in by_function.items():
        with around(str(function.name)) if around is not None else nullcontext():
            shut = _shut_out(ev, function, inside, generation, vendor_gens, reach_of, semantics)
        if shut is not None:
            reason, excluding = shut
            for gate in excluding:
                found.setdefault(id(gate), (reason, str(function.name)))
    return found


def _shut_out(
    ev: Evaluator,
    function: nodes.FunctionDef,
    inside: Sequence[ArchCondition],
    generation: str,
    vendor_gens: frozenset[str],
    reach_of: ReachOf,
    semantics: Semantics,
) -> tuple[str, list[ArchCondition]] | None:
    """Why the function has a path only shut-out generations take, and the tests that
    shut the generation out of its calls; None where it has none."""
    sites = callers.call_sites(ev, function)
    if not sites or len(sites) > MAX_SITES:
        return None
    reach: frozenset[str] = frozenset()
    excluding: list[ArchCondition] = []
    for call, _ in sites:
        passes, shutting = reach_of(call.statement())
        if generation in passes:
            return None
        reach |= passes
        excluding += shutting
    let_through = reach & vendor_gens
    if not let_through:
        return None
    for c in inside:
        reason = _dead_side(c, function, generation, let_through, semantics)
        if reason is not None:
            return reason, excluding
    return None


def guarded_calls(conditions: Sequence[ArchCondition]) -> set[str]:
    """The names called under an `if` test that is an arch condition (in its branches, or
    after it in its block where a branch leaves): a function no such call names has a
    caller no gate stands in front of, so its callers are not searched (a bound on the
    cost only: the callers that are searched still decide)."""
    names: set[str] = set()
    for c in conditions:
        statement = c.statement
        if c.kind is not SlotKind.IF or not isinstance(statement, nodes.If):
            continue
        region: list[nodes.NodeNG] = [*statement.body, *statement.orelse]
        if branch_exits(statement.body) or branch_exits(statement.orelse):
            later = statement.next_sibling()
            while later is not None:
                region.append(later)
                later = later.next_sibling()
        for node in region:
            names.update(call_name(call) for call in node.nodes_of_class(nodes.Call))
    names.discard("")
    return names


def _one_side(c: ArchCondition, generation: str) -> bool | None:
    """The side of the condition the generation is on, None where it may be on both."""
    true, false = c.admission.can_be_true, c.admission.can_be_false
    if generation in true and generation not in false:
        return True
    if generation in false and generation not in true:
        return False
    return None


def _dead_side(
    c: ArchCondition,
    function: nodes.FunctionDef,
    generation: str,
    let_through: frozenset[str],
    semantics: Semantics,
) -> str | None:
    """Why `c` has a path only `generation` (and others shut out) takes, or None."""
    true, false = c.admission.can_be_true, c.admission.can_be_false
    if let_through <= true - false:
        theirs = True
    elif let_through <= false - true:
        theirs = False
    else:
        return None  # it tells the generations let through apart: a live test
    ours = _one_side(c, generation)
    if ours is None or ours == theirs:
        return None
    if _reads_parameters(c.condition, function):
        # What the callers pass decides it (`AtomLayoutMSdP == 1`, each caller's choice
        # per generation): its value on a generation no call reaches is no one's path.
        return None
    if c.kind is SlotKind.IF:
        statement = c.statement
        assert isinstance(statement, nodes.If)
        branch = statement.body if ours else statement.orelse
        if not branch or branch_exits(branch) or branch_disables(branch):
            return None
    elif c.polarity is Polarity.DISABLES and ours:
        return None  # an off-state flag set: a refusal, not a path
    text = condition_text(c.condition)
    if len(text) > 60:
        text = text[:57] + "..."
    shown = ", ".join(semantics.registry.ordered(let_through))
    return (
        f"'{function.name}' (line {c.line} of {c.path.name}), called only past it, has a path "
        f"for {generation}: '{text}' is {ours} there, {theirs} on every generation let "
        f"through ({shown})"
    )


def _reads_parameters(condition: nodes.NodeNG, function: nodes.FunctionDef) -> bool:
    """Whether the condition reads a parameter of the function (`self` included: an
    attribute of the object is what its constructor's callers passed)."""
    parameters = parameter_names(function)
    return any(str(n.name) in parameters for n in condition.nodes_of_class(nodes.Name))
