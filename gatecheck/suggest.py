"""A rule skeleton from an audit: one feature per audited feature, its gates listed in
comments, `require` pre-filled with what every one of its gates admits today (plus the
new generation where a gate is a likely gap), exclusions already decided kept with their
reason. The text loads with gatecheck.config.loader.load_ruleset."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gatecheck.audit import AuditedGate, AuditReport, GateClass
from gatecheck.audit.report import compared_use
from gatecheck.config.model import Feature, RuleSet
from gatecheck.config.schema import DOTTED_NAME_PATTERN, IDENTIFIER_PATTERN
from gatecheck.reporting.paths import display_path
from gatecheck.reporting.plain import printable

_ID_CHARS = re.compile(r"[^a-z0-9_.-]+")


@dataclass(frozen=True)
class SuggestedFeature:
    id: str
    gates: tuple[AuditedGate, ...]
    flags: tuple[str, ...]
    gate_functions: tuple[str, ...]
    require: tuple[str, ...]
    exclude: tuple[tuple[str, str], ...]
    description: str = "TODO: what this feature does (suggested by gatecheck audit)"
    # Why the feature is written commented out ("" when it is live YAML).
    disabled: str = ""


def suggest_features(report: AuditReport, ruleset: RuleSet) -> list[SuggestedFeature]:
    known = {f.id: f for f in ruleset.features}
    taken: set[str] = set()
    # A device predicate's own test is no feature: its uses are (each names its own); nor
    # is a vendor gate (no generation of the vendor is required or refused by it).
    return [
        _suggest(label, used, report, known.get(label), taken)
        for label, gates in report.groups()
        if (used := [g for g in gates if compared_use(g)])
    ]


def render_suggestion(
    report: AuditReport, ruleset: RuleSet, base: Path | None = None, command: str = ""
) -> str:
    lines = [
        f"# Rules suggested by `{command or 'gatecheck rules suggest'}`.",
        "# Per feature: keep in `require` what must run; move a generation left out on",
        "# purpose to `exclude`, with the reason. Where a `require` line says 'likely gap',",
        f"# the audit added {report.generation}: remove it if the gap is deliberate.",
        "features:",
    ]
    for feature in suggest_features(report, ruleset):
        lines += ["", *_feature_lines(feature, report, base)]
    return "\n".join(lines) + "\n"


def _suggest(
    label: str,
    gates: Sequence[AuditedGate],
    report: AuditReport,
    rule: Feature | None,
    taken: set[str],
) -> SuggestedFeature:
    vendor_gens = report.registry.vendor_names(report.vendor)
    today = frozenset(vendor_gens)
    for gate in gates:
        today &= gate.admits
    gap = any(g.gate_class is GateClass.LIKELY_GAP for g in gates)
    require = report.registry.ordered(today | ({report.generation} if gap else set()))
    exclude = dict(rule.exclude) if rule is not None else {}
    for gate in gates:
        if gate.gate_class is GateClass.DECIDED:
            exclude.setdefault(report.generation, gate.reasons[0])
    require = [g for g in require if g not in exclude]
    flags, functions = _anchors(label, gates, rule)
    disabled = ""
    if not flags and not functions:
        disabled = "no flag or gate function to anchor it: name one, then uncomment"
    elif not require:
        disabled = "its gates admit no generation in common: split it into features"
    return SuggestedFeature(
        _unique_id(rule.id if rule else label, taken),
        tuple(gates),
        flags,
        functions,
        tuple(require),
        tuple(sorted(exclude.items())),
        rule.description if rule is not None else SuggestedFeature.description,
        disabled,
    )


def _anchors(
    label: str, gates: Sequence[AuditedGate], rule: Feature | None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if rule is not None:
        return rule.flags, rule.gate_functions
    flags: list[str] = []
    functions: list[str] = []
    for gate in gates:
        if gate.feature_source in ("assigned", "read") and re.match(IDENTIFIER_PATTERN, label):
            flags.append(label)
        elif gate.feature_source == "function" and re.match(DOTTED_NAME_PATTERN, label):
            functions.append(label)
    return tuple(dict.fromkeys(flags)), tuple(dict.fromkeys(functions))


def _unique_id(label: str, taken: set[str]) -> str:
    # An id starts with a letter or digit; a trailing `__init__` keeps its underscores.
    base = _ID_CHARS.sub("-", label.lower()).lstrip("-._").rstrip("-.") or "feature"
    candidate, number = base, 2
    while candidate in taken:
        candidate, number = f"{base}-{number}", number + 1
    taken.add(candidate)
    return candidate


def _comment_safe(lines: list[str]) -> list[str]:
    # A comment line is one line: paths and conditions are printable (no line breaks).
    return [printable(line) for line in lines]


def _feature_lines(feature: SuggestedFeature, report: AuditReport, base: Path | None) -> list[str]:
    registry = report.registry
    comments = [f"  # {len(feature.gates)} gate(s) found by the audit for {report.generation}:"]
    for gate in feature.gates:
        where = f"{display_path(gate.path, base)}:{gate.start.line}"
        admits = ", ".join(registry.ordered(gate.admits & registry.vendor_names(report.vendor)))
        comments.append(f"  #   {gate.gate_class.label}: {where} admits {admits or 'none'}")
        comments.append(f"  #     {_clip(printable(gate.condition))}")
    body = [f"- id: {feature.id}", f"  description: {_quote(feature.description)}"]
    if feature.flags:
        body.append(f"  flags: [{', '.join(feature.flags)}]")
    if feature.gate_functions:
        body.append(f"  gate_functions: [{', '.join(feature.gate_functions)}]")
    if feature.require:
        gap = report.generation in feature.require and any(
            g.gate_class is GateClass.LIKELY_GAP for g in feature.gates
        )
        note = f"  # {report.generation}: likely gap, added by the audit" if gap else ""
        body.append(f"  require: [{', '.join(feature.require)}]{note}")
    if feature.exclude:
        pairs = ", ".join(f"{gen}: {_quote(reason)}" for gen, reason in feature.exclude)
        body.append(f"  exclude: {{{pairs}}}")
    elif any(g.gate_class is GateClass.DELIBERATE for g in feature.gates):
        reason = f"<why {report.generation} is left out>"
        body.append(f"  # exclude: {{{report.generation}: {_quote(reason)}}}")
    if feature.disabled:
        comments.append(f"  # left commented out: {feature.disabled}")
        body = [line if line.lstrip().startswith("#") else f"# {line}" for line in body]
    return _comment_safe(comments) + [f"  {line}" for line in body]


def _clip(text: str, limit: int = 110) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _quote(text: str) -> str:
    # JSON strings are YAML double-quoted scalars: safe for any reason text.
    return json.dumps(text)
