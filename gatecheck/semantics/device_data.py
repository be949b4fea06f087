"""The device's value compared with data nothing decides (`arch not in record["arches"]`,
`capability < quant_config.get_min_capability()`): Unknown on every generation, yet the
data may hold "sm_100a" and not "sm_120a", so it is one unknown per value the device
gives (free_atoms.py), not one for all. This module says which side of such a
comparison is the device's, and what its values are, from each generation's value of it
(Semantics._device_classes evaluates them)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from astroid import nodes

from gatecheck.config.model import Registry
from gatecheck.semantics.conventions import identifies
from gatecheck.semantics.expressions import COMPARE
from gatecheck.semantics.values import OneOf, is_constant

# The calls that put a value in a container: `seen.add(cap)`, `seen.append(cap)`,
# `seen.setdefault(cap, x)`.
_STORES = frozenset({"add", "append", "setdefault"})
_BODIES = (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)


def device_keys(each: Mapping[str, Any], registry: Registry) -> dict[str, Hashable] | None:
    """Each generation's value (`each`) as a key, where it is the device's identity on
    some generation (its arch name, capability or major; None off a table) and not the
    same on all; None otherwise. A value is a constant, or one of a few spellings of the
    device's identity (an `arch: str` parameter read by its name: "sm_120", "sm_120a",
    ...); one of the values its callers pass (`_use(cap)` called with `(8, 0)` and with
    the device's) is not the device's alone, and is no key."""
    for gen, value in each.items():
        if isinstance(value, OneOf):
            generation = registry.get(gen)
            if not all(is_constant(o) and identifies(o, generation) for o in value.options):
                return None
        elif not is_constant(value):
            return None
    if not any(identifies(v, registry.get(g)) for g, v in each.items()):
        return None
    keys = {gen: repr(v) for gen, v in each.items()}
    return dict(keys) if len(set(keys.values())) > 1 else None


def stores(scope: nodes.NodeNG) -> frozenset[tuple[str, str]]:
    """(container, value) as spelled, for every value `scope` puts in a container by
    name: `seen.add(cap)`, `seen.append(cap)`, `seen.setdefault(cap, x)`, `seen[cap] =
    x` (one walk of the scope; Semantics keeps it per function). A module's or a
    class's own statements only: walking into every function would build each body a
    lazy tree keeps waiting (loading/lazy.py)."""
    found: set[tuple[str, str]] = set()
    skip = () if isinstance(scope, nodes.FunctionDef | nodes.Lambda) else _BODIES
    for call in scope.nodes_of_class(nodes.Call, skip_klass=skip):
        func = call.func
        if isinstance(func, nodes.Attribute) and func.attrname in _STORES and call.args:
            found.add((func.expr.as_string(), call.args[0].as_string()))
    for target in scope.nodes_of_class(nodes.Subscript, skip_klass=skip):
        if (
            isinstance(target.parent, (nodes.Assign, nodes.AugAssign))
            and target is not target.parent.value
        ):
            found.add((target.value.as_string(), target.slice.as_string()))
    return frozenset(found)


def is_memo(side: nodes.NodeNG, other: nodes.NodeNG, stored: frozenset[tuple[str, str]]) -> bool:
    """Whether `other` is a container its function fills with `side`'s value (`stored`:
    stores() of the function): `if cap not in warned: warned.add(cap)`, `if arch in
    cache: return cache[arch]` then `cache[arch] = ...`, a memo of what was seen (a
    warning given once per device, a download cached), not data about the device."""
    return (other.as_string(), side.as_string()) in stored


def is_literal(node: nodes.NodeNG) -> bool:
    """A constant written out (`None`, `(9, 0)`, `"sm_90a"`): no data."""
    if isinstance(node, nodes.Const):
        return True
    if isinstance(node, (nodes.Tuple, nodes.List, nodes.Set)):
        return all(is_literal(e) for e in node.elts)
    return False


_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    **COMPARE,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
}


def alike_against(op: str, each: Mapping[str, Any], literal: nodes.NodeNG) -> bool:
    """Whether every generation's value (`each`, OneOf options each) compares with the
    constant `literal` the same way: then what leaves the comparison unknown is not the
    device (`cc is None` where every generation's capability is a pair, the None a
    caller may pass deciding it), and it is no comparison of the device's value with
    data. False where they differ (`arch is None`, None off a table) or cannot be
    compared."""
    compare = _OPERATORS.get(op)
    if compare is None:
        return False
    try:
        constant = ast.literal_eval(literal.as_string())
        found = {
            bool(compare(option, constant))
            for value in each.values()
            for option in (value.options if isinstance(value, OneOf) else (value,))
        }
    except Exception:
        return False
    return len(found) == 1
