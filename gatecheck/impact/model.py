"""What a change does to each generation, as plain data: the reporters render it, the CLI
turns it into an exit code."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gatecheck.audit.report import AuditedGate


class ChangeKind(enum.Enum):
    CHANGED = "changed"  # the same gate on both sides (its condition may be edited)
    NEW = "new"
    REMOVED = "removed"


class IssueKind(enum.Enum):
    """One line of the report; its level is what a CI run is told."""

    NARROWED = "narrowed"  # a generation the gate admitted before no longer is
    WIDENED_UNBUILT = "widened-past-kernels"  # newly admitted, but the kernels are not built for it
    WIDENED = "widened"  # newly admitted
    NEW_GATE = "new-gate"  # a new gate that shuts generations out
    REMOVED_GATE = "removed-gate"

    @property
    def rule_id(self) -> str:
        return f"impact-{self.value}"

    @property
    def level(self) -> str:
        """SARIF's level names (the GitHub reporter maps note to notice)."""
        return _LEVELS[self]

    @property
    def rank(self) -> int:
        return list(IssueKind).index(self)


_LEVELS = {
    IssueKind.NARROWED: "error",
    IssueKind.WIDENED_UNBUILT: "error",
    IssueKind.WIDENED: "note",
    IssueKind.NEW_GATE: "warning",
    IssueKind.REMOVED_GATE: "note",
}


@dataclass(frozen=True)
class GateChange:
    """One gate across BASE and the working tree: `before` is None for a new gate,
    `after` for a removed one. Paths of `before` are where the file was at BASE (under
    the project root, as if checked out)."""

    kind: ChangeKind
    before: AuditedGate | None
    after: AuditedGate | None
    lost: frozenset[str] = frozenset()  # admitted before, not now (of the compared generations)
    gained: frozenset[str] = frozenset()
    # Gained generations the gate's kernels are not built for, and what they are built for.
    unbuilt: frozenset[str] = frozenset()
    kernels: tuple[str, ...] = ()

    @property
    def gate(self) -> AuditedGate:
        """The side a reader looks at: the working tree's, or BASE's for a removed gate."""
        shown = self.after or self.before
        assert shown is not None
        return shown

    @property
    def feature(self) -> str:
        return self.gate.feature


@dataclass(frozen=True)
class Issue:
    kind: IssueKind
    change: GateChange
    generations: tuple[str, ...]  # registry order
    message: str

    @property
    def level(self) -> str:
        return self.kind.level


@dataclass(frozen=True)
class ImpactReport:
    base: str  # the ref as given (or how it was chosen)
    commit: str  # what it resolved to
    generation: str  # the audit's generation: its vendor's generations are compared
    vendor: str
    columns: tuple[str, ...]  # the generations compared, registry order
    changes: tuple[GateChange, ...]  # only gates whose admitted set changed, new or removed
    issues: tuple[Issue, ...]
    unchanged: int = 0  # gates matched with the same admitted set
    changed_files: tuple[Path, ...] = ()  # working-tree paths that differ from BASE
    compared_files: int = 0  # files whose gates were compared (changed, and what imports them)
    project_files: int = 0
    diagnostics: Sequence[str] = ()

    def count(self, kind: IssueKind) -> int:
        return sum(1 for issue in self.issues if issue.kind is kind)

    @property
    def narrowed(self) -> bool:
        return any(i.kind is IssueKind.NARROWED for i in self.issues)

    @property
    def widened_past_kernels(self) -> bool:
        return any(i.kind is IssueKind.WIDENED_UNBUILT for i in self.issues)
