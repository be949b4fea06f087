"""--fix on real engines other than SGLang (downloaded wheels, nothing committed), with
a fixture rule for one real feature of each: the diff is the expected minimal edit, the
fixed tree re-checks clean, a second --fix changes nothing, and the fixed files compile."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from tests.conftest import FIXTURES, corpus_package

RULES = FIXTURES / "engine_rules"

CASES = [
    pytest.param(
        "vllm==0.15.1",
        "vllm",
        "vllm_deep_gemm.yaml",
        "vllm/utils/deep_gemm.py",
        [],
        ["+        or current_platform.is_device_capability_family(120)"],
        id="vllm-0.15.1-deep-gemm-local-name-platform-methods",
    ),
    pytest.param(
        "vllm==0.33.0",
        "vllm",
        "vllm_varlen_paged_mqa_logits.yaml",
        "vllm/v1/attention/backends/mla/indexer.py",
        ["-        and current_platform.is_device_capability_family(100)"],
        [
            "+        and (",
            "+            current_platform.is_device_capability_family(100)",
            "+            or current_platform.is_device_capability_family(120)",
            "+        )",
        ],
        id="vllm-0.33.0-varlen-mqa-logits-lone-family-method",
    ),
    pytest.param(
        "lmdeploy==0.10.2",
        "lmdeploy",
        "lmdeploy_fa3.yaml",
        "lmdeploy/pytorch/backends/cuda/attention.py",
        [
            "-    if (torch.cuda.get_device_capability()[0] == 9)"
            " and (torch.version.cuda >= '12.3'):"
        ],
        [
            "+    if (torch.cuda.get_device_capability()[0] in (9, 10))"
            " and (torch.version.cuda >= '12.3'):"
        ],
        id="lmdeploy-0.10.2-fa3-exact-major",
    ),
]


def _copy_python(source: Path, target: Path) -> None:
    def ignore(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir()]

    shutil.copytree(source, target, ignore=ignore)


def _changed_lines(diff: str) -> tuple[list[str], list[str]]:
    lines = [line for line in diff.splitlines() if not line.startswith(("+++", "---"))]
    return [line for line in lines if line.startswith("-")], [
        line for line in lines if line.startswith("+")
    ]


@pytest.mark.corpus
@pytest.mark.parametrize(("requirement", "package", "rule", "edited", "removed", "added"), CASES)
def test_fix_on_real_engine(
    tmp_path: Path,
    requirement: str,
    package: str,
    rule: str,
    edited: str,
    removed: list[str],
    added: list[str],
) -> None:
    root = tmp_path / "tree"
    _copy_python(corpus_package(requirement) / package, root / package)
    rules = ["--rules", str(RULES / rule)]
    runner = CliRunner()
    shown = runner.invoke(cli, ["check", str(root), *rules, "--diff"])
    assert shown.exit_code == 1, shown.output
    assert f"b/{root / edited}" in shown.output
    assert _changed_lines(shown.stdout) == (removed, added), shown.stdout
    assert runner.invoke(cli, ["check", str(root), *rules, "--fix"]).exit_code == 0
    clean = runner.invoke(cli, ["check", str(root), *rules])
    assert clean.exit_code == 0, clean.output
    snapshot = {p: p.read_bytes() for p in root.rglob("*.py")}
    again = runner.invoke(cli, ["check", str(root), *rules, "--fix"])
    assert again.exit_code == 0, again.output
    assert {p: p.read_bytes() for p in root.rglob("*.py")} == snapshot
    fixed = root / edited
    compile(fixed.read_bytes(), str(fixed), "exec")


@pytest.mark.corpus
def test_declaration_on_a_real_kernel_library_is_widened_only_with_force(tmp_path: Path) -> None:
    """flashinfer's own `@supported_compute_capability([100, 103, 107])` on a requirement
    checker named as a gate function: refused without --force, one entry with it."""
    root = tmp_path / "tree"
    _copy_python(corpus_package("flashinfer-python==0.7.4") / "flashinfer", root / "flashinfer")
    rules = ["--rules", str(RULES / "flashinfer_cutlass_bf16.yaml")]
    runner = CliRunner()
    refused = runner.invoke(cli, ["check", str(root), *rules, "--diff"])
    assert refused.exit_code == 1 and not refused.stdout
    assert "says what a kernel is built for" in refused.stderr
    shown = runner.invoke(cli, ["check", str(root), *rules, "--diff", "--force"])
    assert _changed_lines(shown.stdout) == (
        ["-@supported_compute_capability([100, 103, 107])"],
        ["+@supported_compute_capability([100, 103, 107, 120])"],
    ), shown.stdout
    assert runner.invoke(cli, ["check", str(root), *rules, "--fix", "--force"]).exit_code == 0
    assert runner.invoke(cli, ["check", str(root), *rules]).exit_code == 0
    snapshot = {p: p.read_bytes() for p in root.rglob("*.py")}
    again = runner.invoke(cli, ["check", str(root), *rules, "--fix", "--force"])
    assert again.exit_code == 0, again.output
    assert {p: p.read_bytes() for p in root.rglob("*.py")} == snapshot
    fixed = root / "flashinfer" / "gemm" / "gemm_base.py"
    compile(fixed.read_bytes(), str(fixed), "exec")
