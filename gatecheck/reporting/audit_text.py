"""The audit in the terminal (rich): one matrix row per gate, grouped by feature, a
column per generation, likely gaps first; then why each likely gap is one."""

from __future__ import annotations

import re
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from gatecheck.audit import AuditedGate, AuditReport, GateClass
from gatecheck.reporting.paths import display_path

CLASS_STYLES = {
    GateClass.LIKELY_GAP: "bold red",
    GateClass.DELIBERATE: "yellow",
    GateClass.DECIDED: "cyan",
    GateClass.ADMITS: "green",
}
ADMITTED, EXCLUDED = "✓", "·"


def summary_line(report: AuditReport) -> str:
    counts = report.counts()
    parts = [f"{counts[c]} {c.label}" for c in GateClass]
    return (
        f"{len(report.gates)} gates for {report.generation}: {', '.join(parts)}; "
        f"{report.vendor_gates} vendor gates, {len(report.hops)} call-site hops, "
        f"{report.predicate_definitions} predicate definitions not counted "
        f"({report.scanned} of {report.files} files mention arch idioms)"
    )


def where(gate: AuditedGate, base: Path | None) -> str:
    return f"{display_path(gate.path, base)}:{gate.start.line}:{gate.start.column + 1}"


def short_feature(gate: AuditedGate) -> str:
    """A function feature without its module prefix (the gate column shows the file)."""
    prefix = gate.found.module + "."
    if gate.feature_source == "function" and gate.feature.startswith(prefix):
        return gate.feature[len(prefix) :]
    return gate.feature


def column_label(generation: str) -> str:
    # "sm120" -> "120", "gfx942" -> "942": the title says what the numbers are.
    return re.sub(r"^[a-z]+", "", generation) or generation


def matrix_table(report: AuditReport, base: Path | None) -> Table:
    columns = ", ".join(report.columns)
    table = Table(
        title=f"Architecture gates for {report.generation} ({ADMITTED} admitted; {columns})",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 0, 0, 1),
    )
    table.add_column("feature", overflow="fold", ratio=2)
    table.add_column("gate", overflow="fold", ratio=3)
    table.add_column("class", no_wrap=True)
    for gen in report.columns:
        style = "bold reverse" if gen == report.generation else "bold"
        table.add_column(column_label(gen), justify="center", header_style=style, no_wrap=True)
    for index, (_, gates) in enumerate(report.groups()):
        if index:
            table.add_section()
        for row, gate in enumerate(gates):
            cells = [ADMITTED if gen in gate.admits else EXCLUDED for gen in report.columns]
            table.add_row(
                short_feature(gate) if row == 0 else "",
                where(gate, base),
                Text(gate.gate_class.label, style=CLASS_STYLES[gate.gate_class]),
                *cells,
            )
    return table


def render_audit_text(console: Console, report: AuditReport, base: Path | None) -> None:
    console.print(matrix_table(report, base))
    gaps = [g for g in report.gates if g.gate_class is GateClass.LIKELY_GAP]
    for gate in gaps:
        console.print(
            Text.assemble(
                (where(gate, base), "bold"),
                ": ",
                ("likely gap", "bold red"),
                f" [{gate.feature}] ",
                (gate.condition, "dim"),
            )
        )
        for reason in gate.reasons:
            console.print(f"  - {reason}", markup=False, highlight=False)
        for site in gate.call_sites:
            console.print(
                f"  via {display_path(site.path, base)}:{site.line} ({site.qualname})",
                markup=False,
                highlight=False,
            )
    for diag in report.diagnostics:
        console.print(
            Text.assemble(
                (f"{display_path(diag.path, base)}:{diag.line}", "bold"),
                ": ",
                ("GC900", "yellow"),
                f" {diag.message}",
            )
        )
    console.print(summary_line(report), style="bold", markup=False, highlight=False)
