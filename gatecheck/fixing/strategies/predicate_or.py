"""`is_sm90_supported() or is_sm100_supported()` -> `... or is_sm120_supported()`: an
or-chain (or a lone operand) of predicate calls, aliases or facts attributes gets the
sibling the module already has, or imports it beside its siblings, or adds a twin alias."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from astroid import nodes

from gatecheck.fixing.strategies import alias_twin, imports
from gatecheck.fixing.strategies.base import (
    Context,
    Fix,
    Refuse,
    add_alternatives,
    by_major,
    digits,
    source_of,
)
from gatecheck.fixing.strategies.choose import attribute_twin, in_scope, narrowest, usage

NAME = "predicate-or"

MODULES = {
    "pkg.utils": (
        "import torch\n"
        "def _major():\n    return torch.cuda.get_device_capability()[0]\n"
        "def is_sm90_supported():\n    return _major() == 9\n"
        "def is_sm100_supported():\n    return _major() == 10\n"
        "def is_sm120_supported():\n    return _major() == 12\n"
        "def is_blackwell():\n    return _major() in (10, 11, 12)\n"
    ),
    "pkg.few": (
        "import torch\n"
        "def is_sm90_supported():\n    return torch.cuda.get_device_capability()[0] == 9\n"
    ),
}

_HEAD = "from pkg.utils import is_sm90_supported, is_sm100_supported, is_sm120_supported\n"

_CHAIN = "    return (\n        is_sm90_supported()\n        or is_sm100_supported()\n"

EXAMPLES = [
    (
        _HEAD + "def enabled(args):\n" + _CHAIN + "    ) and args.go\n",
        _HEAD + "def enabled(args):\n" + _CHAIN + "        or is_sm120_supported()\n"
        "    ) and args.go\n",
    ),
    # Not imported yet: imported beside its siblings, in natural order.
    (
        "from pkg.utils import is_sm90_supported, is_sm100_supported\n"
        "def enabled(args):\n" + _CHAIN + "    ) and args.go\n",
        _HEAD + "def enabled(args):\n" + _CHAIN + "        or is_sm120_supported()\n"
        "    ) and args.go\n",
    ),
    # A lone predicate conjunct gets parentheses.
    (
        _HEAD + "def enabled(args):\n    return is_sm100_supported() and args.go\n",
        _HEAD + "def enabled(args):\n"
        "    return (is_sm100_supported() or is_sm120_supported()) and args.go\n",
        ("sm100", "sm120"),
    ),
    # sm103 and sm120 missing beside sm90: one predicate per major, both imported.
    (
        "from pkg.utils import is_sm90_supported\n"
        "def enabled(args):\n    return is_sm90_supported() and args.go\n",
        _HEAD + "def enabled(args):\n    return (\n        is_sm90_supported()\n"
        "        or is_sm100_supported()\n        or is_sm120_supported()\n    ) and args.go\n",
        ("sm90", "sm103", "sm120"),
    ),
    # Imported in brackets, the last sibling on the closing line: the bracket stays there.
    (
        "from pkg.utils import (is_sm90_supported,\n    is_sm100_supported)\n"
        "def enabled(args):\n    return is_sm100_supported() and args.go\n",
        "from pkg.utils import (is_sm90_supported,\n    is_sm100_supported,\n"
        "    is_sm120_supported)\n"
        "def enabled(args):\n"
        "    return (is_sm100_supported() or is_sm120_supported()) and args.go\n",
        ("sm100", "sm120"),
    ),
    (
        "from pkg.utils import (is_sm90_supported,\n    is_sm100_supported,)\n"
        "def enabled(args):\n    return is_sm100_supported() and args.go\n",
        "from pkg.utils import (is_sm90_supported,\n    is_sm100_supported,\n"
        "    is_sm120_supported,)\n"
        "def enabled(args):\n"
        "    return (is_sm100_supported() or is_sm120_supported()) and args.go\n",
        ("sm100", "sm120"),
    ),
]

NOOPS = [
    (
        "from pkg.few import is_sm90_supported\n"
        "def enabled(args):\n    return is_sm90_supported() and args.go\n",
        "`pkg.few` has no predicate beside `is_sm90_supported` that admits sm100",
    ),
]


def fix(ctx: Context, target: nodes.NodeNG) -> Fix | None:
    if isinstance(target, nodes.BoolOp) and target.op == "or":
        siblings: Sequence[nodes.NodeNG] = target.values
    elif isinstance(target, (nodes.Name, nodes.Call, nodes.Attribute)):
        siblings = [target]
    else:
        return None
    style = _style(siblings[-1])
    if style is None:
        return None
    kept = len(ctx.edits)
    try:
        text, adds = predicate_for(ctx, siblings, style)
        texts = [text]
    except Refuse:
        groups = by_major(ctx)
        if len(groups) < 2:
            raise
        # sm103 and sm120 missing: one predicate per major (none admits both alone).
        del ctx.edits[kept:]
        texts, adds = [], frozenset()
        for group in groups:
            text, admits = predicate_for(dataclasses.replace(ctx, missing=group), siblings, style)
            texts.append(text)
            adds |= admits
    add_alternatives(ctx, target, texts)
    return Fix(adds, f"added `{' or '.join(texts)}` to `{target.as_string()}`")


def _style(last: nodes.NodeNG) -> str | None:
    if isinstance(last, nodes.Call) and not last.args and not last.keywords:
        return "call"
    if isinstance(last, nodes.Name):
        return "alias"
    if isinstance(last, nodes.Attribute) and digits(last.attrname):
        return "attribute"
    return None


def predicate_for(
    ctx: Context, siblings: Sequence[nodes.NodeNG], style: str
) -> tuple[str, frozenset[str]]:
    best = narrowest(ctx, in_scope(ctx, style, {s.as_string() for s in siblings}))
    if best is not None:
        return usage(best), best.admits
    last = siblings[-1]
    if style == "alias":
        assert isinstance(last, nodes.Name)
        return alias_twin.new_alias(ctx, last)
    if style == "attribute":
        assert isinstance(last, nodes.Attribute)
        name, admits = attribute_twin(ctx, last)
        return f"{source_of(ctx, last.expr)}.{name}", admits
    name, admits = imports.import_sibling_function(ctx, last)
    return f"{name}()", admits
