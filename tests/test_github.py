"""GitHub Actions: workflow-command annotations (escaping, 10 per level), the step summary,
and the composite action."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.findings import (
    MISSING_GENERATION,
    Finding,
    GateKind,
    Level,
    Polarity,
    Position,
    RuleInfo,
)
from gatecheck.reporting.github import (
    SUMMARY_LIMIT,
    annotation,
    escape_data,
    escape_property,
    render_github,
)
from tests.conftest import FIXTURES, REPO, corpus_package


@pytest.mark.parametrize(
    ("text", "data", "prop"),
    [
        pytest.param("plain", "plain", "plain", id="plain"),
        pytest.param("100%", "100%25", "100%25", id="percent"),
        pytest.param("a\r\nb", "a%0D%0Ab", "a%0D%0Ab", id="crlf"),
        pytest.param("a: b, c", "a: b, c", "a%3A b%2C c", id="colon-comma"),
        pytest.param("%0A", "%250A", "%250A", id="percent-first"),
    ],
)
def test_escaping(text: str, data: str, prop: str) -> None:
    assert escape_data(text) == data
    assert escape_property(text) == prop


def finding(
    path: Path, line: int = 1, *, level: Level = Level.ERROR, missing: int = 1, message: str = "m"
) -> Finding:
    rule = (
        dataclasses.replace(MISSING_GENERATION, level=level)
        if level != "error"
        else MISSING_GENERATION
    )
    return Finding(
        rule=rule,
        path=path,
        start=Position(line, 0),
        end=Position(line, 1),
        feature="fast-thing",
        message=message,
        required=frozenset(),
        admitted=frozenset(),
        missing=frozenset(f"sm{i}" for i in range(missing)),
        gate_kind=GateKind.RUNTIME,
        polarity=Polarity.ENABLES,
        qualname="f",
        condition="c",
        culprit="c",
    )


def test_annotation_escapes_path_title_and_message(tmp_path: Path) -> None:
    path = tmp_path / "we,ird:dir" / "m.py"
    path.parent.mkdir()
    path.write_text("x = 'é' + y\n", encoding="utf-8")
    item = dataclasses.replace(
        finding(path, message="excludes sm120: 100% off\nsecond line"),
        start=Position(1, 10),
        end=Position(1, 11),
        feature="a,b",
    )
    assert annotation(item, tmp_path) == (
        "::error file=we%2Cird%3Adir/m.py,line=1,endLine=1,col=10,endColumn=11,"
        "title=GC001 [a%2Cb]::excludes sm120: 100%25 off%0Asecond line"
    )


def test_ten_per_level_and_one_notice(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    findings = [finding(path, i, missing=1 + (i == 17)) for i in range(1, 24)]
    findings += [finding(path, 100 + i, level=Level.WARNING) for i in range(3)]
    findings += [finding(path, 200 + i, level=Level.NOTE) for i in range(12)]
    lines = render_github(findings, tmp_path).splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == 10
    assert any(",line=17," in line for line in errors), "the finding missing most comes first"
    assert len([line for line in lines if line.startswith("::warning ")]) == 3
    notices = [line for line in lines if line.startswith("::notice ")]
    assert len(notices) == 10  # 9 findings + the one that says how many more exist
    assert notices[-1].startswith("::notice title=gatecheck::16 more gatecheck annotations")
    assert "13 errors, 3 notices" in notices[-1]


def test_no_overflow_no_notice(tmp_path: Path) -> None:
    findings = [finding(tmp_path / "m.py", i) for i in range(1, 11)]
    lines = render_github(findings, tmp_path).splitlines()
    assert len(lines) == 10 and all(line.startswith("::error ") for line in lines)


def test_seed_annotations_and_step_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step output\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = CliRunner().invoke(cli, ["check", str(FIXTURES / "seed_alias"), "--format", "github"])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith(
        "::error file=fixtures/seed_alias/sglang/srt/layers/communicator.py,line=21,endLine=21,"
        "col=10,endColumn=51,title=GC001 [flashinfer-allreduce-fusion]::runtime gate of"
    )
    assert lines[1].startswith(
        "::error file=fixtures/seed_alias/sglang/srt/server_args.py,line=27,"
    )
    assert len(lines) == 2
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step output\n## gatecheck")
    assert "2 findings" in text and "communicator.py" in text


def test_step_summary_is_truncated_under_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("x" * (SUMMARY_LIMIT - 1500), encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = CliRunner().invoke(cli, ["check", str(FIXTURES / "seed_alias"), "--format", "github"])
    assert result.exit_code == 1
    size = summary.stat().st_size
    assert size < SUMMARY_LIMIT
    assert "Report truncated" in summary.read_text(encoding="utf-8")


def test_no_summary_without_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    result = CliRunner().invoke(cli, ["check", str(FIXTURES / "seed_alias"), "--format", "github"])
    assert result.exit_code == 1 and "## gatecheck" not in result.output


def test_suppression_findings_are_warnings(tmp_path: Path) -> None:
    rule = RuleInfo("GC102", "unused-suppression", "s", "f", "warning")
    item = dataclasses.replace(finding(tmp_path / "m.py"), rule=rule, feature="")
    assert annotation(item, tmp_path).startswith(
        "::warning file=m.py,line=1,endLine=1,col=1,endColumn=2,title=GC102::"
    )


def test_action_is_a_composite_running_github_format() -> None:
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    assert {"paths", "args", "sarif-file", "fail-on-findings"} <= set(action["inputs"])
    scripts = "\n".join(step.get("run", "") for step in action["runs"]["steps"])
    assert "--format github" in scripts and "--sarif-output" in scripts
    assert "${{" not in scripts, "inputs reach scripts through env, never pasted in"


@pytest.mark.corpus
def test_sglang_059_annotations(monkeypatch: pytest.MonkeyPatch) -> None:
    root = corpus_package("sglang==0.5.9")
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    result = CliRunner().invoke(cli, ["check", str(root), "--format", "github"])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert len(lines) == 2
    prefix = root.relative_to(REPO).as_posix()
    assert lines[0].startswith(
        f"::error file={prefix}/sglang/srt/layers/communicator.py,line=95,endLine=95,col=10,"
    )
    assert lines[1].startswith(
        f"::error file={prefix}/sglang/srt/server_args.py,line=1691,endLine=1691,col=18,"
    )
    for line in lines:
        properties, message = line[len("::error ") :].split("::", 1)
        assert "title=GC001 [flashinfer-allreduce-fusion]" in properties
        assert "\n" not in message
        assert message.startswith(("runtime gate", "auto-enable gate"))
    assert (
        "%0A'is_sm120_supported' is already imported" in lines[1]
    )  # a note, on an escaped new line


def test_files_not_analysed_are_warnings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rule = "features:\n  - id: fast-thing\n    description: d\n    flags: [enable_fast_thing]\n    require: [sm90]\n"
    (tmp_path / "rules.yaml").write_text(rule, encoding="utf-8")
    (tmp_path / "bad.py").write_text("enable_fast_thing = (\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = CliRunner().invoke(cli, ["check", ".", "--rules", "rules.yaml", "--format", "github"])
    assert result.exit_code == 0
    assert result.output.startswith("::warning file=bad.py,line=")
    assert ",title=GC900 file not analysed::syntax error" in result.output
    assert "**Files not analysed**\n\n- `bad.py:" in summary.read_text(encoding="utf-8")
