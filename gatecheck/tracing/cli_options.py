"""The CLI options that set a feature's flags: `parser.add_argument("--flag", ...)` calls.

A server's argument parser is usually one long function (sglang's `add_cli_args` is 2,300
lines, a twelfth of a cold check to build), and only one of its calls defines the
feature's option. A function whose body is not built yet (loading/lazy.py) is searched in
the stdlib `ast` of its lines first: no matching call, nothing to build; one matching call
directly in its body, the hop is read from the `ast` (the same line, column and scope as
the built tree gives). Anything else (two matches, whose order is the walk's; one in a
nested scope, whose qualified name is its own; one in the `def` line) builds the body and
reads the tree, as every built function is read.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from pathlib import Path

from astroid import nodes

from gatecheck.config.model import Feature
from gatecheck.findings import Hop, HopKind
from gatecheck.gates.mentions import dashed
from gatecheck.gates.model import qualname_of
from gatecheck.loading.lazy import spelled_nodes, waiting_definition
from gatecheck.semantics.callers import callee_name

CALLEE = "add_argument"
_LEAVES = (ast.Constant, ast.Name, ast.expr_context, ast.operator, ast.cmpop, ast.unaryop)
_NESTED_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def option_name(
    attribute_call: bool, names: Sequence[object], dest: object, feature: Feature
) -> str | None:
    """The option a `X.add_argument(*names, dest=dest)` call defines for one of the
    feature's flags, else None. `names`: the positional arguments that are string
    constants; `dest`: the value of a constant `dest=` keyword (None without one)."""
    if not attribute_call:
        return None
    options = {dashed(flag) for flag in feature.flags}
    for name in names:
        if not isinstance(name, str):
            continue
        if name in options or (dest in feature.flags and name.startswith("--")):
            return name
    return None


def cli_options(module: nodes.Module, feature: Feature, every: frozenset[str]) -> Iterator[Hop]:
    """A hop per call defining one of the feature's options, in the order of a walk of
    the module (semantics/callers.calls_named's, which skips what does not spell
    `add_argument`)."""
    read: dict[int, list[tuple[ast.Call, str]]] = {}  # waiting functions read as ast

    def enter(node: nodes.NodeNG) -> bool:
        definition = waiting_definition(node)
        found = None if definition is None else _waiting_options(definition, feature)
        if found is None:
            return True  # built, or to be built: its children are walked
        read[id(node)] = found
        return False  # its body stays unbuilt

    walked = spelled_nodes(module, (nodes.Call, nodes.FunctionDef), {CALLEE}, enter)
    for node in walked:
        if isinstance(node, nodes.Call):
            name = callee_name(node) == CALLEE and option_name(*_built_parts(node), feature)
            if name:
                yield _hop(module, node, qualname_of(node), name, every)
        elif id(node) in read:
            scope = qualname_of(node)
            yield from (_hop(module, call, scope, name, every) for call, name in read[id(node)])


def _waiting_options(
    definition: ast.FunctionDef | ast.AsyncFunctionDef, feature: Feature
) -> list[tuple[ast.Call, str]] | None:
    """The matching calls of a function read from its `ast`, when that gives what the
    built tree would give: none, or one directly in its body. None: build and read it."""
    found: list[tuple[ast.Call, str]] = []
    # (node, inside a nested scope or the def line's decorators, arguments, annotations)
    stack: list[tuple[ast.AST, bool]] = [(s, False) for s in definition.body]
    stack += [(d, True) for d in definition.decorator_list]
    stack.append((definition.args, True))
    if definition.returns is not None:
        stack.append((definition.returns, True))
    while stack:
        node, aside = stack.pop()
        if isinstance(node, ast.Call) and _ast_callee_name(node) == CALLEE:
            name = option_name(*_ast_parts(node), feature)
            if name is not None:
                if aside or found:
                    return None
                found.append((node, name))
        nested = aside or isinstance(node, _NESTED_SCOPES)
        stack.extend(
            (child, nested)
            for child in ast.iter_child_nodes(node)
            if not isinstance(child, _LEAVES)  # nothing below them: most of the nodes
        )
    return found


def _ast_callee_name(call: ast.Call) -> str | None:
    callee = call.func
    if isinstance(callee, ast.Attribute):
        return callee.attr
    return callee.id if isinstance(callee, ast.Name) else None


def _built_parts(call: nodes.Call) -> tuple[bool, list[object], object]:
    names: list[object] = [a.value for a in call.args if isinstance(a, nodes.Const)]
    dest = next(
        (
            k.value.value
            for k in call.keywords or []
            if k.arg == "dest" and isinstance(k.value, nodes.Const)
        ),
        None,
    )
    return isinstance(call.func, nodes.Attribute), names, dest


def _ast_parts(call: ast.Call) -> tuple[bool, list[object], object]:
    names: list[object] = [a.value for a in call.args if isinstance(a, ast.Constant)]
    dest = next(
        (
            k.value.value
            for k in call.keywords
            if k.arg == "dest" and isinstance(k.value, ast.Constant)
        ),
        None,
    )
    return isinstance(call.func, ast.Attribute), names, dest


def _hop(
    module: nodes.Module,
    call: nodes.Call | ast.Call,
    scope: str,
    name: str,
    every: frozenset[str],
) -> Hop:
    path = Path(module.file) if module.file else Path("?")
    return Hop(
        path,
        int(call.lineno or 1),
        scope,
        HopKind.CLI_OPTION,
        name,
        every,
        int(call.col_offset or 0),
    )
