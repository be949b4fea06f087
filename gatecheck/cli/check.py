"""`gatecheck check`: findings for every rule's feature."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console

from gatecheck.cli.common import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    check_generations,
    cli,
    generation_option,
    load_rules,
    paths_argument,
    rules_option,
)
from gatecheck.config.model import RuleSet
from gatecheck.engine import Analysis, analyse
from gatecheck.findings import Finding
from gatecheck.fixing.fixer import attach_fixes, plan_fixes, write_changes
from gatecheck.reporting.json_report import render_json
from gatecheck.reporting.paths import display_path
from gatecheck.reporting.text import render_concise, render_diagnostics, render_finding

FORMATS = ("text", "concise", "json")


def _run_fixes(
    analysis: Analysis,
    ruleset: RuleSet,
    targets: list[Path],
    fix: bool,
    show_diff: bool,
    features: tuple[str, ...],
    generations: tuple[str, ...],
    excludes: tuple[str, ...],
    base: Path,
) -> tuple[list[Finding], bool]:
    """Plan and verify fixes; print the diff or write. Returns the findings still left."""
    report = plan_fixes(
        analysis,
        ruleset,
        targets,
        features=features or None,
        generations=generations or None,
        excludes=excludes,
    )
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if show_diff:
        names = {path: display_path(path, base) for path in report.changes}
        click.echo(report.diff(names), nl=False)
    elif fix:
        write_changes(report, analysis.project.roots)
    written = {p for p in report.changes} - {p for p, _ in report.not_written}
    fixed_ids = {id(f) for f, _plan in report.fixed if show_diff or f.path in written}
    remaining = [
        f for f in attach_fixes(analysis.findings, report, keep=lambda f: id(f) not in fixed_ids)
    ]
    fixed = fixed_ids
    reasons = [f"{display_path(f.path, base)}:{f.start.line}: {why}" for f, why in report.refused]
    reasons += [f"{display_path(p, base)}: {why}" for p, why in report.not_written]
    verb = "would fix" if show_diff else "fixed"
    err.print(f"{len(fixed)} {verb}, {len(remaining)} left" + (":" if reasons else ""))
    for reason in reasons:
        err.print(f"  {reason}", markup=False)
    return remaining, bool(report.changes)


@cli.command()
@paths_argument
@rules_option
@generation_option
@click.option("--feature", "features", multiple=True, help="Check only these feature ids.")
@click.option("--exclude", "excludes", multiple=True, help="Glob of paths to skip (repeatable).")
@click.option(
    "--format", "output_format", type=click.Choice(FORMATS), default="text", show_default=True
)
@click.option(
    "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here."
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--fix", is_flag=True, help="Rewrite failing gates (verified edits, atomic writes).")
@click.option(
    "--diff", "show_diff", is_flag=True, help="Print the fixes as a unified diff; write nothing."
)
def check(
    paths: tuple[Path, ...],
    rules: tuple[Path, ...],
    generations: tuple[str, ...],
    features: tuple[str, ...],
    excludes: tuple[str, ...],
    output_format: str,
    output: Path | None,
    exit_zero: bool,
    fix: bool,
    show_diff: bool,
) -> None:
    """Check that every gate of every rule's feature admits the required generations."""
    ruleset = load_rules(rules)
    check_generations(ruleset, generations)
    known_features = {f.id for f in ruleset.features}
    for feature in features:
        if feature not in known_features:
            raise click.BadParameter(f"unknown feature {feature!r}", param_hint="--feature")
    targets = list(paths) or [Path.cwd()]
    analysis = analyse(
        targets,
        ruleset,
        features=features or None,
        generations=generations or None,
        excludes=excludes,
    )
    findings = analysis.findings
    base = Path.cwd()
    if (fix or show_diff) and findings:
        findings, changed = _run_fixes(
            analysis, ruleset, targets, fix, show_diff, features, generations, excludes, base
        )
        if show_diff and changed:
            sys.exit(EXIT_FINDINGS)
    handle = output.open("w", encoding="utf-8") if output else None
    try:
        console = (
            Console(file=handle, highlight=False, soft_wrap=True)
            if handle
            else Console(highlight=False, soft_wrap=True)
        )
        if output_format == "json":
            console.file.write(
                render_json(findings, analysis.diagnostics, ruleset.registry, base) + "\n"
            )
        elif output_format == "concise":
            render_concise(console, findings, base)
        else:
            for finding in findings:
                render_finding(console, finding, ruleset.registry, base)
            render_diagnostics(console, analysis.diagnostics, base)
            parsed = len(analysis.project.loaded_modules())
            noun = "finding" if len(findings) == 1 else "findings"
            console.print(
                f"{len(findings)} {noun} in {len(analysis.gate_results)} gates "
                f"({len(ruleset.features)} features, {len(analysis.project.files)} files, "
                f"{parsed} parsed)",
                style="bold" if findings else "green",
            )
    finally:
        if handle:
            handle.close()
    sys.exit(EXIT_CLEAN if exit_zero or not findings else EXIT_FINDINGS)
