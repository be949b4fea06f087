"""Choosing what to add: the narrowest predicate the module already has, or the twin
attribute on the same facts object, each read for what it admits."""

from __future__ import annotations

from collections.abc import Sequence

from astroid import nodes

from gatecheck.fixing.strategies.base import (
    Context,
    Refuse,
    candidate_admits,
    digits,
    extra_of,
    fits,
    source_of,
)
from gatecheck.semantics.predicates import ScopePredicate, module_predicates


def usage(predicate: ScopePredicate) -> str:
    return f"{predicate.name}()" if predicate.form == "call" else predicate.name


def narrowest(ctx: Context, candidates: Sequence[ScopePredicate]) -> ScopePredicate | None:
    covering = [p for p in candidates if fits(ctx, p.admits)]
    if not covering:
        return None
    return min(covering, key=lambda p: (extra_of(ctx, p.admits), p.line))


def in_scope(ctx: Context, form: str, used: set[str]) -> list[ScopePredicate]:
    return [
        p
        for p in module_predicates(ctx.module, ctx.semantics)
        if p.form == form and usage(p) not in used and p.name not in used
    ]


def narrowest_call(ctx: Context, exclude: str) -> tuple[str, frozenset[str]] | None:
    best = narrowest(ctx, in_scope(ctx, "call", {exclude}))
    return None if best is None else (best.name, best.admits)


def attribute_twin(ctx: Context, sibling: nodes.Attribute) -> tuple[str, frozenset[str]]:
    """`get_platform().is_sm100` -> `is_sm120` on the same object, when that attribute
    exists and admits the missing generations and nothing beyond their majors."""
    old = digits(sibling.attrname)
    tried: list[str] = []
    for gen in ctx.semantics.registry.ordered(ctx.missing):
        name = sibling.attrname.replace(old, digits(gen), 1)
        if name in tried or name == sibling.attrname:
            continue
        tried.append(name)
        admits = candidate_admits(ctx, sibling, f"{source_of(ctx, sibling.expr)}.{name}")
        if fits(ctx, admits):
            return name, admits
    shown = ", ".join(f"`{n}`" for n in tried) or "no name"
    raise Refuse(
        f"`{sibling.as_string()}` has no twin for {', '.join(sorted(ctx.missing))} "
        f"on the same object (tried {shown})"
    )
