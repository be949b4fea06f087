"""Whether a project module binds a name, read from where it binds it: Python makes a
module's attribute only when a statement binding it runs, so a name bound only in the
body of module-level `if`s (an import, a `def`, a class, an assignment, or a star import
of a module that binds it) exists exactly where one of those paths runs:
`if cap >= (8, 9): from .block_ops import *` then, in another module,
`hasattr(kern, "block_scale")` is that `if`'s test. A block that may not get to the
binding (a `with` whose manager may swallow an import's failure, a `try`, a loop) makes
it unknown where the tests hold, false still where they do not; a module's
`__getattr__` or a star import from outside the project leaves the answer unknown."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from astroid import nodes

from gatecheck.loading.resolve import absolute_import_name
from gatecheck.semantics.values import UNKNOWN, truth

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

# The blocks on the way from a module's top level to a binding: an `if` with the branch
# taken (True: its body, False: its else), or a block that may or may not get there (a
# `with` whose manager may swallow an exception, a `try`, a loop's body: None).
_Path = tuple[tuple[nodes.NodeNG, bool | None], ...]
_MAY_RUN = (nodes.With, nodes.Try, nodes.For, nodes.While)


def module_binds(ev: Evaluator, module_name: str, attr: str) -> Any:
    """True where the project module `module_name` binds `attr` by the time it is
    imported, False where it certainly does not, else UNKNOWN (a name it binds nowhere
    may be set on it from outside)."""
    return _binds(ev, module_name, attr, frozenset(), star=False)


def _binds(ev: Evaluator, module_name: str, attr: str, seen: frozenset[str], star: bool) -> Any:
    """module_binds; `star`: asked for `from module_name import *`, which copies only
    the names the module itself binds (those of its `__all__`, where written out, else
    those not starting with an underscore)."""
    project = ev.project
    module = project.module(module_name)
    if module is None or module_name in seen or project.has_module(f"{module_name}.{attr}"):
        return UNKNOWN
    if "__getattr__" in module.locals:
        return UNKNOWN
    if star and (attr.startswith("_") or _left_out_of_all(module, attr)):
        return False
    paths: list[_Path | None] = []
    for binding in module.locals.get(attr, ()):
        statement = binding if _is_statement(binding) else binding.statement()
        paths.append(_path(statement, module))
    for imported in _star_imports(module.body):
        source = project.canonical(absolute_import_name(imported))
        if project.module(source) is None:
            return UNKNOWN  # a module outside the project may bind anything
        provided = _binds(ev, source, attr, seen | {module_name}, star=True)
        if provided is False:
            continue
        paths.append(_path(imported, module) if provided is True else None)
    if not paths:
        # Bound nowhere here: set on the module from outside, perhaps, but not copied
        # by a star import.
        return False if star else UNKNOWN
    outcome: Any = False
    for path in paths:
        if path is None:
            return UNKNOWN
        taken = _taken(ev, path)
        if taken is True:
            return True
        if taken is UNKNOWN:
            outcome = UNKNOWN
    return outcome


def _left_out_of_all(module: nodes.Module, attr: str) -> bool:
    """Whether the module writes out `__all__` (a list or tuple of strings, bound once)
    without `attr`."""
    bound = module.locals.get("__all__", ())
    if len(bound) != 1 or not isinstance(bound[0], nodes.AssignName):
        return False
    statement = bound[0].statement()
    value = statement.value if isinstance(statement, nodes.Assign) else None
    if not isinstance(value, (nodes.List, nodes.Tuple)) or not all(
        isinstance(e, nodes.Const) and isinstance(e.value, str) for e in value.elts
    ):
        return False
    return attr not in {e.value for e in value.elts}


def _is_statement(node: nodes.NodeNG) -> bool:
    return isinstance(node, (nodes.Import, nodes.ImportFrom, nodes.FunctionDef, nodes.ClassDef))


def _path(statement: nodes.NodeNG, module: nodes.Module) -> _Path | None:
    """The blocks from the module's top level to `statement`, or None when the binding
    is another scope's (a function's `global`) or sits in what no block runs as such (an
    `if`'s test, a `with`'s items)."""
    found: list[tuple[nodes.NodeNG, bool | None]] = []
    node = statement
    while node.parent is not module:
        parent = node.parent
        if isinstance(parent, nodes.If) and node is not parent.test:
            found.append((parent, any(s is node for s in parent.body)))
        elif _may_run(node, parent):
            found.append((parent, None))
        else:
            return None
        node = parent
    return tuple(reversed(found))


def _may_run(node: nodes.NodeNG, parent: nodes.NodeNG) -> bool:
    """`node` is a statement of a block of `parent` that may or may not run: a `try`'s
    (or one of its handlers'), a `with`'s, a loop's."""
    if isinstance(parent, nodes.ExceptHandler):
        return isinstance(parent.parent, nodes.Try)
    blocks = ("body", "orelse", "handlers", "finalbody")
    return isinstance(parent, _MAY_RUN) and any(
        any(s is node for s in getattr(parent, b, None) or ()) for b in blocks
    )


def _taken(ev: Evaluator, path: _Path) -> Any:
    """Whether the path runs: each `if`'s test true (or false, for its else); a block
    that may not get there leaves it unknown, never false."""
    outcome: Any = True
    for statement, body in path:
        if body is None:
            outcome = UNKNOWN
            continue
        assert isinstance(statement, nodes.If)
        test = truth(ev.eval(statement.test, None))
        if test is UNKNOWN:
            outcome = UNKNOWN
        elif test is not body:
            return False
    return outcome


def _star_imports(body: list[nodes.NodeNG]) -> Iterator[nodes.ImportFrom]:
    """The module's `from x import *` statements, at its top level or in any block of
    it (not in a function or class)."""
    for statement in block_statements(body):
        if isinstance(statement, nodes.ImportFrom) and statement.names[0][0] == "*":
            yield statement


def block_statements(body: list[nodes.NodeNG]) -> Iterator[nodes.NodeNG]:
    """The statements of `body` and of every block in it (an `if`'s branches, a
    `with`, a `try` and its handlers, a loop): those that run in its scope, not in a
    function or class defined there (whose `def`/`class` statement is yielded)."""
    for statement in body:
        yield statement
        if isinstance(statement, (nodes.FunctionDef, nodes.ClassDef)):
            continue
        for field in ("body", "orelse", "handlers", "finalbody"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list):
                yield from block_statements(inner)
