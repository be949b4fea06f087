"""Terminal output: findings with a code frame, then a summary line, as styled lines
(reporting/styled.py: through rich on a terminal, written plain to a pipe or a file)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from gatecheck.config.model import Registry
from gatecheck.findings import Finding
from gatecheck.loading.project import FileDiagnostic
from gatecheck.reporting.columns import SourceLines, code_point_column
from gatecheck.reporting.grammar import gate_description
from gatecheck.reporting.paths import display_path
from gatecheck.reporting.plain import printable
from gatecheck.reporting.styled import Printer, Styled

CONTEXT_LINES = 1
# A frame shows this many characters of the line before the marked span, of the span and
# after it, cutting the rest with an ellipsis: a 5 MB one-line file is not printed whole.
BEFORE_CHARS = 60
MARKED_CHARS = 80
AFTER_CHARS = 40
ELLIPSIS = "..."


def _head(text: str, keep: int) -> str:
    return text if len(text) <= keep + len(ELLIPSIS) else text[:keep] + ELLIPSIS


def _tail(text: str, keep: int) -> str:
    return text if len(text) <= keep + len(ELLIPSIS) else ELLIPSIS + text[-keep:]


def _middle(text: str, keep: int) -> str:
    if len(text) <= keep + len(ELLIPSIS):
        return text
    half = keep // 2
    return text[:half] + ELLIPSIS + text[-(keep - half) :]


def _frame(lines: list[str], finding: Finding) -> Styled:
    out = Styled()
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
        # Cut around the caret, then escaped piece by piece, so that the caret stays
        # under what it marks.
        pieces = (line[:start], line[start:end], line[end:])
        if not inside:
            pieces = (_head(line, BEFORE_CHARS + MARKED_CHARS + AFTER_CHARS), "", "")
        elif number == finding.start.line:
            pieces = (
                _tail(pieces[0], BEFORE_CHARS),
                _middle(pieces[1], MARKED_CHARS),
                _head(pieces[2], AFTER_CHARS),
            )
        else:
            pieces = ("", _middle(pieces[1], MARKED_CHARS), _head(pieces[2], AFTER_CHARS))
        before, marked, after = (printable(part) for part in pieces)
        if inside:
            out.append(before)
            out.append(marked, style="bold red")
            out.append(after)
        else:
            out.append(before + marked + after)
        out.append("\n")
        if inside and number == finding.start.line:
            marker = marked if finding.end.line == number else marked + after
            out.append(f"  {'':>{width}} | ", style="dim")
            # Keep the line's tabs under the caret so that both lines expand alike.
            pad = "".join(c if c == "\t" else " " for c in before)
            out.append(pad + "^" * max(len(marker), 1), style="bold red")
            out.append("\n")
    return out


def render_finding(
    console: Printer,
    finding: Finding,
    registry: Registry,
    base: Path | None,
    lines: SourceLines | None = None,
) -> None:
    column = (lines or SourceLines()).column(finding.path, finding.start.line, finding.start.column)
    where = f"{display_path(finding.path, base)}:{finding.start.line}:{column}"
    header = Styled()
    header.append(where, style="bold")
    header.append(": ")
    header.append(finding.rule.id, style="bold red")
    header.append(f" [{printable(finding.feature)}] ", style="cyan")
    header.append(printable(finding.message))
    console.print(header)
    required = ", ".join(registry.ordered(finding.required))
    admitted = ", ".join(registry.ordered(finding.admitted)) or "none"
    missing = ", ".join(registry.ordered(finding.missing))
    console.print(
        Styled(
            ("  required: ", "dim"),
            required,
            ("   admitted: ", "dim"),
            admitted,
            ("   missing: ", "dim"),
            (missing, "red"),
        )
    )
    console.print(
        Styled(f"  in {printable(finding.qualname)} ({gate_description(finding)})", base="dim")
    )
    for assumption in finding.assumed:
        console.print(Styled(("  assumed: ", "bold yellow"), printable(assumption)))
    try:
        text = finding.path.read_text(encoding="utf-8", errors="replace").splitlines()
        console.print(_frame(text, finding), end="")
    except OSError:
        pass
    for note in finding.notes:
        console.print(Styled(("  note: ", "bold yellow"), printable(note)))
    if finding.fix_note:
        console.print(Styled(("  fix: ", "bold green"), printable(finding.fix_note)))
    console.print()


def render_diagnostics(
    console: Printer, diagnostics: Sequence[FileDiagnostic], base: Path | None
) -> None:
    for diag in diagnostics:
        where = f"{display_path(diag.path, base)}:{diag.line}:{diag.column + 1}"
        message = printable(diag.message)
        console.print(Styled((where, "bold"), ": ", (diag.code, "yellow"), f" {message}"))


def render_concise(console: Printer, findings: Sequence[Finding], base: Path | None) -> None:
    lines = SourceLines()
    for f in findings:
        column = lines.column(f.path, f.start.line, f.start.column)
        where = f"{display_path(f.path, base)}:{f.start.line}:{column}"
        line = f"{where}: {f.rule.id} [{printable(f.feature)}] {printable(f.message)}"
        console.print(Styled(line))
