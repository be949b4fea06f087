"""Kleene's three-valued logic over the value domain, and the join of two paths."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from gatecheck.semantics.values import (
    TRUTHY,
    UNKNOWN,
    ClassRef,
    EachDevice,
    ExternalRef,
    FunctionRef,
    InstanceRef,
    ModuleRef,
    NoneOr,
    OneOf,
    Opaque,
    PartialRef,
    RecordCopy,
    Tri,
    Truthy,
    is_constant,
    is_constant_method,
    is_option,
    truth,
)


def kleene_not(value: Any) -> Tri:
    t = truth(value)
    return UNKNOWN if t is UNKNOWN else (not t)


def bool_op(op: str, values: Iterable[Any]) -> Any:
    """`a and b` / `a or b` with Python's value semantics (`a and b` is a or b), made
    three-valued: once an operand is unknown, only a deciding operand is known. `values`
    is lazy: operands after the deciding one are never evaluated, as in Python.
    Decided after an unknown operand, `or` is true and its value that operand's or the
    deciding one's: the deciding value where it is True, else some true value (Truthy:
    `arch or get_arch()` is not the number True, so `// 10 == 12` on it is unknown).
    An operand that is one of a few values, each of known truth (`caps or [cap()]`, caps
    `[]` where a query raised or the devices' list), decides on the paths of the options
    that decide and passes the others on: the result is one of those options or what
    the operands after it give."""
    result: Any = None
    undecided = False
    decided: list[Any] = []
    for value in values:
        t = truth(value)
        if t is UNKNOWN and not undecided:
            split = _split_by_truth(value, op == "or")
            if split is not None:
                deciding, passing = split
                decided.extend(deciding)
                value, t = either(passing), op == "and"
        if op == "and":
            if t is False:
                return _met(decided, False if undecided else value)
        elif t is True:
            if not undecided:
                return _met(decided, value)
            return _met(decided, True if value is True else TRUTHY)
        if t is UNKNOWN:
            undecided = True
        result = value
    return _met(decided, UNKNOWN if undecided else result)


def _split_by_truth(value: Any, deciding: bool) -> tuple[list[Any], list[Any]] | None:
    """The options of one of a few values (not references) whose truth is `deciding`,
    and the others; None unless both are there and every option's truth is known."""
    if not isinstance(value, OneOf) or not all(is_option(o) for o in value.options):
        return None
    truths = [truth(o) for o in value.options]
    if UNKNOWN in truths:
        return None
    taken = [o for o, t in zip(value.options, truths, strict=True) if t is deciding]
    others = [o for o, t in zip(value.options, truths, strict=True) if t is not deciding]
    return (taken, others) if taken and others else None


def _met(decided: list[Any], value: Any) -> Any:
    """The result where some options decided earlier: one of them or `value`."""
    return either([*decided, value]) if decided else value


def any_all(name: str, items: Sequence[Any]) -> Tri:
    truths = [truth(v) for v in items]
    if name == "any":
        if True in truths:
            return True
        return UNKNOWN if UNKNOWN in truths else False
    if False in truths:
        return False
    return UNKNOWN if UNKNOWN in truths else True


def join(a: Any, b: Any) -> Any:
    """The value of 'a or b, we cannot tell which' (two paths meeting). Two lists (or
    plain tuples, not both of constants: join_returns keeps those as one of them) of one
    length meet item by item: whichever path ran, the value has that length, so its truth
    and `len` stay known (`return [MultipleOf(64)]` on one path and `return [block_size]`
    on another is never empty)."""
    if a is b:
        return a
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if (isinstance(a, Truthy) or isinstance(b, Truthy)) and truth(a) is truth(b) is True:
        return TRUTHY  # some true value either way
    try:
        if type(a) is type(b) and a == b:
            return a
    except Exception:
        return UNKNOWN
    if (
        type(a) is type(b)
        and type(a) in (list, tuple)
        and len(a) == len(b)
        and not (is_constant(a) and is_constant(b))  # either() keeps those whole
    ):
        return type(a)(join(x, y) for x, y in zip(a, b, strict=True))
    return UNKNOWN


# What a OneOf may hold: the project's classes, instances, modules and functions, whose
# attributes and calls can be read. (Two external names, `torch.bfloat16 if x else
# torch.float16`, are values nothing can read: they meet as unknown, unless `outside`.)
REFERENCES = (ClassRef, InstanceRef, ModuleRef, FunctionRef, PartialRef, RecordCopy)
_WITH_OUTSIDE = (*REFERENCES, ExternalRef)
# More options than this (a long chain of conditional expressions): unknown.
MAX_OPTIONS = 8
# ... except references, each read by attribute or call alone: one object of a dozen
# classes (DeepSpeed's accelerator, made by one of ten branches, runtime platform
# dispatch then picking the device vendor's: semantics/dispatch.py).
MAX_REFERENCES = 16


def either(values: Iterable[Any], outside: bool = False) -> Any:
    """The value of one of `values`, we cannot tell which: their join, except that
    references that differ stay a OneOf (attributes and calls through it are each
    option's, met again by `either`). With `outside`, names from outside the scanned
    roots are references too: the objects a name's imports bind (resolve.py), one of
    which the name holds, whose attributes the idioms may read (`Arch.sm_90`)."""
    options: list[Any] = []
    for value in values:
        for option in value.options if isinstance(value, OneOf) else (value,):
            if not any(_same(option, seen) for seen in options):
                options.append(option)
    references = _WITH_OUTSIDE if outside else REFERENCES
    if len(options) > 1 and all(isinstance(o, references) for o in options):
        return OneOf(tuple(options)) if len(options) <= MAX_REFERENCES else UNKNOWN
    if len(options) > 1 and (
        all(is_option(o) for o in options) or all(is_constant_method(o) for o in options)
    ):
        return OneOf(tuple(options)) if len(options) <= MAX_OPTIONS else UNKNOWN
    return join_all(options) if options else UNKNOWN


def join_returns(values: Sequence[Any]) -> Any:
    """What a function returns over its paths: join_optional's answer (None meeting one
    value is NoneOr), except that differing constants stay one of them (either)."""
    result = values[0]
    for value in values[1:]:
        result = join_optional(result, value)
    if result is UNKNOWN and all(
        all(is_option(o) for o in (v.options if isinstance(v, OneOf) else (v,))) for v in values
    ):
        return either(values)
    return result


def _same(a: Any, b: Any) -> bool:
    """One reference, however often made: the same class, or equal values."""
    if a is b:
        return True
    if isinstance(a, ClassRef) and isinstance(b, ClassRef):
        return a.node is b.node
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def join_all(values: Iterable[Any]) -> Any:
    """The join of one or more values (an iterable: lazy_joins.until_unknown)."""
    each = iter(values)
    result = next(each)
    for value in each:
        result = join(result, value)
    return result


_ABSENT = object()


def _optional_parts(value: Any) -> tuple[bool, Any]:
    if value is None:
        return True, _ABSENT
    if isinstance(value, NoneOr):
        return True, value.value
    return False, value


def join_optional(a: Any, b: Any) -> Any:
    """join, except that None meeting one known value is NoneOr(that value)."""
    a_none, a_value = _optional_parts(a)
    b_none, b_value = _optional_parts(b)
    if a_value is _ABSENT:
        value = b_value
    elif b_value is _ABSENT:
        value = a_value
    else:
        value = join(a_value, b_value)
        if value is UNKNOWN and _reference_options(a_value) and _reference_options(b_value):
            # Paths that made different objects: one of them (either), as a conditional
            # expression gives (`inst = Cuda()` / `inst = Cpu()` in two branches).
            value = either([a_value, b_value])
    if value is _ABSENT:
        return None
    if value is UNKNOWN:
        return UNKNOWN
    return NoneOr(value) if a_none or b_none else value


def _reference_options(value: Any) -> bool:
    """A reference (a project class, instance, module or function), or one of several."""
    if isinstance(value, OneOf):
        return all(isinstance(o, REFERENCES) for o in value.options)
    return isinstance(value, REFERENCES)


def item_of_options(container: OneOf, index: Any) -> Any:
    """`x[i]` where x is one of a few constants: each option's item. An option that has
    no such item raises there (None, the module global a function fills on first use,
    `_cap = None` ... `_cap[0] < 9`; `()`, a per-device helper's `except` fallback),
    and a raise is no value: the others' items, met. A machine's per-device values
    (values.EachDevice) have at least one item, each the one value, at an integer index."""
    if not all(is_option(o) for o in container.options):
        return UNKNOWN  # references: what their items are is not read
    items = []
    for option in container.options:
        if isinstance(option, EachDevice):
            if isinstance(index, int):
                items.append(option.item)  # past the last device it raises
            continue
        if isinstance(option, Opaque):
            return UNKNOWN  # SomeText: a string whose characters are not read
        try:
            items.append(option[index])
        except (TypeError, IndexError, KeyError):
            continue
    return either(items) if items else UNKNOWN
