"""audit's views of one report: terminal matrix, Markdown, JSON and the CLI around them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from gatecheck.audit import AuditReport, run_audit
from gatecheck.cli import cli
from gatecheck.config.loader import load_ruleset
from gatecheck.reporting.audit_html import render_audit_html
from gatecheck.reporting.audit_json import render_audit_json
from gatecheck.reporting.audit_markdown import render_audit_markdown
from gatecheck.reporting.audit_text import render_audit_text
from tests.conftest import FIXTURES

SEED = FIXTURES / "seed_alias"


@pytest.fixture(scope="module")
def report() -> AuditReport:
    return run_audit([SEED], load_ruleset(None), "sm120")


def test_json_has_every_gate_with_its_place_and_verdict(report: AuditReport) -> None:
    data = json.loads(render_audit_json(report, SEED))
    assert data["generation"] == "sm120"
    assert data["counts"] == {
        "likely-gap": 2,
        "probably-deliberate": 2,
        "decided": 0,
        "admits": 2,
        "vendor": 3,
        "constant": 0,
    }
    first = data["gates"][0]
    assert {k: first[k] for k in ("path", "line", "column", "class", "feature")} == {
        "path": "sglang/srt/layers/communicator.py",
        "line": 21,
        "column": 10,
        "class": "likely-gap",
        "feature": "flashinfer-allreduce-fusion",
    }
    assert first["admitted"] == ["sm90", "sm100", "sm103"]
    assert first["condition"].startswith("(_is_sm90_supported or _is_sm100_supported)")
    assert first["assumed"] == []
    assert [s["line"] for s in first["call_sites"]] == [30]
    # utils.py's `if not is_cuda():`, `is_flashinfer_available`'s `return is_cuda()` (a
    # predicate's answer returned by a call: conditions._predicate_answer), and that answer
    # kept as communicator.py's `_is_flashinfer_available` (conditions.kept_answer): rows
    # of their own class, after every other.
    assert data["vendor_gates"] == 3 and data["call_site_hops"] == 1
    # The predicates' own bindings (partial(..., majors=[9]) ...) are rows too.
    assert [g["class"] for g in data["gates"]] == (
        ["likely-gap"] * 2 + ["probably-deliberate"] * 2 + ["admits"] * 2 + ["vendor"] * 3
    )
    assert data["gates"][-1]["reasons"] == ["tells vendors apart: admits every nvidia generation"]


def test_markdown_matrix_and_gap_list(report: AuditReport) -> None:
    text = render_audit_markdown(report, SEED)
    assert (
        "| feature | gate | class | polarity | sm80 | sm86 | sm87 | sm89 | sm90 | sm100 |" in text
    )
    assert "**sm120**" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and "likely gap" in line]
    assert len(rows) == 2
    assert rows[0].count("✓") == 3  # sm90, sm100, sm103
    assert "### Likely gaps" in text
    assert "`sglang/srt/server_args.py:27`" in text


def test_text_matrix(report: AuditReport) -> None:
    console = Console(width=200, record=True, color_system=None)
    render_audit_text(console, report, SEED)
    out = console.export_text()
    assert "flashinfer-allreduce-fusion" in out
    assert "sglang/srt/layers/communicator.py:21:10" in out
    assert (
        "9 gates for sm120: 2 likely gap, 2 probably deliberate, 0 decided, 2 admits, 3 vendor, "
        "0 constant;" in out
    )


def test_html_is_self_contained(report: AuditReport) -> None:
    page = render_audit_html(report, SEED)
    assert page.count('<tr class="') == 9
    assert page.count('<tr class="vendor"') == 3
    assert "<script>" in page and "<style>" in page
    for remote in ("http://", "https://", " src=", "<link"):
        assert remote not in page


def test_cli_audit_formats(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["audit", str(SEED), "--generation", "sm120"])
    assert result.exit_code == 0, result.output
    assert "likely gap" in result.output
    for fmt, marker in [
        ("markdown", "## gatecheck audit"),
        ("json", '"gates"'),
        ("html", "<table"),
    ]:
        target = tmp_path / f"audit.{fmt}"
        args = [
            "audit",
            str(SEED),
            "--generation",
            "sm120",
            "--format",
            fmt,
            "--output",
            str(target),
        ]
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
        assert marker in target.read_text(encoding="utf-8")


def test_cli_audit_columns_and_errors() -> None:
    runner = CliRunner()
    result = runner.invoke(
        cli,
        [
            "audit",
            str(SEED),
            "--generation",
            "sm120",
            "--columns",
            "sm90,sm120",
            "--format",
            "json",
        ],
    )
    assert json.loads(result.output)["columns"] == ["sm90", "sm120"]
    bad = runner.invoke(cli, ["audit", str(SEED), "--generation", "sm999"])
    assert bad.exit_code == 2
    assert "unknown generation 'sm999'" in bad.output


@pytest.mark.parametrize(("width", "table"), [(200, True), (60, False)])
def test_matrix_only_when_the_terminal_is_wide_enough(
    report: AuditReport, width: int, table: bool
) -> None:
    """#16.1: a table folded into 60 columns breaks every path; lines never do."""
    import io

    from gatecheck.reporting.plain import plain_console

    out = io.StringIO()
    render_audit_text(plain_console(out, width=width, color="never"), report, SEED, table=True)
    text = out.getvalue()
    assert ("feature / gate" in text) is table
    assert "sglang/srt/layers/communicator.py:21:10" in text  # whole, either way


def test_json_spans_of_conditions_over_several_lines(make_tree: Callable[..., Path]) -> None:
    """A row's `condition_line`..`condition_end_line` is its whole condition (`line`..
    `end_line` the part that decides); a call site's `line`..`end_line` its whole
    condition or call."""
    tree = make_tree(
        {
            "pkg/__init__.py": "",
            "pkg/mod.py": (
                "import os\nimport torch\n\n\n"
                "def is_ok():\n    return torch.cuda.get_device_capability()[0] == 9\n\n\n"
                "def pick():\n"
                "    if (os.environ.get('X')\n"
                "            and torch.cuda.get_device_capability()[0] >= 10):\n"
                "        return 1\n\n\n"
                "def use():\n"
                "    if (os.environ.get('A')\n"
                "            and is_ok()\n"
                "            and not os.environ.get('B')):\n"
                "        return 2\n"
            ),
        }
    )
    data = json.loads(render_audit_json(run_audit([tree], load_ruleset([]), "sm120"), tree))
    rows = {g["condition_line"]: g for g in data["gates"]}
    assert (rows[10]["line"], rows[10]["end_line"], rows[10]["condition_end_line"]) == (11, 11, 11)
    assert rows[10]["condition_line"] == 10
    (site,) = rows[6]["call_sites"]
    assert (site["line"], site["end_line"]) == (16, 18)
