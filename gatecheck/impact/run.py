"""`impact` as the application runs it: find BASE, export its files, audit both sides
(through the caller's audit: the CLI's goes through the cache), compare. No click."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from gatecheck.audit.report import AuditedGate, AuditReport
from gatecheck.config.model import Registry
from gatecheck.discovery import discover
from gatecheck.impact.compare import compare_reports
from gatecheck.impact.model import ImpactReport
from gatecheck.impact.parallel import both
from gatecheck.impact.scope import changed_names, reached_files
from gatecheck.impact.snapshot import BaseError, changed_paths, resolve_base, snapshot, toplevel
from gatecheck.loading.project import FileDiagnostic, read_source

# (targets, only: the files whose gates are wanted, None for all) -> the audit.
Audit = Callable[[Sequence[Path], Sequence[Path] | None], AuditReport]


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
) -> ImpactReport:
    """`keep_in` (the cache folder) keeps BASE's exported files for the next run;
    `parallel` audits the two sides at once (see parallel.py)."""
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
    tree = snapshot(top, base.commit, [] if "" in within else within, keep_in).resolve()
    try:
        names = {
            path: changed_names(_text(tree / path.relative_to(top)), _text(path))
            for path in changed
        }
        # Deleted files are compared too: their gates are BASE's only.
        reached = reached_files(found.files, found.roots, names, _text) | {
            path for path in changed if path not in scanned
        }
        everything = reached >= set(found.files)
        after_only = None if everything else sorted(reached & set(found.files))
        base_targets = [tree / w for w in within if (tree / w).exists()]
        base_only = None if everything else [tree / p.relative_to(top) for p in reached]

        def audit_base() -> AuditReport:
            if not base_targets:
                return AuditReport(generation, vendor, (), registry)
            return audit(base_targets, base_only)

        before, after = both(audit_base, lambda: audit(targets, after_only), parallel=parallel)
    finally:
        if keep_in is None:
            shutil.rmtree(tree, ignore_errors=True)
    before = rebased(before, tree, top)
    return compare_reports(
        before,
        after,
        base=base.label,
        commit=base.commit,
        compared=(lambda path: True) if everything else reached.__contains__,
        changed_files=tuple(changed),
        compared_files=len(reached),
    )


def _inside(top: Path, target: Path) -> str:
    try:
        relative = target.resolve().relative_to(top)
    except ValueError as err:
        raise BaseError(f"{target} is outside the git work tree {top}") from err
    return relative.as_posix() if relative.parts else ""


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix.rstrip("/") + "/")


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

    return dataclasses.replace(
        report,
        gates=tuple(gate(g) for g in report.gates),
        diagnostics=tuple(diagnostic(d) for d in report.diagnostics),
    )
