"""Fix failing gates: plan edits, apply them in memory, prove them safe by re-running the
same semantics on the edited code, and only then write (atomically)."""

from __future__ import annotations

import ast
import dataclasses
import difflib
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gatecheck.config.model import RuleSet
from gatecheck.engine import Analysis, GateResult, analyse
from gatecheck.findings import MISSING_GENERATION, Edit, Finding
from gatecheck.fixing.planner import Plan, Refusal, plan_fix
from gatecheck.fixing.text import OverlappingEdits, apply_edits, write_atomic
from gatecheck.fixing.wrap import wrap_long_lines


@dataclass(frozen=True)
class FileChange:
    path: Path
    before: bytes
    after: bytes
    encoding: str


@dataclass
class FixReport:
    fixed: list[tuple[Finding, Plan]] = field(default_factory=list)
    refused: list[tuple[Finding, str]] = field(default_factory=list)
    changes: dict[Path, FileChange] = field(default_factory=dict)
    not_written: list[tuple[Path, str]] = field(default_factory=list)

    def diff(self, display: dict[Path, str] | None = None) -> str:
        chunks: list[str] = []
        for path, change in sorted(self.changes.items()):
            name = (display or {}).get(path, str(path))
            codec = change.encoding.replace("-sig", "")
            before = change.before.decode(codec).splitlines(keepends=True)
            after = change.after.decode(codec).splitlines(keepends=True)
            chunks.extend(difflib.unified_diff(before, after, f"a/{name}", f"b/{name}"))
        return "".join(chunks)


@dataclass(frozen=True)
class _GateKey:
    feature: str
    qualname: str
    kind: str
    polarity: str
    ordinal: int


def _keyed(results: Iterable[GateResult]) -> dict[_GateKey, GateResult]:
    seen: dict[tuple[str, str, str, str], int] = defaultdict(int)
    keyed: dict[_GateKey, GateResult] = {}
    for result in results:
        base = (
            result.feature.id,
            result.gate.qualname,
            result.gate.kind.value,
            result.gate.polarity.value,
        )
        keyed[_GateKey(*base, seen[base])] = result
        seen[base] += 1
    return keyed


def plan_fixes(
    analysis: Analysis,
    ruleset: RuleSet,
    paths: Sequence[Path],
    *,
    features: Iterable[str] | None = None,
    generations: Iterable[str] | None = None,
    excludes: Sequence[str] = (),
    force: bool = False,
) -> FixReport:
    report = FixReport()
    by_file: dict[Path, list[tuple[Finding, GateResult, Plan]]] = defaultdict(list)
    for finding, result in analysis.failures:
        if finding.rule is not MISSING_GENERATION:
            report.refused.append((finding, "narrowing a gate is not automated; edit it by hand"))
            continue
        if finding.blocked_by_kernel and not force:
            report.refused.append(
                (finding, f"{finding.blocked_by_kernel} (use --force to widen anyway)")
            )
            continue
        plan = plan_fix(analysis, result)
        if isinstance(plan, Refusal):
            report.refused.append((finding, plan.reason))
        else:
            by_file[plan.path].append((finding, result, plan))
    rerun = _Rerun(ruleset, paths, features, generations, excludes)
    for path, planned in by_file.items():
        source = analysis.project.source(path)
        if source is None:
            continue
        accepted = _accept(analysis, rerun, path, source.raw, source.encoding, planned, report)
        if accepted is not None:
            after, kept = accepted
            report.changes[path] = FileChange(path, source.raw, after, source.encoding)
            report.fixed.extend((finding, plan) for finding, _result, plan in kept)
    return report


@dataclass(frozen=True)
class _Rerun:
    ruleset: RuleSet
    paths: Sequence[Path]
    features: Iterable[str] | None
    generations: Iterable[str] | None
    excludes: Sequence[str]

    def __call__(self, overrides: dict[Path, bytes]) -> Analysis:
        return analyse(
            self.paths,
            self.ruleset,
            features=self.features,
            generations=self.generations,
            excludes=self.excludes,
            overrides=overrides,
        )


def _accept(
    analysis: Analysis,
    rerun: _Rerun,
    path: Path,
    raw: bytes,
    encoding: str,
    planned: list[tuple[Finding, GateResult, Plan]],
    report: FixReport,
) -> tuple[bytes, list[tuple[Finding, GateResult, Plan]]] | None:
    """All plans for the file together if they verify; otherwise each one alone."""
    outcome = _try(analysis, rerun, path, raw, encoding, planned)
    if not isinstance(outcome, str):
        return outcome, planned
    if len(planned) == 1:
        report.refused.append((planned[0][0], outcome))
        return None
    kept: list[tuple[Finding, GateResult, Plan]] = []
    current = raw
    for item in planned:
        trial = _try(analysis, rerun, path, raw, encoding, [*kept, item])
        if isinstance(trial, str):
            report.refused.append((item[0], trial))
        else:
            kept.append(item)
            current = trial
    return (current, kept) if kept else None


def _try(
    analysis: Analysis,
    rerun: _Rerun,
    path: Path,
    raw: bytes,
    encoding: str,
    planned: list[tuple[Finding, GateResult, Plan]],
) -> bytes | str:
    edits: list[Edit] = []
    for _finding, _result, plan in planned:
        for edit in plan.edits:
            if edit not in edits:  # two gates may need the same import
                edits.append(edit)
    try:
        after = apply_edits(raw, edits, encoding)
    except OverlappingEdits as err:
        return f"fixes conflict in this file ({err})"
    after = wrap_long_lines(raw, after, encoding)
    try:
        ast.parse(after)  # bytes: the parser honours the BOM and coding cookie itself
    except SyntaxError as err:
        return f"the edit would not parse ({err.msg}); file left untouched"
    return _verify(analysis, rerun.__call__({path: after}), path, planned) or after


def _verify(
    before: Analysis,
    after: Analysis,
    path: Path,
    planned: list[tuple[Finding, GateResult, Plan]],
) -> str | None:
    """None when safe: every fixed gate now admits what it missed, and no gate in the
    file lost a generation or gained one beyond what the added predicates bring."""
    old = {k: r for k, r in _keyed(before.gate_results).items() if r.gate.path == path}
    new = {k: r for k, r in _keyed(after.gate_results).items() if r.gate.path == path}
    if set(old) != set(new):
        return "re-analysis found a different set of gates after the edit; file left untouched"
    allowed: set[str] = set()
    for _finding, _result, plan in planned:
        allowed |= plan.adds
    fixed_keys = {k for k, r in old.items() for _f, res, _p in planned if r is res}
    registry = before.semantics.registry
    for key, old_result in old.items():
        new_result = new[key]
        dropped = old_result.feature_admits - new_result.feature_admits
        if dropped:
            return (
                f"the edit would drop {', '.join(registry.ordered(dropped))}; file left untouched"
            )
        gained = new_result.feature_admits - old_result.feature_admits
        if key in fixed_keys:
            if new_result.missing:
                still = ", ".join(registry.ordered(new_result.missing))
                return f"after the edit the gate still excludes {still}; file left untouched"
            if gained - allowed:
                extra = ", ".join(registry.ordered(gained - allowed))
                return f"the edit would also admit {extra}; file left untouched"
        elif gained:
            return f"the edit would change another gate ({key.qualname}); file left untouched"
    return None


def write_changes(report: FixReport, roots: Sequence[Path]) -> None:
    """Write each verified change unless the file changed on disk since it was read, or
    it resolves outside the scanned roots."""
    resolved_roots = [r.resolve() for r in roots]
    for path, change in list(report.changes.items()):
        real = path.resolve()
        if not any(real == r or r in real.parents for r in resolved_roots):
            report.not_written.append((path, "outside the scanned root; not written"))
            continue
        try:
            current = path.read_bytes()
        except OSError as err:
            report.not_written.append((path, f"cannot re-read: {err.strerror}"))
            continue
        if current != change.before:
            report.not_written.append((path, "changed on disk since it was read; not written"))
            continue
        write_atomic(path, change.after)


def attach_fixes(
    findings: Sequence[Finding],
    report: FixReport,
    keep: Callable[[Finding], bool] = lambda _finding: True,
) -> list[Finding]:
    """Findings (those `keep` accepts) carrying their verified edits, for SARIF `fixes`,
    or the reason there are none."""
    planned = {finding.key: plan for finding, plan in report.fixed}
    refused = {finding.key: reason for finding, reason in report.refused}
    out: list[Finding] = []
    for finding in findings:
        if not keep(finding):
            continue
        plan = planned.get(finding.key)
        if plan is not None:
            out.append(dataclasses.replace(finding, edits=plan.edits, fix_note=plan.summary))
        elif finding.key in refused:
            out.append(
                dataclasses.replace(finding, fix_note=f"no automatic fix: {refused[finding.key]}")
            )
        else:
            out.append(finding)
    return out
