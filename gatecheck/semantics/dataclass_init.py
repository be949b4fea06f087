"""A @dataclass's field read on an instance whose making is not in view (`self.top_cc` in
a property): the value every construction passes for it, as for a field an explicit
`__init__` stores from its parameter (callers.py). The `__init__` the decorator writes
takes the fields as parameters, base classes' first, in the order the class bodies
annotate them (a field annotated again keeps its place), the keyword-only ones (`kw_only=
True`, after `_: KW_ONLY`, `field(kw_only=True)`) last; each default is the annotation's
value, or `field(default=...)`'s. bitsandbytes builds its `CUDASpecs` once, with the
device's highest capability by keyword, and tests it in a property (`self.
highest_compute_capability >= (7, 5)`).

Never a guess: only for `dataclasses.dataclass` (bound by the import), on a class whose
bases are all known, no two of them dataclasses (their fields' order would be Python's
C3 order), with the decorator's options and each `field()`'s read; not for a field
`__init__` does not take (`field(init=False)`, a ClassVar, an InitVar, which is no
field), nor one a method assigns again (`__post_init__`: `self.x = ...`,
`object.__setattr__(self, "x", ...)`). Its value is then what the constructions pass
(callers.field_from_constructions, which also gives up where `dataclasses.replace` may
give it another); else it is unknown, as a class-level default read through an instance
was before.

The same `__init__` is written for a pydantic dataclass (`pydantic.dataclasses.dataclass`,
vLLM's config classes) and for a subclass of `msgspec.Struct` (sglang's kernel
registry): the fields its class bodies annotate, base classes' first, a default where
the annotation has a value (`msgspec.field(default=...)` as `field()`), the keyword-only
ones last (the class keyword `kw_only=True`, for the fields of that class body). A
construction of such a class leaves every field it does not pass at its default
(`constructed`), so `Req(device="cuda")` holds the class body's `min_sm = None`."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from astroid import nodes

from gatecheck.semantics import callers, classes
from gatecheck.semantics.reads import remembered
from gatecheck.semantics.values import UNKNOWN, ClassRef, ExternalRef, InstanceRef

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

# The decorators that write a dataclass's `__init__`, the base whose subclasses get one,
# and the calls that spell a field's options, as the imports bind them.
_DATACLASS = frozenset({"dataclasses.dataclass", "pydantic.dataclasses.dataclass"})
_STRUCT = "msgspec.Struct"
_FIELD = frozenset({"dataclasses.field", "msgspec.field"})
# Annotations spelled as dataclasses reads them (it too matches a string annotation's text).
_CLASS_VAR = re.compile(r"(?:typing\.|t\.)?ClassVar\b")
_INIT_VAR = re.compile(r"(?:dataclasses\.)?InitVar\b")
_KW_ONLY = re.compile(r"(?:dataclasses\.)?KW_ONLY$")


@dataclass(frozen=True)
class _Options:
    init: bool
    kw_only: bool


_UNREAD = object()  # a decorator or field() whose options are not constants


@dataclass(frozen=True)
class _Field:
    default: Any  # a node, callers.UNREAD_DEFAULT, or None: required
    kw_only: bool
    init: bool
    initvar: bool


def field_value(ev: Evaluator, cls: nodes.ClassDef, name: str) -> Any:
    """The value of field `name` on an instance of `cls` made where it is not seen:
    what `cls`'s constructions pass for it; UNKNOWN where that is not read."""
    parameters = remembered(ev, ("dataclass-init", id(cls)), lambda: _init(ev, cls), None)
    if parameters is None or name not in parameters:
        return UNKNOWN
    parameter, is_field = parameters[name]
    if not is_field or _assigned_again(ev, cls, name):
        return UNKNOWN
    # Kept as a binding is; a construction that passes the field made from itself
    # (`Specs(top_cc=...self.top_cc...)` in a method) reads it as unknown, a cycle.
    return ev.memoized(("dataclass-field", id(cls), name), _constructed, (cls, parameter))


def _constructed(ev: Evaluator, held: tuple[nodes.ClassDef, callers.Parameter]) -> Any:
    value = callers.field_from_constructions(ev, *held)
    return UNKNOWN if value is callers.NOT_FOUND else value


def _assigned_again(ev: Evaluator, cls: nodes.ClassDef, name: str) -> bool:
    if classes.instance_assigns(ev, cls, name):
        return True
    for klass in classes.mro(ev, cls):
        on_self = classes.set_on_self(ev, klass)
        if on_self is None or name in on_self:
            return True
    return False


def init_parameters(ev: Evaluator, cls: nodes.ClassDef) -> dict[str, callers.Parameter] | None:
    """The fields the `__init__` @dataclass writes for `cls` takes, as parameters by
    name; None where none is written or its parameters are not known."""
    found = remembered(ev, ("dataclass-init", id(cls)), lambda: _init(ev, cls), None)
    return None if found is None else {n: p for n, (p, field) in found.items() if field}


def constructed(
    ev: Evaluator, cls: nodes.ClassDef, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> InstanceRef | None:
    """What `cls(*args, **kwargs)` makes where its `__init__` is the one a dataclass
    decorator or `msgspec.Struct` writes: each field the call passes, by its place or
    its name, the others at their defaults (the class bodies'); None where that
    `__init__` is not known."""
    found = remembered(ev, ("dataclass-init", id(cls)), lambda: _init(ev, cls), None)
    if found is None:
        return None
    instance = InstanceRef(cls, defaults_hold=True)
    for name, (parameter, is_field) in found.items():
        if not is_field:
            continue
        if _assigned_again(ev, cls, name):
            instance.attrs[name] = UNKNOWN  # `__post_init__` may set it to anything
        elif parameter.index is not None and parameter.index < len(args):
            instance.attrs[name] = args[parameter.index]
        elif name in kwargs:
            instance.attrs[name] = kwargs[name]
    return instance


def _init(ev: Evaluator, cls: nodes.ClassDef) -> dict[str, tuple[callers.Parameter, bool]] | None:
    """The parameters of the `__init__` @dataclass writes for `cls` by name (and whether
    each is a field), or None: none is written, or its parameters are not known."""
    own = _options(ev, cls)
    if not isinstance(own, _Options) or not own.init or "__init__" in cls.locals:
        return None
    order = list(classes.mro(ev, cls))
    for klass in order:
        bases = [ev.value(base) for base in klass.bases]
        if not all(isinstance(b, ClassRef) or classes.plain_base(b) or _struct(b) for b in bases):
            return None  # a base not read may bring fields of its own
        if sum(1 for b in bases if isinstance(b, ClassRef) and _holds_fields(ev, b.node)) > 1:
            return None
    fields: dict[str, _Field] = {}
    for klass in reversed(order):
        options = _options(ev, klass)
        if options is None:
            continue  # not a dataclass: its annotations are no fields
        if not isinstance(options, _Options):
            return None
        own_fields = _fields(ev, klass, options.kw_only)
        if own_fields is None:
            return None
        fields.update(own_fields)  # a field annotated again keeps its place
    taken = [(n, f) for n, f in fields.items() if f.init]
    positional = [n for n, f in taken if not f.kw_only]
    return {
        n: (
            callers.Parameter(n, positional.index(n) if n in positional else None, f.default),
            not f.initvar,
        )
        for n, f in taken
    }


def _holds_fields(ev: Evaluator, cls: nodes.ClassDef) -> bool:
    return any(_options(ev, klass) is not None for klass in classes.mro(ev, cls))


# field_default's answer where the annotation's value is no `field()` call.
NO_FIELD_CALL = object()


def field_default(ev: Evaluator, statement: nodes.AnnAssign) -> Any:
    """The default a `field()` call gives the field `statement` annotates (unknown for a
    `default_factory`, or none); NO_FIELD_CALL where its value is not such a call."""
    value = statement.value
    if not isinstance(value, nodes.Call):
        return NO_FIELD_CALL
    called = ev.value(value.func)
    if not (isinstance(called, ExternalRef) and called.dotted in _FIELD):
        return NO_FIELD_CALL
    given = next((k.value for k in value.keywords or () if k.arg == "default"), None)
    return UNKNOWN if given is None else ev.value(given)


def _options(ev: Evaluator, cls: nodes.ClassDef) -> _Options | object | None:
    """The options of `cls`'s @dataclass decorator, or of its class keywords where it
    is a `msgspec.Struct`; None: it is neither; _UNREAD: they are not constants."""
    for decorator in cls.decorators.nodes if cls.decorators else ():
        target = decorator.func if isinstance(decorator, nodes.Call) else decorator
        value = ev.value(target)
        if not (isinstance(value, ExternalRef) and value.dotted in _DATACLASS):
            continue
        keywords = decorator.keywords if isinstance(decorator, nodes.Call) else None
        return _read_options(ev, keywords, {"init": True, "kw_only": False})
    if _is_struct(ev, cls):
        # A Struct always writes `__init__`; its `kw_only` is of this class body's fields.
        return _read_options(ev, cls.keywords, {"kw_only": False}, init=True)
    return None


def _read_options(
    ev: Evaluator, keywords: list[nodes.Keyword] | None, read: dict[str, bool], **fixed: bool
) -> _Options | object:
    for keyword in keywords or ():
        if keyword.arg is None:
            return _UNREAD
        if keyword.arg in read:
            given = ev.value(keyword.value)
            if not isinstance(given, bool):
                return _UNREAD
            read[keyword.arg] = given
    return _Options(**read, **fixed)


def _struct(value: Any) -> bool:
    return isinstance(value, ExternalRef) and value.dotted == _STRUCT


def _is_struct(ev: Evaluator, cls: nodes.ClassDef) -> bool:
    """`cls` derives from `msgspec.Struct`, itself or through a class of the project."""
    return any(_struct(ev.value(base)) for klass in classes.mro(ev, cls) for base in klass.bases)


def _fields(ev: Evaluator, cls: nodes.ClassDef, kw_only: bool) -> dict[str, _Field] | None:
    """The fields `cls`'s body annotates, in order (None: a `field()` not read)."""
    found: dict[str, _Field] = {}
    for statement in cls.body:
        if not (
            isinstance(statement, nodes.AnnAssign)
            and isinstance(statement.target, nodes.AssignName)
        ):
            continue
        annotation = statement.annotation
        text = (
            annotation.value
            if isinstance(annotation, nodes.Const) and isinstance(annotation.value, str)
            else annotation.as_string()
        )
        if _CLASS_VAR.match(text):
            continue
        if _KW_ONLY.match(text):
            kw_only = True
            continue
        field = _field(ev, statement.value, kw_only, bool(_INIT_VAR.match(text)))
        if field is None:
            return None
        found[str(statement.target.name)] = field
    return found


def _field(
    ev: Evaluator, value: nodes.NodeNG | None, kw_only: bool, initvar: bool
) -> _Field | None:
    if value is None:
        return _Field(None, kw_only, True, initvar)
    if not isinstance(value, nodes.Call):
        return _Field(value, kw_only, True, initvar)
    called = ev.value(value.func)
    if not (isinstance(called, ExternalRef) and called.dotted in _FIELD):
        return _Field(value, kw_only, True, initvar)
    if value.args:
        return None
    default: Any = None
    read = {"init": True, "kw_only": kw_only}
    for keyword in value.keywords or ():
        if keyword.arg == "default":
            default = keyword.value
        elif keyword.arg == "default_factory":
            default = callers.UNREAD_DEFAULT
        elif keyword.arg in read:
            given = ev.value(keyword.value)
            if not isinstance(given, bool):
                return None
            read[keyword.arg] = given
        elif keyword.arg is None:
            return None
    return _Field(default, read["kw_only"], read["init"], initvar)
