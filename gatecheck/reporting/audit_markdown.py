"""The audit as Markdown (a PR comment or $GITHUB_STEP_SUMMARY): counts, the matrix grouped
by feature with likely gaps first, then why each likely gap is one: its polarity, reasons,
what was assumed (names, annotations, defaults), and the call sites that pass it on."""

from __future__ import annotations

from pathlib import Path

from gatecheck.audit import AuditedGate, AuditReport, GateClass
from gatecheck.reporting.audit_text import (
    declaration_note,
    is_declaration,
    polarity_of,
    summary_line,
)
from gatecheck.reporting.markdown import cell, code, inline
from gatecheck.reporting.paths import display_path

CLASS_ICONS = {
    GateClass.LIKELY_GAP: "🔴 likely gap",
    GateClass.DELIBERATE: "🟡 probably deliberate",
    GateClass.DECIDED: "🔵 decided",
    GateClass.ADMITS: "🟢 admits",
    GateClass.VENDOR: "⚪ vendor",
    GateClass.CONSTANT: "⚪ constant",
}


def _place(gate: AuditedGate, base: Path | None) -> str:
    return f"{display_path(gate.path, base)}:{gate.start.line}"


def render_audit_markdown(report: AuditReport, base: Path | None = None) -> str:
    lines = [f"## gatecheck audit: {report.generation}", "", inline(summary_line(report)), ""]
    lines.append(
        "✓: the feature can run there (for a disabling gate, where its condition can be false)."
    )
    lines.append("")
    columns = [f"**{g}**" if g == report.generation else g for g in report.columns]
    lines.append("| feature | gate | class | polarity | " + " | ".join(columns) + " |")
    lines.append("|---|---|---|---|" + "---|" * len(columns))
    for feature, grouped in report.groups():
        gates = [g for g in grouped if not is_declaration(g)]
        for row, gate in enumerate(gates):
            marks = ["✓" if gen in gate.admits else "·" for gen in report.columns]
            name = cell(code(feature)) if row == 0 else ""
            lines.append(
                f"| {name} | {cell(code(_place(gate, base)))} | {CLASS_ICONS[gate.gate_class]} | "
                f"{polarity_of(gate)} | " + " | ".join(marks) + " |"
            )
    declared = [g for g in report.gates if is_declaration(g)]
    if declared:
        lines += ["", "### Kernel declarations", ""]
        lines.append("| declaration | class | " + " | ".join(columns) + " |")
        lines.append("|---|---|" + "---|" * len(columns))
        for gate in declared:
            marks = ["✓" if gen in gate.admits else "·" for gen in report.columns]
            what = f"{code(_place(gate, base))} {code(gate.condition)}"
            note = declaration_note(gate, report.generation)
            lines.append(
                f"| {cell(what)} | {CLASS_ICONS[gate.gate_class]}: {cell(note)} | "
                + " | ".join(marks)
                + " |"
            )
    gaps = [g for g in report.gates if g.gate_class is GateClass.LIKELY_GAP]
    if gaps:
        lines += ["", "### Likely gaps", ""]
        for gate in gaps:
            lines.append(
                f"- {code(_place(gate, base))} ({code(gate.feature)}, "
                f"{gate.found.kind.value} gate that {polarity_of(gate)} the feature "
                f"{gate.found.kind.when}): "
                f"{code(gate.condition)}"
            )
            lines += [f"  - {inline(reason)}" for reason in gate.reasons]
            lines += [f"  - assumed: {inline(a)}" for a in sorted(gate.found.admission.assumed)]
            lines += [
                f"  - via {code(f'{display_path(s.path, base)}:{s.line}')} ({code(s.qualname)})"
                for s in gate.call_sites
            ]
    decided = [g for g in report.gates if g.gate_class is GateClass.DECIDED]
    if decided:
        lines += ["", "### Decided", ""]
        for gate in decided:
            lines.append(f"- {code(_place(gate, base))}: {inline(gate.reasons[0])}")
    return "\n".join(lines) + "\n"
