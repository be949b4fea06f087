"""Rows at each construction's own value of a field a method's gate reads through `self`.

liger-kernel registers each kernel with a capability record, `Capability(min_cc=(9, 0))`
(a @dataclass), whose method refuses where `cc < self.min_cc`. That test reads the field
as every construction gives it, met, and is one row; a fix for one kernel goes where its
record is constructed. So each construction that spells a value for a field the gate
reads through the method's first parameter has a row at that value (SlotKind.ATTRIBUTE,
a declaration, as a class's own bound is: class_bounds.py): the generations the feature
may be on through the gate for an instance holding it (the gate read with `self` such an
instance: semantics/constructions.py), where the values the constructions give do not all
answer alike. A value several gates read lets through what every one of them does. No
name is looked at.

The row sits in the construction's file and is derived from the gate in the class's: its
file's reads hold the class's module (impact audits both when either changes).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from astroid import nodes

from gatecheck.audit.class_bounds import BoundSides, read_through_receiver
from gatecheck.audit.conditions import ArchCondition, Role
from gatecheck.findings import Polarity
from gatecheck.loading.project import Project
from gatecheck.loading.readlog import reading_for
from gatecheck.loading.resolve import decorator_names
from gatecheck.semantics import callers
from gatecheck.semantics.admitted import Semantics
from gatecheck.semantics.constructions import fields_flag
from gatecheck.semantics.values import contains_unknown

# Distinct values of one field read per gate, at most (each is one reading of the gate).
MAX_VALUES = 16


def construction_bound_conditions(
    project: Project,
    semantics: Semantics,
    conditions: Sequence[ArchCondition],
    vendor_gens: frozenset[str],
    only: Collection[Path] | None = None,
) -> list[ArchCondition]:
    """A row at each construction's value of a field a gate reads through `self` (see the
    module's docstring), in the order the gates come; `only`: the files rows may sit in
    (impact's files), None for any."""
    evaluator = semantics.evaluator(semantics.registry.names[0])
    sides = BoundSides()
    for found in conditions:
        if found.role is not Role.GATE or found.kind.is_declaration or found.admission.receivers:
            continue
        method = _method(found.condition)
        if method is None:
            continue
        cls = method.parent
        assert isinstance(cls, nodes.ClassDef)
        enables = found.polarity is Polarity.ENABLES
        for name in read_through_receiver(found.condition):
            with reading_for(project, found.path):
                given = callers.field_arguments(evaluator, cls, name)
            values = _distinct(given or [])
            if values is None or len(values) < 2:
                continue
            each: dict[tuple[type, Any], frozenset[str]] = {}
            for value in values:
                with reading_for(project, found.path):
                    admission = semantics.admission(
                        found.condition, fields_flag(method, ((name, value),))
                    )
                side = admission.can_be_true if enables else admission.can_be_false
                each[_key(value)] = side
            if len(set(each.values())) == 1:
                continue  # every value answers alike: no construction's decides it
            for node, value in given or []:
                sides.keep(node, each[_key(value)], found.module)
    return sides.rows(project, semantics.registry.all_names(), vendor_gens, only)


def _method(condition: nodes.NodeNG) -> nodes.FunctionDef | None:
    """The instance method around `condition` (not a static or class method)."""
    method = condition.frame()
    if not (isinstance(method, nodes.FunctionDef) and isinstance(method.parent, nodes.ClassDef)):
        return None
    if {"staticmethod", "classmethod"} & set(decorator_names(method)):
        return None
    return method


def _distinct(given: Sequence[tuple[nodes.NodeNG, Any]]) -> list[Any] | None:
    """The distinct known values the constructions give, hashable (each is a reading of
    the gate, kept with its flag); None where one is not known or too many differ."""
    values: dict[tuple[type, Any], Any] = {}
    for _, value in given:
        if value is callers.NOT_FOUND or contains_unknown(value):
            return None
        try:
            hash(value)
        except TypeError:
            return None
        values.setdefault(_key(value), value)
    return list(values.values()) if len(values) <= MAX_VALUES else None


def _key(value: Any) -> tuple[type, Any]:
    """`1` and `True` are equal, and hash alike: told apart by their types."""
    return type(value), value
