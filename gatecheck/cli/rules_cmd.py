"""`gatecheck rules suggest`: a YAML rule skeleton from the audit."""

from __future__ import annotations

from pathlib import Path

import click

from gatecheck.cli.audit import (
    audit_report,
    columns_option,
    exclude_option,
    generation_required,
    output_option,
)
from gatecheck.cli.common import (
    cli,
    examples,
    load_rules,
    paths_argument,
    rules_option,
    write_report,
)
from gatecheck.suggest import render_suggestion


@cli.group(
    epilog=examples("gatecheck rules validate", "gatecheck rules suggest . --generation sm120")
)
def rules() -> None:
    """Work with rule files."""


@rules.command(
    epilog=examples(
        "gatecheck rules suggest . --generation sm120 --output gatecheck-rules/sm120.yaml",
        "gatecheck rules validate gatecheck-rules/sm120.yaml",
    )
)
@paths_argument
@rules_option
@generation_required
@columns_option
@exclude_option
@output_option
def suggest(
    paths: tuple[Path, ...],
    rules: tuple[Path, ...],
    generation: str,
    columns: tuple[str, ...],
    excludes: tuple[str, ...],
    output: Path | None,
) -> None:
    """Write rules for every feature the audit finds: its gates in comments, `require`
    pre-filled from what they admit today (plus GENERATION where a gate is a likely gap)."""
    report, ruleset = audit_report(paths, rules, generation, columns, excludes)
    shown = " ".join(str(p) for p in paths)
    command = f"gatecheck rules suggest {shown} --generation {generation}".replace("  ", " ")
    text = render_suggestion(report, ruleset, Path.cwd(), command)
    write_report(text, output)


@rules.command(
    epilog=examples(
        "gatecheck rules validate                       # the shipped rules",
        "gatecheck rules validate gatecheck-rules/*.yaml",
    )
)
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
def validate(files: tuple[Path, ...]) -> None:
    """Validate rule files (default: the shipped ones) and list their features.

    Every problem is reported as `file:line:col: message` (exit 2)."""
    ruleset = load_rules(files)
    registry = ruleset.registry
    for feature in ruleset.features:
        where = f"{feature.location}: " if feature.location else ""
        required = ", ".join(registry.ordered(feature.require))
        click.echo(f"{where}{feature.id}: requires {required}")
    sources = ", ".join(str(path) for path in ruleset.sources)
    click.echo(
        f"{len(ruleset.features)} features, {len(ruleset.vocabulary)} vocabulary entries, "
        f"{len(registry.names)} generations ({sources})"
    )
