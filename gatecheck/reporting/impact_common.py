"""What every impact reporter shows of a change: where (the working tree's gate, or
BASE's for a removed one), and the before/after admitted sets."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gatecheck.audit.report import AuditedGate
from gatecheck.impact.model import ChangeKind, GateChange, ImpactReport, IssueKind
from gatecheck.reporting.columns import SourceLines
from gatecheck.reporting.paths import display_path


@dataclass(frozen=True)
class Place:
    path: Path
    line: int
    column: int  # 1-based code points (BASE's byte column + 1 for a removed gate)
    end_line: int
    end_column: int
    at_base: bool  # the gate is gone: its place is BASE's


def place(change: GateChange, lines: SourceLines) -> Place:
    gate = change.gate
    if change.after is None:
        return Place(
            gate.path,
            gate.start.line,
            gate.start.column + 1,
            gate.end.line,
            gate.end.column + 1,
            True,
        )
    return Place(
        gate.path,
        gate.start.line,
        lines.column(gate.path, gate.start.line, gate.start.column),
        gate.end.line,
        lines.column(gate.path, gate.end.line, gate.end.column),
        False,
    )


def shown_path(path: Path, base: Path) -> str:
    return display_path(path, base)


def admitted_cell(change: GateChange, generation: str) -> str:
    """`yes`, `no`, `yes → no` (narrowed), `no → yes` (widened), `– → no` (new)."""
    before = _admits(change.before, generation)
    after = _admits(change.after, generation)
    if before == after:
        return after
    return f"{before} → {after}"


def _admits(gate: AuditedGate | None, generation: str) -> str:
    if gate is None:
        return "–"
    return "yes" if generation in gate.admits else "no"


COUNTED = (
    IssueKind.NARROWED,
    IssueKind.WIDENED_UNBUILT,
    IssueKind.WIDENED,
    IssueKind.NEW_GATE,
    IssueKind.REMOVED_GATE,
)


def summary_line(report: ImpactReport) -> str:
    counts = [f"{report.count(kind)} {kind.value}" for kind in COUNTED]
    scope = (
        f"{report.compared_files} of {report.project_files} files compared"
        if report.compared_files
        else "no Python file changed"
    )
    return (
        f"gatecheck impact against {report.base} ({report.commit[:12]}): "
        f"{', '.join(counts)}; {report.unchanged} matched gates unchanged ({scope})"
    )


def kind_label(change: GateChange) -> str:
    return {ChangeKind.NEW: "new", ChangeKind.REMOVED: "removed", ChangeKind.CHANGED: "changed"}[
        change.kind
    ]
