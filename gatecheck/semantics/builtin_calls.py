"""Python's builtins as the analysed code calls them: pure ones computed on known
values, getattr/hasattr/isinstance answered by the value domain and the class model."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from gatecheck.semantics import classes
from gatecheck.semantics.bounds import safe
from gatecheck.semantics.idioms._model import NOT_MINE
from gatecheck.semantics.logic import any_all, either
from gatecheck.semantics.module_names import module_binds
from gatecheck.semantics.values import (
    UNKNOWN,
    Builtin,
    ClassRef,
    EachDevice,
    ExternalRef,
    FunctionRef,
    InstanceRef,
    Iterating,
    ModuleRef,
    OneOf,
    PartialRef,
    SetItems,
    SomeText,
    contains_unknown,
    has_opaque,
    is_option,
    one_value_set,
    truth,
)

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

BUILTINS: dict[str, Any] = {
    name: Builtin(name)
    for name in (
        "tuple",
        "list",
        "int",
        "str",
        "float",
        "bool",
        "len",
        "min",
        "max",
        "any",
        "all",
        "map",
        "sorted",
        "set",
        "frozenset",
        "abs",
        "round",
        "isinstance",
        "dict",
        "getattr",
        "hasattr",
        "setattr",
        "iter",
        "next",
        "object",
        "super",
    )
}

_BUILTIN_TYPES: dict[str, type] = {
    "tuple": tuple,
    "list": list,
    "int": int,
    "str": str,
    "float": float,
    "bool": bool,
    "dict": dict,
    "set": set,
    "frozenset": frozenset,
}
_BUILTIN_IMPLS: dict[str, Callable[..., Any]] = {
    "tuple": tuple,
    "list": list,
    "int": int,
    "str": str,
    "float": float,
    "bool": bool,
    "len": len,
    "min": min,
    "max": max,
    "any": any,
    "all": all,
    "sorted": sorted,
    "set": set,
    "frozenset": frozenset,
    "abs": abs,
    "round": round,
}


def _options_of(value: Any) -> tuple[Any, ...]:
    return value.options if isinstance(value, OneOf) else (value,)


def _unclaimed(ev: Evaluator, value: Any) -> bool:
    """A name from outside the project that no idiom gives a meaning."""
    return isinstance(value, ExternalRef) and not ev.idioms.claims(value.dotted)


# Values whose attributes Python's own types decide (`getattr(None, "hip", d)` is d).
_PLAIN = (type(None), bool, int, float, str, tuple)


def _getattr_or(ev: Evaluator, receiver: Any, attr: str, default: Any) -> Any:
    """`getattr(receiver, attr, default)` for one receiver."""
    if type(receiver) in _PLAIN and not hasattr(type(receiver), attr):
        return default
    if isinstance(receiver, ModuleRef) and module_binds(ev, receiver.name, attr) is False:
        return default  # bound only under a device test that is false here
    found = ev.get_attribute(receiver, attr)
    if found is UNKNOWN:
        return UNKNOWN
    if any(_unclaimed(ev, f) for f in _options_of(found)):
        # An external module may lack the name (that is why a default is given): the
        # result is the attribute or the default, which one is unknown. So for one of two
        # imported modules (resolve.imports_only) if either may lack it. Kept as the two,
        # for a further attribute of it (each option's, the default's too).
        return OneOf((*_options_of(found), default))
    return found


def call_builtin(ev: Evaluator, name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    if name == "getattr" and len(args) == 3 and isinstance(args[1], str):
        # Each option's attribute, or the default where it lacks one:
        # `getattr(getattr(torch, "version", None), "hip", None)` is torch.version.hip or
        # None (None has no `hip`), whichever the inner call gave.
        found = [_getattr_or(ev, o, args[1], args[2]) for o in _options_of(args[0])]
        if len(found) == 1:
            return found[0]
        if any(f is UNKNOWN or isinstance(f, OneOf) for f in found):
            return UNKNOWN
        return either(found, outside=True)
    if name == "getattr" and len(args) == 2 and isinstance(args[1], str):
        return ev.get_attribute(args[0], args[1])
    if name == "hasattr" and len(args) == 2 and isinstance(args[1], str):
        if isinstance(args[0], ModuleRef):
            return module_binds(ev, args[0].name, args[1])
        answer = ev.idioms.has_attribute(args[0], args[1])
        return UNKNOWN if answer is NOT_MINE else answer
    if name == "object.__getattribute__" and len(args) == 2 and isinstance(args[1], str):
        # The normal lookup, without the class's __getattr__.
        receiver, attr = args
        if isinstance(receiver, InstanceRef):
            if attr in receiver.attrs:
                return receiver.attrs[attr]
            return classes.class_attribute(ev, receiver.cls, attr, receiver, fallback=False)
        return ev.get_attribute(receiver, attr)
    if name == "dict" and not args:
        return dict(kwargs)
    if name == "isinstance" and len(args) == 2:
        return _isinstance(ev, args[0], args[1])
    if name == "iter" and len(args) == 1 and not kwargs:
        return _iterating(args[0])
    if name == "next" and len(args) in (1, 2) and not kwargs:
        if not isinstance(args[0], Iterating):
            return UNKNOWN
        if args[0].items:
            return args[0].items[0]
        return args[1] if len(args) == 2 else UNKNOWN  # StopIteration
    if name == "map" and len(args) == 2 and not kwargs:
        return _mapped(args[0], args[1])
    if len(args) == 1 and isinstance(args[0], Iterating) and name in _CONSUMERS:
        args = [args[0].items]  # what tuple(), sorted(), min() ... read of it
    if len(args) == 1 and isinstance(args[0], EachDevice) and _ordering_only(name, kwargs):
        return _of_each_device(name, args[0])
    if len(args) == 1 and isinstance(args[0], OneOf) and not kwargs and name in _PER_OPTION:
        return _per_option(ev, name, args[0])
    if name == "len" and len(args) == 1 and not kwargs and isinstance(args[0], tuple):
        # A tuple's length is its shape's, whatever its items (`(err, major)` of a CUDA
        # call whose error code is unknown: `len(result) == 2`); not a set's (SetItems).
        return UNKNOWN if isinstance(args[0], SetItems) else len(args[0])
    if contains_unknown(list(args)) or kwargs:
        if name in ("any", "all") and args and isinstance(args[0], (tuple, list)):
            return any_all(name, args[0])
        return UNKNOWN
    impl = _BUILTIN_IMPLS.get(name)
    if impl is None or (name == "str" and has_opaque(list(args))):
        # str() of a value that is not read would spell gatecheck's own object.
        return UNKNOWN
    return safe(lambda: impl(*args))


# Builtins that read an iterable through once, whole.
_CONSUMERS = frozenset(("tuple", "list", "set", "frozenset", "sorted", "min", "max", "any", "all"))
_CONVERSIONS = frozenset(("int", "float", "str", "bool", "abs", "round"))


# Builtins of one argument read for each of a few values it may be.
_PER_OPTION = _CONSUMERS | _CONVERSIONS | {"len", "sum"}


def _per_option(ev: Evaluator, name: str, value: OneOf) -> Any:
    """`min(majors)` where `majors` is one of a few sequences (`()` where a query raised,
    or each device's major): each one's, one of the results. An empty sequence has no
    min or max: the call raises there, and a raise is no value (the others', as
    logic.item_of_options reads an item). Unknown where an option's is."""
    if not all(is_option(o) for o in value.options):
        return UNKNOWN
    found = []
    for option in value.options:
        if name in ("min", "max") and type(option) in (tuple, list) and not option:
            continue
        result = call_builtin(ev, name, [option], {})
        if result is UNKNOWN or not is_option(result):
            return UNKNOWN
        found.append(result)
    return either(found) if found else UNKNOWN


def _mapped(func: Any, items: Any) -> Any:
    """`map(int, capability)` (`tuple(map(int, ...))`, `major, minor = map(int, ...)`):
    a conversion builtin over known items, an iterator of the converted items; over a
    machine's per-device values, each device's converted."""
    if not (isinstance(func, Builtin) and func.name in _CONVERSIONS):
        return UNKNOWN
    impl = _BUILTIN_IMPLS[func.name]
    if isinstance(items, EachDevice):
        if contains_unknown(items.item):
            return UNKNOWN
        item = safe(partial(impl, items.item))
        return UNKNOWN if item is UNKNOWN else EachDevice(item)
    if not isinstance(items, (tuple, list)) or contains_unknown(items):
        return UNKNOWN
    converted = tuple(safe(partial(impl, v)) for v in items)
    return UNKNOWN if UNKNOWN in converted else Iterating(converted)


# Keywords that only order the items or pick among them (a default stands for no item,
# and a machine has a device at least): over items that are all one value, no change.
_ORDERING = {
    "sorted": frozenset({"key", "reverse"}),
    "min": frozenset({"key", "default"}),
    "max": frozenset({"key", "default"}),
}


def _ordering_only(name: str, kwargs: Mapping[str, Any]) -> bool:
    return not kwargs or set(kwargs) <= _ORDERING.get(name, frozenset())


def _of_each_device(name: str, devices: EachDevice) -> Any:
    """min/max of a sequence whose items are all one value is that value; any/all its
    truth (it has an item); set of it that one value; sorted, tuple or list of it the
    same sequence."""
    if name in ("min", "max"):
        return devices.item
    if name in ("any", "all"):
        return truth(devices.item)
    if name == "bool":
        return True  # a machine has a device at least
    if name in ("set", "frozenset"):
        one = one_value_set(devices)
        return frozenset(one) if name == "frozenset" and isinstance(one, set) else one
    if name in ("sorted", "tuple", "list"):
        return devices
    return UNKNOWN


def _iterating(value: Any) -> Any:
    """`iter(x)`: of known items in a known order (a tuple, list or string, a set of at
    most one item, a machine's per-device values), else unknown."""
    if isinstance(value, EachDevice):
        return Iterating((value.item,))
    if isinstance(value, (set, frozenset)) and len(value) > 1:
        return UNKNOWN  # which item comes first is the hash order's
    if isinstance(value, (tuple, list, str, set, frozenset)) and not contains_unknown(value):
        return Iterating(tuple(value))
    return UNKNOWN


def _isinstance(ev: Evaluator, value: Any, kinds: Any) -> Any:
    if isinstance(value, OneOf):
        # One of a few values (`"a" if flag else "b"`, one of two imported classes):
        # each one's, known where they agree. Read as the OneOf object itself it was
        # never a str, and `isinstance(x, str) and ...` admitted nothing.
        each = {_isinstance(ev, option, kinds) for option in value.options}
        return each.pop() if len(each) == 1 else UNKNOWN
    options = kinds if isinstance(kinds, tuple) else (kinds,)
    verdicts = [_isinstance_one(ev, value, kind) for kind in options]
    if True in verdicts:
        return True
    return UNKNOWN if UNKNOWN in verdicts else False


def _isinstance_one(ev: Evaluator, value: Any, kind: Any) -> Any:
    if value is UNKNOWN:
        return UNKNOWN
    if isinstance(kind, Builtin) and kind.name in _BUILTIN_TYPES:
        python_type = _BUILTIN_TYPES[kind.name]
        if isinstance(value, InstanceRef):
            return python_type is tuple and classes.is_namedtuple(ev, value.cls)
        if isinstance(value, (FunctionRef, PartialRef, ClassRef, ModuleRef, ExternalRef)):
            return False
        if isinstance(value, SomeText):
            return python_type is str
        if isinstance(value, EachDevice):
            return False if python_type not in (tuple, list) else UNKNOWN  # made by either
        return isinstance(value, python_type)
    if isinstance(kind, ClassRef) and isinstance(value, InstanceRef):
        return any(k is kind.node for k in classes.mro(ev, value.cls)) or UNKNOWN
    if isinstance(kind, ClassRef) and type(value) in _PLAIN_VALUES and _no_builtin(ev, kind):
        # A constant a builtin makes (sglang's `frozenset({...})` of requirements tested
        # `isinstance(capabilities, CapabilityRequirement)`) is no instance of a project
        # class deriving from no builtin type; not the domain's own tuples (a Capability
        # may stand for a platform's DeviceCapability), nor a `(str, Enum)`'s member, read
        # as its value.
        return False
    return UNKNOWN


_PLAIN_VALUES = frozenset(
    {int, float, str, bytes, bool, type(None), tuple, list, dict, set, frozenset}
)
# Bases from outside the project known to derive from no builtin type but `object`.
_OBJECT_BASES = frozenset({"abc.ABC", "typing.Generic", "typing.Protocol", "msgspec.Struct"})


def _no_builtin(ev: Evaluator, kind: ClassRef) -> bool:
    """Whether every base of `kind`'s classes is the project's, `object`, or one known to
    derive from no builtin type (so none of its instances is a str, an int, a tuple...)."""
    for klass in classes.mro(ev, kind.node):
        for base in klass.bases:
            value = ev.eval(base, None)
            if isinstance(value, ClassRef):
                continue
            if isinstance(value, Builtin) and value.name == "object":
                continue
            if isinstance(value, ExternalRef) and value.dotted in _OBJECT_BASES:
                continue
            return False
    return True
