"""The audit as Markdown (a PR comment or $GITHUB_STEP_SUMMARY): counts, the matrix grouped
by feature with likely gaps first, then why each likely gap is one."""

from __future__ import annotations

from pathlib import Path

from gatecheck.audit import AuditReport, GateClass
from gatecheck.reporting.audit_text import summary_line
from gatecheck.reporting.markdown import cell, code
from gatecheck.reporting.paths import display_path

CLASS_ICONS = {
    GateClass.LIKELY_GAP: "🔴 likely gap",
    GateClass.DELIBERATE: "🟡 probably deliberate",
    GateClass.DECIDED: "🔵 decided",
    GateClass.ADMITS: "🟢 admits",
}


def render_audit_markdown(report: AuditReport, base: Path | None = None) -> str:
    lines = [f"## gatecheck audit: {report.generation}", "", summary_line(report), ""]
    columns = [f"**{g}**" if g == report.generation else g for g in report.columns]
    lines.append("| feature | gate | class | " + " | ".join(columns) + " |")
    lines.append("|---|---|---|" + "---|" * len(columns))
    for feature, gates in report.groups():
        for row, gate in enumerate(gates):
            place = f"{display_path(gate.path, base)}:{gate.start.line}"
            marks = ["✓" if gen in gate.admits else "·" for gen in report.columns]
            name = cell(code(feature)) if row == 0 else ""
            lines.append(
                f"| {name} | {cell(code(place))} | {CLASS_ICONS[gate.gate_class]} | "
                + " | ".join(marks)
                + " |"
            )
    gaps = [g for g in report.gates if g.gate_class is GateClass.LIKELY_GAP]
    if gaps:
        lines += ["", "### Likely gaps", ""]
        for gate in gaps:
            place = f"{display_path(gate.path, base)}:{gate.start.line}"
            lines.append(f"- {code(place)} ({code(gate.feature)}): {code(gate.condition)}")
            lines += [f"  - {reason}" for reason in gate.reasons]
    decided = [g for g in report.gates if g.gate_class is GateClass.DECIDED]
    if decided:
        lines += ["", "### Decided", ""]
        for gate in decided:
            place = f"{display_path(gate.path, base)}:{gate.start.line}"
            lines.append(f"- {code(place)}: {gate.reasons[0]}")
    return "\n".join(lines) + "\n"
