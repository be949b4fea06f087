"""Kernel-aware gates: what a kernel library is built for, read from its source; gates
that admit fewer (blocked by the library) or more (GC002) than the kernels."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.config.loader import load_ruleset
from gatecheck.kernels.locate import locate
from gatecheck.kernels.support import KernelReader
from tests.conftest import FIXTURES, corpus_package

KERNELS = FIXTURES / "kernels"
OLD, NEW = KERNELS / "flashinfer-0.1", KERNELS / "flashinfer-0.2"

RULE = """\
features:
  - id: flashinfer-allreduce-fusion
    description: fused allreduce + RMSNorm
    flags: [enable_flashinfer_allreduce_fusion]
    gate_functions: [sglang.srt.layers.communicator.apply_flashinfer_allreduce_fusion]
    require: [sm90, sm100, sm120]
    kernels: [flashinfer.comm.allreduce_fusion]
"""


@pytest.mark.parametrize(
    ("library", "kernel", "expected", "built_for"),
    [
        pytest.param(
            OLD,
            "flashinfer.jit.comm.gen_fused_comm_module",
            {"sm90", "sm100", "sm103"},
            "majors 9, 10",
            id="build-flags-old",
        ),
        pytest.param(
            NEW,
            "flashinfer.jit.comm.gen_fused_comm_module",
            {"sm90", "sm100", "sm103", "sm120", "sm121"},
            "majors 9, 10, 12",
            id="build-flags-new",
        ),
        pytest.param(
            OLD,
            "flashinfer.comm.allreduce_fusion",
            {"sm90", "sm100", "sm103"},
            "majors 9, 10",
            id="reached-through-loader",
        ),
        pytest.param(
            OLD,
            "flashinfer.gemm.grouped_gemm",
            {"sm100", "sm103"},
            "major 10",
            id="decorator-and-raising-loader",
        ),
        pytest.param(
            OLD, "flashinfer.jit.comm.gen_plain_comm_module", None, None, id="cannot-tell"
        ),
    ],
)
def test_kernel_support(
    library: Path, kernel: str, expected: set[str] | None, built_for: str | None
) -> None:
    source = locate("flashinfer", [library])
    assert source is not None and source.version == library.name.split("-")[1]
    support = KernelReader(source, load_ruleset(None).registry).support(kernel)
    if expected is None:
        assert support.generations is None and "cannot tell" in support.built_for
    else:
        assert support.generations == expected
        assert support.built_for == built_for
        assert support.evidence


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    shutil.copytree(FIXTURES / "seed_alias", root)
    (tmp_path / "rules.yaml").write_text(RULE)
    return root


def _check(tmp_path: Path, root: Path, library: Path, *extra: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(
        cli,
        [
            "check",
            str(root),
            "--rules",
            str(tmp_path / "rules.yaml"),
            "--kernel-source",
            str(library),
            *extra,
        ],
    )


def test_blocked_by_old_kernels_and_fix_refused(tmp_path: Path) -> None:
    root = _project(tmp_path)
    before = {p: p.read_bytes() for p in root.rglob("*.py")}
    result = _check(tmp_path, root, OLD, "--format", "json")
    findings = json.loads(result.output)["findings"]
    assert len(findings) == 2
    for finding in findings:
        assert (
            "blocked by the kernel library: allreduce_fusion in flashinfer 0.1 is built for majors 9, 10"
            in finding["message"]
        )
        assert "needs a version of flashinfer that builds for major 12" in finding["message"]
    fix = _check(tmp_path, root, OLD, "--fix")
    assert fix.exit_code == 1
    assert "use --force to widen anyway" in fix.output
    assert {p: p.read_bytes() for p in root.rglob("*.py")} == before


def test_force_widens_anyway(tmp_path: Path) -> None:
    root = _project(tmp_path)
    assert _check(tmp_path, root, OLD, "--fix", "--force").exit_code == 0
    text = (root / "sglang/srt/layers/communicator.py").read_text()
    assert "(_is_sm90_supported or _is_sm100_supported or _is_sm120_supported)" in text
    after = json.loads(_check(tmp_path, root, OLD, "--format", "json").output)["findings"]
    assert {f["rule"] for f in after} == {"GC002"}
    assert all(
        "admits sm120, sm121 but allreduce_fusion in flashinfer 0.1 is built for majors 9, 10"
        in f["message"]
        for f in after
    )


def test_new_kernels_make_it_a_plain_fixable_gap(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = _check(tmp_path, root, NEW, "--format", "json")
    findings = json.loads(result.output)["findings"]
    assert len(findings) == 2 and all("blocked" not in f["message"] for f in findings)
    assert _check(tmp_path, root, NEW, "--fix").exit_code == 0
    assert _check(tmp_path, root, NEW).exit_code == 0


def test_explain_shows_the_kernel_hop(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = CliRunner().invoke(
        cli,
        [
            "explain",
            "flashinfer-allreduce-fusion",
            str(root),
            "--rules",
            str(tmp_path / "rules.yaml"),
            "--kernel-source",
            str(OLD),
            "--generation",
            "sm120",
            "--format",
            "json",
        ],
    )
    data = json.loads(result.output)
    assert data["kernels"][0]["generations"] == ["sm90", "sm100", "sm103"]
    assert data["kernels"][0]["version"] == "0.1"
    assert not data["verdicts"]["sm120"]["kernels_built"]
    assert "its kernels are not built for it" in data["verdicts"]["sm120"]["text"]


def test_missing_library_says_it_cannot_tell(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = CliRunner().invoke(
        cli,
        [
            "explain",
            "flashinfer-allreduce-fusion",
            str(root),
            "--rules",
            str(tmp_path / "rules.yaml"),
            "--format",
            "json",
        ],
    )
    kernel = json.loads(result.output)["kernels"][0]
    assert kernel["generations"] is None and "not found" in kernel["built_for"]


@pytest.mark.corpus
def test_sglang_with_flashinfer_063_is_blocked_and_074_is_fixable(tmp_path: Path) -> None:
    sglang = corpus_package("sglang==0.5.9")
    old = corpus_package("flashinfer-python==0.6.3")
    new = corpus_package("flashinfer-python==0.7.4")
    root = tmp_path / "sglang"
    shutil.copytree(sglang / "sglang", root / "sglang")
    runner = CliRunner()
    blocked = runner.invoke(
        cli, ["check", str(root), "--kernel-source", str(old), "--format", "json"]
    )
    findings = json.loads(blocked.output)["findings"]
    assert sorted((Path(f["path"]).name, f["start"]["line"]) for f in findings) == [
        ("communicator.py", 95),
        ("server_args.py", 1691),
    ]
    assert all(
        "needs a version of flashinfer that builds for major 12" in f["message"] for f in findings
    )
    assert all(
        "gen_trtllm_comm_module in flashinfer 0.6.3 is built for majors 9, 10" in f["message"]
        for f in findings
    )
    refused = runner.invoke(cli, ["check", str(root), "--kernel-source", str(old), "--fix"])
    assert refused.exit_code == 1 and "use --force" in refused.output
    fixed = runner.invoke(cli, ["check", str(root), "--kernel-source", str(new), "--fix"])
    assert fixed.exit_code == 0, fixed.output
    assert runner.invoke(cli, ["check", str(root), "--kernel-source", str(new)]).exit_code == 0


def test_sarif_and_audit_carry_kernel_support(tmp_path: Path) -> None:
    root = _project(tmp_path)
    sarif = json.loads(_check(tmp_path, root, OLD, "--format", "sarif").output)
    assert all("blockedByKernel" in r["properties"] for r in sarif["runs"][0]["results"])
    result = CliRunner().invoke(
        cli,
        [
            "audit",
            str(root),
            "--rules",
            str(tmp_path / "rules.yaml"),
            "--generation",
            "sm120",
            "--kernel-source",
            str(OLD),
            "--format",
            "json",
        ],
    )
    gates = [
        g
        for g in json.loads(result.output)["gates"]
        if g["feature"] == "flashinfer-allreduce-fusion"
    ]
    assert gates and all(g["kernels"]["built_for_generation"] is False for g in gates)
    assert all(any("kernels are not built for sm120" in r for r in g["reasons"]) for g in gates)


APP = FIXTURES / "kernel_app"


def test_automatic_reach_from_guarded_code() -> None:
    runner = CliRunner()
    rules = str(APP / "rules.yaml")
    old = json.loads(
        runner.invoke(
            cli,
            ["check", str(APP), "--rules", rules, "--kernel-source", str(OLD), "--format", "json"],
        ).output
    )
    assert len(old["findings"]) == 2
    assert all(
        f["blocked_by_kernel"] and "allreduce_fusion in flashinfer 0.1" in f["blocked_by_kernel"]
        for f in old["findings"]
    )
    new = json.loads(
        runner.invoke(
            cli,
            ["check", str(APP), "--rules", rules, "--kernel-source", str(NEW), "--format", "json"],
        ).output
    )
    assert len(new["findings"]) == 2 and not any(f["blocked_by_kernel"] for f in new["findings"])
    explained = json.loads(
        runner.invoke(
            cli,
            [
                "explain",
                "fused-allreduce",
                str(APP),
                "--rules",
                rules,
                "--kernel-source",
                str(OLD),
                "--format",
                "json",
            ],
        ).output
    )
    (kernel,) = explained["kernels"]
    assert kernel["kernel"] == "flashinfer.comm.allreduce_fusion"
    assert kernel["evidence"][0] == (
        "reached from app.norm.forward_fused -> app.fusion.fused_allreduce "
        "(`forward_fused` bound by its unique name)"
    )


@pytest.mark.corpus
def test_sglang_reach_without_naming_the_kernel(tmp_path: Path) -> None:
    sglang = corpus_package("sglang==0.5.9")
    old = corpus_package("flashinfer-python==0.6.3")
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "features:\n  - id: fusion\n    description: d\n"
        "    flags: [enable_flashinfer_allreduce_fusion]\n"
        "    gate_functions: [sglang.srt.layers.communicator.apply_flashinfer_allreduce_fusion]\n"
        "    require: [sm90, sm100, sm120]\n"
    )
    result = CliRunner().invoke(
        cli,
        [
            "check",
            str(sglang),
            "--rules",
            str(rules),
            "--kernel-source",
            str(old),
            "--format",
            "json",
        ],
    )
    findings = json.loads(result.output)["findings"]
    assert len(findings) == 2
    assert all(
        "trtllm_allreduce_fusion in flashinfer 0.6.3 is built for majors 9, 10"
        in f["blocked_by_kernel"]
        for f in findings
    )
