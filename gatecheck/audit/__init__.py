"""`gatecheck audit`: every architecture gate found without rules, classified for a new
generation. The package reads as its pipeline: prefilter (which files speak of the
architecture) -> conditions (the generation-dependent ones, with their roles) -> hops (which
only pass a gate function's answer on) -> naming (the feature a gate guards) -> classify
(admits / likely gap / probably deliberate / decided) -> report (plain data, ordered) ->
run (the whole of it)."""

from gatecheck.audit.report import (
    AuditedGate,
    AuditReport,
    CallSite,
    FeatureSource,
    GateClass,
    GateSite,
    KernelVerdict,
    default_columns,
    order_gates,
)
from gatecheck.audit.run import run_audit

__all__ = [
    "AuditReport",
    "AuditedGate",
    "CallSite",
    "FeatureSource",
    "GateClass",
    "GateSite",
    "KernelVerdict",
    "default_columns",
    "order_gates",
    "run_audit",
]
