"""The check pipeline without any I/O policy: discover -> load -> gates -> semantics ->
findings. The CLI and reporters sit on top; this module imports neither."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path

from astroid import nodes

from gatecheck.config.model import Feature, RuleSet
from gatecheck.containment import Containment, bound_hit, internal_error
from gatecheck.discovery import Discovery, discover
from gatecheck.findings import MISSING_GENERATION, Finding, Hop, HopKind, Position
from gatecheck.gates.declared import declared_admission, declared_list
from gatecheck.gates.feature_gates import find_feature_gates, mentions
from gatecheck.gates.mentions import feature_needles, mentions_any
from gatecheck.gates.model import Gate, GateKind, Polarity, qualname_of
from gatecheck.gates.results import Analysis, GateResult, flag_assumptions
from gatecheck.kernels.checks import (
    KernelCatalog,
    built_generations,
    feature_kernels,
    unbuilt_finding,
    with_kernel_block,
)
from gatecheck.kernels.support import KernelSupport
from gatecheck.loading.prescan import PendingScan, TextScan
from gatecheck.loading.project import Project, bulk_allocation
from gatecheck.semantics.admitted import Admission, Semantics
from gatecheck.semantics.culprit import behind, culprit
from gatecheck.semantics.predicates import ScopePredicate, module_predicates
from gatecheck.tracing.paths import ActivationPath, build_path

__all__ = ["Analysis", "GateResult", "analyse", "flag_assumptions", "open_project"]


def open_project(
    paths: Sequence[Path],
    excludes: Sequence[str] = (),
    overrides: Mapping[Path, bytes] | None = None,
    found: Discovery | None = None,
) -> tuple[Project, Discovery]:
    """`found`: the walk of `paths` with `excludes`, when the caller has made it already
    (the cache's key and validation need it first: one walk of the tree, not two)."""
    if found is None:
        found = discover(paths, excludes)
    return Project(found.files, found.roots, overrides), found


def analyse(
    paths: Sequence[Path],
    ruleset: RuleSet,
    *,
    features: Iterable[str] | None = None,
    generations: Iterable[str] | None = None,
    excludes: Sequence[str] = (),
    overrides: Mapping[Path, bytes] | None = None,
    kernel_sources: Sequence[Path] = (),
    debug: bool = False,
    found: Discovery | None = None,
    scan: PendingScan | None = None,
) -> Analysis:
    """`debug` re-raises an unexpected exception in one condition instead of diagnosing it.
    `found`: discover(paths, excludes), when the caller has it; `scan`: a scan of its
    files (loading/prescan.py) the caller started, for the feature needles and more."""
    with bulk_allocation():
        return _analyse(
            paths,
            ruleset,
            features,
            generations,
            excludes,
            overrides,
            kernel_sources,
            debug,
            found,
            scan,
        )


def _analyse(
    paths: Sequence[Path],
    ruleset: RuleSet,
    features: Iterable[str] | None,
    generations: Iterable[str] | None,
    excludes: Sequence[str],
    overrides: Mapping[Path, bytes] | None,
    kernel_sources: Sequence[Path],
    debug: bool,
    walked: Discovery | None,
    scan: PendingScan | None,
) -> Analysis:
    project, found = open_project(paths, excludes, overrides, walked)
    project.freeze_built = True  # inside bulk_allocation (analyse)
    semantics = Semantics(project, ruleset.registry, ruleset.vocabulary)
    contain = Containment(project.diagnostics, debug)
    base = Analysis(project, semantics, found)
    wanted = set(features) if features is not None else None
    selected = [f for f in ruleset.features if wanted is None or f.id in wanted]
    texts = _prefilter_texts(project, selected, None if scan is None else scan.result())
    catalog = KernelCatalog(ruleset.registry, kernel_sources, project.roots)
    gate_results: list[GateResult] = []
    kernels: dict[str, list[KernelSupport]] = {}
    failures: list[tuple[Finding, GateResult]] = []
    for feature in selected:
        modules = [
            m
            for path, text in texts.items()
            if mentions(text, feature) and (m := project.module_at(path)) is not None
        ]
        results: list[GateResult] = []
        for gate in find_feature_gates(project, feature, modules):
            result = contain.run(
                *_where(gate), partial(_evaluated, semantics, feature, gate, generations)
            )
            if result is not None:
                results.append(result)
        gate_results.extend(results)
        supports = feature_kernels(base, feature, results, catalog)
        if supports:
            kernels[feature.id] = supports
        built = built_generations(supports)
        for result in results:
            failures.extend(
                contain.run(
                    *_where(result.gate),
                    partial(_findings, semantics, ruleset, result, supports, built),
                )
                or ()
            )
    evaluated = dataclasses.replace(base, gate_results=tuple(gate_results), kernels=kernels)
    failing = {f.feature for f, _ in failures}
    feature_paths = {
        feature.id: path
        for feature in selected
        if feature.id in failing
        and (path := _activation_path(evaluated, feature, contain)) is not None
    }
    # Each finding carries its own route (options, fields, its gate and its callers); the
    # feature's whole path is stored once, in the analysis' `paths`.
    # The allowlist hops a finding was moved along stay after its route.
    failures = [
        (dataclasses.replace(f, hops=(*feature_paths[f.feature].route(r), *_followed(f))), r)
        if f.feature in feature_paths
        else (f, r)
        for f, r in failures
    ]
    failures.sort(key=lambda pair: (str(pair[0].path), pair[0].start, pair[0].feature))
    return dataclasses.replace(
        evaluated,
        failures=tuple(failures),
        findings=tuple(f for f, _ in failures),
        paths={feature: tuple(path.hops()) for feature, path in feature_paths.items()},
    )


def _followed(finding: Finding) -> tuple[Hop, ...]:
    return tuple(h for h in finding.hops if h.kind is HopKind.ALLOWLIST)


def _where(gate: Gate) -> tuple[Path, int, int]:
    return gate.path, gate.line, int(gate.condition.col_offset or 0)


def _evaluated(
    semantics: Semantics, feature: Feature, gate: Gate, generations: Iterable[str] | None
) -> GateResult | None:
    admission = _admission(semantics, feature, gate)
    if admission is None:
        return None
    result = gate_result(semantics, feature, gate, admission, generations)
    if result is None and admission.bounds:
        bound_hit(
            semantics.project.diagnostics,
            _where(gate),
            gate.condition.as_string(),
            admission.bounds,
            f"whether it is a gate of '{feature.id}' is unknown",
        )
    # Every view renders the condition: one that cannot be is diagnosed here.
    gate.condition.as_string()
    return result


def _findings(
    semantics: Semantics,
    ruleset: RuleSet,
    result: GateResult,
    supports: Sequence[KernelSupport],
    built: frozenset[str] | None,
) -> list[tuple[Finding, GateResult]]:
    """The gate's findings: a missing generation (GC001), a generation its kernels are not
    built for (GC002)."""
    out: list[tuple[Finding, GateResult]] = []
    if result.missing:
        finding = make_finding(semantics, result)
        blocked = with_kernel_block(ruleset.registry, finding, result, supports, built)
        out.append((blocked, result))
    if built is not None:
        unbuilt = unbuilt_finding(semantics, result, supports, built)
        if unbuilt is not None:
            out.append((unbuilt, result))
    return out


def _prefilter_texts(
    project: Project, features: Sequence[Feature], scan: TextScan | None = None
) -> dict[Path, str]:
    """The texts of the files mentioning a feature. `scan`: this run's scan of every file,
    which answered for the feature needles (and more, offered to later searches): only
    the files it found are read here."""
    needles = feature_needles(features)
    if scan is not None and scan.files != project.files:
        scan = None  # made of other files: not this project's
    holding = None if scan is None else scan.files_holding(needles)
    texts: dict[Path, str] = {}
    if scan is None or holding is None:
        mentioned = mentions_any(features)
        for path in project.files:
            text = project.text_of(path)
            if text is None:
                project.module_at(path)  # records the diagnostic
                continue
            if mentioned(text):
                texts[path] = text
    else:
        project.offer(scan)
        for path in scan.unreadable_files():
            project.module_at(path)
        for path in holding:
            text = project.text_of(path)
            if text is None:  # unreadable since the scan
                project.module_at(path)
                continue
            texts[path] = text
    # A later search for a name holding one of these (a gate function's callers) reads
    # only these files.
    project.remember_mentioning(needles, texts)
    return texts


def _activation_path(
    analysis: Analysis, feature: Feature, contain: Containment
) -> ActivationPath | None:
    """The feature's activation path (option, field, gates and the gate functions' direct
    callers), for SARIF codeFlows and the JSON report. None when it cannot be built: the
    feature's findings keep their own hop."""
    try:
        return build_path(analysis, feature, caller_depth=1)
    except RecursionError:  # a gate too deeply nested to render
        return None
    except Exception as err:  # contained: the feature's findings are still reported
        if contain.debug:
            raise
        first = next(r for r in analysis.gate_results if r.feature.id == feature.id)
        contain.diagnostics.append(internal_error(*_where(first.gate), err))
        return None


def evaluate_gate(
    semantics: Semantics,
    feature: Feature,
    gate: Gate,
    generations: Iterable[str] | None = None,
) -> GateResult | None:
    admission = _admission(semantics, feature, gate)
    if admission is None:
        return None
    return gate_result(semantics, feature, gate, admission, generations)


def _admission(semantics: Semantics, feature: Feature, gate: Gate) -> Admission | None:
    """What the gate's condition admits; a declaration's list admits what it names
    (None: the list is not one of generations, no gate)."""
    if gate.kind is GateKind.DECLARATION:
        return declared_admission(semantics, gate)
    return semantics.admission(gate.condition, flag_assumptions(feature, gate.polarity))


def gate_result(
    semantics: Semantics,
    feature: Feature,
    gate: Gate,
    admission: Admission,
    generations: Iterable[str] | None = None,
) -> GateResult | None:
    """The gate's result from its condition's admission (None: not arch-dependent)."""
    if not semantics.is_arch_dependent(admission):
        return None  # mentions no arch term: not a gate
    feature_admits = (
        admission.can_be_true if gate.polarity is Polarity.ENABLES else admission.can_be_false
    )
    required = set(feature.require)
    if generations is not None:
        required &= set(generations)
    missing = frozenset(required - feature_admits - set(feature.exclude))
    return GateResult(feature, gate, admission, feature_admits, missing)


def make_finding(semantics: Semantics, result: GateResult) -> Finding:
    gate, feature = result.gate, result.feature
    registry = semantics.registry
    first_missing = registry.ordered(result.missing)[0]
    evaluator = semantics.evaluator(first_missing, flag_assumptions(feature, gate.polarity))
    blocking = culprit(gate.condition, evaluator, needs=gate.polarity is Polarity.ENABLES)
    # A local name or argument-less helper: the finding (and its fix) is at the allowlist
    # behind it, possibly in another module; the gate stays on the path as the caller.
    chain = behind(evaluator, blocking) if gate.polarity is Polarity.ENABLES else (blocking,)
    if gate.kind is GateKind.DECLARATION:
        # A constant list named by the declaration: the finding is where it is written.
        listed = declared_list(gate.condition)
        chain = (gate.condition, listed) if listed is not gate.condition else (gate.condition,)
    at = chain[-1]
    missing_text = ", ".join(registry.ordered(result.missing))
    # Said within the vendors the feature requires: CUDA-only code is not said to admit gfx90a.
    vendors = {registry.get(g).vendor for g in (result.feature.require or result.missing)}
    in_scope = {g for g in result.feature_admits if registry.get(g).vendor in vendors}
    admits_text = ", ".join(registry.ordered(in_scope)) or "no generation"
    verb = "admits" if gate.polarity is Polarity.ENABLES else "lets the feature through on"
    message = (
        f"{gate.kind.value} gate of '{feature.id}' excludes required {missing_text}: "
        f"it {verb} only {admits_text}"
    )
    notes: list[str] = []
    module = gate.condition.root()
    available: list[ScopePredicate] = []
    if gate.kind is GateKind.DECLARATION:
        notes.append(
            "a declaration of what the code is built for: add a generation only when the "
            "kernel is built for it (--fix widens it only with --force)"
        )
    elif isinstance(module, nodes.Module):
        candidates = [p for p in module_predicates(module, semantics) if p.admits & result.missing]

        # Prefer the predicates that add least beyond what is missing.
        def extra(p: ScopePredicate) -> int:
            return len(p.admits - result.missing - result.feature_admits)

        least = min((extra(p) for p in candidates), default=0)
        available = [p for p in candidates if extra(p) == least]
    for predicate in available:
        where = {"import": "imported", "def": "defined", "alias": "defined"}[predicate.origin]
        usage = f"{predicate.name}()" if predicate.form == "call" else predicate.name
        covers = ", ".join(registry.ordered(predicate.admits & result.missing))
        notes.append(
            f"'{predicate.name}' is already {where} in this module (line {predicate.line}) "
            f"and admits {covers}, but the gate does not use it: add `{usage}`"
        )
    if result.admission.assumed:
        notes.append(
            "partly assumed from names (no readable body): "
            + "; ".join(sorted(result.admission.assumed))
        )
    if result.admission.bounds:
        notes.append(
            "evaluation stopped at a bound, so the gate may admit more than said: "
            + "; ".join(sorted(result.admission.bounds))
        )
    hop = Hop(
        gate.path,
        gate.line,
        gate.qualname,
        HopKind.of(gate.kind),
        gate.condition.as_string(),
        result.feature_admits,
        int(gate.condition.col_offset or 0),
    )
    followed = tuple(
        Hop(
            _file_of(node, gate.path),
            int(node.lineno or 1),
            qualname_of(node),
            HopKind.ALLOWLIST,
            node.as_string(),
            result.feature_admits,
            int(node.col_offset or 0),
        )
        for node in chain[1:]
    )
    return Finding(
        rule=MISSING_GENERATION,
        path=_file_of(at, gate.path),
        start=Position(int(at.lineno or 1), int(at.col_offset or 0)),
        end=Position(int(at.end_lineno or at.lineno or 1), int(at.end_col_offset or 0)),
        feature=feature.id,
        message=message,
        required=frozenset(feature.require),
        admitted=result.feature_admits,
        missing=result.missing,
        gate_kind=gate.kind,
        polarity=gate.polarity,
        qualname=gate.qualname,
        condition=gate.condition.as_string(),
        culprit=at.as_string(),
        notes=tuple(notes),
        assumed=tuple(sorted(result.admission.assumed)),
        hops=(hop, *followed),
    )


def _file_of(node: nodes.NodeNG, default: Path) -> Path:
    root = node.root()
    return Path(root.file) if isinstance(root, nodes.Module) and root.file else default
