"""`gatecheck audit`: the report for a new GPU generation, without rules."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console

from gatecheck.audit import AuditReport
from gatecheck.cli.caching import audit_report_cached
from gatecheck.cli.common import (
    EXIT_FINDINGS,
    cli,
    debugging,
    kernel_source_option,
    load_rules,
    no_cache_option,
    paths_argument,
    progress_reporter,
    quiet_option,
    rules_option,
)
from gatecheck.config.model import RuleSet
from gatecheck.containment import is_internal_error
from gatecheck.reporting.audit_html import render_audit_html
from gatecheck.reporting.audit_json import render_audit_json
from gatecheck.reporting.audit_markdown import render_audit_markdown
from gatecheck.reporting.audit_text import render_audit_text
from gatecheck.vcs import project_root

FORMATS = ("text", "markdown", "json", "html")
# A text report written to a file is read in an editor, not an 80-column pipe.
FILE_WIDTH = 160

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
) -> tuple[AuditReport, RuleSet]:
    root = project_root()
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
        )
    return report, ruleset


@cli.command()
@paths_argument
@rules_option
@generation_required
@columns_option
@exclude_option
@click.option(
    "--format", "output_format", type=click.Choice(FORMATS), default="text", show_default=True
)
@output_option
@kernel_source_option
@no_cache_option
@quiet_option
def audit(
    paths: tuple[Path, ...],
    rules: tuple[Path, ...],
    generation: str,
    columns: tuple[str, ...],
    excludes: tuple[str, ...],
    output_format: str,
    output: Path | None,
    kernel_sources: tuple[Path, ...],
    no_cache: bool,
    quiet: bool,
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
    )
    base = Path.cwd()
    if output_format == "text":
        handle = output.open("w", encoding="utf-8") if output else None
        try:
            console = (
                Console(file=handle, highlight=False, width=FILE_WIDTH)
                if handle
                else Console(highlight=False)
            )
            render_audit_text(console, report, base)
        finally:
            if handle:
                handle.close()
        _exit_on_internal_errors(report)
        return
    renderers = {
        "markdown": render_audit_markdown,
        "json": render_audit_json,
        "html": render_audit_html,
    }
    text = renderers[output_format](report, base)
    if output:
        output.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=not text.endswith("\n"))
    _exit_on_internal_errors(report)


def _exit_on_internal_errors(report: AuditReport) -> None:
    # The report is complete but for conditions gatecheck failed on: say so in the exit code.
    if any(map(is_internal_error, report.diagnostics)):
        sys.exit(EXIT_FINDINGS)
