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


def _resolved(path: Path) -> Path | None:
    """The link target, or None for a link loop (RuntimeError before Python 3.13)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


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
        resolved = _resolved(given)
        if resolved is None:
            skipped.append(Skipped(given, "link loop"))
            continue
        root = resolved
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
                target = _resolved(sub)
                if target is None:
                    skipped.append(Skipped(sub, "link loop"))
                    continue
                if sub.is_symlink() and not _inside(target, root):
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
                key = _resolved(file)
                if key is None:
                    skipped.append(Skipped(file, "link loop"))
                    continue
                if file.is_symlink() and not _inside(key, root):
                    skipped.append(Skipped(file, "link points outside the scanned root"))
                    continue
                if not key.is_file():
                    # A FIFO would block the read forever; a dangling link has nothing to read.
                    what = "dangling link" if not key.exists() else "not a regular file"
                    skipped.append(Skipped(file, what))
                    continue
                # Keep the path as found (under the root), not the link target.
                if key in seen:
                    continue
                seen.add(key)
                files.append(file)
    return Discovery(tuple(roots), tuple(files), tuple(skipped))
