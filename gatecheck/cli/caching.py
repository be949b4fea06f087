"""`check` and `audit` through the on-disk cache (gatecheck/cache.py): what makes a run's
key, what is stored, and how a stored result is read back into the objects the reports
take. Runs that need trees (`--fix`, `--diff`, SARIF with verified fixes) never use it."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gatecheck.cache import (
    RunCache,
    cache_key,
    content_digest,
    from_data,
    to_data,
    unusable_folder,
)
from gatecheck.config.model import RuleSet
from gatecheck.discovery import Discovery, discover
from gatecheck.findings import Finding, Hop
from gatecheck.gates.mentions import feature_needles, mentions_any, option_needles
from gatecheck.gates.results import Analysis, Restored
from gatecheck.kernels.locate import KNOWN_KERNEL_LIBRARIES, locate
from gatecheck.loading.outline import names_function
from gatecheck.loading.project import FileDiagnostic, ModuleNamer, Project
from gatecheck.loading.readlog import FileReads
from gatecheck.semantics.admitted import Semantics
from gatecheck.suppressions import MARKER

if TYPE_CHECKING:
    from gatecheck.audit import AuditReport
    from gatecheck.loading.prescan import PendingScan, TextScan


def check_analysis(
    root: Path,
    targets: Sequence[Path],
    ruleset: RuleSet,
    *,
    features: Sequence[str],
    generations: Sequence[str],
    excludes: Sequence[str],
    kernel_sources: Sequence[Path],
    use_cache: bool,
    debug: bool = False,
) -> Analysis:
    selected = [f for f in ruleset.features if not features or f.id in features]

    def fresh(found: Discovery) -> tuple[Analysis, PendingScan | None]:
        # Every file is read for the text prefilters while this process imports the
        # analysis machinery (loading/prescan.py): the feature needles, the activation
        # paths' options, and the suppression marker (which files the suppression scan
        # and the cache entry read).
        from gatecheck.loading.prescan import start_scan  # (and pickle): not on a cached run

        groups = [feature_needles(selected), *(option_needles(f) for f in selected), [MARKER]]
        scan = start_scan(found.files, groups)
        # Imported here: a run answered from the cache loads no analysis machinery.
        from gatecheck.engine import analyse

        analysis = analyse(
            list(targets),
            ruleset,
            features=features or None,
            generations=generations or None,
            excludes=excludes,
            kernel_sources=kernel_sources,
            debug=debug,
            found=found,
            scan=scan,
        )
        if scan is not None:
            analysis = dataclasses.replace(analysis, marked=_scan_marked(scan.result()))
        return analysis, scan

    if not use_cache or not _usable(root):
        return fresh(discover(targets, excludes))[0]
    found = discover(targets, excludes)
    key = cache_key(
        "check",
        targets=[str(p.resolve()) for p in targets],
        features=sorted(features),
        generations=sorted(generations),
        excludes=list(excludes),
        **_shared_material(ruleset, kernel_sources, found),
    )
    cache = RunCache(root, "check", key)

    prefilter = mentions_any(selected)
    needles: list[str] = []

    def still_irrelevant(text: str) -> bool:
        # The engine's prefilter, and every name the run searched files for (callers of
        # gate functions, CLI options for activation paths).
        return prefilter(text) or any(needle in text for needle in needles)

    hit = cache.load(
        found.files,
        still_irrelevant,
        may_suppress,
        _needles_into(needles),
        names=found.file_names(),
    )
    if hit is not None:
        try:
            return _restored_analysis(hit.payload, ruleset, found, hit.noted)
        except (TypeError, ValueError, KeyError, OverflowError, RecursionError):
            pass  # an entry this version cannot read: analyse afresh
    analysis, scan = fresh(found)
    named, outlined = _named_functions(ruleset, analysis.project)
    analysis = dataclasses.replace(analysis, named_functions=named)
    parsed, diagnostics = analysis.parsed_paths() | outlined, analysis.diagnostics
    text_of, noted = analysis.project.text_of, None
    if scan is not None:
        # The scan looked at every file for the marker: only texts the run holds are
        # taken (no file is read again for the entry).
        text_of, noted = analysis.project.text_held, _scan_notes(scan.result())
    marked = _store(
        cache,
        found,
        parsed,
        diagnostics,
        lambda: _payload(analysis),
        may_suppress,
        text_of,
        noted,
    )
    if marked is not None:
        # Storing looked at every file for the suppression marker: the suppression scan
        # reads only the files that hold it, as on a run answered from the entry.
        analysis = dataclasses.replace(analysis, marked=marked)
    return analysis


def _named_functions(ruleset: RuleSet, project: Project) -> tuple[dict[str, bool], set[Path]]:
    """Whether each gate function of every rule names a function of the tree (the
    answers `check` warns from), and the files those answers read. They are stored as
    read, so an edit to any of them makes the entry stale like an edit to a parsed file."""
    named: dict[str, bool] = {}
    files: set[Path] = set()
    for feature in ruleset.features:
        for dotted in feature.gate_functions:
            if dotted not in named:
                named[dotted] = names_function(project, dotted, files)
    return named, files


def _usable(root: Path) -> bool:
    """A cache folder that is a link (committed to a repository: it could lead anywhere)
    or not a folder is never used: the run goes on uncached, and says so."""
    problem = unusable_folder(root)
    if problem is not None:
        click.echo(f"gatecheck: warning: {problem}; running without the cache", err=True)
    return problem is None


def _needles_into(needles: list[str]) -> Callable[[Any], None]:
    """Reads the searched names out of an entry before its files are checked."""

    def read(payload: Any) -> None:
        needles[:] = [str(n) for n in payload["needles"]]

    return read


def may_suppress(text: str) -> bool:
    # What suppressions.scan_files reads a file for: a cached check rescans only these.
    return MARKER in text


def _scan_marked(scan: TextScan) -> frozenset[Path]:
    """The files the suppression scan reads: those holding the marker, and those that
    could not be read (it skips them, as it would reading every file)."""
    return frozenset((*(scan.files_holding([MARKER]) or ()), *scan.unreadable_files()))


def _scan_notes(scan: TextScan) -> dict[Path, bool]:
    """may_suppress of every file the scan read, from its answer for the marker."""
    holding = frozenset(scan.files_holding([MARKER]) or ())
    unreadable = frozenset(scan.unreadable_files())
    return {path: path in holding for path in scan.files if path not in unreadable}


def audit_report_cached(
    root: Path,
    targets: Sequence[Path],
    ruleset: RuleSet,
    generation: str,
    *,
    columns: Sequence[str] | None,
    excludes: Sequence[str],
    kernel_sources: Sequence[Path],
    use_cache: bool,
    debug: bool = False,
    only: Sequence[Path] | None = None,
    record_reads: bool = False,
    on_open: Callable[[Project, Semantics], None] | None = None,
    laid_over: bool = False,
    jobs: int = 1,
) -> AuditReport:
    """`on_open` and `jobs` are run_audit's (on a cache miss only; the answer does not
    depend on `jobs`, so neither does the key); `laid_over`: it makes the project other
    than the files on disk (impact's BASE), so nothing is cached."""

    def fresh() -> AuditReport:
        from gatecheck.audit import run_audit

        return run_audit(
            list(targets),
            ruleset,
            generation,
            columns=columns,
            excludes=excludes,
            kernel_sources=kernel_sources,
            debug=debug,
            only=only,
            record_reads=record_reads,
            on_open=on_open,
            jobs=jobs,
        )

    if laid_over or not use_cache or not _usable(root):
        return fresh()
    found = discover(targets, excludes)
    key = cache_key(
        "audit",
        targets=[str(p.resolve()) for p in targets],
        generation=generation,
        columns=list(columns or []),
        excludes=list(excludes),
        only=None if only is None else sorted(str(p) for p in only),
        record_reads=record_reads,
        **_shared_material(ruleset, kernel_sources, found),
    )
    cache = RunCache(root, "audit", key)
    from gatecheck.audit.prefilter import mentions_arch
    from gatecheck.semantics.call_names import spells_call_of
    from gatecheck.textsearch import holds_any

    searched: set[str] = set()
    device_names: set[str] = set()

    def prepare(payload: Any) -> None:
        searched.update(str(name) for name in payload.get("searched_calls", ()))
        device_names.update(str(name) for name in payload.get("device_names", ()))

    def may_change_answers(text: str) -> bool:
        return (
            mentions_arch(text) or spells_call_of(text, searched) or holds_any(device_names)(text)
        )

    hit = cache.load(found.files, may_change_answers, prepare=prepare, names=found.file_names())
    if hit is not None:
        try:
            return _restored_report(hit.payload, ruleset)
        except (TypeError, ValueError, KeyError, OverflowError, RecursionError):
            pass
    report = fresh()
    _store(cache, found, report.parsed, report.diagnostics, lambda: _report_payload(report))
    return report


def _store(
    cache: RunCache,
    found: Discovery,
    parsed: Iterable[Path],
    diagnostics: Iterable[FileDiagnostic],
    payload: Callable[[], Any],
    note: Callable[[str], bool] | None = None,
    text_of: Callable[[Path], str | None] | None = None,
    noted: Mapping[Path, bool] | None = None,
) -> frozenset[Path] | None:
    """The files `note` held for (RunCache.store); None when nothing was stored."""
    # A file with a diagnostic was read too: it must be read again if it changes.
    read = {*parsed, *(d.path for d in diagnostics)}
    try:
        data = payload()
    except TypeError:
        return None  # something not representable as JSON: this run is not cached
    if note is None:
        return cache.store(found.files, read, data, text_of=text_of, names=found.file_names())
    return cache.store(
        found.files, read, data, note, text_of, names=found.file_names(), noted=noted
    )


def _shared_material(
    ruleset: RuleSet, kernel_sources: Sequence[Path], found: Discovery
) -> dict[str, object]:
    return {
        # Where modules take the names their code imports them by (loading/project.py).
        "source_folders": ModuleNamer(found.roots).source_folders(found.file_names()),
        "rules": content_digest(ruleset.sources),
        "kernel_sources": [str(p.resolve()) for p in kernel_sources],
        "kernel_libraries": kernel_environment(ruleset, kernel_sources, found.roots),
    }


def kernel_environment(
    ruleset: RuleSet, kernel_sources: Sequence[Path], roots: Sequence[Path]
) -> list[object]:
    """Every kernel library a run may read, where it is and which version: installing,
    upgrading or editing one changes the key. Libraries outside site-packages (given
    with --kernel-source or inside the scanned tree) are fingerprinted by their files'
    stats, an installed one by its version."""
    packages = set(KNOWN_KERNEL_LIBRARIES)
    packages |= {k.split(".")[0] for f in ruleset.features for k in f.kernels}
    for source in kernel_sources:
        packages |= {p.parent.name for p in source.glob("*/__init__.py")}
        packages |= {p.parent.name for p in source.glob("*/*/__init__.py")}
    out: list[object] = []
    for package in sorted(packages):
        located = locate(package, kernel_sources, roots)
        if located is None:
            out.append([package, None])
            continue
        entry: list[object] = [package, str(located.root), located.version, located.origin]
        if located.origin != "site-packages":
            entry.append(_tree_stats(located.root / package))
        out.append(entry)
    return out


def _tree_stats(folder: Path) -> list[object]:
    stats: list[object] = []
    for dirpath, _, filenames in os.walk(folder):
        for name in sorted(filenames):
            if name.endswith(".py"):
                try:
                    stat = os.stat(os.path.join(dirpath, name))
                except OSError:
                    continue
                stats.append([os.path.join(dirpath, name), stat.st_mtime_ns, stat.st_size])
    return sorted(stats, key=str)


# -- check: findings and what the reports need besides them ----------------------------------


def _payload(analysis: Analysis) -> dict[str, Any]:
    lines = analysis.condition_lines()
    return {
        "findings": [to_data(f) for f in analysis.findings],
        "condition_lines": [to_data(lines.get(f.key)) for f in analysis.findings],
        "gate_count": analysis.gate_count,
        "parsed": sorted(str(p) for p in analysis.parsed_paths()),
        "diagnostics": [to_data(d) for d in analysis.diagnostics],
        "needles": sorted(analysis.project.searched_needles()),
        "paths": {k: [to_data(h) for h in v] for k, v in analysis.paths.items()},
        "named_functions": dict(sorted(analysis.named_functions.items())),
    }


def _restored_analysis(
    payload: dict[str, Any], ruleset: RuleSet, found: Discovery, marked: frozenset[Path]
) -> Analysis:
    project = Project(found.files, found.roots)
    project.diagnostics.extend(from_data(FileDiagnostic, d) for d in payload["diagnostics"])
    findings = [from_data(Finding, f) for f in payload["findings"]]
    lines = from_data(tuple[tuple[int, int] | None, ...], payload["condition_lines"])
    parsed = frozenset(Path(p) for p in payload["parsed"])
    restored = Restored(int(payload["gate_count"]), parsed, lines, marked)
    semantics = Semantics(project, ruleset.registry, ruleset.vocabulary)
    paths = {k: tuple(from_data(Hop, h) for h in v) for k, v in payload["paths"].items()}
    named = {str(k): bool(v) for k, v in payload["named_functions"].items()}
    return Analysis(
        project,
        semantics,
        found,
        findings=findings,
        paths=paths,
        restored=restored,
        named_functions=named,
    )


# -- audit: the whole report but the registry (which comes with the rules) ---------------------


def _report_payload(report: AuditReport) -> dict[str, Any]:
    return {
        "generation": report.generation,
        "vendor": report.vendor,
        "columns": list(report.columns),
        "gates": [to_data(g) for g in report.gates],
        "hops": [to_data(h) for h in report.hops],
        "vendor_gates": report.vendor_gates,
        "predicate_definitions": report.predicate_definitions,
        "files": report.files,
        "scanned": report.scanned,
        "diagnostics": [to_data(d) for d in report.diagnostics],
        "kernels": {k: [to_data(s) for s in v] for k, v in report.kernels.items()},
        "parsed": [str(p) for p in report.parsed],
        "searched_calls": list(report.searched_calls),
        "device_names": list(report.device_names),
        "protocol_names": list(report.protocol_names),
        "quoted_names": list(report.quoted_names),
        "reads": [to_data(r) for r in report.reads],
        "shared_reads": sorted(report.shared_reads),
    }


def _restored_report(payload: dict[str, Any], ruleset: RuleSet) -> AuditReport:
    from gatecheck.audit import AuditedGate, AuditReport, CallSite
    from gatecheck.kernels.support import KernelSupport

    return AuditReport(
        payload["generation"],
        payload["vendor"],
        tuple(payload["columns"]),
        ruleset.registry,
        gates=[from_data(AuditedGate, g) for g in payload["gates"]],
        hops=[from_data(CallSite, h) for h in payload["hops"]],
        vendor_gates=int(payload["vendor_gates"]),
        predicate_definitions=int(payload["predicate_definitions"]),
        files=int(payload["files"]),
        scanned=int(payload["scanned"]),
        diagnostics=[from_data(FileDiagnostic, d) for d in payload["diagnostics"]],
        kernels={
            k: [from_data(KernelSupport, s) for s in v] for k, v in payload["kernels"].items()
        },
        parsed=tuple(Path(p) for p in payload["parsed"]),
        searched_calls=tuple(str(n) for n in payload.get("searched_calls", ())),
        device_names=tuple(str(n) for n in payload.get("device_names", ())),
        protocol_names=tuple(str(n) for n in payload.get("protocol_names", ())),
        quoted_names=tuple(str(n) for n in payload.get("quoted_names", ())),
        reads=tuple(from_data(FileReads, r) for r in payload.get("reads", ())),
        shared_reads=frozenset(str(k) for k in payload.get("shared_reads", ())),
    )
