"""`major == 9 or major == 10` -> `... or major == 12`: an or-chain of capability
comparisons gets one more comparison in the spelling of the operand whose spelling
covers the missing generation (the last one first): `(major, minor) == (9, 0) or
major == 10` gets `or major == 12` (sm120 and sm121: the chain's own spelling is by
major), `... or cap == (10, 0)` gets `or cap == (12, 0)` (sm120 only)."""

from __future__ import annotations

from astroid import nodes

from gatecheck.fixing.strategies.base import (
    Context,
    Fix,
    Refuse,
    add_alternatives,
    candidate_admits,
    fits,
    source_of,
)
from gatecheck.fixing.strategies.capability_list import values_on_missing

NAME = "or-chain"

_MAJOR = "import torch\ndef enabled(args):\n    major, minor = torch.cuda.get_device_capability()\n"

EXAMPLES = [
    (
        _MAJOR + "    return (major == 9 or major == 10) and args.go\n",
        _MAJOR + "    return (major == 9 or major == 10 or major == 12) and args.go\n",
    ),
    (
        _MAJOR + "    return ((major, minor) == (9, 0) or major == 10) and args.go\n",
        _MAJOR
        + "    return ((major, minor) == (9, 0) or major == 10 or major == 12)"
        + " and args.go\n",
    ),
    (
        _MAJOR + "    return (\n        (major, minor) == (9, 0) or\n"
        "        (major, minor) == (10, 0)\n    ) and args.go\n",
        _MAJOR + "    return (\n        (major, minor) == (9, 0) or\n"
        "        (major, minor) == (10, 0) or\n"
        "        (major, minor) == (12, 0)\n    ) and args.go\n",
    ),
    # Operands spelled over several lines inside the brackets: the new one too.
    (
        "import torch\ndef enabled(args):\n    return (torch.cuda.get_device_capability()\n"
        "            [0] == 9 or torch.cuda.get_device_capability()\n"
        "            [0] == 10) and args.go\n",
        "import torch\ndef enabled(args):\n    return (torch.cuda.get_device_capability()\n"
        "            [0] == 9 or torch.cuda.get_device_capability()\n"
        "            [0] == 10 or torch.cuda.get_device_capability()\n"
        "            [0] == 12) and args.go\n",
    ),
]

NOOPS = [
    (
        _MAJOR + "    return (major > 12 or minor == 5) and args.go\n",
        "no operand of `major > 12 or minor == 5` is an equality whose spelling admits",
    ),
]


def fix(ctx: Context, target: nodes.NodeNG) -> Fix | None:
    if not (isinstance(target, nodes.BoolOp) and target.op == "or"):
        return None
    operands = target.values
    if not all(isinstance(o, nodes.Compare) for o in operands):
        return None
    for operand in reversed(operands):
        texts = _imitating(ctx, operand)
        if texts is None:
            continue
        admits: frozenset[str] = frozenset()
        for text in texts:
            admits |= candidate_admits(ctx, target, text)
        if fits(ctx, admits):
            add_alternatives(ctx, target, texts)
            return Fix(admits, f"added `{' or '.join(texts)}` to `{target.as_string()}`")
    raise Refuse(
        f"no operand of `{target.as_string()}` is an equality whose spelling admits "
        f"{', '.join(ctx.semantics.registry.ordered(ctx.missing))} alone"
    )


def _imitating(ctx: Context, operand: nodes.Compare) -> list[str] | None:
    if len(operand.ops) != 1 or operand.ops[0][0] != "==":
        return None
    try:
        values = values_on_missing(ctx, operand.left)
    except Refuse:
        return None
    left = source_of(ctx, operand.left)
    return [f"{left} == {value!r}" for value in values]
