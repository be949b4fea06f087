"""The impact report as SARIF 2.1.0: one rule per kind of change, one result per
narrowing, widening, new and removed gate, placed on the working tree's gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gatecheck import __version__
from gatecheck.impact.model import ImpactReport, IssueKind
from gatecheck.reporting.columns import SourceLines
from gatecheck.reporting.impact_common import place
from gatecheck.reporting.sarif import (
    HOMEPAGE,
    SARIF_SCHEMA,
    SARIF_VERSION,
    SRCROOT,
    _encodable,
    relative_uri,
)

_DESCRIPTIONS = {
    IssueKind.NARROWED: "A generation the gate admitted at BASE no longer is.",
    IssueKind.WIDENED_UNBUILT: "The gate now admits a generation its kernels are not built for.",
    IssueKind.WIDENED: "The gate now admits a generation it did not at BASE.",
    IssueKind.NEW_GATE: "A new gate that shuts generations out.",
    IssueKind.REMOVED_GATE: "A gate that is gone since BASE.",
}
_NAMES = {
    IssueKind.NARROWED: "NarrowedGate",
    IssueKind.WIDENED_UNBUILT: "WidenedPastKernels",
    IssueKind.WIDENED: "WidenedGate",
    IssueKind.NEW_GATE: "NewGate",
    IssueKind.REMOVED_GATE: "RemovedGate",
}

Json = dict[str, Any]


def impact_sarif_log(report: ImpactReport, root: Path) -> Json:
    kinds = list(IssueKind)
    rules = [
        {
            "id": kind.rule_id,
            "name": _NAMES[kind],
            "shortDescription": {"text": _DESCRIPTIONS[kind]},
            "defaultConfiguration": {"level": kind.level},
            "helpUri": f"{HOMEPAGE}/blob/main/README.md#pull-request-impact",
        }
        for kind in kinds
    ]
    lines = SourceLines()
    results = []
    for issue in report.issues:
        where = place(issue.change, lines)
        uri, relative = relative_uri(where.path, root)
        artifact: Json = {"uri": uri}
        if relative:
            artifact["uriBaseId"] = SRCROOT
        region = {
            "startLine": where.line,
            "startColumn": where.column,
            "endLine": where.end_line,
            "endColumn": where.end_column,
        }
        physical: Json = {"artifactLocation": artifact}
        if not where.at_base:
            physical["region"] = region
        results.append(
            {
                "ruleId": issue.kind.rule_id,
                "ruleIndex": kinds.index(issue.kind),
                "level": issue.level,
                "message": {"text": issue.message},
                "locations": [{"physicalLocation": physical}],
                "properties": {
                    "feature": issue.change.feature,
                    "generations": list(issue.generations),
                    "base": report.commit,
                },
            }
        )
    run: Json = {
        "tool": {
            "driver": {
                "name": "gatecheck",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": HOMEPAGE,
                "rules": rules,
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": root.resolve().as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": True}],
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def render_impact_sarif(report: ImpactReport, root: Path) -> str:
    log = impact_sarif_log(report, root)
    return json.dumps(_encodable(log), indent=2, ensure_ascii=False) + "\n"
