"""The audit for a new generation: every architecture gate found without rules, classified
for that generation (admits it / likely gap / probably deliberate / decided), named by the
feature it guards, likely gaps first. No click, no rich: reporters render an AuditReport."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from astroid import nodes

from gatecheck import progress
from gatecheck.config.model import Feature, Registry, RuleSet
from gatecheck.engine import open_project
from gatecheck.findings import Position
from gatecheck.gates.audit_gates import (
    ArchCondition,
    Role,
    SlotKind,
    assigned_names,
    branch_assignments,
    discover,
    feature_name,
    identifiers,
    mentions_arch,
    negated,
)
from gatecheck.gates.feature_gates import find_feature_gates, mentions
from gatecheck.gates.model import Polarity
from gatecheck.kernels.checks import KernelCatalog
from gatecheck.kernels.support import KernelSupport
from gatecheck.loading.project import FileDiagnostic, Project, bulk_allocation, read_source
from gatecheck.semantics.admitted import Admission, Semantics
from gatecheck.semantics.culprit import culprit
from gatecheck.semantics.predicates import ScopePredicate, module_predicates
from gatecheck.suppressions import Suppression, find_suppressions


class GateClass(enum.Enum):
    LIKELY_GAP = "likely-gap"
    DELIBERATE = "probably-deliberate"
    DECIDED = "decided"
    ADMITS = "admits"

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

    @classmethod
    def of(cls, found: ArchCondition) -> GateSite:
        text = " ".join(found.condition.as_string().split())
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
        )


@dataclass(frozen=True)
class AuditedGate:
    found: GateSite
    gate_class: GateClass
    feature: str
    # How the feature was named: rule | assigned | read | function | module.
    feature_source: str
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


@dataclass
class AuditReport:
    generation: str
    vendor: str
    columns: tuple[str, ...]
    registry: Registry
    gates: list[AuditedGate] = field(default_factory=list)
    hops: list[CallSite] = field(default_factory=list)
    vendor_gates: int = 0
    predicate_definitions: int = 0
    files: int = 0
    scanned: int = 0
    diagnostics: list[FileDiagnostic] = field(default_factory=list)
    # Rule feature id -> what its kernels are built for (kernel-aware marker).
    kernels: dict[str, list[KernelSupport]] = field(default_factory=dict)
    # Files built into trees (a cached report stays valid while none of them changes).
    parsed: tuple[Path, ...] = ()

    def kernel_verdict(self, gate: AuditedGate) -> str | None:
        """'✓' / '✗' / '?' for the audited generation, when the gate's rule names kernels."""
        supports = self.kernels.get(gate.feature) if gate.feature_source == "rule" else None
        if not supports:
            return None
        if any(s.generations is None for s in supports):
            return "?"
        return "✓" if all(self.generation in (s.generations or ()) for s in supports) else "✗"

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


def run_audit(
    paths: Sequence[Path],
    ruleset: RuleSet,
    generation: str,
    *,
    columns: Sequence[str] | None = None,
    excludes: Sequence[str] = (),
    kernel_sources: Sequence[Path] = (),
    shortcuts: bool = True,
) -> AuditReport:
    """`shortcuts=False` evaluates every generation in full (see Semantics): the same
    report, slower; for tests."""
    with bulk_allocation():
        return _run_audit(paths, ruleset, generation, columns, excludes, kernel_sources, shortcuts)


def _run_audit(
    paths: Sequence[Path],
    ruleset: RuleSet,
    generation: str,
    columns: Sequence[str] | None,
    excludes: Sequence[str],
    kernel_sources: Sequence[Path],
    shortcuts: bool,
) -> AuditReport:
    project, _ = open_project(paths, excludes)
    registry = ruleset.registry
    vendor = registry.get(generation).vendor
    report = AuditReport(
        generation,
        vendor,
        tuple(columns) if columns else default_columns(registry, generation),
        registry,
        files=len(project.files),
    )
    modules = _arch_modules(project)
    report.scanned = len(modules)
    semantics = Semantics(project, registry, ruleset.vocabulary, shortcuts=shortcuts)
    progress.stage("evaluating conditions", len(modules))
    conditions = discover(project, semantics, modules, vendor, on_module=progress.advance)
    progress.stage("classifying gates", None)
    report.vendor_gates = sum(1 for c in conditions if c.role is Role.VENDOR)
    report.predicate_definitions = sum(1 for c in conditions if c.role is Role.PREDICATE)
    hops = [c for c in conditions if c.role is Role.HOP]
    report.hops = [_call_site(h) for h in hops]
    sites = _call_sites_by_gate(conditions)
    classifier = _Classifier(project, semantics, ruleset, generation, conditions, modules)
    gates = [
        classifier.classify(c, tuple(_call_site(h) for h in sites.get(id(c), ())))
        for c in conditions
        if c.role is Role.GATE
    ]
    catalog = KernelCatalog(registry, kernel_sources, project.roots)
    for feature in ruleset.features:
        if feature.kernels and any(g.feature == feature.id for g in gates):
            report.kernels[feature.id] = [catalog.support(k) for k in feature.kernels]
    report.gates = order_gates([_with_kernel_reason(g, report) for g in gates])
    report.diagnostics = list(project.diagnostics)
    report.parsed = tuple(sorted({Path(m.file) for m in project.loaded_modules() if m.file}))
    return report


def _with_kernel_reason(gate: AuditedGate, report: AuditReport) -> AuditedGate:
    verdict = report.kernel_verdict(gate)
    if verdict is None:
        return gate
    built = "; ".join(f"{s.label} is built for {s.built_for}" for s in report.kernels[gate.feature])
    if verdict == "✗":
        reason = f"kernels are not built for {report.generation}: {built}"
    elif verdict == "✓":
        reason = f"kernels are built for {report.generation}: {built}"
    else:
        reason = f"kernel support unknown: {built}"
    return dataclasses.replace(gate, reasons=(*gate.reasons, reason))


def order_gates(gates: Sequence[AuditedGate]) -> list[AuditedGate]:
    """Likely gaps first; a feature's gates stay together, placed by its strongest gate."""

    def key(g: AuditedGate) -> tuple[int, int, str, int]:
        return (g.gate_class.rank, -len(g.reasons), str(g.path), g.start.line)

    by_gate = sorted(gates, key=key)
    place: dict[str, int] = {}
    for index, gate in enumerate(by_gate):
        place.setdefault(gate.feature, index)
    return sorted(by_gate, key=lambda g: (place[g.feature], key(g)))


def _arch_modules(project: Project) -> list[nodes.Module]:
    progress.stage("reading files", len(project.files))
    paths: list[Path] = []
    for path in project.files:
        progress.advance()
        try:
            text = read_source(path, project.overrides.get(path)).text
        except (OSError, ValueError, SyntaxError, LookupError):
            project.module_at(path)  # records the diagnostic
            continue
        if mentions_arch(text):
            paths.append(path)
    progress.stage("building trees", len(paths))
    modules: list[nodes.Module] = []
    for path in paths:
        if (module := project.module_at(path)) is not None:
            modules.append(module)
        progress.advance()
    return modules


def _call_site(condition: ArchCondition) -> CallSite:
    return CallSite(
        condition.path,
        condition.line,
        int(condition.condition.col_offset or 0),
        condition.qualname,
        " ".join(condition.condition.as_string().split()),
    )


def _call_sites_by_gate(conditions: Sequence[ArchCondition]) -> dict[int, list[ArchCondition]]:
    """Each hop under the gates it finally passes on (through hops of hops)."""
    providers: dict[str, list[ArchCondition]] = {}
    for c in conditions:
        if c.role in (Role.GATE, Role.HOP):
            for key in _provided_keys(c):
                providers.setdefault(key, []).append(c)
    sites: dict[int, list[ArchCondition]] = {}
    for hop in (c for c in conditions if c.role is Role.HOP):
        for root in _roots(hop, providers):
            sites.setdefault(id(root), []).append(hop)
    return sites


def _provided_keys(condition: ArchCondition) -> list[str]:
    keys = [condition.qualname]
    names = assigned_names(condition.statement)
    return keys + [f"{condition.qualname}.{name}".lstrip(".") for name in names]


def _roots(hop: ArchCondition, providers: dict[str, list[ArchCondition]]) -> list[ArchCondition]:
    roots: list[ArchCondition] = []
    seen: set[int] = {id(hop)}
    pending = [hop]
    while pending:
        current = pending.pop()
        for key in current.via:
            for provider in providers.get(key, []):
                if id(provider) in seen:
                    continue
                seen.add(id(provider))
                (roots if provider.role is Role.GATE else pending).append(provider)
    return roots


class _Classifier:
    def __init__(
        self,
        project: Project,
        semantics: Semantics,
        ruleset: RuleSet,
        generation: str,
        conditions: Sequence[ArchCondition],
        modules: Sequence[nodes.Module],
    ) -> None:
        self.semantics = semantics
        self.branches = {id(c.statement): c for c in conditions if c.kind is SlotKind.IF}
        self.registry = ruleset.registry
        self.generation = self.registry.get(generation)
        self.vendor_gens = self.registry.vendor_names(self.generation.vendor)
        self.rule_matches = rule_feature_matches(project, ruleset.features, modules)
        self.features = {f.id: f for f in ruleset.features}
        self._suppressions: dict[Path, list[Suppression]] = {}
        self._predicates: dict[str, list[ScopePredicate]] = {}
        self._names: dict[str, set[str]] = {}

    def classify(self, found: ArchCondition, call_sites: tuple[CallSite, ...]) -> AuditedGate:
        rule_feature = self.rule_matches.get(id(found.condition)) or rule_feature_of(
            found, tuple(self.features.values())
        )
        if rule_feature is not None:
            feature, source = rule_feature, "rule"
        else:
            feature, source = feature_name(found)
        gate_class, reasons = self._verdict(found, rule_feature)
        anchor = self._anchor(found, gate_class)
        return AuditedGate(
            GateSite.of(found),
            gate_class,
            feature,
            source,
            reasons,
            Position(int(anchor.lineno or 1), int(anchor.col_offset or 0)),
            Position(int(anchor.end_lineno or anchor.lineno or 1), int(anchor.end_col_offset or 0)),
            call_sites,
        )

    def _verdict(
        self, found: ArchCondition, rule_feature: str | None
    ) -> tuple[GateClass, tuple[str, ...]]:
        gen = self.generation.name
        if gen in found.admits:
            return GateClass.ADMITS, (f"admits {gen}",)
        decided = self._decision(found, rule_feature)
        if decided is not None:
            return GateClass.DECIDED, (decided,)
        reach, outer = self._reach(found)
        if gen not in reach:
            shown = ", ".join(self.registry.ordered(reach & self.vendor_gens)) or "no generation"
            return GateClass.DELIBERATE, (
                f"only reached on {shown}, inside the gate at line {outer}, which excludes {gen}",
            )
        inside = found.admits & reach & self.vendor_gens
        admitted_text = ", ".join(self.registry.ordered(inside))
        shut_out = (reach & self.vendor_gens) - found.admits
        if shut_out and all(self.registry.get(g).major == self.generation.major for g in shut_out):
            # `if cap != (12, 0): return "not SM120"`: a gate about this generation
            # itself (its own kernel or its own fallback), not one that forgot it.
            shown = ", ".join(self.registry.ordered(shut_out))
            return GateClass.DELIBERATE, (
                f"shuts out only {shown}: a gate about {gen} itself; {gen} takes the other branch",
            )
        if self._threshold(inside):
            side = "an older" if self._older(inside) else "a newer"
            return GateClass.DELIBERATE, (
                f"{side}-hardware branch: it admits only {admitted_text}; "
                f"{gen} takes the other branch",
            )
        evidence: list[str] = []
        majors = sorted({self.registry.get(g).major for g in inside})
        if len(majors) >= 2:
            evidence.append(f"enumerates {len(majors)} majors ({admitted_text}) but not {gen}")
        terms = [t for t in found.arch_terms if _is_predicate_term(t, found.condition)]
        if len(terms) >= 2:
            evidence.append(f"{len(terms)} generation predicates, none admitting {gen}")
        notes: list[str] = []
        at_hand = self._generation_predicate(found)
        if at_hand is not None:
            predicate, used = at_hand
            where = f"'{predicate.name}' (line {predicate.line}) admits {gen}"
            if used:
                notes.append(f"{where} and is used elsewhere in this module, not here")
            else:
                evidence.append(f"{where} and is at hand in this module, but never used")
        if evidence:
            return GateClass.LIKELY_GAP, tuple(evidence + notes)
        single = f"a single-generation gate: admits only {admitted_text}"
        return GateClass.DELIBERATE, (single, *notes)

    def _reach(self, found: ArchCondition) -> tuple[frozenset[str], int]:
        """Generations that can get to the gate through its enclosing if/elif/else tests
        (in its function), and the line of the innermost one that narrows them."""
        reach = self.registry.all_names()
        outer = 0
        child, parent = found.statement, found.statement.parent
        while parent is not None and not isinstance(parent, _SCOPES):
            enclosing = self.branches.get(id(parent))
            if isinstance(parent, nodes.If) and child is not parent.test and enclosing:
                side = enclosing.admission
                branch = side.can_be_true if child in parent.body else side.can_be_false
                if self.generation.name not in branch and not outer:
                    outer = enclosing.line
                reach &= branch
            child, parent = parent, parent.parent
        return reach, outer

    def _decision(self, found: ArchCondition, rule_feature: str | None) -> str | None:
        gen = self.generation.name
        feature = self.features.get(rule_feature or "")
        if feature is not None and gen in feature.exclude:
            return f"rules exclude {gen} from '{feature.id}': {feature.exclude[gen]}"
        first = found.line
        last = int(found.condition.end_lineno or first)
        for suppression in self._suppressions_of(found.path):
            if first - 1 <= suppression.line <= last:
                reason = suppression.reason or "(no reason given)"
                return f"suppressed inline (line {suppression.line}): {reason}"
        return None

    def _threshold(self, inside: frozenset[str]) -> bool:
        """Everything up to some generation (or from some generation on), with this one
        on the other side: a cut-off, not an allowlist."""
        ordered = [g for g in self.registry.generations if g.name in self.vendor_gens]
        names = [g.name for g in ordered]
        if not inside or self.generation.name not in names:
            return False
        chosen = sorted(names.index(g) for g in inside)
        contiguous = chosen == list(range(chosen[0], chosen[-1] + 1))
        at_end = chosen[0] == 0 or chosen[-1] == len(names) - 1
        here = names.index(self.generation.name)
        return contiguous and at_end and (here > chosen[-1] or here < chosen[0])

    def _older(self, inside: frozenset[str]) -> bool:
        return all(self.registry.get(g).capability < self.generation.capability for g in inside)

    def _generation_predicate(self, found: ArchCondition) -> tuple[ScopePredicate, bool] | None:
        """This generation's own predicate, if the module has one at hand, and whether the
        module uses it anywhere (unused, it is the "defined but forgotten" evidence)."""
        module = found.condition.root()
        if not isinstance(module, nodes.Module):
            return None
        name = str(module.name)
        if name not in self._predicates:
            self._predicates[name] = module_predicates(module, self.semantics)
        for predicate in self._predicates[name]:
            if self._is_generation_predicate(predicate):
                if name not in self._names:  # one walk per module, not per gate
                    self._names[name] = _loaded_names(module)
                return predicate, predicate.name in self._names[name]
        return None

    def _is_generation_predicate(self, predicate: ScopePredicate) -> bool:
        # GEN's own predicate: admits it, and within the vendor nothing beyond its major.
        inside = predicate.admits & self.vendor_gens
        same_major = all(self.registry.get(g).major == self.generation.major for g in inside)
        return self.generation.name in predicate.admits and same_major

    def _suppressions_of(self, path: Path) -> list[Suppression]:
        if path not in self._suppressions:
            try:
                text = read_source(path).text
            except (OSError, ValueError, SyntaxError, LookupError):
                text = ""
            found = find_suppressions(text, path) if "gatecheck:" in text else []
            self._suppressions[path] = found
        return self._suppressions[path]

    def _anchor(self, found: ArchCondition, gate_class: GateClass) -> nodes.NodeNG:
        if gate_class is not GateClass.ADMITS:
            evaluator = self.semantics.evaluator(self.generation.name)
            needs = found.polarity is Polarity.ENABLES
            return culprit(found.condition, evaluator, needs=needs)
        return found.arch_terms[0] if found.arch_terms else found.condition


def rule_feature_matches(
    project: Project, features: Sequence[Feature], modules: Sequence[nodes.Module]
) -> dict[int, str]:
    """Conditions `check` would read as a rule feature's gates (by node), per feature id."""
    matches: dict[int, str] = {}
    for feature in features:
        relevant = [m for m in modules if mentions(_text_of(project, m), feature)]
        for gate in find_feature_gates(project, feature, relevant):
            matches.setdefault(id(gate.condition), feature.id)
    return matches


def rule_feature_of(found: ArchCondition, features: Sequence[Feature]) -> str | None:
    """A rule feature whose flags the gate reads or switches, or whose gate function holds it."""
    names = set(identifiers(found.condition)) | set(branch_assignments(found.statement))
    names |= set(assigned_names(found.statement))
    for feature in features:
        if names & set(feature.flags) or found.qualname in feature.gate_functions:
            return feature.id
    return None


def _text_of(project: Project, module: nodes.Module) -> str:
    source = project.source(Path(module.file)) if module.file else None
    return source.text if source is not None else ""


_SCOPES = (nodes.FunctionDef, nodes.ClassDef, nodes.Module, nodes.Lambda)


def _is_predicate_term(term: nodes.NodeNG, condition: nodes.NodeNG) -> bool:
    """A positive predicate operand (`is_sm90_supported()`, `_is_sm100`), not a
    comparison of capability numbers and not a negated exclusion."""
    return isinstance(term, (nodes.Call, nodes.Name, nodes.Attribute)) and not negated(
        term, condition
    )


def _loaded_names(module: nodes.Module) -> set[str]:
    names = {str(n.name) for n in module.nodes_of_class(nodes.Name)}
    return names | {str(n.attrname) for n in module.nodes_of_class(nodes.Attribute)}
