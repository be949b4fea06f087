"""What a module defines, read with the standard library's `ast` (no astroid build): for
questions about names alone, such as whether a rule's gate function exists, asked by
runs that may be answered from the cache."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from gatecheck.loading.project import Project, TooLarge, check_size

_Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def names_function(project: Project, dotted: str, read: set[Path] | None = None) -> bool:
    """Whether `dotted` ('pkg.mod.Class.method') names a function defined in the project:
    the longest prefix that is a module of the project and can be read, then each
    further part the last function or class of that name bound in the scope so far (as
    astroid's `locals` would give it: defs anywhere in the scope's body, nested blocks
    included, nested scopes not). `read` collects the files the answer read (a cached
    answer goes stale with them)."""
    parts = dotted.split(".")
    for split in range(len(parts) - 1, 0, -1):
        path = project.path_of(".".join(parts[:split]))
        if path is None:
            continue
        if read is not None:
            read.add(path)
        tree = _tree(project, path)
        if tree is None:
            continue
        scope: ast.AST = tree
        for name in parts[split:]:
            found = [d for d in _defs(scope) if d.name == name]
            if not found:
                return False
            scope = found[-1]
        return isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef))
    return False


def _tree(project: Project, path: Path) -> ast.Module | None:
    text = project.text_of(path)
    if text is None:
        return None
    try:
        check_size(text)
        return ast.parse(text)
    except (TooLarge, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _defs(scope: ast.AST) -> Iterator[_Def]:
    """The defs bound in `scope`'s own namespace, in source order."""
    for child in ast.iter_child_nodes(scope):
        if isinstance(child, _Def):
            yield child
        elif isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
            yield from _defs(child)
