"""What an idiom module declares: the external names whose value the device decides, the
attributes of the device values they return, and the examples that prove them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gatecheck.config.model import Generation
from gatecheck.semantics.values import Value


class _NotMine:
    def __repr__(self) -> str:
        return "NOT_MINE"


# An idiom's answer for something it does not recognise: the next idiom is asked.
NOT_MINE: Any = _NotMine()


@dataclass(frozen=True)
class Intrinsic:
    """A dotted external name (a call or a module attribute) the device decides."""

    name: str
    # The value on a device of this generation, from the call's arguments (empty unless
    # `reads_arguments`; attributes have none). NOT_MINE: arguments it does not read.
    value: Callable[[Generation, Sequence[Value]], Value]
    # "suffix": the dotted name is `name` or ends with "." + name (`torch.cuda.x` also
    # matches `cuda.x` imported on its own); "tail": it ends with `name` at all.
    match: str = "suffix"
    reads_arguments: bool = False
    # False: a name whose value the device does not decide (a constant of a library's,
    # an identity such as `cutlass.const_expr`): its use marks no device read.
    reads_device: bool = True
    # Why the value is taken to be the device's where it may not be (a compile target
    # the caller's scope sets, taken to be the device's): its use marks the answer
    # assumed (Admission.assumed), as a naming convention's does. "": proven.
    assumed: str = ""

    def matches(self, dotted: str) -> bool:
        if self.match == "tail":
            return dotted.endswith(self.name)
        return dotted == self.name or dotted.endswith("." + self.name)


# (receiver, attribute name) -> its value, or NOT_MINE.
AttributeRule = Callable[[Any, str], Value]
# (receiver, key) -> receiver[key], or NOT_MINE.
ItemRule = Callable[[Any, Any], Value]


@dataclass(frozen=True)
class Example:
    """`expr` evaluated at the end of module `source` admits exactly `admitted`."""

    id: str
    expr: str
    admitted: frozenset[str]
    source: str = ""
    # Whether the answer rests on a naming convention (no body could be read).
    assumed: bool = False


@dataclass(frozen=True)
class Noop:
    """A shape the idiom must leave unknown: `expr` admits every generation."""

    id: str
    expr: str
    reason: str
    source: str = ""


@dataclass(frozen=True)
class Idiom:
    name: str
    calls: tuple[Intrinsic, ...] = ()
    attributes: tuple[Intrinsic, ...] = ()
    # Attributes of the values this idiom's calls return, by the value's exact type.
    value_attributes: tuple[tuple[type, AttributeRule], ...] = ()
    # hasattr(value, name) answers, by the value's exact type.
    has_attribute: tuple[tuple[type, AttributeRule], ...] = ()
    # value[key] answers (a constant key), by the value's exact type.
    value_items: tuple[tuple[type, ItemRule], ...] = ()
    examples: Sequence[Example] = ()
    noops: Sequence[Noop] = ()


def generations(*names: str) -> frozenset[str]:
    return frozenset(names)
