"""What the device decides, for code gatecheck cannot read: the registered idioms
(gatecheck/semantics/idioms/, one module per idiom), asked in turn. Their meaning is
fixed by the framework (torch, triton, NVML), so answers from them are proven; naming
conventions (conventions.py) come only after them and are marked assumed."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Sequence
from typing import Any

from gatecheck.config.model import Generation
from gatecheck.semantics.idioms._model import NOT_MINE, AttributeRule, Idiom, Intrinsic
from gatecheck.semantics.values import Tri, Value


class IdiomRegistry:
    """The idioms one evaluation recognises, in order (the first that answers wins)."""

    def __init__(self, idioms: Sequence[Idiom]) -> None:
        self.idioms = tuple(idioms)
        self._calls = tuple(c for idiom in self.idioms for c in idiom.calls)
        self._attributes = tuple(a for idiom in self.idioms for a in idiom.attributes)
        self._first_call = FirstMatch(self._calls)
        self._first_attribute = FirstMatch(self._attributes)
        self._value_attributes = _by_type(i.value_attributes for i in self.idioms)
        self._has_attribute = _by_type(i.has_attribute for i in self.idioms)
        self._value_items = _by_type(i.value_items for i in self.idioms)

    def with_idiom(self, idiom: Idiom, first: bool = False) -> IdiomRegistry:
        return IdiomRegistry((idiom, *self.idioms) if first else (*self.idioms, idiom))

    def _call(self, dotted: str) -> Intrinsic | None:
        return self._first_call.first(dotted)

    def claims(self, dotted: str) -> bool:
        """Whether some idiom gives this external name (a call or an attribute) its meaning."""
        return self._call(dotted) is not None or self._first_attribute.first(dotted) is not None

    def reads_arguments(self, dotted: str) -> bool:
        intrinsic = self._call(dotted)
        return intrinsic is not None and intrinsic.reads_arguments

    def reads_device(self, dotted: str) -> bool:
        """Whether the external name's value is the device's (most intrinsics'), not a
        library constant or an identity (Intrinsic.reads_device)."""
        intrinsic = self._call(dotted) or self._first_attribute.first(dotted)
        return intrinsic is None or intrinsic.reads_device

    def call(self, dotted: str, generation: Generation, args: Sequence[Value]) -> Value:
        """The value of calling an external function, or NOT_MINE."""
        intrinsic = self._call(dotted)
        if intrinsic is None:
            return NOT_MINE
        return intrinsic.value(generation, args if intrinsic.reads_arguments else ())

    def assumption(self, dotted: str) -> str:
        """Why the external name's value is only taken to be the device's (Intrinsic.assumed),
        or "" where it is the device's."""
        intrinsic = self._call(dotted) or self._first_attribute.first(dotted)
        return "" if intrinsic is None else intrinsic.assumed

    def module_attribute(self, dotted: str, generation: Generation) -> Value:
        """A module attribute the vendor decides (torch.version.cuda), or NOT_MINE."""
        intrinsic = self._first_attribute.first(dotted)
        return NOT_MINE if intrinsic is None else intrinsic.value(generation, ())

    def value_attribute(self, receiver: Any, name: str) -> Value:
        return _first_answer(self._value_attributes.get(type(receiver), ()), receiver, name)

    def has_attribute(self, receiver: Any, name: str) -> Tri | Any:
        return _first_answer(self._has_attribute.get(type(receiver), ()), receiver, name)

    def value_item(self, receiver: Any, key: Any) -> Value:
        """`receiver[key]` for a value an idiom made, or NOT_MINE."""
        return _first_answer(self._value_items.get(type(receiver), ()), receiver, key)

    def knows_type(self, receiver: Any) -> bool:
        return type(receiver) in self._value_attributes


class FirstMatch:
    """The first of some intrinsics whose `matches(dotted)` holds, without asking each in
    turn (asked on every external call and attribute evaluated): a "suffix" intrinsic
    matches exactly when its name is the dotted name or follows one of its dots, so
    those are looked up by each such ending; "tail" ones are asked in order."""

    def __init__(self, intrinsics: Sequence[Intrinsic]) -> None:
        self._intrinsics = tuple(intrinsics)
        self._by_ending: dict[str, int] = {}
        tails: list[tuple[int, Intrinsic]] = []
        for index, intrinsic in enumerate(self._intrinsics):
            if intrinsic.match == "tail":
                tails.append((index, intrinsic))
            else:
                self._by_ending.setdefault(intrinsic.name, index)
        self._tails = tuple(tails)

    def first(self, dotted: str) -> Intrinsic | None:
        by_ending = self._by_ending
        best = by_ending.get(dotted)
        dot = dotted.find(".")
        while dot >= 0:
            found = by_ending.get(dotted[dot + 1 :])
            if found is not None and (best is None or found < best):
                best = found
            dot = dotted.find(".", dot + 1)
        for index, intrinsic in self._tails:
            if best is not None and index > best:
                break
            if dotted.endswith(intrinsic.name):
                best = index
                break
        return None if best is None else self._intrinsics[best]


def _by_type(
    groups: Any,
) -> dict[type, tuple[AttributeRule, ...]]:
    found: dict[type, list[AttributeRule]] = {}
    for group in groups:
        for kind, rule in group:
            # Looked up by the receiver's exact type (a hot path): a rule for a value
            # type holds for its subclasses too (Capability, AssumedCapability).
            for each in _with_subclasses(kind):
                found.setdefault(each, []).append(rule)
    return {kind: tuple(rules) for kind, rules in found.items()}


def _with_subclasses(kind: type) -> list[type]:
    every = [kind]
    for each in every:
        every.extend(each.__subclasses__())
    return every


def _first_answer(rules: Sequence[AttributeRule], receiver: Any, name: str) -> Any:
    for rule in rules:
        answer = rule(receiver, name)
        if answer is not NOT_MINE:
            return answer
    return NOT_MINE


def discover_idioms() -> tuple[Idiom, ...]:
    """Every module of the idioms package (but `_private` ones) that defines IDIOM, in
    module-name order: adding an idiom is adding a file."""
    from gatecheck.semantics import idioms

    found: list[Idiom] = []
    for info in sorted(pkgutil.iter_modules(idioms.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{idioms.__name__}.{info.name}")
        idiom = getattr(module, "IDIOM", None)
        if isinstance(idiom, Idiom):
            found.append(idiom)
    return tuple(found)


def default_idioms() -> IdiomRegistry:
    return _DEFAULT


_DEFAULT = IdiomRegistry(discover_idioms())
