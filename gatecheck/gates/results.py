"""What analysing a project yields: gates with their semantics, and findings."""

from __future__ import annotations

from dataclasses import dataclass, field

from gatecheck.config.model import Feature
from gatecheck.discovery import Discovery, Skipped
from gatecheck.findings import Finding
from gatecheck.gates.model import Gate, Polarity
from gatecheck.kernels.support import KernelSupport
from gatecheck.loading.project import FileDiagnostic, Project
from gatecheck.semantics.admitted import Admission, Semantics
from gatecheck.semantics.values import UNKNOWN


@dataclass(frozen=True)
class GateResult:
    """A gate of a feature with its semantics: what the feature admits through it."""

    feature: Feature
    gate: Gate
    admission: Admission
    feature_admits: frozenset[str]
    missing: frozenset[str]


@dataclass
class Analysis:
    project: Project
    semantics: Semantics
    discovery: Discovery
    gate_results: list[GateResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    # Each finding with the gate it came from (the fixer needs the nodes).
    failures: list[tuple[Finding, GateResult]] = field(default_factory=list)
    # Feature id -> what its kernels are built for (kernel-aware checks).
    kernels: dict[str, list[KernelSupport]] = field(default_factory=dict)

    @property
    def diagnostics(self) -> list[FileDiagnostic]:
        return self.project.diagnostics

    @property
    def skipped(self) -> tuple[Skipped, ...]:
        return self.discovery.skipped


def flag_assumptions(feature: Feature, polarity: Polarity) -> dict[str, object]:
    # Disabling gates are read with the feature requested (its flag on); enabling gates
    # cannot assume anything about the flag they are about to set.
    value: object = True if polarity is Polarity.DISABLES else UNKNOWN
    return {flag: value for flag in feature.flags}
