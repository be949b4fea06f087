"""`receiver.name`, by the receiver's kind: a module's binding, a class or instance
attribute (the class model), a device value's attribute (the idioms), a pure method of
a known str or dict. Anything else is unknown."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gatecheck.semantics import classes, dispatch, replay, resolve, text_patterns
from gatecheck.semantics.idioms._model import NOT_MINE
from gatecheck.semantics.lazy_joins import until_unknown
from gatecheck.semantics.logic import either
from gatecheck.semantics.values import (
    UNKNOWN,
    Builtin,
    ClassRef,
    EnumMember,
    ExternalRef,
    InstanceRef,
    Iterating,
    ModuleRef,
    OneOf,
    SetItems,
    SuperRef,
)

if TYPE_CHECKING:
    from astroid import nodes

    from gatecheck.semantics.evaluator import Evaluator

# Methods of known values that are safe to call (pure, no I/O).
_SAFE_METHODS: dict[type, set[str]] = {
    str: {
        "split",
        "startswith",
        "endswith",
        "lower",
        "upper",
        "strip",
        "replace",
        "rstrip",
        "lstrip",
        "find",
        "partition",
        "rsplit",
        "rfind",
        "rpartition",
        "removeprefix",
        "removesuffix",
        "casefold",
        "count",
        "isdigit",
        "isdecimal",
        "isnumeric",
        "isalpha",
        "isalnum",
    },
    dict: {"get", "keys", "values", "items"},
    re.Match: set(text_patterns.MATCH_METHODS),
}


def _joiner(separator: str) -> Any:
    """`separator.join`, over a tuple, a list or an iterator of known items only
    (`"".join(map(str, capability))`): a set's order is the hash seed's, and the answer
    must not depend on the run (`"".join(c for c in arch if c.isdigit())`). Items that
    are not all strings: unknown (Python raises)."""

    def join(items: Any) -> Any:
        if isinstance(items, Iterating):
            items = items.items
        if not isinstance(items, (tuple, list)) or isinstance(items, SetItems):
            return UNKNOWN
        if not all(isinstance(item, str) for item in items):
            return UNKNOWN
        return separator.join(items)

    return join


def _module(ev: Evaluator, receiver: ModuleRef, name: str) -> Any:
    return resolve.module_attribute(ev, receiver.name, name)


def _external(ev: Evaluator, receiver: ExternalRef, name: str) -> Any:
    dotted = f"{receiver.dotted}.{name}"
    intrinsic = ev.idioms.module_attribute(dotted, ev.generation)
    if ev.trace is not None:
        ev.trace.append((replay.INTRINSIC_ATTRIBUTE, dotted, intrinsic))
    if intrinsic is NOT_MINE:
        return ExternalRef(dotted)
    if ev.idioms.reads_device(dotted):
        ev.reads.device = True
    if assumption := ev.idioms.assumption(dotted):
        ev.reads.assumed.add(assumption)
    return intrinsic


def _class(ev: Evaluator, receiver: ClassRef, name: str) -> Any:
    return classes.class_attribute(ev, receiver.node, name, receiver)


def _instance(
    ev: Evaluator, receiver: InstanceRef, name: str, reader: nodes.NodeNG | None = None
) -> Any:
    if name in receiver.attrs:
        return receiver.attrs[name]
    if name == "_replace" and (copy := classes.record_copy(ev, receiver)) is not None:
        return copy
    if not receiver.assumed:
        return classes.class_attribute(ev, receiver.cls, name, receiver, reader=reader)
    # Noted where the value read is known and came from the device: an unknown one
    # rests on nothing the assumption gives.
    reads = ev.reads
    before, reads.device = reads.device, False
    value = UNKNOWN
    try:
        value = classes.class_attribute(ev, receiver.cls, name, receiver, reader=reader)
        return value
    finally:
        if reads.device and value is not UNKNOWN:
            reads.assumed.add(receiver.assumed)
        reads.device = reads.device or before


def _builtin(ev: Evaluator, receiver: Builtin, name: str) -> Any:
    if receiver.name == "object" and name in ("__getattribute__", "__setattr__"):
        return Builtin(f"object.{name}")
    return UNKNOWN


def _super(ev: Evaluator, receiver: SuperRef, name: str) -> Any:
    bound = receiver.receiver
    if isinstance(bound, ClassRef):
        cls = bound.node
    elif isinstance(bound, InstanceRef):
        cls = bound.cls
    else:
        return UNKNOWN
    return classes.class_attribute(ev, cls, name, bound, fallback=False, after=receiver.owner)


def _one_of(ev: Evaluator, receiver: OneOf, name: str) -> Any:
    """Each option's attribute, met. Of one of two imported modules (`try: import
    cutlass.cute as cute` / `except ImportError: import cute_compat as cute`), an
    attribute from outside the project stays an option too (`cute.Arch` is either
    module's Arch, and `cute.Arch.sm_90` each one's member). Of instances of platforms'
    classes, the device's vendor's (dispatch.served_options)."""
    served = dispatch.served_options(ev, receiver)
    if served is not receiver:
        return attribute(ev, served, name)
    outside = any(isinstance(option, ExternalRef) for option in receiver.options)
    values = until_unknown(ev, (attribute(ev, option, name) for option in receiver.options))
    return either(values, outside=outside)


def _enum_member(ev: Evaluator, receiver: EnumMember, name: str) -> Any:
    """`Backend.HOPPER.value` / `.name`: what the class body binds to the member, and
    its name (an alias's is its canonical member's). Thresholds kept in an Enum
    (`HOPPER = 232448`, compared with the device's shared memory) are read through
    it. Any other attribute (a method, a property) is unknown."""
    if name == "name":
        return receiver.name
    if name == "value":
        return classes.enum_value(ev, receiver)
    return UNKNOWN


_BY_KIND: dict[type, Callable[[Evaluator, Any, str], Any]] = {
    ModuleRef: _module,
    ExternalRef: _external,
    ClassRef: _class,
    InstanceRef: _instance,
    Builtin: _builtin,
    OneOf: _one_of,
    SuperRef: _super,
    EnumMember: _enum_member,
}


def attribute(ev: Evaluator, receiver: Any, name: str, reader: nodes.NodeNG | None = None) -> Any:
    """`reader`: the expression reading it, where there is one (an instance's attribute
    read inside the method that sets it later is not the value it ends with)."""
    if receiver is UNKNOWN:
        return UNKNOWN
    if reader is not None and type(receiver) is InstanceRef:
        return _instance(ev, receiver, name, reader)
    by_kind = _BY_KIND.get(type(receiver))
    if by_kind is not None:
        return by_kind(ev, receiver, name)
    answer = ev.idioms.value_attribute(receiver, name)
    if answer is not NOT_MINE:
        return answer
    if ev.idioms.knows_type(receiver):
        return UNKNOWN  # a device value: only its idioms say what it has
    if name == "join" and isinstance(receiver, str):
        return _joiner(receiver)
    if isinstance(receiver, text_patterns.Compiled):
        return receiver.method(name)
    for kind, methods in _SAFE_METHODS.items():
        if isinstance(receiver, kind) and name in methods:
            return getattr(receiver, name)
    return UNKNOWN
