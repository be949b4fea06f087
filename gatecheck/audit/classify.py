"""One gate's class for the audited generation: admits it, decided (rules' exclude or an
inline suppression), probably deliberate (unreachable there, a threshold, a gate about the
generation itself, a single-generation gate) or a likely gap (with its evidence)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from astroid import nodes

from gatecheck.audit import evidence, not_gaps
from gatecheck.audit.conditions import (
    ArchCondition,
    Role,
    SlotKind,
    assigned_names,
    device_table,
    negated,
    operands,
    other_vendor_told_apart,
    varies,
)
from gatecheck.audit.dead_branches import dead_branch_gates, guarded_calls
from gatecheck.audit.naming import feature_name, rule_feature_matches, rule_feature_of
from gatecheck.audit.report import AuditedGate, CallSite, FeatureSource, GateClass, GateSite
from gatecheck.config.model import RuleSet
from gatecheck.findings import Position
from gatecheck.gates.branches import (
    branch_exits,
    call_name,
    is_numeric,
    only_adjusts,
    only_reports,
    tunes_numbers,
)
from gatecheck.gates.model import Polarity, qualname_of
from gatecheck.loading.project import Project
from gatecheck.loading.readlog import ReadFrame
from gatecheck.semantics.admitted import Semantics
from gatecheck.semantics.call_names import MAX_CALLER_FILES
from gatecheck.semantics.callers import files_calling
from gatecheck.semantics.culprit import NotFollowed, assigned_value, culprit, returned_value
from gatecheck.semantics.evaluator import Evaluator
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
        hop_roots: Mapping[int, Sequence[ArchCondition]] | None = None,
    ) -> None:
        self.project = project
        self.semantics = semantics
        self.branches = {id(c.statement): c for c in conditions if c.kind is SlotKind.IF}
        self.by_function: dict[str, list[ArchCondition]] = {}
        self.by_path: dict[Path, list[ArchCondition]] = {}
        for c in conditions:
            self.by_function.setdefault(c.qualname, []).append(c)
            if c.role is Role.GATE:
                self.by_path.setdefault(c.path, []).append(c)
        self.registry = ruleset.registry
        self.generation = self.registry.get(generation)
        self.vendor_gens = self.registry.vendor_names(self.generation.vendor)
        self.rule_matches = rule_feature_matches(project, ruleset.features, modules)
        self.features = {f.id: f for f in ruleset.features}
        self._suppressions: dict[Path, list[Suppression]] = {}
        self._predicates: dict[str, list[ScopePredicate]] = {}
        self._names: dict[str, set[str]] = {}
        self._comments: dict[Path, list[evidence.Words]] = {}
        self._hardware = evidence.hardware_words(self.registry.generations)
        self._registrations: dict[str, dict[str, list[str]]] = {}
        # Classes of the gates a gate is reached past (_behind_likely_gaps), and those
        # being classified (a cycle reads as not a likely gap).
        self._classes: dict[int, GateClass] = {}
        self._classifying: set[int] = set()
        # Classes of the chains a gate may restate (_repeats_a_gap), read without that
        # rule, and whether such a class is being read.
        self._own_classes: dict[int, GateClass] = {}
        self._repeating = False
        # The rows above a hop (audit/run.py), and the gates shutting the generation out
        # of a function's calls where it has a path for it (dead_branches.py), by id.
        self.hop_roots = hop_roots or {}
        self.conditions = conditions
        self._dead: dict[int, tuple[str, str]] | None = None
        self._dead_reads: dict[str, int] = {}
        # The gates of the files calling each gate's function, by its condition node.
        self._callers_of: dict[int, list[ArchCondition]] = {}

    def _rule_feature(self, found: ArchCondition) -> str | None:
        """The rule feature the gate belongs to, if any."""
        return self.rule_matches.get(id(found.condition)) or rule_feature_of(
            found, tuple(self.features.values())
        )

    def classify(self, found: ArchCondition, call_sites: tuple[CallSite, ...]) -> AuditedGate:
        rule_feature = self._rule_feature(found)
        if rule_feature is not None:
            feature, source = rule_feature, FeatureSource.RULE
        else:
            feature, source = feature_name(found)
        gate_class, reasons = self._verdict(found, rule_feature)
        if gate_class is GateClass.DELIBERATE and (dead := self._dead_path(found)) is not None:
            gate_class, reasons = GateClass.LIKELY_GAP, (dead, *reasons)
        required = self.features.get(rule_feature or "")
        gen = self.generation.name
        shut_out = gen not in found.admits
        if gate_class is GateClass.DELIBERATE and required and gen in required.require and shut_out:
            # What `check` reports (GC001), whatever the shape or the words say (sglang
            # 0.5.1's `_is_sm100_supported and ...` runtime gate of the allreduce fusion,
            # audited for sm90: a single-generation gate otherwise).
            gate_class = GateClass.LIKELY_GAP
            reasons = ("`check` reports it (GC001)", *_but(list(reasons)))
        if gate_class is GateClass.LIKELY_GAP and required and gen in required.require:
            reasons = (f"the rule '{required.id}' requires {gen}", *reasons)
        if gate_class is GateClass.LIKELY_GAP and (passed := _parameter_read(found)) is not None:
            reasons = (
                *reasons,
                f"only reads its parameter '{passed}': the callers' condition is the decision",
            )
        if (shut := _shut_out_for(found, gen)) is not None:
            reasons = (*reasons, shut)
        anchor = self._anchor(found, gate_class)
        if gate_class is not GateClass.ADMITS and (listed := allowlist_of(anchor)) is not None:
            reasons = (*reasons, listed)
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

    def _dead_path(self, found: ArchCondition) -> str | None:
        """Why a function called only past this gate has a path for the generation the
        gate shuts out (dead_branches.py), or None."""
        log = self.project.read_log
        if self._dead is None:
            # What each function's search reads (its callers across files) is read again
            # by each gate it may decide: one in front of a call of it, or one it made a
            # likely gap (impact re-audits those where one of the files changes).
            shutting = dead_branch_gates(
                self.semantics,
                self.conditions,
                self.generation.name,
                self.vendor_gens,
                lambda statement: _reach_and_excluding(self._reach_of(statement)),
                None if log is None else self._reads_per_function,
            )
            self._dead = {}
            for c in self.conditions:
                shut = shutting.get(id(c))
                if shut is None:
                    continue
                for row in [c] if c.role is Role.GATE else self.hop_roots.get(id(c), ()):
                    self._dead.setdefault(id(row), shut)
        if self.generation.name in found.admits:
            return None
        shut = self._dead.get(id(found))
        if log is not None:
            names = guarded_calls([found])
            if shut is not None:
                names.add(shut[1])
            for name in names:
                log.replay(self._dead_reads.get(name, 0))
        return None if shut is None else shut[0]

    @contextlib.contextmanager
    def _reads_per_function(self, name: str) -> Iterator[None]:
        """The reads of one function's search, kept under its name (a frame of the
        project's read log of its own, merged into the one open as usual)."""
        log = self.project.read_log
        reads = ReadFrame()
        if log is not None:
            log.push(reads)
        try:
            yield
        finally:
            if log is not None:
                log.pop()
            self._dead_reads[name] = self._dead_reads.get(name, 0) | reads.files

    def vendor_row(self, found: ArchCondition) -> AuditedGate:
        """A condition that tells vendors apart and nothing more (`if _is_hip:` on an
        NVIDIA audit): listed, with the side the audited vendor is on, never weighed as a
        gap (every generation of the vendor goes the same way)."""
        vendor = self.generation.vendor
        if self.vendor_gens <= found.admits:
            side = f"admits every {vendor} generation"
        else:
            side = f"admits no {vendor} generation"
        others = self.registry.ordered(found.admits - self.vendor_gens)
        only = f" (of the others: {', '.join(others)})" if others else ""
        reason = f"tells vendors apart: {side}{only}"
        return self._listed(found, GateClass.VENDOR, reason, found.condition)

    def constant_row(self, found: ArchCondition) -> AuditedGate:
        """A condition that compares a value the device decides with a constant and is
        the same on every registered generation (`if major < 7:`, `arch == "gfx1100"`):
        listed, never weighed (it is about hardware outside the registry)."""
        anchor = found.arch_terms[0] if found.arch_terms else found.condition
        test = self.semantics.admission(anchor)
        every = self.registry.all_names()
        if every <= test.can_be_true and not test.can_be_false:
            truth = "true"
        elif every <= test.can_be_false and not test.can_be_true:
            truth = "false"
        else:
            truth = "unknown"  # the comparison raised somewhere, say
        text = " ".join(anchor.as_string().split())
        reason = f"constant over the registry: {text} is {truth} on every registered generation"
        return self._listed(found, GateClass.CONSTANT, reason, anchor)

    def _listed(
        self, found: ArchCondition, gate_class: GateClass, reason: str, anchor: nodes.NodeNG
    ) -> AuditedGate:
        rule_feature = self._rule_feature(found)
        if rule_feature is not None:
            feature, source = rule_feature, FeatureSource.RULE
        else:
            feature, source = feature_name(found)
        return AuditedGate(
            GateSite.of(found),
            gate_class,
            feature,
            source,
            (reason,),
            Position(int(anchor.lineno or 1), int(anchor.col_offset or 0)),
            Position(int(anchor.end_lineno or anchor.lineno or 1), int(anchor.end_col_offset or 0)),
        )

    def _verdict(
        self, found: ArchCondition, rule_feature: str | None
    ) -> tuple[GateClass, tuple[str, ...]]:
        gen = self.generation.name
        if gen in found.admits:
            switched = self._switched_on(found)
            if switched is None:
                forced = self._forced_only(found)
                if forced is not None:
                    # `selected == CUTLASS_MLA or (is_device_capability(100) and selected
                    # is None)`: what picks it when nobody forces it is a gate of its own
                    # (vLLM 0.12.0 widened that to sm103); a likely gap there is one.
                    automatic, switches = forced
                    gate_class, reasons = self._verdict(automatic, rule_feature)
                    if gate_class is GateClass.LIKELY_GAP:
                        return gate_class, (f"admits {gen} only when {switches}", *reasons)
                return GateClass.ADMITS, (f"admits {gen}",)
            # `if self.enable_fp4_indexer and not is_sm100_supported(): raise`: the
            # feature's set is every generation (the switch may be off), but the option
            # the switch turns on is refused on this one: classed as that option's gate.
            on, switches = switched
            refused = self.registry.ordered(self.vendor_gens - on.admits)
            newer = self.registry.ordered(self.vendor_gens)[-len(refused) :]
            beyond = any(not self.generation.same_line(self.registry.get(g)) for g in refused)
            if refused == newer and beyond and len(refused) < len(self.vendor_gens):
                # `decode == "flashinfer" and dtype != "bfloat16" and major >= 10: raise
                # "... on SM100+ requires bfloat16"`: a constraint on every part from one
                # on, the generation among them, not an option some forgot (one refused on
                # the generation's own line alone is a gate about it, read below).
                return GateClass.DELIBERATE, (
                    f"refuses {gen} when {switches}, as every generation from "
                    f"{refused[0]} on: a constraint on newer hardware",
                )
            gate_class, reasons = self._verdict(on, rule_feature)
            return gate_class, (f"refuses {gen} when {switches}", *reasons)
        decided = self._decision(found, rule_feature)
        if decided is not None:
            return GateClass.DECIDED, (decided,)
        if not varies(found.admission, self.vendor_gens):
            # It tells only another vendor's generations apart (`if _is_gfx95_supported:`
            # audited for sm120): the audited vendor is never let through.
            others = found.admits - self.vendor_gens
            shown = ", ".join(self.registry.ordered(others)) or "none"
            at_hand = self._generation_predicate(found)
            if found.polarity is Polarity.DISABLES and at_hand is not None and at_hand[1]:
                # `if not (_is_cuda and is_sm100_supported()): raise` in a module that
                # runs gfx950's own paths elsewhere: the refusal was not written for a
                # vendor the module never meant to serve (sglang 0.5.15 -> 0.5.16).
                predicate = at_hand[0]
                return GateClass.LIKELY_GAP, (
                    f"refuses every {self.generation.vendor} generation (it admits only "
                    f"{shown}), while '{predicate.name}' (line {predicate.line}) admits "
                    f"{gen} and is used elsewhere in this module",
                )
            return GateClass.DELIBERATE, (
                f"another vendor's gate: it admits only {shown}; no "
                f"{self.generation.vendor} generation takes it",
            )
        reach, outer, excluding = self._reach(found)
        if gen not in reach:
            shown = ", ".join(self.registry.ordered(reach & self.vendor_gens)) or "no generation"
            unreached = (
                f"only reached on {shown}, past the gate at line {outer}, which excludes {gen}"
            )
            inside = found.admits & self.vendor_gens
            texts = self._texts(found)
            documented = evidence.apply(evidence.DELIBERATE_RULES, texts, self.generation)
            if (
                not documented
                and self._family_siblings_only(inside)
                and self._behind_likely_gaps(excluding)
            ):
                # Left out again behind gates that forgot the generation: the next one a
                # fix meets (vLLM 0.24.0 widened DeepGEMM's allowlist and the gates
                # behind it together); ranked with the family-sibling gaps, last.
                shown_inside = ", ".join(self.registry.ordered(inside))
                return GateClass.LIKELY_GAP, (
                    f"admits only {shown_inside}, of {gen}'s family "
                    f"({self.generation.family}); behind the likely gap at line {outer}",
                )
            return GateClass.DELIBERATE, (unreached,)
        if (no_loss := self._no_feature_loss(found)) is not None:
            return GateClass.DELIBERATE, (no_loss,)
        context = not_gaps.GateContext(
            found,
            self.semantics,
            self.registry,
            self.generation,
            self.vendor_gens,
            self.project.module,
            (*self.by_path.get(found.path, ()), *self._callers_gates(found)),
            reach,
        )
        if (decided_here := not_gaps.not_a_gap(context)) is not None:
            return GateClass.DELIBERATE, (decided_here,)
        texts = self._texts(found)
        documented = evidence.apply(evidence.DELIBERATE_RULES, texts, self.generation)
        named = evidence.names_hardware(_identifiers(found), self.generation)
        if named is not None and named not in documented:
            documented.append(named)
        worded_gap = evidence.apply(evidence.GAP_RULES, texts, self.generation)
        worded_gap += [r for r in self._summary_asks(found) if r not in worded_gap]
        inside = found.admits & reach & self.vendor_gens
        admitted_text = ", ".join(self.registry.ordered(inside))
        structural = self._structural_deliberate(found, inside, reach)
        no_entry: list[str] = []
        missing = self._no_entry(found, inside)
        if missing is not None and (structural is None or structural.startswith(_CUT_OFFS)):
            # The generation takes no other branch: the table has no row for it and the
            # feature is off. Newer than every key, it came after the table was written.
            structural = None
            no_entry.append(missing)
        # A gate about this generation alone enumerates nothing it forgot.
        about_itself = structural is not None and structural.startswith("shuts out only")
        shape = [] if about_itself else self._gap_evidence(found, inside)
        around = [] if about_itself else self._around_evidence(found, worded_gap)
        evidence_found = worded_gap + shape + around + no_entry
        notes: list[str] = []
        handled_elsewhere: str | None = None
        at_hand = self._generation_predicate(found)
        if at_hand is not None:
            predicate, used = at_hand
            where = f"'{predicate.name}' (line {predicate.line}) admits {gen}"
            if used:
                handled_elsewhere = f"{where} and is used elsewhere in this module, not here"
                notes.append(handled_elsewhere)
            else:
                # Imported and never used: someone brought it in for a reason.
                how = "imported into" if predicate.origin == "import" else "at hand in"
                evidence_found.append(f"{where} and is {how} this module, but never used")
        todo = [r for r in worded_gap if r.startswith("a gap with a TODO")]
        if todo:
            # "not supported yet", "TODO: enable": documented, and meant to be widened.
            known = todo + evidence_found + documented + ([structural] if structural else [])
            return GateClass.LIKELY_GAP, tuple(dict.fromkeys(known))
        if documented:
            return GateClass.DELIBERATE, tuple(documented + _but(evidence_found) + notes)
        asked = [r for r in worded_gap if r.startswith("its words ask")]
        written_out = ("excludes", "a hole", "a kernel named for")
        if asked and structural is not None and structural.startswith(written_out):
            # `major < 10 or major == 12` under "requires SM100+": the code names what the
            # words' floor leaves to be read.
            return GateClass.DELIBERATE, (structural, *_but(evidence_found), *notes)
        if asked:
            return GateClass.LIKELY_GAP, tuple(dict.fromkeys(asked + evidence_found + notes))
        if structural is not None:
            return GateClass.DELIBERATE, (structural, *_but(evidence_found), *notes)
        if evidence_found:
            return GateClass.LIKELY_GAP, tuple(evidence_found + notes)
        if handled_elsewhere is not None and self._family_siblings_only(inside):
            # A module that tests this generation elsewhere has been taught about it; a
            # gate there that admits only other majors of its family (sm100/sm103 for
            # sm120, both Blackwell) was more often left behind than meant. In the
            # release history of sglang, vLLM and FlashInfer the next release widened 3
            # of 55 such gates; 0 of 17 admitting another family (a Hopper kernel), 1
            # of 196 in modules that never test the generation.
            return GateClass.LIKELY_GAP, (
                f"admits only {admitted_text}, of {gen}'s family ({self.generation.family})",
                *notes,
            )
        if self._family_siblings_only(inside) and (grouped := self._grouped(found, inside)):
            # `arch // 10 in [10, 11]` elsewhere in the module, `arch // 10 == 10` here,
            # audited for sm110: the module treats the generation as one of these.
            return GateClass.LIKELY_GAP, (
                f"admits only {admitted_text}, of {gen}'s family ({self.generation.family}); "
                f"{grouped}",
                *notes,
            )
        told = self._told(found, inside)
        told_text = ", ".join(self.registry.ordered(told))
        single = f"a single-generation gate: admits only {told_text}"
        if not told:
            # True on no generation that reaches it (`assert threads == 128` in the branch
            # the generations whose `threads` is 128 never take): it enumerates none.
            single = f"admits no generation that reaches it, {gen} included"
        if len({self.registry.get(g).major for g in told}) >= 2 and self._one_other_family(told):
            family = self.registry.get(next(iter(told))).family
            single = f"a {family} gate: admits only {told_text}"
        if told != inside:
            unread = ", ".join(self.registry.ordered(inside - told))
            single += f" ({unread}: unknown, its terms cannot tell there)"
        repeated = None if self._repeating else self._repeats_a_gap(found, inside)
        if repeated is not None:
            # The module's dispatch chain forgot the generation, and this gate restates
            # one of its branches (a backend's kernel choice, its query dtype, its sink
            # support each test `is_device_capability(90)` again): a fix that widens the
            # chain widens the restatements too (vLLM 0.27.1 -> 0.28.0).
            return GateClass.LIKELY_GAP, (f"{single}; {repeated}", *notes)
        return GateClass.DELIBERATE, (single, *notes)

    def _repeats_a_gap(self, found: ArchCondition, inside: frozenset[str]) -> str | None:
        """The if/elif chain of the same module (or the early exit a chain begins with),
        classed a likely gap, one of whose branch tests this enabling gate repeats word
        for word as its only arch test, admitting no generation the chain does not."""
        if (
            found.polarity is not Polarity.ENABLES
            or found.kind.is_declaration
            or len(found.arch_terms) != 1
            or not _standalone(found)
        ):
            return None
        text = found.arch_terms[0].as_string()
        for other in self.by_path.get(found.path, ()):
            head = self._chain_head(other)
            if head is None or head is found or found.statement is head.statement:
                continue
            chain = _chain_ifs(head.statement)
            if all(branch.test.as_string() != text for branch in chain):
                continue
            admitted = frozenset().union(
                *(c.admits for b in chain if (c := self.branches.get(id(b))) is not None)
            )
            if not inside <= admitted:
                continue
            if head.polarity is not Polarity.ENABLES or not self._gap_of_its_own(head):
                continue
            return f"the same test as a branch of the chain at line {head.line}, a likely gap"
        return None

    def _chain_head(self, found: ArchCondition) -> ArchCondition | None:
        """The `if` an elif chain begins with, for a gate of the chain (the `if` itself
        where there is no `elif`: an early exit, `if is_cap(90): return "small"`, the
        chain going on after it)."""
        statement = found.statement
        if found.kind is not SlotKind.IF or not isinstance(statement, nodes.If):
            return None
        while (
            isinstance(statement.parent, nodes.If)
            and len(statement.parent.orelse) == 1
            and statement.parent.orelse[0] is statement
        ):
            statement = statement.parent
        return self.branches.get(id(statement))

    def _gap_of_its_own(self, condition: ArchCondition) -> bool:
        """Whether the chain is classed a likely gap on its own evidence, not for
        repeating another chain's test (a restatement does not spread further)."""
        repeating, self._repeating = self._repeating, True
        try:
            return self._likely_gap(condition)
        finally:
            self._repeating = repeating

    def _likely_gap(self, condition: ArchCondition) -> bool:
        """Whether the gate is classed a likely gap (a cycle reads as not); while a
        chain's own class is read (_gap_of_its_own), without the restatement rule, kept
        apart."""
        classes = self._own_classes if self._repeating else self._classes
        if id(condition) not in classes:
            if id(condition) in self._classifying:
                return False
            self._classifying.add(id(condition))
            try:
                classes[id(condition)] = self._verdict(condition, self._rule_feature(condition))[0]
            finally:
                self._classifying.discard(id(condition))
        return classes[id(condition)] is GateClass.LIKELY_GAP

    def _forced_only(self, found: ArchCondition) -> tuple[ArchCondition, str] | None:
        """An enabling `<switches> or <arch tests>` whose switches are the same unknown on
        every generation of the vendor (an option, a flag, a parameter) and whose arch
        tests are all false on the audited generation: it gets there only when forced. The
        gate as the automatic choice's: its set is where an arch test can be true."""
        condition = found.condition
        if (
            found.polarity is not Polarity.ENABLES
            or found.kind.is_declaration
            or not isinstance(condition, nodes.BoolOp)
            or condition.op != "or"
        ):
            return None
        vendor = self.vendor_gens
        switches: list[nodes.NodeNG] = []
        automatic: frozenset[str] = frozenset()
        for operand in condition.values:
            answer = self.semantics.admission(operand)
            if varies(answer, vendor):
                automatic |= answer.can_be_true & vendor
            elif vendor <= answer.can_be_true:
                if vendor <= answer.can_be_false:
                    switches.append(operand)
                else:
                    return None  # true on every generation: never a choice
            # else false on every generation of the vendor: no way in
        gen = self.generation.name
        if not switches or not automatic or gen in automatic:
            return None
        shown = " or ".join(f"'{not_gaps.short(s, 50)}'" for s in switches)
        return replace(found, admits=frozenset((found.admits - vendor) | automatic)), shown

    def _switched_on(self, found: ArchCondition) -> tuple[ArchCondition, str] | None:
        """A refusal `if <switches> and <arch tests>: raise` whose switches are the same
        unknown on every generation (an option, a flag, a parameter) and whose arch tests
        are all true on the audited generation: with the switches on it is refused. The
        gate as the option's: its set is where the arch tests can be false."""
        condition = found.condition
        if (
            found.polarity is not Polarity.DISABLES
            or found.kind is not SlotKind.IF
            or not isinstance(condition, nodes.BoolOp)
            or condition.op != "and"
        ):
            return None
        vendor = self.vendor_gens
        everywhere = self.registry.all_names()
        switches: list[nodes.NodeNG] = []
        fires = vendor  # where every arch test is true, whatever else holds
        fires_anywhere = everywhere  # the same over every vendor's generations
        tests = 0
        others = 0  # arch tests of another vendor's generations, true on all of this one's
        for operand in condition.values:
            answer = self.semantics.admission(operand)
            if not vendor <= answer.can_be_false:  # not a switch
                fires_anywhere &= answer.can_be_true - answer.can_be_false
            if varies(answer, vendor):
                tests += 1
                fires &= answer.can_be_true - answer.can_be_false
            elif vendor <= answer.can_be_false:
                if not vendor <= answer.can_be_true:
                    return None  # never true here: the refusal never fires
                switches.append(operand)
            elif other_vendor_told_apart(self.semantics, answer, vendor) is not None:
                # `not (is_sm100() or is_sm120())` audited for gfx950: true on every AMD
                # part, telling NVIDIA's apart; with the switch on, all of them refused.
                others += 1
            # else true on every generation of the vendor (`_is_cuda`): no switch
        shown = " and ".join(f"'{not_gaps.short(s, 50)}'" for s in switches)
        if switches and not tests and others:
            # Every part of this vendor refused with the option on, the option let through
            # on an enumeration of the other's (two majors or more: `--enable-fp4-indexer
            # requires SM100 or SM120`, widened to gfx950 in sglang 0.5.22), not on one
            # part of it (`--use-aiter-mla needs gfx95`: that part's own library).
            admitted = everywhere - fires_anywhere
            if len({self.registry.get(g).major for g in admitted - vendor}) < 2:
                return None
            return replace(found, admits=frozenset(admitted)), shown
        if not switches or not tests or self.generation.name not in fires or fires == vendor:
            return None
        admits = (found.admits - vendor) | (vendor - fires)
        return replace(found, admits=frozenset(admits)), shown

    def _family_siblings_only(self, inside: frozenset[str]) -> bool:
        """Every generation admitted is of the audited one's family and another major."""
        family = self.generation.family.lower()
        if not inside or not family:
            return False
        return all(
            self.registry.get(g).family.lower() == family
            and self.registry.get(g).major != self.generation.major
            for g in inside
        )

    def _grouped(self, found: ArchCondition, inside: frozenset[str]) -> str | None:
        """Another gate of the module that admits the generation together with exactly
        the generations this one admits (and others of the generation's major only): the
        module groups them, and this gate left one of the group out. Not a kernel's
        declaration (`@supported_compute_capability([100, 103, 120])`), on either side:
        each kernel is declared for what it was written for."""
        gen = self.generation
        if found.kind.is_declaration:
            return None  # what one kernel is declared for says nothing of another's
        for other in (*self.by_path.get(found.path, ()), *self._callers_gates(found)):
            if other is found or other.kind.is_declaration:
                continue
            others = other.admits & self.vendor_gens
            extra = others - inside
            if gen.name not in others or not inside <= others:
                continue
            if all(self.registry.get(g).major == gen.major for g in extra):
                shown = ", ".join(self.registry.ordered(others))
                where = "" if other.path == found.path else f" of {other.module}"
                return f"the gate at line {other.line}{where} admits {shown} together"
        return None

    def _callers_gates(self, found: ArchCondition) -> list[ArchCondition]:
        """The gates of the files that call the function holding `found` (its class, for
        a method: the object is made there), when its arch tests read the device from
        what the callers pass (a parameter, or the object's state: `arch // 10 == 10`
        in a helper class given `arch`, flash-attn-4's backward postprocess): the callers
        decide with that value, and group generations there. Not for a name called from
        more than a few files (a generic `run`)."""
        key = id(found.condition)
        if key not in self._callers_of:
            self._callers_of[key] = self._find_callers_gates(found)
        return self._callers_of[key]

    def _find_callers_gates(self, found: ArchCondition) -> list[ArchCondition]:
        function = found.statement.scope()
        if not isinstance(function, nodes.FunctionDef) or not _reads_parameters(found, function):
            return []
        owner = function.parent
        name = str(owner.name) if isinstance(owner, nodes.ClassDef) else str(function.name)
        evaluator = self.semantics.evaluator(self.generation.name)
        files = files_calling(evaluator, name)
        if len(files) > MAX_CALLER_FILES:
            return []
        return [g for path in files if path != found.path for g in self.by_path.get(path, ())]

    def _told(self, found: ArchCondition, inside: frozenset[str]) -> frozenset[str]:
        """The admitted generations where one of the gate's arch terms answers: not those
        where every term is unknown while on others it answers (the CuTe DSL's arch on
        sm70 or an AMD part, Thor's two names in one range test: the device is not read
        there), which a gate admits without enumerating them. Only comparisons are read
        so (a comparison unknown on one generation while it answers on others compares
        a device value the idioms cannot give there); a name or a call may be unknown
        for other reasons (a flag its branches set, `n > 1` beside; a classmethod read for
        each class it may run for), and a gate unknown on every generation it admits is
        all told."""
        terms = found.arch_terms
        if not terms or not all(isinstance(t, nodes.Compare) for t in terms):
            return inside
        unread = frozenset(inside)
        for term in terms:
            admission = self.semantics.admission(term)
            unread &= admission.can_be_true & admission.can_be_false
            if not unread:
                break
        return (inside - unread) or inside

    def _one_other_family(self, inside: frozenset[str]) -> bool:
        """Every generation admitted is of one family, not the audited one's: `arch // 10
        in [10, 11]` or `family(100) or family(120)` audited for sm90 test for Blackwell,
        they list no majors that forgot Hopper (vLLM 0.23.0-0.25.0: none widened to sm90;
        the release history of sglang, vLLM and FlashInfer: 0 of 17 gates admitting
        another family, README)."""
        families = {self.registry.get(g).family.lower() for g in inside}
        return len(families) == 1 and self.generation.family.lower() not in families

    def _structural_deliberate(
        self, found: ArchCondition, inside: frozenset[str], reach: frozenset[str]
    ) -> str | None:
        """Shapes that leave the generation out on purpose: a gate about it alone, a
        cut-off, a hole written out around it, an exclusion that names it."""
        gen = self.generation.name
        admitted_text = ", ".join(self.registry.ordered(inside))
        named = self._named_kernel(found, inside)
        if named is not None:
            return named
        shut_out = (reach & self.vendor_gens) - found.admits
        if (
            shut_out
            and all(self.generation.same_line(self.registry.get(g)) for g in shut_out)
            and self._names_generation(found)
        ):
            # `if cap != (12, 0): return "generic"`: a gate about this generation
            # itself (its own kernel or its own fallback), not one that forgot it.
            shown = ", ".join(self.registry.ordered(shut_out))
            return f"shuts out only {shown}: a gate about {gen} itself; {_gen_side(found, gen)}"
        if (self._threshold(inside) and not self._enumerated(found, inside)) or (
            _written_cut_off(found.condition) and self._threshold(inside, reach)
        ):
            side = "an older" if self._older(inside) else "a newer"
            return (
                f"{side}-hardware branch: it admits only {admitted_text}; {_gen_side(found, gen)}"
            )
        # For a disabling gate the allowlist is the condition's false side: no hole there,
        # but an alternative that names this generation's major shuts it out by name.
        if found.polarity is Polarity.ENABLES:
            return self._hole(found)
        return self._named_among_failures(found)

    def _names_generation(self, found: ArchCondition) -> bool:
        """Whether a term of the gate tests the audited generation's own line: true only
        there (`is_sm120()`, `major == 12`), or an inequality false only there (`cap !=
        (12, 0)`, `arch not in ("sm_120", "sm_121")`). An allowlist that shuts out only
        the generation because it lists every other one the registry knows (xFormers
        0.0.30's `is_cdna()`, `arch in ("gfx940", "gfx941", "gfx942", "gfx90a", "gfx908")`,
        the three AMD generations known: widened to gfx950 by 0.0.33) does not name it."""
        gen = self.generation

        def own_line(gens: frozenset[str]) -> bool:
            return bool(gens) and all(gen.same_line(self.registry.get(g)) for g in gens)

        for term in found.arch_terms or tuple(operands(found.condition)):
            admission = self.semantics.admission(term)
            true = admission.can_be_true & self.vendor_gens
            if own_line(true) or own_line(true - admission.can_be_false):
                # true there, or certainly true only there (`arch // 10 == 12` on an
                # `arch` its callers pass: unknown elsewhere)
                return True
            if (
                isinstance(term, nodes.Compare)
                and len(term.ops) == 1
                and term.ops[0][0] in ("!=", "not in", "is not")
                and own_line(admission.can_be_false & self.vendor_gens)
            ):
                return True
        return False

    def _enumerated(self, found: ArchCondition, inside: frozenset[str]) -> bool:
        """Whether the gate lets through several generations and every arch term of it is
        written as equalities or memberships of constants (`arch in ("gfx940", "gfx942",
        "gfx90a")`, `major == 9 or major == 10`), through local names and argument-less
        helpers (`is_cdna()`), with no ordering comparison: an allowlist of the parts it
        names, not a cut-off, whatever the shape of the set it admits (AMD's three
        generations: a list of the CDNA parts before gfx950 admits everything up to it).
        False where a term cannot be read so, and for one generation (`sm == 90`, gfx90a's
        (9, 0) on AMD: a single-generation gate either way)."""
        if len(inside) < 2:
            return False
        evaluator = self.semantics.evaluator(self.generation.name)
        terms = found.arch_terms or tuple(operands(found.condition))
        return bool(terms) and all(_equalities_only(evaluator, t, _FOLLOWED) for t in terms)

    def _no_entry(self, found: ArchCondition, inside: frozenset[str]) -> str | None:
        """A gate that looks the device up in a table of constant keys, where a missing
        key turns the feature off (`SIZES[cap]`, `m = MIN_SIZE.get(cap); if m is None:
        return None`), and whose keys are all older than the generation: the table was
        written before it came (vLLM 0.20's sequence-parallel threshold table, {90: ...},
        widened for sm100 a release later). Only where no default stands in for a
        missing key (conditions.device_table)."""
        gen = self.generation
        if not inside or not all(self.registry.get(g).capability < gen.capability for g in inside):
            return None
        for term in found.arch_terms or tuple(operands(found.condition)):
            if isinstance(term, nodes.Subscript) and found.kind is not SlotKind.LOOKUP:
                continue  # a value read from the table, its truth the gate's (a predicate's)
            table = device_table(term)
            if table is not None and not _arch_specific_keys(table[1]):
                spelled, node = table
                return (
                    f"the per-device table '{spelled}' (line {node.lineno}) has no entry for "
                    f"{gen.name}, newer than every generation it lists, and a missing entry "
                    "turns the feature off"
                )
        return None

    def _named_among_failures(self, found: ArchCondition) -> str | None:
        """`if major < 10 or major == 12: raise`, `no_split = cap < (9, 0) or has_own_host`:
        one alternative of the failing condition is an equality naming this generation's
        major alone, or a flag or predicate true only on this generation's line (its own
        kernel, its own policy): excluded by name."""
        gen = self.generation
        condition = found.condition
        if not (isinstance(condition, nodes.BoolOp) and condition.op == "or"):
            return None
        for term in condition.values:
            if isinstance(term, nodes.Compare):
                if len(term.ops) != 1 or term.ops[0][0] not in ("==", "in"):
                    continue
            elif not isinstance(term, _NAMING_TERMS):
                continue
            admits = self.semantics.admission(term).can_be_true & self.vendor_gens
            if gen.name in admits and all(gen.same_line(self.registry.get(g)) for g in admits):
                return f"excludes {gen.name} by name: '{term.as_string()}'"
        return None

    def _named_kernel(self, found: ArchCondition, inside: frozenset[str]) -> str | None:
        """`fmha_sm100/atten_fwd_sm100.py`, `def tgv_gemm_sm100`: the module, class or
        function is named for the generations it admits, not for this one: a kernel
        written for that hardware."""
        gen = self.generation
        for part in found.qualname.split("."):
            named = {
                g
                for number in _SM_TOKEN.findall(part.lower())
                for g in self.vendor_gens
                if self.registry.get(g).capability == (int(number) // 10, int(number) % 10)
            }
            if not named or not named <= inside:
                continue
            if any(gen.same_line(self.registry.get(g)) for g in named):
                continue
            shown = ", ".join(self.registry.ordered(frozenset(named)))
            admitted = ", ".join(self.registry.ordered(inside))
            if found.role is Role.PREDICATE and part == found.qualname.rsplit(".", 1)[-1]:
                return (
                    f"a device predicate named for {shown} ('{part}'): it admits only "
                    f"{admitted}, as its name says"
                )
            return (
                f"a kernel named for {shown} ('{part}'): it admits only "
                f"{admitted}; {gen.name} has its own path"
            )
        return None

    def _gap_evidence(self, found: ArchCondition, inside: frozenset[str]) -> list[str]:
        gen = self.generation.name
        reasons: list[str] = []
        # Of its own line (sm100 and sm103; not gfx942 for gfx950, CDNA3 and CDNA4 alike
        # reporting major 9, nor sm86 for sm89, Ampere and Ada).
        siblings = [g for g in inside if self.generation.same_line(self.registry.get(g))]
        if siblings:
            shown = ", ".join(self.registry.ordered(frozenset(siblings)))
            reasons.append(
                f"admits {shown} but not {gen}, of the same major {self.generation.major}: "
                "an exact-minor test (the commonest gap in history)"
            )
        renamed = self._renamed_out(found, inside)
        if renamed is not None:
            reasons.append(renamed)
        told = self._told(found, inside)
        majors = sorted({self.registry.get(g).major for g in told})
        if len(majors) >= 2 and not self._one_other_family(told):
            shown = ", ".join(self.registry.ordered(told))
            reasons.append(f"enumerates {len(majors)} majors ({shown}) but not {gen}")
        terms = _alternative_predicates(found)
        if len(terms) >= 2:
            reasons.append(f"{len(terms)} generation predicates, none admitting {gen}")
        named = self._family_named(found)
        if named is not None:
            reasons.append(named)
        chained = self._chain_enumerates(found) if len(majors) < 2 else None
        if chained is not None:
            reasons.append(chained)
        floor = self._floor_beside(found, inside)
        if floor is not None:
            reasons.append(floor)
        return reasons

    def _renamed_out(self, found: ArchCondition, inside: frozenset[str]) -> str | None:
        """The generation reported another capability under earlier toolkits (Thor: (10,
        1) before CUDA 13.0), the gate admits every generation of that major, of its
        family, and reads that capability as it reads them: a test of the major, written
        when it took the generation in (vLLM 0.15.1's FA4 `major != 10`, widened to Thor
        in 0.18.0), not a list of the parts it knew (`arch in (100, 103)`)."""
        gen = self.generation
        former = self.semantics.former_evaluator(gen.name)
        if gen.formerly is None or former is None or found.kind.is_declaration:
            return None
        old_major = gen.formerly[0]
        line = frozenset(
            g
            for g in self.vendor_gens
            if self.registry.get(g).major == old_major
            and self.registry.get(g).family.lower() == gen.family.lower()
        )
        if not line or not line <= inside:
            return None
        then = former.truth(found.condition)
        if any(self.semantics.evaluator(g).truth(found.condition) is not then for g in line):
            return None
        shown = ", ".join(self.registry.ordered(line))
        return (
            f"admits {shown}, every generation of major {old_major}, but not {gen.name}, "
            f"which reported {gen.formerly} under earlier toolkits: a test of major "
            f"{old_major} that took it in then"
        )

    def _floor_beside(self, found: ArchCondition, inside: frozenset[str]) -> str | None:
        """`is_sm_at_least_89() or is_MI300()` audited for gfx950 (torchao 0.17.0, which
        admitted gfx950 in 0.18.0): the gate lets another vendor through from one
        generation up to its newest, a floor, and of this generation's vendor only
        generations older than it: the newer parts left out where the other vendor's
        are not."""
        gen = self.generation
        if not inside or not self._older(inside):
            return None
        for vendor in sorted({g.vendor for g in self.registry.generations} - {gen.vendor}):
            names = self.registry.ordered(self.registry.vendor_names(vendor))
            theirs = [self.registry.get(name) for name in names]
            admitted = [name in found.admits for name in names]
            if not any(admitted) or all(admitted):
                continue
            start = admitted.index(True)
            majors = {g.major for g in theirs[start:]}
            # Everything from one generation up, over majors: a floor (not the newest
            # part alone, which may be the one that has what the gate needs).
            if all(admitted[start:]) and len(majors) >= 2:
                shown = ", ".join(self.registry.ordered(inside))
                return (
                    f"admits {vendor} from {theirs[start].name} up to its newest, but of "
                    f"{gen.vendor} only {shown}, older than {gen.name}"
                )
        return None

    def _around_evidence(self, found: ArchCondition, worded: list[str]) -> list[str]:
        """What the code around the gate says it is for: its function's messages ask for
        more, the branch the generation takes is written for another one, a sibling check
        of the same backend admits it."""
        reasons = [
            f"in its function, {r}"
            for r in evidence.apply(
                (evidence.asks_for_more,),
                evidence.function_messages(found.statement),
                self.generation,
            )
            if r not in worded
        ][:1]  # the function's words are one piece of evidence, however often repeated
        other = self._other_branch(found)
        if other is not None:
            reasons.append(other)
        peer = self._peer_admits(found)
        if peer is not None:
            reasons.append(peer)
        return reasons

    def _other_branch(self, found: ArchCondition) -> str | None:
        """`if is_sm100(): fast() else:  # SM90: ...`: the generation takes the else branch,
        which its comment says is for another generation's major."""
        gen = self.generation
        if found.kind is not SlotKind.IF or found.polarity is not Polarity.ENABLES:
            return None
        self._texts(found)  # reads the file's comments once
        for words in evidence.else_comments(found.statement, self._comments[found.path]):
            named = self._generations_named(words.text)
            if not named or any(gen.same_line(self.registry.get(g)) for g in named):
                continue  # says nothing of another generation, or speaks of this one
            numbers = sorted({self.registry.get(g).major for g in named})
            majors = ", ".join(f"sm{m}x" for m in numbers)
            return f"{gen.name} takes the else branch, written for {majors}: {words.quoted()}"
        return None

    def _generations_named(self, text: str) -> set[str]:
        named = set()
        for name in self.vendor_gens:
            other = self.registry.get(name)
            family = other.family
            if evidence.generation_mention(other).search(text) or (
                family and re.search(rf"\b{re.escape(family)}\b", text, re.IGNORECASE)
            ):
                named.add(name)
        return named

    def _peer_admits(self, found: ArchCondition) -> str | None:
        """`{"cudnn": _cudnn_mm_bf16_requirement}` and `{"cudnn": _cudnn_gemm_fp4_requirement}`:
        the gate's function is registered under a backend's name next to another check of
        that backend that admits the generation."""
        scope = found.statement.scope()
        module = found.condition.root()
        if not isinstance(scope, nodes.FunctionDef) or not isinstance(module, nodes.Module):
            return None
        table = self._registered(module)
        for key, functions in table.items():
            if scope.name not in functions:
                continue
            for peer in functions:
                if peer == scope.name:
                    continue
                # The peer admits the generation where every gate of it lets it through
                # (its declared list too): one refusal inside it that happens to pass the
                # generation (`if sm12x and old_cudnn: raise`) is not its admission.
                gates = [
                    other
                    for other in self.by_function.get(f"{module.name}.{peer}", ())
                    if other.role is Role.GATE
                ]
                if gates and all(self.generation.name in other.admits for other in gates):
                    return (
                        f"registered as the '{key}' check, like '{peer}' "
                        f"(line {gates[0].line}), which admits {self.generation.name}"
                    )
        return None

    def _registered(self, module: nodes.Module) -> dict[str, list[str]]:
        """Module-level functions registered in dict literals, by the string key."""
        name = str(module.name)
        if name not in self._registrations:
            table: dict[str, list[str]] = {}
            for mapping in module.nodes_of_class(nodes.Dict):
                for key, value in mapping.items:
                    if (
                        isinstance(key, nodes.Const)
                        and isinstance(key.value, str)
                        and isinstance(value, nodes.Name)
                        and value.name not in table.get(key.value, [])
                    ):
                        table.setdefault(key.value, []).append(str(value.name))
            self._registrations[name] = {k: v for k, v in table.items() if len(v) >= 2}
        return self._registrations[name]

    def _chain_enumerates(self, found: ArchCondition) -> str | None:
        """`if is_device_capability(90): ... elif family(100): ...`: each test admits one
        major, the chain enumerates two or more, and this generation is in none."""
        statement = found.statement
        if found.kind not in (SlotKind.IF, SlotKind.CASE, SlotKind.RETURN, SlotKind.ASSERT):
            return None
        tests, _ = not_gaps.if_chain(statement, self._tells_apart)
        if len(tests) < 2:
            return None
        admitted: set[str] = set()
        for test in tests:
            admitted |= self.semantics.admission(test).can_be_true & self.vendor_gens
        if self.generation.name in admitted or admitted == set(self.vendor_gens):
            return None
        majors = sorted({self.registry.get(g).major for g in admitted})
        if len(majors) < 2:
            return None
        shown = ", ".join(self.registry.ordered(frozenset(admitted)))
        if isinstance(statement, nodes.MatchCase):
            chain = f"the match at line {statement.parent.lineno}"
        else:
            chain = f"the if/elif chain at line {tests[0].parent.lineno}"
        return f"{chain} handles {shown} but not {self.generation.name}"

    def _tells_apart(self, test: nodes.NodeNG) -> bool:
        """The test's truth differs between generations of the audited vendor."""
        return varies(self.semantics.admission(test), self.vendor_gens)

    def _reach(self, found: ArchCondition) -> tuple[frozenset[str], int, list[ArchCondition]]:
        """Generations that can get to the gate through its enclosing if/elif/else tests
        (in its function), the line of the innermost one that narrows them, and the tests
        that shut the audited generation out on the way."""
        return self._reach_of(found.statement)

    def _reach_of(self, statement: nodes.NodeNG) -> tuple[frozenset[str], int, list[ArchCondition]]:
        reach = self.registry.all_names()
        outer = 0
        excluding: list[ArchCondition] = []
        child, parent = statement, statement.parent
        while parent is not None:
            for exit_test in self._early_exits_before(child):
                passes = exit_test.admission.can_be_false
                if self.generation.name not in passes:
                    outer = outer or exit_test.line
                    excluding.append(exit_test)
                reach &= passes
            if isinstance(parent, _SCOPES):
                break
            enclosing = self.branches.get(id(parent))
            if isinstance(parent, nodes.If) and child is not parent.test and enclosing:
                side = enclosing.admission
                branch = side.can_be_true if child in parent.body else side.can_be_false
                if self.generation.name not in branch:
                    outer = outer or enclosing.line
                    excluding.append(enclosing)
                reach &= branch
            child, parent = parent, parent.parent
        return reach, outer, excluding

    def _behind_likely_gaps(self, excluding: list[ArchCondition]) -> bool:
        """Every test that shuts the generation out before the gate is a gate itself,
        classed a likely gap: the gate is the next one a fix meets, not a decision
        (vLLM 0.24.0 widened DeepGEMM's allowlist and the gates behind it together)."""
        if not excluding:
            return False
        return all(self._a_likely_gap_or_its_call(condition) for condition in excluding)

    def _a_likely_gap_or_its_call(self, condition: ArchCondition) -> bool:
        """A gate classed a likely gap, or a hop passing on the answer of a gate function
        one of whose gates is (`if not supports_trtllm_attention(...): return False`)."""
        if condition.role is Role.GATE:
            return self._likely_gap(condition)
        if condition.role is Role.HOP:
            return any(self._likely_gap(root) for root in self.hop_roots.get(id(condition), ()))
        return False

    def _early_exits_before(self, statement: nodes.NodeNG) -> list[ArchCondition]:
        """`if not is_deep_gemm_supported(): return False, "..."` earlier in the same
        block: only the generations it lets pass get to the statement."""
        found: list[ArchCondition] = []
        previous = statement.previous_sibling()
        while previous is not None:
            condition = self.branches.get(id(previous))
            if (
                condition is not None
                and isinstance(previous, nodes.If)
                and not previous.orelse
                and branch_exits(previous.body)
            ):
                found.append(condition)
            previous = previous.previous_sibling()
        return found

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

    def _threshold(self, inside: frozenset[str], reach: frozenset[str] | None = None) -> bool:
        """Everything up to some generation (or from some generation on), with this one
        on the other side: a cut-off, not an allowlist. With `reach`, counted among the
        generations that get to the gate (`elif major < 9` after `if major < 8`)."""
        known = self.vendor_gens if reach is None else self.vendor_gens & reach
        ordered = [g for g in self.registry.generations if g.name in known]
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
        module uses it anywhere (unused, it is the "defined but forgotten" evidence).
        None for a device predicate's own test: the module that defines predicates holds
        each generation's, for other modules to use."""
        if found.role is Role.PREDICATE:
            return None
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
        # GEN's own predicate: admits it, and within the vendor nothing beyond its line.
        inside = predicate.admits & self.vendor_gens
        own = all(self.generation.same_line(self.registry.get(g)) for g in inside)
        return self.generation.name in predicate.admits and own

    def _no_feature_loss(self, found: ArchCondition) -> str | None:
        """A gate whose branches only log or pick a message, or tune numbers with a
        generic fallback: the generation loses no feature either way."""
        gen = self.generation.name
        statement = found.statement
        if isinstance(statement, nodes.IfExp) and found.kind is SlotKind.IFEXP:
            sides = [[statement.body], [statement.orelse]]
            if all(_message_or_number(side[0]) == "message" for side in sides):
                return f"only picks a message: {gen} loses no feature"
            if all(_message_or_number(side[0]) == "number" for side in sides):
                return f"per-GPU tuning with a generic fallback: {gen} gets the fallback numbers"
            return None
        if not (isinstance(statement, nodes.If) and found.kind is SlotKind.IF):
            return None
        chain, has_else = _if_chain(statement)
        if only_reports(chain):
            return f"its branches only log or pick a message: {gen} loses no feature"
        fallback = (
            has_else
            or _next_is_numeric_return(statement)
            or _numbers_set_before(chain)
            or only_adjusts(chain)
        )
        if tunes_numbers(chain, fallback):
            return f"per-GPU tuning with a generic fallback: {gen} gets the fallback numbers"
        return None

    def _texts(self, found: ArchCondition) -> list[evidence.Words]:
        path = found.path
        if path not in self._comments:
            text = self.project.text_of(path)
            self._comments[path] = evidence.comments(text) if text else []
        return evidence.texts_near(
            found.statement, found.condition, self._comments[path], self._hardware
        )

    def _summary_asks(self, found: ArchCondition) -> list[str]:
        """The function's only gate: its docstring's summary can speak of no other
        ("Disable it on Blackwell GPUs (SM100+)." over `if not family(100): return
        False`), and what it asks for is evidence (the rest of a docstring
        documents parameters and results, and any docstring of a function with several
        gates may speak of another). So does the docstring of a class whose methods hold
        no other gate, above its sections ("MXFP4 weights. Requires SM100+ (Blackwell)."
        over `_supports_current_device()`: the class is the feature)."""
        scope = found.statement.scope()
        if not isinstance(scope, nodes.FunctionDef):
            return []
        asked: list[str] = []
        if scope.doc_node is not None and len(self._deciding(found.qualname)) == 1:
            text = _summary(str(scope.doc_node.value))
            words = evidence.Words(int(scope.doc_node.lineno or 1), "docstring", text, sole=True)
            asked += evidence.apply((evidence.asks_for_more,), [words], self.generation)
        owner = scope.parent
        if (
            not asked
            and isinstance(owner, nodes.ClassDef)
            and owner.doc_node is not None
            and len(self._deciding(qualname_of(owner), within=True)) == 1
        ):
            text = evidence.requirement_sentences(_above_sections(str(owner.doc_node.value)))
            if text:
                line = int(owner.doc_node.lineno or 1)
                words = evidence.Words(line, "docstring", text, sole=True)
                asked += evidence.apply((evidence.asks_for_more,), [words], self.generation)
        return asked

    def _deciding(self, qualname: str, within: bool = False) -> list[ArchCondition]:
        """The gates and hops of a function (or, `within`, of a class's methods)."""
        if within:
            prefix = qualname + "."
            found = [
                c
                for name, conditions in self.by_function.items()
                if name.startswith(prefix)
                for c in conditions
            ]
        else:
            found = list(self.by_function.get(qualname, ()))
        return [c for c in found if c.role in (Role.GATE, Role.HOP)]

    def _hole(self, found: ArchCondition) -> str | None:
        """`(10, 0) <= cap < (12, 0) or cap >= (13, 0)`: an alternative that starts above
        the generation, next to ones below it; or `major != 12`: an exclusion by name."""
        gen = self.generation
        terms = list(operands(found.condition))
        above = below = None
        for term in terms:
            if not isinstance(term, nodes.Compare) or negated(term, found.condition):
                continue
            ops = [op for op, _ in term.ops]
            admits = self.semantics.admission(term).can_be_true & self.vendor_gens
            if ops and all(op in ("!=", "not in") for op in ops) and gen.name not in admits:
                return f"excludes {gen.name} by name: '{term.as_string()}'"
            if _lower_bound(term) and all(
                self.registry.get(g).capability > gen.capability for g in admits
            ):
                above = term
            elif admits and all(self.registry.get(g).capability < gen.capability for g in admits):
                below = term
        if above is not None and below is not None and isinstance(found.condition, nodes.BoolOp):
            return (
                f"a hole written out around {gen.name}: '{below.as_string()}' stops below it "
                f"and '{above.as_string()}' starts above it"
            )
        return None

    def _family_named(self, found: ArchCondition) -> str | None:
        """`is_blackwell` that leaves sm120 (a Blackwell) out while admitting another
        Blackwell: the name promises the family, the body tests one part of it."""
        family = self.generation.family.lower()
        if not family:
            return None
        same_family = {g for g in self.vendor_gens if self.registry.get(g).family.lower() == family}
        named = [(call_name(t), self.semantics.admission(t).can_be_true) for t in found.arch_terms]
        if found.kind in (SlotKind.ASSIGN, SlotKind.BOUND):
            named += [(n, found.admission.can_be_true) for n in assigned_names(found.statement)]
        if found.role is Role.PREDICATE:  # a predicate's own test: its name's promise
            named.append((found.qualname.rsplit(".", 1)[-1], found.admission.can_be_true))
        for name, admits in named:
            if family in name.lower():
                if self.generation.name not in admits and admits & same_family:
                    return (
                        f"'{name}' is named for {self.generation.family} but leaves out "
                        f"{self.generation.name}, a {self.generation.family} generation"
                    )
            elif (line := self._line_named(name)) is not None:
                stem, members = line
                if self.generation.name not in admits and admits & members:
                    return (
                        f"'{name}' is named for {stem} but leaves out {self.generation.name}, "
                        f"a {self.generation.family} generation"
                    )
        return None

    def _line_named(self, name: str) -> tuple[str, frozenset[str]] | None:
        """The line of numbered families the audited generation's belongs to, where
        `name` spells it without a number (`is_cdna` for CDNA2, CDNA3 and CDNA4, gfx950's
        CDNA4; not `is_cdna3`), with the vendor's generations of that line."""
        family = self.generation.family
        stem = family.rstrip("0123456789")
        if not stem or stem == family:
            return None
        if re.search(rf"{re.escape(stem.lower())}(?!\d)", name.lower()) is None:
            return None
        members = frozenset(
            g
            for g in self.vendor_gens
            if self.registry.get(g).family.rstrip("0123456789").lower() == stem.lower()
        )
        return stem, members

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
# Alternatives of a failing condition read for what they admit, as a comparison's
# equality is (`_named_among_failures`): a flag, a predicate's call, an attribute.
_NAMING_TERMS = (nodes.Name, nodes.Call, nodes.Attribute)
# A key naming an arch-specific target (`"100a"`, `"sm_90a"`): the table holds what was
# built for exactly that target; a newer generation needs its own, not an entry copied.
_ARCH_SPECIFIC_KEY = re.compile(r"^(sm_?)?\d{2,3}a$", re.IGNORECASE)


def _arch_specific_keys(table: nodes.Dict) -> bool:
    return any(
        isinstance(key, nodes.Const)
        and isinstance(key.value, str)
        and _ARCH_SPECIFIC_KEY.match(key.value) is not None
        for key, _ in table.items
    )


# The cut-off readings a table without the generation's entry overrides: the generation
# takes no other branch there, the feature is off.
_CUT_OFFS = ("an older-hardware branch",)
# `sm100`, `sm_90a` inside a module, class or function name (not `sm1000`, not `rsm100`).
_SM_TOKEN = re.compile(r"(?<![a-z0-9])sm_?(\d{2,3})(?![0-9])")


def _identifiers(found: ArchCondition) -> list[str]:
    """The names a gate reads and the ones its value is kept under."""
    names = [
        str(n.name if isinstance(n, nodes.Name) else n.attrname)
        for n in found.condition.nodes_of_class((nodes.Name, nodes.Attribute))
    ]
    if found.kind in (SlotKind.ASSIGN, SlotKind.BOUND):
        names += assigned_names(found.statement)
    return list(dict.fromkeys(names))


def _summary(docstring: str) -> str:
    """A docstring's first paragraph."""
    return re.split(r"\n\s*\n", docstring.strip(), maxsplit=1)[0]


# A docstring section's heading: `Args:`, `Attributes:`, `Parameters` over `----------`.
_SECTION = re.compile(r"^\s*(\w+( \w+)?:\s*$|-{3,}\s*$)", re.MULTILINE)


def _above_sections(docstring: str) -> str:
    """A docstring's text above its first section (the parameters and attributes it
    documents speak of one option each, not of the whole)."""
    text = docstring.strip()
    heading = _SECTION.search(text)
    return text[: heading.start()] if heading else text


def _is_predicate_term(term: nodes.NodeNG, condition: nodes.NodeNG) -> bool:
    """A positive predicate operand (`is_sm90_supported()`, `_is_sm100`), not a
    comparison of capability numbers and not a negated exclusion."""
    return isinstance(term, (nodes.Call, nodes.Name, nodes.Attribute)) and not negated(
        term, condition
    )


def _alternative_predicates(found: ArchCondition) -> list[nodes.NodeNG]:
    """The positive predicates a condition offers as alternatives (`is_sm90() or
    is_sm100()`), not those it requires together (`is_sm90() and group_gemm_ok()`
    narrows to one generation, it enumerates none)."""
    arch = {id(t) for t in found.arch_terms}

    def depends(node: nodes.NodeNG) -> bool:
        return id(node) in arch or any(id(n) in arch for n in node.nodes_of_class(nodes.NodeNG))

    def alternatives(node: nodes.NodeNG) -> list[nodes.NodeNG]:
        if isinstance(node, nodes.BoolOp) and node.op == "or":
            return [leaf for value in node.values for leaf in alternatives(value)]
        if isinstance(node, nodes.BoolOp):
            deciding = [v for v in node.values if depends(v)]
            return alternatives(deciding[0]) if len(deciding) == 1 else []
        return [node] if id(node) in arch else []

    return [t for t in alternatives(found.condition) if _is_predicate_term(t, found.condition)]


def _parameter_read(found: ArchCondition) -> str | None:
    """`if use_psum_layout:` where `use_psum_layout` is the function's parameter: the
    generation test is the caller's; this row passes its answer on."""
    condition = found.condition
    if isinstance(condition, nodes.UnaryOp) and condition.op == "not":
        condition = condition.operand
    if not isinstance(condition, nodes.Name):
        return None
    scope = condition.scope()
    if isinstance(scope, nodes.FunctionDef) and condition.name in scope.argnames():
        return str(condition.name)
    return None


def _reach_and_excluding(
    reached: tuple[frozenset[str], int, list[ArchCondition]],
) -> tuple[frozenset[str], list[ArchCondition]]:
    reach, _, excluding = reached
    return reach, excluding


def _gen_side(found: ArchCondition, gen: str) -> str:
    """Where the generation goes: past an enabling gate the other way, into a disabling
    gate's own branch (`if cap == (12, 0): use_fused = False` turns it off there); a
    declaration has no branch: the generation is outside what it declares."""
    if found.kind.is_declaration:
        return f"{gen} is outside what it declares"
    if found.polarity is Polarity.DISABLES:
        return f"{gen} takes the branch that turns it off"
    return f"{gen} takes the other branch"


def _written_cut_off(condition: nodes.NodeNG) -> bool:
    """`nv_cap[0] < 9`, `major >= 10`: one ordering comparison against a number."""
    if not isinstance(condition, nodes.Compare) or len(condition.ops) != 1:
        return False
    op, right = condition.ops[0]
    return op in ("<", "<=", ">", ">=") and (_constant(right) or _constant(condition.left))


# How many names and helpers _equalities_only follows from one term.
_FOLLOWED = 4


def _equalities_only(evaluator: Evaluator, term: nodes.NodeNG, hops: int) -> bool:
    """`term`, an operand of a gate's and/or/not structure, is a comparison by `==`, `!=`,
    `in` or `not in` with a constant or a collection of constants, or a local name or an
    argument-less helper (possibly in another module) whose one value or return is made
    of such terms only."""
    if isinstance(term, nodes.Compare):
        constant_side = _constant(term.left) or all(_constant(r) for _, r in term.ops)
        return constant_side and all(op in ("==", "!=", "in", "not in") for op, _ in term.ops)
    if hops <= 0:
        return False
    try:
        if isinstance(term, nodes.Name):
            value = assigned_value(term)
        elif isinstance(term, nodes.Call) and not term.args and not term.keywords:
            value = returned_value(evaluator, term)
        else:
            return False
    except NotFollowed:
        return False
    if value is None:
        return False
    return all(_equalities_only(evaluator, part, hops - 1) for part in operands(value))


def _loaded_names(module: nodes.Module) -> set[str]:
    names = {str(n.name) for n in module.nodes_of_class(nodes.Name)}
    return names | {str(n.attrname) for n in module.nodes_of_class(nodes.Attribute)}


def _but(reasons: list[str]) -> list[str]:
    return [f"but: {r}" for r in reasons]


def _message_or_number(node: nodes.NodeNG) -> str:
    """What a side of `x if cond else y` gives: a number, a message (a sentence, an
    f-string), or something else. A string that is one word (`"fa4" if is_sm100() else
    "triton"`, a backend's name) is a choice, not a message."""
    if is_numeric(node):
        return "number"
    if isinstance(node, nodes.JoinedStr):
        return "message"
    if isinstance(node, nodes.Const) and isinstance(node.value, str):
        return "" if _CHOICE.fullmatch(node.value) else "message"
    return ""


# A name rather than a sentence: `fa4`, `flashinfer_cutlass`, `trtllm-gen`, `sm_90a`.
_CHOICE = re.compile(r"[A-Za-z_][\w.+-]*")


def _if_chain(statement: nodes.If) -> tuple[list[list[nodes.NodeNG]], bool]:
    """The branches of an if/elif/else chain from `statement` on, and whether it ends
    with an else."""
    chain = _chain_ifs(statement)
    branches: list[list[nodes.NodeNG]] = [list(branch.body) for branch in chain]
    if chain[-1].orelse:
        return [*branches, list(chain[-1].orelse)], True
    return branches, False


def _next_is_numeric_return(statement: nodes.If) -> bool:
    following = statement.next_sibling()
    return (
        isinstance(following, nodes.Return)
        and following.value is not None
        and is_numeric(following.value)
    )


def _lower_bound(term: nodes.Compare) -> bool:
    """`cap >= (13, 0)` / `13 <= major`: the device side is bounded from below."""
    op, right = term.ops[0]
    if len(term.ops) != 1:
        return False
    if _constant(right) and op in (">", ">="):
        return True
    return _constant(term.left) and op in ("<", "<=")


def _constant(node: nodes.NodeNG) -> bool:
    """A constant written out: a number or string, arithmetic of numbers (`150 * 1024`),
    or a tuple, list or set of constants."""
    if isinstance(node, nodes.Const):
        return True
    if isinstance(node, nodes.BinOp):
        return _constant(node.left) and _constant(node.right)
    if isinstance(node, (nodes.Tuple, nodes.List, nodes.Set)):
        return bool(node.elts) and all(_constant(e) for e in node.elts)
    return False


_LITERALS = (nodes.List, nodes.Tuple, nodes.Set, nodes.Dict)


def allowlist_of(anchor: nodes.NodeNG) -> str | None:
    """Where the list that shuts the generation out is written, when the condition only
    reads a name holding it (`cap in SUPPORTED`, SUPPORTED = [...] above)."""
    if not isinstance(anchor, nodes.Compare) or len(anchor.ops) != 1:
        return None
    op, holder = anchor.ops[0]
    if op not in ("in", "not in") or not isinstance(holder, nodes.Name):
        return None
    try:
        _, bindings = holder.lookup(holder.name)
    except Exception:  # astroid lookups can fail on odd scopes: no allowlist then
        return None
    for binding in bindings:
        statement = binding.statement()
        value = getattr(statement, "value", None)
        if isinstance(statement, (nodes.Assign, nodes.AnnAssign)) and isinstance(value, _LITERALS):
            text = " ".join(value.as_string().split())
            if len(text) > 80:
                text = text[:77] + "..."
            return f"the allowlist is '{holder.name}' at line {statement.lineno}: {text}"
    return None


def _numbers_set_before(chain: list[list[nodes.NodeNG]]) -> bool:
    """`BLOCK = 64` before `if major == 9: BLOCK = 128`: the default is the fallback."""
    if not chain or not chain[0]:
        return False
    first = chain[0][0]
    names = set(assigned_names(first))
    head = first.parent
    while isinstance(head, nodes.If) and isinstance(head.parent, nodes.If):
        if head.parent.orelse != [head]:
            break
        head = head.parent
    previous = head.previous_sibling() if head is not None else None
    while previous is not None:
        if (
            isinstance(previous, (nodes.Assign, nodes.AnnAssign))
            and previous.value is not None
            and names & set(assigned_names(previous))
            and is_numeric(previous.value)
        ):
            return True
        previous = previous.previous_sibling()
    return False


# Classes named in a reason; the rest are counted.
SHOWN_CLASSES = 6


def _shut_out_for(found: ArchCondition, gen: str) -> str | None:
    """For a condition read once per class its classmethod may run for (subclasses.py),
    the classes for which it shuts `gen` out (the feature's side: true where it enables,
    false where it disables), when some do and some do not (all of them: the row says
    so itself)."""
    receivers = found.admission.receivers
    side = 1 if found.polarity is Polarity.ENABLES else 2
    shut = [r[0] for r in receivers if gen not in r[side]]
    if not shut or len(shut) == len(receivers):
        return None
    names = ", ".join(shut[:SHOWN_CLASSES])
    if len(shut) > SHOWN_CLASSES:
        names += f" and {len(shut) - SHOWN_CLASSES} more"
    return (
        f"read for each of the {len(receivers)} classes its classmethod may run for: "
        f"shuts {gen} out for {len(shut)} of them ({names})"
    )


def _chain_ifs(statement: nodes.If) -> list[nodes.If]:
    """The `if` and each `elif` of the chain it begins."""
    chain: list[nodes.If] = []
    current: nodes.NodeNG | None = statement
    while isinstance(current, nodes.If):
        chain.append(current)
        current = current.orelse[0] if len(current.orelse) == 1 else None
    return chain


def _reads_parameters(found: ArchCondition, function: nodes.FunctionDef) -> bool:
    """Whether an arch test of `found` reads a parameter of `function` (`self.arch`
    included): a value its callers pass."""
    parameters = set(function.argnames())
    return any(
        name.name in parameters
        for term in found.arch_terms
        for name in term.nodes_of_class(nodes.Name)
    )


def _standalone(found: ArchCondition) -> bool:
    """A gate that is no branch of a dispatch of its own (no `elif`/`else` around or
    after it: each branch of such a chain is that chain's) and decides more than numbers
    (`if cc == 9: n_block_size = 192` tunes sm90's tiles; a chain that forgot a
    generation leaves its tiles alone)."""
    statement = found.statement
    if found.kind is not SlotKind.IF:
        return True
    assert isinstance(statement, nodes.If)
    parent = statement.parent
    if statement.orelse or (isinstance(parent, nodes.If) and statement in parent.orelse):
        return False
    return not _only_numbers(statement.body)


def _only_numbers(body: Sequence[nodes.NodeNG]) -> bool:
    """Every statement sets a number, or is an `if` doing only that."""
    for stmt in body:
        if isinstance(stmt, nodes.If):
            if not _only_numbers([*stmt.body, *stmt.orelse]):
                return False
        elif isinstance(stmt, (nodes.Assign, nodes.AnnAssign, nodes.AugAssign)):
            if stmt.value is None or not is_numeric(stmt.value):
                return False
        elif not isinstance(stmt, nodes.Pass):
            return False
    return bool(body)
