"""`gatecheck impact BASE`: what the working tree does to each generation's gates
compared with BASE (see gatecheck/impact/)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click

from gatecheck.audit.report import AuditReport
from gatecheck.cache import CACHE_DIR, unusable_folder
from gatecheck.cli.caching import audit_report_cached
from gatecheck.cli.common import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    cannot_write,
    cli,
    debugging,
    examples,
    kernel_source_option,
    load_rules,
    no_cache_option,
    output_format_option,
    progress_reporter,
    project_root_for,
    quiet_option,
    rules_option,
    verbose_option,
    write_report,
)
from gatecheck.impact.model import ImpactReport
from gatecheck.impact.run import OnOpen, run_impact
from gatecheck.impact.snapshot import BaseError, base_and_paths
from gatecheck.reporting.github import step_summary_path, summary_budget, write_step_summary
from gatecheck.reporting.impact_common import summary_line

FORMATS = ("text", "json", "github", "markdown", "sarif")


class ImpactError(click.ClickException):
    exit_code = EXIT_ERROR


@cli.command(
    epilog=examples(
        "gatecheck impact                       # against the merge-base with main",
        "gatecheck impact origin/main src/      # only src/",
        "gatecheck impact src/                  # only src/, against the merge-base with main",
        "gatecheck impact origin/main --format github --sarif-output impact.sarif",
    )
)
@click.argument("base", required=False, metavar="[BASE]")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@rules_option
@click.option(
    "--generation",
    help="Any generation of the vendor to compare (default: the newest NVIDIA one); "
    "every generation of its vendor is compared.",
)
@click.option("--exclude", "excludes", multiple=True, help="Glob of paths to skip (repeatable).")
@output_format_option(FORMATS)
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), help="Write here.")
@click.option(
    "--sarif-output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write a SARIF report here.",
)
@click.option("--allow-narrowing", is_flag=True, help="Exit 0 on narrowed gates (still reported).")
@click.option(
    "--one-process",
    is_flag=True,
    help="Audit BASE, then the working tree (default: both at once, in two processes, "
    "on Linux with two cores or more).",
)
@kernel_source_option
@no_cache_option
@quiet_option
@verbose_option
def impact(
    base: str | None,
    paths: tuple[Path, ...],
    rules: tuple[Path, ...],
    generation: str | None,
    excludes: tuple[str, ...],
    output_format: str,
    output: Path | None,
    sarif_output: Path | None,
    allow_narrowing: bool,
    one_process: bool,
    kernel_sources: tuple[Path, ...],
    no_cache: bool,
    quiet: bool,
    verbose: bool,
) -> None:
    """Compare the gates of the working tree with those of BASE (a git revision; default:
    the merge-base of HEAD with the default branch): per generation, what is narrowed
    (error), widened (notice; an error past what the kernels are built for), which new
    gates shut generations out and which gates are gone. BASE is read from git objects,
    never checked out. `gatecheck impact src/` (a path, no revision) compares src/ with
    the default BASE. Exit 1 on a narrowing (unless --allow-narrowing) or a widening
    past the kernels."""
    try:
        base, targets = base_and_paths(base, paths, Path.cwd())
    except BaseError as err:
        raise ImpactError(str(err)) from err
    root = project_root_for(targets)
    use_cache = not no_cache and unusable_folder(root) is None
    ruleset = load_rules(rules, cache_root=root if use_cache else None)
    nvidia = [g.name for g in ruleset.registry.generations if g.vendor == "nvidia"]
    chosen = generation or (nvidia or list(ruleset.registry.names))[-1]
    if chosen not in ruleset.registry:
        known = ", ".join(ruleset.registry.names)
        raise click.BadParameter(
            f"unknown generation {chosen!r} (known: {known})", param_hint="--generation"
        )

    def audit(
        where: Sequence[Path],
        only: Sequence[Path] | None,
        *,
        record_reads: bool = False,
        on_open: OnOpen | None = None,
        laid_over: bool = False,
    ) -> AuditReport:
        return audit_report_cached(
            root,
            where,
            ruleset,
            chosen,
            columns=None,
            excludes=excludes,
            kernel_sources=kernel_sources,
            use_cache=use_cache,
            debug=debugging(),
            only=only,
            record_reads=record_reads,
            on_open=on_open,
            laid_over=laid_over,
        )

    try:
        with progress_reporter(quiet=quiet, what="impact"):
            report = run_impact(
                targets,
                base,
                audit,
                ruleset.registry,
                chosen,
                excludes=excludes,
                keep_in=root / CACHE_DIR if use_cache else None,
                parallel=not one_process and not debugging(),
            )
    except BaseError as err:
        raise ImpactError(str(err)) from err
    if verbose:
        click.echo(f"gatecheck: project root: {root}; BASE {report.commit}", err=True)
    _report(report, root, output_format, output, sarif_output)
    failed = (report.narrowed and not allow_narrowing) or report.widened_past_kernels
    sys.exit(EXIT_FINDINGS if failed else EXIT_CLEAN)


def _report(
    report: ImpactReport,
    root: Path,
    output_format: str,
    output: Path | None,
    sarif_output: Path | None,
) -> None:
    write_report(_render(report, output_format, root), output)
    if sarif_output is not None:
        write_report(_render(report, "sarif", root), sarif_output)
    summary = step_summary_path()
    if output_format == "github":
        click.echo(summary_line(report), err=True)
        if summary is not None:
            from gatecheck.reporting.impact_markdown import render_impact_markdown

            try:
                markdown = render_impact_markdown(report, root, summary_budget(summary))
                write_step_summary(summary, markdown)
            except OSError as err:
                raise cannot_write(summary, err) from err


def _render(report: ImpactReport, output_format: str, root: Path) -> str:
    if output_format == "json":
        from gatecheck.reporting.impact_json import render_impact_json

        return render_impact_json(report, Path.cwd())
    if output_format == "github":
        from gatecheck.reporting.impact_github import render_impact_github

        return render_impact_github(report, root)
    if output_format == "markdown":
        from gatecheck.reporting.impact_markdown import render_impact_markdown

        return render_impact_markdown(report, Path.cwd())
    if output_format == "sarif":
        from gatecheck.reporting.impact_sarif import render_impact_sarif

        return render_impact_sarif(report, root)
    from gatecheck.reporting.impact_text import render_impact_text

    return render_impact_text(report, Path.cwd())
