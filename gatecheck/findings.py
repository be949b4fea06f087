"""Findings: frozen records every reporter, the fixer and the baseline read."""

from __future__ import annotations

import enum
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path


class Level(enum.StrEnum):
    """A rule's severity (SARIF's and GitHub's names)."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


class Polarity(enum.StrEnum):
    ENABLES = "enables"  # the feature can be on only when the condition is true
    DISABLES = "disables"  # the feature is switched off when the condition is true


class GateKind(enum.StrEnum):
    AUTO_ENABLE = "auto-enable"  # the flag is switched on under the condition
    AUTO_DISABLE = "auto-disable"  # the flag is switched off under the condition
    FLAG_VALUE = "flag-value"  # the flag is assigned the condition's value
    RUNTIME = "runtime"  # the condition reads the flag
    GATE_FUNCTION = "gate-function"  # a return value of a gate function
    GUARD = "guard"  # an enclosing or early-exit condition around one of the above
    # A decorator or build list of a gate function naming the generations it is for
    # (`@supported_compute_capability([100, 103])`, `supported_major_versions=[9, 10]`).
    DECLARATION = "declaration"


class HopKind(enum.StrEnum):
    """One step of an activation path: one of the gates, or what leads to them."""

    AUTO_ENABLE = "auto-enable"
    AUTO_DISABLE = "auto-disable"
    FLAG_VALUE = "flag-value"
    RUNTIME = "runtime"
    GATE_FUNCTION = "gate-function"
    GUARD = "guard"
    DECLARATION = "declaration"
    CLI_OPTION = "cli-option"  # where the flag is declared as a command-line option
    SETTINGS_FIELD = "settings-field"  # the settings field holding the flag
    CALL_SITE = "call-site"  # a call of a gate function
    MODULE_CONSTANT = "module-constant"  # a gate function's answer bound at import time
    UNRESOLVED_CALLS = "unresolved-calls"  # calls of a gate function not followed further
    CYCLE = "cycle"  # a caller already on the path
    ALLOWLIST = "allowlist"  # the allowlist behind a gate's local name or helper

    @classmethod
    def of(cls, kind: GateKind) -> HopKind:
        return cls(kind.value)

    @property
    def is_gate(self) -> bool:
        return any(self.value == kind.value for kind in GateKind)


@dataclass(frozen=True, order=True)
class Position:
    """A place in a file."""

    line: int  # 1-based
    column: int  # 0-based UTF-8 byte offset in the line (astroid's); reporters convert


@dataclass(frozen=True)
class RuleInfo:
    """A rule gatecheck reports under: its id, name and texts."""

    id: str
    name: str
    short: str
    full: str
    level: Level


MISSING_GENERATION = RuleInfo(
    "GC001",
    "gate-excludes-required-generation",
    "A gate on a feature's activation path shuts out a generation the rules require.",
    "Every gate on a feature's activation path must admit each generation the feature's "
    "rule requires. This gate's condition cannot be true (or, for a disabling gate, cannot "
    "be false) on at least one required generation, so the feature is silently off there.",
    Level.ERROR,
)
UNBUILT_GENERATION = RuleInfo(
    "GC002",
    "gate-admits-unbuilt-generation",
    "A gate admits a generation the feature's kernels are not built for.",
    "A gate should admit exactly the generations its kernels support: no fewer (the feature "
    "is silently lost) and no more. This gate lets the feature run on a generation the "
    "kernel library behind it does not compile for, which trades a slow path for a failure "
    "at first use.",
    Level.ERROR,
)
RULES: tuple[RuleInfo, ...] = (MISSING_GENERATION, UNBUILT_GENERATION)


@dataclass(frozen=True)
class Hop:
    """One step of an activation path (import-linter's Link)."""

    path: Path
    line: int
    qualname: str
    kind: HopKind
    condition: str
    admitted: frozenset[str]
    column: int = 0


@dataclass(frozen=True)
class Edit:
    """Replace bytes [start, end) of a file with `text` (offsets into the raw bytes)."""

    path: Path
    start: int
    end: int
    text: str


FindingKey = tuple[str, str, str, Position, Position, str, str]


@dataclass(frozen=True)
class Finding:
    """One problem gatecheck reports: where, what, and what would fix it."""

    rule: RuleInfo
    path: Path
    start: Position
    end: Position
    feature: str
    message: str
    required: frozenset[str]
    admitted: frozenset[str]
    missing: frozenset[str]
    # None for a finding about a suppression comment rather than a gate.
    gate_kind: GateKind | None
    polarity: Polarity | None
    qualname: str
    condition: str
    culprit: str
    notes: tuple[str, ...] = ()
    assumed: tuple[str, ...] = ()
    hops: tuple[Hop, ...] = ()
    edits: tuple[Edit, ...] = ()
    fix_note: str | None = None
    # Set when the kernel library behind the feature is not built for a missing
    # generation: widening the gate would crash at first use, so --fix needs --force.
    blocked_by_kernel: str | None = None

    @property
    def level(self) -> Level:
        return self.rule.level

    @property
    def key(self) -> FindingKey:
        """What tells this finding from every other of the run (cheap to hash: no hops,
        no edits), for views that follow a finding through post-processing."""
        kind = str(self.gate_kind or "")
        path = str(self.path)
        return (self.rule.id, self.feature, path, self.start, self.end, kind, self.condition)

    def fingerprint(self, relpath: str) -> str:
        """Stable across line moves: rule, feature, path and normalized condition text."""
        normalized = re.sub(r"\s+", " ", self.culprit).strip()
        data = "\x1f".join([self.rule.id, self.feature, relpath, normalized])
        return hashlib.sha256(data.encode("utf-8")).hexdigest()[:32]
