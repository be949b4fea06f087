"""The abstract value domain: concrete Python values where the generation decides them,
UNKNOWN everywhere else, plus references to code objects the evaluator can follow."""

from __future__ import annotations

import enum
import re
import types
from dataclasses import dataclass, field
from typing import Any, Literal

from astroid import nodes


class Unknown(enum.Enum):
    """The third truth value and the value of everything the generation does not decide.
    A one-member enum: a typed singleton (`value is UNKNOWN` narrows it for mypy)."""

    UNKNOWN = "Unknown"

    def __repr__(self) -> str:
        return "Unknown"

    __str__ = __repr__

    def __bool__(self) -> bool:
        raise TypeError("UNKNOWN has no truth value; use truth()")


UNKNOWN = Unknown.UNKNOWN


class Raises(enum.Enum):
    """What a call of a project function gives where every path through its body raises
    on this generation, and the raising reads the device (diverging.py). Never a value:
    calls.call hands its caller UNKNOWN and notes the call, so that the statement or
    condition holding it in a position always evaluated raises too. Kept in the call
    memo like any result (so a memo hit notes it as well)."""

    RAISES = "Raises"

    def __repr__(self) -> str:
        return "Raises"

    __str__ = __repr__


RAISES = Raises.RAISES

# Three-valued truth: Python's True and False, and UNKNOWN (Kleene's third value).
Tri = bool | Literal[Unknown.UNKNOWN]
# Whatever an expression evaluates to: a concrete Python value the generation decides
# (int, str, tuple, Capability, ...), one of the references below, or UNKNOWN. Kept open
# (`object`'s full range): analysed code computes with any Python value.
Value = Any


class SetItems(tuple[Any, ...]):
    """The items of a set holding an unknown (`{n, k}`, a set comprehension), kept as a
    tuple: two of them may be one element, so unlike a tuple's its length is not known."""


class Capability(tuple[int, int]):
    """(major, minor) as torch returns it, plus the accessors platform wrappers add
    (vLLM's DeviceCapability.major / .minor / .to_int())."""

    @property
    def major(self) -> int:
        return int(self[0])

    @property
    def minor(self) -> int:
        return int(self[1])

    def to_int(self) -> int:
        return self.major * 10 + self.minor

    def as_version_str(self) -> str:
        return f"{self.major}.{self.minor}"


class AssumedCapability(Capability):
    """The capability a name promises where no body says how it is encoded (a compiled
    helper named `get_device_compute_capability`, a parameter named `compute_capability`):
    compared with a number, it is read in the encoding the number is written in, as
    engines write all three: a whole number from 20 on is `major * 10 + minor` (`>= 90`,
    `< 100`; `< 99` for "before 9.9"), a smaller one the major (`>= 9`), a float
    `major.minor` (`>= 8.9`). A tuple compares as the tuple."""

    def _as(self, other: Any) -> Any:
        if isinstance(other, bool) or not isinstance(other, (int, float)):
            return None
        if isinstance(other, float):
            return self.major + self.minor / 10
        return self.to_int() if other >= 20 else self.major

    def __lt__(self, other: Any) -> bool:
        mine = self._as(other)
        return super().__lt__(other) if mine is None else bool(mine < other)

    def __le__(self, other: Any) -> bool:
        mine = self._as(other)
        return super().__le__(other) if mine is None else bool(mine <= other)

    def __gt__(self, other: Any) -> bool:
        mine = self._as(other)
        return super().__gt__(other) if mine is None else bool(mine > other)

    def __ge__(self, other: Any) -> bool:
        mine = self._as(other)
        return super().__ge__(other) if mine is None else bool(mine >= other)

    def __eq__(self, other: object) -> bool:
        mine = self._as(other)
        return super().__eq__(other) if mine is None else bool(mine == other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = Capability.__hash__


@dataclass(frozen=True, eq=False)
class FunctionRef:
    """A function or lambda whose body can be read, optionally bound to a receiver."""

    node: nodes.FunctionDef | nodes.Lambda
    receiver: Any = None  # bound `self` / `cls` value, or None for plain functions
    owner: nodes.ClassDef | None = None


@dataclass(frozen=True, eq=False)
class PartialRef:
    """functools.partial(func, *args, **kwargs)."""

    func: Any
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...]


@dataclass(frozen=True, eq=False)
class ClassRef:
    node: nodes.ClassDef


@dataclass(eq=False)
class InstanceRef:
    cls: nodes.ClassDef
    attrs: dict[str, Any] = field(default_factory=dict)
    # Made without arguments (a runtime platform singleton): what its classes bind holds
    # for it too, unless some method assigns that attribute on the instance.
    defaults_hold: bool = False
    # Taken to be an instance of `cls` by an assumption (a parameter annotated with the
    # class: conventions._annotated_instance), noted where an attribute read through it
    # depends on the device.
    assumed: str = ""


@dataclass(frozen=True, eq=False)
class RecordCopy:
    """`record._replace` of a NamedTuple instance, not yet called (classes.replaced)."""

    instance: InstanceRef


@dataclass(frozen=True)
class EnumMember:
    """A member of an `enum.Enum` class: equal only to itself (and to its aliases)."""

    cls: nodes.ClassDef  # compared by identity: two classes' members never compare equal
    name: str


@dataclass(frozen=True)
class ModuleRef:
    """A module inside the scanned roots."""

    name: str


class Opaque:
    """A value known to exist whose content is not read: a name from outside the
    scanned roots, the release string of the toolkit torch was built with. Compared for
    equality or membership with a constant it is unknown (Python would call a reference
    unequal to every string); with None it is told apart, with a value of its own kind
    by that value's equality (expressions._opaque_compare)."""

    __slots__ = ()


@dataclass(frozen=True)
class SomeText(Opaque):
    """An f-string whose fields are not all read (`f"needs sm90, found {props.name}"`,
    the message a validator returns where the device falls short, `""` where it
    passes): some str of at least `least` characters, its literal text, so never ""
    and always true (`if err:`, `err == ""` are known where it is). Compared with a
    shorter string, None or a number it is unequal (expressions._opaque_equal); its
    content, length and order are unknown (contains_unknown)."""

    least: int
    # The literal text before its first unread field (`"-DPAGE="` of f"-DPAGE={page}"):
    # what it begins with, for readers of option lists (kernels/support.py).
    head: str = field(default="", compare=False)

    def __bool__(self) -> bool:
        return True


@dataclass(frozen=True)
class Truthy(Opaque):
    """Some true value, which one not known: `arch or get_arch()` where `arch` may be
    anything (a parameter no caller fills) and `get_arch()` is true, which is `arch`
    where `arch` is true and the device's arch elsewhere (logic.bool_op). Its truth is
    known (`if arch or get_arch():`), nothing else: a comparison, arithmetic or an item
    of it is unknown (contains_unknown), as `arch // 10 == 12` is; not None."""

    def __bool__(self) -> bool:
        return True


TRUTHY = Truthy()


def has_opaque(value: Any) -> bool:
    """An Opaque value, or one inside a tuple, list or set."""
    if isinstance(value, Opaque):
        return True
    if isinstance(value, (tuple, list, frozenset, set)):
        return any(has_opaque(v) for v in value)
    return False


@dataclass(frozen=True)
class ExternalRef(Opaque):
    """A dotted name from outside the scanned roots (torch, a compiled extension, ...):
    no body to read, so only the device oracle or naming conventions can say anything.
    `module`: bound by `import x` itself, so a module, always true; any other (`x.FLAG`,
    `from x import HAS_FP8`) may be a flag, None or a function, so its truth is unknown
    (`not ext.HAS_FP8` is not false everywhere)."""

    dotted: str
    module: bool = field(default=False, compare=False)

    @property
    def last(self) -> str:
        return self.dotted.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Builtin:
    name: str


@dataclass(frozen=True)
class Identity:
    """A decorator factory result that returns its argument (lru_cache(maxsize=1), ...)."""


@dataclass(frozen=True)
class DeviceProps:
    """torch.cuda.get_device_properties(...) for one generation."""

    major: int
    minor: int
    gcn_arch: str | None
    # Bytes of shared memory: per block once opted in, per SM (None: not known).
    smem_per_block_optin: int | None = None
    smem_per_sm: int | None = None


@dataclass(frozen=True)
class CudaCoreDevice:
    """cuda-python's `cuda.core.Device(i)` for one generation (idioms/cuda_core_device.py):
    its `.compute_capability` and `.arch` are the device's."""

    major: int
    minor: int


@dataclass(frozen=True)
class TritonDeviceProps:
    """Triton's `driver.active.utils.get_device_properties(i)` for one generation: a dict
    of which gatecheck knows one key, the shared memory a block may opt in to."""

    max_shared_mem: int | None


@dataclass(frozen=True)
class TritonTarget:
    """triton's driver.active.get_current_target(): backend and arch."""

    backend: str
    arch: int | str


@dataclass(frozen=True)
class CuteArch:
    """A member of the CuTe DSL's `cutlass.Arch` enum (idioms/cute_dsl_arch.py): equal
    as members are (major, minor and suffix), ordered by (major, minor) alone."""

    major: int
    minor: int
    suffix: str

    def _key(self, other: object) -> tuple[int, int]:
        if not isinstance(other, CuteArch):
            raise TypeError(other)
        return (other.major, other.minor)

    def __lt__(self, other: object) -> bool:
        return (self.major, self.minor) < self._key(other)

    def __le__(self, other: object) -> bool:
        return (self.major, self.minor) <= self._key(other)

    def __gt__(self, other: object) -> bool:
        return (self.major, self.minor) > self._key(other)

    def __ge__(self, other: object) -> bool:
        return (self.major, self.minor) >= self._key(other)

    def is_family_of(self, other: object) -> bool:
        """The arch is `other`'s or later in its family, with family features (a/f):
        sm_101a/f (Thor's old name) is of sm_110f's family."""
        key = self._key(other)
        if (self.major, self.minor) == (10, 1) and self.suffix in ("a", "f"):
            return key == (11, 0)
        return self.major == key[0] and self.minor >= key[1] and self.suffix in ("a", "f")


@dataclass(frozen=True)
class CuteDsl:
    """`BaseDSL._get_dsl()`: the DSL, whose get_arch_enum() is the compile target."""

    arch: Any

    def get_arch_enum(self) -> Any:
        return self.arch


def truth(value: Any) -> Tri:
    """Python truthiness, three-valued. A OneOf of constants is true (false) where every
    option is; a OneOf of references' truth is not read (its attributes and calls are)."""
    if value is UNKNOWN:
        return UNKNOWN
    if isinstance(value, ExternalRef) and not value.module:
        return UNKNOWN
    if isinstance(value, OneOf):
        options = constant_options(value)
        if options is None:
            return UNKNOWN
        truths = {bool(o) for o in options}
        return truths.pop() if len(truths) == 1 else UNKNOWN
    if isinstance(value, InstanceRef):
        # bool() of gatecheck's own object would be True whatever the class says.
        return True if plainly_true(value.cls) else UNKNOWN
    try:
        return bool(value)
    except Exception:
        return UNKNOWN


# Methods that decide an instance's truth.
_TRUTH_METHODS = ("__bool__", "__len__")
# Bases and class decorators known to add neither, as spelled.
_TRUTHFUL_BASES = frozenset(
    {"object", "ABC", "abc.ABC", "Generic", "typing.Generic", "Protocol", "typing.Protocol"}
)
_TRUTHFUL_DECORATORS = frozenset(
    {"dataclass", "dataclasses.dataclass", "total_ordering", "functools.total_ordering", "final"}
)


def plainly_true(cls: nodes.ClassDef) -> bool:
    """Whether every instance of `cls` is true, read off the class alone (no base is
    resolved: the truth of an instance is seldom asked, its bases' modules often never
    built): it defines neither `__bool__` nor `__len__`, its decorators and bases are
    ones known to add neither. Else its truth is unknown: torch's `SM100OrLater =
    LazyVal(lambda: ...)`, whose class decorator installs `__bool__`, read as always
    true made `not SM100OrLater` admit no generation."""
    if any(name in cls.locals for name in _TRUTH_METHODS):
        return False
    for decorator in cls.decorators.nodes if cls.decorators is not None else ():
        spelled = decorator.func if isinstance(decorator, nodes.Call) else decorator
        if spelled.as_string() not in _TRUTHFUL_DECORATORS:
            return False
    return all(
        (base.value if isinstance(base, nodes.Subscript) else base).as_string() in _TRUTHFUL_BASES
        for base in cls.bases
    )


# A CuTe DSL Arch member is one too: immutable, equal and ordered as members are. So is
# a match of a known pattern on a known text (text_patterns.py): immutable, its methods
# pure, so one of a few texts gives one of a few matches, each read on its own.
_CONSTANT_TYPES = (str, int, float, bool, type(None), CuteArch, re.Match)


def is_constant(value: Any) -> bool:
    """A known value of the kinds a predicate's paths return and compare: a string,
    number, bool, None or a CuTe DSL Arch member, or a tuple of them."""
    if isinstance(value, tuple):
        return all(is_constant(v) for v in value)
    return isinstance(value, _CONSTANT_TYPES)


def constant_options(value: Any) -> tuple[Any, ...] | None:
    """The constants `value` may be (a OneOf's options, else the value itself; a
    SomeText among them, compared and tested as the string it is); None when one of
    them is not a constant (a reference, an unknown)."""
    options = value.options if isinstance(value, OneOf) else (value,)
    return options if all(is_constant(o) or isinstance(o, SomeText) for o in options) else None


def is_option(value: Any) -> bool:
    """What a OneOf of values (not references) may hold: a constant, some text
    (SomeText), or a machine's per-device values (EachDevice), whose items are read.
    A helper that gives the per-device tuple, or `()` where its query raised (`except
    Exception: return ()`), is one of the two: its item is the tuple's, as `()` has
    none (logic.item_of_options). A list of constants is one too (`except Exception:
    return [-1]` beside the per-device list): values are never changed in place here,
    a name whose list is changed is read as unknown (mutations.py)."""
    return (
        is_constant(value)
        or isinstance(value, (SomeText, EachDevice))
        or (type(value) is list and all(is_constant(v) for v in value))
    )


def is_constant_method(value: Any) -> bool:
    """A method of a constant (`"hopper".startswith`, a CuTe DSL arch's `is_family_of`),
    as attribute() gives it."""
    return isinstance(value, (types.BuiltinMethodType, types.MethodType)) and is_constant(
        getattr(value, "__self__", None)
    )


@dataclass(frozen=True)
class NoneOr:
    """A function's result when some of its paths return None and the others one known
    value (`sm = probe_nvml()`: None when NVML cannot answer, else the device's SM). It
    lives only in a function's local variables, where `if sm is not None:` narrows it
    (env.narrowed); read anywhere else it is unknown, except where None would raise (an
    item, an ordering: expressions.dereferenced) and in `==`, `in`, `is`, which are
    None's outcome or the value's (expressions._none_or)."""

    value: Any


@dataclass(frozen=True, eq=False)
class OneOf:
    """One of these references, and which one the generation does not decide: a module
    alias or platform class chosen by an unknown condition (`Platform = NvmlPlatform if
    nvml_ok else NonNvmlPlatform`). An attribute or call through it is each option's,
    met as two paths meet (logic.either): a predicate through it can be true wherever
    some option's can, false wherever some option's can. Never a known value itself.
    Or one of a few constants: what a function returns on paths the generation does not
    decide (`return "blackwell"` from the device's table, `except: return device`); a
    comparison, a method or a truth test of it is each option's, known where they agree
    (`.startswith("blackwell")` is false on sm90 whichever path ran). Anything else reads
    it as unknown (contains_unknown)."""

    options: tuple[Any, ...]


@dataclass(frozen=True, eq=False)
class SuperRef:
    """`super()` in a method of `owner`: attributes are looked up in the receiver's class
    order after `owner`, and methods bound to the receiver (a ClassRef in a
    classmethod, an InstanceRef in a method)."""

    owner: Any  # the ClassDef whose method calls super()
    receiver: Any


@dataclass(frozen=True)
class EachDevice:
    """A sequence with an item per device of the machine, each read from the device
    (`tuple(get_device_capability(i) for i in range(device_count()))`): a device is one
    generation, and so is each of a machine's devices, so every item is `item`, and
    there is at least one. min/max, an item, `in`, any/all and sorted/tuple/list of it
    are read (builtin_calls, expressions); anything else reads it as unknown."""

    item: Any


@dataclass(frozen=True)
class Iterating:
    """`iter(x)` of known items, not yet advanced: `next()` gives the first (its default
    when there is none). Values are never changed in place, so only an iterator made in
    the call is read (`major = next(iter(majors))`, majors a set of one); `next(it)` of
    one held in a name, perhaps advanced already, is unknown (calls.call_node)."""

    items: tuple[Any, ...]


def plain(value: Any) -> Any:
    """A value as expressions see it: NoneOr is unknown outside the locals that hold it."""
    return UNKNOWN if isinstance(value, NoneOr) else value


def is_known(value: Any) -> bool:
    return value is not UNKNOWN


def contains_unknown(value: Any) -> bool:
    """UNKNOWN itself, or inside a tuple, list or set (a partly known arch list); a
    partly known value (OneOf, EachDevice, SomeText, Truthy) too, and an instance taken
    to be of a class by an assumption (InstanceRef.assumed: which instance it is, or
    whether it is None, is not known; only what its class gives its attributes)."""
    if value is UNKNOWN or isinstance(value, (OneOf, EachDevice, SomeText, Truthy)):
        return True
    if isinstance(value, InstanceRef) and value.assumed:
        return True
    if isinstance(value, (tuple, list, frozenset, set)):
        return any(contains_unknown(v) for v in value)
    return False


def one_value_set(devices: EachDevice) -> Any:
    """The set of a machine's per-device values: every device gives the one item, and
    there is one, so `{item}` (`len(...) == 1`, `== {10}` are known); EachDevice itself
    when the item is not known or cannot be held in a set."""
    if contains_unknown(devices.item):
        return devices
    try:
        return {devices.item}
    except TypeError:  # unhashable
        return devices
