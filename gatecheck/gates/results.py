"""What analysing a project yields: gates with their semantics, and findings."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gatecheck.config.model import Feature
from gatecheck.discovery import Discovery, Skipped
from gatecheck.findings import Finding, FindingKey, Hop, Polarity

if TYPE_CHECKING:  # types only: a run answered from the cache imports no analysis
    from gatecheck.gates.model import Gate
    from gatecheck.kernels.support import KernelSupport
    from gatecheck.loading.project import FileDiagnostic, Project
    from gatecheck.semantics.admitted import Admission, Semantics


@dataclass(frozen=True)
class GateResult:
    """A gate of a feature with its semantics: what the feature admits through it."""

    feature: Feature
    gate: Gate
    admission: Admission
    feature_admits: frozenset[str]
    missing: frozenset[str]


@dataclass(frozen=True)
class Restored:
    """What an analysis answered from the cache still knows without trees: how many
    gates it evaluated, which files it parsed, and each finding's condition lines."""

    gate_count: int
    parsed: frozenset[Path]
    condition_lines: tuple[tuple[int, int] | None, ...]
    # Files that may hold suppression comments (the others were read when cached).
    marked: frozenset[Path] = frozenset()


# Never compared or printed (it holds the project and its trees): no __eq__ / __hash__ /
# __repr__ made for it (each method a dataclass makes is compiled on import).
@dataclass(frozen=True, eq=False, repr=False)
class Analysis:
    """What the engine found; built once (views of it are new Analyses, never patched).
    The project still collects diagnostics as its files are read."""

    project: Project
    semantics: Semantics
    discovery: Discovery
    gate_results: Sequence[GateResult] = ()
    findings: Sequence[Finding] = ()
    # Each finding with the gate it came from (the fixer needs the nodes).
    failures: Sequence[tuple[Finding, GateResult]] = ()
    # Feature id -> what its kernels are built for (kernel-aware checks).
    kernels: Mapping[str, Sequence[KernelSupport]] = field(default_factory=dict)
    # Feature id -> its whole activation path, once per feature with findings (each
    # finding carries only its own route through it).
    paths: Mapping[str, Sequence[Hop]] = field(default_factory=dict)
    # Set when the findings come from the cache (then there are no gates or failures).
    restored: Restored | None = None
    # Rule gate functions already looked up (loading/outline.names_function), by dotted
    # name: whether each names a function of the tree. A cached run stores the answers
    # with its entry, so one answered from the cache parses no module to warn.
    named_functions: Mapping[str, bool] = field(default_factory=dict)
    # The files that may hold suppression comments, when every file's text was looked
    # at for the marker (storing the run in the cache); None: any file may.
    marked: frozenset[Path] | None = None

    @property
    def diagnostics(self) -> list[FileDiagnostic]:
        return self.project.diagnostics

    @property
    def skipped(self) -> tuple[Skipped, ...]:
        return self.discovery.skipped

    @property
    def gate_count(self) -> int:
        return self.restored.gate_count if self.restored else len(self.gate_results)

    def suppression_candidates(self) -> tuple[Path, ...]:
        """Files to scan for suppression comments: all of them, unless the cache knows
        which ones hold the marker at all."""
        if self.restored is not None:
            return tuple(p for p in self.project.files if p in self.restored.marked)
        if self.marked is not None:
            return tuple(p for p in self.project.files if p in self.marked)
        return self.project.files

    def parsed_paths(self) -> set[Path]:
        if self.restored is not None:
            return set(self.restored.parsed)
        return {Path(m.file) for m in self.project.loaded_modules() if m.file}

    def condition_lines(self) -> dict[FindingKey, tuple[int, int]]:
        """First and last line of each finding's gate condition, by the finding's key."""
        if self.restored is not None:
            pairs = zip(self.findings, self.restored.condition_lines, strict=True)
            return {f.key: lines for f, lines in pairs if lines is not None}
        return {
            f.key: (
                int(r.gate.condition.lineno or f.start.line),
                int(r.gate.condition.end_lineno or f.end.line),
            )
            for f, r in self.failures
        }


def flag_assumptions(feature: Feature, polarity: Polarity) -> dict[str, object]:
    from gatecheck.semantics.values import UNKNOWN

    # Disabling gates are read with the feature requested (its flag on); enabling gates
    # cannot assume anything about the flag they are about to set.
    value: object = True if polarity is Polarity.DISABLES else UNKNOWN
    return {flag: value for flag in feature.flags}


def scoped(analysis: Analysis, wanted: Sequence[Finding]) -> Analysis:
    """The analysis restricted to these findings (what a run reports), for the fixer."""
    keys = {f.key for f in wanted}
    failures = tuple(pair for pair in analysis.failures if pair[0].key in keys)
    return dataclasses.replace(analysis, failures=failures, findings=tuple(f for f, _ in failures))
