"""The one cross-module resolver: a name in scope, or a module's attribute, to its value,
through imports, `from x import *` (astroid leaves it unexpanded for modules outside
sys.path; the project index can) and module aliases. Other views that need bindings
(kernel reach, the audit's hop sources) ask here."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from astroid import nodes

from gatecheck.loading.project import Project
from gatecheck.loading.resolve import absolute_import_name, import_target, imported_name
from gatecheck.loading.trees import bound_in_scopes, lookup
from gatecheck.semantics import appended, bounds, flow, global_writes, replay
from gatecheck.semantics.bindings import binding_value, getattr_hook, keywords_parameter_value
from gatecheck.semantics.builtin_calls import BUILTINS
from gatecheck.semantics.lazy_joins import until_unknown
from gatecheck.semantics.logic import either
from gatecheck.semantics.mutations import changed_before, holds_container, local_changes
from gatecheck.semantics.reads import NOTHING, enter, leave
from gatecheck.semantics.restores import without_restores
from gatecheck.semantics.values import UNKNOWN, ExternalRef, FunctionRef, ModuleRef

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator


def star_sources(module: nodes.Module) -> Iterator[str]:
    """The absolute names of the modules `module` star-imports, in order."""
    for stmt in module.body:
        if isinstance(stmt, nodes.ImportFrom) and stmt.names and stmt.names[0][0] == "*":
            yield absolute_import_name(stmt)


def _star_sources(ev: Evaluator, module: nodes.Module) -> tuple[str, ...]:
    """star_sources(module), read off the module's body once per run."""
    key = ("star-sources", id(module))
    found = ev.facts.get(key)
    if found is None:
        canonical = ev.project.canonical
        found = ev.facts[key] = tuple(canonical(name) for name in star_sources(module))
    return found


def module_definitions(
    project: Project, module_name: str, name: str, max_hops: int, _hops: int = 0
) -> list[nodes.NodeNG]:
    """The statements that bind `name` in a project module, through `from x import y`
    and `from x import *` (at most `max_hops` modules away); imports of modules outside
    the project end the search."""
    module = project.module(module_name)
    if module is None or _hops > max_hops:
        return []
    if name in module.locals:
        return follow_imports(project, list(module.locals[name]), name, max_hops, _hops)
    for source in star_sources(module):
        found = module_definitions(project, source, name, max_hops, _hops + 1)
        if found:
            return found
    return []


def follow_imports(
    project: Project, found: list[nodes.NodeNG], name: str, max_hops: int, _hops: int = 0
) -> list[nodes.NodeNG]:
    out: list[nodes.NodeNG] = []
    for binding in found:
        if isinstance(binding, nodes.ImportFrom):
            original = imported_name(binding, name)
            if original:
                source = absolute_import_name(binding)
                out.extend(module_definitions(project, source, original, max_hops, _hops + 1))
        else:
            out.append(binding)
    return out


def global_expression(project: Project, name: nodes.Name) -> nodes.NodeNG | None:
    """The expression of the one binding of a module global `name` reads, through
    `from x import y`: `IS_HOPPER = IS_NVIDIA and (... or cap[0] == 9)` read as
    `IS_HOPPER` elsewhere. None when the name is bound more than once (a function's
    `global` assignment included), or by anything but a plain `NAME = expr`."""
    try:
        _, found = lookup(name, name.name)
    except Exception:  # astroid's lookup fails on odd scopes: no binding then
        return None
    bindings = follow_imports(project, found, name.name, MAX_IMPORT_HOPS)
    if len(bindings) != 1 or not isinstance(bindings[0], nodes.AssignName):
        return None
    assign = bindings[0].parent
    if not (isinstance(assign, nodes.Assign) and assign.targets == [bindings[0]]):
        return None
    return assign.value if isinstance(assign.scope(), nodes.Module) else None


# How many `from x import y` a name is followed through to its binding.
MAX_IMPORT_HOPS = 8


def looked_up(ev: Evaluator, node: nodes.Name) -> tuple[Any, Sequence[nodes.NodeNG]] | None:
    """The scope binding the name `node` reads and its bindings there; None when the
    lookup fails. Where a name is bound is the code's, the same for every generation:
    found once per node (astroid filters the scope's statements on every lookup), not
    once per generation and evaluation."""
    key = ("lookup", id(node))
    found = ev.facts.get(key)
    if found is None:
        if not node.name.startswith("__") and not bound_in_scopes(node, node.name):
            # astroid's lookup would end in its builtins module, read below as "not
            # bound": skip it (and never make that module).
            found = _UNBOUND
        else:
            try:
                scope, bindings = lookup(node, node.name, bound=True)
                found = (scope, without_restores(bindings))
            except RecursionError:
                ev.reads.bounds.add(bounds.TOO_DEEP)  # a chain of aliases deeper than the stack
                return None
            except Exception:  # astroid's lookup fails on odd scopes: no binding then
                return None
        ev.facts[key] = found
    return found


def resolve_name(ev: Evaluator, node: nodes.Name) -> Any:
    found = looked_up(ev, node)
    if found is None:
        return UNKNOWN
    scope, assigns = found
    if not assigns or (isinstance(scope, nodes.Module) and scope.name == "builtins"):
        star = _star_imported(ev, node)
        return star if star is not None else BUILTINS.get(node.name, UNKNOWN)
    value = _bound_value(ev, node, assigns)
    if isinstance(scope, nodes.Module) and (value is None or value is True or value is False):
        return global_writes.also_set(ev, scope, node.name, value, assigns)  # set elsewhere
    if (
        isinstance(scope, (nodes.FunctionDef, nodes.AsyncFunctionDef, nodes.Lambda))
        and holds_container(value)
        and changed_before(ev, node, scope)
    ):
        # A local list or dict filled before this read (mutations.py): unknown, unless
        # a loop appending to it is all that filled it (appended.py).
        if len(assigns) == 1:
            changes = local_changes(ev, scope, str(node.name))
            filled = appended.filled_by_loop(ev, node, assigns[0], changes)
            if filled is not None:
                return filled
        return UNKNOWN
    return value


def _bound_value(ev: Evaluator, node: nodes.Name, assigns: Sequence[nodes.NodeNG]) -> Any:
    if len(assigns) == 1:
        # One binding (most names): no flow to follow, nothing to meet. Not an import:
        # binding_of's own test, without its frame (once per name per generation).
        bound = assigns[0]
        if isinstance(bound, nodes.Arguments):
            # `*args` / `**fields`: the lookup gives the parameters' node; the name's own
            # is read as a parameter is (a `**fields` its callers fill: callers.py).
            if node.name != bound.kwarg:
                return UNKNOWN
            return keywords_parameter_value(ev, bound)
        if not isinstance(bound, _IMPORTS):
            return binding_value(ev, bound)
        return binding_of(ev, bound, node.name)
    flowed = flow.value_after(ev, assigns, node)
    if flowed is not None:
        return flowed
    values = until_unknown(ev, (binding_of(ev, a, node.name) for a in assigns))
    return either(values, outside=imports_only(assigns))


_IMPORTS = (nodes.ImportFrom, nodes.Import)
# Bindings that give a name an object, not a value computed from others.
_DEFINITIONS = (*_IMPORTS, nodes.FunctionDef, nodes.ClassDef)


def imports_only(bindings: Sequence[nodes.NodeNG]) -> bool:
    """Whether a name is bound only by imports (and defs or classes), one of them at
    least: a compatibility shim (`try: from cutlass.base_dsl import Arch` / `except
    ImportError: from cutlass.base_dsl.arch import Arch`; `import tomllib as toml` or
    `import tomli as toml` by Python version). The name holds the object one of them
    bound, whichever ran: one of those objects, names from outside the project
    included (logic.either's `outside`), so `Arch.sm_90` is each import's member, known
    where they agree. A name also assigned a value (`except ImportError: Arch = None`)
    meets as before: None is no reference."""
    return all(isinstance(b, _DEFINITIONS) for b in bindings) and any(
        isinstance(b, _IMPORTS) for b in bindings
    )


# A name no scope around it binds (the lookup is skipped): no scope, no bindings.
_UNBOUND: tuple[None, list[nodes.NodeNG]] = (None, [])


def _star_imported(ev: Evaluator, node: nodes.Name) -> Any:
    module = node.root()
    if not isinstance(module, nodes.Module):
        return None
    value = module_attribute(ev, str(module.name), node.name)
    return None if value is UNKNOWN else value


def module_attribute(
    ev: Evaluator, module_name: str, attr: str, _seen: frozenset[str] = frozenset()
) -> Any:
    project = ev.project
    module = project.module(module_name)
    if module is None:
        if project.has_module(f"{module_name}.{attr}"):
            return ModuleRef(f"{module_name}.{attr}")
        return ExternalRef(f"{module_name}.{attr}")
    bound = module.locals.get(attr)
    if bound and len(bound) > 1:
        key = ("module-bindings", id(bound))
        if key not in ev.facts:  # the code's: found once (the list kept alive with it)
            ev.facts[key] = (bound, without_restores(bound))
        bound = ev.facts[key][1]
    if bound:
        return global_writes.also_set(ev, module, attr, _module_binding(ev, bound, attr), bound)
    if project.has_module(f"{module_name}.{attr}"):
        return ModuleRef(f"{module_name}.{attr}")
    if module_name in _seen:
        return UNKNOWN
    for source in _star_sources(ev, module):
        if project.module(source) is not None:
            value = module_attribute(ev, source, attr, _seen | {module_name})
            if value is not UNKNOWN:
                return value
        else:
            return ExternalRef(f"{source}.{attr}")
    return _module_getattr(ev, module, attr)


def _module_binding(ev: Evaluator, bound: Sequence[nodes.NodeNG], attr: str) -> Any:
    if len(bound) == 1:
        return binding_of(ev, bound[0], attr)
    flowed = flow.value_after(ev, bound)
    if flowed is not None:
        return flowed
    values = until_unknown(ev, (binding_of(ev, b, attr) for b in bound))
    return either(values, outside=imports_only(bound))


def _module_getattr(ev: Evaluator, module: nodes.Module, attr: str) -> Any:
    """A name the module binds nowhere (nor a star import does): Python asks the
    module's `__getattr__` (bindings.getattr_hook)."""
    hook = getattr_hook(module, attr)
    return UNKNOWN if hook is None else ev.invoke(FunctionRef(hook), [attr], {})


def binding_of(ev: Evaluator, bound: nodes.NodeNG, local: str) -> Any:
    """The value `bound` (an import, def, class or assignment) gives the name `local`."""
    if isinstance(bound, nodes.ImportFrom):
        key = (id(bound), local)
        memo = ev.call_memo.get(key)
        trace = ev.trace
        if memo is not None:
            value, recorded = memo
            if (
                recorded is NOTHING or recorded.holds(ev.active, ev.depth) or ev.epoch.spent()
            ):  # see reads.py
                if trace is not None:
                    trace.append((replay.CALL, key, memo))
                if recorded is not NOTHING:
                    ev.reads.absorb(recorded)
                return value
            if trace is not None:
                trace.append((replay.CALL, key, None))  # not the answer here: a miss
        if key in ev.active:
            ev.reads.cut_at(key, ev.active[key])
            return UNKNOWN
        activation = enter(ev, key)
        try:
            with ev.tracking() as reads:
                value = _import_from_value(ev, bound, local)
                reads.close(key, activation)
            frozen = reads.frozen(ev.depth)
            ev.call_memo.put(key, value, frozen)
            if trace is not None:
                trace.append(replay.added(replay.CALL, key, value, frozen))
            return value
        finally:
            leave(ev, key, activation)
    if isinstance(bound, nodes.Import):
        return _import_value(ev, bound, local)
    return binding_value(ev, bound)


def _import_from_value(ev: Evaluator, node: nodes.ImportFrom, local: str) -> Any:
    original = imported_name(node, local)
    if original is None:
        return UNKNOWN
    source = ev.project.canonical(absolute_import_name(node))
    if source == ev.project.canonical(str(node.root().name)):
        # A package's `__init__` importing its own submodule (`from . import jit`): the
        # submodule, not the package's attribute of that name, which is this binding.
        submodule = f"{source}.{original}"
        if ev.project.has_module(submodule):
            return ModuleRef(ev.project.canonical(submodule))
    return module_attribute(ev, source, original)


def _import_value(ev: Evaluator, node: nodes.Import, local: str) -> Any:
    target = import_target(node, local)
    if target is None:
        return UNKNOWN
    name, _aliased = target
    project = ev.project
    return (
        ModuleRef(project.canonical(name))
        if project.has_module(name)
        else ExternalRef(name, module=True)
    )
