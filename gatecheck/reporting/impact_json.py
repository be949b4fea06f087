"""The impact report as JSON data (1-based columns; BASE's sides where the files lay)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gatecheck.audit.report import AuditedGate
from gatecheck.impact.model import ImpactReport, IssueKind
from gatecheck.reporting.columns import SourceLines
from gatecheck.reporting.impact_common import place, shown_path


def _side(gate: AuditedGate | None, base: Path, columns: tuple[str, ...]) -> dict[str, Any] | None:
    if gate is None:
        return None
    return {
        "path": shown_path(gate.path, base),
        "line": gate.found.line,
        "module": gate.found.module,
        "qualname": gate.found.qualname,
        "condition": gate.condition,
        "admits": [g for g in columns if g in gate.admits],
    }


def impact_dict(report: ImpactReport, base: Path) -> dict[str, Any]:
    lines = SourceLines()
    issues = []
    for issue in report.issues:
        where = place(issue.change, lines)
        change = issue.change
        issues.append(
            {
                "rule": issue.kind.rule_id,
                "level": issue.level,
                "feature": change.feature,
                "generations": list(issue.generations),
                "message": issue.message,
                "path": shown_path(where.path, base),
                "line": where.line,
                "column": where.column,
                "at_base": where.at_base,
                "before": _side(change.before, base, report.columns),
                "after": _side(change.after, base, report.columns),
                "kernels": list(change.kernels),
            }
        )
    return {
        "base": report.base,
        "commit": report.commit,
        "generation": report.generation,
        "vendor": report.vendor,
        "columns": list(report.columns),
        "counts": {kind.value: report.count(kind) for kind in IssueKind},
        "unchanged": report.unchanged,
        "changed_files": [shown_path(p, base) for p in report.changed_files],
        "compared_files": report.compared_files,
        "project_files": report.project_files,
        "issues": issues,
        "diagnostics": list(report.diagnostics),
    }


def render_impact_json(report: ImpactReport, base: Path) -> str:
    return json.dumps(impact_dict(report, base), indent=2, ensure_ascii=False) + "\n"
