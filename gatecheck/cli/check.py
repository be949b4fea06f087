"""`gatecheck check`: findings for every rule's feature.

The command reads as the pipeline: settings (pyproject + flags) -> analyse -> refine (the
application layer, gatecheck/app/check.py: suppressions, select/ignore, files scope,
baseline, --new-since, fixes) -> reports (one main format, plus extra SARIF / Markdown files).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from gatecheck.accounting import account, files_summary
from gatecheck.app import check as app
from gatecheck.app.check import ALL_RULES, CheckOptions, CheckRun, Refined, known_ids
from gatecheck.cli.caching import check_analysis
from gatecheck.cli.common import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    cannot_write,
    cli,
    color_choice,
    color_option,
    debugging,
    examples,
    generation_option,
    kernel_source_option,
    load_rules,
    no_cache_option,
    output_format_option,
    paths_argument,
    progress_reporter,
    project_root_for,
    quiet_option,
    report_stream,
    rules_option,
    statistics_option,
    verbose_option,
    write_report,
)
from gatecheck.config.model import ConfigError, ConfigErrors, RuleSet
from gatecheck.config.pyproject import Settings, Sourced, resolve_settings
from gatecheck.reporting.columns import SourceLines
from gatecheck.reporting.grammar import count
from gatecheck.reporting.json_report import render_json
from gatecheck.reporting.plain import plain_console, takes_styles

FORMATS = ("text", "concise", "json", "sarif", "github", "markdown")
__all__ = ["ALL_RULES", "FORMATS", "check", "known_ids", "validate_ids"]


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


@cli.command(
    epilog=examples(
        "gatecheck check .                                  # every rule's feature",
        "gatecheck check . --output-format concise          # one line per finding",
        "gatecheck check . --diff                           # the fixes as a diff",
        "gatecheck check . --fix                            # apply them",
        "gatecheck check . --sarif-output gatecheck.sarif   # also SARIF for code scanning",
        "gatecheck check --baseline .gatecheck-baseline.json --new-since origin/main",
        "gatecheck check . --statistics                     # counts per rule and feature",
    )
)
@paths_argument
@rules_option
@generation_option
@click.option("--feature", "features", multiple=True, help="Check only these feature ids.")
@exclude_option
@select_option
@ignore_option
@output_format_option(FORMATS)
@click.option("--output", type=_file, help="Write the report here.")
@click.option("--sarif-output", type=_file, help="Also write a SARIF 2.1.0 report here.")
@click.option("--markdown-output", type=_file, help="Also write a Markdown report here.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings or diagnostics remain.")
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
@statistics_option
@verbose_option
@color_option
def check(statistics: bool, verbose: bool, **params: Any) -> None:
    """Check that every gate of every rule's feature admits the required generations.

    Exit 0: all checks passed; 1: findings, or files that could not be analysed (GC900);
    2: usage, config or internal error."""
    options = CheckOptions(**params)
    if options.fix and options.show_diff:
        raise click.UsageError("--fix and --diff cannot be used together: --diff writes nothing")
    run = start(options, verbose=verbose)
    for warning in app.gate_function_warnings(run):
        click.echo(warning, err=True)
    try:
        checked = app.refine(run, note=lambda line: click.echo(line, err=True))
    except app.CheckError as err:
        raise CheckError(str(err)) from err
    if checked.fix is not None:
        _print_fix(checked.fix)
    if options.show_diff:
        # The diff is the whole of stdout (what `patch` reads); the summary is on stderr.
        sys.exit(EXIT_FINDINGS if checked.diff_printed or checked.findings else EXIT_CLEAN)
    if statistics:
        _print_statistics(checked)
    else:
        report(checked)
    # A file not analysed (GC900, like ruff's E999) or a condition gatecheck failed on (a
    # contained bug) fails the run like a finding.
    failed = bool(checked.findings or run.analysis.diagnostics)
    sys.exit(EXIT_CLEAN if options.exit_zero or not failed else EXIT_FINDINGS)


def _print_fix(fix: app.FixOutcome) -> None:
    if fix.diff is not None:
        write_report(fix.diff, None)
    err = plain_console(stderr=True, color=color_choice())
    err.print(fix.summary)
    for reason in fix.reasons:
        err.print(f"  {reason}")


def _print_statistics(checked: Refined) -> None:
    # Imported here: the statistics module also counts audits (the audit package).
    from gatecheck.reporting.statistics import finding_statistics

    lines = finding_statistics(checked.findings)
    lines.append(summary_line(checked))
    write_report("".join(line + "\n" for line in lines), checked.run.options.output)


# --- settings and analysis ---------------------------------------------------------------


def start(options: CheckOptions, *, verbose: bool = False) -> CheckRun:
    # Settings come from the nearest [tool.gatecheck] of the paths checked (like ruff).
    settings = resolve_settings(options.overrides(), paths=options.paths)
    root = project_root_for(options.paths)
    if verbose:
        config = settings.config_file or "none found (defaults, the shipped rules)"
        click.echo(f"gatecheck: config: {config}; project root: {root}", err=True)
    ruleset = load_rules(settings.rules.value, cache_root=None if options.no_cache else root)
    validate_ids(settings, ruleset, options.features)
    # Files-scoped, the whole project is analysed: a gate's predicates may live anywhere.
    targets = [root] if options.files_scope else list(options.paths) or [Path.cwd()]
    with progress_reporter(quiet=options.quiet, what="analysing"):
        analysis = check_analysis(
            root,
            targets,
            ruleset,
            features=options.features,
            generations=settings.generations.value,
            excludes=settings.exclude.value,
            kernel_sources=options.kernel_sources,
            use_cache=not (options.no_cache or options.needs_trees),
            debug=debugging(),
        )
    return CheckRun(options, settings, ruleset, root, tuple(targets), analysis)


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


# --- reports -----------------------------------------------------------------------------------


def summary_line(checked: Refined) -> str:
    run, findings = checked.run, checked.findings
    analysis = run.analysis
    scope = (
        f"{count(analysis.gate_count, 'gate')} "
        f"({count(len(run.ruleset.features), 'feature')}, {files_summary(account(analysis))})"
    )
    line = f"{count(len(findings), 'finding')} in {scope}"
    if not (findings or analysis.diagnostics):
        line = f"All checks passed! {line}"
    if checked.hidden:
        line += "; not shown: " + ", ".join(f"{n} {why}" for why, n in checked.hidden)
    return line


def report(checked: Refined) -> None:
    options = checked.run.options
    if options.output_format in ("text", "concise"):
        _write_console(checked, options.output)
    else:
        _write(render(checked, options.output_format), options.output)
    if options.sarif_output:
        _write(render(checked, "sarif"), options.sarif_output)
    if options.markdown_output:
        _write(render(checked, "markdown"), options.markdown_output)
    if options.output_format != "github":
        return
    # The GitHub and Markdown reporters are imported by the runs that write them.
    from gatecheck.reporting.github import step_summary_path, summary_budget, write_step_summary

    summary = step_summary_path()
    if summary is not None:
        try:
            write_step_summary(summary, _markdown(checked, summary_budget(summary)))
        except OSError as err:
            raise cannot_write(summary, err) from err


def render(checked: Refined, output_format: str) -> str:
    """A machine-readable report as text (text and concise go through the console)."""
    run, findings = checked.run, list(checked.findings)
    analysis = run.analysis
    if output_format == "json":
        registry, accounting = run.ruleset.registry, account(analysis)
        diagnostics, paths = analysis.diagnostics, analysis.paths
        return render_json(findings, diagnostics, registry, Path.cwd(), accounting, paths) + "\n"
    if output_format == "sarif":
        from gatecheck.reporting.sarif import render_sarif

        suppressed = (
            [(f, s.reason) for f, s in checked.suppressed] if run.options.include_suppressed else []
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
        from gatecheck.reporting.github import render_github

        return render_github(findings, run.root, analysis.diagnostics)
    if output_format == "markdown":
        return _markdown(checked, None)
    raise ValueError(f"no renderer for {output_format!r}")


def _markdown(checked: Refined, max_bytes: int | None) -> str:
    from gatecheck.reporting.markdown import render_markdown

    run = checked.run
    env = os.environ
    link_base = None
    if all(env.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA")):
        link_base = (
            f"{env['GITHUB_SERVER_URL']}/{env['GITHUB_REPOSITORY']}/blob/{env['GITHUB_SHA']}"
        )
    return render_markdown(
        list(checked.findings),
        root=run.root,
        registry=run.ruleset.registry,
        summary=summary_line(checked),
        link_base=link_base,
        max_bytes=max_bytes,
        diagnostics=run.analysis.diagnostics,
    )


_write = write_report


def _write_console(checked: Refined, output: Path | None) -> None:
    run, base = checked.run, Path.cwd()
    with report_stream(output) as handle:
        stream, color = handle or sys.stdout, color_choice()
        # Imported here: a JSON, SARIF or GitHub report never loads it. A stream that
        # takes no styles (a pipe, a file: pre-commit, CI) is written plain, without rich
        # (reporting/styled.py).
        from gatecheck.reporting.styled import PlainPrinter, Printer, RichPrinter
        from gatecheck.reporting.text import render_concise, render_diagnostics, render_finding

        console: Printer = (
            RichPrinter(plain_console(handle, color=color))
            if takes_styles(stream, color)
            else PlainPrinter(stream)
        )
        lines = SourceLines()  # each reported file read once
        if run.options.output_format == "concise":
            render_concise(console, list(checked.findings), base)
            render_diagnostics(console, run.analysis.diagnostics, base)  # one line each too
            return
        for finding in checked.findings:
            if finding.gate_kind is None:  # about a suppression comment, not a gate
                render_concise(console, [finding], base)
            else:
                render_finding(console, finding, run.ruleset.registry, base, lines)
        render_diagnostics(console, run.analysis.diagnostics, base)
        console.print(summary_line(checked), style="bold" if checked.findings else "green")
