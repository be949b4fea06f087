"""Performance shortcuts never change an answer: the findings of `check` and the audit JSON
are the same with and without the cache, with and without the evaluator's shortcuts
(one shared evaluation of what no generation decides; the early exit when the device was
never read), with and without the audit's worker processes, and with and without the
check's forked scan of every file (loading/prescan.py) -- on the fixtures and on sglang
0.5.9 (tests/test_audit_workers.py: a project large enough for workers)."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import gatecheck.engine as engine
from gatecheck.audit import run_audit
from gatecheck.cli import cli
from gatecheck.config.loader import load_ruleset
from gatecheck.config.model import RuleSet
from gatecheck.findings import Finding
from gatecheck.forking import can_fork
from gatecheck.loading import prescan
from gatecheck.reporting.audit_json import render_audit_json
from gatecheck.semantics.admitted import Semantics
from tests.conftest import FIXTURES, corpus_package

REPO = Path(__file__).resolve().parent.parent
FIXTURE_TREES = ["seed_alias", "seed_utils_only", "kernel_app"]


def _findings(root: Path, ruleset: RuleSet) -> list[Finding]:
    return engine.analyse([root], ruleset).findings


def _cli_outputs(
    root: Path, command: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    """Cold (writes the cache), warm (reads it), and --no-cache, from a folder of its own."""
    monkeypatch.chdir(cwd)
    runner = CliRunner()
    outputs = []
    for extra in ([], [], ["--no-cache"]):
        result = runner.invoke(cli, [*command, str(root), *extra])
        assert result.exit_code in (0, 1), result.output
        outputs.append(result.output)
    return outputs


@pytest.mark.parametrize("tree", FIXTURE_TREES)
def test_check_findings_without_shortcuts(
    tree: str, ruleset: RuleSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_shortcuts = _findings(FIXTURES / tree, ruleset)
    monkeypatch.setattr(engine, "Semantics", functools.partial(Semantics, shortcuts=False))
    assert _findings(FIXTURES / tree, ruleset) == with_shortcuts


@pytest.mark.parametrize("tree", FIXTURE_TREES)
def test_audit_json_without_shortcuts(tree: str, ruleset: RuleSet) -> None:
    root = FIXTURES / tree
    fast = render_audit_json(run_audit([root], ruleset, "sm120"), root)
    slow = render_audit_json(run_audit([root], ruleset, "sm120", shortcuts=False), root)
    assert fast == slow


@pytest.mark.parametrize("tree", FIXTURE_TREES)
def test_cli_reports_with_and_without_cache(
    tree: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = FIXTURES / tree
    check = _cli_outputs(root, ["check", "--format", "json"], tmp_path, monkeypatch)
    assert check[0] == check[1] == check[2]
    audit = ["audit", "--generation", "sm120", "--format", "json"]
    assert len(set(_cli_outputs(root, audit, tmp_path, monkeypatch))) == 1


def _check_with_scan(
    tree: Path, forked: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], list[list[Any]]]:
    """Cold, warm and uncached check outputs of a copy of `tree`, and the cold run's cache
    rows (name, size, whether the file holds the suppression marker, digest)."""
    monkeypatch.setattr(prescan, "MIN_FORKED_FILES", 1 if forked else 10**9)
    root = tmp_path / ("forked" if forked else "here")
    shutil.copytree(tree, root)
    monkeypatch.chdir(root)
    runner = CliRunner()
    cold = runner.invoke(cli, ["check", "--format", "json"])
    (entry,) = (root / ".gatecheck_cache").glob("check-*.json")
    rows = [
        [str(Path(r[0]).relative_to(root)), r[2], r[6], r[5]]
        for r in json.loads(entry.read_text())["files"]
    ]
    warm = runner.invoke(cli, ["check", "--format", "json"])
    uncached = runner.invoke(cli, ["check", "--format", "json", "--no-cache"])
    monkeypatch.undo()
    return [cold.output, warm.output, uncached.output], rows


@pytest.mark.skipif(not can_fork(), reason="no os.fork on this system")
@pytest.mark.parametrize("tree", FIXTURE_TREES)
def test_check_with_and_without_the_forked_scan(
    tree: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outputs, rows = _check_with_scan(FIXTURES / tree, True, tmp_path, monkeypatch)
    expected, expected_rows = _check_with_scan(FIXTURES / tree, False, tmp_path, monkeypatch)
    assert outputs == [expected[0]] * 3
    # The same entry, but for digests: a file the run did not read is not read again
    # to hash it (racy here: the copy was just made), and is read by the next run.
    assert [r[:3] for r in rows] == [r[:3] for r in expected_rows]
    for row, other in zip(rows, expected_rows, strict=True):
        assert row[3] in ("", other[3])


@pytest.mark.skipif(not can_fork(), reason="no os.fork on this system")
def test_suppressions_with_and_without_the_forked_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The suppression scan reads the files the forked scan found holding the marker: one
    suppressed finding, one comment that suppresses nothing (GC102)."""
    tree = tmp_path / "tree"
    shutil.copytree(FIXTURES / "seed_alias", tree)
    comm = tree / "sglang" / "srt" / "layers" / "communicator.py"
    lines = comm.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[20] = lines[20].rstrip("\n") + "  # gatecheck: ignore[GC001] not for this device\n"
    comm.write_text("".join(lines), encoding="utf-8")
    (tree / "sglang" / "other.py").write_text("x = 1  # gatecheck: ignore[GC001] stale\n")
    outputs, _ = _check_with_scan(tree, True, tmp_path, monkeypatch)
    expected, _ = _check_with_scan(tree, False, tmp_path, monkeypatch)
    assert outputs == [expected[0]] * 3
    found = [(f["rule"], Path(f["path"]).name) for f in json.loads(expected[0])["findings"]]
    assert sorted(found) == [("GC001", "server_args.py"), ("GC102", "other.py")]


@pytest.mark.corpus
def test_sglang_same_answers_everywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = corpus_package("sglang==0.5.9")
    ruleset = load_ruleset(None)
    findings = _findings(root, ruleset)
    assert len(findings) == 2
    check = _cli_outputs(root, ["check", "--format", "json"], tmp_path, monkeypatch)
    assert check[0] == check[1] == check[2]
    # 1,404 files: the check's scan is forked; read in this process, the same report.
    monkeypatch.setattr(prescan, "MIN_FORKED_FILES", 10**9)
    assert _cli_outputs(root, ["check", "--format", "json"], tmp_path, monkeypatch) == check
    monkeypatch.undo()
    audit_command = ["audit", "--generation", "sm120", "--format", "json"]
    audit = _cli_outputs(root, audit_command, tmp_path, monkeypatch)
    assert audit[0] == audit[1] == audit[2]
    fast = render_audit_json(run_audit([root], ruleset, "sm120"), root)
    slow = render_audit_json(run_audit([root], ruleset, "sm120", shortcuts=False), root)
    assert fast == slow
    # Worker processes (audit/workers.py): the single-process report.
    assert render_audit_json(run_audit([root], ruleset, "sm120", jobs=2), root) == fast
    monkeypatch.setattr(engine, "Semantics", functools.partial(Semantics, shortcuts=False))
    assert _findings(root, ruleset) == findings


@pytest.mark.parametrize("tree", FIXTURE_TREES)
def test_discovery_without_pathlib_child_helper(
    tree: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discovery builds file Paths from their folder's Path where pathlib can (a private
    helper, absent from some Python): the same files, equal and spelled alike, without it."""
    import gatecheck.discovery as discovery

    link = tmp_path / "linked"
    link.symlink_to(FIXTURES / tree, target_is_directory=True)
    for root in (FIXTURES / tree, link):
        fast = discovery.discover([root])
        monkeypatch.setattr(discovery, "_child", None)
        slow = discovery.discover([root])
        monkeypatch.undo()
        assert fast.files == slow.files
        assert [str(p) for p in fast.files] == [str(p) for p in slow.files]
        assert fast.files


_AUDIT_ONE_FILE = """\
import sys
from pathlib import Path
from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset
from gatecheck.reporting.audit_json import render_audit_json
root = Path(sys.argv[1])
report = run_audit([root], load_ruleset(None), "sm120", only=[root / sys.argv[2]])
print(render_audit_json(report, root))
"""


@pytest.mark.corpus
def test_the_same_audit_under_any_hash_seed() -> None:
    """The answer does not depend on where the allocator puts objects (which follows
    PYTHONHASHSEED): a call memo keyed by a freed instance's id gave FlashInfer 0.7.4's
    cake_fmha.py:5032 a row under seed 2 only (tests/test_memo_keys.py)."""
    root = corpus_package("flashinfer-python==0.7.4")
    reports = set()
    for seed in ("1", "2", "3", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        done = subprocess.run(
            [sys.executable, "-c", _AUDIT_ONE_FILE, str(root), "flashinfer/cake_fmha.py"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        reports.add(done.stdout)
    assert len(reports) == 1
