"""Class attributes assigned from outside the class body: TransformerEngine's
`FlashAttentionUtils.is_installed = False` in the class, set to True by the function
that finds the package (`FlashAttentionUtils.is_installed = True`, or through an alias
of the class). Read from the body alone, `use_fa3 and FlashAttentionUtils.v3_is_installed
and cap == (9, 0)` is false on every generation and the gate is lost; the attribute is
one of the values it is given (logic.either). Only for a flag (True, False or None in the
body: is_flag).

Found by text first: the files that spell the class's name and assign the attribute on
something (`.name =`), each file's assigned names read once; then, in those files, the
assignments whose object is the class (a name, an alias, `cls` in one of its
classmethods)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from astroid import nodes

from gatecheck.loading.lazy import spelled_nodes
from gatecheck.semantics.values import ClassRef, OneOf

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


def writes(ev: Evaluator, cls: nodes.ClassDef, name: str) -> tuple[nodes.AssignAttr, ...]:
    """The assignments `X.name = ...` in the project whose X is `cls`."""
    key = ("class-writes", id(cls), name)
    found = ev.facts.get(key)
    if found is None:
        found = ev.facts[key] = tuple(_writes(ev, cls, name))
    return found


def _writes(ev: Evaluator, cls: nodes.ClassDef, name: str) -> list[nodes.AssignAttr]:
    out: list[nodes.AssignAttr] = []
    for path in ev.project.files_mentioning([str(cls.name)]):
        if name not in _assigned_names(ev, path):
            continue
        module = ev.project.module_at(path)
        if module is None:
            continue
        # Only the statements spelling the name are visited (nor their bodies built).
        for node in spelled_nodes(module, (nodes.AssignAttr,), {name}):
            if node.attrname == name and _is_the_class(ev.eval(node.expr, None), cls):
                out.append(node)
    return out


def _assigned_names(ev: Evaluator, path: Path) -> frozenset[str]:
    key = ("assigned-attributes", path)
    found = ev.facts.get(key)
    if found is None:
        text = ev.project.text_of(path) or ""
        found = ev.facts[key] = frozenset(_ASSIGNED.findall(text))
    return found


def _is_the_class(value: object, cls: nodes.ClassDef) -> bool:
    options = value.options if isinstance(value, OneOf) else (value,)
    return any(isinstance(o, ClassRef) and o.node is cls for o in options)
