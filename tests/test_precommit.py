"""pre-commit: `--files-scope` reports only the given files while analysing the whole
project, and the shipped hooks work through the real `pre-commit` against this checkout."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from gatecheck.cli import cli
from tests.conftest import FAST_THING_RULE, REPO, write_tree

ARCH = """
import torch


def hopper_class() -> bool:
    return torch.cuda.get_device_capability()[0] == 9


def datacenter_blackwell() -> bool:
    return torch.cuda.get_device_capability()[0] == 10


def workstation_blackwell() -> bool:
    return torch.cuda.get_device_capability()[0] == 12
"""
# The predicates' names say nothing: only their bodies, in another module, tell the gate's
# generations. A run that analysed just the committed file could not see them.
ARGS = """
from pkg.arch import datacenter_blackwell, hopper_class, workstation_blackwell


class Args:
    enable_fast_thing: bool = False

    def adjust(self) -> None:
        if hopper_class() or datacenter_blackwell() or workstation_blackwell():
            self.enable_fast_thing = True
"""
BROKEN_ARGS = ARGS.replace(" or workstation_blackwell()", "")
OTHER = """
from pkg.arch import hopper_class


class Other:
    enable_fast_thing: bool = False

    def adjust(self) -> None:
        if hopper_class():
            self.enable_fast_thing = True
"""
RULES = FAST_THING_RULE
PYPROJECT = '[tool.gatecheck]\nrules = ["rules/gates.yaml"]\n'


def project(root: Path, args: str = BROKEN_ARGS, other: str | None = OTHER) -> Path:
    files = {
        "pkg/__init__.py": "",
        "pkg/arch.py": ARCH,
        "pkg/args.py": args,
        "rules/gates.yaml": RULES,
        "pyproject.toml": PYPROJECT,
    }
    if other is not None:
        files["pkg/other.py"] = other
    return write_tree(root, files)


def reported(*args: str) -> list[tuple[str, int]]:
    result = CliRunner().invoke(cli, ["check", *args, "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    return [(f["path"], f["start"]["line"]) for f in json.loads(result.output)["findings"]]


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = project(tmp_path / "proj")
    monkeypatch.chdir(root)
    return root


def test_files_scope_analyses_the_whole_project(proj: Path) -> None:
    assert reported("pkg/args.py") == []  # alone, the predicates' bodies are out of sight
    assert reported("--files-scope", "pkg/args.py") == [("pkg/args.py", 9)]


@pytest.mark.parametrize(
    "batch",
    [
        pytest.param(["pkg/args.py"], id="alone"),
        pytest.param(["pkg/arch.py", "pkg/args.py"], id="with-its-predicates"),
        pytest.param(
            ["pkg/args.py", "pkg/other.py", "rules/gates.yaml", "pyproject.toml"], id="everything"
        ),
    ],
)
def test_same_findings_whatever_the_batch(proj: Path, batch: list[str]) -> None:
    found = reported("--files-scope", *batch)
    assert [f for f in found if f[0] == "pkg/args.py"] == [("pkg/args.py", 9)]
    assert {path for path, _ in found} <= set(batch)


def test_files_scope_of_a_clean_file_passes(proj: Path) -> None:
    result = CliRunner().invoke(cli, ["check", "--files-scope", "pkg/arch.py"])
    assert result.exit_code == 0
    assert "2 outside the files scope" in result.output


def test_files_scope_takes_folders(proj: Path) -> None:
    assert sorted(reported("--files-scope", "pkg")) == [("pkg/args.py", 9), ("pkg/other.py", 9)]


def test_hooks_file() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["gatecheck"]["entry"] == "gatecheck check --files-scope"
    assert hooks["gatecheck-project"]["pass_filenames"] is False
    assert all(h["language"] == "python" for h in hooks.values())


# --- the real pre-commit -------------------------------------------------------------------


def _git(cwd: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )


@pytest.mark.slow
def test_precommit_hooks_reject_a_broken_gate(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if importlib.util.find_spec("pre_commit") is None:
        pytest.skip("pre-commit is not installed (pip install -e '.[test]')")
    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
        "PRE_COMMIT_COLOR": "never",
        "NO_COLOR": "1",
    }
    env.pop("GITHUB_STEP_SUMMARY", None)
    repo = project(tmp_path / "repo", args=ARGS, other=None)
    config = {
        "repos": [
            {
                "repo": str(REPO),
                "rev": head,
                "hooks": [{"id": "gatecheck"}, {"id": "gatecheck-project"}],
            }
        ]
    }
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    assert _git(repo, "init", "-q", "-b", "main", env=env).returncode == 0
    installed = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr

    _git(repo, "add", ".", env=env)
    clean = _git(repo, "commit", "-m", "clean gates", env=env)
    assert clean.returncode == 0, clean.stdout + clean.stderr

    (repo / "pkg" / "args.py").write_text(BROKEN_ARGS.lstrip("\n"), encoding="utf-8")
    _git(repo, "add", "pkg/args.py", env=env)
    broken = _git(repo, "commit", "-m", "drop workstation blackwell", env=env)
    output = broken.stdout + broken.stderr
    assert broken.returncode != 0, output
    assert "pkg/args.py:8:" in output and "GC001 [fast-thing]" in output
    assert "excludes required sm120" in output
    assert "- hook id: gatecheck\n" in output and "- hook id: gatecheck-project\n" in output
    assert _git(repo, "rev-list", "--count", "HEAD", env=env).stdout.strip() == "1"


def test_readme_yaml_snippets_parse() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = [part.split("```", 1)[0] for part in readme.split("```yaml\n")[1:]]
    documents = [yaml.safe_load(block) for block in blocks]
    hooks = [d for d in documents if isinstance(d, dict) and "repos" in d]
    assert hooks and hooks[0]["repos"][0]["hooks"][0]["id"] == "gatecheck"
    workflows = [d for d in documents if isinstance(d, dict) and "jobs" in d]
    steps = workflows[0]["jobs"]["gatecheck"]["steps"]
    assert any("upload-sarif" in step.get("uses", "") for step in steps)
