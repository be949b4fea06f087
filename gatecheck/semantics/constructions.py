"""A method read for one construction of its class: the flag (Semantics.admission's
`flags`) that names the method and the fields that construction gives, so that its
`self` is an instance holding them (`Capability(min_cc=(9, 0))` then `cc <
self.min_cc` read for that capability alone). Without the flag, `self` is an instance
of the class whose fields are what every construction gives, met (callers.py's
field_from_constructions). The audit's per-construction rows ask it
(gatecheck/audit/construction_bounds.py)."""

from __future__ import annotations

from typing import Any

from astroid import nodes

from gatecheck.semantics.values import InstanceRef

# The flag: (the method, ((field, value), ...)). No name or attribute can be spelled so.
FIELDS = "<self>"


def fields_flag(method: nodes.FunctionDef, fields: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    return {FIELDS: (method, fields)}


def instance_for(flag_values: Any, func: nodes.FunctionDef) -> InstanceRef:
    """`self` of method `func`: the instance the flag gives for it, else one of its class."""
    assert isinstance(func.parent, nodes.ClassDef)
    chosen = flag_values.get(FIELDS)
    if chosen is not None and chosen[0] is func:
        return InstanceRef(func.parent, dict(chosen[1]))
    return InstanceRef(func.parent)
