"""Step 1 of the pipeline: which files are scanned."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_EXCLUDES = (
    ".git",
    ".hg",
    ".svn",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    "__pycache__",
    "node_modules",
    "build",
    "dist",
    ".gatecheck_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
)


@dataclass(frozen=True)
class Skipped:
    path: Path
    reason: str


@dataclass(frozen=True)
class Discovery:
    """Python files to analyse, the roots they were found under, and what was left out."""

    roots: tuple[Path, ...]
    files: tuple[Path, ...]
    skipped: tuple[Skipped, ...] = ()


def _excluded(rel: str, name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(rel, p) for p in patterns)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def discover(paths: Iterable[Path], excludes: Sequence[str] = ()) -> Discovery:
    """Walk the given files and folders. Links are followed only while they stay inside
    the root they were found under; link loops and unreadable folders are skipped with
    a reason, never fatal."""
    patterns = tuple(DEFAULT_EXCLUDES) + tuple(excludes)
    roots: list[Path] = []
    files: list[Path] = []
    skipped: list[Skipped] = []
    seen: set[Path] = set()
    for given in paths:
        root = given.resolve()
        if root.is_file():
            roots.append(root.parent)
            if root not in seen:
                seen.add(root)
                files.append(root)
            continue
        roots.append(root)
        visited_dirs: set[Path] = set()

        def onerror(err: OSError, where: Path = root) -> None:
            skipped.append(Skipped(Path(err.filename or where), f"unreadable: {err.strerror}"))

        for dirpath, dirnames, filenames in os.walk(root, followlinks=True, onerror=onerror):
            current = Path(dirpath)
            real = current.resolve()
            if real in visited_dirs:
                skipped.append(Skipped(current, "link loop: folder already visited"))
                dirnames[:] = []
                continue
            visited_dirs.add(real)
            kept = []
            for d in sorted(dirnames):
                sub = current / d
                rel = os.path.relpath(sub, root)
                if _excluded(rel, d, patterns):
                    continue
                if sub.is_symlink() and not _inside(sub.resolve(), root):
                    skipped.append(Skipped(sub, "link points outside the scanned root"))
                    continue
                kept.append(d)
            dirnames[:] = kept
            for name in sorted(filenames):
                if not name.endswith(".py"):
                    continue
                file = current / name
                rel = os.path.relpath(file, root)
                if _excluded(rel, name, patterns):
                    continue
                if file.is_symlink() and not _inside(file.resolve(), root):
                    skipped.append(Skipped(file, "link points outside the scanned root"))
                    continue
                # Keep the path as found (under the root), not the link target.
                key = file.resolve()
                if key in seen:
                    continue
                seen.add(key)
                files.append(file)
    return Discovery(tuple(roots), tuple(files), tuple(skipped))
