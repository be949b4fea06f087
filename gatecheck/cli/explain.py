"""`gatecheck explain FEATURE`: the activation path, hop by hop, and a verdict."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from gatecheck.cli.common import (
    check_generations,
    cli,
    generation_option,
    kernel_source_option,
    load_rules,
    rules_option,
)
from gatecheck.engine import analyse
from gatecheck.reporting.explain import render_json, render_tree
from gatecheck.tracing.paths import build_path


@cli.command()
@click.argument("feature")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@rules_option
@generation_option
@kernel_source_option
@click.option(
    "--format",
    "output_format",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
)
def explain(
    feature: str,
    paths: tuple[Path, ...],
    rules: tuple[Path, ...],
    generations: tuple[str, ...],
    output_format: str,
    kernel_sources: tuple[Path, ...],
) -> None:
    """Show why FEATURE is on or off per generation: its CLI option, settings field,
    auto-enable and runtime gates, and their callers."""
    ruleset = load_rules(rules)
    check_generations(ruleset, generations)
    chosen = next((f for f in ruleset.features if f.id == feature), None)
    if chosen is None:
        known = ", ".join(f.id for f in ruleset.features) or "none"
        raise click.BadParameter(
            f"unknown feature {feature!r} (known: {known})", param_hint="FEATURE"
        )
    targets = list(paths) or [Path.cwd()]
    analysis = analyse(targets, ruleset, features=[feature], kernel_sources=kernel_sources)
    path = build_path(analysis, chosen)
    shown = list(generations) or ruleset.registry.ordered(chosen.require)
    base = Path.cwd()
    if output_format == "json":
        click.echo(render_json(path, shown, ruleset.registry, base))
    else:
        console = Console(highlight=False)
        if not console.is_terminal:
            console = Console(highlight=False, width=200)  # files and CI logs: don't cut paths
        render_tree(console, path, shown, ruleset.registry, base)
