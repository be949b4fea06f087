"""`audit --class`: the report restricted to some gate classes (what is shown, not what is
found: counts of the rest are said on stderr)."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from gatecheck.audit import AuditReport


def only_classes(report: AuditReport, classes: Collection[str]) -> AuditReport:
    """The report with only the gates of these classes (values: likely-gap, admits...)."""
    if not classes:
        return report
    gates = [g for g in report.gates if g.gate_class.value in classes]
    return dataclasses.replace(report, gates=gates)
