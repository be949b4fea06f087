"""A list filled by a loop appending one item per iteration, read after the loop: `caps =
[]` then `for i in range(torch.cuda.device_count()): caps.append(get_device_capability(i))`
holds what `[get_device_capability(i) for i in range(torch.cuda.device_count())]` gives
(values.EachDevice: an item per device, each the device's), and over a known list, the
items in order. unsloth's helpers gather the machine's capabilities so before testing
`min(c[0] for c in caps) >= 9`; written as a comprehension, the same helper was read.

Only that shape: a `for` (not async, no `else`) whose body ends with the one call
`name.append(expr)`, perhaps in a `try` whose handlers skip the iteration (a device that
cannot be read), or under `if expr not in name:` (the item added once: DeepSpeed's JIT
builder gathers `f"{major}.{minor}"` so), after assignments of plain names that the
iteration makes first (`major, minor = get_device_capability(i)`; each perhaps alone in
such a `try`: unsloth reads each card guarded so); nothing but that test reads the list,
which is known before the loop (for the machine's devices, empty). Read where the
statement walk runs the loop (statements.exec_block), or where a condition after it reads
the list (resolve.resolve_name) when its binding is the empty display right before, in
the same block, and that loop is the only change of it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from astroid import nodes

from gatecheck.semantics.values import EachDevice

if TYPE_CHECKING:
    from gatecheck.semantics.env import Env
    from gatecheck.semantics.evaluator import Evaluator


class Appending(NamedTuple):
    """What a loop of loop_append's shape does each iteration: `name.append(item)`, past
    the assignments it makes first (`prelude`: each target and value, in order)."""

    name: str
    item: nodes.NodeNG
    prelude: tuple[tuple[nodes.NodeNG, nodes.NodeNG], ...] = ()
    guarded: bool = False  # in a `try` whose handlers skip the iteration
    once: bool = False  # under `if item not in name:`


def loop_append(stmt: nodes.NodeNG) -> Appending | None:
    """What loop `stmt` appends each iteration, where its body is `name.append(item)`
    (in a `try` whose handlers skip the iteration, `except Exception: continue`, or under
    `if item not in name:`), after assignments to plain names (each perhaps alone in such
    a `try`); None for any other statement. A skipped iteration adds nothing: the items
    are those of the iterations that ran, each as the others (a machine's devices, at
    least one of which is read, as the comprehension over them assumes)."""
    if not isinstance(stmt, nodes.For) or isinstance(stmt, nodes.AsyncFor) or stmt.orelse:
        return None
    body = list(stmt.body)
    if not body:
        return None
    prelude: list[tuple[nodes.NodeNG, nodes.NodeNG]] = []
    guarded = False
    for statement in body[:-1]:
        if _skipping_try(statement):
            guarded = True
            if len(statement.body) != 1:
                return None
            statement = statement.body[0]
        bound = _plain_assignment(statement)
        if bound is None:
            return None
        prelude.append(bound)
    last = body[-1]
    once = False
    if _skipping_try(last):
        guarded = True
        found = _append_call(list(last.body))
    else:
        found = _append_call([last])
        if found is None:
            found = _appended_once(last)
            once = found is not None
    if found is None:
        return None
    name, item = found
    bound_names = {
        n.name
        for target in (stmt.target, *(t for t, _ in prelude))
        for n in target.nodes_of_class(nodes.AssignName)
    }
    if name in bound_names:
        return None
    if any(_reads(value, name) for _, value in prelude):
        return None
    return Appending(name, item, tuple(prelude), guarded, once)


def _plain_assignment(stmt: nodes.NodeNG) -> tuple[nodes.NodeNG, nodes.NodeNG] | None:
    """(target, value) of `name = value` or `a, b = value` (plain names, no `*`)."""
    if not isinstance(stmt, nodes.Assign) or len(stmt.targets) != 1:
        return None
    (target,) = stmt.targets
    if isinstance(target, (nodes.Tuple, nodes.List)):
        if not all(isinstance(e, nodes.AssignName) for e in target.elts):
            return None
    elif not isinstance(target, nodes.AssignName):
        return None
    return target, stmt.value


def _appended_once(stmt: nodes.NodeNG) -> tuple[str, nodes.NodeNG] | None:
    """(the list's name, the item) of `if item not in name: name.append(item)`, the item
    the same expression in the test and the call."""
    if not isinstance(stmt, nodes.If) or stmt.orelse:
        return None
    test = stmt.test
    if not (isinstance(test, nodes.Compare) and len(test.ops) == 1):
        return None
    operator, container = test.ops[0]
    if operator != "not in" or not isinstance(container, nodes.Name):
        return None
    found = _append_call(list(stmt.body))
    if found is None or found[0] != container.name:
        return None
    if found[1].as_string() != test.left.as_string():
        return None
    return found


def _reads(node: nodes.NodeNG, name: str) -> bool:
    return any(n.name == name for n in node.nodes_of_class(nodes.Name))


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
    if _reads(item, name):
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
    made = comprehended(ev, list, target, items, found.item, (), env, found.prelude)
    if type(made) is list:
        # Over known items every iteration appends, unless one may be skipped.
        if found.guarded:
            return None
        return _added_once([*before], made) if found.once else [*before, *made]
    if isinstance(made, EachDevice) and not before:
        return made
    return None


def _added_once(held: list[Any], items: Sequence[Any]) -> list[Any] | None:
    """`held` after `if x not in held: held.append(x)` for each of `items`, in order;
    None where an item is not a plain constant (whether it is in already is not known:
    one of several values may be equal to one held, or not)."""
    if not all(_plain(v) for v in (*held, *items)):
        return None
    for item in items:
        if item not in held:
            held.append(item)
    return held


def _plain(value: Any) -> bool:
    if isinstance(value, tuple) and type(value) is tuple:
        return all(_plain(v) for v in value)
    return value is None or type(value) in (int, str, float, bool)


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
