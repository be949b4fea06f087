"""SARIF 2.1.0 for code scanning (github/codeql-action/upload-sarif and other viewers).

Columns are 1-based Unicode code points (`columnKind`), converted from the UTF-8 byte
offsets that findings carry; edits stay byte offsets (`byteOffset`/`byteLength`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from gatecheck import __version__
from gatecheck.config.model import Registry
from gatecheck.findings import RULES as GATE_RULES
from gatecheck.findings import Edit, Finding, Hop, RuleInfo
from gatecheck.loading.project import FileDiagnostic
from gatecheck.reporting.columns import SourceLines

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "gatecheck/v1"
DIAGNOSTIC_ID = "GC900"

Json = dict[str, Any]


def relative_uri(path: Path, root: Path) -> tuple[str, bool]:
    """(uri, relative?): percent-encoded and relative to root when inside it."""
    resolved = path.resolve()
    try:
        rel = resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        return resolved.as_uri(), False
    return quote(rel, safe="/"), True


def rule_descriptor(rule: RuleInfo) -> Json:
    help_markdown = f"**{rule.id} {rule.name}**\n\n{rule.full}"
    if rule in GATE_RULES:
        help_markdown += (
            "\n\nSuppress one occurrence on the flagged line or the line before, with the "
            "reason: `# gatecheck: ignore[<feature-id>] <reason>`."
        )
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.short},
        "fullDescription": {"text": rule.full},
        "help": {"text": rule.full, "markdown": help_markdown},
        "defaultConfiguration": {"level": rule.level},
    }


class _Builder:
    def __init__(self, root: Path, registry: Registry | None) -> None:
        self.root = root
        self.registry = registry
        self.lines = SourceLines()

    def ordered(self, names: Iterable[str]) -> list[str]:
        return self.registry.ordered(names) if self.registry else sorted(names)

    def artifact(self, path: Path) -> Json:
        uri, relative = relative_uri(path, self.root)
        return {"uri": uri, "uriBaseId": SRCROOT} if relative else {"uri": uri}

    def location(self, path: Path, region: Json, message: str | None = None) -> Json:
        location: Json = {"physicalLocation": {"artifactLocation": self.artifact(path)}}
        if region:
            location["physicalLocation"]["region"] = region
        if message:
            location["message"] = {"text": message}
        return location

    def finding_region(self, finding: Finding) -> Json:
        return {
            "startLine": finding.start.line,
            "startColumn": self.lines.column(
                finding.path, finding.start.line, finding.start.column
            ),
            "endLine": finding.end.line,
            "endColumn": self.lines.column(finding.path, finding.end.line, finding.end.column),
        }

    def hop_location(self, hop: Hop, order: int) -> Json:
        region = {
            "startLine": hop.line,
            "startColumn": self.lines.column(hop.path, hop.line, hop.column),
        }
        admitted = ", ".join(self.ordered(hop.admitted)) or "no generation"
        message = f"{hop.kind} in {hop.qualname}: `{hop.condition}` admits {admitted}"
        return {"location": self.location(hop.path, region, message), "executionOrder": order}

    def code_flows(self, finding: Finding) -> list[Json]:
        steps = [self.hop_location(hop, i) for i, hop in enumerate(finding.hops, start=1)]
        message = f"activation path of '{finding.feature}'"
        return [{"message": {"text": message}, "threadFlows": [{"locations": steps}]}]

    def fixes(self, finding: Finding) -> list[Json]:
        by_path: dict[Path, list[Edit]] = {}
        for edit in finding.edits:
            by_path.setdefault(edit.path, []).append(edit)
        changes = [
            {
                "artifactLocation": self.artifact(path),
                "replacements": [_replacement(e) for e in sorted(edits, key=lambda e: e.start)],
            }
            for path, edits in by_path.items()
        ]
        description = finding.fix_note or f"admit {', '.join(self.ordered(finding.missing))}"
        return [{"description": {"text": description}, "artifactChanges": changes}]

    def result(self, finding: Finding, rule_index: int, justification: str | None) -> Json:
        rel, _ = relative_uri(finding.path, self.root)
        text = "\n\n".join([finding.message, *finding.notes])
        result: Json = {
            "ruleId": finding.rule.id,
            "ruleIndex": rule_index,
            "level": finding.level,
            "message": {"text": text},
            "locations": [self.location(finding.path, self.finding_region(finding))],
            "fingerprints": {FINGERPRINT_KEY: finding.fingerprint(rel)},
            "properties": {
                "feature": finding.feature,
                "required": self.ordered(finding.required),
                "admitted": self.ordered(finding.admitted),
                "missing": self.ordered(finding.missing),
                "gateKind": finding.gate_kind or "suppression",
                "qualname": finding.qualname,
            },
        }
        if finding.blocked_by_kernel:
            result["properties"]["blockedByKernel"] = finding.blocked_by_kernel
        if finding.hops:
            result["codeFlows"] = self.code_flows(finding)
        if finding.edits:
            result["fixes"] = self.fixes(finding)
        if justification is not None:
            suppression: Json = {"kind": "inSource"}
            if justification:
                suppression["justification"] = justification
            result["suppressions"] = [suppression]
        return result

    def notification(self, diagnostic: FileDiagnostic) -> Json:
        region = {
            "startLine": diagnostic.line,
            "startColumn": self.lines.column(diagnostic.path, diagnostic.line, diagnostic.column),
        }
        return {
            "descriptor": {"id": DIAGNOSTIC_ID},
            "level": "warning",
            "message": {"text": diagnostic.message},
            "locations": [self.location(diagnostic.path, region)],
        }


def _replacement(edit: Edit) -> Json:
    replacement: Json = {
        "deletedRegion": {"byteOffset": edit.start, "byteLength": edit.end - edit.start}
    }
    if edit.text:
        replacement["insertedContent"] = {"text": edit.text}
    return replacement


def sarif_log(
    findings: Sequence[Finding],
    *,
    rules: Sequence[RuleInfo],
    root: Path,
    registry: Registry | None = None,
    diagnostics: Sequence[FileDiagnostic] = (),
    suppressed: Sequence[tuple[Finding, str]] = (),
) -> Json:
    """The SARIF log of one run. `suppressed` findings (with their reasons) are listed with
    an inSource suppression; leave it empty to leave them out."""
    builder = _Builder(root, registry)
    descriptors: dict[str, RuleInfo] = {}
    everything = [*findings, *(f for f, _ in suppressed)]
    for rule in [*rules, *(f.rule for f in everything)]:
        descriptors.setdefault(rule.id, rule)
    index = {rule_id: i for i, rule_id in enumerate(descriptors)}
    results = [builder.result(f, index[f.rule.id], None) for f in findings]
    results += [builder.result(f, index[f.rule.id], reason) for f, reason in suppressed]
    run: Json = {
        "tool": {
            "driver": {
                "name": "gatecheck",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [rule_descriptor(r) for r in descriptors.values()],
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": root.resolve().as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [
            {
                "executionSuccessful": True,
                "toolExecutionNotifications": [builder.notification(d) for d in diagnostics],
            }
        ],
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def render_sarif(
    findings: Sequence[Finding],
    *,
    rules: Sequence[RuleInfo],
    root: Path,
    registry: Registry | None = None,
    diagnostics: Sequence[FileDiagnostic] = (),
    suppressed: Sequence[tuple[Finding, str]] = (),
) -> str:
    log = sarif_log(
        findings,
        rules=rules,
        root=root,
        registry=registry,
        diagnostics=diagnostics,
        suppressed=suppressed,
    )
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
