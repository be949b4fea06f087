"""No predicate for the generation in scope: import it beside its siblings
(`from m import is_sm90_supported, is_sm100_supported` + `is_sm120_supported`), when the
module it comes from defines it and its body admits the generation."""

from __future__ import annotations

import re
from typing import Any

from astroid import nodes

from gatecheck.findings import Edit
from gatecheck.fixing.strategies.base import (
    Context,
    Refuse,
    candidate_admits,
    codec,
    extra_of,
    fits,
    source_of,
)
from gatecheck.loading.resolve import absolute_import_name, imported_name
from gatecheck.semantics.values import ClassRef, ExternalRef, FunctionRef, PartialRef


def import_sibling_function(ctx: Context, sibling: nodes.NodeNG) -> tuple[str, frozenset[str]]:
    if not (isinstance(sibling, nodes.Call) and isinstance(sibling.func, nodes.Name)):
        raise Refuse(
            f"no predicate for the missing generation is in scope beside `{sibling.as_string()}`"
        )
    name = str(sibling.func.name)
    found = [n for n in ctx.module.locals.get(name, []) if isinstance(n, nodes.ImportFrom)]
    if not found:
        raise Refuse(
            f"no predicate for the missing generation is in scope, and `{name}` is not imported"
        )
    statement = found[-1]
    source_module = absolute_import_name(statement)
    original = imported_name(statement, name) or name
    candidate = _sibling_in_module(ctx, source_module, original)
    if candidate is None:
        raise Refuse(
            f"`{source_module}` has no predicate beside `{original}` that admits "
            f"{', '.join(sorted(ctx.missing))}"
        )
    new_name, admits = candidate
    if new_name in ctx.module.locals:
        raise Refuse(f"`{new_name}` is already bound in this module to something else")
    ctx.edits.append(_add_import_name(ctx, statement, original, new_name))
    return new_name, admits


def _sibling_in_module(
    ctx: Context, module_name: str, sibling: str
) -> tuple[str, frozenset[str]] | None:
    """Names module_name defines that look like the sibling with another generation
    number (is_sm100_supported -> is_sm120_supported), verified by their bodies."""
    number = re.search(r"\d+", sibling)
    if number is None:
        return None
    options: list[tuple[int, str, frozenset[str]]] = []
    registry = ctx.semantics.registry
    numbers: list[str] = []
    for gen in registry.ordered(ctx.missing):
        # is_sm103_supported, or the major's is_sm100_supported (which may admit sm103)
        for each in (re.sub(r"\D", "", gen), str(registry.get(gen).major * 10)):
            if each not in numbers:
                numbers.append(each)
    for each in numbers:
        candidate = sibling[: number.start()] + each + sibling[number.end() :]
        admits = _call_admits(ctx, module_name, candidate)
        if admits and fits(ctx, admits):
            options.append((extra_of(ctx, admits), candidate, admits))
    if not options:
        return None
    _extra, name, admits = min(options)
    return name, admits


def _call_admits(ctx: Context, module_name: str, name: str) -> frozenset[str]:
    semantics = ctx.semantics
    module = semantics.project.module(module_name)
    if module is None:
        return frozenset()  # no body to read: do not import a name that may not exist
    # What the name is bound to does not depend on the generation: ask one evaluator.
    value = semantics.evaluator(semantics.registry.names[0]).module_attribute(module_name, name)
    if not isinstance(value, (FunctionRef, PartialRef, ExternalRef)) or isinstance(value, ClassRef):
        return frozenset()
    admits = candidate_admits(ctx, module, f"{name}()")
    return frozenset() if admits == semantics.registry.all_names() else admits


def _natural_key(name: str) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _add_import_name(ctx: Context, statement: nodes.ImportFrom, sibling: str, new: str) -> Edit:
    """Insert `new` into `from m import (...)` in natural order, keeping the layout
    (one name per line stays one name per line, with the same indentation)."""
    text = source_of(ctx, statement)
    start = ctx.raw.offset(statement.lineno, statement.col_offset)
    names = [n for n, _alias in statement.names]
    after = None
    for name in names:
        if _natural_key(name) < _natural_key(new):
            after = name
    anchor_name = after or names[0]
    # After the keyword: `from pkg.is_sm100 import is_sm100` names it twice.
    keyword = re.search(r"\bimport\b", text)
    assert keyword is not None, text
    pattern = rf"\b{re.escape(anchor_name)}\b(\s+as\s+\w+)?"
    match = re.compile(pattern).search(text, keyword.end())
    assert match is not None, (anchor_name, text)  # every imported name is spelled there

    def at(index: int) -> int:
        return start + len(text[:index].encode(codec(ctx)))

    multiline = statement.lineno != statement.end_lineno and "\n" in text
    if multiline and after is not None:
        line_start = text.rfind("\n", 0, match.start()) + 1
        indent = text[line_start : match.start()]
        if text[match.end() : match.end() + 1] != ",":
            # `(..., last\n)` or `(...,\n    last)`: keep the no-trailing-comma style.
            offset = at(match.end())
            return Edit(ctx.raw.path, offset, offset, f",{ctx.raw.newline}{indent}{new}")
        line_end = text.find("\n", match.end())
        if line_end == -1:
            # `(...,\n    last,)`: the new name on a line of its own, the bracket stays.
            offset = at(match.end() + 1)
            return Edit(ctx.raw.path, offset, offset, f"{ctx.raw.newline}{indent}{new},")
        offset = at(len(text[:line_end].rstrip("\r")))
        return Edit(ctx.raw.path, offset, offset, f"{ctx.raw.newline}{indent}{new},")
    if after is None:
        offset = at(match.start())
        return Edit(ctx.raw.path, offset, offset, f"{new}, ")
    offset = at(match.end())
    return Edit(ctx.raw.path, offset, offset, f", {new}")
