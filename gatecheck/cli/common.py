"""Command line: `gatecheck check | explain | audit | rules`. Exit 0 clean, 1 findings,
2 usage, config or internal error."""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

import click

from gatecheck import __version__
from gatecheck.cli.collector import few_collections
from gatecheck.config.model import ConfigErrors, RuleSet
from gatecheck.config.shipped import shipped_ruleset
from gatecheck.config.sources import rule_sources
from gatecheck.progress import listening

if TYPE_CHECKING:
    from rich.console import Console

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
F = TypeVar("F", bound=Callable[..., object])
COLOR_CHOICES = ("auto", "always", "never")
COLOR_KEY = "gatecheck.color"


class ReportError(click.ClickException):
    """A report that cannot be written (a missing folder, a full disk): one line, exit 2."""

    exit_code = EXIT_ERROR


def cannot_write(target: Path | str, err: OSError) -> ReportError:
    return ReportError(f"cannot write report: {target}: {err.strerror or err}")


def write_report(text: str, path: Path | None) -> None:
    """`text` to the file, or to stdout; a failure is a one-line error (exit 2)."""
    if path is None:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except OSError as err:
            raise cannot_write("<stdout>", err) from err
        return
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise cannot_write(path, err) from err


@contextmanager
def report_stream(path: Path | None) -> Iterator[IO[str] | None]:
    """The file a console report goes to (None: stdout), closed and checked at the end."""
    try:
        handle = path.open("w", encoding="utf-8") if path else None
    except OSError as err:
        raise cannot_write(path or "<stdout>", err) from err
    try:
        yield handle
        (handle or sys.stdout).flush()
    except OSError as err:
        raise cannot_write(path or "<stdout>", err) from err
    finally:
        if handle is not None:
            try:
                handle.close()
            except OSError as err:
                raise cannot_write(path or "<stdout>", err) from err


def color_choice() -> str:
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        if COLOR_KEY in ctx.meta:
            return str(ctx.meta[COLOR_KEY])
        ctx = ctx.parent
    return "auto"


def _set_color(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.meta[COLOR_KEY] = value


def color_option(function: F) -> F:
    """`--color auto|always|never` (like ruff); also accepted before the command."""
    decorator = click.option(
        "--color",
        type=click.Choice(COLOR_CHOICES),
        default=None,
        expose_value=False,
        is_eager=True,
        callback=_set_color,
        help="Colour the output: auto (on a terminal; NO_COLOR and FORCE_COLOR are honoured), "
        "always or never.",
    )
    return decorator(function)


def output_format_option(formats: Sequence[str]) -> Callable[[F], F]:
    """`--format` and its ruff spelling `--output-format`."""
    return click.option(
        "--format",
        "--output-format",
        "output_format",
        type=click.Choice(formats),
        default="text",
        show_default=True,
        help="Report format.",
    )


statistics_option = click.option(
    "--statistics",
    is_flag=True,
    help="Print counts per class or rule and per feature instead of the report.",
)
verbose_option = click.option(
    "--verbose", "-v", is_flag=True, help="Say on stderr which config and project root are used."
)


def examples(*lines: str) -> str:
    """A --help epilog: click keeps the lines as they are after a \b line."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)


def project_root_for(paths: Sequence[Path]) -> Path:
    """What reports, the cache and the files scope are relative to: the working directory's
    project (git work tree, else the folder itself), unless the paths lie outside it; then
    the first path's project."""
    from gatecheck.vcs import project_root

    here = project_root()
    outside = [p for p in paths if not p.resolve().is_relative_to(here)]
    if not outside:
        return here
    first = outside[0].resolve()
    return project_root(first if first.is_dir() else first.parent)


# Commands are imported when used: `gatecheck check` in a pre-commit hook should not pay
# for the audit's HTML renderer.
COMMAND_MODULES = {
    "audit": "gatecheck.cli.audit",
    "check": "gatecheck.cli.check",
    "config": "gatecheck.cli.config_cmd",
    "explain": "gatecheck.cli.explain",
    "impact": "gatecheck.cli.impact",
    "rules": "gatecheck.cli.rules_cmd",
}


class GatecheckGroup(click.Group):
    """Loads commands lazily; turns config errors and crashes into one-line messages
    with exit 2; runs each command with few garbage collector passes."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        with few_collections():
            return super().main(*args, **kwargs)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMAND_MODULES))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            importlib.import_module(COMMAND_MODULES[cmd_name])
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except ConfigErrors as err:
            for error in err.errors:
                click.echo(str(error), err=True)
            ctx.exit(EXIT_ERROR)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except Exception as err:  # contained: one line, unless --debug
            if ctx.meta.get("gatecheck.debug"):
                raise
            click.echo(f"gatecheck: internal error: {type(err).__name__}: {err}", err=True)
            ctx.exit(EXIT_ERROR)
        return None


def load_rules(rules: Sequence[Path], *, cache_root: Path | None = None) -> RuleSet:
    """The rules; given the project root, rules already loaded from these very file
    contents are read back from its .gatecheck_cache/ (no YAML parse, no validation).
    The shipped rules, unedited, come from the data recorded with them (config/shipped.py)."""
    paths = list(rules) if rules else None
    if paths is None:
        shipped = shipped_ruleset()
        if shipped is not None:
            return shipped
    sources = rule_sources(paths) if cache_root is not None else None
    if cache_root is None or sources is None:
        return _read_rules(paths)
    from gatecheck.cache import RunCache, cache_key, content_digest, from_data, to_data

    cache = RunCache(cache_root, "rules", cache_key("rules", files=content_digest(sources)))
    hit = cache.load((), lambda text: True)
    if hit is not None:
        try:
            restored: RuleSet = from_data(RuleSet, hit.payload)
            return restored
        except (TypeError, ValueError, KeyError):
            pass
    ruleset = _read_rules(paths)
    try:
        data = to_data(ruleset)
    except TypeError:
        return ruleset
    cache.store((), (), data)
    return ruleset


def _read_rules(paths: Sequence[Path] | None) -> RuleSet:
    # The loader (PyYAML, jsonschema) is imported only when the rules are read afresh.
    from gatecheck.config.loader import load_ruleset

    return load_ruleset(paths)


def check_generations(ruleset: RuleSet, generations: Sequence[str]) -> None:
    unknown = [g for g in generations if g not in ruleset.registry]
    if unknown:
        known = ", ".join(ruleset.registry.names)
        raise click.BadParameter(
            f"unknown generation {unknown[0]!r} (known: {known})", param_hint="--generation"
        )


@click.group(
    cls=GatecheckGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=examples(
        "gatecheck check .                      # findings against the rules",
        "gatecheck check . --diff               # the fixes, as a diff",
        "gatecheck explain flashinfer-allreduce-fusion . --generation sm120",
        "gatecheck audit . --generation sm120   # every gate, no rules needed",
        "gatecheck config show .",
    ),
)
@click.version_option(__version__, "--version", "-V", prog_name="gatecheck")
@click.option("--debug", is_flag=True, help="Re-raise internal errors with a traceback.")
@color_option
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Static analysis of GPU architecture gates: for every gate condition, the set of GPU
    generations for which it can be true, checked against rules."""
    ctx.meta["gatecheck.debug"] = debug
    # Deeply nested conditions in generated code must not blow the stack.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))


def debugging() -> bool:
    """Whether `gatecheck --debug` asked to re-raise what is otherwise contained."""
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.find_root().meta.get("gatecheck.debug"))


paths_argument = click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
kernel_source_option = click.option(
    "--kernel-source",
    "kernel_sources",
    multiple=True,
    type=click.Path(exists=True, path_type=Path),
    help="Folder holding a kernel library's source (default: the environment's site-packages).",
)
rules_option = click.option(
    "--rules",
    "rules",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Rule file or folder (repeatable). Default: the shipped rules.",
)
generation_option = click.option(
    "--generation",
    "generations",
    multiple=True,
    help="Only these generations (repeatable).",
)

no_cache_option = click.option(
    "--no-cache",
    is_flag=True,
    help="Analyse afresh: neither read nor write .gatecheck_cache/ at the project root.",
)
quiet_option = click.option(
    "--quiet", "-q", is_flag=True, help="No progress bar (it is drawn only on a terminal)."
)


class _ProgressBar:
    """A rich progress bar on stderr, drawn only once a scan has run for a moment (a
    quick run, or one answered from the cache, shows nothing)."""

    DELAY = 0.5

    def __init__(self, what: str, console: Console | None = None) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console or Console(stderr=True),
            transient=True,
        )
        self.task = self.progress.add_task(what, total=None)
        self.what = what
        self.files = 0
        self.started_at = time.monotonic()
        self.shown = False

    def stage(self, description: str, total: int | None) -> None:
        self.progress.update(self.task, description=description, total=total, completed=0)
        self._refresh()

    def advance(self, steps: int = 1) -> None:
        self.progress.advance(self.task, steps)
        self._refresh()

    def parsed(self, path: Path) -> None:
        self.files += 1
        task = self.progress.tasks[0]
        if task.total is None:  # no stage with a known size: count the files parsed
            self.progress.update(self.task, description=f"{self.what}: {self.files} files parsed")
        self._refresh()

    def _refresh(self) -> None:
        if not self.shown and time.monotonic() - self.started_at > self.DELAY:
            self.shown = True
            self.progress.start()

    def close(self) -> None:
        if self.shown:
            self.progress.stop()


@contextmanager
def progress_reporter(*, quiet: bool, what: str) -> Iterator[None]:
    """Progress on stderr for long scans; none with --quiet or when stderr is no terminal."""
    if quiet or not sys.stderr.isatty():
        yield
        return
    bar = _ProgressBar(what)
    try:
        with listening(bar):
            yield
    finally:
        bar.close()
