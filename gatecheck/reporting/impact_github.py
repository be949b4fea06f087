"""Workflow commands for the impact report: an annotation on each gate the change
narrowed, widened, added (errors and warnings first: GitHub shows 10 per level)."""

from __future__ import annotations

from pathlib import Path

from gatecheck.impact.model import ImpactReport
from gatecheck.reporting.columns import SourceLines
from gatecheck.reporting.github import (
    COMMANDS,
    LEVEL_ORDER,
    MAX_PER_LEVEL,
    escape_data,
    escape_property,
)
from gatecheck.reporting.impact_common import place, shown_path


def render_impact_github(report: ImpactReport, root: Path) -> str:
    lines = SourceLines()
    by_level: dict[str, list[str]] = {}
    for issue in report.issues:
        where = place(issue.change, lines)
        title = f"{issue.kind.rule_id} [{issue.change.feature}]"
        if where.at_base:
            # The gate is gone from the working tree: its file, not a line that is not there.
            properties = [("file", shown_path(where.path, root))] if where.path.exists() else []
            message = f"{issue.message} (BASE line {where.line})"
        else:
            properties = [
                ("file", shown_path(where.path, root)),
                ("line", str(where.line)),
                ("endLine", str(where.end_line)),
                ("col", str(where.column)),
                ("endColumn", str(where.end_column)),
            ]
            message = issue.message
        properties.append(("title", title))
        props = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
        command = COMMANDS.get(issue.level, "warning")
        by_level.setdefault(issue.level, []).append(f"::{command} {props}::{escape_data(message)}")
    out: list[str] = []
    hidden = 0
    for level in LEVEL_ORDER:
        found = by_level.get(level, [])
        out.extend(found[:MAX_PER_LEVEL])
        hidden += max(len(found) - MAX_PER_LEVEL, 0)
    if hidden:
        out.append(
            f"::notice title=gatecheck impact::{hidden} more annotations are not shown "
            f"(GitHub shows {MAX_PER_LEVEL} per level): see the job summary"
        )
    return "".join(line + "\n" for line in out)
