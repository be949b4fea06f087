"""`gatecheck impact` on a real pair of releases: sglang 0.5.9 committed as BASE, 0.5.12 as
the working tree (the whole `sglang` package of each wheel, Python files only, so that
every predicate body resolves as in the release). Downloaded by the test, never committed.

The known widening (benchmarks/accuracy/labels/sglang.yaml, the gap on fp8.py:686 of 0.5.9,
`fixed_in` fp8.py:838 of 0.5.12): the cutlass FP8 MoE check gains is_sm120_supported().
The one narrowing reported was checked by hand: 0.5.12 splits 0.5.9's
`is_blackwell_supported() and is_mxfp4_quant_format` into an `is_sm100_supported()` branch
and a new `elif is_sm120_supported()` branch (reported as a new gate), so that gate no
longer admits sm110, sm120, sm121 (sm110 loses the mxfp4 defaults altogether)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from tests.conftest import corpus_package
from tests.test_impact import commit_all, git

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]

OLDER, NEWER = "sglang==0.5.9", "sglang==0.5.12"


def _copy_python(source: Path, target: Path) -> None:
    for path in source.rglob("*.py"):
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    older, newer = corpus_package(OLDER), corpus_package(NEWER)
    repo = tmp_path_factory.mktemp("pair") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    _copy_python(older / "sglang", repo / "sglang")
    commit_all(repo, OLDER)
    shutil.rmtree(repo / "sglang")
    _copy_python(newer / "sglang", repo / "sglang")
    runner = CliRunner()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repo)
        result = runner.invoke(
            cli, ["impact", "main", "--format", "json", "--no-cache", "--allow-narrowing", "-q"]
        )
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def _issues(report: dict[str, object], rule: str) -> list[dict[str, object]]:
    issues = report["issues"]
    assert isinstance(issues, list)
    return [i for i in issues if i["rule"] == rule]


def test_the_known_widening_appears(report: dict[str, object]) -> None:
    widened = [(i["path"], i["line"], i["generations"]) for i in _issues(report, "impact-widened")]
    assert ("sglang/srt/layers/quantization/fp8.py", 838, ["sm120", "sm121"]) in widened


def test_an_assignment_gains_no_widening_by_its_operators(report: dict[str, object]) -> None:
    # Read by the operators' shape, 0.5.9's `use_atomic_add = ... or major >= 9` was a
    # disabling gate (sm70-89) and 0.5.12's, with `and not x`, an enabling one (all):
    # a false widening at fused_marlin_moe.py:183.
    widened = [(i["path"], i["line"]) for i in _issues(report, "impact-widened")]
    marlin = "sglang/srt/layers/moe/fused_moe_triton/fused_marlin_moe.py"
    assert [w for w in widened if w[0] == marlin] == []


def test_only_the_hand_checked_narrowing(report: dict[str, object]) -> None:
    narrowed = [
        (i["path"], i["after"]["condition"], i["before"]["condition"], i["generations"])  # type: ignore[index]
        for i in _issues(report, "impact-narrowed")
    ]
    assert narrowed == [
        (
            "sglang/srt/server_args.py",
            "is_sm100_supported() and is_mxfp4_quant_format",
            "is_blackwell_supported() and is_mxfp4_quant_format",
            ["sm110", "sm120", "sm121"],
        )
    ]
