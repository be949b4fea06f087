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


def stored_before(ev: Evaluator, node: nodes.Attribute) -> Any:
    """The value the function stores in `node`'s attribute before reading it, or
    NOT_STORED."""
    receiver = node.expr
    function = node.scope()
    if not isinstance(receiver, nodes.Name) or not isinstance(function, nodes.FunctionDef):
        return NOT_STORED
    key = ("stored-attribute", id(function), receiver.name, node.attrname)
    if key not in ev.facts:  # the code's shape: the same on every generation
        ev.facts[key] = _the_store(function, receiver.name, node.attrname)
    store = ev.facts[key]
    if store is None:
        return NOT_STORED
    reading = node.statement()
    if (reading.lineno or 0) <= (store.lineno or 0) or reading is store:
        return NOT_STORED
    return ev.eval(store.value, None)


def _the_store(function: nodes.FunctionDef, name: str, attribute: str) -> nodes.Assign | None:
    """The one statement of `function`'s body storing `name.attribute`, when it is the
    only store of it in the function and `name` is bound once (a parameter, or one
    assignment before the store)."""
    stores = [
        a
        for a in function.nodes_of_class(nodes.AssignAttr)
        if a.attrname == attribute
        and isinstance(a.expr, nodes.Name)
        and a.expr.name == name
        and a.scope() is function
    ]
    if len(stores) != 1:
        return None
    statement = stores[0].statement()
    if (
        not isinstance(statement, nodes.Assign)
        or statement.parent is not function
        or statement.targets != [stores[0]]
    ):
        return None
    bindings = [
        b
        for b in function.nodes_of_class(nodes.AssignName)
        if b.name == name and b.scope() is function
    ]
    if any((b.lineno or 0) >= (statement.lineno or 0) for b in bindings) or len(bindings) > 1:
        return None
    return statement
