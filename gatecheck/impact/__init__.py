"""`gatecheck impact BASE`: what a change does to each generation, from two audits."""

from gatecheck.impact.compare import compare_reports, match_gates
from gatecheck.impact.identity import Identity, normalise_condition
from gatecheck.impact.model import ChangeKind, GateChange, ImpactReport, Issue, IssueKind

__all__ = [
    "ChangeKind",
    "GateChange",
    "Identity",
    "ImpactReport",
    "Issue",
    "IssueKind",
    "compare_reports",
    "match_gates",
    "normalise_condition",
]
