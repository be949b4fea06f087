"""The audit as JSON data: every gate with its place, condition, admitted set, class and
feature (1-based columns, like every human-facing view)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gatecheck.audit import AuditedGate, AuditReport, CallSite, KernelVerdict
from gatecheck.reporting.audit_text import is_declaration
from gatecheck.reporting.columns import SourceLines
from gatecheck.reporting.paths import display_path
from gatecheck.reporting.plain import printable

_BUILT = {KernelVerdict.BUILT: True, KernelVerdict.NOT_BUILT: False}


def summary_dict(report: AuditReport) -> dict[str, Any]:
    return {
        "generation": report.generation,
        "vendor": report.vendor,
        "columns": list(report.columns),
        "counts": {c.value: n for c, n in report.counts().items()},
        "total": len(report.gates),
        "declarations": sum(1 for g in report.gates if is_declaration(g)),
        "vendor_gates": report.vendor_gates,
        "call_site_hops": len(report.hops),
        "predicate_definitions": report.predicate_definitions,
        "files": report.files,
        "scanned_files": report.scanned,
    }


def gate_to_dict(
    gate: AuditedGate, report: AuditReport, base: Path | None, lines: SourceLines | None = None
) -> dict[str, Any]:
    lines = lines or SourceLines()
    found = gate.found
    return {
        "path": display_path(gate.path, base),
        "line": gate.start.line,
        "column": lines.column(gate.path, gate.start.line, gate.start.column),
        "end_line": gate.end.line,
        "end_column": lines.column(gate.path, gate.end.line, gate.end.column),
        "condition_line": found.line,
        # The whole condition: `line`..`end_line` is the part that decides (the culprit).
        "condition_end_line": found.end_line or found.line,
        "condition": gate.condition,
        "kind": found.kind.value,
        # A kernel declaration (decorator, build arch list) rather than a condition.
        "declaration": is_declaration(gate),
        # A device predicate's own test (its uses are rows of their own).
        "definition": found.definition,
        "polarity": found.polarity.value,
        "qualname": printable(found.qualname),
        "feature": printable(gate.feature),
        "feature_source": gate.feature_source,
        "class": gate.gate_class.value,
        # The condition's own admitted set (SEMANTICS.md), and the feature's side of it
        # (for a disabling gate: where the condition can be false).
        "admitted": report.registry.ordered(found.admission.can_be_true),
        "feature_admits": report.registry.ordered(gate.admits),
        "reasons": list(gate.reasons),
        "assumed": sorted(found.admission.assumed),
        "call_sites": [site_to_dict(s, base, report) for s in gate.call_sites],
        "kernels": _kernels(gate, report),
    }


def _kernels(gate: AuditedGate, report: AuditReport) -> dict[str, Any] | None:
    verdict = report.kernel_verdict(gate)
    if verdict is None:
        return None
    return {
        "built_for_generation": _BUILT.get(verdict),
        "kernels": [
            {
                "kernel": k.kernel,
                "version": k.source.version if k.source else None,
                "built_for": k.built_for,
                "generations": None
                if k.generations is None
                else report.registry.ordered(k.generations),
            }
            for k in report.kernels[gate.feature]
        ],
    }


def site_to_dict(site: CallSite, base: Path | None, report: AuditReport) -> dict[str, Any]:
    return {
        "path": display_path(site.path, base),
        "line": site.line,
        "column": site.column + 1,
        "end_line": site.end_line or site.line,
        "qualname": printable(site.qualname),
        "condition": site.condition,
        "admitted": report.registry.ordered(site.admitted),
    }


def render_audit_json(report: AuditReport, base: Path | None = None) -> str:
    lines = SourceLines()  # each file read once for the whole report
    data = {
        **summary_dict(report),
        "gates": [gate_to_dict(g, report, base, lines) for g in report.gates],
        "hops": [site_to_dict(s, base, report) for s in report.hops],
        "diagnostics": [
            {
                "path": display_path(d.path, base),
                "line": d.line,
                "code": d.code,
                "message": d.message,
            }
            for d in report.diagnostics
        ],
    }
    return json.dumps(data, indent=2)
