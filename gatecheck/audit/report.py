"""The audit's answer as plain data (no trees), so that a report can be cached and read
back unchanged: each gate's class for the generation, its feature, its reasons; likely
gaps first."""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gatecheck.audit.conditions import ArchCondition, Role, SlotKind, condition_text
from gatecheck.config.model import Registry
from gatecheck.findings import Position
from gatecheck.gates.model import Polarity
from gatecheck.kernels.support import KernelSupport
from gatecheck.loading.project import FileDiagnostic
from gatecheck.loading.readlog import FileReads
from gatecheck.semantics.admitted import Admission


class GateClass(enum.Enum):
    LIKELY_GAP = "likely-gap"
    DELIBERATE = "probably-deliberate"
    DECIDED = "decided"
    ADMITS = "admits"
    # Tells vendors apart only (`if _is_hip:` on an NVIDIA audit): the audited
    # generation's whole vendor is on one side, so it is no gap and no choice about it.
    VENDOR = "vendor"
    # Reads the device, but is the same on every registered generation (`major < 7`):
    # about hardware outside the registry, nothing to weigh for GEN.
    CONSTANT = "constant"

    @property
    def rank(self) -> int:
        return list(GateClass).index(self)

    @property
    def label(self) -> str:
        return self.value.replace("-", " ")


@dataclass(frozen=True)
class CallSite:
    """A hop: a condition that only passes a gate function's (or gate binding's) answer on."""

    path: Path
    line: int
    column: int
    qualname: str
    condition: str
    # The hop's own admitted set (`not DISABLE_FP8` is true where the gate's condition is
    # false): the generations its condition can be true for.
    admitted: frozenset[str] = frozenset()
    # The last line of its condition (or call), which may span several.
    end_line: int = 0


@dataclass(frozen=True)
class GateSite:
    """A gate's condition as the reports need it: plain data (no trees), so a report can
    be cached and read back unchanged."""

    path: Path
    module: str
    qualname: str
    line: int
    kind: SlotKind
    polarity: Polarity
    # The condition's own admitted set, and the feature's side of it (polarity applied).
    admission: Admission
    admits: frozenset[str]
    condition: str  # its source, whitespace collapsed
    end_line: int = 0  # the condition's last line (it may span several)
    # The test of a device predicate's own body (`def is_blackwell(): return major ==
    # 10`), whose uses are rows of their own.
    definition: bool = False

    @classmethod
    def of(cls, found: ArchCondition) -> GateSite:
        text = condition_text(found.condition)
        return cls(
            found.path,
            found.module,
            found.qualname,
            found.line,
            found.kind,
            found.polarity,
            found.admission,
            found.admits,
            text,
            int(found.condition.end_lineno or found.line),
            found.role is Role.PREDICATE,
        )


class FeatureSource(enum.StrEnum):
    """How an audited gate's feature was named."""

    RULE = "rule"  # a rule feature whose flags or gate functions the gate touches
    ASSIGNED = "assigned"  # the name the gate assigns (or its branch switches on)
    READ = "read"  # a flag its condition reads
    FUNCTION = "function"  # its function
    CLASS = "class"  # the class whose own bound it is (audit/class_bounds.py)
    MODULE = "module"  # its module


class KernelVerdict(enum.Enum):
    """Whether the kernels a gate's rule names are built for the audited generation."""

    BUILT = "built"
    NOT_BUILT = "not-built"
    UNKNOWN = "unknown"  # some library's build targets could not be read


@dataclass(frozen=True)
class AuditedGate:
    found: GateSite
    gate_class: GateClass
    feature: str
    feature_source: FeatureSource
    reasons: tuple[str, ...]
    # The sub-expression that carries the decision (what shuts the generation out).
    start: Position
    end: Position
    call_sites: tuple[CallSite, ...] = ()

    @property
    def path(self) -> Path:
        return self.found.path

    @property
    def admits(self) -> frozenset[str]:
        return self.found.admits

    @property
    def condition(self) -> str:
        return self.found.condition


def compared_use(gate: AuditedGate) -> bool:
    """A row that decides among the audited vendor's generations where a feature is used:
    neither a device predicate's own test (its uses are rows), a vendor gate nor one
    constant over the registry. What
    `impact` compares and `rules suggest` makes features of."""
    return not gate.found.definition and gate.gate_class not in (
        GateClass.VENDOR,
        GateClass.CONSTANT,
    )


@dataclass(frozen=True)
class AuditReport:
    generation: str
    vendor: str
    columns: tuple[str, ...]
    registry: Registry
    gates: Sequence[AuditedGate] = ()
    hops: Sequence[CallSite] = ()
    vendor_gates: int = 0
    predicate_definitions: int = 0
    files: int = 0
    scanned: int = 0
    diagnostics: Sequence[FileDiagnostic] = ()
    # Rule feature id -> what its kernels are built for (kernel-aware marker).
    kernels: Mapping[str, Sequence[KernelSupport]] = dataclasses.field(default_factory=dict)
    # Files built into trees (a cached report stays valid while none of them changes).
    parsed: tuple[Path, ...] = ()
    # Names whose callers a parameter was read from: a file that comes to spell a call of
    # one invalidates the cached report, whether or not it was parsed.
    searched_calls: tuple[str, ...] = ()
    # Names found to carry the device (audit/widening.py): a file that comes to spell one
    # is searched too, so it invalidates the cached report, whether or not it was parsed.
    device_names: tuple[str, ...] = ()
    # Names found to carry the device that the widening did not follow, defined in more
    # files than a name of one function is (MAX_DEFINITIONS: a protocol's method).
    protocol_names: tuple[str, ...] = ()
    # Of device_names, those only asked for by their spelling (`hasattr(kern, "name")`):
    # bound under a device test, searched for where a file quotes them.
    quoted_names: tuple[str, ...] = ()
    # What each file's conditions read, and what was read for all (run_audit's
    # record_reads: impact reuses the report by them, see gatecheck/impact/reuse.py).
    reads: tuple[FileReads, ...] = ()
    shared_reads: frozenset[str] = frozenset()

    def kernel_verdict(self, gate: AuditedGate) -> KernelVerdict | None:
        """For the audited generation, when the gate's rule names kernels."""
        rule = gate.feature_source is FeatureSource.RULE
        supports = self.kernels.get(gate.feature) if rule else None
        if not supports:
            return None
        if any(s.generations is None for s in supports):
            return KernelVerdict.UNKNOWN
        built = all(self.generation in (s.generations or ()) for s in supports)
        return KernelVerdict.BUILT if built else KernelVerdict.NOT_BUILT

    def counts(self) -> dict[GateClass, int]:
        return {c: sum(1 for g in self.gates if g.gate_class is c) for c in GateClass}

    def groups(self) -> list[tuple[str, list[AuditedGate]]]:
        """Gates by feature, in report order (a feature's place is its first gate's)."""
        grouped: dict[str, list[AuditedGate]] = {}
        for gate in self.gates:
            grouped.setdefault(gate.feature, []).append(gate)
        return list(grouped.items())


def default_columns(registry: Registry, generation: str) -> tuple[str, ...]:
    """The generation's vendor; for NVIDIA from sm80 (Ampere) up."""
    vendor = registry.get(generation).vendor
    floor = (8, 0) if vendor == "nvidia" else (0, 0)
    return tuple(
        g.name for g in registry.generations if g.vendor == vendor and g.capability >= floor
    )


# How much a likely gap's reason says it is one (the strongest first); a reason not
# listed weighs 1. A rule of the project that requires the generation outweighs any
# reading of the code; an allowlist of other generations (the fix is adding one) and a
# module that already tests the generation elsewhere come next with the words that ask
# for it (alone, with the gate admitting only the generation's family siblings, it
# weighs 1). Notes (where the allowlist is, the evidence a deliberate class overrode) weigh
# nothing; a gate that only passes on its callers' decision weighs against, so the
# decision itself is read first.
REASON_WEIGHTS: tuple[tuple[re.Pattern[str], int], ...] = tuple(
    (re.compile(pattern), weight)
    for pattern, weight in (
        (r"^the rule '.*' requires ", 10),
        (r"^a gap with a TODO", 3),
        (r"^admits .* of the same major", 3),
        (r"' is named for .* but leaves out", 3),
        (r"is imported into this module, but never used", 3),
        (r"^enumerates \d+ majors", 2),
        (r"^\d+ generation predicates", 2),
        (r"is used elsewhere in this module, not here$", 2),
        # A likely gap on that ground alone (classify.py) weighs 1, below any one piece
        # of evidence read in the gate itself.
        (r"^admits only .*, of .*'s family \(", -1),
        # A test of the major the generation reported under earlier toolkits: written
        # when it took the generation in, or for the parts of that major alone.
        (r"under earlier toolkits: a test of major", -1),
        (r"^refuses every \w+ generation \(", -1),
        (r"^the per-device table .* has no entry for", -1),
        (r"^refuses \w+ when '", 0),
        (r"^its words ask for", 2),
        (r"^registered as the", 2),
        (r"takes the else branch, written for", 2),
        (r"^only reads its parameter", -6),
        (r"^the allowlist is", 0),
        (r"^but: ", 0),
    )
)
_TODO = "a gap with a TODO"
# One sentence is one piece of evidence, however many rules read it.
_QUOTED = re.compile(r"the (comment|message|docstring) at line \d+")


def reason_weight(reason: str) -> int:
    for pattern, weight in REASON_WEIGHTS:
        if pattern.search(reason):
            return weight
    return 1


def evidence_weight(gate: AuditedGate) -> int:
    """How strongly a gate's reasons speak for its class (likely gaps by weight, each
    quoted sentence counted once; the other classes by how many reasons they show)."""
    if gate.gate_class is not GateClass.LIKELY_GAP:
        return len(gate.reasons)
    by_source: dict[str, int] = {}
    todo = False
    for reason in gate.reasons:
        quoted = _QUOTED.search(reason)
        source = quoted.group(0) if quoted else reason
        weight = reason_weight(reason)
        if reason.startswith(_TODO):
            # A gap known and meant to be widened is one piece of evidence, however many
            # notes say so (a comment above and the refusal's own "for now").
            weight, todo = (0 if todo else weight), True
        by_source[source] = max(by_source.get(source, weight), weight)
    return sum(by_source.values())


def passes_on(gate: AuditedGate) -> bool:
    """A likely gap that only reads a parameter its callers decide."""
    return any(r.startswith("only reads its parameter") for r in gate.reasons)


_TEST_PACKAGES = frozenset({"test", "tests", "testing"})


def in_tests(gate: AuditedGate) -> bool:
    """A gate in the project's tests (a `test`/`tests`/`testing` package, a `test_*` or
    `*_test` module, by the module's dotted name under the scanned root): it skips a
    test, the product loses nothing."""
    parts = gate.found.module.split(".")
    last = parts[-1]
    return bool(_TEST_PACKAGES & set(parts)) or last.startswith("test_") or last.endswith("_test")


def order_gates(gates: Sequence[AuditedGate]) -> list[AuditedGate]:
    """Likely gaps first, the best supported first; a feature's gates stay together,
    placed by its strongest gate. After the decisions of the product come, each on its
    own, the product's decisions read only with no environment variable set (their class
    rests on that assumption), gates in tests, and gates that only pass on their
    callers' decision."""

    def tier(g: AuditedGate) -> int:
        if passes_on(g):
            return 3
        if in_tests(g):
            return 2
        return 1 if g.found.admission.unset_environment else 0

    def key(g: AuditedGate) -> tuple[int, int, int, str, int]:
        return (g.gate_class.rank, tier(g), -evidence_weight(g), str(g.path), g.start.line)

    def group(g: AuditedGate) -> tuple[str, int, bool, bool]:
        # A likely gap on a ground ranked last (evidence_weight below 0: a family
        # sibling in a module that tests the generation, behind another likely gap) is
        # not carried up by its feature's strongest gate; nor are vendor and constant
        # gates (all last).
        weak = g.gate_class is GateClass.LIKELY_GAP and evidence_weight(g) < 0
        listed_last = g.gate_class in (GateClass.VENDOR, GateClass.CONSTANT)
        return (g.feature, tier(g), weak, listed_last)

    by_gate = sorted(gates, key=key)
    place: dict[tuple[str, int, bool, bool], int] = {}
    for index, gate in enumerate(by_gate):
        place.setdefault(group(gate), index)
    return sorted(by_gate, key=lambda g: (place[group(g)], key(g)))
