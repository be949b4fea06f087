"""`git_toplevel` reads the work tree from the folders where git's own answer cannot differ,
and asks git elsewhere: every case here is checked against `git rev-parse --show-toplevel`."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from gatecheck import vcs

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() if done.returncode == 0 else ""


def _gits_answer(start: Path) -> Path | None:
    top = _git(start, "rev-parse", "--show-toplevel")
    return Path(top).resolve() if top else None


def _repo(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    _git(folder, "init", "-q")
    (folder / "a.py").write_text("x = 1\n", encoding="utf-8")
    _git(folder, "add", "a.py")
    _git(folder, "commit", "-q", "-m", "a")
    return folder


def _layout(tmp_path: Path, shape: str) -> Path:
    """A folder to start from, in one of the shapes git finds a work tree for."""
    if shape == "outside any repository":
        start = tmp_path / "plain" / "deep"
        start.mkdir(parents=True)
        return start
    repo = _repo(tmp_path / "repo")
    if shape == "the work tree's top":
        return repo
    if shape == "a folder inside it":
        start = repo / "pkg" / "sub"
        start.mkdir(parents=True)
        return start
    if shape == "a repository nested in another":
        return _repo(repo / "vendored" / "inner")
    if shape == "a linked worktree (.git file)":
        _git(repo, "worktree", "add", "-q", str(tmp_path / "linked"))
        start = tmp_path / "linked" / "pkg"
        start.mkdir()
        return start
    if shape == "a symlink to a folder inside it":
        inside = repo / "pkg"
        inside.mkdir()
        link = tmp_path / "link"
        link.symlink_to(inside, target_is_directory=True)
        return link
    if shape == "a .git folder that is no repository":
        fake = tmp_path / "plain2" / "fake"
        (fake / ".git").mkdir(parents=True)
        return fake
    if shape == "a .git file that names no gitdir":
        fake = tmp_path / "plain3"
        fake.mkdir()
        (fake / ".git").write_text("not a gitfile\n", encoding="utf-8")
        return fake
    if shape == "inside the repository's .git":
        return repo / ".git" / "refs"
    if shape == "core.worktree set":
        elsewhere = tmp_path / "tree"
        elsewhere.mkdir()
        _git(repo, "config", "core.worktree", str(elsewhere))
        return repo
    raise AssertionError(shape)


SHAPES = [
    "outside any repository",
    "the work tree's top",
    "a folder inside it",
    "a repository nested in another",
    "a linked worktree (.git file)",
    "a symlink to a folder inside it",
    "a .git folder that is no repository",
    "a .git file that names no gitdir",
    "inside the repository's .git",
    "core.worktree set",
]


@pytest.mark.parametrize("shape", SHAPES)
def test_same_answer_as_git(tmp_path: Path, shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in vcs._DISCOVERY_ENV:
        monkeypatch.delenv(name, raising=False)
    start = _layout(tmp_path, shape)
    assert vcs.git_toplevel(start) == _gits_answer(start)


# Where git's answer may differ from the folders, the walk declines (git is asked).
DECLINED = [
    "a .git folder that is no repository",
    "a .git file that names no gitdir",
    "inside the repository's .git",
    "core.worktree set",
]


@pytest.mark.parametrize("shape", DECLINED)
def test_walk_declines_where_only_git_can_say(
    tmp_path: Path, shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in vcs._DISCOVERY_ENV:
        monkeypatch.delenv(name, raising=False)
    assert vcs._walked_toplevel(_layout(tmp_path, shape)) is None


@pytest.mark.parametrize("shape", [s for s in SHAPES if s not in DECLINED])
def test_walk_answers_without_git(
    tmp_path: Path, shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in vcs._DISCOVERY_ENV:
        monkeypatch.delenv(name, raising=False)
    start = _layout(tmp_path, shape)
    walked = vcs._walked_toplevel(start)
    assert walked is not None
    assert walked.top == _gits_answer(start)


@pytest.mark.parametrize("name", vcs._DISCOVERY_ENV)
def test_discovery_settings_leave_it_to_git(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path / "repo")
    monkeypatch.setenv(name, str(tmp_path))
    assert vcs._walked_toplevel(repo) is None


def test_ceiling_directories_as_git_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path / "repo")
    start = repo / "pkg"
    start.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(repo))
    assert vcs.git_toplevel(start) == _gits_answer(start)


def test_without_git_the_folders_still_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same project root on a machine without git (where git is needed, as for
    --new-since, run_git says it is not installed)."""
    for name in vcs._DISCOVERY_ENV:
        monkeypatch.delenv(name, raising=False)
    repo = _repo(tmp_path / "repo")
    start = repo / "pkg"
    start.mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert vcs.git_toplevel(start) == repo.resolve()
    with pytest.raises(vcs.VcsError, match="git is not installed"):
        vcs.run_git(repo, ["status"], needed_for="needed here")


def test_without_git_only_git_could_say(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repo(tmp_path / "repo")
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert vcs.git_toplevel(repo) is None


def test_a_work_tree_found_runs_no_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repo(tmp_path / "repo")
    for name in vcs._DISCOVERY_ENV:
        monkeypatch.delenv(name, raising=False)

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("git was run")

    monkeypatch.setattr(subprocess, "run", refuse)
    assert vcs.git_toplevel(repo / ".") == repo.resolve()


@pytest.mark.parametrize("where", [".git", ".git/config"])
def test_a_fifo_never_blocks(tmp_path: Path, where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A FIFO where .git or its config is read (untrusted content in CI): the walk
    declines, without opening it, and git answers (it refuses such a .git too)."""
    for name in vcs._DISCOVERY_ENV:
        monkeypatch.delenv(name, raising=False)
    repo = _repo(tmp_path / "repo")
    inner = repo / "pkg"
    inner.mkdir()
    if where == ".git":
        os.mkfifo(inner / ".git")
    else:
        (repo / ".git" / "config").unlink()
        os.mkfifo(repo / ".git" / "config")
    assert vcs._walked_toplevel(inner) is None
    if where == ".git":
        assert vcs.git_toplevel(inner) == _gits_answer(inner)
