"""Adoption on an existing code base: `--write-baseline` / `--baseline` (keyed on the finding's
fingerprint, so moved code does not re-fire) and `--new-since REF` (git hunks)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.baseline import gate_lines
from gatecheck.cli import cli
from gatecheck.findings import (
    MISSING_GENERATION,
    Finding,
    GateKind,
    Hop,
    HopKind,
    Polarity,
    Position,
)
from gatecheck.vcs import parse_unified_diff
from tests.conftest import FIXTURES

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "seed"
    shutil.copytree(FIXTURES / "seed_alias", root)
    monkeypatch.chdir(root)
    return root


def check(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["check", *args])
    return result.exit_code, result.output


def found(*args: str) -> list[tuple[str, int]]:
    code, output = check(*args, "--format", "json")
    assert code in (0, 1), output
    return [(f["path"], f["start"]["line"]) for f in json.loads(output)["findings"]]


SERVER = "sglang/srt/server_args.py"
COMMUNICATOR = "sglang/srt/layers/communicator.py"


def test_write_then_use_baseline(seed: Path) -> None:
    code, output = check(".", "--write-baseline", "baseline.json")
    assert code == 0, output
    data = json.loads((seed / "baseline.json").read_text())
    assert data["gatecheck_baseline"] == 1
    assert [(e["path"], e["rule"], e["feature"]) for e in data["findings"]] == [
        (COMMUNICATOR, "GC001", "flashinfer-allreduce-fusion"),
        (SERVER, "GC001", "flashinfer-allreduce-fusion"),
    ]
    code, output = check(".", "--baseline", "baseline.json")
    assert code == 0
    assert "0 findings" in output and "2 in the baseline" in output


def test_moved_code_does_not_refire(seed: Path) -> None:
    check(".", "--write-baseline", "baseline.json")
    server = seed / SERVER
    server.write_text("# a new header\n\n\n" + server.read_text())
    assert found(".", "--baseline", "baseline.json") == []


def test_changed_condition_refires(seed: Path) -> None:
    check(".", "--write-baseline", "baseline.json")
    server = seed / SERVER
    text = server.read_text()
    server.write_text(
        text.replace("(is_sm90_supported() or is_sm100_supported())", "is_sm90_supported()")
    )
    assert found(".", "--baseline", "baseline.json") == [(SERVER, 27)]


def test_a_second_copy_of_a_known_gate_is_new(seed: Path) -> None:
    check(".", "--write-baseline", "baseline.json")
    copy = seed / "sglang/srt/layers/communicator.py"
    text = copy.read_text()
    body = text[text.index("def apply_flashinfer_allreduce_fusion") :]
    copy.write_text(
        text + "\n\n" + body.replace("def apply_flashinfer_allreduce_fusion", "def _twin")
    )
    assert len(found(".", "--baseline", "baseline.json")) == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(None, "baseline file not found", id="missing"),
        pytest.param("{not json", "invalid JSON", id="invalid-json"),
        pytest.param('{"findings": []}', "not a gatecheck baseline", id="no-version"),
        pytest.param(
            '{"gatecheck_baseline": 1, "findings": [{}]}', "'fingerprint'", id="bad-entry"
        ),
    ],
)
def test_bad_baseline_is_a_usage_error(seed: Path, content: str | None, message: str) -> None:
    if content is not None:
        (seed / "baseline.json").write_text(content)
    code, output = check(".", "--baseline", "baseline.json")
    assert code == 2
    assert message in output and "Traceback" not in output


# --- --new-since -----------------------------------------------------------------------------


def git(root: Path, *args: str) -> str:
    result = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.fixture
def git_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "test@example.com")


@pytest.fixture
def repo(seed: Path, git_env: None) -> Path:
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", ".")
    git(seed, "commit", "-q", "-m", "base")
    git(seed, "checkout", "-q", "-b", "feature")
    return seed


@needs_git
def test_new_since_reports_only_touched_gates(repo: Path) -> None:
    assert found(".", "--new-since", "main") == []
    server = repo / SERVER
    server.write_text(server.read_text().replace("and self.nnodes == 1", "and self.nnodes <= 2"))
    # The gate's condition changed (line 29), the flagged operand (27) did not: still new.
    assert found(".", "--new-since", "main") == [(SERVER, 27)]
    git(repo, "commit", "-q", "-am", "touch the gate")
    assert found(".", "--new-since", "main") == [(SERVER, 27)]
    _code, output = check(".", "--new-since", "main")
    assert "1 not new since main" in output


@needs_git
def test_new_since_counts_untracked_files(repo: Path) -> None:
    shutil.copy(repo / COMMUNICATOR, repo / "sglang/srt/layers/communicator2.py")
    assert found(".", "--new-since", "main") == [("sglang/srt/layers/communicator2.py", 21)]


@needs_git
def test_new_since_unknown_ref(repo: Path) -> None:
    code, output = check(".", "--new-since", "no-such-branch")
    assert code == 2
    assert "unknown git revision 'no-such-branch'" in output


@needs_git
def test_new_since_outside_git(seed: Path, git_env: None) -> None:
    code, output = check(".", "--new-since", "main")
    assert code == 2 and "git" in output


@needs_git
def test_new_since_too_shallow(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "feature.txt").write_text("feature work\n")
    git(repo, "add", "feature.txt")
    git(repo, "commit", "-q", "-m", "feature")
    git(repo, "checkout", "-q", "main")
    (repo / "main.txt").write_text("main work\n")
    git(repo, "add", "main.txt")
    git(repo, "commit", "-q", "-m", "main moves on")
    clone = tmp_path / "clone"
    subprocess.run(
        [
            "git",
            "clone",
            "-q",
            "--depth",
            "1",
            "--no-single-branch",
            "--branch",
            "feature",
            f"file://{repo}",
            str(clone),
        ],
        check=True,
        capture_output=True,
    )
    monkeypatch.chdir(clone)
    code, output = check(".", "--new-since", "origin/main")
    assert code == 2
    assert "too shallow" in output and "fetch-depth: 0" in output


def test_parse_unified_diff(tmp_path: Path) -> None:
    diff = (
        "diff --git a/a.py b/a.py\n"
        "--- a/a.py\n"
        "+++ b/a.py\n"
        "@@ -3 +3,2 @@ def f():\n"
        "-x\n+y\n+z\n"
        "@@ -10,2 +11,0 @@\n"
        "-gone\n-gone\n"
        "diff --git a/new.py b/new.py\n"
        "new file mode 100644\n"
        "--- /dev/null\n"
        "+++ b/new.py\n"
        "@@ -0,0 +1 @@\n+new\n"
        'diff --git "a/caf\\303\\251.py" "b/caf\\303\\251.py"\n'
        '+++ "b/caf\\303\\251.py"\n'
        "@@ -1 +1 @@\n-a\n+b\n"
    )
    changes = parse_unified_diff(diff, tmp_path)
    assert changes == {
        (tmp_path / "a.py").resolve(): frozenset({3, 4, 11, 12}),
        (tmp_path / "new.py").resolve(): None,
        (tmp_path / "café.py").resolve(): frozenset({1}),
    }


def test_gate_lines_start_at_the_condition(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    hop = Hop(path, 24, "f", HopKind.AUTO_ENABLE, "c", frozenset(), 11)
    finding = Finding(
        rule=MISSING_GENERATION,
        path=path,
        start=Position(27, 17),
        end=Position(27, 60),
        feature="x",
        message="m",
        required=frozenset(),
        admitted=frozenset(),
        missing=frozenset(),
        gate_kind=GateKind.AUTO_ENABLE,
        polarity=Polarity.ENABLES,
        qualname="f",
        condition="c",
        culprit="c",
        hops=(hop,),
    )
    assert gate_lines(finding) == range(24, 28)
