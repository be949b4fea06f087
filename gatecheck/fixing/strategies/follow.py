"""The allowlist is not in the condition but behind a name: a local or module variable
(`is_supported_arch = p.is_cuda() and (...)`, then `return ... and is_supported_arch`)
or a helper without arguments (`def _use_fast(): return cap.major in [9, 10]`, then
`if _use_fast():`), possibly in another module. Follow it and fix the allowlist where
it is written. Predicates named for a generation (`is_sm100_supported`, `_is_sm90`) are
not followed: their body is right, the gate needs a sibling (predicate_or)."""

from __future__ import annotations

import re

from astroid import nodes

from gatecheck.fixing.strategies.base import Context, Fix, Refuse, flags_of
from gatecheck.semantics.culprit import culprit
from gatecheck.semantics.evaluator import Evaluator
from gatecheck.semantics.values import FunctionRef

NAME = "follow"

# Names that say which generation they test: their body is the predicate, not a list.
_NAMED_FOR_ARCH = re.compile(
    r"sm_?\d|\d{2,}|hopper|blackwell|ampere|volta|turing|gfx|mi3\d|cdna|rdna", re.IGNORECASE
)

_CAP = "import torch\ncap = torch.cuda.get_device_capability()\n"

EXAMPLES = [
    (
        _CAP + "def _use_fast():\n    return cap[0] in [9, 10]\n"
        "def enabled(args):\n    return _use_fast() and args.go\n",
        _CAP + "def _use_fast():\n    return cap[0] in [9, 10, 12]\n"
        "def enabled(args):\n    return _use_fast() and args.go\n",
    ),
    (
        _CAP + "def enabled(args):\n    supported = cap[0] == 9 or cap[0] == 10\n"
        "    return args.go and supported\n",
        _CAP + "def enabled(args):\n    supported = cap[0] == 9 or cap[0] == 10 or cap[0] == 12\n"
        "    return args.go and supported\n",
    ),
    # A module-level allowlist with a name that says no generation: fixed where defined.
    (
        _CAP + "_FAST_OK = cap[0] == 9 or cap[0] == 10\n"
        "def enabled(args):\n    return _FAST_OK and args.go\n",
        _CAP + "_FAST_OK = cap[0] == 9 or cap[0] == 10 or cap[0] == 12\n"
        "def enabled(args):\n    return _FAST_OK and args.go\n",
    ),
]

NOOPS = [
    (
        _CAP
        + "def _use_fast():\n    if cap[0] == 9:\n        return True\n    return cap[0] == 10\n"
        "def enabled(args):\n    return _use_fast() and args.go\n",
        "returns in more than one place",
    ),
    (
        _CAP + "def _use_fast(majors=(9, 10)):\n    return cap[0] in majors\n"
        "def enabled(args):\n    return _use_fast() and args.go\n",
        "reads its parameter `majors`",
    ),
    (
        _CAP + "def enabled(args):\n    supported = cap[0] == 9\n"
        "    if args.x:\n        supported = cap[0] == 10\n"
        "    return args.go and supported\n",
        "is assigned in more than one place",
    ),
]


def fix(ctx: Context, target: nodes.NodeNG) -> Fix | None:
    first = ctx.semantics.registry.ordered(ctx.missing)[0]
    evaluator = ctx.semantics.evaluator(first, flags_of(ctx))
    value = step(evaluator, target)
    if value is None:
        return None
    from gatecheck.fixing.strategies import extend

    inner = ctx.at(value)
    allowlist = culprit(value, evaluator, needs=True)
    found = extend(inner.widening(allowlist), allowlist)
    where = f" (in {inner.module.name})" if inner.module is not ctx.module else ""
    return Fix(found.adds, f"{found.summary}, behind `{target.as_string()}`{where}")


def step(evaluator: Evaluator, target: nodes.NodeNG) -> nodes.NodeNG | None:
    """The expression one local name or argument-less helper behind `target` (None:
    not a name or helper this follows); Refuse when it is one but cannot be followed."""
    if isinstance(target, nodes.Name) and not _NAMED_FOR_ARCH.search(target.name):
        return _assigned_value(target)
    if (
        isinstance(target, nodes.Call)
        and not target.args
        and not target.keywords
        and not _NAMED_FOR_ARCH.search(target.func.as_string())
    ):
        return _returned_value(evaluator, target)
    return None


def behind(evaluator: Evaluator, blocking: nodes.NodeNG) -> tuple[nodes.NodeNG, ...]:
    """The culprit of a gate and, after it, each allowlist behind it (in a helper's
    body, possibly in another module): where a finding belongs, the last one, with
    the ones before it as the path from the caller. For the evaluator's generation."""
    chain = [blocking]
    while len(chain) < 8:  # a cycle of helpers is not followed forever
        try:
            value = step(evaluator, chain[-1])
        except Refuse:
            break
        if value is None:
            break
        chain.append(culprit(value, evaluator, needs=True))
    return tuple(chain)


def _assigned_value(name: nodes.Name) -> nodes.NodeNG | None:
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
        raise Refuse(f"`{name.name}` is assigned in more than one place; edit by hand")
    statement = every[0].parent
    if not isinstance(statement, nodes.Assign) or len(statement.targets) != 1:
        return None
    return statement.value


def _returned_value(evaluator: Evaluator, call: nodes.Call) -> nodes.NodeNG | None:
    callee = evaluator.value(call.func)
    if not isinstance(callee, FunctionRef) or not isinstance(callee.node, nodes.FunctionDef):
        return None
    function = callee.node
    returns = [r for r in function.nodes_of_class(nodes.Return) if r.scope() is function]
    if len(returns) != 1 or returns[0].value is None:
        raise Refuse(f"`{function.name}` returns in more than one place; edit it by hand")
    value = returns[0].value
    parameters = {a.name for a in function.args.arguments}
    read = sorted({n.name for n in value.nodes_of_class(nodes.Name) if n.name in parameters})
    if read:
        raise Refuse(f"`{function.name}`'s allowlist reads its parameter `{read[0]}`: not followed")
    return value
