"""`--statistics`: counts instead of the report (like ruff's), per rule or class and per
feature, most frequent first."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from gatecheck.audit import AuditReport, GateClass
from gatecheck.findings import Finding
from gatecheck.reporting.plain import printable


def _block(title: str, counts: Iterable[tuple[str, int]]) -> list[str]:
    rows = list(counts)
    if not rows:
        return []
    width = max(len(str(n)) for _, n in rows)
    return [title, *(f"{n:>{width}}  {label}" for label, n in rows)]


def _ranked(counter: Counter[str]) -> list[tuple[str, int]]:
    return sorted(counter.items(), key=lambda item: (-item[1], item[0]))


def finding_statistics(findings: Sequence[Finding]) -> list[str]:
    rules = Counter(f"{f.rule.id}  {f.rule.name}" for f in findings)
    features = Counter(printable(f.feature) for f in findings if f.feature)
    return _block("by rule:", _ranked(rules)) + _block("by feature:", _ranked(features))


def audit_statistics(report: AuditReport) -> list[str]:
    classes = report.counts()
    by_class = [(c.value, classes[c]) for c in GateClass if classes[c]]
    features: list[tuple[str, int]] = []
    for name, gates in report.groups():
        kinds = Counter(g.gate_class.value for g in gates)
        detail = ", ".join(f"{n} {c.value}" for c in GateClass if (n := kinds[c.value]))
        features.append((f"{printable(name)}  ({detail})", len(gates)))
    features.sort(key=lambda item: (-item[1], item[0]))
    return _block("by class:", by_class) + _block("by feature:", features)
