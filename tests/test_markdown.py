"""Markdown report: table, per-finding details (activation path, notes, suggested diff),
links on GitHub, truncation under a size limit."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.findings import (
    MISSING_GENERATION,
    Edit,
    Finding,
    GateKind,
    Hop,
    HopKind,
    Polarity,
    Position,
)
from gatecheck.reporting.markdown import cell, code, edit_diff, render_markdown
from tests.conftest import FIXTURES, REPO


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("x", "`x`", id="plain"),
        pytest.param("a `b` c", "``a `b` c``", id="inner-backticks"),
        pytest.param("`edge", "`` `edge ``", id="edge-backtick"),
    ],
)
def test_code_span(text: str, expected: str) -> None:
    assert code(text) == expected


def test_cell_escapes_pipes_and_newlines() -> None:
    assert cell("a | b\nc") == "a \\| b<br>c"


SOURCE = "def f():\n    return is_sm90_supported()\n"


def sample(tmp_path: Path, *, edits: bool = False, line: int = 2) -> Finding:
    path = tmp_path / "pkg" / "m.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(SOURCE, encoding="utf-8")
    end = SOURCE.index("()\n") + 2
    return Finding(
        rule=MISSING_GENERATION,
        path=path,
        start=Position(line, 11),
        end=Position(line, 30),
        feature="fast-thing",
        message="gate | excludes sm120",
        required=frozenset({"sm90", "sm120"}),
        admitted=frozenset({"sm90"}),
        missing=frozenset({"sm120"}),
        gate_kind=GateKind.RUNTIME,
        polarity=Polarity.ENABLES,
        qualname="pkg.m.f",
        condition="is_sm90_supported()",
        culprit="is_sm90_supported()",
        notes=("'is_sm120_supported' is importable",),
        hops=(
            Hop(
                path, 2, "pkg.m.f", HopKind.RUNTIME, "is_sm90_supported()", frozenset({"sm90"}), 11
            ),
        ),
        edits=(Edit(path, end, end, " or is_sm120_supported()"),) if edits else (),
        fix_note="add is_sm120_supported()" if edits else None,
    )


def test_report_has_table_and_details(tmp_path: Path) -> None:
    text = render_markdown([sample(tmp_path)], root=tmp_path, summary="1 finding")
    assert text.startswith("## gatecheck\n\n1 finding\n\n| | Rule |")
    assert (
        "| ❌ | GC001 | `fast-thing` | `pkg/m.py:2:12` | sm120 | gate \\| excludes sm120 |" in text
    )
    assert (
        "**Activation path**\n\n1. `pkg/m.py:2` runtime in `pkg.m.f`: `is_sm90_supported()` admits sm90\n"
        in text
    )
    assert "- 'is_sm120_supported' is importable" in text
    assert "```diff" not in text


def test_suggested_fix_is_a_diff(tmp_path: Path) -> None:
    finding = sample(tmp_path, edits=True)
    text = render_markdown([finding], root=tmp_path)
    assert "**Suggested fix**: add is_sm120_supported()" in text
    assert (
        "-    return is_sm90_supported()\n+    return is_sm90_supported() or is_sm120_supported()\n"
        in text
    )
    assert "--- a/pkg/m.py\n+++ b/pkg/m.py\n" in text


def test_overlapping_edits_are_not_previewed(tmp_path: Path) -> None:
    path = sample(tmp_path).path
    assert edit_diff([Edit(path, 0, 5, "x"), Edit(path, 3, 8, "y")], tmp_path) == ""


def test_links_on_github(tmp_path: Path) -> None:
    base = "https://github.com/o/r/blob/abc"
    text = render_markdown([sample(tmp_path)], root=tmp_path, link_base=base)
    assert f"[`pkg/m.py:2:12`]({base}/pkg/m.py#L2)" in text


def test_truncation_keeps_under_the_limit(tmp_path: Path) -> None:
    findings = [dataclasses.replace(sample(tmp_path), start=Position(2, i)) for i in range(40)]
    full = render_markdown(findings, root=tmp_path)
    limit = len(full.encode()) // 3
    text = render_markdown(findings, root=tmp_path, max_bytes=limit)
    assert len(text.encode()) <= limit
    shown = text.count("\n### ")
    assert 0 < shown < 40
    assert f"{40 - shown} more findings not shown" in text


def test_no_findings() -> None:
    assert render_markdown([], root=Path.cwd(), summary="0 findings").endswith(
        "0 findings\n\nNo findings.\n"
    )


def test_cli_markdown_format(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    for key in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA"):
        monkeypatch.delenv(key, raising=False)
    result = CliRunner().invoke(
        cli, ["check", str(FIXTURES / "seed_alias"), "--format", "markdown"]
    )
    assert result.exit_code == 1
    assert "2 findings in 2 gates" in result.output
    assert result.output.count("\n### ") == 2
    assert "`fixtures/seed_alias/sglang/srt/server_args.py:27:18`" in result.output
