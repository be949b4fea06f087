"""Class attributes assigned from outside the class body: TransformerEngine's
`FlashAttentionUtils.is_installed = False` in the class, set to True by the function
that finds the package (`FlashAttentionUtils.is_installed = True`, or through an alias
of the class). Read from the body alone, `use_fa3 and FlashAttentionUtils.v3_is_installed
and cap == (9, 0)` is false on every generation and the gate is lost; the attribute is
one of the values it is given (logic.either), `setattr(Utils, "is_installed", True)`
included. Only for a flag (True, False or None in the body: is_flag). The same for an
instance attribute its class's methods leave a flag or None (instance_writes: a release
method's `self.w = None`, the tensor a loader's `layer.w = t` or a subclass gives it).

Found by text first: the files that spell the class's name and assign the attribute on
something (`.name =`), each file's assigned names read once; then, in those files, the
assignments whose object is the class (a name, an alias, `cls` in one of its
classmethods)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from astroid import nodes

from gatecheck.loading.lazy import spelled_nodes
from gatecheck.semantics.values import UNKNOWN, ClassRef, InstanceRef, OneOf

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

# `.name =` (not `==`): an attribute assigned on something, its name the group.
ASSIGNED_ATTRIBUTE = r"\.(\w+)[ \t]*=(?!=)"
_ASSIGNED = re.compile(ASSIGNED_ATTRIBUTE)


def is_flag(value: object) -> bool:
    """The class-level values looked for elsewhere: True, False or None, a flag or a
    slot filled later (a name, a number or a string is a declaration: searching every
    file for each would cost a second on vLLM 0.33.0, for none found)."""
    return value is None or isinstance(value, bool)


def declares_flag(bindings: Sequence[nodes.NodeNG]) -> bool:
    """Whether one of the bindings (AssignName / AssignAttr) is an assignment of None,
    True or False as spelled: a flag or a slot to be filled, not a computed value."""
    for bound in bindings:
        statement = bound.parent
        if (
            isinstance(statement, (nodes.Assign, nodes.AnnAssign))
            and isinstance(statement.value, nodes.Const)
            and is_flag(statement.value.value)
        ):
            return True
    return False


def writes(ev: Evaluator, cls: nodes.ClassDef, name: str) -> tuple[nodes.NodeNG | None, ...]:
    """The assignments `X.name = ...` in the project whose X is `cls`, and the values of
    `setattr(X, "name", v)` (value_of reads either)."""
    key = ("class-writes", id(cls), name)
    found = ev.facts.get(key)
    if found is None:
        found = ev.facts[key] = tuple(_writes(ev, cls, name))
    return found


def _writes(ev: Evaluator, cls: nodes.ClassDef, name: str) -> list[nodes.NodeNG | None]:
    from gatecheck.semantics.classes import set_by_name

    out: list[nodes.NodeNG | None] = []
    for path in ev.project.files_mentioning([str(cls.name)]):
        if name not in assigned_names(ev, path) and name not in set_by_string(ev, path):
            continue
        module = ev.project.module_at(path)
        if module is None:
            continue
        # Only the statements spelling the name are visited (nor their bodies built).
        for node in spelled_nodes(module, (nodes.AssignAttr, nodes.Call), {name}):
            if isinstance(node, nodes.AssignAttr):
                if node.attrname == name and _is_the_class(ev.eval(node.expr, None), cls):
                    out.append(node)
                continue
            set_by = set_by_name(node)
            if set_by is None or not names_const(set_by[1], name):
                continue
            if _is_the_class(ev.eval(set_by[0], None), cls):
                out.append(set_by[2])
    return out


def names_const(named: nodes.NodeNG | None, name: str) -> bool:
    return isinstance(named, nodes.Const) and named.value == name


def assigned_names(ev: Evaluator, path: Path) -> frozenset[str]:
    key = ("assigned-attributes", path)
    found = ev.facts.get(key)
    if found is None:
        text = ev.project.text_of(path) or ""
        found = ev.facts[key] = frozenset(_ASSIGNED.findall(text))
    return found


def _is_the_class(value: object, cls: nodes.ClassDef) -> bool:
    options = value.options if isinstance(value, OneOf) else (value,)
    return any(isinstance(o, ClassRef) and o.node is cls for o in options)


# A call that sets an attribute by a name in a string: `setattr(obj, "w", v)`, torch's
# `obj.register_buffer("w", t)`; the name's quotes, for the text search.
_NAMED_IN_STRING = (
    r"""(?:setattr|register_buffer|register_parameter)\(\s*(?:[^,()]+,\s*)?["'](\w+)["']"""
)
_SET_BY_STRING = re.compile(_NAMED_IN_STRING)


def instance_writes(
    ev: Evaluator, cls: nodes.ClassDef, name: str, own: Sequence[nodes.NodeNG]
) -> tuple[nodes.NodeNG | None, ...]:
    """What the project gives `name` on an instance of `cls` (or of a subclass) beyond
    `own`, the class's own `self.name = ...`: `x.name = v` and `setattr(x, "name", v)` /
    `x.register_buffer("name", v)` whose `x` may be such an instance (an unknown
    parameter, `self` in a subclass's method); the AssignAttr nodes and the values the
    calls pass. Found by text first, as `writes`: the files assigning `.name =` or naming
    it in such a call, each file's names read once. A name set at runtime outside the
    class's methods (`setattr(layer, key, v)`) is not looked for."""
    key = ("instance-writes", id(cls), name)
    found = ev.facts.get(key)
    if found is None:
        found = ev.facts[key] = tuple(_instance_writes(ev, cls, name, {id(n) for n in own}))
    return found


def value_of(ev: Evaluator, written: nodes.NodeNG | None) -> object:
    """The value an instance_writes entry gives (None: a value not passed by place)."""
    if written is None:
        return UNKNOWN
    if isinstance(written, nodes.AssignAttr):
        return ev.binding_value(written)
    return ev.eval(written, None)


def _instance_writes(
    ev: Evaluator, cls: nodes.ClassDef, name: str, own: set[int]
) -> list[nodes.NodeNG | None]:
    from gatecheck.semantics.classes import set_by_name

    out: list[nodes.NodeNG | None] = []
    for path in writing_files(ev, name):
        module = ev.project.module_at(path)
        if module is None:
            continue
        for node in spelled_nodes(module, (nodes.AssignAttr, nodes.Call), {name}):
            if isinstance(node, nodes.AssignAttr):
                if (
                    node.attrname == name
                    and id(node) not in own
                    and _may_be_instance(ev, ev.eval(node.expr, None), cls)
                ):
                    out.append(node)
                continue
            set_by = set_by_name(node)
            if set_by is None:
                continue
            receiver, named, value = set_by
            if not names_const(named, name):
                continue
            if id(value) in own or not _may_be_instance(ev, ev.eval(receiver, None), cls):
                continue
            out.append(value)
    return out


def writing_files(ev: Evaluator, name: str) -> tuple[Path, ...]:
    """The files that assign `.name =` on something or name it in a `setattr`-like call.
    An index of every file's such names, made on first use: asked for every flag global
    and slot read, a search of every file's text per name cost more than the audit."""
    index: dict[str, tuple[Path, ...]] | None = ev.facts.get(("writing-files",))
    if index is None:
        found: dict[str, list[Path]] = {}
        for path in ev.project.files:
            for written in assigned_names(ev, path) | set_by_string(ev, path):
                found.setdefault(written, []).append(path)
        index = ev.facts[("writing-files",)] = {k: tuple(v) for k, v in found.items()}
    return index.get(name, ())


def set_by_string(ev: Evaluator, path: Path) -> frozenset[str]:
    key = ("set-by-string", path)
    found = ev.facts.get(key)
    if found is None:
        text = ev.project.text_of(path) or ""
        found = ev.facts[key] = frozenset(_SET_BY_STRING.findall(text))
    return found


def _may_be_instance(ev: Evaluator, value: object, cls: nodes.ClassDef) -> bool:
    """Whether `value` may be an instance of `cls` or of a subclass (or such a class,
    whose attribute an instance reads): unknown may be anything."""
    from gatecheck.semantics.classes import mro

    if value is UNKNOWN:
        return True
    if isinstance(value, OneOf):
        return any(_may_be_instance(ev, option, cls) for option in value.options)
    if isinstance(value, (InstanceRef, ClassRef)):
        klass = value.cls if isinstance(value, InstanceRef) else value.node
        return any(k is cls for k in mro(ev, klass))
    return False
