"""Binding helpers on astroid trees: where a name is bound, and what module an import
names. No evaluation here: that is the semantics package's job."""

from __future__ import annotations

from astroid import nodes
from astroid.exceptions import TooManyLevelsError


def absolute_import_name(node: nodes.ImportFrom) -> str:
    """`from ..x import y` inside pkg.sub.mod -> 'pkg.x'. A relative import climbing past
    the scanned root's top (`from .hw import f` in `support.py` of a root folder with no
    `__init__.py`: a namespace package to Python) stops at the top: the sibling `hw`."""
    if not node.level:
        return node.modname or ""
    root = node.root()
    assert isinstance(root, nodes.Module)
    try:
        return str(root.relative_to_absolute_name(node.modname or "", node.level))
    except TooManyLevelsError:
        parts = str(root.name).split(".")
        if not root.package:
            parts = parts[:-1]
        kept = parts[: max(0, len(parts) - (node.level - 1))]
        return ".".join([*kept, *([node.modname] if node.modname else [])])


def imported_name(node: nodes.ImportFrom, local: str) -> str | None:
    """The original name that `local` is bound to by this ImportFrom, if any."""
    for name, alias in node.names:
        if (alias or name) == local:
            return str(name)
    return None


def import_target(node: nodes.Import, local: str) -> tuple[str, bool] | None:
    """For `import a.b.c` binding `a`, return ('a', False); for `import a.b as x` binding
    `x`, return ('a.b', True)."""
    for name, alias in node.names:
        if alias == local:
            return str(name), True
        if alias is None and str(name).split(".")[0] == local:
            return str(name).split(".")[0], False
    return None


def destructure_path(target: nodes.NodeNG, name_node: nodes.NodeNG) -> list[int] | None:
    """Index path of `name_node` inside an assignment target (`a, (b, c) = ...`)."""
    if target is name_node:
        return []
    if isinstance(target, (nodes.Tuple, nodes.List)):
        for index, element in enumerate(target.elts):
            sub = destructure_path(element, name_node)
            if sub is not None:
                return [index, *sub]
    if isinstance(target, nodes.Starred):
        return None
    return None


def enclosing_class(node: nodes.NodeNG) -> nodes.ClassDef | None:
    scope = node.scope()
    if isinstance(scope, nodes.FunctionDef) and isinstance(scope.parent, nodes.ClassDef):
        return scope.parent
    return None


def parameter_names(func: nodes.FunctionDef, receiver: bool = True) -> set[str]:
    """The names `func`'s parameters bind (`*args` and `**kwargs` too); without a
    method's receiver (`self`, `cls`: the object a call is made on, not an argument)
    when `receiver` is False."""
    arguments = func.args
    positional = [*(arguments.posonlyargs or ()), *(arguments.args or ())]
    if (
        not receiver
        and positional
        and isinstance(func.parent, nodes.ClassDef)
        and "staticmethod" not in decorator_names(func)
    ):
        positional = positional[1:]
    names = {str(a.name) for a in (*positional, *(arguments.kwonlyargs or ()))}
    return names | {str(rest) for rest in (arguments.vararg, arguments.kwarg) if rest}


def decorator_names(func: nodes.FunctionDef | nodes.ClassDef) -> list[str]:
    names: list[str] = []
    if func.decorators is None:
        return names
    for dec in func.decorators.nodes:
        target = dec.func if isinstance(dec, nodes.Call) else dec
        if isinstance(target, nodes.Name):
            names.append(str(target.name))
        elif isinstance(target, nodes.Attribute):
            names.append(str(target.attrname))
    return names


def is_abstract_body(func: nodes.FunctionDef) -> bool:
    """A body that says nothing: docstring/pass/.../raise NotImplementedError/return None."""
    for stmt in func.body:
        if isinstance(stmt, nodes.Pass):
            continue
        if isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Const):
            continue  # docstring or `...`
        if isinstance(stmt, nodes.Raise):
            exc = stmt.exc
            target = exc.func if isinstance(exc, nodes.Call) else exc
            if isinstance(target, nodes.Name) and target.name == "NotImplementedError":
                continue
            return False
        if isinstance(stmt, nodes.Return) and (
            stmt.value is None
            or (isinstance(stmt.value, nodes.Const) and stmt.value.value is None)
            or (isinstance(stmt.value, nodes.Name) and stmt.value.name == "NotImplemented")
        ):
            continue
        return False
    return True
