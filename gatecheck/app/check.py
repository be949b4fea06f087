"""`check` after the analysis: from every finding analysed to the findings reported.

`refine` is the one place findings are post-processed, each step counting what it hides:
suppressions -> select/ignore (and per-file ignores) -> files scope -> baseline (written,
then read) -> --new-since -> fixes (or, for SARIF, the verified edits of each finding).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gatecheck.baseline import (
    BaselineError,
    gate_lines,
    project_relpath,
    read_baseline,
    touched_by,
    without_baseline,
    write_baseline,
)
from gatecheck.config.model import RuleSet
from gatecheck.config.pyproject import Overrides, Settings
from gatecheck.findings import RULES, Finding, RuleInfo
from gatecheck.gates.results import Analysis, scoped
from gatecheck.loading.outline import names_function
from gatecheck.reporting.paths import display_path
from gatecheck.suppressions import (
    SUPPRESSION_RULES,
    Suppression,
    apply_suppressions,
    scan_files,
)

if TYPE_CHECKING:
    from gatecheck.fixing.fixer import FixReport

ALL_RULES: tuple[RuleInfo, ...] = (*RULES, *SUPPRESSION_RULES)


class CheckError(Exception):
    """A problem with the request (baseline file, git history...): one line, exit 2."""


@dataclass(frozen=True)
class CheckOptions:
    """Everything `check` was asked; one field per option (add a field with an option)."""

    paths: tuple[Path, ...]
    rules: tuple[Path, ...]
    generations: tuple[str, ...]
    features: tuple[str, ...]
    excludes: tuple[str, ...]
    select: tuple[str, ...]
    ignore: tuple[str, ...]
    output_format: str
    output: Path | None
    sarif_output: Path | None
    markdown_output: Path | None
    exit_zero: bool
    files_scope: bool
    baseline: Path | None
    write_baseline: Path | None
    new_since: str | None
    include_suppressed: bool
    fix: bool
    show_diff: bool
    kernel_sources: tuple[Path, ...]
    force: bool
    no_cache: bool = False
    quiet: bool = False

    def overrides(self) -> Overrides:
        return Overrides(self.rules, self.generations, self.excludes, self.select, self.ignore)

    @property
    def wants_sarif(self) -> bool:
        return self.output_format == "sarif" or self.sarif_output is not None

    @property
    def needs_trees(self) -> bool:
        # Fixes (and SARIF, which carries verified fixes) need trees: always analysed afresh.
        return self.fix or self.show_diff or self.wants_sarif


# Records, never compared or printed: no __eq__ / __hash__ / __repr__ made for them (each
# method a dataclass makes is compiled on import, on every run's start).
@dataclass(frozen=True, eq=False, repr=False)
class CheckRun:
    """What was asked and what the analysis found, before any post-processing."""

    options: CheckOptions
    settings: Settings
    ruleset: RuleSet
    root: Path  # reports, baselines and the files scope are relative to it
    targets: tuple[Path, ...]
    analysis: Analysis

    @property
    def generations(self) -> tuple[str, ...]:
        return self.settings.generations.value

    @property
    def excludes(self) -> tuple[str, ...]:
        return self.settings.exclude.value


@dataclass(frozen=True, eq=False, repr=False)
class FixOutcome:
    """What `--fix` / `--diff` did: the diff to print (with --diff), and the counts."""

    diff: str | None
    changed: bool
    fixed: int
    left: int
    # Why a finding was not fixed or a file not written, each with its place.
    reasons: tuple[str, ...]
    verb: str  # "fixed" or "would fix"
    # With --fix: how many files reached the disk and how many did not (None with --diff).
    files: tuple[int, int] | None = None

    @property
    def summary(self) -> str:
        # Always say what reached the disk: a write can fail for one file and not another.
        files = (
            "" if self.files is None else f" ({self.files[0]} files written, {self.files[1]} not)"
        )
        return f"{self.fixed} {self.verb}, {self.left} left{files}" + (":" if self.reasons else "")


@dataclass(frozen=True, eq=False, repr=False)
class Refined:
    """The findings a run reports, with what was left out and why."""

    run: CheckRun
    findings: tuple[Finding, ...]
    suppressed: tuple[tuple[Finding, Suppression], ...]
    # Findings left out, by why ("in baseline": 3), in the order the steps ran.
    hidden: tuple[tuple[str, int], ...]
    fix: FixOutcome | None = None

    @property
    def diff_printed(self) -> bool:
        return self.fix is not None and self.run.options.show_diff and self.fix.changed


def gate_function_warnings(run: CheckRun) -> list[str]:
    """A rule's gate function that names nothing in the scanned tree would silently give
    no gates (a misspelt name, a moved function, or a tree without them): one warning
    each. Reads at most the modules the names point to, with the standard library's
    parser (no astroid build), so a run answered from the cache warns exactly as a fresh
    one, and cheaply."""
    wanted = set(run.options.features)
    project = run.analysis.project
    warnings: list[str] = []
    for feature in run.ruleset.features:
        if wanted and feature.id not in wanted:
            continue
        where = f" ({feature.location})" if feature.location else ""
        known = run.analysis.named_functions
        unresolved = [
            d
            for d in feature.gate_functions
            if not (known[d] if d in known else names_function(project, d))
        ]
        for dotted in unresolved:
            warnings.append(
                f"gatecheck: warning: gate function '{dotted}' of feature '{feature.id}'{where} "
                "names nothing in the scanned tree: its gates are not checked"
            )
    return warnings


def known_ids(ruleset: RuleSet) -> set[str]:
    ids = {f.id for f in ruleset.features}
    for rule in ALL_RULES:
        ids |= {rule.id, rule.name}
    return ids


class _Hidden:
    """Counts, per reason, the findings each step leaves out."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def count(
        self, why: str, before: list[Finding], after: list[Finding], hidden: int | None = None
    ) -> list[Finding]:
        left_out = len(before) - len(after) if hidden is None else hidden
        if left_out:
            self.counts[why] = self.counts.get(why, 0) + left_out
        return after


def refine(run: CheckRun, note: Callable[[str], None]) -> Refined:
    """From everything analysed to what is reported. `note` gets the one-line messages a
    step has for the user as it runs (the baseline it recorded)."""
    hidden = _Hidden()
    options = run.options
    findings, suppressed = _apply_suppressions(run, hidden)
    findings = _select(run.settings, findings, hidden)
    if options.files_scope:
        findings = hidden.count("outside the files scope", findings, _in_scope(run, findings))
    if options.write_baseline:
        try:
            write_baseline(options.write_baseline, findings, run.root)
        except BaselineError as err:
            raise CheckError(str(err)) from err
        noun = "finding" if len(findings) == 1 else "findings"
        note(f"gatecheck: recorded {len(findings)} {noun} in {options.write_baseline}")
    baseline = options.write_baseline or options.baseline
    if baseline:
        try:
            accepted = read_baseline(baseline)
        except BaselineError as err:
            raise CheckError(str(err)) from err
        kept, left_out = without_baseline(findings, accepted, run.root)
        findings = hidden.count("in the baseline", findings, kept, left_out)
    if options.new_since:
        findings = hidden.count(f"not new since {options.new_since}", findings, _new(run, findings))
    fix: FixOutcome | None = None
    if options.fix or options.show_diff:
        findings, fix = _fix(run, findings, hidden)
    elif options.wants_sarif:
        findings = _with_planned_edits(run, findings)
    return Refined(run, tuple(findings), suppressed, tuple(hidden.counts.items()), fix)


def _apply_suppressions(
    run: CheckRun, hidden: _Hidden
) -> tuple[list[Finding], tuple[tuple[Finding, Suppression], ...]]:
    analysis = run.analysis
    analysed = run.options.features or [f.id for f in run.ruleset.features]
    # Restricted to some generations, a run cannot tell an unused suppression.
    checked = (
        None if run.generations else {*analysed, *(r.id for r in RULES), *(r.name for r in RULES)}
    )
    outcome = apply_suppressions(
        analysis.findings,
        scan_files(analysis.suppression_candidates(), analysis.project.text_of),
        known_ids=known_ids(run.ruleset),
        checked_ids=checked,
    )
    hidden.count("suppressed", list(analysis.findings), list(outcome.kept))
    findings = sorted([*outcome.kept, *outcome.problems], key=_order)
    return findings, tuple(outcome.suppressed)


def _order(finding: Finding) -> tuple[str, int, int, str]:
    return (str(finding.path), finding.start.line, finding.start.column, finding.rule.id)


def _names(finding: Finding) -> set[str]:
    return {finding.rule.id, finding.rule.name, finding.feature} - {""}


def _select(settings: Settings, findings: list[Finding], hidden: _Hidden) -> list[Finding]:
    select, ignore = set(settings.select.value), set(settings.ignore.value)
    kept = [
        f
        for f in findings
        if (not select or _names(f) & select)
        and not _names(f) & ignore
        and not _names(f) & _per_file_ignored(settings, f)
    ]
    return hidden.count("ignored by configuration", findings, kept)


def _per_file_ignored(settings: Settings, finding: Finding) -> set[str]:
    if not settings.per_file_ignores.value:
        return set()
    rel = project_relpath(finding.path, settings.base)
    ignored: set[str] = set()
    for glob, ids in settings.per_file_ignores.value:
        if fnmatch.fnmatch(rel, glob) or fnmatch.fnmatch(finding.path.name, glob):
            ignored.update(ids)
    return ignored


def _in_scope(run: CheckRun, findings: list[Finding]) -> list[Finding]:
    scope = [p.resolve() for p in run.options.paths]
    files = {p for p in scope if not p.is_dir()}
    folders = [p for p in scope if p.is_dir()]

    def inside(path: Path) -> bool:
        real = path.resolve()
        return real in files or any(real.is_relative_to(folder) for folder in folders)

    return [f for f in findings if inside(f.path)]


def _new(run: CheckRun, findings: list[Finding]) -> list[Finding]:
    # git's module (subprocess, shutil) is imported only for --new-since: most runs never
    # call git, and it was a tenth of a cached pre-commit run's imports.
    from gatecheck.vcs import VcsError, changed_lines, git_toplevel, merge_base

    ref = run.options.new_since or "HEAD"
    repository = git_toplevel(_folder(run.targets[0])) or run.root
    try:
        changes = changed_lines(repository, merge_base(repository, ref))
    except VcsError as err:
        message = str(err)  # some messages already name the option
        raise CheckError(
            message if "--new-since" in message else f"--new-since: {message}"
        ) from err
    # A gate's lines: its whole condition (the engine's node), not just the flagged operand.
    conditions = run.analysis.condition_lines()

    def span(finding: Finding) -> range:
        lines = conditions.get(finding.key)
        if lines is None:
            return gate_lines(finding)
        first = min(lines[0], finding.start.line)
        last = max(lines[1], finding.end.line)
        return range(first, last + 1)

    kept, _ = touched_by(findings, changes, span)
    return kept


def _folder(path: Path) -> Path:
    real = path.resolve()
    return real if real.is_dir() else real.parent


def _fix(
    run: CheckRun, findings: list[Finding], hidden: _Hidden
) -> tuple[list[Finding], FixOutcome | None]:
    # Only what would be reported is fixed: never a suppressed, ignored or baselined gate.
    wanted = scoped(run.analysis, findings)
    if not wanted.failures:
        return findings, None
    remaining, outcome = _run_fixes(run, wanted)
    # Findings the fixer does not handle (suppression problems, other rules) stay as they are.
    planned = {f.key for f in wanted.findings}
    others = [f for f in findings if f.key not in planned]
    fixed = len(wanted.failures) - len(remaining)
    hidden.count("fixed", findings, findings, fixed)
    return sorted([*remaining, *others], key=_order), outcome


def _with_planned_edits(run: CheckRun, findings: list[Finding]) -> list[Finding]:
    """SARIF carries each finding's verified edits as `fixes`, even when nothing is written."""
    from gatecheck.fixing.fixer import attach_fixes  # only runs that fix

    wanted = scoped(run.analysis, findings)
    if not wanted.failures:
        return findings
    return attach_fixes(findings, _plan(run, wanted))


def _plan(run: CheckRun, analysis: Analysis) -> FixReport:
    from gatecheck.fixing.fixer import plan_fixes  # only runs that fix

    return plan_fixes(
        analysis,
        run.ruleset,
        list(run.targets),
        features=run.options.features or None,
        generations=run.generations or None,
        excludes=run.excludes,
        force=run.options.force,
    )


def _run_fixes(run: CheckRun, analysis: Analysis) -> tuple[list[Finding], FixOutcome]:
    """Plan and verify fixes; make the diff or write. Returns the findings still left."""
    from gatecheck.fixing.fixer import attach_fixes, write_changes

    base = Path.cwd()
    fix, show_diff = run.options.fix, run.options.show_diff
    report = _plan(run, analysis)
    diff: str | None = None
    if show_diff:
        names = {path: display_path(path, base) for path in report.changes}
        diff = report.diff(names)
    elif fix:
        write_changes(report, analysis.project.roots, force=run.options.force)
    written = set(report.changes) - {p for p, _ in report.not_written}
    fixed = {f.key for f, _plan in report.fixed if show_diff or f.path in written}
    remaining = attach_fixes(analysis.findings, report, keep=lambda f: f.key not in fixed)
    reasons = [f"{display_path(f.path, base)}:{f.start.line}: {why}" for f, why in report.refused]
    reasons += [f"{display_path(p, base)}: {why}" for p, why in report.not_written]
    verb = "would fix" if show_diff else "fixed"
    files = (len(report.written), len(report.not_written)) if fix and not show_diff else None
    outcome = FixOutcome(
        diff, bool(report.changes), len(fixed), len(remaining), tuple(reasons), verb, files
    )
    return remaining, outcome
