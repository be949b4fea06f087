"""`gatecheck explain FEATURE`: the activation path, hop by hop, and a verdict."""

from __future__ import annotations

from pathlib import Path

import click

from gatecheck.cli.common import (
    check_generations,
    cli,
    color_choice,
    color_option,
    examples,
    generation_option,
    kernel_source_option,
    load_rules,
    no_cache_option,
    output_format_option,
    project_root_for,
    report_stream,
    rules_option,
    verbose_option,
    write_report,
)
from gatecheck.config.pyproject import Overrides, resolve_settings
from gatecheck.engine import analyse
from gatecheck.reporting.explain import render_json, render_tree
from gatecheck.reporting.plain import plain_console
from gatecheck.tracing.paths import build_path


@cli.command(
    epilog=examples(
        "gatecheck explain flashinfer-allreduce-fusion . --generation sm120",
        "gatecheck explain flashinfer-allreduce-fusion . --output-format json --output path.json",
        "gatecheck explain fused-moe src --exclude 'src/vendored/*'",
    )
)
@click.argument("feature")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@rules_option
@generation_option
@click.option("--exclude", "excludes", multiple=True, help="Glob of paths to skip (repeatable).")
@kernel_source_option
@output_format_option(("text", "json"))
@click.option(
    "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here."
)
@no_cache_option
@verbose_option
@color_option
def explain(
    feature: str,
    paths: tuple[Path, ...],
    rules: tuple[Path, ...],
    generations: tuple[str, ...],
    excludes: tuple[str, ...],
    kernel_sources: tuple[Path, ...],
    output_format: str,
    output: Path | None,
    no_cache: bool,
    verbose: bool,
) -> None:
    """Show why FEATURE is on or off per generation: its CLI option, settings field,
    auto-enable and runtime gates, and their callers.

    The path is always traced afresh (it needs the syntax trees); --no-cache also keeps
    the rules from being read back from .gatecheck_cache/."""
    # The same settings as `check` on these paths: rules and excludes from [tool.gatecheck].
    settings = resolve_settings(Overrides(rules=rules, exclude=excludes), paths=paths)
    root = project_root_for(paths)
    if verbose:
        config = settings.config_file or "none found (defaults, the shipped rules)"
        click.echo(f"gatecheck: config: {config}; project root: {root}", err=True)
    ruleset = load_rules(settings.rules.value, cache_root=None if no_cache else root)
    check_generations(ruleset, generations)
    chosen = next((f for f in ruleset.features if f.id == feature), None)
    if chosen is None:
        known = ", ".join(f.id for f in ruleset.features) or "none"
        raise click.BadParameter(
            f"unknown feature {feature!r} (known: {known})", param_hint="FEATURE"
        )
    targets = list(paths) or [Path.cwd()]
    analysis = analyse(
        targets,
        ruleset,
        features=[feature],
        excludes=settings.exclude.value,
        kernel_sources=kernel_sources,
    )
    path = build_path(analysis, chosen)
    shown = list(generations) or ruleset.registry.ordered(chosen.require)
    base = Path.cwd()
    if output_format == "json":
        write_report(render_json(path, shown, ruleset.registry, base) + "\n", output)
        return
    with report_stream(output) as handle:
        # A tree is drawn to the terminal's width; files and CI logs get room for paths.
        console = plain_console(handle, color=color_choice(), soft_wrap=False)
        if not console.is_terminal:
            console = plain_console(handle, color=color_choice(), width=200, soft_wrap=False)
        render_tree(console, path, shown, ruleset.registry, base)
