"""One gate's class for the audited generation: admits it, decided (rules' exclude or an
inline suppression), probably deliberate (unreachable there, a threshold, a gate about the
generation itself, a single-generation gate) or a likely gap (with its evidence)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from astroid import nodes

from gatecheck.audit.conditions import ArchCondition, SlotKind, negated
from gatecheck.audit.naming import feature_name, rule_feature_matches, rule_feature_of
from gatecheck.audit.report import AuditedGate, CallSite, FeatureSource, GateClass, GateSite
from gatecheck.config.model import RuleSet
from gatecheck.findings import Position
from gatecheck.gates.model import Polarity
from gatecheck.loading.project import Project
from gatecheck.semantics.admitted import Semantics
from gatecheck.semantics.culprit import culprit
from gatecheck.semantics.predicates import ScopePredicate, module_predicates
from gatecheck.suppressions import Suppression, nearest, scan_files


class Classifier:
    def __init__(
        self,
        project: Project,
        semantics: Semantics,
        ruleset: RuleSet,
        generation: str,
        conditions: Sequence[ArchCondition],
        modules: Sequence[nodes.Module],
    ) -> None:
        self.project = project
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
            feature, source = rule_feature, FeatureSource.RULE
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
        suppression = nearest(self._suppressions_of(found.path), first, last)
        if suppression is None:
            return None
        reason = suppression.reason or "(no reason given)"
        return f"suppressed inline (line {suppression.line}): {reason}"

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
        # Read as `check` reads them (scan_files), once per file.
        if path not in self._suppressions:
            found = scan_files((path,), self.project.text_of)
            self._suppressions[path] = found.get(path, [])
        return self._suppressions[path]

    def _anchor(self, found: ArchCondition, gate_class: GateClass) -> nodes.NodeNG:
        if gate_class is not GateClass.ADMITS:
            evaluator = self.semantics.evaluator(self.generation.name)
            needs = found.polarity is Polarity.ENABLES
            return culprit(found.condition, evaluator, needs=needs)
        return found.arch_terms[0] if found.arch_terms else found.condition


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
