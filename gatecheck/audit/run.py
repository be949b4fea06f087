"""The audit for a new generation: read the files that spell an arch idiom, find their
architecture conditions, tell hops from gates, classify each gate and order the report.
No click, no rich: reporters render an AuditReport."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterable, Sequence
from functools import partial
from pathlib import Path

from astroid import nodes

from gatecheck import forking, progress
from gatecheck.audit import workers
from gatecheck.audit.binding_sites import binding_sites
from gatecheck.audit.class_bounds import class_bound_conditions
from gatecheck.audit.classify import Classifier
from gatecheck.audit.conditions import (
    ArchCondition,
    FoundCondition,
    Role,
    SlotKind,
    classify_condition,
    condition_text,
    module_nodes,
    module_path,
    outermost_slots,
    picked_within,
    string_test_receiver,
    told_apart,
)
from gatecheck.audit.construction_bounds import construction_bound_conditions
from gatecheck.audit.declarations import declared_conditions
from gatecheck.audit.definitions import listed_definitions, with_arch_terms
from gatecheck.audit.hops import HopSources, provided_keys
from gatecheck.audit.prefilter import mentions_arch
from gatecheck.audit.report import (
    AuditedGate,
    AuditReport,
    CallSite,
    KernelVerdict,
    default_columns,
    order_gates,
)
from gatecheck.audit.widening import Widening
from gatecheck.audit.workers import ModuleOutcome, SlotOutcome
from gatecheck.config.model import RuleSet
from gatecheck.containment import Containment
from gatecheck.engine import open_project
from gatecheck.kernels.checks import KernelCatalog
from gatecheck.loading.project import Project, bulk_allocation
from gatecheck.loading.readlog import ReadLog, reading_for
from gatecheck.semantics.admitted import Admission, Semantics
from gatecheck.semantics.conventions import is_parameter_assumption


def discover(
    project: Project,
    semantics: Semantics,
    modules: Iterable[nodes.Module],
    vendor: str,
    on_module: Callable[[], None] | None = None,
    contain: Containment | None = None,
    jobs: int = 1,
    min_share: int = workers.MIN_SHARE_CHARS,
    more: Callable[[Sequence[ArchCondition]], Sequence[nodes.Module]] | None = None,
) -> list[ArchCondition]:
    """Every generation-dependent condition of the modules, with its role for `vendor`.
    A condition whose evaluation fails is diagnosed (through `contain`) and left out.
    `jobs` > 1: worker processes find which conditions of their share vary (workers.py);
    the answer is the same. `more`: given the conditions found last, further modules to
    search (widening.py), asked again until it has none; each round's shared with forked
    workers as well when it is large enough (workers.plan)."""
    contain = contain or Containment(project.diagnostics)
    vendor_gens = semantics.registry.vendor_names(vendor)
    modules = list(modules)
    conditions: list[ArchCondition] = []

    def here(module: nodes.Module) -> None:
        conditions.extend(_module_conditions(project, semantics, module, vendor_gens, contain))
        if on_module is not None:
            on_module()

    def evaluated(modules: list[nodes.Module]) -> None:
        """The modules' conditions, in order: taken from both ends by this process and
        the workers (workers.Claims) when they are large enough to share."""
        processes = 1
        if jobs > 1 and forking.can_fork():
            weights = [len(project.text_of(module_path(m)) or "") for m in modules]
            processes = workers.plan(weights, jobs, min_share)
        if processes == 1:
            for module in modules:
                here(module)
            return
        found = _shared(project, semantics, modules, processes, vendor_gens, contain, here)
        for module, outcome, unbuildable in found:
            conditions.extend(
                _worker_conditions(
                    project, semantics, module, vendor_gens, contain, outcome, unbuildable
                )
            )
            if on_module is not None:
                on_module()

    evaluated(modules)
    if more is not None:
        latest = conditions
        while extra := more(latest):
            before = len(conditions)
            # Forked now, a worker has every tree and memo this process has.
            evaluated(list(extra))
            latest = conditions[before:]

    def as_gate(c: ArchCondition) -> ArchCondition:
        with reading_for(project, c.path):
            return _recorded_decision_as_gate(c, semantics, vendor_gens)

    conditions = [as_gate(c) for c in conditions]
    holders = HopSources(project, semantics, vendor_gens, conditions)

    def resolved(c: ArchCondition) -> ArchCondition:
        if c.role is not Role.GATE:
            return c
        # A gate whose hop sources cannot be read stays a gate (and is diagnosed).
        with reading_for(project, c.path, hops=True):
            return contain.run(*_where(c), partial(holders.resolve, c)) or c

    return [resolved(c) for c in conditions]


def _shared(
    project: Project,
    semantics: Semantics,
    modules: Sequence[nodes.Module],
    processes: int,
    vendor_gens: frozenset[str],
    contain: Containment,
    here: Callable[[nodes.Module], None],
) -> list[tuple[nodes.Module, ModuleOutcome | None, frozenset[Path]]]:
    """`modules` taken from both ends, this process's from the front (each given to
    `here`), `processes - 1` forked workers' from the back: those the workers took, in
    order, each with what its worker found (None: the worker failed, it is evaluated
    here) and the files the workers could not build."""
    task = partial(_share_outcome, project, semantics, modules, vendor_gens, contain)
    outcomes, unbuildable, front = workers.claimed(
        project, semantics, len(modules), processes, task, lambda i: here(modules[i])
    )
    return [(module, outcomes.get(module_path(module)), unbuildable) for module in modules[front:]]


def _module_conditions(
    project: Project,
    semantics: Semantics,
    module: nodes.Module,
    vendor_gens: frozenset[str],
    contain: Containment,
    outcome: ModuleOutcome | None = None,
    record: list[SlotOutcome] | None = None,
    unbuildable: frozenset[Path] = frozenset(),
) -> list[ArchCondition]:
    """The arch conditions of one module, in slot order. `outcome`: a worker's (only the
    slots it found are evaluated; the others' diagnostics are replayed). `record`: the
    outcome of each slot, then of the declarations, appended (a worker's)."""
    path = module_path(module)
    found_here: list[ArchCondition] = []
    with reading_for(project, path):  # what impact reuses an audit by (readlog.py)
        walked = module_nodes(module)  # a walk of the whole tree: once per module
        slots = outermost_slots(module, walked)
        if outcome is not None and len(outcome.slots) != len(slots):
            outcome = None  # not the tree the worker walked: evaluate it all here
        within = picked_within(slots)
        listed: set[int] = set()  # the slots that are rows
        for index, (condition, statement, kind) in enumerate(slots):
            if within.get(index) in listed:
                # A ternary inside a condition that is a row: that row is the gate.
                if record is not None:
                    record.append(SlotOutcome(False, ()))
                continue
            if outcome is not None:
                slot = outcome.slots[index]
                if not slot.found or slot.condition is not None:
                    # Its diagnostics where this process would have added them, and
                    # what the worker found, on this process's nodes.
                    workers.replay(project, slot.diagnostics, unbuildable)
                    if slot.condition is not None:
                        found_here.append(slot.condition.condition_at(module, *slots[index]))
                        listed.add(index)
                    continue
            before = len(project.diagnostics)
            found = contain.run(
                path,
                int(condition.lineno or 1),
                int(condition.col_offset or 0),
                partial(
                    classify_condition,
                    semantics,
                    module,
                    condition,
                    statement,
                    kind,
                    vendor_gens,
                ),
            )
            if record is not None:
                packed = None if found is None else FoundCondition.of(found)
                diagnosed = workers.added(project, before)
                record.append(SlotOutcome(found is not None, diagnosed, packed))
            if found is not None:
                found_here.append(found)
                listed.add(index)
        if outcome is not None and not outcome.declared.found:
            workers.replay(project, outcome.declared.diagnostics, unbuildable)
            return found_here
        before = len(project.diagnostics)
        declared = contain.run(
            path,
            1,
            0,
            partial(declared_conditions, semantics, module, vendor_gens, slots, walked),
        )
        if record is not None:
            record.append(SlotOutcome(bool(declared), workers.added(project, before)))
        found_here.extend(declared or ())
    return found_here


def _worker_conditions(
    project: Project,
    semantics: Semantics,
    module: nodes.Module,
    vendor_gens: frozenset[str],
    contain: Containment,
    outcome: ModuleOutcome | None,
    unbuildable: frozenset[Path],
) -> list[ArchCondition]:
    """What a worker found in `module`: each condition put on this process's nodes by
    where it sits (FoundCondition.placed), the diagnostics replayed in the order the
    single-process run adds them, the tree not walked (a walk of each of a worker's
    modules to count its slots took 0.6-0.8 s of the large audits). A module whose
    declarations the worker found (evaluated again here), or where a condition's path
    leads nowhere, goes through _module_conditions; so does one whose worker failed
    (`outcome` None: evaluated here)."""
    placed: list[ArchCondition | None] = []
    if outcome is not None and not outcome.declared.found:
        placed = [s.condition.placed(module) for s in outcome.slots if s.condition is not None]
    if outcome is None or outcome.declared.found or None in placed:
        return _module_conditions(
            project, semantics, module, vendor_gens, contain, outcome, unbuildable=unbuildable
        )
    with reading_for(project, module_path(module)):
        for slot in (*outcome.slots, outcome.declared):
            workers.replay(project, slot.diagnostics, unbuildable)
    return [c for c in placed if c is not None]


def _share_outcome(
    project: Project,
    semantics: Semantics,
    modules: Sequence[nodes.Module],
    vendor_gens: frozenset[str],
    contain: Containment,
    claims: workers.Claims,
) -> workers.Share[Path, ModuleOutcome]:
    """A worker's task: every condition of each module it claims from the back of
    `modules`, evaluated as the single-process run does, kept as outcomes."""
    tried = project.tried_paths()
    out: dict[Path, ModuleOutcome] = {}
    with progress.listening(None):
        while (index := claims.back()) is not None:
            module = modules[index]
            record: list[SlotOutcome] = []
            _module_conditions(project, semantics, module, vendor_gens, contain, record=record)
            out[module_path(module)] = ModuleOutcome(tuple(record[:-1]), record[-1])
    return workers.share(project, semantics, tried, out)


def _recorded_decision_as_gate(
    condition: ArchCondition, semantics: Semantics, vendor_gens: frozenset[str]
) -> ArchCondition:
    """A predicate-named binding that records a decision is a row (its readers become
    its hops: one decision, one row): `self.is_blackwell = major == 10` (state kept on
    an object) or `_is_sm10x = major == 10` (an allowlist written out). Aliases that
    only combine predicates (`_is_sm100 = _is_cuda and is_sm100_supported()`) stay
    vocabulary: the decision is at each use."""
    statement = condition.statement
    if condition.role is not Role.PREDICATE:
        return condition
    # The generations it tells apart: the audited vendor's, else another's (`is_cdna4 =
    # get_cdna_version() == 4` in an sm120 audit, a row as its uses are).
    deciding = told_apart(semantics, condition.admission, vendor_gens)
    if deciding is None:
        return condition
    terms = with_arch_terms(condition, semantics, deciding).arch_terms
    if _decided_by_a_parameter(condition.admission):
        # `def supports_compute_capability(cls, capability): return capability.major in
        # [9, 10]`: the device arrives through a parameter no caller the audit read
        # binds (a method dispatched on a class chosen at run time), so no call site
        # decides; the allowlist is this line.
        return dataclasses.replace(condition, role=Role.GATE, arch_terms=terms)
    if condition.kind is not SlotKind.ASSIGN:
        return condition
    targets = statement.targets if isinstance(statement, nodes.Assign) else []
    on_object = any(isinstance(t, nodes.AssignAttr) for t in targets)
    written_out = any(_written_out(t) for t in terms)
    if not (on_object or written_out):
        return condition
    return dataclasses.replace(condition, role=Role.GATE, arch_terms=terms)


def _written_out(term: nodes.NodeNG) -> bool:
    """A comparison, a string test against literals (`arch.startswith(("sm_10",
    "sm_12"))`), or `any` / `all` of a comparison over a comprehension (`any(c[0] in (10,
    12) for c in caps)`: the allowlist is written out as much as in `major in (10, 12)`).
    Not a predicate called with a number (`is_sm90 = is_device_capability(90)`): a name
    for it is an alias of predicates, combined where it is used (`not (is_sm90 or
    is_sm100)`), which is the row."""
    if isinstance(term, nodes.Compare):
        return True
    if string_test_receiver(term) is not None:
        return True
    return (
        isinstance(term, nodes.Call)
        and isinstance(term.func, nodes.Name)
        and term.func.name in ("any", "all")
        and len(term.args) == 1
        and not term.keywords
        and isinstance(term.args[0], (nodes.GeneratorExp, nodes.ListComp, nodes.SetComp))
        and isinstance(term.args[0].elt, nodes.Compare)
    )


def _decided_by_a_parameter(admission: Admission | None) -> bool:
    """The answer rests on a parameter taken to be the device's (conventions.
    parameter_by_convention: callers not resolved, a capability class or name)."""
    return admission is not None and any(is_parameter_assumption(a) for a in admission.assumed)


def _where(condition: ArchCondition) -> tuple[Path, int, int]:
    return condition.path, condition.line, int(condition.condition.col_offset or 0)


def run_audit(
    paths: Sequence[Path],
    ruleset: RuleSet,
    generation: str,
    *,
    columns: Sequence[str] | None = None,
    excludes: Sequence[str] = (),
    kernel_sources: Sequence[Path] = (),
    shortcuts: bool = True,
    debug: bool = False,
    only: Collection[Path] | None = None,
    record_reads: bool = False,
    on_open: Callable[[Project, Semantics], None] | None = None,
    jobs: int = 1,
) -> AuditReport:
    """`jobs`: processes evaluating the conditions (workers.py; the same report), 0 for
    one per core.
    `shortcuts=False` evaluates every generation in full (see Semantics): the same
    report, slower; for tests. `debug` re-raises an unexpected exception in one condition
    instead of diagnosing it. `only` limits the files whose conditions are looked for
    (every file still resolves names): `impact` audits the files a change can reach.
    `record_reads` puts in the report what each file's conditions read (`reads`);
    `on_open` is given the project and semantics before anything is evaluated (impact
    keeps the working tree's, and lays BASE over them: impact/overlay.py)."""
    with bulk_allocation():
        return _run_audit(
            paths,
            ruleset,
            generation,
            columns,
            excludes,
            kernel_sources,
            shortcuts,
            debug,
            only,
            record_reads,
            on_open,
            jobs,
        )


def _run_audit(
    paths: Sequence[Path],
    ruleset: RuleSet,
    generation: str,
    columns: Sequence[str] | None,
    excludes: Sequence[str],
    kernel_sources: Sequence[Path],
    shortcuts: bool,
    debug: bool,
    only: Collection[Path] | None = None,
    record_reads: bool = False,
    on_open: Callable[[Project, Semantics], None] | None = None,
    jobs: int = 1,
) -> AuditReport:
    project, _ = open_project(paths, excludes)
    project.freeze_built = True  # inside bulk_allocation (run_audit)
    if record_reads:
        project.read_log = ReadLog()
    contain = Containment(project.diagnostics, debug)
    registry = ruleset.registry
    vendor = registry.get(generation).vendor
    semantics = Semantics(
        project,
        registry,
        ruleset.vocabulary,
        shortcuts=shortcuts,
        follow_callers=True,
        assume_unset_environment=True,
    )
    if on_open is not None:
        on_open(project, semantics)
    only_paths = None if only is None else frozenset(only)
    modules = _arch_modules(project, only_paths)
    # Workers read the project as it is now; a read log (impact), a laid-over project
    # or --debug (an exception must reach this process) keep the run in one.
    if record_reads or on_open is not None or debug:
        jobs = 1
    elif jobs == 0:
        jobs = workers.default_jobs()
    widening = Widening(semantics, modules, contain, only_paths, jobs)
    progress.stage("evaluating conditions", len(modules))
    conditions = discover(
        project, semantics, modules, vendor, progress.advance, contain, jobs, more=widening
    )
    modules = widening.modules
    # Each class's own bound that a gate read once per class reads (class_bounds.py), and
    # each construction's value of a field a gate reads (construction_bounds.py).
    vendor_names = registry.vendor_names(vendor)
    conditions += [
        *class_bound_conditions(project, semantics, conditions, vendor_names, only_paths),
        *construction_bound_conditions(project, semantics, conditions, vendor_names, only_paths),
    ]
    # Tests constant over the registry are listed apart: no other row's evidence.
    constants = [c for c in conditions if c.role is Role.CONSTANT]
    conditions = [c for c in conditions if c.role is not Role.CONSTANT]
    progress.stage("classifying gates", None)
    hops = [c for c in conditions if c.role is Role.HOP]
    sites = _call_sites_by_gate(conditions)
    # Rule matching reads each module's own text and looks the rules' gate functions up
    # by module name: recorded as those names (shared_reads), for every file.
    with project.scanning():
        hop_roots: dict[int, list[ArchCondition]] = {}
        for root, passing in sites.items():
            for hop in passing:
                hop_roots.setdefault(id(hop), []).append(root)
        classifier = Classifier(
            project, semantics, ruleset, generation, conditions, modules, hop_roots
        )

    def classified(c: ArchCondition) -> AuditedGate | None:
        with reading_for(project, c.path):
            return contain.run(*_where(c), partial(_classify, c))

    def _classify(c: ArchCondition) -> AuditedGate | None:
        passing = sites.get(c, [])
        called = tuple(_call_site(h) for h in passing) + binding_sites(semantics, c, passing)
        return classifier.classify(c, called)

    # A device predicate's own test is listed too, where it tells the vendor's generations
    # apart in a function's body: that is where a fix goes (`def is_blackwell(): return
    # major == 10`); each use stays a row of its own.
    definitions = listed_definitions(conditions, semantics, registry.vendor_names(vendor))
    gate_conditions = [
        definitions.get(id(c), c) for c in conditions if c.role is Role.GATE or id(c) in definitions
    ]
    classes = _classified(project, semantics, gate_conditions, classified, jobs)
    # Conditions that only tell vendors apart are listed too (an architecture decision
    # all the same), in a class of their own: never a gap for GEN, whose vendor is all on
    # one side. Also one whose feature may be on everywhere because of an unknown operand
    # (`if use_ws and _is_hip: use_ws = False`, `if not _is_hip or x:`): the same
    # unknowns, another vendor, another outcome, as for any gate (conditions.varies).
    vendors = [c for c in conditions if c.role is Role.VENDOR]
    vendor_rows = [contain.run(*_where(c), partial(classifier.vendor_row, c)) for c in vendors]
    constant_rows = [
        contain.run(*_where(c), partial(classifier.constant_row, c)) for c in constants
    ]
    gates = [gate for gate in (*classes, *vendor_rows, *constant_rows) if gate is not None]
    catalog = KernelCatalog(registry, kernel_sources, project.roots)
    kernels = {
        feature.id: [catalog.support(k) for k in feature.kernels]
        for feature in ruleset.features
        if feature.kernels and any(g.feature == feature.id for g in gates)
    }
    report = AuditReport(
        generation,
        vendor,
        tuple(columns) if columns else default_columns(registry, generation),
        registry,
        hops=tuple(_call_site(h) for h in hops),
        vendor_gates=sum(1 for c in conditions if c.role is Role.VENDOR),
        predicate_definitions=sum(
            1 for c in conditions if c.role is Role.PREDICATE and id(c) not in definitions
        ),
        files=len(project.files),
        scanned=len(modules),
        kernels=kernels,
    )
    return dataclasses.replace(
        report,
        gates=tuple(order_gates([_with_kernel_reason(g, report) for g in gates])),
        diagnostics=tuple(project.diagnostics),
        parsed=tuple(sorted(project.parsed_paths())),
        searched_calls=tuple(sorted(semantics.searched_call_names())),
        device_names=tuple(sorted(widening.names | widening.present)),
        protocol_names=tuple(sorted(widening.protocols - widening.names)),
        quoted_names=tuple(sorted(widening.present - widening.names)),
        reads=() if project.read_log is None else project.read_log.results(),
        shared_reads=frozenset() if project.read_log is None else _gate_function_modules(ruleset),
    )


def _classified(
    project: Project,
    semantics: Semantics,
    conditions: Sequence[ArchCondition],
    classify: Callable[[ArchCondition], AuditedGate | None],
    jobs: int,
) -> list[AuditedGate | None]:
    """classify(c) of each condition, in order; with `jobs` > 1 and enough gates
    (workers.MIN_SHARE_GATES a process), taken from both ends by this process and
    workers forked now (a report row is plain data: it crosses processes), each
    worker's diagnostics replayed where the single-process run adds them."""
    processes = 1
    if jobs > 1 and forking.can_fork():
        processes = workers.plan([1] * len(conditions), jobs, workers.MIN_SHARE_GATES)
    if processes == 1:
        return [classify(c) for c in conditions]
    results: list[AuditedGate | None] = [None] * len(conditions)

    def here(index: int) -> None:
        results[index] = classify(conditions[index])

    task = partial(_classify_share, project, semantics, conditions, classify)
    outcomes, unbuildable, front = workers.claimed(
        project, semantics, len(conditions), processes, task, here
    )
    for index in range(front, len(conditions)):
        outcome = outcomes.get(index)
        if outcome is None:  # its worker failed: classified here
            results[index] = classify(conditions[index])
        else:
            workers.replay(project, outcome.diagnostics, unbuildable)
            results[index] = outcome.gate
    return results


def _classify_share(
    project: Project,
    semantics: Semantics,
    conditions: Sequence[ArchCondition],
    classify: Callable[[ArchCondition], AuditedGate | None],
    claims: workers.Claims,
) -> workers.Share[int, workers.ClassOutcome]:
    """A worker's task: classify each condition it claims from the back."""

    def answer(index: int) -> workers.ClassOutcome:
        before = len(project.diagnostics)
        gate = classify(conditions[index])
        return workers.ClassOutcome(gate, workers.added(project, before))

    return workers.answered(project, semantics, claims, answer)


def _gate_function_modules(ruleset: RuleSet) -> frozenset[str]:
    """The module names a rule's gate function is looked for under (every prefix of its
    dotted name, see gates/feature_gates.resolve_dotted_function)."""
    return frozenset(
        ".".join(parts[:n])
        for feature in ruleset.features
        for dotted in feature.gate_functions
        for parts in [dotted.split(".")]
        for n in range(1, len(parts))
    )


def _with_kernel_reason(gate: AuditedGate, report: AuditReport) -> AuditedGate:
    verdict = report.kernel_verdict(gate)
    if verdict is None:
        return gate
    built = "; ".join(f"{s.label} is built for {s.built_for}" for s in report.kernels[gate.feature])
    if verdict is KernelVerdict.NOT_BUILT:
        reason = f"kernels are not built for {report.generation}: {built}"
    elif verdict is KernelVerdict.BUILT:
        reason = f"kernels are built for {report.generation}: {built}"
    else:
        reason = f"kernel support unknown: {built}"
    return dataclasses.replace(gate, reasons=(*gate.reasons, reason))


def _arch_modules(project: Project, only: frozenset[Path] | None = None) -> list[nodes.Module]:
    progress.stage("reading files", len(project.files))
    paths: list[Path] = []
    for path in project.files:
        if only is not None and path not in only:
            progress.advance()
            continue
        progress.advance()
        # Read once for the run: the callers index reads every file's text again
        # (semantics/callers.py). Noted as nothing: the prefilter's reads are the cache's.
        with project.scanning():
            text = project.text_of(path)
        if text is None:
            project.module_at(path)  # records the diagnostic
            continue
        if mentions_arch(text):
            paths.append(path)
    progress.stage("building trees", len(paths))
    modules: list[nodes.Module] = []
    for path in paths:
        if (module := project.module_at(path, whole=True)) is not None:
            modules.append(module)
        progress.advance()
    return modules


def _call_site(condition: ArchCondition) -> CallSite:
    return CallSite(
        condition.path,
        condition.line,
        int(condition.condition.col_offset or 0),
        condition.qualname,
        condition_text(condition.condition),
        condition.admission.can_be_true,
        int(condition.condition.end_lineno or condition.line),
    )


def _call_sites_by_gate(
    conditions: Sequence[ArchCondition],
) -> dict[ArchCondition, list[ArchCondition]]:
    """Each hop under the gates it finally passes on (through hops of hops)."""
    providers: dict[str, list[ArchCondition]] = {}
    for c in conditions:
        if c.role in (Role.GATE, Role.HOP):
            for key in provided_keys(c):
                providers.setdefault(key, []).append(c)
    # Conditions compare by identity (eq=False): one key per condition found.
    sites: dict[ArchCondition, list[ArchCondition]] = {}
    for hop in (c for c in conditions if c.role is Role.HOP):
        for root in _roots(hop, providers):
            sites.setdefault(root, []).append(hop)
    return sites


def _roots(hop: ArchCondition, providers: dict[str, list[ArchCondition]]) -> list[ArchCondition]:
    roots: list[ArchCondition] = []
    seen: set[ArchCondition] = {hop}
    pending = [hop]
    while pending:
        current = pending.pop()
        for key in current.via:
            for provider in providers.get(key, []):
                if provider in seen:
                    continue
                seen.add(provider)
                (roots if provider.role is Role.GATE else pending).append(provider)
    return roots
