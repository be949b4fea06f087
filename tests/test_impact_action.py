"""The composite action with `command: impact`: the step runs `gatecheck impact` against
`base` (or origin/$GITHUB_BASE_REF), annotates, writes the job summary and SARIF, and
refuses a missing base or an unknown command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import write_tree
from tests.test_action import run_step
from tests.test_impact import BASE_FILES, commit_all, edit, git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def narrowing_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_tree(root, BASE_FILES)
    commit_all(root, "base")
    git(root, "checkout", "-q", "-b", "feature")
    edit(root, "pkg/utils.py", "major in (10, 11, 12)", "major == 10")
    commit_all(root, "narrow is_blackwell")
    return root


def test_impact_fails_on_narrowing_and_writes_sarif(narrowing_repo: Path, tmp_path: Path) -> None:
    sarif = tmp_path / "impact.sarif"
    code, outputs, log = run_step(
        narrowing_repo, tmp_path, command="impact", base="main", sarif_file=str(sarif)
    )
    assert code == 1, log
    assert outputs["exit-code"] == "1" and outputs["sarif-file"] == str(sarif)
    assert "::error file=pkg/model.py,line=5," in log
    assert [r["ruleId"] for r in json.loads(sarif.read_text())["runs"][0]["results"]] == [
        "impact-narrowed"
    ]
    assert "| narrowed |" in (tmp_path / "step_summary").read_text(encoding="utf-8")


def test_impact_args_allow_narrowing(narrowing_repo: Path, tmp_path: Path) -> None:
    code, outputs, _ = run_step(
        narrowing_repo, tmp_path, command="impact", base="main", args="--allow-narrowing"
    )
    assert code == 0 and outputs["exit-code"] == "0"


def test_noop_impact_without_base_outside_pull_requests(
    narrowing_repo: Path, tmp_path: Path
) -> None:
    code, _, log = run_step(narrowing_repo, tmp_path, command="impact")
    assert code == 2 and "needs the base input outside pull requests" in log


def test_noop_unknown_command(narrowing_repo: Path, tmp_path: Path) -> None:
    code, _, log = run_step(narrowing_repo, tmp_path, command="lint")
    assert code == 2 and "command must be check or impact, not 'lint'" in log
