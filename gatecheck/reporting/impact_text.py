"""The impact report as lines, one per narrowing, widening, new or removed gate, in the
`path:line:col: level rule [feature] message` shape of `check`'s concise format."""

from __future__ import annotations

from pathlib import Path

from gatecheck.impact.model import ImpactReport
from gatecheck.reporting.columns import SourceLines
from gatecheck.reporting.impact_common import place, shown_path, summary_line
from gatecheck.reporting.plain import printable


def render_impact_text(report: ImpactReport, base: Path) -> str:
    lines = SourceLines()
    out: list[str] = []
    for issue in report.issues:
        where = place(issue.change, lines)
        at = " (at BASE)" if where.at_base else ""
        out.append(
            printable(
                f"{shown_path(where.path, base)}:{where.line}:{where.column}: {issue.level} "
                f"{issue.kind.rule_id} [{issue.change.feature}] {issue.message}{at}"
            )
        )
    out.extend(printable(f"gatecheck: {d}") for d in report.diagnostics)
    out.append(summary_line(report))
    return "".join(line + "\n" for line in out)
