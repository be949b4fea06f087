"""`_match_sm_version(dev, ["100"])` -> `["100", "103"]`: a call whose answer depends on
a literal list of SM numbers gets the missing generation's number, in the list's own
spelling ("103" among strings, 103 among SM integers, 12 among majors). The call's body
says whether that admits it: the candidate is read before anything is edited.

Lists that say what a kernel is *built* for (`@supported_compute_capability([100, 103])`,
`supported_major_versions=[9, 10]`) are widened only with --force: adding 120 there is
only right when the kernel is built for sm120, which the source cannot show."""

from __future__ import annotations

import re

from astroid import nodes

from gatecheck.fixing.strategies.base import (
    Context,
    Fix,
    Refuse,
    append_elements,
    candidate_admits,
    fits,
    source_of,
    spelled_like,
)

NAME = "arch-list-argument"

MATCH = """\
import torch
def _match_sm_version(device, sm_version):
    major, minor = torch.cuda.get_device_capability(device)
    return f"{major * 10 + minor}" in sm_version
def build_for(supported_major_versions):
    return torch.cuda.get_device_capability()[0] in supported_major_versions
"""
MODULES = {"pkg.archs": MATCH}

_HEAD = "from pkg.archs import _match_sm_version, build_for\n"

EXAMPLES = [
    (
        _HEAD + 'def enabled(args, dev):\n    return _match_sm_version(dev, ["100"]) and args.go\n',
        _HEAD + "def enabled(args, dev):\n"
        '    return _match_sm_version(dev, ["100", "103"]) and args.go\n',
        ("sm100", "sm103"),
    ),
    (
        _HEAD + "def enabled(args, dev):\n    return _match_sm_version(dev, ['120']) and args.go\n",
        _HEAD + "def enabled(args, dev):\n"
        "    return _match_sm_version(dev, ['120', '121']) and args.go\n",
        ("sm120", "sm121"),
    ),
]

# (source, fixed source) with --force only.
FORCED = [
    (
        _HEAD + "def enabled(args):\n"
        "    return build_for(supported_major_versions=[9, 10]) and args.go\n",
        _HEAD + "def enabled(args):\n"
        "    return build_for(supported_major_versions=[9, 10, 12]) and args.go\n",
        ("sm90", "sm100", "sm120"),
    ),
]

NOOPS = [
    (
        _HEAD + "def enabled(args):\n"
        "    return build_for(supported_major_versions=[9, 10]) and args.go\n",
        "says what a kernel is built for",
    ),
    # Integers compared with a string: no entry makes the call true anywhere.
    (
        _HEAD + "def enabled(args, dev):\n    return _match_sm_version(dev, [100]) and args.go\n",
        "no entry added to `[100]` makes `_match_sm_version(dev, [100])` admit",
        ("sm100", "sm120"),
    ),
]

_BUILD_LIST = re.compile(r"supported_major_versions|compute_capabilit|supported_arch|arch_list")


def fix(ctx: Context, target: nodes.NodeNG) -> Fix | None:
    if not isinstance(target, nodes.Call):
        return None
    lists = [
        (keyword, value)
        for keyword, value in [
            *((None, a) for a in target.args),
            *((k.arg, k.value) for k in target.keywords or []),
        ]
        if isinstance(value, (nodes.List, nodes.Tuple, nodes.Set))
        and value.elts
        and all(isinstance(e, nodes.Const) and type(e.value) in (int, str) for e in value.elts)
    ]
    if len(lists) != 1:
        return None
    keyword, literal = lists[0]
    spelled = f"{target.func.as_string()}({keyword or ''}"
    if _BUILD_LIST.search(spelled) and not ctx.force:
        raise Refuse(
            f"`{literal.as_string()}` says what a kernel is built for: add a generation there "
            "only when the kernel is built for it (use --force to widen anyway)"
        )
    for texts in _spellings(ctx, literal):
        admits = candidate_admits(ctx, target, _with_elements(ctx, target, literal, texts))
        if fits(ctx, admits):
            append_elements(ctx, literal, texts)
            forced = " (--force: make sure the kernel is built for it)" if ctx.force else ""
            return Fix(admits, f"added {', '.join(texts)} to `{literal.as_string()}`{forced}")
    raise Refuse(
        f"no entry added to `{literal.as_string()}` makes `{target.as_string()}` admit "
        f"{', '.join(ctx.semantics.registry.ordered(ctx.missing))} alone"
    )


def _spellings(ctx: Context, literal: nodes.NodeNG) -> list[list[str]]:
    """The entries for the missing generations, each way the list may spell them."""
    registry = ctx.semantics.registry
    missing = [registry.get(g) for g in registry.ordered(ctx.missing)]
    first = literal.elts[0].value
    # "100a" among "90a": the same suffix; among strings a number is spelled as a string
    suffix = re.sub(r"^\d+", "", first) if isinstance(first, str) else ""
    ways: list[list[str]] = []
    for number_of in (lambda g: g.sm_version, lambda g: g.major):
        entries: list[str] = []
        for generation in missing:
            number = number_of(generation)
            entry = spelled_like(ctx, literal.elts[0], f"{number}{suffix}" if suffix else number)
            if entry not in entries and entry not in [source_of(ctx, e) for e in literal.elts]:
                entries.append(entry)
        if entries and entries not in ways:
            ways.append(entries)
    return ways


def _with_elements(ctx: Context, call: nodes.Call, literal: nodes.NodeNG, texts: list[str]) -> str:
    """The call's source with the entries added (one line is enough to read it)."""
    whole = source_of(ctx, call)
    inner = source_of(ctx, literal)
    opening, closing = inner[0], inner[-1]
    elements = ", ".join([*(source_of(ctx, e) for e in literal.elts), *texts])
    before = whole.index(inner)
    return f"({whole[:before]}{opening}{elements}{closing}{whole[before + len(inner) :]})"
