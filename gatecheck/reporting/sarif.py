"""SARIF 2.1.0 for code scanning (github/codeql-action/upload-sarif and other viewers).

Columns are 1-based Unicode code points (`columnKind`), converted from the UTF-8 byte
offsets that findings carry; edits stay byte offsets (`byteOffset`/`byteLength`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
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
from gatecheck.reporting.plain import encodable

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "gatecheck/v1"
# GitHub code scanning matches alerts across runs on partialFingerprints, and its upload
# action fills primaryLocationLineHash from the flagged line's text only when the tool
# gives none: gatecheck gives its own, from the gate (feature, file, function, condition)
# rather than its line, so an alert survives code moving above it.
LINE_HASH_KEY = "primaryLocationLineHash"
GATE_HASH_KEY = "gatecheckGate/v1"
DIAGNOSTIC_ID = "GC900"
# Where gatecheck is hosted (README: pre-commit, GitHub Actions); rule help links into it.
HOMEPAGE = "https://github.com/your-org/gatecheck"
RULES_HELP = f"{HOMEPAGE}/blob/main/README.md"

Json = dict[str, Any]


def relative_uri(path: Path, root: Path) -> tuple[str, bool]:
    """(uri, relative?): percent-encoded and relative to root when inside it."""
    resolved = path.resolve()
    try:
        rel = resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        return resolved.as_uri(), False
    # Percent-encoded bytes: a file name that is not UTF-8 keeps its own bytes (caf%E9.py).
    return quote(os.fsencode(rel), safe="/"), True


def help_uri(rule: RuleInfo) -> str:
    """The rule's section of README (GitHub's heading anchor: lower case, spaces to '-')."""
    return f"{RULES_HELP}#{rule.id.lower()}-{rule.name}"


def rule_descriptor(rule: RuleInfo) -> Json:
    help_markdown = f"**{rule.id} {rule.name}**\n\n{rule.full}"
    if rule in GATE_RULES:
        help_markdown += (
            "\n\nFix: add the missing generation to the gate (`gatecheck check --diff` shows "
            "a verified edit), or record a deliberate exclusion in the rules "
            '(`exclude: {sm120: "reason"}`). `gatecheck explain FEATURE` shows the whole '
            "activation path."
            "\n\nSuppress one occurrence on the flagged line or the line before, with the "
            "reason: `# gatecheck: ignore[<feature-id>] <reason>`."
        )
    help_markdown += f"\n\n[Documentation]({help_uri(rule)})"
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.short},
        "fullDescription": {"text": rule.full},
        "help": {"text": rule.full, "markdown": help_markdown},
        "helpUri": help_uri(rule),
        "defaultConfiguration": {"level": rule.level},
        "properties": {"tags": ["gpu", "architecture-gate"]},
    }


def gate_hash(finding: Finding, relpath: str) -> str:
    """Stable across line moves: feature, file, function and the normalised condition."""
    condition = re.sub(r"\s+", " ", finding.condition).strip()
    data = "\x1f".join([finding.feature, relpath, finding.qualname, condition])
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class _Builder:
    def __init__(self, root: Path, registry: Registry | None) -> None:
        self.root = root
        self.registry = registry
        self.lines = SourceLines()
        self.occurrences: dict[str, int] = {}

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

    def partial_fingerprints(self, finding: Finding, rel: str) -> Json:
        # Two identical gates in one function: told apart by their order (CodeQL's ":N").
        digest = gate_hash(finding, rel)
        self.occurrences[digest] = self.occurrences.get(digest, 0) + 1
        return {LINE_HASH_KEY: f"{digest}:{self.occurrences[digest]}", GATE_HASH_KEY: digest}

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
            "partialFingerprints": self.partial_fingerprints(finding, rel),
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
                "informationUri": HOMEPAGE,
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
    return json.dumps(_encodable(log), indent=2, ensure_ascii=False) + "\n"


def _encodable(value: Any) -> Any:
    """Every string of the log writable as UTF-8 (names from non-UTF-8 file names)."""
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, dict):
        return {encodable(k): _encodable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_encodable(v) for v in value]
    return value
