"""Step 1 of the pipeline: which files are scanned."""

from __future__ import annotations

import fnmatch
import operator
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
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
    # `str(f)` of each file, as the walk spelled it (str of a Path is built from its parts,
    # 4 us a file: a tenth of a run answered from the cache); empty when not given.
    names: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def file_names(self) -> tuple[str, ...]:
        """`str(f)` of every file, in order."""
        if len(self.names) == len(self.files):
            return self.names
        return tuple(str(f) for f in self.files)


_GLOB_CHARS = re.compile(r"[*?[]")
_NAME = operator.attrgetter("name")
# Whether os.path.normcase changes a name (Windows); on POSIX it returns it as given.
_FOLDS_CASE = os.path.normcase("A") != "A"


def _exclusion_matcher(patterns: Sequence[str]) -> Callable[[str, str], bool]:
    """One compiled regex for every glob (fnmatch's own translation), tried on the name and
    on the path relative to the root: the same answer as fnmatch per pattern, once."""
    # A glob without *, ? or [ matches its own text only (what fnmatch.translate makes of
    # it): a set lookup, not a regex compiled on every run (the default excludes are all
    # such names).
    literal = frozenset(p for p in patterns if not _GLOB_CHARS.search(p))
    globs = [p for p in patterns if p not in literal]
    combined = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in globs)) if globs else None
    if combined is None and not _FOLDS_CASE:
        # Asked of every file and folder of a tree: the set lookups alone (POSIX's
        # normcase returns its argument, and the default excludes are all literal).
        def only_literal(rel: str, name: str) -> bool:
            return name in literal or rel in literal

        return only_literal

    def excluded(rel: str, name: str) -> bool:
        name, rel = os.path.normcase(name), os.path.normcase(rel)
        if name in literal or rel in literal:
            return True
        return combined is not None and bool(combined.match(name) or combined.match(rel))

    return excluded


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


# A folder's Path plus one name, without parsing the whole path again (a Path per file
# was a third of a cached run); pathlib's own helper where this Python has it.
_child: Callable[[Path, str], Path] | None = getattr(Path, "_make_child_relpath", None)


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
    walk = _Walk(_exclusion_matcher(tuple(DEFAULT_EXCLUDES) + tuple(excludes)))
    roots: list[Path] = []
    for given in paths:
        resolved = _resolved(given)
        if resolved is None:
            walk.skipped.append(Skipped(given, "link loop"))
            continue
        root = resolved
        if root.is_file():
            roots.append(root.parent)
            walk.add(root, str(root), str(root))
            continue
        roots.append(root)
        walk.folder(root, str(root), str(root), "")
    return Discovery(tuple(roots), tuple(walk.files), tuple(walk.skipped), names=tuple(walk.names))


class _Walk:
    """os.walk(followlinks=True) in sorted pre-order, but paths are only resolved where a
    link is met: below a folder that is not a link, the real path of an entry is the
    folder's real path plus its name (one resolve() per file cost as much as parsing).
    Paths are strings inside (a Path per entry is most of a walk's cost)."""

    def __init__(self, excluded: Callable[[str, str], bool]) -> None:
        self.excluded = excluded
        self.files: list[Path] = []
        self.names: list[str] = []
        self.skipped: list[Skipped] = []
        self.seen: set[str] = set()
        self.visited: set[str] = set()

    def add(self, path: Path, real: str, name: str) -> None:
        # Keep the path as found (under the root), not the link target.
        if real not in self.seen:
            self.seen.add(real)
            self.files.append(path)
            self.names.append(name)

    def folder(self, root: Path, current: str, real: str, rel: str) -> None:
        if real in self.visited:
            self.skipped.append(Skipped(Path(current), "link loop: folder already visited"))
            return
        self.visited.add(real)
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=_NAME)
        except OSError as err:
            self.skipped.append(
                Skipped(Path(err.filename or current), f"unreadable: {err.strerror}")
            )
            return
        folders: list[tuple[str, str, str]] = []
        files: list[tuple[os.DirEntry[str], str, bool]] = []
        prefix = f"{rel}{os.sep}" if rel else ""
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir()  # through a link, as os.walk(followlinks) does
            except OSError:
                is_dir = False  # a link loop: resolved, and reported, as a file would be
            if not (is_dir or name.endswith(".py")):
                continue  # no syscall for the files that are not Python (d_type)
            try:
                is_link = entry.is_symlink()
            except OSError:
                is_link = False
            entry_rel = prefix + name
            if not is_dir:
                files.append((entry, entry_rel, is_link))
                continue
            if self.excluded(entry_rel, name):
                continue
            target = self._target(root, entry.path, f"{real}{os.sep}{name}", is_link)
            if target is not None:
                folders.append((entry.path, target, entry_rel))
        here = Path(current) if files else None
        for entry, entry_rel, is_link in files:
            assert here is not None
            found = _child(here, entry.name) if _child is not None else Path(entry.path)
            self._file(root, entry, found, f"{real}{os.sep}{entry.name}", entry_rel, is_link)
        for path, target, entry_rel in folders:
            self.folder(root, path, target, entry_rel)

    def _target(self, root: Path, path: str, real: str, is_link: bool) -> str | None:
        if not is_link:
            return real
        target = _resolved(Path(path))
        if target is None:
            self.skipped.append(Skipped(Path(path), "link loop"))
            return None
        if not _inside(target, root):
            self.skipped.append(Skipped(Path(path), "link points outside the scanned root"))
            return None
        return str(target)

    def _file(
        self, root: Path, entry: os.DirEntry[str], path: Path, real: str, rel: str, is_link: bool
    ) -> None:
        if self.excluded(rel, entry.name):
            return
        if is_link:
            target = _resolved(path)
            if target is None:
                self.skipped.append(Skipped(path, "link loop"))
                return
            if not _inside(target, root):
                self.skipped.append(Skipped(path, "link points outside the scanned root"))
                return
            real = str(target)
            regular = target.is_file()
        else:
            try:
                regular = entry.is_file(follow_symlinks=False)
            except OSError:
                regular = False
        if not regular:
            # A FIFO would block the read forever; a dangling link has nothing to read.
            what = "dangling link" if not os.path.exists(real) else "not a regular file"
            self.skipped.append(Skipped(path, what))
            return
        self.add(path, real, entry.path)
