"""`gatecheck audit`: the report for a new GPU generation, without rules."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gatecheck.audit import AuditReport, GateClass
from gatecheck.cli.caching import audit_report_cached
from gatecheck.cli.common import (
    EXIT_FINDINGS,
    cli,
    color_choice,
    color_option,
    debugging,
    examples,
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
from gatecheck.config.model import RuleSet
from gatecheck.containment import is_internal_error
from gatecheck.reporting.audit_filter import only_classes
from gatecheck.reporting.audit_html import render_audit_html
from gatecheck.reporting.audit_json import render_audit_json
from gatecheck.reporting.audit_markdown import render_audit_markdown
from gatecheck.reporting.audit_text import render_audit_text
from gatecheck.reporting.plain import plain_console
from gatecheck.reporting.statistics import audit_statistics

FORMATS = ("text", "markdown", "json", "html")

generation_required = click.option(
    "--generation", "generation", required=True, help="The new generation (e.g. sm120)."
)
columns_option = click.option(
    "--columns",
    "columns",
    multiple=True,
    help="Matrix columns, comma-separated or repeated (default: the vendor's, sm80 up).",
)
exclude_option = click.option(
    "--exclude", "excludes", multiple=True, help="Glob of paths to skip (repeatable)."
)
output_option = click.option(
    "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here."
)


def audit_report(
    paths: tuple[Path, ...],
    rules: tuple[Path, ...],
    generation: str,
    columns: tuple[str, ...],
    excludes: tuple[str, ...],
    kernel_sources: tuple[Path, ...] = (),
    *,
    use_cache: bool = True,
    quiet: bool = False,
    verbose: bool = False,
    jobs: int = 0,
) -> tuple[AuditReport, RuleSet]:
    root = project_root_for(paths)
    if verbose:
        click.echo(f"gatecheck: project root: {root} (audit reads no pyproject settings)", err=True)
    ruleset = load_rules(rules, cache_root=root if use_cache else None)
    wanted = [c.strip() for value in columns for c in value.split(",") if c.strip()]
    for name, hint in [(generation, "--generation")] + [(c, "--columns") for c in wanted]:
        if name not in ruleset.registry:
            known = ", ".join(ruleset.registry.names)
            raise click.BadParameter(
                f"unknown generation {name!r} (known: {known})", param_hint=hint
            )
    targets = list(paths) or [Path.cwd()]
    with progress_reporter(quiet=quiet, what="auditing"):
        report = audit_report_cached(
            root,
            targets,
            ruleset,
            generation,
            columns=wanted or None,
            excludes=excludes,
            kernel_sources=kernel_sources,
            use_cache=use_cache,
            debug=debugging(),
            jobs=jobs,
        )
    return report, ruleset


@cli.command(
    epilog=examples(
        "gatecheck audit . --generation sm120                    # a table on a terminal",
        "gatecheck audit . --generation sm120 | grep likely-gap  # one line per gate",
        "gatecheck audit . --generation sm120 --class likely-gap --statistics",
        "gatecheck audit . --generation sm120 --output-format html --output audit.html \\",
        "    --source-url 'https://github.com/ORG/REPO/blob/SHA/{path}#L{line}'",
    )
)
@paths_argument
@rules_option
@generation_required
@columns_option
@exclude_option
@output_format_option(FORMATS)
@output_option
@click.option(
    "--class",
    "classes",
    multiple=True,
    type=click.Choice([c.value for c in GateClass]),
    help="Show only gates of this class (repeatable).",
)
@click.option(
    "--source-url",
    metavar="TEMPLATE",
    help="HTML: link each place to the code, e.g. "
    "'https://github.com/ORG/REPO/blob/SHA/{path}#L{line}' (default: plain relative paths).",
)
@statistics_option
@kernel_source_option
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=0),
    default=0,
    metavar="N",
    help="Processes that evaluate the conditions (0, the default: one per core, at most 4; "
    "1: this process alone). The report is the same.",
)
@no_cache_option
@quiet_option
@verbose_option
@color_option
def audit(
    paths: tuple[Path, ...],
    rules: tuple[Path, ...],
    generation: str,
    columns: tuple[str, ...],
    excludes: tuple[str, ...],
    output_format: str,
    output: Path | None,
    classes: tuple[str, ...],
    source_url: str | None,
    statistics: bool,
    kernel_sources: tuple[Path, ...],
    jobs: int,
    no_cache: bool,
    quiet: bool,
    verbose: bool,
) -> None:
    """Find every architecture gate (no rules needed) and classify it for GENERATION:
    admits it, likely gap, probably deliberate, or decided (rules' exclude / inline
    suppression). Likely gaps come first."""
    report, _ = audit_report(
        paths,
        rules,
        generation,
        columns,
        excludes,
        kernel_sources,
        use_cache=not no_cache,
        quiet=quiet,
        verbose=verbose,
        jobs=jobs,
    )
    shown = only_classes(report, classes)
    if classes:
        click.echo(
            f"gatecheck: {len(shown.gates)} of {len(report.gates)} gates shown "
            f"(--class {' '.join(classes)})",
            err=True,
        )
    base = Path.cwd()
    if statistics:
        write_report("".join(line + "\n" for line in audit_statistics(shown)), output)
        _exit_on_internal_errors(report)
        return
    if output_format == "text":
        # The matrix for a person at a terminal (its width); elsewhere one line per gate.
        table = output is None and sys.stdout.isatty()
        with report_stream(output) as handle:
            console = plain_console(handle, color=color_choice(), soft_wrap=not table)
            render_audit_text(console, shown, base, table=table)
        _exit_on_internal_errors(report)
        return
    if output_format == "html":
        text = render_audit_html(shown, base, source_url)
    else:
        text = {"markdown": render_audit_markdown, "json": render_audit_json}[output_format](
            shown, base
        )
    write_report(text if text.endswith("\n") else text + "\n", output)
    _exit_on_internal_errors(report)


def _exit_on_internal_errors(report: AuditReport) -> None:
    # The report is complete but for conditions gatecheck failed on: say so in the exit code.
    if any(map(is_internal_error, report.diagnostics)):
        sys.exit(EXIT_FINDINGS)
