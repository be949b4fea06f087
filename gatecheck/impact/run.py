"""`impact` as the application runs it: find BASE, export its files, audit both sides
(through the caller's audit: the CLI's goes through the cache), compare. No click.

Two ways to audit less than both sides whole. A change that reaches few files by their
imports (scope.py) has only those audited, on both sides at once. A change past that
budget (a module much of the tree imports) has the working tree audited whole, recording
what each file's conditions read, and BASE only where that meets the change (reuse.py):
the working tree answers for the rest of both sides."""

from __future__ import annotations

import dataclasses
import enum
import gc
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from gatecheck.audit.prefilter import mentions_arch
from gatecheck.audit.report import AuditedGate, AuditReport, compared_use
from gatecheck.audit.widening import asked_by_spelling, spelling
from gatecheck.config.model import Registry
from gatecheck.discovery import Discovery, discover
from gatecheck.impact.compare import compare_reports
from gatecheck.impact.model import ImpactReport
from gatecheck.impact.overlay import Kept, laid_over
from gatecheck.impact.parallel import both, can_fork, spare_cores, speculated
from gatecheck.impact.reuse import Change, dirty_files, everything_moves, hop_files
from gatecheck.impact.scope import changed_calls, changed_names, reached_files
from gatecheck.impact.snapshot import (
    Base,
    BaseError,
    BaseFiles,
    changed_paths,
    resolve_base,
    toplevel,
)
from gatecheck.loading.project import (
    FileDiagnostic,
    ModuleNamer,
    Project,
    bulk_allocation,
    read_source,
)
from gatecheck.loading.readlog import FileReads
from gatecheck.safe_io import SOURCE_BYTES, read_regular

if TYPE_CHECKING:
    from gatecheck.semantics.admitted import Semantics


OnOpen = Callable[[Project, "Semantics"], None]


class Audit(Protocol):
    """(targets, only: the files whose gates are wanted, None for all; record_reads: put
    what each file's conditions read in the report; on_open: run_audit's, given the
    project and semantics when they are made, not when the answer is read back from
    a cache; laid_over: on_open makes the project something else than the files on
    disk, never cached) -> the audit."""

    def __call__(
        self,
        targets: Sequence[Path],
        only: Sequence[Path] | None,
        /,
        *,
        record_reads: bool = False,
        on_open: OnOpen | None = None,
        laid_over: bool = False,
    ) -> AuditReport: ...


class Strategy(enum.Enum):
    """How little is audited: `AUTO` takes REACH within scope.py's budget, else REUSE."""

    AUTO = "auto"
    REACH = "reach"  # the files the change reaches by imports, both sides (scope.py)
    REUSE = "reuse"  # the working tree whole, BASE where its reads meet the change
    WHOLE = "whole"  # both sides whole


def run_impact(
    targets: Sequence[Path],
    base_ref: str | None,
    audit: Audit,
    registry: Registry,
    generation: str,
    *,
    excludes: Sequence[str] = (),
    keep_in: Path | None = None,
    parallel: bool = True,
    strategy: Strategy = Strategy.AUTO,
    speculate: bool | None = None,
) -> ImpactReport:
    """`keep_in` (the cache folder) keeps BASE's exported files for the next run;
    `parallel` audits the two sides at once (see parallel.py) where they do not depend
    on each other; `strategy`: see Strategy (every one gives the same issues);
    `speculate`: AUTO starts the reused audit while reach decides (None: with `parallel`
    and a core to spare)."""
    targets = [target.resolve() for target in targets]
    top = toplevel(targets[0] if targets[0].is_dir() else targets[0].parent)
    within = [_inside(top, target) for target in targets]
    base = resolve_base(top, base_ref)
    vendor = registry.get(generation).vendor
    prefixes = [] if "" in within else within  # none: the whole work tree
    changed = [
        top / name
        for name in changed_paths(top, base.commit)
        if name.endswith(".py") and (not prefixes or any(_under(name, p) for p in prefixes))
    ]
    if not changed:
        return _nothing(base.label, base.commit, generation, vendor, registry)
    found = discover(targets, excludes)
    # Only what the audit reads (no cache folder, no --exclude'd file), and deleted files.
    scanned = set(found.files)
    changed = [path for path in changed if path in scanned or not path.exists()]
    if not changed:
        return _nothing(base.label, base.commit, generation, vendor, registry)
    # Trees are built once and kept to the end, through both sides' audits: the garbage
    # collector is kept off them until then (see bulk_allocation).
    with bulk_allocation():
        return _compared(
            top,
            within,
            base,
            found,
            changed,
            audit,
            registry,
            generation,
            keep_in,
            parallel,
            strategy,
            targets,
            (None if parallel else False) if speculate is None else speculate,
        )


def _compared(
    top: Path,
    within: Sequence[str],
    base: Base,
    found: Discovery,
    changed: Sequence[Path],
    audit: Audit,
    registry: Registry,
    generation: str,
    keep_in: Path | None,
    parallel: bool,
    strategy: Strategy,
    targets: Sequence[Path],
    speculate: bool | None,
) -> ImpactReport:
    vendor = registry.get(generation).vendor
    scanned = set(found.files)
    # BASE's changed files now; all of BASE only if it is audited from disk.
    base_files = BaseFiles(
        top,
        base.commit,
        [] if "" in within else within,
        keep_in,
        [path.relative_to(top).as_posix() for path in changed],
    )

    def at_base(path: Path) -> Path:
        return base_files.file(path.relative_to(top).as_posix())

    def audit_base(only: Sequence[Path] | None, record_reads: bool = False) -> AuditReport:
        tree = base_files.tree()
        base_targets = [tree / w for w in within if (tree / w).exists()]
        if not base_targets:
            return AuditReport(generation, vendor, (), registry)
        moved = None if only is None else [tree / p.relative_to(top) for p in only]
        return rebased(audit(base_targets, moved, record_reads=record_reads), tree, top)

    try:
        before_texts = {path: _text(at_base(path)) for path in changed}
        namer = ModuleNamer(found.roots)
        changes = [
            Change(
                path,
                namer.name(path),
                before_texts[path],
                _text(path) if path in scanned else None,
                added=not at_base(path).is_file(),
                deleted=path not in scanned,
            )
            for path in changed
        ]

        def reach() -> frozenset[Path]:
            now = {path: _text(path) for path in changed}
            names = {path: changed_names(before_texts[path], now[path]) for path in changed}
            calls = {path: changed_calls(before_texts[path], now[path]) for path in changed}
            # Deleted files are compared too: their gates are BASE's only.
            return reached_files(found.files, found.roots, names, _text, calls) | {
                path for path in changed if path not in scanned
            }

        def past(reached: frozenset[Path] | None) -> bool:
            return reached is None or reached >= scanned  # past scope.py's budget

        def reuse() -> _Reused:
            # The changed files' contents at BASE, where the working tree has them.
            base_bytes = {path: raw for path in changed if (raw := _raw(at_base(path))) is not None}
            return _reused(audit, audit_base, targets, changes, namer, base_bytes)

        reached: frozenset[Path] | None = None
        reused: _Reused | None = None
        if (
            strategy is Strategy.AUTO
            and (spare_cores() if speculate is None else speculate and can_fork())
            and not everything_moves(changes, ())
        ):
            # Which of the two is cheaper is known once reach is (seconds on a large
            # tree): it runs in a child while the reused audit starts here, abandoned
            # if the change reaches few files. Both answer the same. Only with a core
            # to spare: on a busy machine the child takes the audit's time.
            reused, reached = speculated(reach, reuse, past)
            if reused is None:
                _collect_abandoned()
        elif strategy in (Strategy.AUTO, Strategy.REACH):
            reached = reach()
        compared: frozenset[Path] | None = None  # None: every file
        unchanged_elsewhere = 0
        if reused is None and strategy is Strategy.AUTO and past(reached):
            if everything_moves(changes, ()):
                strategy = Strategy.WHOLE  # known before auditing: both sides at once
            else:
                reused = reuse()
        if reused is None and strategy is Strategy.REUSE:
            reused = reuse()
        if reused is not None:
            after, before, compared = reused
            if compared is not None:
                unchanged_elsewhere = sum(
                    1 for g in after.gates if g.path not in compared and compared_use(g)
                )
        else:  # WHOLE, or REACH (whole past the budget)
            restrict = None if past(reached) or reached is None else reached
            # Exported here, not in the child that audits BASE: what a forked child
            # exports is in its copy of base_files, which close() here never sees.
            base_files.tree()
            before, after = both(
                lambda: audit_base(None if restrict is None else sorted(restrict)),
                lambda: audit(targets, None if restrict is None else sorted(restrict & scanned)),
                parallel=parallel,
            )
            compared = restrict
    finally:
        base_files.close()
    return compare_reports(
        before,
        after,
        base=base.label,
        commit=base.commit,
        compared=(lambda path: True) if compared is None else compared.__contains__,
        changed_files=tuple(changed),
        compared_files=len(scanned | set(changed)) if compared is None else len(compared),
        unchanged_elsewhere=unchanged_elsewhere,
    )


_Reused = tuple[AuditReport, AuditReport, "frozenset[Path] | None"]


def _collect_abandoned() -> None:
    """The abandoned audit's trees are garbage now: collected before the audits that
    follow (bulk_allocation, around the whole run, keeps the collector off them)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def _reused(
    audit: Audit,
    audit_base: _BaseAudit,
    targets: Sequence[Path],
    changes: Sequence[Change],
    namer: ModuleNamer,
    base_bytes: Mapping[Path, bytes],
) -> tuple[AuditReport, AuditReport, frozenset[Path] | None]:
    """(the working tree's audit, BASE's, the files compared; None: all): the working
    tree whole with its reads, then BASE where they meet the changes (see reuse.py)."""
    kept = Kept()
    after = audit(targets, None, record_reads=True, on_open=kept)
    if everything_moves(changes, after.shared_reads):
        return after, audit_base(None), None
    dirty = dirty_files(after.reads, changes, namer.name)
    candidates = {namer.name(r.path): r.path for r in after.reads}
    only = set(dirty) | hop_files(after.reads, dirty, candidates)
    while True:
        if kept.project is None:  # the working tree's audit came from the cache
            before = audit_base(sorted(only), record_reads=True)
        else:  # over the working tree's trees and memo, in this process
            before = audit(
                targets,
                sorted(only),
                record_reads=True,
                on_open=laid_over(kept, changes, base_bytes),
                laid_over=True,
            )
        if base_knows_more(before.device_names, after.device_names, after.protocol_names):
            # BASE knows a name carrying the device that the working tree does not: it
            # would search files (audit/widening.py) the working tree read nothing in.
            return after, audit_base(None), None
        unknown = set(after.device_names) - set(before.device_names)
        if uses_unknown_name(only, unknown, set(after.quoted_names), base_bytes):
            # BASE's audit of these files alone never read the definition of a name one
            # of them uses (`major()`, defined in a file it did not audit), which BASE
            # whole may know: it would search that file and find its hop sources.
            return after, audit_base(None), None
        # BASE's own hop sources (a changed file may call another function now).
        more = hop_files(before.reads, dirty, candidates) - only
        if not more:
            return after, before, dirty
        only |= more


def base_knows_more(
    base_names: Collection[str], tree_names: Collection[str], protocols: Collection[str] = ()
) -> bool:
    """Whether BASE's audit knows a name carrying the device that the working tree's
    does not and that would bring in a file: a name that spells an idiom itself
    (`get_device_capability`, a wrapper's, one of the widening's seeds) brings none,
    as every file using it is searched anyway, by the prefilter (counting it made every
    edit on sglang 0.5.9 audit BASE whole: impact 1.34x -> 2.45x of a cold audit); nor
    does a name the working tree's audit found too often defined to follow (`protocols`:
    a platform method, `get_attn_backend_cls_str` in six platform classes), which BASE's
    audit of a few files counted under the bound (counting it made every edit on sglang
    0.5.9 audit BASE whole again, 47 -> 1,404 files compared, from fc01a78 on)."""
    extra = set(base_names) - set(tree_names) - set(protocols)
    return any(not mentions_arch(name) for name in extra)


def uses_unknown_name(
    files: Collection[Path],
    names: Collection[str],
    quoted: Collection[str],
    base_bytes: Mapping[Path, bytes],
) -> bool:
    """Whether one of `files`, as at BASE, spells no arch idiom (the prefilter searches
    it anyway) and uses one of `names` as the widening reads a use (an attribute, a
    call, an import), or asks for one of them that is `quoted` (bound under a device
    test) by its spelling as the widening does (`hasattr(kern, "name")`): a plain use of
    such a name (`import deep_gemm`) brings in no file, and read as one it made every
    edit of sglang 0.5.9's fp8.py audit BASE whole (57 -> 1,404 files compared)."""
    used = sorted(set(names) - set(quoted))
    asked = sorted(set(names) & set(quoted))
    patterns = [
        *([spelling(tuple(used))] if used else []),
        *([asked_by_spelling(tuple(asked))] if asked else []),
    ]
    if not patterns:
        return False
    for path in files:
        raw = base_bytes[path] if path in base_bytes else _raw(path)
        text = None if raw is None else raw.decode("utf-8", "replace")
        if text is None or mentions_arch(text):
            continue
        if any(pattern.search(text) for pattern in patterns):
            return True
    return False


def _inside(top: Path, target: Path) -> str:
    try:
        relative = target.resolve().relative_to(top)
    except ValueError as err:
        raise BaseError(f"{target} is outside the git work tree {top}") from err
    return relative.as_posix() if relative.parts else ""


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix.rstrip("/") + "/")


def _raw(path: Path) -> bytes | None:
    try:
        return read_regular(path, SOURCE_BYTES)
    except (OSError, ValueError):
        return None


def _text(path: Path) -> str | None:
    try:
        return read_source(path).text
    except (OSError, ValueError, SyntaxError, LookupError):
        return None


def _nothing(
    label: str, commit: str, generation: str, vendor: str, registry: Registry
) -> ImpactReport:
    columns = tuple(registry.ordered(registry.vendor_names(vendor)))
    return ImpactReport(label, commit, generation, vendor, columns, (), ())


class _BaseAudit(Protocol):
    def __call__(self, only: Sequence[Path] | None, record_reads: bool = False) -> AuditReport: ...


def rebased(report: AuditReport, old: Path, new: Path) -> AuditReport:
    """BASE's report with its paths where the files lie in the working tree."""

    def move(path: Path) -> Path:
        try:
            return new / path.relative_to(old)
        except ValueError:
            return path

    def gate(g: AuditedGate) -> AuditedGate:
        return dataclasses.replace(g, found=dataclasses.replace(g.found, path=move(g.found.path)))

    def diagnostic(d: FileDiagnostic) -> FileDiagnostic:
        return dataclasses.replace(d, path=move(d.path))

    def reads(r: FileReads) -> FileReads:
        return dataclasses.replace(r, path=move(r.path))

    return dataclasses.replace(
        report,
        gates=tuple(gate(g) for g in report.gates),
        diagnostics=tuple(diagnostic(d) for d in report.diagnostics),
        reads=tuple(reads(r) for r in report.reads),
    )
