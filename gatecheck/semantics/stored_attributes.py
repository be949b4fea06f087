"""An attribute a function stores on a local object and reads back later in that
function: lmdeploy's config builder sets `hf_config.use_flash_mla =
flash_mla_available()`, then passes `use_flash_mla=hf_config.use_flash_mla` to the
ModelConfig it returns. `hf_config` is a parameter nothing says anything of, so the read
was unknown and so were the gates reading the field downstream.

Read so only where the store is certain to have run and nothing else gives the
attribute a value in between: one statement of the function's own body (not under an
`if`, a loop, a `try` or a `with`) assigns it, on a name the function never binds
again, and the reading statement comes after it; another store of that attribute on
that name anywhere in the function (a branch, a loop) leaves the read as it was. A
callee that changes the object is not looked for, as a callee changing a local's
object never is (flow.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from astroid import nodes

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

NOT_STORED: Any = object()
_NOT_READ: Any = object()


def stored_before(ev: Evaluator, node: nodes.Attribute) -> Any:
    """The value the function stores in `node`'s attribute before reading it, or
    NOT_STORED."""
    if not isinstance(node.expr, nodes.Name):
        return NOT_STORED
    # The code's shape: the same on every generation, found once per reading node (an
    # audit of vLLM 0.33.0 asks about 360,000 times, of far fewer nodes).
    key = ("stored-attribute", id(node))
    store = ev.facts.get(key, _NOT_READ)
    if store is _NOT_READ:
        store = ev.facts[key] = _store_before(ev, node)
    if store is None:
        return NOT_STORED
    # Kept as a binding is, with what it read (a store's value is read by every reader).
    return ev.memoized(("stored-attribute-value", id(store)), _value, store)


def _value(ev: Evaluator, store: nodes.Assign) -> Any:
    return ev.eval(store.value, None)


def _store_before(ev: Evaluator, node: nodes.Attribute) -> nodes.Assign | None:
    receiver = node.expr
    function = node.scope()
    if not isinstance(receiver, nodes.Name) or not isinstance(function, nodes.FunctionDef):
        return None
    wanted = (receiver.name, node.attrname)
    key = ("stored-attributes", id(function))
    if key not in ev.facts:  # the stores of the body's own statements, read once
        ev.facts[key] = _candidates(function)
    if wanted not in ev.facts[key]:
        return None
    checked = ("stored-attributes-checked", id(function))
    if checked not in ev.facts:  # one walk of the whole function, where there are some
        ev.facts[checked] = _the_stores(function)
    store = ev.facts[checked].get(wanted)
    if store is None:
        return None
    reading = node.statement()
    if (reading.lineno or 0) <= (store.lineno or 0) or reading is store:
        return None
    return store


def _candidates(function: nodes.FunctionDef) -> frozenset[tuple[str, str]]:
    """`name.attribute` stored by a statement of the function's own body (not nested)."""
    return frozenset(
        (str(target.expr.name), str(target.attrname))
        for statement in function.body
        if isinstance(statement, nodes.Assign)
        for target in statement.targets
        if isinstance(target, nodes.AssignAttr) and isinstance(target.expr, nodes.Name)
    )


def _the_stores(function: nodes.FunctionDef) -> dict[tuple[str, str], nodes.Assign]:
    """Each `name.attribute` of `function` stored by one statement of its own body, the
    only store of it in the function, on a name bound once (a parameter, or one
    assignment before the store)."""
    stores: dict[tuple[str, str], list[nodes.AssignAttr]] = {}
    bindings: dict[str, list[nodes.AssignName]] = {}
    for found in function.nodes_of_class((nodes.AssignAttr, nodes.AssignName)):
        if found.scope() is not function:
            continue
        if isinstance(found, nodes.AssignName):
            bindings.setdefault(str(found.name), []).append(found)
        elif isinstance(found.expr, nodes.Name):
            stores.setdefault((str(found.expr.name), str(found.attrname)), []).append(found)
    kept: dict[tuple[str, str], nodes.Assign] = {}
    for (name, attribute), spelled in stores.items():
        if len(spelled) != 1:
            continue
        statement = spelled[0].statement()
        if (
            not isinstance(statement, nodes.Assign)
            or statement.parent is not function
            or statement.targets != [spelled[0]]
        ):
            continue
        bound = bindings.get(name, [])
        if len(bound) > 1 or any((b.lineno or 0) >= (statement.lineno or 0) for b in bound):
            continue
        kept[(name, attribute)] = statement
    return kept
