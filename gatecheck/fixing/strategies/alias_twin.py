"""`_is_sm100_supported = _is_cuda and is_sm100_supported()` exists and the gate reads
the alias: add the sm120 twin on the next line, importing its function if needed."""

from __future__ import annotations

import re

from astroid import nodes

from gatecheck.findings import Edit
from gatecheck.fixing.strategies import imports
from gatecheck.fixing.strategies.base import Context, Refuse, digits, source_of
from gatecheck.fixing.strategies.choose import attribute_twin, narrowest_call


def new_alias(ctx: Context, sibling: nodes.Name) -> tuple[str, frozenset[str]]:
    statements = [
        node.parent
        for node in ctx.module.locals.get(sibling.name, [])
        if isinstance(node, nodes.AssignName) and isinstance(node.parent, nodes.Assign)
    ]
    if not statements:
        raise Refuse(f"`{sibling.name}` is not a module-level alias; cannot add a twin")
    statement = statements[-1]
    wrapped = [
        call
        for call in statement.value.nodes_of_class(nodes.Call)
        if isinstance(call.func, nodes.Name) and digits(call.func.name)
    ]
    facts = [
        attribute
        for attribute in statement.value.nodes_of_class(nodes.Attribute)
        if digits(attribute.attrname)
    ]
    if wrapped:
        function = str(wrapped[-1].func.name)
        new_function, admits = _function_in_scope_or_import(ctx, wrapped[-1])
    elif facts:
        # `_is_sm100_supported = _is_cuda and get_platform().is_sm100`
        function = str(facts[-1].attrname)
        new_function, admits = attribute_twin(ctx, facts[-1])
    else:
        raise Refuse(f"alias `{sibling.name}` does not wrap a predicate call; cannot add a twin")
    alias = twin_name(sibling.name, function, new_function)
    if alias in ctx.module.locals:
        raise Refuse(f"`{alias}` exists but does not admit the generation")
    text = source_of(ctx, statement)
    text = _rename(text, sibling.name, alias, count=1)
    text = _rename(text, function, new_function)
    line_end = ctx.raw.offset(statement.end_lineno, 0) + len(
        ctx.raw.line_bytes(statement.end_lineno)
    )
    indent = " " * statement.col_offset
    ctx.edits.append(Edit(ctx.raw.path, line_end, line_end, f"{indent}{text}{ctx.raw.newline}"))
    return alias, admits


def _function_in_scope_or_import(ctx: Context, call: nodes.Call) -> tuple[str, frozenset[str]]:
    best = narrowest_call(ctx, exclude=call.func.as_string())
    if best is not None:
        return best
    return imports.import_sibling_function(ctx, call)


def twin_name(alias: str, function: str, new_function: str) -> str:
    """_is_sm100_supported -> _is_sm120_supported; _is_sm100 -> _is_sm120."""
    if function in alias:
        return alias.replace(function, new_function)
    old, new = digits(function), digits(new_function)
    if old and new and old in alias:
        return alias.replace(old, new, 1)
    raise Refuse(f"cannot name a twin of `{alias}` for `{new_function}`")


def _rename(text: str, old: str, new: str, count: int = 0) -> str:
    return re.sub(rf"\b{re.escape(old)}\b", new, text, count=count)
