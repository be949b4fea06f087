"""Findings as JSON data (stable keys; 1-based columns like every human-facing view)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gatecheck.accounting import NOT_MENTIONED, SKIPPED, Accounting
from gatecheck.config.model import Registry
from gatecheck.findings import Finding, Hop
from gatecheck.loading.project import FileDiagnostic
from gatecheck.reporting.columns import SourceLines
from gatecheck.reporting.paths import display_path


def hop_to_dict(
    hop: Hop, registry: Registry, base: Path | None, lines: SourceLines | None = None
) -> dict[str, Any]:
    lines = lines or SourceLines()
    return {
        "path": display_path(hop.path, base),
        "line": hop.line,
        "column": lines.column(hop.path, hop.line, hop.column),
        "qualname": hop.qualname,
        "kind": hop.kind,
        "condition": hop.condition,
        "admitted": registry.ordered(hop.admitted),
    }


def finding_to_dict(
    finding: Finding,
    registry: Registry,
    base: Path | None,
    lines: SourceLines | None = None,
    paths: Mapping[str, Sequence[Hop]] | None = None,
) -> dict[str, Any]:
    lines = lines or SourceLines()
    rel = display_path(finding.path, base)
    start = lines.column(finding.path, finding.start.line, finding.start.column)
    end = lines.column(finding.path, finding.end.line, finding.end.column)
    return {
        "rule": finding.rule.id,
        "rule_name": finding.rule.name,
        "level": finding.level,
        "feature": finding.feature,
        "path": rel,
        "start": {"line": finding.start.line, "column": start},
        "end": {"line": finding.end.line, "column": end},
        "message": finding.message,
        "required": registry.ordered(finding.required),
        "admitted": registry.ordered(finding.admitted),
        "missing": registry.ordered(finding.missing),
        "gate": {
            "kind": finding.gate_kind or "suppression",
            "polarity": finding.polarity or "",
            "qualname": finding.qualname,
            "condition": finding.condition,
            "culprit": finding.culprit,
        },
        "notes": list(finding.notes),
        "assumed": list(finding.assumed),
        # Its own route; the feature's whole path is in the report's "activation_paths".
        "path_hops": [hop_to_dict(h, registry, base, lines) for h in finding.hops],
        "activation_path": finding.feature if finding.feature in (paths or {}) else None,
        "fix": (
            {"edits": len(finding.edits), "note": finding.fix_note}
            if finding.edits or finding.fix_note
            else None
        ),
        "blocked_by_kernel": finding.blocked_by_kernel,
        "fingerprint": finding.fingerprint(rel),
    }


def render_json(
    findings: Sequence[Finding],
    diagnostics: Sequence[FileDiagnostic],
    registry: Registry,
    base: Path | None,
    accounting: Accounting | None = None,
    paths: Mapping[str, Sequence[Hop]] | None = None,
) -> str:
    """`paths`: each feature's whole activation path, written once and named by its
    findings' "activation_path" (a path repeated in every finding grew as gates squared)."""
    lines = SourceLines()  # each reported file read once for the whole report
    data: dict[str, Any] = {
        "findings": [finding_to_dict(f, registry, base, lines, paths) for f in findings],
        "diagnostics": [
            {
                "path": display_path(d.path, base),
                "line": d.line,
                "column": d.column + 1,
                "message": d.message,
            }
            for d in diagnostics
        ],
    }
    reported = {f.feature for f in findings}
    data["activation_paths"] = {
        feature: [hop_to_dict(h, registry, base, lines) for h in hops]
        for feature, hops in (paths or {}).items()
        if feature in reported
    }
    if accounting is not None:
        data["files"] = files_to_dict(accounting)
        # Files that mention no checked feature are only counted: listing them is noise.
        data["skipped"] = [
            {"path": _as_found(o.path, base), "reason": o.reason}
            for o in accounting.of(SKIPPED)
            if o.reason != NOT_MENTIONED
        ]
    return json.dumps(data, indent=2, sort_keys=False)


def _as_found(path: Path, base: Path | None) -> str:
    """A skipped path as found: a link is not followed (it may loop or lead outside)."""
    try:
        found = path.parent.resolve() / path.name
    except (OSError, RuntimeError):
        found = path.absolute()
    rel = os.path.relpath(found, (base or Path.cwd()).resolve())
    return found.as_posix() if rel.startswith("..") else Path(rel).as_posix()


def files_to_dict(accounting: Accounting) -> dict[str, int]:
    """Every file seen is parsed, skipped or diagnosed; `not_mentioned` is part of skipped."""
    return {
        "seen": accounting.seen,
        "parsed": accounting.parsed,
        "skipped": accounting.skipped,
        "diagnosed": accounting.diagnosed,
        "not_mentioned": accounting.skip_reasons()[NOT_MENTIONED],
    }
