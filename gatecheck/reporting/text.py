"""Terminal output (rich): findings with a code frame, then a summary line."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.text import Text

from gatecheck.config.model import Registry
from gatecheck.findings import Finding
from gatecheck.loading.project import FileDiagnostic
from gatecheck.reporting.columns import SourceLines, code_point_column
from gatecheck.reporting.paths import display_path

CONTEXT_LINES = 1
_LINES = SourceLines()


def _frame(lines: list[str], finding: Finding) -> Text:
    out = Text()
    first = max(finding.start.line - CONTEXT_LINES, 1)
    last = min(finding.end.line + CONTEXT_LINES, len(lines))
    width = len(str(last))
    for number in range(first, last + 1):
        line = lines[number - 1].rstrip("\r\n")
        out.append(f"  {number:>{width}} | ", style="dim")
        # Finding columns are UTF-8 byte offsets (astroid); the frame indexes characters.
        start = code_point_column(line, finding.start.column) if number == finding.start.line else 0
        end = (
            code_point_column(line, finding.end.column) if number == finding.end.line else len(line)
        )
        inside = finding.start.line <= number <= finding.end.line
        if inside:
            out.append(line[:start])
            out.append(line[start:end], style="bold red")
            out.append(line[end:])
        else:
            out.append(line)
        out.append("\n")
        if inside and number == finding.start.line:
            marker_end = end if finding.end.line == number else len(line)
            out.append(f"  {'':>{width}} | ", style="dim")
            # Keep the line's tabs under the caret so that both lines expand alike.
            pad = "".join(c if c == "\t" else " " for c in line[:start])
            out.append(pad + "^" * max(marker_end - start, 1), style="bold red")
            out.append("\n")
    return out


def render_finding(
    console: Console, finding: Finding, registry: Registry, base: Path | None
) -> None:
    column = _LINES.column(finding.path, finding.start.line, finding.start.column)
    where = f"{display_path(finding.path, base)}:{finding.start.line}:{column}"
    header = Text()
    header.append(where, style="bold")
    header.append(": ")
    header.append(finding.rule.id, style="bold red")
    header.append(f" [{finding.feature}] ", style="cyan")
    header.append(finding.message)
    console.print(header)
    required = ", ".join(registry.ordered(finding.required))
    admitted = ", ".join(registry.ordered(finding.admitted)) or "none"
    missing = ", ".join(registry.ordered(finding.missing))
    console.print(
        Text.assemble(
            ("  required: ", "dim"),
            required,
            ("   admitted: ", "dim"),
            admitted,
            ("   missing: ", "dim"),
            (missing, "red"),
        )
    )
    console.print(
        Text(f"  in {finding.qualname} ({finding.gate_kind} gate, {finding.polarity})", style="dim")
    )
    try:
        lines = finding.path.read_text(encoding="utf-8", errors="replace").splitlines()
        console.print(_frame(lines, finding), end="")
    except OSError:
        pass
    for note in finding.notes:
        console.print(Text.assemble(("  note: ", "bold yellow"), note))
    if finding.fix_note:
        console.print(Text.assemble(("  fix: ", "bold green"), finding.fix_note))
    console.print()


def render_diagnostics(
    console: Console, diagnostics: Sequence[FileDiagnostic], base: Path | None
) -> None:
    for diag in diagnostics:
        where = f"{display_path(diag.path, base)}:{diag.line}:{diag.column + 1}"
        console.print(Text.assemble((where, "bold"), ": ", ("GC900", "yellow"), f" {diag.message}"))


def render_concise(console: Console, findings: Sequence[Finding], base: Path | None) -> None:
    for f in findings:
        column = _LINES.column(f.path, f.start.line, f.start.column)
        where = f"{display_path(f.path, base)}:{f.start.line}:{column}"
        console.print(
            f"{where}: {f.rule.id} [{f.feature}] {f.message}", highlight=False, markup=False
        )
