"""The astroid side of loading (project.py holds the rest, which a run answered from the
cache uses without importing astroid): the builder a project's trees are made with, and
name lookup with astroid's builtins module made on demand."""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Iterator
from typing import TypeVar

from astroid import nodes
from astroid.builder import AstroidBuilder, _parse_string
from astroid.exceptions import AstroidSyntaxError
from astroid.manager import AstroidManager
from astroid.raw_building import InspectBuilder
from astroid.rebuilder import TreeRebuilder

from gatecheck.loading.lazy import LazyRebuilder, record_attribute

N = TypeVar("N", bound=nodes.NodeNG)

# What starts a scope of its own: the nodes below it are not the enclosing function's.
_SCOPES = (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)


def own_nodes(roots: Iterable[nodes.NodeNG], kind: type[N] | tuple[type[N], ...]) -> Iterator[N]:
    """The nodes of `kind` among `roots` and below them that run in the roots' scope:
    not inside a nested function, lambda or class (whose node itself is yielded when it
    is of `kind`). A function's own returns are `own_nodes(func.body, nodes.Return)`."""
    pending = list(roots)
    while pending:
        node = pending.pop()
        if isinstance(node, kind):
            yield node
        if not isinstance(node, _SCOPES):
            pending.extend(node.get_children())


def lookup(
    node: nodes.NodeNG, name: str, bound: bool | None = None
) -> tuple[nodes.NodeNG, list[nodes.NodeNG]]:
    """`node.lookup(name)`. astroid's builtins module (a third of a second to make) is
    made on demand, before the first lookup that can reach it: a name bound in no
    enclosing scope, a dunder (`__name__` reads it), a decorator inside a class.
    `bound`: whether bound_in_scopes(node, name) holds, when the caller knows."""
    if (
        name.startswith("__")
        or isinstance(node.parent, nodes.Decorators)
        or not (bound if bound is not None else bound_in_scopes(node, name))
    ):
        ensure_builtins()
    default = _in_default(node)
    if default is not None:
        # A name inside a parameter's default is read where the `def` runs: astroid
        # looks up a default itself there, but a name nested in one (`ok: bool = ok()`)
        # in the function's own scope, where the parameter of that name binds it.
        function, top = default
        scope, found = function.scope_lookup(top, name)
    else:
        scope, found = node.lookup(name)
    return scope, list(found)


def _in_default(
    node: nodes.NodeNG,
) -> tuple[nodes.FunctionDef | nodes.Lambda, nodes.NodeNG] | None:
    """The function and the default `node` is nested in (below it, not the default
    itself), if it is: a parameter's default or a keyword-only one."""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (*_SCOPES, nodes.Module)):
        if isinstance(parent, nodes.Arguments):
            function = parent.parent
            defaults = [*(parent.defaults or ()), *(d for d in parent.kw_defaults or () if d)]
            if child is not node and any(child is d for d in defaults):
                assert isinstance(function, (nodes.FunctionDef, nodes.Lambda))
                return function, child
            return None
        child, parent = parent, parent.parent
    return None


def bound_in_scopes(node: nodes.NodeNG, name: str) -> bool:
    """Whether any scope around `node` binds `name` (if none does, astroid's lookup
    ends in its builtins module)."""
    scope = node.scope()
    while True:
        if name in scope.locals:
            return True
        if scope.parent is None:
            return False
        scope = scope.parent.scope()


def ensure_builtins() -> None:
    manager = AstroidManager()
    if "builtins" not in manager.astroid_cache:
        manager.bootstrap()


class ProjectBuilder(AstroidBuilder):
    """astroid's builder without its import machinery: wildcard imports are expanded by
    the evaluator over the project index (astroid would search sys.path, or reuse a
    stale module of the same name), and `self.x = ...` is recorded without inference.
    Nor does it make astroid's builtins module up front (see `lookup`); function bodies
    are built when first read, and line numbers are shared ints (loading/lazy.py)."""

    def __init__(self, *, lazy: bool = True) -> None:
        self.manager = AstroidManager()
        InspectBuilder.__init__(self, self.manager)  # AstroidBuilder's would bootstrap
        self._apply_transforms = False
        # Every line number of this project's trees, one int object each.
        self._lines: list[int] = []
        self._lazy = lazy  # False: astroid's own rebuilder (the trees are the same)
        self._whole = False  # the module being built: every body at once

    def string_build(
        self, data: str, modname: str = "", path: str | None = None, *, whole: bool = False
    ) -> nodes.Module:
        """astroid's, without keeping the text's UTF-8 bytes on the module
        (`Module.file_bytes`, read only by `Module.stream()`, which gatecheck never
        calls): the project keeps the source once (Project.source). `whole`: build every
        body now (a module that will be walked through, where waiting only adds work)."""
        self._whole = whole
        try:
            module, builder = self._data_build(data, modname, path)
        finally:
            self._whole = False
        return self._post_build(module, builder, "utf-8")

    def add_from_names_to_locals(
        self, node: nodes.ImportFrom, global_name: Collection[str]
    ) -> None:
        if any(name == "*" for name, _ in node.names):
            return
        super().add_from_names_to_locals(node, global_name)

    def delayed_assattr(self, node: nodes.AssignAttr) -> None:
        if not isinstance(node.expr, nodes.Name):
            return
        func = node.scope()
        if not isinstance(func, nodes.FunctionDef) or not isinstance(func.parent, nodes.ClassDef):
            return
        params = list(func.args.posonlyargs or []) + list(func.args.args or [])
        if params and params[0].name == node.expr.name:
            # Recorded without building the class's waiting attributes (lazy.py).
            record_attribute(func.parent, node)

    def _data_build(
        self, data: str, modname: str, path: str | None
    ) -> tuple[nodes.Module, TreeRebuilder]:
        """astroid's own steps (parse, module file and package), with the lazy rebuilder."""
        if not self._lazy:
            return super()._data_build(data, modname, path)
        try:
            tree = _parse_string(data, type_comments=True, modname=modname)
        except (TypeError, ValueError, SyntaxError, MemoryError) as exc:
            raise AstroidSyntaxError(
                "Parsing Python code failed:\n{error}",
                source=data,
                modname=modname,
                path=path,
                error=exc,
            ) from exc
        node_file = os.path.abspath(path) if path is not None else "<?>"
        if modname.endswith(".__init__"):
            modname, package = modname[: -len(".__init__")], True
        else:
            package = path is not None and os.path.splitext(os.path.basename(path))[0] == "__init__"
        rebuilder = LazyRebuilder(
            self._manager,
            data,
            self.add_from_names_to_locals,
            self.delayed_assattr,
            lines=self._lines,
            wait=not self._whole,
        )
        return rebuilder.visit_module(tree, modname, node_file, package), rebuilder
