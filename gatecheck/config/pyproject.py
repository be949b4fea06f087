"""`[tool.gatecheck]` in the nearest pyproject.toml, merged with command-line overrides.

Every effective setting remembers where it came from (a pyproject line, a flag, or the
default), for `gatecheck config show` and for error messages that point at the line.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Generic, TypeVar

from gatecheck.config.model import ConfigError, ConfigErrors, SourceLocation
from gatecheck.safe_io import CONFIG_BYTES, read_regular

T = TypeVar("T")
PYPROJECT = "pyproject.toml"
TABLE = ("tool", "gatecheck")
LIST_KEYS = ("rules", "generations", "exclude", "select", "ignore")
KEYS = (*LIST_KEYS, "per-file-ignores")

PerFileIgnores = tuple[tuple[str, tuple[str, ...]], ...]


@dataclass(frozen=True)
class Sourced(Generic[T]):
    """A setting's value and its origin: `location` for pyproject values, else `origin`
    names the flag ("--rules") or "default"."""

    value: T
    origin: str = "default"
    location: SourceLocation | None = None

    def describe(self) -> str:
        return str(self.location) if self.location else self.origin


@dataclass(frozen=True)
class Settings:
    """The effective settings, each with where it came from."""

    rules: Sourced[tuple[Path, ...]] = field(default_factory=lambda: Sourced(()))
    generations: Sourced[tuple[str, ...]] = field(default_factory=lambda: Sourced(()))
    exclude: Sourced[tuple[str, ...]] = field(default_factory=lambda: Sourced(()))
    select: Sourced[tuple[str, ...]] = field(default_factory=lambda: Sourced(()))
    ignore: Sourced[tuple[str, ...]] = field(default_factory=lambda: Sourced(()))
    per_file_ignores: Sourced[PerFileIgnores] = field(default_factory=lambda: Sourced(()))
    # The pyproject.toml the settings came from (None: none with [tool.gatecheck] found).
    config_file: Path | None = None

    @property
    def base(self) -> Path:
        """Folder that per-file-ignores globs are relative to."""
        return self.config_file.parent if self.config_file else Path.cwd().resolve()


@dataclass(frozen=True)
class Overrides:
    """Command-line values; an empty tuple means "not given"."""

    rules: tuple[Path, ...] = ()
    generations: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


def find_pyproject(start: Path | None = None) -> Path | None:
    """The nearest pyproject.toml from `start` upwards that has a [tool.gatecheck] table
    (like ruff: a pyproject.toml without the table does not stop the search). One that
    cannot be read, or is not UTF-8 but names gatecheck, is returned too: load_pyproject
    then says why it is broken (settings are never dropped silently)."""
    folder = (start or Path.cwd()).resolve()
    for candidate in (folder, *folder.parents):
        path = candidate / PYPROJECT
        if _is_file(path) and _has_table(path):
            return path
    return None


def _is_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except (OSError, ValueError):
        return False  # absent, or in a folder we may not enter (EACCES)


def _has_table(path: Path) -> bool:
    try:
        raw = read_regular(path, CONFIG_BYTES)
    except OSError:
        return True  # cannot tell: treated as ours, and load_pyproject reports it
    if b"gatecheck" not in raw:
        return False  # cheap: most pyproject files never mention us
    import tomllib  # here: most runs read no TOML (a tenth of a cached check's imports)

    try:
        tool = tomllib.loads(raw.decode("utf-8")).get("tool", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return True  # ours, and broken: load_pyproject reports where
    return isinstance(tool, dict) and "gatecheck" in tool


def _folder_of(path: Path) -> Path:
    resolved = path.resolve()
    return resolved if resolved.is_dir() else resolved.parent


def find_pyproject_for(paths: Sequence[Path], cwd: Path | None = None) -> Path | None:
    """The config of a run over `paths` (like ruff): the nearest pyproject.toml with
    [tool.gatecheck] from each given path upwards, else the working directory's. Paths
    whose nearest configs differ cannot share one run: that is an error, not a guess."""
    found: dict[Path, Path] = {}
    for path in paths:
        config = find_pyproject(_folder_of(path))
        if config is not None:
            found.setdefault(config, path)
    if len(found) > 1:
        (first, first_path), (second, second_path) = list(found.items())[:2]
        raise ConfigErrors(
            [
                ConfigError(
                    _shown_path(second),
                    1,
                    1,
                    f"'{second_path}' is configured here but '{first_path}' by "
                    f"{_shown_path(first)}: check them in separate runs",
                )
            ]
        )
    if found:
        return next(iter(found))
    return find_pyproject(cwd)


def resolve_settings(
    overrides: Overrides, start: Path | None = None, paths: Sequence[Path] = ()
) -> Settings:
    """pyproject settings (if any) with the command line on top; found from `paths` when
    given (see find_pyproject_for), else from `start` (default: the working directory)."""
    path = find_pyproject_for(paths, start) if paths else find_pyproject(start)
    settings = load_pyproject(path) if path else Settings()
    return apply_overrides(settings, overrides)


def apply_overrides(settings: Settings, overrides: Overrides) -> Settings:
    """A flag given on the command line replaces the pyproject value (lists are not merged)."""

    def pick(
        current: Sourced[tuple[T, ...]], given: tuple[T, ...], flag: str
    ) -> Sourced[tuple[T, ...]]:
        return Sourced(given, flag) if given else current

    return replace(
        settings,
        rules=pick(settings.rules, overrides.rules, "--rules"),
        generations=pick(settings.generations, overrides.generations, "--generation"),
        exclude=pick(settings.exclude, overrides.exclude, "--exclude"),
        select=pick(settings.select, overrides.select, "--select"),
        ignore=pick(settings.ignore, overrides.ignore, "--ignore"),
    )


def load_pyproject(path: Path) -> Settings:
    """Read and validate [tool.gatecheck]; every problem is reported at once."""
    shown = _shown_path(path)
    try:
        raw = read_regular(path, CONFIG_BYTES)
    except OSError as exc:
        message = f"cannot read: {exc.strerror or exc}"
        raise ConfigErrors([ConfigError(shown, 1, 1, message)]) from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        message = f"not valid UTF-8 (TOML must be): byte 0x{raw[exc.start]:02x}"
        raise ConfigErrors([ConfigError(shown, line, column, message)]) from exc
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, column = _decode_error_position(str(exc), text)
        message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)$", "", str(exc))
        raise ConfigErrors([ConfigError(shown, line, column, f"invalid TOML: {message}")]) from exc
    table = data.get("tool", {}).get("gatecheck")
    if table is None:
        return Settings(config_file=path.resolve())
    reader = _TableReader(shown, path.resolve().parent, _key_positions(text))
    settings = reader.read(table)
    if reader.errors:
        raise ConfigErrors(reader.errors)
    return settings


def _shown_path(path: Path) -> Path:
    # Messages read `pyproject.toml:3:1: ...` when the file is in the working directory.
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def _decode_error_position(message: str, text: str) -> tuple[int, int]:
    found = re.search(r"\(at line (\d+), column (\d+)\)", message)
    if found:
        return int(found.group(1)), int(found.group(2))
    if "(at end of document)" in message:
        last_line = text.rsplit("\n", 1)[-1]
        return text.count("\n") + 1, len(last_line) + 1
    return 1, 1


class _TableReader:
    def __init__(
        self, path: Path, base: Path, positions: Mapping[tuple[str, ...], tuple[int, int]]
    ):
        self.path = path
        self.base = base
        self.positions = positions
        self.errors: list[ConfigError] = []

    def location(self, *keys: str) -> SourceLocation:
        # The most specific key we can place; the table header otherwise.
        for depth in range(len(keys), -1, -1):
            found = self.positions.get((*TABLE, *keys[:depth]))
            if found:
                return SourceLocation(self.path, *found)
        return SourceLocation(self.path, 1, 1)

    def error(self, message: str, *keys: str) -> None:
        where = self.location(*keys)
        self.errors.append(ConfigError(where.path, where.line, where.column, message))

    def read(self, table: object) -> Settings:
        if not isinstance(table, dict):
            self.error("[tool.gatecheck] must be a table")
            return Settings()
        lists: dict[str, Sourced[tuple[str, ...]]] = {}
        per_file: Sourced[PerFileIgnores] = Sourced(())
        for key, value in table.items():
            if key not in KEYS:
                import difflib

                close = difflib.get_close_matches(key, KEYS, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                known = ", ".join(KEYS)
                self.error(
                    f"unknown key '{key}' in [tool.gatecheck]{hint}; known keys: {known}", key
                )
            elif key == "per-file-ignores":
                per_file = self.per_file_ignores(value)
            else:
                lists[key] = self.strings(key, value)
        empty: Sourced[tuple[str, ...]] = Sourced(())
        return Settings(
            rules=self.rule_paths(lists.get("rules", empty)),
            generations=lists.get("generations", empty),
            exclude=lists.get("exclude", empty),
            select=lists.get("select", empty),
            ignore=lists.get("ignore", empty),
            per_file_ignores=per_file,
            config_file=self.base / PYPROJECT,
        )

    def strings(self, key: str, value: object) -> Sourced[tuple[str, ...]]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.error(f"'{key}' must be a list of strings", key)
            return Sourced(())
        return Sourced(tuple(value), "pyproject", self.location(key))

    def rule_paths(self, rules: Sourced[tuple[str, ...]]) -> Sourced[tuple[Path, ...]]:
        if not rules.value:
            return Sourced(())
        paths = tuple(self.base / p for p in rules.value)
        for given, resolved in zip(rules.value, paths, strict=True):
            if not resolved.exists():
                self.error(f"rules path '{given}' does not exist (relative to this file)", "rules")
        return Sourced(paths, rules.origin, rules.location)

    def per_file_ignores(self, value: object) -> Sourced[PerFileIgnores]:
        key = "per-file-ignores"
        if not isinstance(value, dict):
            self.error(f"'{key}' must be a table of glob = [ids]", key)
            return Sourced(())
        entries: list[tuple[str, tuple[str, ...]]] = []
        for glob, ids in value.items():
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                self.error(f"'{key}' entry '{glob}' must be a list of strings", key, glob)
                continue
            entries.append((glob, tuple(ids)))
        return Sourced(tuple(entries), "pyproject", self.location(key))


# --- where keys are, for messages (tomllib keeps no positions) ------------------------------


def _key_positions(text: str) -> dict[tuple[str, ...], tuple[int, int]]:
    """1-based (line, column) of table headers and keys, by full dotted path, inline
    tables included. One pass over the characters (the text is valid TOML: tomllib read
    it first), so no input can make it slow: a regex scan backtracked quadratically or
    worse on long words and on multi-line strings that look like headers."""
    return _KeyScanner(text).positions


_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


class _KeyScanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.line = 1
        self.line_start = 0
        self.positions: dict[tuple[str, ...], tuple[int, int]] = {}
        self._document()

    # -- characters

    def _peek(self, ahead: int = 0) -> str:
        index = self.at + ahead
        return self.text[index] if index < len(self.text) else ""

    def _advance(self, count: int = 1) -> None:
        for _ in range(count):
            if self.at < len(self.text) and self.text[self.at] == "\n":
                self.line += 1
                self.line_start = self.at + 1
            self.at += 1

    def _where(self) -> tuple[int, int]:
        return self.line, self.at - self.line_start + 1

    def _blank(self, newlines: bool) -> None:
        """Skip spaces and comments (and line ends, where the grammar allows them)."""
        while self.at < len(self.text):
            char = self.text[self.at]
            if char in " \t\r" or (newlines and char == "\n"):
                self._advance()
            elif char == "#":
                end = self.text.find("\n", self.at)
                self._advance((len(self.text) if end < 0 else end) - self.at)
            else:
                return

    # -- the grammar, as far as positions need it

    def _document(self) -> None:
        table: tuple[str, ...] = ()
        while True:
            self._blank(newlines=True)
            if self.at >= len(self.text):
                return
            if self._peek() == "[":
                where = self._where()
                double = self._peek(1) == "["
                self._advance(2 if double else 1)
                table = self._dotted()
                self.positions.setdefault(table, where)
                self._blank(newlines=False)
                self._advance(2 if double else 1)  # the closing bracket(s)
            else:
                self._pair(table)

    def _pair(self, table: tuple[str, ...], record: bool = True) -> None:
        where = self._where()
        path = (*table, *self._dotted())
        if record:
            self.positions.setdefault(path, where)
        self._blank(newlines=False)
        self._advance()  # "="
        self._blank(newlines=False)
        self._value(path, record)

    def _dotted(self) -> tuple[str, ...]:
        parts = [self._key_part()]
        self._blank(newlines=False)
        while self._peek() == ".":
            self._advance()
            self._blank(newlines=False)
            parts.append(self._key_part())
            self._blank(newlines=False)
        return tuple(parts)

    def _key_part(self) -> str:
        char = self._peek()
        if char in ("'", '"'):
            start = self.at
            self._string()
            raw = self.text[start : self.at]
            if char == "'":
                return raw[1:-1]
            import tomllib

            try:  # escapes, decoded by the parser that already accepted them
                return str(tomllib.loads(f"k = {raw}")["k"])
            except tomllib.TOMLDecodeError:
                return raw[1:-1]
        start = self.at
        while self._peek() in _BARE:
            self._advance()
        if self.at == start:
            self._advance()  # not TOML after all: never loop on the same character
        return self.text[start : self.at]

    def _string(self) -> None:
        quote = self._peek()
        triple = self.text.startswith(quote * 3, self.at)
        self._advance(3 if triple else 1)
        while self.at < len(self.text):
            char = self._peek()
            if char == "\\" and quote == '"':
                self._advance(2)
            elif triple and self.text.startswith(quote * 3, self.at):
                self._advance(3)
                while self._peek() == quote:  # up to two quotes may end the content
                    self._advance()
                return
            elif char == quote and not triple:
                self._advance()
                return
            elif char == "\n" and not triple:
                return
            else:
                self._advance()

    def _value(self, path: tuple[str, ...], record: bool) -> None:
        char = self._peek()
        if char in ("'", '"'):
            self._string()
        elif char == "{":
            self._inline_table(path, record)
        elif char == "[":
            self._array(path)
        else:  # a number, date or boolean: up to what ends a value
            while self.at < len(self.text) and self._peek() not in ",]}#\n":
                self._advance()

    def _inline_table(self, path: tuple[str, ...], record: bool) -> None:
        self._advance()  # "{"
        while self.at < len(self.text):
            self._blank(newlines=True)
            if self._peek() in ("}", ""):
                self._advance()
                return
            if self._peek() == ",":
                self._advance()
                continue
            self._pair(path, record)

    def _array(self, path: tuple[str, ...]) -> None:
        self._advance()  # "["
        while self.at < len(self.text):
            self._blank(newlines=True)
            char = self._peek()
            if char in ("]", ""):
                self._advance()
                return
            if char == ",":
                self._advance()
                continue
            # Keys of inline tables in an array have no path of their own: not recorded.
            self._value(path, record=False)


def unknown_ids(values: Sequence[str], known: Sequence[str] | frozenset[str]) -> list[str]:
    return [v for v in values if v not in known]
