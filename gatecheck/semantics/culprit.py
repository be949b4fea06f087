"""Which sub-expression of a condition shuts a generation out: the allowlist to point at
(and to extend), not the whole `and` chain; and, when that is a local name or an
argument-less helper (`if _use_fast():` with `def _use_fast(): return cap.major in [9, 10]`,
possibly in another module), the allowlist behind it, where a finding and its fix belong.
Predicates named for a generation (`is_sm100_supported`, `_is_sm90`) are not followed:
their body is right, the gate needs a sibling."""

from __future__ import annotations

import re

from astroid import nodes

from gatecheck.semantics.evaluator import Evaluator
from gatecheck.semantics.values import FunctionRef

# Names that say which generation they test: their body is the predicate, not a list.
_NAMED_FOR_ARCH = re.compile(
    r"sm_?\d|\d{2,}|hopper|blackwell|ampere|volta|turing|gfx|mi3\d|cdna|rdna", re.IGNORECASE
)
# A cycle of helpers is not followed forever.
MAX_FOLLOWED = 8


class NotFollowed(Exception):
    """A name or helper this would follow, but cannot (its reason is the message)."""


def culprit(condition: nodes.NodeNG, evaluator: Evaluator, needs: bool) -> nodes.NodeNG:
    """The smallest sub-expression that forces `condition` away from `needs` for the
    evaluator's generation (needs=True: the condition must be able to be true)."""
    node = condition
    while True:
        if isinstance(node, nodes.BoolOp):
            blocking_op = "and" if needs else "or"
            if node.op == blocking_op:
                # One operand decides: the first one stuck at the wrong value.
                stuck = [v for v in node.values if evaluator.truth(v) is (not needs)]
                if not stuck:
                    return node
                node = stuck[0]
                continue
            return node  # every alternative is stuck: the allowlist itself
        if isinstance(node, nodes.UnaryOp) and node.op == "not":
            return node
        return node


def behind(evaluator: Evaluator, blocking: nodes.NodeNG) -> tuple[nodes.NodeNG, ...]:
    """The culprit of a gate and, after it, each allowlist behind it (in a helper's
    body, possibly in another module): where a finding belongs, the last one, with
    the ones before it as the path from the caller. For the evaluator's generation."""
    chain = [blocking]
    while len(chain) < MAX_FOLLOWED:
        try:
            value = step(evaluator, chain[-1])
        except NotFollowed:
            break
        if value is None:
            break
        chain.append(culprit(value, evaluator, needs=True))
    return tuple(chain)


def step(evaluator: Evaluator, target: nodes.NodeNG) -> nodes.NodeNG | None:
    """The expression one local name or argument-less helper behind `target` (None:
    not a name or helper this follows); NotFollowed when it is one but cannot be followed."""
    if isinstance(target, nodes.Name) and not _NAMED_FOR_ARCH.search(target.name):
        return assigned_value(target)
    if (
        isinstance(target, nodes.Call)
        and not target.args
        and not target.keywords
        and not _NAMED_FOR_ARCH.search(target.func.as_string())
    ):
        return returned_value(evaluator, target)
    return None


def assigned_value(name: nodes.Name) -> nodes.NodeNG | None:
    scope, bound = name.lookup(name.name)
    if not isinstance(scope, (nodes.FunctionDef, nodes.Module)):
        return None
    assignments = [b for b in bound if isinstance(b, nodes.AssignName)]
    if len(assignments) != len(bound) or not assignments:
        return None
    every = [
        n
        for n in scope.nodes_of_class(nodes.AssignName)
        if n.name == name.name and n.scope() is scope
    ]
    if len(every) != 1:
        raise NotFollowed(f"`{name.name}` is assigned in more than one place; edit by hand")
    statement = every[0].parent
    if not isinstance(statement, nodes.Assign) or len(statement.targets) != 1:
        return None
    return statement.value


def returned_value(evaluator: Evaluator, call: nodes.Call) -> nodes.NodeNG | None:
    callee = evaluator.value(call.func)
    if not isinstance(callee, FunctionRef) or not isinstance(callee.node, nodes.FunctionDef):
        return None
    function = callee.node
    returns = [r for r in function.nodes_of_class(nodes.Return) if r.scope() is function]
    if len(returns) != 1 or returns[0].value is None:
        raise NotFollowed(f"`{function.name}` returns in more than one place; edit it by hand")
    value = returns[0].value
    parameters = [a.name for a in function.args.arguments]
    if callee.receiver is not None and parameters:
        # A bound method's `self` / `cls` is the receiver, not an argument of the call:
        # `self.capability[0] in [9, 10]` reads the device the way the call does.
        parameters = parameters[1:]
    arguments = set(parameters)
    read = sorted({n.name for n in value.nodes_of_class(nodes.Name) if n.name in arguments})
    if read:
        raise NotFollowed(
            f"`{function.name}`'s allowlist reads its parameter `{read[0]}`: not followed"
        )
    return value
