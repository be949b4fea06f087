"""Plan the smallest edit that makes one failing gate admit its missing generations, in
the idiom the module already uses (pyupgrade's `replace_condition`: insert, don't reprint).

A plan is data: a list of Edits plus what the fix adds. Shapes the planner does not fully
understand get a refusal with the reason, never a guess."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from astroid import nodes

from gatecheck.engine import Analysis, GateResult
from gatecheck.findings import Edit
from gatecheck.fixing.text import RawText
from gatecheck.gates.model import Polarity
from gatecheck.loading.resolve import absolute_import_name, imported_name
from gatecheck.semantics.culprit import culprit
from gatecheck.semantics.predicates import ScopePredicate, module_predicates
from gatecheck.semantics.values import (
    UNKNOWN,
    ClassRef,
    ExternalRef,
    FunctionRef,
    PartialRef,
    truth,
)


@dataclass(frozen=True)
class Plan:
    path: Path
    edits: tuple[Edit, ...]
    # Generations the edited gate admits in addition (the request plus what the added
    # predicate brings along, e.g. sm121 with is_sm120_supported).
    adds: frozenset[str]
    summary: str


@dataclass(frozen=True)
class Refusal:
    reason: str


class _Refuse(Exception):
    pass


@dataclass
class _Context:
    analysis: Analysis
    result: GateResult
    module: nodes.Module
    raw: RawText
    missing: frozenset[str]
    edits: list[Edit] = field(default_factory=list)


def plan_fix(analysis: Analysis, result: GateResult) -> Plan | Refusal:
    gate = result.gate
    module = gate.condition.root()
    source = analysis.project.source(gate.path)
    if not isinstance(module, nodes.Module) or source is None:
        return Refusal("source not available")
    ctx = _Context(
        analysis, result, module, RawText(source.path, source.raw, source.encoding), result.missing
    )
    try:
        adds, summary = _plan(ctx)
    except _Refuse as refusal:
        return Refusal(str(refusal))
    return Plan(gate.path, tuple(ctx.edits), adds, summary)


def _plan(ctx: _Context) -> tuple[frozenset[str], str]:
    gate = ctx.result.gate
    semantics = ctx.analysis.semantics
    first = semantics.registry.ordered(ctx.missing)[0]
    from gatecheck.engine import flag_assumptions

    evaluator = semantics.evaluator(first, flag_assumptions(ctx.result.feature, gate.polarity))
    needs_true = gate.polarity is Polarity.ENABLES
    target = culprit(gate.condition, evaluator, needs=needs_true)
    if not needs_true:
        if isinstance(target, nodes.UnaryOp) and target.op == "not":
            target = target.operand  # `if not X: bail` -> X must admit the generation
        else:
            raise _Refuse(
                f"disabling gate shape `{target.as_string()}` is not understood: "
                "only `not <predicate>` bail-outs are fixed automatically"
            )
    return _extend(ctx, target)


def _extend(ctx: _Context, target: nodes.NodeNG) -> tuple[frozenset[str], str]:
    if isinstance(target, nodes.BoolOp) and target.op == "or":
        text, adds = _predicate_for(ctx, target.values)
        last = target.values[-1]
        ctx.edits.append(_insert_after(ctx, last, f" or {text}"))
        return adds, f"added `{text}` to `{target.as_string()}`"
    if isinstance(target, nodes.Compare) and len(target.ops) == 1:
        return _extend_compare(ctx, target)
    if isinstance(target, nodes.Compare):
        raise _Refuse(
            f"range `{target.as_string()}`: widening it would also admit generations in "
            "between; edit by hand"
        )
    if isinstance(target, (nodes.Name, nodes.Call, nodes.Attribute)):
        text, adds = _predicate_for(ctx, [target])
        if _needs_parens(target):
            ctx.edits.append(_insert_before(ctx, target, "("))
            ctx.edits.append(_insert_after(ctx, target, f" or {text})"))
        else:
            ctx.edits.append(_insert_after(ctx, target, f" or {text}"))
        return adds, f"added `{text}` beside `{target.as_string()}`"
    if isinstance(target, nodes.UnaryOp) and target.op == "not":
        raise _Refuse(
            f"`{target.as_string()}` excludes the generation by negation; "
            "that looks deliberate, so it is not widened automatically"
        )
    raise _Refuse(
        f"gate shape `{target.as_string()}` is not understood well enough to widen safely"
    )


def _needs_parens(node: nodes.NodeNG) -> bool:
    parent = node.parent
    if isinstance(parent, nodes.BoolOp):
        return parent.op == "and"
    return isinstance(
        parent, (nodes.UnaryOp, nodes.Compare, nodes.BinOp, nodes.Subscript, nodes.Attribute)
    )


# -- capability comparisons ----------------------------------------------------------------


def _extend_compare(ctx: _Context, compare: nodes.Compare) -> tuple[frozenset[str], str]:
    op, right = compare.ops[0]
    values = _values_for_missing(ctx, compare.left)
    if op == "==":
        right_src = _source_of(ctx, right)
        rendered = ", ".join([right_src, *(repr(v) for v in values)])
        start = ctx.raw.offset(compare.left.end_lineno, compare.left.end_col_offset)
        end = ctx.raw.offset(right.end_lineno, right.end_col_offset)
        ctx.edits.append(Edit(ctx.raw.path, start, end, f" in ({rendered})"))
        return (
            allowed_extra(ctx),
            f"`{compare.as_string()}` now also accepts {', '.join(map(repr, values))}",
        )
    if op == "in" and isinstance(right, (nodes.Tuple, nodes.List, nodes.Set)) and right.elts:
        insertion = "".join(f", {v!r}" for v in values)
        ctx.edits.append(_insert_after(ctx, right.elts[-1], insertion))
        return allowed_extra(ctx), f"added {', '.join(map(repr, values))} to `{right.as_string()}`"
    if op == "in" and isinstance(right, nodes.Name):
        raise _Refuse(
            f"the allowlist is the named constant `{right.name}`: extend it where it is "
            "defined (it may serve other gates too)"
        )
    raise _Refuse(
        f"range or inequality `{compare.as_string()}`: widening it would also admit "
        "generations in between; edit by hand"
    )


def _values_for_missing(ctx: _Context, expr: nodes.NodeNG) -> list[Any]:
    values: list[Any] = []
    for gen in ctx.analysis.semantics.registry.ordered(ctx.missing):
        value = ctx.analysis.semantics.evaluator(gen).value(expr)
        if value is UNKNOWN or not isinstance(value, (int, tuple, str)):
            raise _Refuse(f"cannot tell what `{expr.as_string()}` is on {gen}")
        if isinstance(value, tuple):
            value = tuple(value)  # Capability -> plain tuple for repr
        if value not in values:
            values.append(value)
    return values


# -- predicates ----------------------------------------------------------------------------


def _style(siblings: Sequence[nodes.NodeNG]) -> str:
    last = siblings[-1]
    if isinstance(last, nodes.Call) and not last.args and not last.keywords:
        return "call"
    if isinstance(last, nodes.Name):
        return "alias"
    if isinstance(last, nodes.Attribute) and _digits(last.attrname):
        return "attribute"
    raise _Refuse(f"operand `{last.as_string()}` is neither a predicate call nor an alias")


def _predicate_for(ctx: _Context, siblings: Sequence[nodes.NodeNG]) -> tuple[str, frozenset[str]]:
    style = _style(siblings)
    used = {s.as_string() for s in siblings}
    excluded = set(ctx.result.feature.exclude)
    in_scope = [
        p
        for p in module_predicates(ctx.module, ctx.analysis.semantics)
        if p.form == style and _usage(p) not in used and not (p.admits & excluded)
    ]
    best = _narrowest(in_scope, ctx)
    if best is not None:
        return _usage(best), best.admits
    if style == "alias":
        return _new_alias(ctx, siblings)
    if style == "attribute":
        last = siblings[-1]
        assert isinstance(last, nodes.Attribute)
        name, admits = _attribute_twin(ctx, last)
        return f"{_source_of(ctx, last.expr)}.{name}", admits
    name, admits = _import_sibling_function(ctx, siblings[-1])
    return f"{name}()", admits


def _usage(predicate: ScopePredicate) -> str:
    return f"{predicate.name}()" if predicate.form == "call" else predicate.name


def allowed_extra(ctx: _Context) -> frozenset[str]:
    """What a fix may bring along besides the missing generations: their same-major
    siblings (is_sm120_supported also admits sm121), nothing from another major."""
    registry = ctx.analysis.semantics.registry
    majors = {(registry.get(g).vendor, registry.get(g).major) for g in ctx.missing}
    return frozenset(g.name for g in registry.generations if (g.vendor, g.major) in majors) - set(
        ctx.result.feature.exclude
    )


def _narrowest(candidates: Sequence[ScopePredicate], ctx: _Context) -> ScopePredicate | None:
    within = allowed_extra(ctx) | ctx.result.feature_admits
    covering = [p for p in candidates if ctx.missing <= p.admits and p.admits <= within]
    if not covering:
        return None
    admitted = ctx.result.feature_admits
    return min(covering, key=lambda p: (len(p.admits - ctx.missing - admitted), p.line))


def _new_alias(ctx: _Context, siblings: Sequence[nodes.NodeNG]) -> tuple[str, frozenset[str]]:
    """`_is_sm100_supported = _is_cuda and is_sm100_supported()` exists: add the sm120
    twin beside it, importing its function if needed."""
    sibling = siblings[-1]
    assert isinstance(sibling, nodes.Name)
    statements = [
        node.parent
        for node in ctx.module.locals.get(sibling.name, [])
        if isinstance(node, nodes.AssignName) and isinstance(node.parent, nodes.Assign)
    ]
    if not statements:
        raise _Refuse(f"`{sibling.name}` is not a module-level alias; cannot add a twin")
    statement = statements[-1]
    wrapped = [
        call
        for call in statement.value.nodes_of_class(nodes.Call)
        if isinstance(call.func, nodes.Name) and _digits(call.func.name)
    ]
    facts = [
        attribute
        for attribute in statement.value.nodes_of_class(nodes.Attribute)
        if _digits(attribute.attrname)
    ]
    if wrapped:
        function = str(wrapped[-1].func.name)
        new_function, admits = _function_in_scope_or_import(ctx, wrapped[-1])
    elif facts:
        # `_is_sm100_supported = _is_cuda and get_platform().is_sm100`
        function = str(facts[-1].attrname)
        new_function, admits = _attribute_twin(ctx, facts[-1])
    else:
        raise _Refuse(f"alias `{sibling.name}` does not wrap a predicate call; cannot add a twin")
    new_alias = _twin_name(sibling.name, function, new_function)
    if new_alias in ctx.module.locals:
        raise _Refuse(f"`{new_alias}` exists but does not admit the generation")
    text = _statement_source(ctx, statement)
    new_text = re.sub(rf"\b{re.escape(sibling.name)}\b", new_alias, text, count=1)
    new_text = re.sub(rf"\b{re.escape(function)}\b", new_function, new_text)
    line_end = ctx.raw.offset(statement.end_lineno, 0) + len(
        ctx.raw.line_bytes(statement.end_lineno)
    )
    indent = " " * statement.col_offset
    ctx.edits.append(Edit(ctx.raw.path, line_end, line_end, f"{indent}{new_text}{ctx.raw.newline}"))
    return new_alias, admits


def _attribute_twin(ctx: _Context, sibling: nodes.Attribute) -> tuple[str, frozenset[str]]:
    """`get_platform().is_sm100` -> `is_sm120` on the same object, when that attribute
    exists and its value admits the missing generations and nothing beyond their majors
    (read per generation, like any condition)."""
    semantics = ctx.analysis.semantics
    old = _digits(sibling.attrname)
    within = allowed_extra(ctx) | ctx.result.feature_admits
    tried: list[str] = []
    for gen in semantics.registry.ordered(ctx.missing):
        name = sibling.attrname.replace(old, _digits(gen), 1)
        if name in tried or name == sibling.attrname:
            continue
        tried.append(name)
        admits: set[str] = set()
        for each in semantics.registry.names:
            evaluator = semantics.evaluator(each)
            value = evaluator.attribute(evaluator.value(sibling.expr), name)
            if truth(value) is not False:
                admits.add(each)
        if ctx.missing <= admits <= within:
            return name, frozenset(admits)
    shown = ", ".join(f"`{n}`" for n in tried) or "no name"
    raise _Refuse(
        f"`{sibling.as_string()}` has no twin for {', '.join(sorted(ctx.missing))} "
        f"on the same object (tried {shown})"
    )


def _digits(name: str) -> str:
    found = re.search(r"\d+", name)
    return found.group(0) if found else ""


def _twin_name(alias: str, function: str, new_function: str) -> str:
    """_is_sm100_supported -> _is_sm120_supported; _is_sm100 -> _is_sm120."""
    if function in alias:
        return alias.replace(function, new_function)
    old, new = _digits(function), _digits(new_function)
    if old and new and old in alias:
        return alias.replace(old, new, 1)
    raise _Refuse(f"cannot name a twin of `{alias}` for `{new_function}`")


def _function_in_scope_or_import(
    ctx: _Context, sibling_call: nodes.Call
) -> tuple[str, frozenset[str]]:
    excluded = set(ctx.result.feature.exclude)
    in_scope = [
        p
        for p in module_predicates(ctx.module, ctx.analysis.semantics)
        if p.form == "call"
        and not (p.admits & excluded)
        and p.name != sibling_call.func.as_string()
    ]
    best = _narrowest(in_scope, ctx)
    if best is not None:
        return best.name, best.admits
    return _import_sibling_function(ctx, sibling_call)


def _import_sibling_function(ctx: _Context, sibling: nodes.NodeNG) -> tuple[str, frozenset[str]]:
    if not (isinstance(sibling, nodes.Call) and isinstance(sibling.func, nodes.Name)):
        raise _Refuse(
            f"no predicate for the missing generation is in scope beside `{sibling.as_string()}`"
        )
    name = str(sibling.func.name)
    imports = [n for n in ctx.module.locals.get(name, []) if isinstance(n, nodes.ImportFrom)]
    if not imports:
        raise _Refuse(
            f"no predicate for the missing generation is in scope, and `{name}` is not imported"
        )
    statement = imports[-1]
    source_module = absolute_import_name(statement)
    original = imported_name(statement, name) or name
    candidate = _sibling_in_module(ctx, source_module, original)
    if candidate is None:
        raise _Refuse(
            f"`{source_module}` has no predicate beside `{original}` that admits "
            f"{', '.join(sorted(ctx.missing))}"
        )
    new_name, admits = candidate
    if new_name in ctx.module.locals:
        raise _Refuse(f"`{new_name}` is already bound in this module to something else")
    ctx.edits.append(_add_import_name(ctx, statement, original, new_name))
    return new_name, admits


def _sibling_in_module(
    ctx: _Context, module_name: str, sibling: str
) -> tuple[str, frozenset[str]] | None:
    """Names exported by module_name that look like the sibling with another generation
    number (is_sm100_supported -> is_sm120_supported), verified by their bodies."""
    semantics = ctx.analysis.semantics
    excluded = set(ctx.result.feature.exclude)
    digits = re.search(r"\d+", sibling)
    if digits is None:
        return None
    options: list[tuple[int, str, frozenset[str]]] = []
    for gen in semantics.registry.ordered(ctx.missing):
        number = re.sub(r"\D", "", gen)
        for candidate in {sibling[: digits.start()] + number + sibling[digits.end() :]}:
            admits = _call_admits(ctx, module_name, candidate)
            within = allowed_extra(ctx) | ctx.result.feature_admits
            if admits and ctx.missing <= admits <= within and not admits & excluded:
                extra = len(admits - ctx.missing - ctx.result.feature_admits)
                options.append((extra, candidate, admits))
    if not options:
        return None
    _extra, name, admits = min(options)
    return name, admits


def _call_admits(ctx: _Context, module_name: str, name: str) -> frozenset[str]:
    semantics = ctx.analysis.semantics
    admits: set[str] = set()
    for gen in semantics.registry.names:
        evaluator = semantics.evaluator(gen)
        value = evaluator.module_attribute(module_name, name)
        if not isinstance(value, (FunctionRef, PartialRef, ExternalRef)) or isinstance(
            value, ClassRef
        ):
            return frozenset()
        if isinstance(value, ExternalRef) and not semantics.project.has_module(module_name):
            return frozenset()  # no body to read: do not import a name that may not exist
        if truth(evaluator.call(value, [], {})) is not False:
            admits.add(gen)
    if admits == semantics.registry.all_names():
        return frozenset()
    return frozenset(admits)


def _natural_key(name: str) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _add_import_name(
    ctx: _Context, statement: nodes.ImportFrom, sibling: str, new_name: str
) -> Edit:
    """Insert `new_name` into `from m import (...)` in natural order, keeping the layout
    (one name per line stays one name per line, with the same indentation)."""
    text = _statement_source(ctx, statement)
    start = ctx.raw.offset(statement.lineno, statement.col_offset)
    names = [n for n, _alias in statement.names]
    after = None
    for name in names:
        if _natural_key(name) < _natural_key(new_name):
            after = name
    anchor_name = after or names[0]
    match = re.search(rf"\b{re.escape(anchor_name)}\b(\s+as\s+\w+)?", text)
    if match is None:
        raise _Refuse(f"cannot find `{anchor_name}` in its import statement")
    multiline = statement.lineno != statement.end_lineno and "\n" in text
    if multiline and after is not None:
        line_start = text.rfind("\n", 0, match.start()) + 1
        indent = text[line_start : match.start()]
        has_comma = text[match.end() : match.end() + 1] == ","
        line_end = text.find("\n", match.end())
        if line_end == -1:
            raise _Refuse("import layout not understood")
        if not has_comma:
            # `(..., last\n)`: keep the file's no-trailing-comma style.
            offset = start + len(text[: match.end()].encode(ctx.raw.encoding.replace("-sig", "")))
            return Edit(ctx.raw.path, offset, offset, f",{ctx.raw.newline}{indent}{new_name}")
        insertion = f"{ctx.raw.newline}{indent}{new_name},"
        offset = start + len(
            text[:line_end].rstrip("\r").encode(ctx.raw.encoding.replace("-sig", ""))
        )
        return Edit(ctx.raw.path, offset, offset, insertion)
    if after is None:
        offset = start + len(text[: match.start()].encode(ctx.raw.encoding.replace("-sig", "")))
        return Edit(ctx.raw.path, offset, offset, f"{new_name}, ")
    offset = start + len(text[: match.end()].encode(ctx.raw.encoding.replace("-sig", "")))
    return Edit(ctx.raw.path, offset, offset, f", {new_name}")


# -- positions ----------------------------------------------------------------------------


def _statement_source(ctx: _Context, statement: nodes.NodeNG) -> str:
    start = ctx.raw.offset(statement.lineno, statement.col_offset)
    end = ctx.raw.offset(statement.end_lineno, statement.end_col_offset)
    return ctx.raw.raw[start:end].decode(ctx.raw.encoding.replace("-sig", ""))


def _source_of(ctx: _Context, node: nodes.NodeNG) -> str:
    return _statement_source(ctx, node)


def _insert_after(ctx: _Context, node: nodes.NodeNG, text: str) -> Edit:
    offset = ctx.raw.offset(node.end_lineno, node.end_col_offset)
    return Edit(ctx.raw.path, offset, offset, text)


def _insert_before(ctx: _Context, node: nodes.NodeNG, text: str) -> Edit:
    offset = ctx.raw.offset(node.lineno, node.col_offset)
    return Edit(ctx.raw.path, offset, offset, text)
