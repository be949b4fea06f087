"""BASE as files, read from git objects (`git archive`), never by checking it out: the
working tree, the index and HEAD stay as they are. Only Python files are written."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gatecheck.vcs import VcsError, git_toplevel, run_git

# The default branch, when origin/HEAD is not set (a clone made by actions/checkout).
DEFAULT_BRANCHES = ("main", "master", "origin/main", "origin/master")
_SNAPSHOT = re.compile(r"impact-[0-9a-f]{40}")
KEEP_SNAPSHOTS = 2
# An export in progress (tempfile.mkdtemp(prefix=".impact-")): one left this long is a
# run's that was killed before it renamed it (an export takes seconds).
_IN_PROGRESS = re.compile(r"\.impact-[A-Za-z0-9_]{8}")
STALE_SECONDS = 3600


class BaseError(Exception):
    """BASE cannot be read; the message says why and what to do."""


@dataclass(frozen=True)
class Base:
    label: str  # the ref as given, or how it was chosen
    commit: str  # the merge-base with HEAD


def _git(top: Path, args: Sequence[str]) -> subprocess.CompletedProcess[str]:
    try:
        return run_git(top, args, needed_for="impact reads BASE from git")
    except VcsError as err:
        raise BaseError(str(err)) from err


def toplevel(start: Path) -> Path:
    top = git_toplevel(start)
    if top is None:
        raise BaseError(
            f"impact compares with a git revision, and {start} is not in a git repository"
        )
    return top


def _commit(top: Path, ref: str) -> str | None:
    found = _git(top, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"])
    return found.stdout.strip() if found.returncode == 0 and found.stdout.strip() else None


def base_and_paths(
    base: str | None, paths: Sequence[Path], cwd: Path
) -> tuple[str | None, list[Path]]:
    """`impact [BASE] [PATHS]` as given: a first argument that is a path and no git
    revision is a PATH (BASE is then the default); one that is both is ambiguous unless
    PATHS follow it (then it is BASE, as it comes first)."""
    if base is None or not os.path.lexists(base):
        return base, list(paths) or [cwd]
    if paths:
        return base, list(paths)
    top = toplevel(cwd)
    if _commit(top, base) is None:
        return None, [Path(base)]
    raise BaseError(
        f"{base!r} is both a git revision and a path: write ./{base} for the path, "
        f"or `gatecheck impact {base} .` for the revision"
    )


def default_branch(top: Path) -> str:
    """origin/HEAD, else the first of main, master, origin/main, origin/master."""
    head = _git(top, ["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"])
    if head.returncode == 0 and head.stdout.strip():
        return head.stdout.strip()
    for name in DEFAULT_BRANCHES:
        if _commit(top, name) is not None:
            return name
    raise BaseError(
        "no default branch to compare with (no origin/HEAD, main or master): give BASE, "
        "e.g. `gatecheck impact origin/main`"
    )


def resolve_base(top: Path, ref: str | None) -> Base:
    """The merge-base of BASE (default: the default branch) and HEAD: what a pull
    request's diff is taken against."""
    if ref is not None and ref.startswith("-"):
        raise BaseError(f"BASE {ref!r} is not a git revision")
    label = ref if ref is not None else default_branch(top)
    if _commit(top, label) is None:
        shallow = _git(top, ["rev-parse", "--is-shallow-repository"]).stdout.strip() == "true"
        hint = " (in a shallow clone, fetch it first)" if shallow else ""
        raise BaseError(f"unknown git revision {label!r}{hint}")
    if _commit(top, "HEAD") is None:
        raise BaseError("HEAD has no commit yet: commit once, then compare")
    found = _git(top, ["merge-base", "--end-of-options", label, "HEAD"])
    if found.returncode != 0 or not found.stdout.strip():
        raise BaseError(
            f"{label!r} and HEAD have no common history (in a shallow clone: "
            "`git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout)"
        )
    return Base(label if ref is not None else f"merge-base with {label}", found.stdout.strip())


def changed_paths(top: Path, commit: str) -> tuple[str, ...]:
    """Paths (relative to the work tree, posix) whose working-tree content differs from
    `commit`: edits staged or not, deletions, both sides of a rename, untracked files."""
    diff = _git(top, ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", commit, "--"])
    if diff.returncode != 0:
        raise BaseError(f"git diff failed: {diff.stderr.strip() or diff.returncode}")
    untracked = _git(top, ["ls-files", "--others", "--exclude-standard", "-z"])
    names = {n for n in (*diff.stdout.split("\0"), *untracked.stdout.split("\0")) if n}
    return tuple(sorted(names))


def export(top: Path, commit: str, within: Sequence[str], dest: Path) -> None:
    """The Python files of `commit` under the `within` folders (relative, posix; empty:
    the whole tree) written below `dest` as they lie in the repository."""
    present = [p for p in within if _exists(top, commit, p)]
    if within and not present:
        return  # none of the paths existed at BASE: nothing to compare with
    _archive(top, commit, present, dest)


def export_files(top: Path, commit: str, files: Sequence[str], dest: Path) -> None:
    """Those of `files` (relative, posix) that are Python files of `commit`, written below
    `dest` as `export` writes them (the same filters: the same bytes)."""
    for start in range(0, len(files), _PATHS_AT_ONCE):
        chunk = files[start : start + _PATHS_AT_ONCE]
        listed = _git(
            top, ["--literal-pathspecs", "ls-tree", "-r", "-z", "--name-only", commit, "--", *chunk]
        )
        if listed.returncode != 0:
            raise BaseError(f"git ls-tree failed: {listed.stderr.strip() or listed.returncode}")
        present = [name for name in listed.stdout.split("\0") if name]
        if present:
            _archive(top, commit, present, dest, literal=True)


_PATHS_AT_ONCE = 500  # paths per git command line


def _archive(
    top: Path, commit: str, paths: Sequence[str], dest: Path, *, literal: bool = False
) -> None:
    magic = ["--literal-pathspecs"] if literal else []
    with tempfile.TemporaryFile() as archive:
        done = subprocess.run(
            ["git", "-C", str(top), *magic, "archive", "--format=tar", commit, "--", *paths],
            stdout=archive,
            stderr=subprocess.PIPE,
            check=False,
        )
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip()
            raise BaseError(f"git archive failed: {message or done.returncode}")
        archive.seek(0)
        with tarfile.open(fileobj=archive, mode="r:") as tar:
            # Regular Python files only: no links, devices or paths leaving `dest`.
            members = [m for m in tar.getmembers() if m.isfile() and m.name.endswith(".py")]
            tar.extractall(dest, members, filter="data")


def _exists(top: Path, commit: str, path: str) -> bool:
    if path in ("", "."):
        return True
    return _git(top, ["cat-file", "-e", f"{commit}:{path}"]).returncode == 0


class BaseFiles:
    """BASE's files as a run needs them: the changed ones at once (exported alone, a few
    files), the whole tree (`snapshot`) only when BASE is audited from disk (`tree()`).
    A whole export a run before kept in `keep_in` serves both. `close()` removes what
    is not kept."""

    def __init__(
        self,
        top: Path,
        commit: str,
        within: Sequence[str],
        keep_in: Path | None,
        changed: Sequence[str],
    ) -> None:
        self._top, self._commit, self._within, self._keep_in = top, commit, within, keep_in
        self._tree = None if keep_in is None else kept_snapshot(commit, within, keep_in)
        self._owned: list[Path] = []
        self._few: Path | None = None
        if self._tree is None:
            self._few = Path(tempfile.mkdtemp(prefix="gatecheck-base-")).resolve()
            self._owned.append(self._few)
            export_files(top, commit, changed, self._few)

    def tree(self) -> Path:
        """Every Python file of BASE under `within` (exported on the first call)."""
        if self._tree is None:
            self._tree = snapshot(self._top, self._commit, self._within, self._keep_in).resolve()
            if self._keep_in is None:
                self._owned.append(self._tree)
        return self._tree

    def file(self, rel: str) -> Path:
        """Where BASE's `rel` (one of the changed files) lies, if it is a file of BASE."""
        return (self._tree or self._few or self.tree()) / rel

    def close(self) -> None:
        for folder in self._owned:
            shutil.rmtree(folder, ignore_errors=True)
        self._owned.clear()


def kept_snapshot(commit: str, within: Sequence[str], keep_in: Path) -> Path | None:
    """The whole export of `commit` a run before left in `keep_in`, if complete."""
    folder = keep_in / f"impact-{commit}"
    marker = folder / ".complete"
    key = "/".join(sorted(within))
    if _real_folder(folder) and marker.is_file() and marker.read_text("utf-8") == key:
        os.utime(folder)  # recently used: kept when older snapshots go
        return folder.resolve()
    return None


def snapshot(top: Path, commit: str, within: Sequence[str], keep_in: Path | None) -> Path:
    """BASE's files, exported once per commit and kept in `keep_in` (the cache folder:
    a second run against the same BASE reads nothing from git and hits the audit cache);
    without `keep_in`, in a fresh temporary folder the caller removes."""
    if keep_in is None:
        dest = Path(tempfile.mkdtemp(prefix="gatecheck-impact-"))
        export(top, commit, within, dest)
        return dest
    key = "/".join(sorted(within))
    folder = keep_in / f"impact-{commit}"
    if kept_snapshot(commit, within, keep_in) is not None:
        return folder
    keep_in.mkdir(exist_ok=True)
    _ignore_all(keep_in)
    _remove_stale(keep_in)
    fresh = Path(tempfile.mkdtemp(prefix=".impact-", dir=keep_in))
    export(top, commit, within, fresh)
    (fresh / ".complete").write_text(key, "utf-8")
    if _real_folder(folder):
        shutil.rmtree(folder, ignore_errors=True)
    try:
        os.rename(fresh, folder)
    except OSError:
        return fresh  # another run put one there first: use ours
    _prune(keep_in)
    return folder


def _ignore_all(folder: Path) -> None:
    """The cache folder's `.gitignore` (as the cache writes it): BASE's files are never
    untracked files of the working tree. An existing name is left alone."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        handle = os.open(folder / ".gitignore", flags, 0o644)
    except OSError:
        return
    with os.fdopen(handle, "w") as out:
        out.write("# Created by gatecheck: the cache is never committed.\n*\n")


def _real_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


def _remove_stale(folder: Path, now: float | None = None) -> None:
    """Exports a killed run left behind: only folders named as ours, directly in `folder`
    (never through a link: a link so named is left alone), older than STALE_SECONDS."""
    now = time.time() if now is None else now
    with os.scandir(folder) as entries:
        stale = [
            Path(entry.path)
            for entry in entries
            if _IN_PROGRESS.fullmatch(entry.name)
            and entry.is_dir(follow_symlinks=False)
            and now - entry.stat(follow_symlinks=False).st_mtime > STALE_SECONDS
        ]
    for path in stale:
        shutil.rmtree(path, ignore_errors=True)  # rmtree never follows links inside


def _prune(folder: Path) -> None:
    """Keep the most recent snapshots; only folders named as ours, never through a link."""
    found = [
        (entry.stat(follow_symlinks=False).st_mtime_ns, Path(entry.path))
        for entry in os.scandir(folder)
        if _SNAPSHOT.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False)
    ]
    for _mtime, path in sorted(found, reverse=True)[KEEP_SNAPSHOTS:]:
        shutil.rmtree(path, ignore_errors=True)
