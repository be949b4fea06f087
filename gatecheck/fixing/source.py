"""`fix_source(source) -> str`: the fixer as a pure function, no disk (pyupgrade's
`_fix_plugins` shape), for tests and for users scripting gatecheck. The source is a
module `gate` beside any helper modules given by dotted name, all in memory; the same
planner, edit applier, wrapper and re-analysis check as `check --fix` run on it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gatecheck.config.loader import load_registry
from gatecheck.config.model import Feature, Registry, RuleSet
from gatecheck.discovery import Discovery
from gatecheck.engine import evaluate_gate, make_finding
from gatecheck.findings import Finding
from gatecheck.fixing.fixer import FixReport, plan_fixes
from gatecheck.gates.feature_gates import find_feature_gates, mentions
from gatecheck.gates.results import Analysis, GateResult
from gatecheck.loading.project import Project
from gatecheck.semantics.admitted import Semantics

# A root no real file is under: every module is an in-memory override.
_ROOT = Path("/<memory>")

FAST_PATH = Feature(
    id="fast-path",
    description="a fast path",
    flags=("go",),
    gate_functions=(),
    require=frozenset({"sm90", "sm100", "sm120"}),
)


@dataclass(frozen=True)
class SourceFix:
    text: str
    fixed: tuple[str, ...]  # each fix's summary
    refused: tuple[str, ...]  # each refusal's reason
    # Every module the fixes edited (a helper's allowlist may be in another), by name.
    changed: Mapping[str, str] = field(default_factory=dict)


def fix_source(
    source: str,
    feature: Feature = FAST_PATH,
    *,
    modules: Mapping[str, str] | None = None,
    force: bool = False,
    registry: Registry | None = None,
) -> str:
    """`source` with every failing gate of `feature` fixed (unchanged when refused)."""
    return fix_source_report(source, feature, modules=modules, force=force, registry=registry).text


def fix_source_report(
    source: str,
    feature: Feature = FAST_PATH,
    *,
    modules: Mapping[str, str] | None = None,
    force: bool = False,
    registry: Registry | None = None,
) -> SourceFix:
    files = {"gate": source, **dict(modules or {})}
    contents = {memory_path(name): text.encode("utf-8") for name, text in files.items()}
    for package in {name.rsplit(".", 1)[0] for name in files if "." in name}:
        contents.setdefault(memory_path(package, package=True), b"")
    ruleset = RuleSet(registry or load_registry(), (feature,))
    analysis = analyse_in_memory(contents, ruleset)
    report = plan_fixes(
        analysis,
        ruleset,
        [_ROOT],
        force=force,
        rerun=lambda overrides: analyse_in_memory({**contents, **overrides}, ruleset),
    )
    names = {memory_path(name): name for name in files}
    changed = {names[path]: c.after.decode("utf-8") for path, c in report.changes.items()}
    return SourceFix(changed.get("gate", source), *_summaries(report), changed)


def _summaries(report: FixReport) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return (
        tuple(plan.summary for _finding, plan in report.fixed),
        tuple(reason for _finding, reason in report.refused),
    )


def memory_path(dotted: str, package: bool = False) -> Path:
    """Where the in-memory module `dotted` lives."""
    parts = dotted.split(".")
    return (
        _ROOT.joinpath(*parts, "__init__.py")
        if package
        else _ROOT.joinpath(*parts[:-1], f"{parts[-1]}.py")
    )


def analyse_in_memory(contents: Mapping[Path, bytes], ruleset: RuleSet) -> Analysis:
    """The check pipeline's gate steps (find gates, evaluate, make findings) over files
    that exist only in memory. Kernel-aware checks and activation paths need real
    installed packages and are left out."""
    files = tuple(sorted(contents))
    project = Project(files, (_ROOT,), contents)
    semantics = Semantics(project, ruleset.registry, ruleset.vocabulary)
    gate_results: list[GateResult] = []
    failures: list[tuple[Finding, GateResult]] = []
    for feature in ruleset.features:
        modules = [
            module
            for path in files
            if mentions(project.text_of(path) or "", feature)
            and (module := project.module_at(path)) is not None
        ]
        for gate in find_feature_gates(project, feature, modules):
            result = evaluate_gate(semantics, feature, gate)
            if result is None:
                continue
            gate_results.append(result)
            if result.missing:
                failures.append((make_finding(semantics, result), result))
    # Built once: Analysis is frozen (its views are new Analyses).
    return Analysis(
        project,
        semantics,
        Discovery((_ROOT,), files),
        gate_results=tuple(gate_results),
        findings=tuple(finding for finding, _result in failures),
        failures=tuple(failures),
    )
