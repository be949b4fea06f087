"""A list filled by a loop appending one item per iteration, read after the loop: `caps =
[]` then `for i in range(torch.cuda.device_count()): caps.append(get_device_capability(i))`
holds what `[get_device_capability(i) for i in range(torch.cuda.device_count())]` gives
(values.EachDevice: an item per device, each the device's), and over a known list, the
items in order. unsloth's helpers gather the machine's capabilities so before testing
`min(c[0] for c in caps) >= 9`; written as a comprehension, the same helper was read.

Only that shape: a `for` (not async, no `else`) whose body is the one call `name.append(
expr)` (perhaps in a `try` whose handlers skip the iteration, or past `try: local = value`
with such handlers: unsloth reads each card guarded so), `expr` not reading the list, the
list known before the loop (for the machine's devices, empty); read where the statement
walk runs the loop (statements.exec_block), or where a condition after it reads the list
(resolve.resolve_name) when its binding is the empty display right before, in the same
block, and that loop is the only change of it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from astroid import nodes

from gatecheck.semantics.values import EachDevice

if TYPE_CHECKING:
    from gatecheck.semantics.env import Env
    from gatecheck.semantics.evaluator import Evaluator


class Appending(NamedTuple):
    """What a loop of loop_append's shape does each iteration: `name.append(item)`, past
    `local = value` where an iteration first binds one (each item read with it)."""

    name: str
    item: nodes.NodeNG
    local: str | None = None
    value: nodes.NodeNG | None = None
    guarded: bool = False  # in a `try` whose handlers skip the iteration


def loop_append(stmt: nodes.NodeNG) -> Appending | None:
    """What loop `stmt` appends each iteration, where its body is `name.append(item)`, or
    that call in a `try` whose handlers skip the iteration (`except Exception: continue`,
    a device that cannot be read), or `try: local = value` with such handlers before the
    call; None for any other statement. A skipped iteration adds nothing: the items are
    those of the iterations that ran, each as the others (a machine's devices, at least
    one of which is read, as the comprehension over them assumes)."""
    if not isinstance(stmt, nodes.For) or isinstance(stmt, nodes.AsyncFor) or stmt.orelse:
        return None
    body = list(stmt.body)
    local: str | None = None
    value: nodes.NodeNG | None = None
    guarded = bool(body) and _skipping_try(body[0])
    if len(body) == 2 and _skipping_try(body[0]):
        bound = body[0].body
        if len(bound) != 1 or not isinstance(bound[0], nodes.Assign):
            return None
        (target,) = bound[0].targets if len(bound[0].targets) == 1 else (None,)
        if not isinstance(target, nodes.AssignName):
            return None
        local, value, body = str(target.name), bound[0].value, body[1:]
    elif len(body) == 1 and _skipping_try(body[0]):
        body = list(body[0].body)
    found = _append_call(body)
    if found is None:
        return None
    name, item = found
    if any(n.name == name for n in stmt.target.nodes_of_class(nodes.AssignName)) or local == name:
        return None
    if value is not None and any(n.name == name for n in value.nodes_of_class(nodes.Name)):
        return None
    return Appending(name, item, local, value, guarded)


def _skipping_try(stmt: nodes.NodeNG) -> bool:
    """`try: ...` whose every handler only skips the iteration (`continue`)."""
    return (
        isinstance(stmt, nodes.Try)
        and bool(stmt.handlers)
        and not stmt.orelse
        and not stmt.finalbody
        and all(len(h.body) == 1 and isinstance(h.body[0], nodes.Continue) for h in stmt.handlers)
    )


def _append_call(body: list[nodes.NodeNG]) -> tuple[str, nodes.NodeNG] | None:
    """(the list's name, the item) of a body that is the one call `name.append(item)`."""
    if len(body) != 1 or not isinstance(body[0], nodes.Expr):
        return None
    call = body[0].value
    if not isinstance(call, nodes.Call) or call.keywords or len(call.args) != 1:
        return None
    func = call.func
    if not (isinstance(func, nodes.Attribute) and func.attrname == "append"):
        return None
    if not isinstance(func.expr, nodes.Name):
        return None
    name, item = str(func.expr.name), call.args[0]
    if isinstance(item, nodes.Starred):
        return None
    if any(n.name == name for n in item.nodes_of_class(nodes.Name)):
        return None
    return name, item


def after_loop(ev: Evaluator, stmt: nodes.For, before: Any, env: Env | None) -> Any | None:
    """What the list holds after loop `stmt` (loop_append's shape), given what it held
    before: the items appended after those, or one per device; None where that is not
    read (the list or the items not known)."""
    from gatecheck.semantics.expressions import comprehended

    found = loop_append(stmt)
    if found is None or type(before) is not list:
        return None
    target, items = stmt.target, stmt.iter
    made = comprehended(ev, list, target, items, found.item, (), env, found.local, found.value)
    if type(made) is list:
        # Over known items every iteration appends, unless one may be skipped.
        return None if found.guarded else [*before, *made]
    if isinstance(made, EachDevice) and not before:
        return made
    return None


def filled_by_loop(
    ev: Evaluator, read: nodes.Name, binding: nodes.NodeNG, changes: list[nodes.Name]
) -> Any | None:
    """The local list `read` names, where its one binding is `name = []`, the only change
    of it is a loop of loop_append's shape later in the same block, and the read comes
    after that loop (in a later statement of the block, or below one); None otherwise."""
    statement = binding.parent
    if not (
        isinstance(binding, nodes.AssignName)
        and isinstance(statement, nodes.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.value, nodes.List)
        and not statement.value.elts
    ):
        return None
    if len(changes) != 1:
        return None
    loop = changes[0].parent
    while loop is not None and not isinstance(loop, nodes.For):
        loop = loop.parent  # Name < Attribute < Call < Expr (< Try) < For
    if loop is None or loop.parent is not statement.parent:
        return None
    found = loop_append(loop)
    if found is None or found.name != binding.name:
        return None
    block = getattr(statement.parent, "body", None)
    if not isinstance(block, list) or statement not in block or loop not in block:
        return None
    if block.index(loop) <= block.index(statement):
        return None
    later = block[block.index(loop) + 1 :]
    node: nodes.NodeNG | None = read
    while node is not None and node not in later:
        if node is loop or node is statement.parent:
            return None
        node = node.parent
    if node is None:
        return None
    return after_loop(ev, loop, [], None)
