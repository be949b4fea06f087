"""`gatecheck check`: findings for every rule's feature.

The command reads as the pipeline: settings (pyproject + flags) -> analyse -> `refine` (the
one place findings are post-processed: suppressions, select/ignore, files scope, baseline,
--new-since, fixes) -> reports (one main format, plus extra SARIF / Markdown files).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console

from gatecheck.accounting import account, files_summary
from gatecheck.baseline import (
    BaselineError,
    gate_lines,
    project_relpath,
    read_baseline,
    touched_by,
    without_baseline,
    write_baseline,
)
from gatecheck.cli.caching import check_analysis
from gatecheck.cli.common import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    cli,
    generation_option,
    kernel_source_option,
    load_rules,
    no_cache_option,
    paths_argument,
    progress_reporter,
    quiet_option,
    rules_option,
)
from gatecheck.config.model import ConfigError, ConfigErrors, RuleSet
from gatecheck.config.pyproject import Overrides, Settings, Sourced, resolve_settings
from gatecheck.findings import RULES, Finding, RuleInfo
from gatecheck.gates.results import Analysis
from gatecheck.reporting.github import (
    render_github,
    step_summary_path,
    summary_budget,
    write_step_summary,
)
from gatecheck.reporting.json_report import render_json
from gatecheck.reporting.markdown import render_markdown
from gatecheck.reporting.paths import display_path
from gatecheck.reporting.text import render_concise, render_diagnostics, render_finding
from gatecheck.suppressions import (
    SUPPRESSION_KIND,
    SUPPRESSION_RULES,
    Suppression,
    apply_suppressions,
    scan_files,
)
from gatecheck.vcs import VcsError, changed_lines, git_toplevel, merge_base, project_root

if TYPE_CHECKING:
    from gatecheck.fixing.fixer import FixReport

FORMATS = ("text", "concise", "json", "sarif", "github", "markdown")
ALL_RULES: tuple[RuleInfo, ...] = (*RULES, *SUPPRESSION_RULES)


class CheckError(click.ClickException):
    """A problem with the request (baseline file, git history...): one line, exit 2."""

    exit_code = EXIT_ERROR


_file = click.Path(dir_okay=False, path_type=Path)
exclude_option = click.option(
    "--exclude", "excludes", multiple=True, help="Glob of paths to skip (repeatable)."
)
select_option = click.option(
    "--select", "select", multiple=True, help="Report only these rule or feature ids."
)
ignore_option = click.option(
    "--ignore", "ignore", multiple=True, help="Do not report these rule or feature ids."
)


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


@dataclass
class CheckRun:
    options: CheckOptions
    settings: Settings
    ruleset: RuleSet
    root: Path  # reports, baselines and the files scope are relative to it
    targets: list[Path]
    analysis: Analysis
    findings: list[Finding] = field(default_factory=list)
    suppressed: list[tuple[Finding, Suppression]] = field(default_factory=list)
    # Findings left out, by why ("in baseline": 3), for the summary line.
    hidden: dict[str, int] = field(default_factory=dict)
    diff_printed: bool = False

    @property
    def generations(self) -> tuple[str, ...]:
        return self.settings.generations.value

    @property
    def excludes(self) -> tuple[str, ...]:
        return self.settings.exclude.value


@cli.command()
@paths_argument
@rules_option
@generation_option
@click.option("--feature", "features", multiple=True, help="Check only these feature ids.")
@exclude_option
@select_option
@ignore_option
@click.option(
    "--format", "output_format", type=click.Choice(FORMATS), default="text", show_default=True
)
@click.option("--output", type=_file, help="Write the report here.")
@click.option("--sarif-output", type=_file, help="Also write a SARIF 2.1.0 report here.")
@click.option("--markdown-output", type=_file, help="Also write a Markdown report here.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option(
    "--files-scope",
    is_flag=True,
    help="Report only findings in PATHS, analysing the whole project (git top level or the "
    "working directory) so that cross-module gates hold. For pre-commit.",
)
@click.option("--baseline", type=_file, help="Hide the findings recorded in this baseline.")
@click.option("--write-baseline", type=_file, help="Record today's findings in this baseline file.")
@click.option("--new-since", metavar="REF", help="Report only findings on lines changed since REF.")
@click.option(
    "--include-suppressed",
    is_flag=True,
    help="List suppressed findings in SARIF, marked as suppressed in source.",
)
@click.option("--fix", is_flag=True, help="Rewrite failing gates (verified edits, atomic writes).")
@click.option(
    "--diff", "show_diff", is_flag=True, help="Print the fixes as a unified diff; write nothing."
)
@kernel_source_option
@click.option(
    "--force",
    is_flag=True,
    help=(
        "With --fix: widen gates even where the kernel library is not built for the "
        "generation, and rewrite read-only or hard-linked files."
    ),
)
@no_cache_option
@quiet_option
def check(**params: Any) -> None:
    """Check that every gate of every rule's feature admits the required generations."""
    run = start(CheckOptions(**params))
    refine(run)
    if run.diff_printed:
        sys.exit(EXIT_FINDINGS)
    report(run)
    exit_zero = run.options.exit_zero
    sys.exit(EXIT_CLEAN if exit_zero or not run.findings else EXIT_FINDINGS)


# --- settings and analysis ---------------------------------------------------------------


def start(options: CheckOptions) -> CheckRun:
    settings = resolve_settings(options.overrides())
    root = project_root()
    ruleset = load_rules(settings.rules.value, cache_root=None if options.no_cache else root)
    validate_ids(settings, ruleset, options.features)
    # Files-scoped, the whole project is analysed: a gate's predicates may live anywhere.
    targets = [root] if options.files_scope else list(options.paths) or [Path.cwd()]
    # Fixes (and SARIF, which carries verified fixes) need trees: always analysed afresh.
    needs_trees = (
        options.fix
        or options.show_diff
        or options.output_format == "sarif"
        or options.sarif_output is not None
    )
    with progress_reporter(quiet=options.quiet, what="analysing"):
        analysis = check_analysis(
            root,
            targets,
            ruleset,
            features=options.features,
            generations=settings.generations.value,
            excludes=settings.exclude.value,
            kernel_sources=options.kernel_sources,
            use_cache=not (options.no_cache or needs_trees),
        )
    return CheckRun(options, settings, ruleset, root, targets, analysis)


def known_ids(ruleset: RuleSet) -> set[str]:
    ids = {f.id for f in ruleset.features}
    for rule in ALL_RULES:
        ids |= {rule.id, rule.name}
    return ids


def validate_ids(settings: Settings, ruleset: RuleSet, features: tuple[str, ...]) -> None:
    """Unknown generations and ids: pyproject values are reported at their line (all at
    once), flags as a usage error."""
    known_features = {f.id for f in ruleset.features}
    for feature in features:
        if feature not in known_features:
            raise click.BadParameter(f"unknown feature {feature!r}", param_hint="--feature")
    ids = known_ids(ruleset)
    checks: list[tuple[Sourced[tuple[str, ...]], set[str], str]] = [
        (settings.generations, set(ruleset.registry.names), "generation"),
        (settings.select, ids, "rule or feature id"),
        (settings.ignore, ids, "rule or feature id"),
    ]
    checks += [
        (
            Sourced(values, "pyproject", settings.per_file_ignores.location),
            ids,
            "rule or feature id",
        )
        for _glob, values in settings.per_file_ignores.value
    ]
    errors: list[ConfigError] = []
    for setting, known, what in checks:
        for value in setting.value:
            if value in known:
                continue
            if setting.location is None:
                hint = ""
                if what == "generation":
                    hint = f" (known: {', '.join(ruleset.registry.names)})"
                raise click.BadParameter(
                    f"unknown {what} {value!r}{hint}", param_hint=setting.origin
                )
            where = setting.location
            errors.append(
                ConfigError(where.path, where.line, where.column, f"unknown {what} '{value}'")
            )
    if errors:
        raise ConfigErrors(errors)


# --- the one place findings are post-processed -----------------------------------------------


def refine(run: CheckRun) -> None:
    """From everything analysed to what is reported, each step counting what it hides."""
    findings = _apply_suppressions(run)
    findings = _select(run, findings)
    if run.options.files_scope:
        findings = _count(run, "outside the files scope", findings, _in_scope(run, findings))
    if run.options.write_baseline:
        try:
            write_baseline(run.options.write_baseline, findings, run.root)
        except BaselineError as err:
            raise CheckError(str(err)) from err
        click.echo(
            f"gatecheck: recorded {len(findings)} findings in {run.options.write_baseline}",
            err=True,
        )
    baseline = run.options.write_baseline or run.options.baseline
    if baseline:
        try:
            accepted = read_baseline(baseline)
        except BaselineError as err:
            raise CheckError(str(err)) from err
        kept, hidden = without_baseline(findings, accepted, run.root)
        findings = _count(run, "in the baseline", findings, kept, hidden)
    if run.options.new_since:
        findings = _count(
            run, f"not new since {run.options.new_since}", findings, _new(run, findings)
        )
    if run.options.fix or run.options.show_diff:
        findings = _fix(run, findings)
    elif run.options.output_format == "sarif" or run.options.sarif_output:
        findings = _with_planned_edits(run, findings)
    run.findings = findings


def _count(
    run: CheckRun, why: str, before: list[Finding], after: list[Finding], hidden: int | None = None
) -> list[Finding]:
    left_out = len(before) - len(after) if hidden is None else hidden
    if left_out:
        run.hidden[why] = run.hidden.get(why, 0) + left_out
    return after


def _apply_suppressions(run: CheckRun) -> list[Finding]:
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
    run.suppressed = outcome.suppressed
    _count(run, "suppressed", analysis.findings, outcome.kept)
    return sorted([*outcome.kept, *outcome.problems], key=_order)


def _order(finding: Finding) -> tuple[str, int, int, str]:
    return (str(finding.path), finding.start.line, finding.start.column, finding.rule.id)


def _names(finding: Finding) -> set[str]:
    return {finding.rule.id, finding.rule.name, finding.feature} - {""}


def _select(run: CheckRun, findings: list[Finding]) -> list[Finding]:
    settings = run.settings
    select, ignore = set(settings.select.value), set(settings.ignore.value)
    kept = [
        f
        for f in findings
        if (not select or _names(f) & select)
        and not _names(f) & ignore
        and not _names(f) & _per_file_ignored(settings, f)
    ]
    return _count(run, "ignored by configuration", findings, kept)


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
    ref = run.options.new_since or "HEAD"
    repository = git_toplevel(_folder(run.targets[0])) or run.root
    try:
        changes = changed_lines(repository, merge_base(repository, ref))
    except VcsError as err:
        raise CheckError(f"--new-since: {err}") from err
    # A gate's lines: its whole condition (the engine's node), not just the flagged operand.
    conditions = run.analysis.condition_lines()

    def span(finding: Finding) -> range:
        lines = conditions.get(id(finding))
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


def _fix(run: CheckRun, findings: list[Finding]) -> list[Finding]:
    # Only what would be reported is fixed: never a suppressed, ignored or baselined gate.
    wanted = {id(f) for f in findings}
    failures = [pair for pair in run.analysis.failures if id(pair[0]) in wanted]
    scoped = dataclasses.replace(run.analysis, failures=failures, findings=[f for f, _ in failures])
    if not failures:
        return findings
    remaining, changed = _run_fixes(run, scoped)
    run.diff_printed = run.options.show_diff and changed
    # Findings the fixer does not handle (suppression problems, other rules) stay as they are.
    planned = {id(f) for f, _ in failures}
    others = [f for f in findings if id(f) not in planned]
    fixed = len(failures) - len(remaining)
    _count(run, "fixed", findings, findings, fixed)
    return sorted([*remaining, *others], key=_order)


def _with_planned_edits(run: CheckRun, findings: list[Finding]) -> list[Finding]:
    """SARIF carries each finding's verified edits as `fixes`, even when nothing is written."""
    from gatecheck.fixing.fixer import attach_fixes  # only runs that fix

    wanted = {id(f) for f in findings}
    failures = [pair for pair in run.analysis.failures if id(pair[0]) in wanted]
    if not failures:
        return findings
    scoped = dataclasses.replace(run.analysis, failures=failures, findings=[f for f, _ in failures])
    return attach_fixes(findings, _plan(run, scoped))


def _plan(run: CheckRun, analysis: Analysis) -> FixReport:
    from gatecheck.fixing.fixer import plan_fixes  # only runs that fix

    return plan_fixes(
        analysis,
        run.ruleset,
        run.targets,
        features=run.options.features or None,
        generations=run.generations or None,
        excludes=run.excludes,
        force=run.options.force,
    )


def _run_fixes(run: CheckRun, analysis: Analysis) -> tuple[list[Finding], bool]:
    """Plan and verify fixes; print the diff or write. Returns the findings still left."""
    from gatecheck.fixing.fixer import attach_fixes, write_changes

    base = Path.cwd()
    fix, show_diff = run.options.fix, run.options.show_diff
    report = _plan(run, analysis)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if show_diff:
        names = {path: display_path(path, base) for path in report.changes}
        click.echo(report.diff(names), nl=False)
    elif fix:
        write_changes(report, analysis.project.roots, force=run.options.force)
    written = set(report.changes) - {p for p, _ in report.not_written}
    fixed_ids = {id(f) for f, _plan in report.fixed if show_diff or f.path in written}
    remaining = attach_fixes(analysis.findings, report, keep=lambda f: id(f) not in fixed_ids)
    reasons = [f"{display_path(f.path, base)}:{f.start.line}: {why}" for f, why in report.refused]
    reasons += [f"{display_path(p, base)}: {why}" for p, why in report.not_written]
    verb = "would fix" if show_diff else "fixed"
    files = ""
    if fix and not show_diff:
        # Always say what reached the disk: a write can fail for one file and not another.
        files = f" ({len(report.written)} files written, {len(report.not_written)} not)"
    err.print(f"{len(fixed_ids)} {verb}, {len(remaining)} left{files}" + (":" if reasons else ""))
    for reason in reasons:
        err.print(f"  {reason}", markup=False)
    return remaining, bool(report.changes)


# --- reports -----------------------------------------------------------------------------------


def summary_line(run: CheckRun) -> str:
    analysis, findings = run.analysis, run.findings
    noun = "finding" if len(findings) == 1 else "findings"
    line = (
        f"{len(findings)} {noun} in {analysis.gate_count} gates "
        f"({len(run.ruleset.features)} features, {files_summary(account(analysis))})"
    )
    if run.hidden:
        line += "; not shown: " + ", ".join(f"{n} {why}" for why, n in run.hidden.items())
    return line


def report(run: CheckRun) -> None:
    options = run.options
    if options.output_format in ("text", "concise"):
        _write_console(run, options.output)
    else:
        _write(render(run, options.output_format), options.output)
    if options.sarif_output:
        _write(render(run, "sarif"), options.sarif_output)
    if options.markdown_output:
        _write(render(run, "markdown"), options.markdown_output)
    summary = step_summary_path()
    if options.output_format == "github" and summary is not None:
        write_step_summary(summary, _markdown(run, summary_budget(summary)))


def render(run: CheckRun, output_format: str) -> str:
    """A machine-readable report as text (text and concise go through the console)."""
    findings, analysis = run.findings, run.analysis
    if output_format == "json":
        registry, accounting = run.ruleset.registry, account(analysis)
        return render_json(findings, analysis.diagnostics, registry, Path.cwd(), accounting) + "\n"
    if output_format == "sarif":
        from gatecheck.reporting.sarif import render_sarif

        suppressed = (
            [(f, s.reason) for f, s in run.suppressed] if run.options.include_suppressed else []
        )
        return render_sarif(
            findings,
            rules=ALL_RULES,
            root=run.root,
            registry=run.ruleset.registry,
            diagnostics=analysis.diagnostics,
            suppressed=suppressed,
        )
    if output_format == "github":
        return render_github(findings, run.root, analysis.diagnostics)
    if output_format == "markdown":
        return _markdown(run, None)
    raise ValueError(f"no renderer for {output_format!r}")


def _markdown(run: CheckRun, max_bytes: int | None) -> str:
    env = os.environ
    link_base = None
    if all(env.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA")):
        link_base = (
            f"{env['GITHUB_SERVER_URL']}/{env['GITHUB_REPOSITORY']}/blob/{env['GITHUB_SHA']}"
        )
    return render_markdown(
        run.findings,
        root=run.root,
        registry=run.ruleset.registry,
        summary=summary_line(run),
        link_base=link_base,
        max_bytes=max_bytes,
        diagnostics=run.analysis.diagnostics,
    )


def _write(text: str, path: Path | None) -> None:
    if path is None:
        click.echo(text, nl=False)
        return
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise CheckError(f"{path}: cannot write report: {err.strerror or err}") from err


def _write_console(run: CheckRun, output: Path | None) -> None:
    base = Path.cwd()
    try:
        handle = output.open("w", encoding="utf-8") if output else None
    except OSError as err:
        raise CheckError(f"{output}: cannot write report: {err.strerror or err}") from err
    try:
        console = Console(file=handle, highlight=False, soft_wrap=True)
        if run.options.output_format == "concise":
            render_concise(console, run.findings, base)
            render_diagnostics(console, run.analysis.diagnostics, base)  # one line each too
            return
        for finding in run.findings:
            if finding.gate_kind == SUPPRESSION_KIND:
                render_concise(console, [finding], base)
            else:
                render_finding(console, finding, run.ruleset.registry, base)
        render_diagnostics(console, run.analysis.diagnostics, base)
        console.print(summary_line(run), style="bold" if run.findings else "green")
    finally:
        if handle:
            handle.close()
