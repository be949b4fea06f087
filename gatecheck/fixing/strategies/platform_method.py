"""`p.is_device_capability(90) or p.is_device_capability_family(100)` -> `... or
p.is_device_capability_family(120)`: calls of one object's capability methods with an
integer SM number get one more call, in the module's own spelling: the same receiver,
a method the chain already uses (the last one first), the number the missing
generation has in that method's spelling (120 for sm120; 103 for sm103). Which
siblings come along is the method's own body's answer (`family(120)` admits sm121 too;
`is_device_capability(120)` does not)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from astroid import nodes

from gatecheck.fixing.strategies.base import (
    Context,
    Fix,
    Refuse,
    add_alternatives,
    by_major,
    candidate_admits,
    extra_of,
    fits,
    source_of,
)

NAME = "platform-method"

PLATFORM = """\
import torch
class Platform:
    @classmethod
    def get_device_capability(cls):
        major, minor = torch.cuda.get_device_capability()
        return major * 10 + minor
    @classmethod
    def is_device_capability(cls, capability):
        return cls.get_device_capability() == capability
    @classmethod
    def is_device_capability_family(cls, capability):
        return cls.get_device_capability() // 10 == capability // 10
    @classmethod
    def has_device_capability(cls, capability):
        return cls.get_device_capability() >= capability
current_platform = Platform()
"""
MODULES = {"pkg.platform": PLATFORM}

_HEAD = "from pkg.platform import current_platform\ndef enabled(args):\n    p = current_platform\n"

EXAMPLES = [
    (
        _HEAD + "    return (\n        p.is_device_capability(90)\n"
        "        or p.is_device_capability_family(100)\n    ) and args.go\n",
        _HEAD + "    return (\n        p.is_device_capability(90)\n"
        "        or p.is_device_capability_family(100)\n"
        "        or p.is_device_capability_family(120)\n    ) and args.go\n",
    ),
    (
        _HEAD + "    return p.is_device_capability_family(100) and args.go\n",
        # past the file's line length: wrapped the way black wraps it
        _HEAD + "    return (\n        p.is_device_capability_family(100)\n"
        "        or p.is_device_capability_family(120)\n    ) and args.go\n",
        ("sm100", "sm120"),
    ),
    # An exact-minor gate missing its same-major sibling: sm103 spelled exactly, too.
    (
        _HEAD
        + "    return (p.is_device_capability(90) or p.is_device_capability(100)) and args.go\n",
        _HEAD + "    return (\n        p.is_device_capability(90)\n"
        "        or p.is_device_capability(100)\n"
        "        or p.is_device_capability(103)\n    ) and args.go\n",
        ("sm90", "sm100", "sm103"),
    ),
    # Two majors missing: one call each (no one call admits sm103 and sm120 alone).
    (
        _HEAD + "    return (\n        p.is_device_capability(90) or p.is_device_capability(100)\n"
        "    ) and args.go\n",
        _HEAD + "    return (\n        p.is_device_capability(90)\n"
        "        or p.is_device_capability(100)\n        or p.is_device_capability(103)\n"
        "        or p.is_device_capability(120)\n    ) and args.go\n",
        ("sm90", "sm100", "sm103", "sm120"),
    ),
    # sm121 (DGX Spark) beside an exact sm120 gate: the exact sibling, not the family.
    (
        _HEAD + "    return p.is_device_capability(120) and args.go\n",
        _HEAD
        + "    return (p.is_device_capability(120) or p.is_device_capability(121)) and args.go\n",
        ("sm120", "sm121"),
    ),
]

NOOPS = [
    (
        _HEAD + "    return p.has_device_capability(100) and args.go\n",
        "no capability method of `p.has_device_capability(100)` admits sm90",
        ("sm90", "sm100"),
    ),
]


def fix(ctx: Context, target: nodes.NodeNG) -> Fix | None:
    operands: Sequence[nodes.NodeNG] = (
        target.values if isinstance(target, nodes.BoolOp) and target.op == "or" else [target]
    )
    calls = [o for o in operands if _sm_call(o)]
    if not calls or len(calls) != len(operands):
        return None
    chosen = _best(ctx, calls)
    if chosen is None:
        # sm103 and sm120 missing: one call per major (no one call admits both alone).
        parts = [_best(dataclasses.replace(ctx, missing=group), calls) for group in by_major(ctx)]
        chosen = None if None in parts or len(parts) < 2 else _joined(parts)
    if chosen is None:
        shown = ", ".join(ctx.semantics.registry.ordered(ctx.missing))
        raise Refuse(
            f"no capability method of `{target.as_string()}` admits {shown} "
            "without admitting other generations"
        )
    texts, admits = chosen
    add_alternatives(ctx, target, texts)
    return Fix(admits, f"added `{' or '.join(texts)}` to `{target.as_string()}`")


def _best(ctx: Context, calls: Sequence[nodes.NodeNG]) -> tuple[list[str], frozenset[str]] | None:
    options: list[tuple[int, int, str, frozenset[str]]] = []
    for rank, call in enumerate(reversed(calls)):
        assert isinstance(call, nodes.Call)
        for text in _spellings(ctx, call):
            admits = candidate_admits(ctx, call, text)
            if fits(ctx, admits):
                options.append((rank, extra_of(ctx, admits), text, admits))
    if not options:
        return None
    # The method the chain ends with first; within it, the spelling that brings least.
    _rank, _extra, text, admits = min(options, key=lambda o: (o[0], o[1]))
    return [text], admits


def _joined(
    parts: Sequence[tuple[list[str], frozenset[str]] | None],
) -> tuple[list[str], frozenset[str]]:
    texts: list[str] = []
    admits: frozenset[str] = frozenset()
    for part in parts:
        assert part is not None
        texts.extend(part[0])
        admits |= part[1]
    return texts, admits


def _sm_call(node: nodes.NodeNG) -> bool:
    return (
        isinstance(node, nodes.Call)
        and isinstance(node.func, nodes.Attribute)
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], nodes.Const)
        and type(node.args[0].value) is int
    )


def _spellings(ctx: Context, call: nodes.Call) -> list[str]:
    """`recv.method(N)` for each number the missing generations have: their SM number
    and their major's first SM number (a family method's spelling)."""
    receiver = source_of(ctx, call.func)
    registry = ctx.semantics.registry
    numbers: list[int] = []
    for name in registry.ordered(ctx.missing):
        generation = registry.get(name)
        for number in (generation.sm_version, generation.major * 10):
            if number not in numbers:
                numbers.append(number)
    return [f"{receiver}({number})" for number in numbers]
