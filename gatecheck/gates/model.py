"""What a gate is: one condition on a feature's activation path, with its polarity."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

from astroid import nodes


class Polarity(enum.Enum):
    ENABLES = "enables"  # the feature can be on only when the condition is true
    DISABLES = "disables"  # the feature is switched off when the condition is true


class GateKind(enum.Enum):
    AUTO_ENABLE = "auto-enable"  # the flag is switched on under the condition
    AUTO_DISABLE = "auto-disable"  # the flag is switched off under the condition
    FLAG_VALUE = "flag-value"  # the flag is assigned the condition's value
    RUNTIME = "runtime"  # the condition reads the flag
    GATE_FUNCTION = "gate-function"  # a return value of a gate function
    GUARD = "guard"  # an enclosing or early-exit condition around one of the above


@dataclass(frozen=True, eq=False)
class Gate:
    kind: GateKind
    polarity: Polarity
    path: Path
    module: str
    qualname: str
    condition: nodes.NodeNG
    # The statement the condition belongs to (If, Return, Assign, ...): where fixes anchor.
    statement: nodes.NodeNG

    @property
    def line(self) -> int:
        return int(self.condition.lineno or 1)

    @property
    def key(self) -> tuple[str, int, int]:
        return (str(self.path), self.line, int(self.condition.col_offset or 0))


def qualname_of(node: nodes.NodeNG) -> str:
    parts: list[str] = []
    scope = node.scope()
    while not isinstance(scope, nodes.Module):
        name = getattr(scope, "name", None)
        parts.insert(0, str(name) if name else "<lambda>")
        parent = scope.parent
        if parent is None:
            break
        scope = parent.scope()
    module = node.root()
    prefix = str(module.name) if isinstance(module, nodes.Module) else ""
    return ".".join([prefix, *parts]) if parts else prefix
