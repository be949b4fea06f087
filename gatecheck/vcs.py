"""Git helpers: the project root, merge-bases and the lines a change touched.

Only `git` on PATH is used (no library), always with an argument list, never a shell. The
work tree holding a folder is found the way git finds it (a `.git` folder or file in it or
above it), without running git where the answer cannot differ: every command asks, and a
`git` process is most of a cached pre-commit run's time after the imports.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gatecheck.safe_io import CONFIG_BYTES, read_regular

if TYPE_CHECKING:
    import subprocess

# `@@ -a,b +c,d @@`: the new side starts at line c and spans d lines (d defaults to 1).
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_C_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


class VcsError(Exception):
    """A git question that cannot be answered; the message says what to do."""


def _git(root: Path, args: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return run_git(root, args, needed_for="needed for --new-since")


def run_git(
    root: Path, args: Sequence[str], *, needed_for: str
) -> subprocess.CompletedProcess[str]:
    """`git -C root ARGS`, text out (undecodable bytes kept as surrogates), never raising
    for git's own exit status; VcsError when git is not installed."""
    import shutil  # here, as subprocess: most runs find their work tree without git
    import subprocess

    if shutil.which("git") is None:
        raise VcsError(f"git is not installed ({needed_for})")

    return subprocess.run(
        ["git", "-C", str(root), "-c", "core.quotePath=false", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
        check=False,
    )


# Settings under which git finds the repository otherwise than by walking up for `.git`.
_DISCOVERY_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_COMMON_DIR",
)


def git_toplevel(start: Path) -> Path | None:
    """The work tree holding `start`, or None outside git. Where the folders answer, the
    answer is the same with or without git installed (where only git can say, no git
    means None)."""
    found = _walked_toplevel(start)
    return _asked_toplevel(start) if found is None else found.top


class _Walked:
    __slots__ = ("top",)

    def __init__(self, top: Path | None) -> None:
        self.top = top


def _walked_toplevel(start: Path) -> _Walked | None:
    """git's answer read from the folders (`_Walked(None)`: outside any work tree), or
    None where only git can say: discovery settings in the environment, a folder inside a
    repository's own `.git`, a `.git` that is neither a repository folder nor a `gitdir:`
    file, a repository whose config may move its work tree (`core.worktree`)."""
    if any(os.environ.get(name) for name in _DISCOVERY_ENV):
        return None
    here = start.resolve()
    if ".git" in here.parts:
        return None
    for folder in (here, *here.parents):
        dotgit = folder / ".git"
        try:
            if dotgit.is_dir():
                if not (dotgit / "HEAD").is_file():
                    return None
                config = dotgit / "config"
                if config.exists() and b"worktree" in read_regular(config, CONFIG_BYTES):
                    return None
                return _Walked(folder)
            if dotgit.exists():
                # A regular file only, capped (a FIFO named .git would block a read).
                first = read_regular(dotgit, CONFIG_BYTES)[:8]
                return _Walked(folder) if first == b"gitdir: " else None
        except OSError:
            return None  # unreadable, not a regular file, too large: git says
    return _Walked(None)


def _asked_toplevel(start: Path) -> Path | None:
    try:
        result = _git(start, ["rev-parse", "--show-toplevel"])
    except (VcsError, OSError):
        return None
    if result.returncode != 0 or not result.stdout.strip():
        return None
    return Path(result.stdout.strip()).resolve()


def project_root(cwd: Path | None = None) -> Path:
    """What reports are relative to and what a file-scoped run analyses: the git work
    tree holding the working directory, else the working directory itself."""
    here = (cwd or Path.cwd()).resolve()
    return git_toplevel(here) or here


def merge_base(root: Path, ref: str) -> str:
    """The merge-base of `ref` and HEAD, with a message that says how to fix each failure."""
    if git_toplevel(root) is None:
        raise VcsError(f"--new-since needs a git repository, and {root} is not in one")
    verified = _git(root, ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"])
    if verified.returncode != 0:
        hint = " (in a shallow clone, fetch it first)" if _is_shallow(root) else ""
        raise VcsError(f"unknown git revision {ref!r}{hint}")
    result = _git(root, ["merge-base", ref, "HEAD"])
    if result.returncode == 0 and result.stdout.strip():
        return result.stdout.strip()
    if _is_shallow(root):
        raise VcsError(
            f"history is too shallow to find the merge-base of {ref!r} and HEAD: fetch more "
            "(`git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout)"
        )
    raise VcsError(f"{ref!r} and HEAD have no common history")


def _is_shallow(root: Path) -> bool:
    result = _git(root, ["rev-parse", "--is-shallow-repository"])
    return result.stdout.strip() == "true"


def changed_lines(root: Path, base: str) -> dict[Path, frozenset[int] | None]:
    """Lines of the working tree that differ from `base`, per absolute path; None means the
    whole file is new (untracked files included: they are part of the change too)."""
    top = git_toplevel(root)
    if top is None:
        raise VcsError(f"{root} is not in a git repository")
    diff = _git(top, ["diff", "-U0", "--no-color", "--no-ext-diff", "-M", base, "--"])
    if diff.returncode != 0:
        raise VcsError(f"git diff failed: {diff.stderr.strip() or diff.returncode}")
    changes = parse_unified_diff(diff.stdout, top)
    untracked = _git(top, ["ls-files", "--others", "--exclude-standard", "-z"])
    for name in untracked.stdout.split("\0"):
        if name:
            changes[(top / name).resolve()] = None
    return changes


def parse_unified_diff(text: str, top: Path) -> dict[Path, frozenset[int] | None]:
    """New-side line numbers touched by each file's hunks (`git diff -U0` output)."""
    changes: dict[Path, frozenset[int] | None] = {}
    current: Path | None = None
    lines: set[int] = set()
    new_file = False

    def flush() -> None:
        if current is not None:
            changes[current] = None if new_file else frozenset(lines)

    for line in text.splitlines():
        if line.startswith("diff --git "):
            flush()
            current, lines, new_file = None, set(), False
        elif line.startswith("new file mode"):
            new_file = True
        elif line.startswith("+++ "):
            name = _diff_path(line[4:])
            current = None if name is None else (top / name).resolve()
        elif current is not None and (hunk := _HUNK.match(line)):
            start, count = int(hunk.group(1)), int(hunk.group(2) or "1")
            if count:
                lines.update(range(start, start + count))
            else:
                # A pure deletion after line `start`: the lines on either side now touch it.
                lines.update((start, start + 1))
    flush()
    return changes


def _diff_path(raw: str) -> str | None:
    raw = raw.rstrip("\t")
    if raw == "/dev/null":
        return None
    if raw.startswith('"'):
        raw = _unquote(raw)
    return raw[2:] if raw.startswith("b/") else raw


def _unquote(quoted: str) -> str:
    # git C-quotes unusual names: "b/caf\303\251.py" (octal bytes of the UTF-8 encoding).
    body = quoted[1:-1] if quoted.endswith('"') else quoted[1:]
    out = bytearray()
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body):
            nxt = body[index + 1]
            if nxt in "01234567":
                out.append(int(body[index + 1 : index + 4], 8))
                index += 4
                continue
            out.extend(_C_ESCAPES.get(nxt, nxt).encode("utf-8"))
            index += 2
            continue
        out.extend(char.encode("utf-8", "surrogateescape"))
        index += 1
    return out.decode("utf-8", "surrogateescape")
