"""Environments of a function body: bind targets, merge branches, narrow on None."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from astroid import nodes

from gatecheck.semantics.logic import either, item_of_options, join_returns
from gatecheck.semantics.values import (
    UNKNOWN,
    EachDevice,
    InstanceRef,
    Iterating,
    NoneOr,
    OneOf,
    contains_unknown,
    truth,
)

Env = dict[str, Any]

# A `for` over a known list or tuple this short is read item by item (`for arch in
# ["gfx940", "gfx942"]: if arch in name: return True`); a longer one, or one whose items
# are not all known, is read as any number of iterations over items not known.
MAX_UNROLLED = 16


def loop_items(items: Any) -> tuple[Any, ...] | None:
    """The items a `for` runs over, when its iterable evaluated to a known list or tuple
    of at most MAX_UNROLLED items; None otherwise."""
    known = (
        isinstance(items, (tuple, list))
        and len(items) <= MAX_UNROLLED
        and not contains_unknown(items)
    )
    return tuple(items) if known else None


def loop_item(items: tuple[Any, ...] | None) -> Any:
    """What the target of a `for` over `items` (loop_items; None: not known) holds in the
    loop's body: one of them, we cannot tell which (logic.either: a few constants or
    references stay a OneOf, and a test of it is each one's). A condition there can be
    true where it can for some item: `for kernel in (Fast, Slow): if
    kernel.min_capability() > cc: continue` tests both classes' bounds."""
    return UNKNOWN if items is None else either(items)


def loop_target(iterated: Any) -> Any:
    """What a `for` target holds in the loop's body, given what the loop runs over: one of
    a few known items (loop_item), or, over the machine's devices (values.EachDevice:
    `for cap in caps:`, caps an item per device), the item: each device is the one
    generation the condition is read for. Unknown otherwise."""
    if isinstance(iterated, EachDevice):
        return iterated.item
    return loop_item(loop_items(iterated))


def index_path(value: Any, path: Sequence[int]) -> Any:
    """The item at `path` (`a, (b, c) = value`); of one of a few constants, each one's
    (`ok, reason = probe()`, where probe returns `(False, "...")` or `(True, "")`)."""
    for index in path:
        if value is UNKNOWN:
            return UNKNOWN
        if isinstance(value, NoneOr):
            value = value.value  # unpacking None raises: where it goes on, the value
        if isinstance(value, Iterating):
            value = value.items  # `major, minor = map(int, ...)`
        if isinstance(value, OneOf):
            value = item_of_options(value, index)
            continue
        if isinstance(value, InstanceRef):
            value = _record_field(value, index)
            continue
        try:
            value = value[index]
        except Exception:
            return UNKNOWN
    return value


def _record_field(record: InstanceRef, index: int) -> Any:
    """The field at `index` of a NamedTuple instance its class spells as one (`major,
    minor = DeviceCapability(major=..., minor=...)`), as made; UNKNOWN otherwise."""
    spelled = (b.as_string() for b in record.cls.bases)
    if not any(b.endswith(("NamedTuple", "namedtuple")) for b in spelled):
        return UNKNOWN
    return field_at(record, index)


def field_at(record: InstanceRef, index: int) -> Any:
    """The field of a record at a place (negative: from the end), as made; UNKNOWN
    where the record has no such field or it was not given."""
    fields = annotated_fields(record.cls)
    at = index + len(fields) if index < 0 else index
    if 0 <= at < len(fields) and fields[at] in record.attrs:
        return record.attrs[fields[at]]
    return UNKNOWN


def annotated_fields(cls: nodes.ClassDef) -> list[str]:
    """A NamedTuple's or dataclass's fields: its annotated class attributes, in order."""
    return [
        stmt.target.name
        for stmt in cls.body
        if isinstance(stmt, nodes.AnnAssign) and isinstance(stmt.target, nodes.AssignName)
    ]


def bind_target(target: nodes.NodeNG, value: Any, env: Env) -> None:
    if isinstance(target, nodes.AssignName):
        env[target.name] = value
    elif isinstance(target, (nodes.Tuple, nodes.List)):
        for index, element in enumerate(target.elts):
            if isinstance(element, nodes.Starred):
                bind_target(element.value, UNKNOWN, env)
                continue
            bind_target(element, index_path(value, [index]), env)


def forget_assigned(stmt: nodes.NodeNG, env: Env) -> None:
    for name_node in stmt.nodes_of_class(nodes.AssignName):
        env[name_node.name] = UNKNOWN


def forget_assigned_in(body: Sequence[nodes.NodeNG], env: Env) -> None:
    for stmt in body:
        forget_assigned(stmt, env)


def merge_into(env: Env, branches: Sequence[Env]) -> None:
    """Each name as the branches leave it, met as a function's returns meet
    (logic.join_returns): None beside a value is NoneOr, and differing constants stay
    one of them (`try: cc = get_device_capability() except Exception: cc = (0, 0)`
    then `cc >= (8, 9)` is each one's, as the conditional expression would give)."""
    keys = set().union(*branches) if branches else set()
    for key in keys:
        env[key] = join_returns([b.get(key, UNKNOWN) for b in branches])


def narrowed(test: nodes.NodeNG, env: Env) -> tuple[Env, Env] | None:
    """`if x is not None:` (`is None`, `x`, `not x`) on a local holding NoneOr: the
    branch where x is its value and the branch where it is None, as two environments.
    Tests joined by `and` narrow the branch where all hold (`x is not None and y`), by
    `or` the branch where none holds (`x is None or y`)."""
    if isinstance(test, nodes.BoolOp):
        return _narrowed_by_all(test, env)
    negate = False
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        test, negate = test.operand, True
    by_truth = True
    if isinstance(test, nodes.Compare):
        compared = none_compared(test)
        if compared is None:
            return None
        test, true_when_none = compared
        negate ^= true_when_none
        by_truth = False
    held = env.get(test.name) if isinstance(test, nodes.Name) else None
    value = _without_none(held)
    if value is _NOT_OPTIONAL:
        return None
    if by_truth and truth(value) is not True:
        return None  # a falsy value (0, "") takes the None branch too
    present, absent = dict(env), dict(env)
    present[test.name], absent[test.name] = value, None
    return (absent, present) if negate else (present, absent)


def none_compared(test: nodes.Compare) -> tuple[nodes.NodeNG, bool] | None:
    """`x is None` / `x is not None`: x, and whether the test is true when x is None."""
    if len(test.ops) != 1:
        return None
    op, right = test.ops[0]
    if op not in ("is", "is not") or not (isinstance(right, nodes.Const) and right.value is None):
        return None
    return test.left, op == "is"


_NOT_OPTIONAL = object()


def _without_none(held: Any) -> Any:
    """What a local holds when it is not None: NoneOr's value, or a OneOf's options
    other than None (a global read through `global`, see statements._global); else
    _NOT_OPTIONAL."""
    if isinstance(held, NoneOr):
        return held.value
    if isinstance(held, OneOf) and any(option is None for option in held.options):
        rest = tuple(option for option in held.options if option is not None)
        return rest[0] if len(rest) == 1 else OneOf(rest)
    return _NOT_OPTIONAL


def _narrowed_by_all(test: nodes.BoolOp, env: Env) -> tuple[Env, Env] | None:
    """The branch an `and` takes when it is true (each operand narrows the next), or an
    `or` when it is false; the other branch is the environment as it was."""
    *_, last = scopes = _scopes(test, env)
    if all(scope is env for scope in scopes):
        return None
    return (last, dict(env)) if test.op == "and" else (dict(env), last)


def operand_scopes(test: nodes.BoolOp, env: Env | None) -> list[Env | None]:
    """The environment each operand of `a and b` / `a or b` is evaluated in: an operand
    runs only where those before it did not decide, so `x is not None and x < 8` reads
    x as its value (the None option ended the `and` before)."""
    if env is None:
        return [None] * len(test.values)
    return list[Env | None](_scopes(test, env)[:-1])


def _scopes(test: nodes.BoolOp, env: Env) -> list[Env]:
    """The environment before each operand, then the one after the last: each operand
    that tests a local for None narrows the ones after it (where `and` goes on, its
    true branch; where `or` goes on, its false one)."""
    scopes = [env]
    for operand in test.values:
        split = narrowed(operand, scopes[-1])
        scopes.append(scopes[-1] if split is None else split[0 if test.op == "and" else 1])
    return scopes
