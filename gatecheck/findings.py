"""Findings: frozen records every reporter, the fixer and the baseline read."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, order=True)
class Position:
    line: int  # 1-based
    column: int  # 0-based UTF-8 byte offset in the line (astroid's); reporters convert


@dataclass(frozen=True)
class RuleInfo:
    id: str
    name: str
    short: str
    full: str
    level: str  # "error" | "warning" | "note"


MISSING_GENERATION = RuleInfo(
    "GC001",
    "gate-excludes-required-generation",
    "A gate on a feature's activation path shuts out a generation the rules require.",
    "Every gate on a feature's activation path must admit each generation the feature's "
    "rule requires. This gate's condition cannot be true (or, for a disabling gate, cannot "
    "be false) on at least one required generation, so the feature is silently off there.",
    "error",
)
UNBUILT_GENERATION = RuleInfo(
    "GC002",
    "gate-admits-unbuilt-generation",
    "A gate admits a generation the feature's kernels are not built for.",
    "A gate should admit exactly the generations its kernels support: no fewer (the feature "
    "is silently lost) and no more. This gate lets the feature run on a generation the "
    "kernel library behind it does not compile for, which trades a slow path for a failure "
    "at first use.",
    "error",
)
RULES: tuple[RuleInfo, ...] = (MISSING_GENERATION, UNBUILT_GENERATION)


@dataclass(frozen=True)
class Hop:
    """One step of an activation path (import-linter's Link)."""

    path: Path
    line: int
    qualname: str
    kind: str
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


@dataclass(frozen=True)
class Finding:
    rule: RuleInfo
    path: Path
    start: Position
    end: Position
    feature: str
    message: str
    required: frozenset[str]
    admitted: frozenset[str]
    missing: frozenset[str]
    gate_kind: str
    polarity: str
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
    extra: dict[str, object] = field(default_factory=dict, compare=False, hash=False)

    @property
    def level(self) -> str:
        return self.rule.level

    def fingerprint(self, relpath: str) -> str:
        """Stable across line moves: rule, feature, path and normalized condition text."""
        normalized = re.sub(r"\s+", " ", self.culprit).strip()
        data = "\x1f".join([self.rule.id, self.feature, relpath, normalized])
        return hashlib.sha256(data.encode("utf-8")).hexdigest()[:32]
