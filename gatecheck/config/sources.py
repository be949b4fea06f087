"""Which files make the rules: the shipped rules folder, or the files and folders given.
Apart from the loader (loader.py), which parses them: a run whose rules come from the cache
needs their names for its key, not PyYAML."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from gatecheck import resources
from gatecheck.config.model import ConfigError

RULE_SUFFIXES = (".yaml", ".yml")
# Files a rules directory may hold besides rules (compared upper-case).
_SKIPPED_PREFIXES = ("README", "LICENSE")


def rule_sources(rule_paths: Sequence[Path] | None = None) -> tuple[Path, ...] | None:
    """The files load_ruleset reads for these paths (the registry first), without
    reading them; None when the paths themselves are wrong (load_ruleset says how)."""
    errors: list[ConfigError] = []
    registry_file = resources.registry_path()
    files = sources(rule_paths, registry_file, errors)
    return None if errors else (registry_file, *files)


def sources(
    rule_paths: Sequence[Path] | None, registry_file: Path, errors: list[ConfigError]
) -> list[Path]:
    """The rule files for these paths: the shipped rules folder when none are given."""
    if rule_paths is None:
        return _files_in_dir(resources.shipped_rules_dir(), registry_file, errors)
    return _rule_files([Path(p) for p in rule_paths], registry_file, errors)


def config_error(path: Path, line: int, column: int, message: str) -> ConfigError:
    # Messages carry user text (keys, values): keep them to one line whatever it holds.
    one_line = message.replace("\r", "\\r").replace("\n", "\\n")
    return ConfigError(path, line, column, one_line)


def _rule_files(paths: list[Path], registry_file: Path, errors: list[ConfigError]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = _files_in_dir(path, registry_file, errors)
            if not found:
                errors.append(
                    config_error(path, 1, 1, "no rule files (*.yaml, *.yml) in directory")
                )
            files.extend(found)
        elif path.exists():
            # The registry is always loaded; named again, it is not also a rule file.
            if not _same_file(path, registry_file):
                files.append(path)
        else:
            errors.append(config_error(path, 1, 1, "no such file or directory"))
    return _unique_files(files)


def _files_in_dir(directory: Path, registry_file: Path, errors: list[ConfigError]) -> list[Path]:
    try:
        entries = sorted(directory.iterdir())
    except OSError as exc:
        errors.append(
            config_error(directory, 1, 1, f"cannot read directory: {exc.strerror or exc}")
        )
        return []
    files: list[Path] = []
    for entry in entries:
        if _is_skipped(entry) or _same_file(entry, registry_file):
            continue
        if entry.suffix.lower() in RULE_SUFFIXES:
            files.append(entry)
        else:
            errors.append(config_error(entry, 1, 1, "not a rule file: expected .yaml or .yml"))
    return files


def _is_skipped(entry: Path) -> bool:
    name = entry.name
    return name.startswith(".") or name.upper().startswith(_SKIPPED_PREFIXES) or not entry.is_file()


def _same_file(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve()


def _unique_files(files: list[Path]) -> list[Path]:
    # The same file named twice (directly and through its directory) is loaded once.
    seen: set[Path] = set()
    unique: list[Path] = []
    for path in files:
        if path.resolve() not in seen:
            seen.add(path.resolve())
            unique.append(path)
    return unique
