"""The abstract value domain: concrete Python values where the generation decides them,
UNKNOWN everywhere else, plus references to code objects the evaluator can follow."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from astroid import nodes


class _Unknown:
    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "Unknown"

    def __bool__(self) -> bool:
        raise TypeError("UNKNOWN has no truth value; use truth()")


UNKNOWN = _Unknown()

# Three-valued truth: True, False or UNKNOWN.
Tri = Any


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


@dataclass(frozen=True)
class EnumMember:
    """A member of an `enum.Enum` class: equal only to itself (and to its aliases)."""

    cls: nodes.ClassDef  # compared by identity: two classes' members never compare equal
    name: str


@dataclass(frozen=True)
class ModuleRef:
    """A module inside the scanned roots."""

    name: str


@dataclass(frozen=True)
class ExternalRef:
    """A dotted name from outside the scanned roots (torch, a compiled extension, ...):
    no body to read, so only the device oracle or naming conventions can say anything."""

    dotted: str

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


@dataclass(frozen=True)
class TritonTarget:
    """triton's driver.active.get_current_target(): backend and arch."""

    backend: str
    arch: int | str


def truth(value: Any) -> Tri:
    """Python truthiness, three-valued."""
    if value is UNKNOWN:
        return UNKNOWN
    try:
        return bool(value)
    except Exception:
        return UNKNOWN


def join(a: Any, b: Any) -> Any:
    """The value of 'a or b, we cannot tell which' (two paths meeting)."""
    if a is b:
        return a
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    try:
        if type(a) is type(b) and a == b:
            return a
    except Exception:
        return UNKNOWN
    return UNKNOWN


@dataclass(frozen=True)
class NoneOr:
    """A function's result when some of its paths return None and the others one known
    value (`sm = probe_nvml()`: None when NVML cannot answer, else the device's SM). It
    lives only in a function's local variables, where `if sm is not None:` narrows it
    (evaluator._narrowed); read anywhere else it is unknown."""

    value: Any


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
    if value is _ABSENT:
        return None
    if value is UNKNOWN:
        return UNKNOWN
    return NoneOr(value) if a_none or b_none else value


def plain(value: Any) -> Any:
    """A value as expressions see it: NoneOr is unknown outside the locals that hold it."""
    return UNKNOWN if isinstance(value, NoneOr) else value


def is_known(value: Any) -> bool:
    return value is not UNKNOWN
