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

from astroid import nodes

from gatecheck import safe_io
from gatecheck.config.model import Registry, RuleSet
from gatecheck.engine import Analysis, GateResult, analyse
from gatecheck.findings import MISSING_GENERATION, Edit, Finding
from gatecheck.fixing.planner import Plan, Refusal, plan_fix
from gatecheck.fixing.text import OverlappingEdits, RawText, apply_edits
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
    """All plans for the file together if they verify; otherwise each one judged by the
    same shared re-analysis when that can tell them apart (_shared), else each one
    alone, in order, on top of the ones kept so far."""
    together = _edited(raw, encoding, planned)
    if not isinstance(together, str):
        after = rerun({path: together})
        outcome = _verify(analysis, after, path, planned)
        if outcome is None:
            return together, planned
        if len(planned) == 1:
            report.refused.append((planned[0][0], outcome))
            return None
        shared = _shared(analysis, after, path, raw, planned)
        if shared is not None:
            kept = [item for item, why in zip(planned, shared, strict=True) if why is None]
            confirmed = _try(analysis, rerun, path, raw, encoding, kept) if kept else None
            if not isinstance(confirmed, str):
                for item, why in zip(planned, shared, strict=True):
                    if why is not None:
                        report.refused.append((item[0], why))
                return (confirmed, kept) if confirmed is not None else None
    elif len(planned) == 1:
        report.refused.append((planned[0][0], together))
        return None
    kept = []
    current = raw
    for item in planned:
        trial = _try(analysis, rerun, path, raw, encoding, [*kept, item])
        if isinstance(trial, str):
            report.refused.append((item[0], trial))
        else:
            kept.append(item)
            current = trial
    return (current, kept) if kept else None


def _edited(
    raw: bytes, encoding: str, planned: list[tuple[Finding, GateResult, Plan]]
) -> bytes | str:
    """The file with the plans' edits applied and long lines wrapped, or why not."""
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
    return after


def _try(
    analysis: Analysis,
    rerun: Callable[[dict[Path, bytes]], Analysis],
    path: Path,
    raw: bytes,
    encoding: str,
    planned: list[tuple[Finding, GateResult, Plan]],
) -> bytes | str:
    after = _edited(raw, encoding, planned)
    if isinstance(after, str):
        return after
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
    allowed: frozenset[str] = frozenset()
    for _finding, _result, plan in planned:
        allowed |= plan.adds
    fixed = {id(result) for _finding, result, _plan in planned}
    registry = before.semantics.registry
    for key, old_result in old.items():
        problem = _problem(registry, key, old_result, new[key], id(old_result) in fixed, allowed)
        if problem is not None:
            return problem
    return None


def _problem(
    registry: Registry,
    key: _GateKey,
    old: GateResult,
    new: GateResult,
    fixed: bool,
    allowed: frozenset[str],
) -> str | None:
    """What is wrong with one gate after the edit (None: nothing): `fixed` says whether
    it is one the edit fixes, `allowed` what a fixed gate may gain."""
    dropped = old.feature_admits - new.feature_admits
    if dropped:
        return f"the edit would drop {', '.join(registry.ordered(dropped))}; file left untouched"
    gained = new.feature_admits - old.feature_admits
    if fixed:
        if new.missing:
            still = ", ".join(registry.ordered(new.missing))
            return f"after the edit the gate still excludes {still}; file left untouched"
        if gained - allowed:
            extra = ", ".join(registry.ordered(gained - allowed))
            return f"the edit would also admit {extra}; file left untouched"
    elif gained:
        return f"the edit would change another gate ({key.qualname}); file left untouched"
    return None


def _shared(
    before: Analysis,
    after: Analysis,
    path: Path,
    raw: bytes,
    planned: list[tuple[Finding, GateResult, Plan]],
) -> list[str | None] | None:
    """Each plan's verdict read off the one re-analysis of all of them together (None for
    a plan: it verifies), where that verdict is the one it gets alone: when every plan
    edits only its own gate's `if`/`while`/`assert` test, no other gate's condition
    overlaps those edits, and no gate without a plan changed. Otherwise None: the plans
    are tried one by one. (1,000 failing gates in a file cost 1,000 re-analyses that way;
    the plans kept are re-verified together by the caller before anything is written.)"""
    old = _keyed(before.gate_results)
    new = _keyed(after.gate_results)
    if set(old) != set(new):
        return None
    spans = _condition_spans(before, path, raw)
    key_of = {id(result): key for key, result in old.items()}
    owner: dict[_GateKey, int] = {}
    for index, (_finding, result, plan) in enumerate(planned):
        key = key_of.get(id(result))
        if key is None or key in owner or not _contained(result, plan, path, spans):
            return None
        owner[key] = index
    registry = before.semantics.registry
    every: frozenset[str] = frozenset()
    for _finding, _result, plan in planned:
        every |= plan.adds
    verdicts: list[str | None] = [None] * len(planned)
    for key, old_result in old.items():
        at = owner.get(key)
        if at is None:
            if new[key].feature_admits != old_result.feature_admits:
                return None  # an edit reached a gate it does not own
            continue
        alone = _problem(registry, key, old_result, new[key], True, planned[at][2].adds)
        if alone != _problem(registry, key, old_result, new[key], True, every):
            return None  # it gains what only another plan brings: order matters
        verdicts[at] = alone
    return verdicts


def _condition_spans(analysis: Analysis, path: Path, raw: bytes) -> dict[int, tuple[int, int]]:
    """Byte span of each gate condition in `path`, by the id of its result."""
    source = analysis.project.source(path)
    if source is None:
        return {}
    text = RawText(path, raw, source.encoding)
    spans: dict[int, tuple[int, int]] = {}
    for result in analysis.gate_results:
        condition = result.gate.condition
        if result.gate.path != path or condition.end_lineno is None:
            continue
        start = text.offset(condition.lineno, condition.col_offset)
        spans[id(result)] = (start, text.offset(condition.end_lineno, condition.end_col_offset))
    return spans


def _contained(
    result: GateResult, plan: Plan, path: Path, spans: dict[int, tuple[int, int]]
) -> bool:
    """Does the plan edit only its own gate's test, a test whose value nothing stores
    (an `if`, `while` or `assert`; not a `return`, an assignment or a conditional
    expression, which other gates read), with no other gate's condition overlapping?"""
    gate = result.gate
    statement = gate.statement
    if not isinstance(statement, (nodes.If, nodes.While, nodes.Assert)):
        return False
    if gate.condition is not statement.test or any(
        True for _ in gate.condition.nodes_of_class(nodes.NamedExpr)
    ):
        return False
    span = spans.get(id(result))
    if span is None or plan.path != path:
        return False
    start, end = span
    if not all(e.path == path and start <= e.start <= e.end <= end for e in plan.edits):
        return False
    return not any(
        other != id(result) and o_start <= end and start <= o_end
        for other, (o_start, o_end) in spans.items()
    )


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
