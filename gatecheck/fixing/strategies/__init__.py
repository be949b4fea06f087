"""Fix strategies, one shape each, tried in order: the first that recognises the shape
answers (with a fix or a refusal saying why). Each module carries EXAMPLES (source,
fixed source) and NOOPS (source, refusal reason), which tests/test_fix_strategies.py
turns into tests. Adding a shape = one module here + its examples + its place in ORDER."""

from __future__ import annotations

from astroid import nodes

from gatecheck.fixing.strategies import (
    arch_list_arg,
    capability_list,
    declared_list,
    follow,
    or_chain,
    platform_method,
    predicate_or,
)
from gatecheck.fixing.strategies.base import Context, Fix, Refuse

# Declarations first (their lists are no conditions); then follow: a helper or local name
# is fixed where its allowlist is written.
ORDER = (
    declared_list,
    follow,
    predicate_or,
    platform_method,
    or_chain,
    capability_list,
    arch_list_arg,
)


def extend(ctx: Context, target: nodes.NodeNG) -> Fix:
    """Make `target` admit ctx.missing, by the first strategy that knows its shape."""
    for strategy in ORDER:
        found = strategy.fix(ctx, target)
        if found is not None:
            return found
    if isinstance(target, nodes.UnaryOp) and target.op == "not":
        raise Refuse(
            f"`{target.as_string()}` excludes the generation by negation; "
            "that looks deliberate, so it is not widened automatically"
        )
    if isinstance(target, nodes.BoolOp) and target.op == "or":
        raise Refuse(
            f"or-chain `{target.as_string()}` mixes shapes no strategy extends "
            "(predicates, capability comparisons, platform methods)"
        )
    raise Refuse(f"gate shape `{target.as_string()}` is not understood well enough to widen safely")
