"""`major == 10` -> `major in (10, 12)`; `cap in ((9, 0), (10, 0))` gets `(12, 0)` in its
own layout (one element per line stays one per line, a trailing comma stays). The value
added is what the compared expression is on the missing generation, spelled as the
literal already spells its elements."""

from __future__ import annotations

from typing import Any

from astroid import nodes

from gatecheck.findings import Edit
from gatecheck.fixing.strategies.base import (
    Context,
    Fix,
    Refuse,
    append_elements,
    candidate_admits,
    source_of,
    spelled_like,
)

NAME = "capability-list"

_CAP = "import torch\ncap = torch.cuda.get_device_capability()\n"

EXAMPLES = [
    (
        _CAP + "def enabled(args):\n    return cap in [(9, 0), (10, 0)] and args.go\n",
        _CAP
        + "def enabled(args):\n"
        + "    return cap in [(9, 0), (10, 0), (12, 0)] and args.go\n",
    ),
    (
        _CAP + "def enabled(args):\n"
        "    return cap in (\n        (9, 0),\n        (10, 0),\n    ) and args.go\n",
        _CAP + "def enabled(args):\n"
        "    return cap in (\n        (9, 0),\n        (10, 0),\n        (12, 0),\n"
        "    ) and args.go\n",
    ),
    (
        _CAP + "def enabled(args):\n"
        "    return cap[0] in [\n        9,\n        10\n    ] and args.go\n",
        _CAP + "def enabled(args):\n"
        "    return cap[0] in [\n        9,\n        10,\n        12\n    ] and args.go\n",
    ),
    (
        _CAP + "def enabled(args):\n    return cap[0] * 10 + cap[1] in (90, 100,) and args.go\n",
        _CAP
        + "def enabled(args):\n"
        + "    return cap[0] * 10 + cap[1] in (90, 100, 120,) and args.go\n",
    ),
]

NOOPS = [
    (
        _CAP + "def enabled(args):\n    return 9 <= cap[0] < 12 and args.go\n",
        "would also admit generations in between",
    ),
    (
        _CAP + "MAJORS = (9, 10)\ndef enabled(args):\n    return cap[0] in MAJORS and args.go\n",
        "the allowlist is the named constant `MAJORS`",
    ),
    (
        _CAP + "class Backend:\n    def __init__(self):\n        self.majors = [9, 10]\n"
        "    def enabled(self, args):\n        return cap[0] in self.majors and args.go\n",
        "the allowlist is the attribute `self.majors`: extend it where it is assigned",
    ),
    (
        _CAP + "def enabled(args):\n    return cap[0] >= 9 and cap[0] != 12 and args.go\n",
        "range or inequality",
    ),
    # The compared value is not a number on the missing generation: nothing to add.
    (
        _CAP + "KIND = {(9, 0): 'h', (10, 0): 'b'}\n"
        "def enabled(args):\n    return KIND.get(cap) == 'h' and args.go\n",
        "cannot tell what `KIND.get(cap)` is on sm120",
    ),
]


def fix(ctx: Context, target: nodes.NodeNG) -> Fix | None:
    if not isinstance(target, nodes.Compare):
        return None
    if len(target.ops) != 1:
        raise Refuse(
            f"range `{target.as_string()}`: widening it would also admit generations in "
            "between; edit by hand"
        )
    op, right = target.ops[0]
    if op == "==":
        values = values_on_missing(ctx, target.left)
        rendered = ", ".join([source_of(ctx, right), *(repr(v) for v in values)])
        start = ctx.raw.offset(target.left.end_lineno, target.left.end_col_offset)
        end = ctx.raw.offset(right.end_lineno, right.end_col_offset)
        ctx.edits.append(Edit(ctx.raw.path, start, end, f" in ({rendered})"))
        admits = candidate_admits(ctx, target, f"({source_of(ctx, target.left)} in ({rendered}))")
        shown = ", ".join(map(repr, values))
        return Fix(admits, f"`{target.as_string()}` now also accepts {shown}")
    if op == "in" and isinstance(right, (nodes.Tuple, nodes.List, nodes.Set)) and right.elts:
        values = values_on_missing(ctx, target.left)
        texts = [spelled_like(ctx, right.elts[-1], v) for v in values]
        append_elements(ctx, right, texts)
        elements = ", ".join([*(source_of(ctx, e) for e in right.elts), *texts])
        admits = candidate_admits(ctx, target, f"({source_of(ctx, target.left)} in ({elements},))")
        return Fix(admits, f"added {', '.join(texts)} to `{right.as_string()}`")
    if op == "in" and isinstance(right, nodes.Name):
        raise Refuse(
            f"the allowlist is the named constant `{right.name}`: extend it where it is "
            "defined (it may serve other gates too)"
        )
    if op == "in" and isinstance(right, nodes.Attribute):
        raise Refuse(
            f"the allowlist is the attribute `{right.as_string()}`: extend it where it is "
            "assigned (it may serve other gates too)"
        )
    raise Refuse(
        f"range or inequality `{target.as_string()}`: widening it would also admit "
        "generations in between; edit by hand"
    )


def values_on_missing(ctx: Context, expr: nodes.NodeNG) -> list[Any]:
    """What `expr` is on each missing generation (read by the generation's evaluator:
    the one value a literal must hold for the comparison to let it through)."""
    read = ctx.semantics.per_generation(
        lambda _gen, evaluator: evaluator.value(expr), generations=ctx.missing
    )
    values: list[Any] = []
    for gen, value in read.items():
        if isinstance(value, tuple):
            value = tuple(value)  # Capability -> plain tuple for repr
        if isinstance(value, bool) or not isinstance(value, (int, tuple, str)):
            raise Refuse(f"cannot tell what `{expr.as_string()}` is on {gen}")
        if value not in values:
            values.append(value)
    return values
