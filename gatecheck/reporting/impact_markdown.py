"""The impact report for a job summary: per generation what the change narrowed, widened,
added and removed, then each changed gate's before → after across the generations."""

from __future__ import annotations

from pathlib import Path

from gatecheck.impact.model import ImpactReport, IssueKind
from gatecheck.reporting.columns import SourceLines
from gatecheck.reporting.impact_common import (
    COUNTED,
    admitted_cell,
    kind_label,
    place,
    shown_path,
    summary_line,
)
from gatecheck.reporting.markdown import cell, code, inline

_HEADINGS = {
    IssueKind.NARROWED: "narrowed",
    IssueKind.WIDENED_UNBUILT: "widened past kernels",
    IssueKind.WIDENED: "widened",
    IssueKind.NEW_GATE: "new gates shutting it out",
    IssueKind.REMOVED_GATE: "removed gates that shut it out",
}


def render_impact_markdown(report: ImpactReport, base: Path, budget: int | None = None) -> str:
    out = ["## gatecheck impact", "", summary_line(report), ""]
    if not report.changes:
        out.append("No gate changed what it admits.")
        return _fit("\n".join(out) + "\n", budget)
    columns = list(report.columns)
    out += ["### Per generation", "", "| | " + " | ".join(columns) + " |"]
    out.append("|---" * (len(columns) + 1) + "|")
    for kind in COUNTED:
        counts = [
            sum(1 for i in report.issues if i.kind is kind and g in i.generations) for g in columns
        ]
        out.append(
            f"| {_HEADINGS[kind]} | " + " | ".join(str(c) if c else "" for c in counts) + " |"
        )
    out += ["", "### Gates: admitted before → after", ""]
    out.append("| gate | feature | change | " + " | ".join(columns) + " |")
    out.append("|---" * (len(columns) + 3) + "|")
    lines = SourceLines()
    for change in report.changes:
        where = place(change, lines)
        at = " (BASE)" if where.at_base else ""
        spot = code(f"{shown_path(where.path, base)}:{where.line}")
        gate = f"{spot}{at} {code(change.gate.condition)}"
        cells = [admitted_cell(change, g) for g in columns]
        cells = [f"**{c}**" if "→" in c else c for c in cells]
        out.append(
            f"| {cell(gate)} | {cell(inline(change.feature))} | {kind_label(change)} | "
            + " | ".join(cells)
            + " |"
        )
    issues = [i for i in report.issues if i.kind is IssueKind.WIDENED_UNBUILT]
    if issues:
        out += ["", "### Kernels", ""]
        out += [f"- {cell(inline(i.message))}" for i in issues]
    return _fit("\n".join(out) + "\n", budget)


def _fit(text: str, budget: int | None) -> str:
    """Within `budget` bytes (GitHub's step summary limit), cut at a line, saying so."""
    if budget is None or len(text.encode("utf-8")) <= budget:
        return text
    note = "\n… (cut to fit the job summary: see the SARIF or JSON report)\n"
    room = max(budget - len(note.encode("utf-8")), 0)
    kept = text.encode("utf-8")[:room].decode("utf-8", "ignore").rsplit("\n", 1)[0]
    return kept + note
