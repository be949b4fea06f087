"""The audit as text. On a terminal (rich): one matrix row per gate, grouped by feature, a
column per generation, likely gaps first; then why each likely gap is one. Elsewhere (a
pipe, a CI log, a file): one `path:line:col  class  feature  admits: ...` line per gate."""

from __future__ import annotations

import re
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from gatecheck.audit import AuditedGate, AuditReport, GateClass
from gatecheck.containment import BOUND_HIT
from gatecheck.reporting.columns import SourceLines
from gatecheck.reporting.grammar import count
from gatecheck.reporting.paths import display_path
from gatecheck.reporting.plain import printable

CLASS_STYLES = {
    GateClass.LIKELY_GAP: "bold red",
    GateClass.DELIBERATE: "yellow",
    GateClass.DECIDED: "cyan",
    GateClass.ADMITS: "green",
    GateClass.VENDOR: "dim",
    GateClass.CONSTANT: "dim",
}
ADMITTED, EXCLUDED = "✓", "·"


def summary_line(report: AuditReport) -> str:
    counts = report.counts()
    parts = [f"{counts[c]} {c.label}" for c in GateClass]
    return (
        f"{count(len(report.gates), 'gate')} for {report.generation}: {', '.join(parts)}; "
        f"{count(len(report.hops), 'call-site hop')}, "
        f"{count(report.predicate_definitions, 'other predicate definition')} not listed "
        f"({report.scanned} of {count(report.files, 'file')} searched: "
        "they spell an arch idiom or a name that carries the device)"
    )


def where(gate: AuditedGate, base: Path | None, lines: SourceLines | None = None) -> str:
    column = (lines or SourceLines()).column(gate.path, gate.start.line, gate.start.column)
    return f"{display_path(gate.path, base)}:{gate.start.line}:{column}"


def short_feature(gate: AuditedGate) -> str:
    """A function's (class's) feature without its module prefix (the gate column shows
    the file)."""
    prefix = gate.found.module + "."
    if gate.feature_source in ("function", "class") and gate.feature.startswith(prefix):
        return printable(gate.feature[len(prefix) :])
    return printable(gate.feature)


def column_label(generation: str) -> str:
    # "sm120" -> "120", "gfx942" -> "942": the title says what the numbers are.
    return re.sub(r"^[a-z]+", "", generation) or generation


def polarity_of(gate: AuditedGate) -> str:
    return str(getattr(gate.found.polarity, "value", gate.found.polarity))


def shown_admits(gate: AuditedGate, report: AuditReport) -> str:
    """What the feature's side of the gate admits among the report's columns (the audited
    vendor's generations): a CUDA gate is never said to admit gfx90a."""
    admitted = [gen for gen in report.columns if gen in gate.admits]
    return ", ".join(admitted) or "none"


def is_declaration(gate: AuditedGate) -> bool:
    """A kernel declaration (decorator, build arch list): shown in its own section."""
    return bool(getattr(gate.found.kind, "is_declaration", False))


def declaration_note(gate: AuditedGate, generation: str) -> str:
    """`not built for sm120` / `declared supported on sm120` / `sm120 meets the declared
    least capability` (a declaration row)."""
    admitted = generation in gate.admits
    if gate.found.kind.value == "minimum":
        return f"{generation} {'meets' if admitted else 'is below'} the declared least capability"
    if gate.found.kind.value == "attribute":
        where = "is within" if admitted else "is outside"
        return f"{generation} {where} the bound declared here"
    verb = "built for" if gate.found.kind.value == "build" else "declared supported on"
    return f"{'' if admitted else 'not '}{verb} {generation}"


def gate_line(
    gate: AuditedGate, report: AuditReport, base: Path | None, lines: SourceLines | None = None
) -> Text:
    """`path:line:col  class  feature  admits: sm90, sm100` (one line, for pipes and logs)."""
    line = Text()
    line.append(where(gate, base, lines), style="bold")
    line.append("  ")
    line.append(gate.gate_class.value, style=CLASS_STYLES[gate.gate_class])
    line.append(f"  {printable(gate.feature)}  admits: {shown_admits(gate, report)}")
    if polarity_of(gate) == "disables":
        line.append("  (disabling gate: admits where it can be false)", style="dim")
    if gate.found.admission.assumed:
        line.append("  (partly assumed)", style="yellow")
    return line


def matrix_table(report: AuditReport, base: Path | None, lines: SourceLines | None = None) -> Table:
    """Each feature's name on a row of its own, its gates under it: the gate column takes
    the width a path needs, the matrix columns only theirs."""
    table = Table(
        title=(
            f"Architecture gates for {report.generation}: {ADMITTED} where the feature can run "
            "(a disabling gate: where its condition can be false)"
        ),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 0, 0, 1),
    )
    table.add_column("feature / gate", overflow="fold")
    table.add_column("class", no_wrap=True)
    for gen in report.columns:
        style = "bold reverse" if gen == report.generation else "bold"
        table.add_column(column_label(gen), justify="center", header_style=style, no_wrap=True)
    blank = [Text("")] * len(report.columns)
    groups = [(f, [g for g in gs if not is_declaration(g)]) for f, gs in report.groups()]
    for index, (_, gates) in enumerate([(f, gs) for f, gs in groups if gs]):
        if index:
            table.add_section()
        table.add_row(Text(short_feature(gates[0]), style="bold"), Text(""), *blank)
        for gate in gates:
            cells = [Text(ADMITTED if gen in gate.admits else EXCLUDED) for gen in report.columns]
            label = gate.gate_class.label + (" (dis)" if polarity_of(gate) == "disables" else "")
            table.add_row(
                Text("  " + where(gate, base, lines)),
                Text(label, style=CLASS_STYLES[gate.gate_class]),
                *cells,
            )
    return table


def table_fits(report: AuditReport, base: Path | None, width: int, lines: SourceLines) -> bool:
    """Whether every place fits on one line of a `width`-column table (else: lines)."""
    longest = max((len(where(g, base, lines)) + 2 for g in report.gates), default=0)
    longest = max([longest, *(len(short_feature(g)) for g in report.gates)])
    matrix = sum(max(len(column_label(gen)), 1) + 1 for gen in report.columns)
    return longest + len(" probably deliberate (dis)") + matrix + 4 <= width


def render_gap_details(
    console: Console, gate: AuditedGate, base: Path | None, lines: SourceLines | None = None
) -> None:
    console.print(
        Text.assemble(
            (where(gate, base, lines), "bold"),
            ": ",
            ("likely gap", "bold red"),
            f" [{printable(gate.feature)}] ",
            (printable(gate.condition), "dim"),
        )
    )
    polarity = polarity_of(gate)
    kind = gate.found.kind
    inside = " in a device predicate's definition" if gate.found.definition else ""
    console.print(Text(f"  {kind.value} gate{inside}, {polarity} the feature {kind.when}"))
    for reason in gate.reasons:
        console.print(Text(f"  - {printable(reason)}"))
    for assumption in sorted(gate.found.admission.assumed):
        console.print(Text.assemble(("  assumed: ", "yellow"), printable(assumption)))
    for site in gate.call_sites:
        place = f"{display_path(site.path, base)}:{site.line}"
        console.print(Text(f"  via {place} ({printable(site.qualname)})"))


def render_declarations(
    console: Console,
    report: AuditReport,
    base: Path | None,
    lines: SourceLines,
    *,
    heading: bool = True,
) -> None:
    """Kernel declarations in their own section: what each kernel is declared or built for,
    and whether that includes the audited generation. Without `heading`, one line per
    declaration and nothing else (the output of a pipe: one line per gate)."""
    declared = [g for g in report.gates if is_declaration(g)]
    if not declared:
        return
    missing = sum(1 for g in declared if report.generation not in g.admits)
    if heading:
        console.print(
            Text(
                f"Kernel declarations: {missing} of {len(declared)} not for {report.generation}",
                style="bold",
            )
        )
    for gate in declared:
        line = gate_line(gate, report, base, lines)
        line.append(f"  {declaration_note(gate, report.generation)}: ")
        line.append(printable(gate.condition), style="dim")
        console.print(line, soft_wrap=True)


def render_audit_text(
    console: Console, report: AuditReport, base: Path | None, *, table: bool | None = None
) -> None:
    """The matrix and the likely gaps' reasons on a terminal wide enough for it (`table`,
    default: whether the console is one); elsewhere one line per gate, never wrapped."""
    lines = SourceLines()  # each file read once for the whole report
    if table is None:
        table = console.is_terminal
    wide = table and table_fits(report, base, console.width, lines)
    if wide:
        console.print(matrix_table(report, base, lines))
        for gate in report.gates:
            if gate.gate_class is GateClass.LIKELY_GAP and not is_declaration(gate):
                render_gap_details(console, gate, base, lines)
    else:
        for gate in report.gates:
            if not is_declaration(gate):
                console.print(gate_line(gate, report, base, lines), soft_wrap=True)
    render_declarations(console, report, base, lines, heading=wide)
    render_diagnostics(console, report, base)
    console.print(Text(summary_line(report), style="bold"), soft_wrap=True)


# Conditions not evaluated to the end (GC901) listed in the text report; the others are
# counted (a web application's deep call chains gave unsloth 1,713 of them, each "may be
# a gate": a wall of lines hiding the report). JSON, Markdown and HTML list every one.
LISTED_BOUND_HITS = 20


def render_diagnostics(console: Console, report: AuditReport, base: Path | None) -> None:
    """Each diagnostic with its code (GC900 a file not analysed, GC901 a condition not
    evaluated to the end), the GC901s past LISTED_BOUND_HITS counted in one line."""
    listed, left = 0, []
    for diag in report.diagnostics:
        if diag.code == BOUND_HIT:
            if listed >= LISTED_BOUND_HITS:
                left.append(diag)
                continue
            listed += 1
        console.print(
            Text.assemble(
                (f"{display_path(diag.path, base)}:{diag.line}", "bold"),
                ": ",
                (diag.code, "yellow"),
                f" {printable(diag.message)}",
            ),
            soft_wrap=True,
        )
    if left:
        files = len({d.path for d in left})
        console.print(
            Text(
                f"... and {count(len(left), 'more condition')} not evaluated to the end "
                f"({BOUND_HIT}) in {count(files, 'file')}: --format json lists every one",
                style="yellow",
            ),
            soft_wrap=True,
        )
