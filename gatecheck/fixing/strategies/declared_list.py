"""A gate function's declaration (gates/declared.py): `@supported_compute_capability(
[100, 103])` gets 120, `supported_major_versions=[9, 10]` gets 12, `arch_list=["90a",
"100a"]` gets "120a" -- in the list's own spelling, where the list is written (the
constant a declaration names, too). Only with --force: such a list says what a kernel
is built for, and adding a generation is right only when the kernel is built for it,
which the Python source cannot show."""

from __future__ import annotations

import re

import astroid
from astroid import nodes

from gatecheck.fixing.strategies.base import (
    Context,
    Fix,
    Refuse,
    append_elements,
    fits,
    source_of,
)
from gatecheck.gates.declared import declared_list
from gatecheck.gates.model import GateKind
from gatecheck.kernels.support import build_declarations, decorator_declarations

NAME = "declared-list"

_HEAD = (
    "def supported_compute_capability(ccs):\n"
    "    def decorator(func):\n        func._ccs = set(ccs)\n        return func\n"
    "    return decorator\n"
)

# The examples' gate functions (fix_source names the module under test `gate`).
GATE_FUNCTIONS = ("gate.requirement",)


def _requirement(decorator: str, body: str = "    return a.ok\n") -> str:
    return f"{decorator}\ndef requirement(a):\n{body}"


FORCED = [
    (
        _HEAD + _requirement("@supported_compute_capability([100, 103])"),
        _HEAD + _requirement("@supported_compute_capability([100, 103, 120])"),
        ("sm100", "sm103", "sm120"),
    ),
    # A named constant list: widened where it is written.
    (
        _HEAD
        + "_CCS = (\n    100,\n    103,\n)\n"
        + _requirement("@supported_compute_capability(_CCS)"),
        _HEAD
        + "_CCS = (\n    100,\n    103,\n    120,\n)\n"
        + _requirement("@supported_compute_capability(_CCS)"),
        ("sm100", "sm103", "sm120"),
    ),
    # Build majors in the body: 12 brings sm121, its same-major sibling.
    (
        "def requirement(a):\n    return a.build(supported_major_versions=[9, 10])\n",
        "def requirement(a):\n    return a.build(supported_major_versions=[9, 10, 12])\n",
        ("sm90", "sm100", "sm120"),
    ),
    (
        "def requirement(a):\n    return a.build(arch_list=['90a', '100a'])\n",
        "def requirement(a):\n    return a.build(arch_list=['90a', '100a', '120a'])\n",
        ("sm90", "sm100", "sm120"),
    ),
]

NOOPS = [
    (
        _HEAD + _requirement("@supported_compute_capability([100, 103])"),
        "`[100, 103]` says what a kernel is built for: add a generation there only when "
        "the kernel is built for it (use --force to widen anyway)",
        ("sm100", "sm103", "sm120"),
    ),
]

# Refused even with --force.
FORCED_NOOPS = [
    (
        "from pkg.ccs import CCS\n" + _HEAD + _requirement("@supported_compute_capability(CCS)"),
        "the declared list `CCS` is not written in this module as a literal",
        ("sm100", "sm103", "sm120"),
    ),
    # An entry that names no generation: nothing spelled like it names sm120.
    (
        "def requirement(a):\n    return a.build(arch_list=['native'])\n",
        "no entry added to `['native']` makes the declaration admit sm90, sm120 alone",
        ("sm90", "sm120"),
    ),
]

MODULES = {"pkg.ccs": "CCS = [100, 103]\n"}

# Nothing is widened without --force: every example is in FORCED.
EXAMPLES: list[tuple[str, ...]] = []


def fix(ctx: Context, target: nodes.NodeNG) -> Fix | None:
    gate = ctx.result.gate
    if gate.kind is not GateKind.DECLARATION:
        return None
    literal = declared_list(target)
    if not ctx.force:
        raise Refuse(
            f"`{literal.as_string()}` says what a kernel is built for: add a generation there "
            "only when the kernel is built for it (use --force to widen anyway)"
        )
    if not isinstance(literal, (nodes.List, nodes.Tuple, nodes.Set)) or not literal.elts:
        raise Refuse(
            f"the declared list `{literal.as_string()}` is not written in this module as a "
            "literal: extend it where it is defined"
        )
    inner = ctx.at(literal)
    for texts in _spellings(inner, literal):
        admits = _admits_with(inner, gate.statement, literal, texts)
        if fits(inner, admits):
            append_elements(inner, literal, texts)  # inner shares ctx's edits
            return Fix(
                admits,
                f"added {', '.join(texts)} to `{literal.as_string()}` "
                "(--force: make sure the kernel is built for it)",
            )
    raise Refuse(
        f"no entry added to `{literal.as_string()}` makes the declaration admit "
        f"{', '.join(ctx.semantics.registry.ordered(ctx.missing))} alone"
    )


def _spellings(ctx: Context, literal: nodes.NodeNG) -> list[list[str]]:
    """The entries for the missing generations, each way the list may spell them: SM
    numbers or majors among numbers; among strings the first one's prefix and suffix
    (`"sm_90a"` -> `"sm_120a"`), or its `major.minor`."""
    registry = ctx.semantics.registry
    missing = [registry.get(g) for g in registry.ordered(ctx.missing)]
    first = literal.elts[0]
    value = first.value if isinstance(first, nodes.Const) else None
    ways: list[list[str]] = []
    if isinstance(value, int) and not isinstance(value, bool):
        ways = [[str(g.sm_version) for g in missing], [str(g.major) for g in missing]]
    elif isinstance(value, str):
        quote = source_of(ctx, first)[:1]
        dotted = re.fullmatch(r"(\D*)\d+\.\d+(\D*)", value)
        plain = re.fullmatch(r"(\D*)\d+(\D*)", value)
        if dotted:
            ways = [[f"{dotted[1]}{g.major}.{g.minor}{dotted[2]}" for g in missing]]
        elif plain:
            ways = [[f"{plain[1]}{g.sm_version}{plain[2]}" for g in missing]]
        ways = [[f"{quote}{entry}{quote}" for entry in way] for way in ways]
    present = {source_of(ctx, e) for e in literal.elts}
    return [list(dict.fromkeys(e for e in way if e not in present)) for way in ways if way]


def _admits_with(
    ctx: Context, declaration: nodes.NodeNG, literal: nodes.NodeNG, texts: list[str]
) -> frozenset[str]:
    """What the declaration would admit with the entries added, read by the same
    convention as the declaration itself (kernels/support.py)."""
    elements = ", ".join([*(source_of(ctx, e) for e in literal.elts), *texts])
    registry = ctx.semantics.registry
    evaluator = ctx.semantics.evaluator(registry.names[0])
    if isinstance(declaration, nodes.Keyword):
        call = astroid.extract_node(f"_declared({declaration.arg}=[{elements}])")
        found = list(build_declarations(call, evaluator, registry))
    else:
        name = declaration.func.as_string()
        function = astroid.extract_node(f"@{name}([{elements}])\ndef _declared(): pass")
        found = list(decorator_declarations(function, evaluator, registry))
    return found[0].generations if found else frozenset()
