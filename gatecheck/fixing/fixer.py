"""Fix failing gates: plan edits, apply them in memory, prove them safe by re-running the
same semantics on the edited code, and only then write (atomically)."""

from __future__ import annotations

import ast
import dataclasses
import difflib
import os
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gatecheck import safe_io
from gatecheck.config.model import RuleSet
from gatecheck.engine import Analysis, GateResult, analyse
from gatecheck.findings import MISSING_GENERATION, Edit, Finding
from gatecheck.fixing.planner import Plan, Refusal, plan_fix
from gatecheck.fixing.text import OverlappingEdits, apply_edits
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
    written: list[Path] = field(default_factory=list)

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
    rerun: Callable[[dict[Path, bytes]], Analysis] | None = None,
) -> FixReport:
    """`rerun` re-analyses with some files' contents replaced (default: the same
    analysis of `paths` from disk); fix_source passes an in-memory one."""
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
        plan = plan_fix(analysis, result, force=force)
        if isinstance(plan, Refusal):
            report.refused.append((finding, plan.reason))
            continue
        if finding.blocked_by_kernel:
            # Widened on --force although the kernels are not built for it: say so.
            summary = f"{plan.summary} (--force: {finding.blocked_by_kernel})"
            plan = dataclasses.replace(plan, summary=summary)
        by_file[plan.path].append((finding, result, plan))
    rerun = rerun or _Rerun(ruleset, paths, features, generations, excludes)
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
    rerun: Callable[[dict[Path, bytes]], Analysis],
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
    rerun: Callable[[dict[Path, bytes]], Analysis],
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
    return _verify(analysis, rerun({path: after}), path, planned) or after


def _verify(
    before: Analysis,
    after: Analysis,
    path: Path,
    planned: list[tuple[Finding, GateResult, Plan]],
) -> str | None:
    """None when safe: every fixed gate now admits what it missed, and no gate lost a
    generation or gained one beyond what the added predicates bring. Every gate, not
    only the edited file's: the allowlist may be in a helper other modules call."""
    old = _keyed(before.gate_results)
    new = _keyed(after.gate_results)
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


def write_changes(report: FixReport, roots: Sequence[Path], *, force: bool = False) -> None:
    """Write the verified changes, all or nothing where the file system allows: every new
    content is first written to a temporary file beside its target, and only when all of
    them are on disk is each swapped in (compare-and-swap on the content read). A file is
    not written when it resolves outside the scanned roots, changed on disk since it was
    read, has several hard links or is read-only (the last two unless `force`); each
    reason lands in `report.not_written`, and nothing here raises for a file."""
    resolved_roots = [r.resolve() for r in roots]
    wanted: list[tuple[Path, Path, FileChange]] = []
    for path, change in sorted(report.changes.items()):
        # Through a link inside the roots, rewrite its target: renaming over the link
        # would turn it into a copy and leave the real file unfixed.
        real = path.resolve()
        if not any(real == r or r in real.parents for r in resolved_roots):
            report.not_written.append((path, "outside the scanned root; not written"))
            continue
        why = _why_not_writable(real, change, force)
        if why is not None:
            report.not_written.append((path, why))
            continue
        wanted.append((path, real, change))
    started = time.time_ns()
    for folder in sorted({real.parent for _path, real, _change in wanted}):
        safe_io.remove_stale_temporaries(folder, started)  # left by a run that was killed
    staged: list[tuple[Path, safe_io.Staged]] = []
    for path, real, change in wanted:
        try:
            staged.append((path, safe_io.stage(real, change.after, safe_io.digest(change.before))))
        except OSError as err:
            for _path, done in staged:
                done.discard()
            report.not_written.append((path, f"cannot write: {err.strerror or err}; not written"))
            failed = path
            for other, _real, _change in wanted:
                if other != failed:
                    why = f"not written either: {failed.name} could not be (all or nothing)"
                    report.not_written.append((other, why))
            return
    for path, item in staged:
        try:
            item.commit()
        except OSError as err:
            item.discard()
            report.not_written.append((path, f"{err.strerror or err}; not written"))
        else:
            report.written.append(path)


def _why_not_writable(real: Path, change: FileChange, force: bool) -> str | None:
    try:
        fd, info = safe_io.open_regular(real, follow=False)
        try:
            current = safe_io.read_fd(fd, real, safe_io.SOURCE_BYTES)
        finally:
            os.close(fd)
    except OSError as err:
        return f"cannot re-read: {err.strerror or err}; not written"
    if current != change.before:
        return "changed on disk since it was read; not written"
    problem = None if force else safe_io.unwritable(real, info)
    if problem is not None:
        return f"{problem}; not written (use --force to write it anyway)"
    return None


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
