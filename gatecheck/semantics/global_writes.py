"""Module globals given a value by other means than their module's own bindings: a
loader's `state.KERNEL = load()` or `setattr(state, "KERNEL", load())` in another module,
`globals()["KERNEL"] = load()` in its own. A flag or slot (`KERNEL = None`, read alone)
made `if KERNEL is None: return False` false everywhere, and the gate after it was lost;
the global is one of the values it is given (logic.either), and unknown when its module
writes globals by a name known only at runtime (`globals()[name] = fn`,
`globals().update(table)`). Only for flags, as class attributes (class_writes.is_flag).

Found by text first: the files that spell the name and assign it on something (`.NAME
=`) or name it in `setattr(..., "NAME", ...)`, each file's names read once; then the
writes whose object may be the module (the module, or an object not known: a module
found by `sys.modules[__name__]` or `importlib.import_module`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astroid import nodes
from astroid.const import Context

from gatecheck.loading.lazy import spelled_nodes
from gatecheck.semantics import class_writes
from gatecheck.semantics.lazy_joins import until_unknown
from gatecheck.semantics.logic import either
from gatecheck.semantics.values import UNKNOWN, ModuleRef, OneOf

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

# Reading `globals()` so changes nothing.
_READING = frozenset({"get", "keys", "values", "items", "copy", "__contains__", "__getitem__"})
_GLOBALS = re.compile(r"\bglobals\(\)")
# A write by a runtime name: the module's every global may be it.
_ANY: tuple[nodes.NodeNG | None, ...] = (None,)


def also_set(
    ev: Evaluator, module: nodes.Module, name: str, value: Any, bindings: Sequence[nodes.NodeNG]
) -> Any:
    """`value`, what the module's `bindings` of `name` give, met with what the project
    gives it otherwise: a flag only, that a binding declares as such (`KERNEL = None`;
    `IS_ROCM = torch.version.hip is not None` is computed, not a slot:
    class_writes.declares_flag)."""
    if not class_writes.is_flag(value) or not class_writes.declares_flag(bindings):
        return value
    written = writes(ev, module, name)
    if not written:
        return value
    values = chain((value,), (class_writes.value_of(ev, w) for w in written))
    return either(until_unknown(ev, values))


def writes(ev: Evaluator, module: nodes.Module, name: str) -> tuple[nodes.NodeNG | None, ...]:
    """The values given `name` in `module` other than by its bindings (None: one not
    known, as a write by a runtime name)."""
    ev.project.searched_in_index(name)  # the files writing it (write_sites), every time
    key = ("global-writes", id(module), name)
    found = ev.facts.get(key)
    if found is None:
        own = _own_writes(ev, module)
        found = _ANY if own is None else (*own.get(name, ()), *_outside(ev, module, name))
        ev.facts[key] = found
    return found


def _own_writes(ev: Evaluator, module: nodes.Module) -> dict[str, list[nodes.NodeNG | None]] | None:
    """`globals()["NAME"] = v` in the module, by name; None when one is by a runtime
    name (or `globals()` is handed on)."""
    key = ("globals-written", id(module))
    if key in ev.facts:
        found: dict[str, list[nodes.NodeNG | None]] | None = ev.facts[key]
        return found
    found = {}
    text = ev.project.text_of(Path(module.file)) if module.file else None
    if text is None or _GLOBALS.search(text):
        for call in spelled_nodes(module, (nodes.Call,), {"globals"}):
            if not (isinstance(call.func, nodes.Name) and call.func.name == "globals"):
                continue
            named = _written(call)
            if named is None:
                found = None
                break
            if named:
                found.setdefault(named[0], []).append(named[1])
    ev.facts[key] = found
    return found


def _written(call: nodes.Call) -> tuple[str, nodes.NodeNG | None] | tuple[()] | None:
    """What `globals()` at `call` writes: (name, value), () for a read, None for a write
    by a runtime name or a use not read here."""
    parent = call.parent
    if isinstance(parent, nodes.Attribute) and parent.expr is call:
        return () if parent.attrname in _READING else None
    if isinstance(parent, nodes.Subscript) and parent.value is call:
        if parent.ctx == Context.Load:
            return ()
        key = parent.slice
        if not (isinstance(key, nodes.Const) and isinstance(key.value, str)):
            return None
        statement = parent.parent
        value = statement.value if isinstance(statement, nodes.Assign) else None
        return (key.value, value)
    if isinstance(parent, nodes.Compare):
        return ()  # `"NAME" in globals()`
    return None


def _outside(ev: Evaluator, module: nodes.Module, name: str) -> list[nodes.NodeNG | None]:
    return [
        written
        for receiver, written in class_writes.write_sites(ev, name)
        if _may_be(ev.eval(receiver, None), module)
    ]


def _may_be(value: Any, module: nodes.Module) -> bool:
    if value is UNKNOWN:
        return True
    if isinstance(value, OneOf):
        return any(_may_be(option, module) for option in value.options)
    return isinstance(value, ModuleRef) and value.name == module.name
