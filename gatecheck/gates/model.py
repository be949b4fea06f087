"""What a gate is: one condition on a feature's activation path, with its polarity."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gatecheck.findings import GateKind, Polarity

if TYPE_CHECKING:  # a run answered from the cache imports no astroid
    from astroid import nodes

__all__ = ["Gate", "GateKind", "Polarity", "qualname_of"]


@dataclass(frozen=True, eq=False)
class Gate:
    """A condition deciding whether a feature is on: where, and which way."""

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
    from astroid import nodes

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
