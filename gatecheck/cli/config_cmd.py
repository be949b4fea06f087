"""`gatecheck config show`: the effective settings and where each one came from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

import click

from gatecheck.cli.check import exclude_option, ignore_option, select_option, validate_ids
from gatecheck.cli.common import (
    cli,
    examples,
    generation_option,
    load_rules,
    project_root_for,
    rules_option,
)
from gatecheck.config.pyproject import (
    Overrides,
    Settings,
    Sourced,
    resolve_settings,
)
from gatecheck.resources import shipped_rules_dir
from gatecheck.vcs import git_toplevel

T = TypeVar("T")

DEFAULT_NOTES = {
    "rules": "default: the shipped rules",
    "generations": "default: every generation in the registry",
    "exclude": "default: none beyond the built-in folders (.git, .venv, build...)",
    "select": "default: every rule and feature",
    "ignore": "default: nothing",
    "per-file-ignores": "default: none",
}


@cli.group(epilog=examples("gatecheck config show ."))
def config() -> None:
    """Inspect gatecheck's configuration."""


@config.command(
    epilog=examples(
        "gatecheck config show                 # for the working directory",
        "gatecheck config show path/to/project # what `gatecheck check path/to/project` uses",
    )
)
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@rules_option
@generation_option
@exclude_option
@select_option
@ignore_option
def show(
    paths: tuple[Path, ...],
    rules: tuple[Path, ...],
    generations: tuple[str, ...],
    excludes: tuple[str, ...],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
) -> None:
    """Print the effective settings ([tool.gatecheck] with flags on top) and their origin,
    for a run over PATHS (default: the working directory): the config is the nearest
    pyproject.toml with [tool.gatecheck] from each path upwards, as `check` finds it."""
    overrides = Overrides(rules, generations, excludes, select, ignore)
    settings = resolve_settings(overrides, paths=paths)
    ruleset = load_rules(settings.rules.value)
    validate_ids(settings, ruleset, ())
    for line in describe(settings, paths):
        click.echo(line)
    click.echo("# rule files loaded:")
    for source in ruleset.sources:
        click.echo(f"#   {source}")


def describe(settings: Settings, paths: tuple[Path, ...] = ()) -> list[str]:
    cwd = Path.cwd().resolve()
    found = settings.config_file
    starts = ", ".join(str(p) for p in paths) or str(cwd)
    where = str(found) if found else f"none ([tool.gatecheck] not found from {starts} upwards)"
    project = project_root_for(paths)
    root = f"{project} (git work tree)" if git_toplevel(project) == project else f"{project}"
    rules = settings.rules
    shown_rules = rules if rules.value else Sourced((shipped_rules_dir(),))
    lines = [f"# config file: {where}", f"# project root: {root}"]
    lines.append(_line("rules", [str(p) for p in shown_rules.value], rules))
    lines.append(_line("generations", list(settings.generations.value), settings.generations))
    lines.append(_line("exclude", list(settings.exclude.value), settings.exclude))
    lines.append(_line("select", list(settings.select.value), settings.select))
    lines.append(_line("ignore", list(settings.ignore.value), settings.ignore))
    table = ", ".join(
        f"{json.dumps(glob)} = {json.dumps(list(ids))}"
        for glob, ids in settings.per_file_ignores.value
    )
    per_file = settings.per_file_ignores
    origin = per_file.describe() if per_file.value else DEFAULT_NOTES["per-file-ignores"]
    lines.append(f"per-file-ignores = {{{table}}}  # {origin}")
    return lines


def _line(key: str, value: list[str], setting: Sourced[T]) -> str:
    origin = setting.describe() if setting.value else DEFAULT_NOTES[key]
    return f"{key} = {json.dumps(value)}  # {origin}"
