"""A gate function's declarations are gates (issue #18): `@supported_compute_capability(
[100, 103])` (also through a named constant list) and `supported_major_versions=[9, 10]`
in its body become findings at the list, and --fix widens them in the list's own
spelling only with --force, saying why (fixtures/declared_lists)."""

from __future__ import annotations

import dataclasses
import json
import py_compile
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.fixing.source import FAST_PATH, fix_source_report
from tests.conftest import FIXTURES

FIXTURE = FIXTURES / "declared_lists"

DIFF = [
    "+    120,",
    "-@supported_compute_capability([100, 103])",
    "+@supported_compute_capability([100, 103, 120])",
    "-    flags = get_nvcc_flags_list(supported_major_versions=[9, 10])",
    "+    flags = get_nvcc_flags_list(supported_major_versions=[9, 10, 12])",
]


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "lib"
    shutil.copytree(FIXTURE, root)
    monkeypatch.chdir(root)
    return root


def _check(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, ["check", "kern", "--rules", "rules.yaml", *args])


def test_declarations_are_findings_at_the_list(tree: Path) -> None:
    result = _check("--format", "json")
    assert result.exit_code == 1
    findings = json.loads(result.stdout)["findings"]
    where = [(f["start"]["line"], f["gate"]["culprit"], f["gate"]["kind"]) for f in findings]
    assert where == [
        (4, "[100, 103]", "declaration"),  # _CUTE_CCS, where the constant is written
        (10, "[100, 103]", "declaration"),
        (21, "[9, 10]", "declaration"),
    ]
    assert all(f["missing"] == ["sm120"] for f in findings)
    assert all("--fix widens it only with --force" in " ".join(f["notes"]) for f in findings)
    # The constant's finding keeps the declaration that names it on its path.
    hops = [(h["line"], h["kind"], h["condition"]) for h in findings[0]["path_hops"]]
    assert hops[-2:] == [(15, "declaration", "_CUTE_CCS"), (4, "allowlist", "[100, 103]")]


def test_fix_refuses_without_force_and_says_why(tree: Path) -> None:
    before = (tree / "kern" / "gemm.py").read_bytes()
    result = _check("--diff")
    assert result.exit_code == 1 and not result.stdout
    assert result.stderr.count("says what a kernel is built for") == 3
    assert "add a generation there only when the kernel is built for it" in result.stderr
    assert "(use --force to widen anyway)" in result.stderr
    assert _check("--fix").exit_code == 1
    assert (tree / "kern" / "gemm.py").read_bytes() == before


def test_force_widens_in_the_lists_own_spelling(tree: Path) -> None:
    diff = _check("--diff", "--force")
    assert diff.exit_code == 1
    changed = [
        line
        for line in diff.stdout.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert changed == DIFF
    fixed = _check("--fix", "--force")
    assert fixed.exit_code == 0, fixed.output
    assert "3 fixed, 0 left" in fixed.stderr
    py_compile.compile(str(tree / "kern" / "gemm.py"), doraise=True)
    assert _check("--no-cache").exit_code == 0
    after = (tree / "kern" / "gemm.py").read_bytes()
    again = _check("--fix", "--force")
    assert again.exit_code == 0
    assert (tree / "kern" / "gemm.py").read_bytes() == after


def test_lists_that_name_no_generation_are_no_gates() -> None:
    source = (
        "import torch\n"
        "def _cache(sizes):\n    def wrap(f):\n        return f\n    return wrap\n"
        "@_cache([1, 2, 4])\n"
        "def requirement(a):\n    return torch.zeros(size=[1, 2]) is not None and a.ok\n"
    )
    feature = dataclasses.replace(FAST_PATH, flags=(), gate_functions=("gate.requirement",))
    report = fix_source_report(source, feature, force=True)
    assert report.text == source and not report.refused and not report.fixed


def test_fixed_lists_compile(tree: Path) -> None:
    assert _check("--fix", "--force").exit_code == 0
    for path in (tree / "kern").glob("*.py"):
        py_compile.compile(str(path), doraise=True)
