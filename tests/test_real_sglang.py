"""The seed, on the real code: sglang 0.5.9 from PyPI (downloaded once, cached in .cache/)."""

from __future__ import annotations

import py_compile
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.config.model import RuleSet
from gatecheck.engine import analyse
from tests.conftest import corpus_package

pytestmark = pytest.mark.corpus


def _changed_lines(diff: str) -> list[str]:
    """The + and - lines of a unified diff, without its file headers."""
    return [
        line
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_sglang_059_has_exactly_the_two_seed_gates(ruleset: RuleSet) -> None:
    root = corpus_package("sglang==0.5.9")
    analysis = analyse([root], ruleset)
    found = sorted(
        (f.path.relative_to(root).as_posix(), f.start.line, f.feature, tuple(sorted(f.missing)))
        for f in analysis.findings
    )
    assert found == [
        ("sglang/srt/layers/communicator.py", 95, "flashinfer-allreduce-fusion", ("sm120",)),
        ("sglang/srt/server_args.py", 1691, "flashinfer-allreduce-fusion", ("sm120",)),
    ]
    server_args = next(f for f in analysis.findings if f.path.name == "server_args.py")
    assert any("'is_sm120_supported' is already imported" in note for note in server_args.notes)
    assert not analysis.diagnostics


def test_sglang_059_fix_is_the_seed_patch_and_idempotent(tmp_path: Path) -> None:
    source = corpus_package("sglang==0.5.9")
    root = tmp_path / "sglang-0.5.9"
    shutil.copytree(source / "sglang", root / "sglang")
    runner = CliRunner()
    diff = runner.invoke(cli, ["check", str(root), "--diff"])
    assert diff.exit_code == 1
    changed = _changed_lines(diff.output)
    assert changed == [
        "+    is_sm120_supported,",
        "+_is_sm120_supported = _is_cuda and is_sm120_supported()",
        "-        (_is_sm90_supported or _is_sm100_supported)",
        "+        (_is_sm90_supported or _is_sm100_supported or _is_sm120_supported)",
        "-            and (is_sm90_supported() or is_sm100_supported())",
        "+            and (is_sm90_supported() or is_sm100_supported() or is_sm120_supported())",
    ]
    assert runner.invoke(cli, ["check", str(root), "--fix"]).exit_code == 0
    for rel in ("sglang/srt/layers/communicator.py", "sglang/srt/server_args.py"):
        py_compile.compile(str(root / rel), doraise=True)
    assert runner.invoke(cli, ["check", str(root)]).exit_code == 0
    snapshot = {p: p.read_bytes() for p in (root / "sglang/srt").rglob("*.py")}
    assert runner.invoke(cli, ["check", str(root), "--fix"]).exit_code == 0
    assert {p: p.read_bytes() for p in (root / "sglang/srt").rglob("*.py")} == snapshot


def _with_seed_alias(source: Path, root: Path) -> None:
    """The seed's own communicator.py: the sm120 predicate imported and its module alias
    defined beside its siblings, yet left out of the gate (built from the wheel)."""
    shutil.copytree(source / "sglang", root / "sglang")
    path = root / "sglang/srt/layers/communicator.py"
    text = path.read_text(encoding="utf-8")
    imported = "    is_sm100_supported,\n)\n"
    alias = "_is_sm100_supported = _is_cuda and is_sm100_supported()\n"
    assert text.count(imported) == 1 and text.count(alias) == 1
    text = text.replace(imported, "    is_sm100_supported,\n    is_sm120_supported,\n)\n")
    text = text.replace(alias, alias + "_is_sm120_supported = _is_cuda and is_sm120_supported()\n")
    path.write_text(text, encoding="utf-8")


def test_sglang_059_seed_alias_is_noted_and_used_by_the_fix(tmp_path: Path) -> None:
    root = tmp_path / "sglang-0.5.9-alias"
    _with_seed_alias(corpus_package("sglang==0.5.9"), root)
    runner = CliRunner()
    text = runner.invoke(cli, ["check", str(root), "--no-cache"])
    assert text.exit_code == 1
    assert (
        "'_is_sm120_supported' is already defined in this module (line 75) and admits sm120, "
        "but the gate does not use it: add `_is_sm120_supported`"
    ) in text.output
    diff = runner.invoke(cli, ["check", str(root), "--diff", "--no-cache"])
    assert diff.exit_code == 1
    assert _changed_lines(diff.output) == [
        "-        (_is_sm90_supported or _is_sm100_supported)",
        "+        (_is_sm90_supported or _is_sm100_supported or _is_sm120_supported)",
        "-            and (is_sm90_supported() or is_sm100_supported())",
        "+            and (is_sm90_supported() or is_sm100_supported() or is_sm120_supported())",
    ]
    assert runner.invoke(cli, ["check", str(root), "--fix", "--no-cache"]).exit_code == 0
    assert runner.invoke(cli, ["check", str(root), "--no-cache"]).exit_code == 0
    snapshot = {p: p.read_bytes() for p in (root / "sglang/srt").rglob("*.py")}
    assert runner.invoke(cli, ["check", str(root), "--fix", "--no-cache"]).exit_code == 0
    assert {p: p.read_bytes() for p in (root / "sglang/srt").rglob("*.py")} == snapshot


def test_sglang_059_sarif_carries_code_flows_and_fixes(tmp_path: Path) -> None:
    import json

    # The schema as tests/test_sarif.py finds it (GATECHECK_SARIF_SCHEMA; fails under CI).
    from tests.test_sarif import load_validator

    validator = load_validator()
    root = corpus_package("sglang==0.5.9")
    result = CliRunner().invoke(cli, ["check", str(root), "--format", "sarif"])
    log = json.loads(result.output)
    validator.validate(log)
    results = log["runs"][0]["results"]
    assert len(results) == 2
    for item in results:
        assert item["codeFlows"][0]["threadFlows"][0]["locations"]
        replacements = item["fixes"][0]["artifactChanges"][0]["replacements"]
        assert any("is_sm120_supported" in r["insertedContent"]["text"] for r in replacements)


def test_sglang_0523_the_seed_story_again(tmp_path: Path) -> None:
    """sglang 0.5.23 (the newest release when this was written) restructured the code:
    the flag became `flashinfer_allreduce_fusion_backend`, every predicate is read as
    `get_platform().is_sm90` (a PlatformContext whose __getattr__ calls the probe), and
    the SM is asked from NVML first. The same two gates still leave sm120 out; the fix
    adds the sm120 fact beside them, and the fixed tree checks clean."""
    source = corpus_package("sglang==0.5.23")
    root = tmp_path / "sglang-0.5.23"
    shutil.copytree(source / "sglang" / "srt", root / "sglang" / "srt")
    runner = CliRunner()
    result = runner.invoke(cli, ["check", str(root), "--format", "concise", "--no-cache"])
    assert result.exit_code == 1, result.output
    found = sorted(
        line.split(" GC001")[0].replace(f"{root}/", "")
        for line in result.output.splitlines()
        if "GC001" in line
    )
    assert found == [
        "sglang/srt/arg_groups/overrides.py:991:14:",
        "sglang/srt/layers/layer_boundary/residual/add_norm.py:146:10:",
    ]
    diff = runner.invoke(cli, ["check", str(root), "--diff", "--no-cache"])
    changed = [line[0] + line[1:].strip() for line in _changed_lines(diff.output)]
    assert changed == [
        "-and (get_platform().is_sm90 or get_platform().is_sm100)",
        "+and (get_platform().is_sm90 or get_platform().is_sm100 or get_platform().is_sm120)",
        "+_is_sm120_supported = _is_cuda and get_platform().is_sm120",
        "-(_is_sm90_supported or _is_sm100_supported)",
        "+(_is_sm90_supported or _is_sm100_supported or _is_sm120_supported)",
    ]
    assert runner.invoke(cli, ["check", str(root), "--fix", "--no-cache"]).exit_code == 0
    assert runner.invoke(cli, ["check", str(root), "--no-cache"]).exit_code == 0
