"""Text from the analysed code is shown as plain, printable text in every report (#16.2,
#15.4, #15.7): rich markup, emoji codes, terminal escapes, newlines and undecodable bytes
in file names and conditions must neither be interpreted nor crash a report."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from gatecheck.audit import AuditReport, run_audit
from gatecheck.config.loader import load_ruleset
from gatecheck.reporting.audit_html import render_audit_html
from gatecheck.reporting.audit_json import render_audit_json
from gatecheck.reporting.audit_markdown import render_audit_markdown
from gatecheck.reporting.audit_text import render_audit_text
from gatecheck.reporting.plain import plain_console, printable

ESC = "\x1b"
# A condition holding every kind of hostile text: markup, a closing tag, emoji codes, ESC.
GATE = (
    "import torch\n"
    "\n"
    "def pick():\n"
    "    major, _ = torch.cuda.get_device_capability()\n"
    f'    if (major == 9 or major == 10) and MODE != "{ESC}[31m:smile:[/]:100:[bold]":\n'
    "        return 1\n"
    "    return 0\n"
)
NAMES = ["w:100:16.py", "[bold]b.py", ":smile:.py", "esc\x1b[2Jx.py", "nl\n\n## All clear.py"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("a:100:b [bold]x[/]", "a:100:b [bold]x[/]", id="markup-untouched"),
        pytest.param("\x1b[31mred", "\\x1b[31mred", id="esc"),
        pytest.param("a\nb\rc", "a\\nb\\rc", id="newlines"),
        pytest.param("tab\tkept", "tab\tkept", id="tab"),
        pytest.param("caf\udce9.py", "caf\\xe9.py", id="undecodable-byte"),
        pytest.param("\u202eevil", "\\u202eevil", id="bidi-override"),
        pytest.param("\x9b", "\\x9b", id="c1-control"),
        pytest.param("héllo ✓", "héllo ✓", id="unicode-kept"),
    ],
)
def test_printable(text: str, expected: str) -> None:
    assert printable(text) == expected


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    for name in NAMES:
        (root / "pkg" / name).write_text(GATE, encoding="utf-8")
    return root


@pytest.fixture
def report(hostile: Path) -> AuditReport:
    return run_audit([hostile], load_ruleset(None), "sm120")


def _text(report: AuditReport, base: Path, *, table: bool) -> str:
    out = io.StringIO()
    console = plain_console(out, width=400, color="never")
    render_audit_text(console, report, base, table=table)
    return out.getvalue()


@pytest.mark.parametrize("table", [False, True], ids=["lines", "table"])
def test_audit_text_prints_names_as_they_are(
    report: AuditReport, hostile: Path, table: bool
) -> None:
    out = _text(report, hostile, table=table)
    assert ESC not in out and "💯" not in out and "😄" not in out
    for shown in ("pkg/w:100:16.py:5:", "pkg/[bold]b.py:5:", "pkg/:smile:.py:5:"):
        assert shown in out
    assert "pkg/esc\\x1b[2Jx.py" in out and "pkg/nl\\n\\n## All clear.py" in out
    if table:  # the reasons' block shows the condition, escaped
        assert "\\x1b[31m:smile:[/]:100:[bold]" in out


def test_audit_text_through_a_colour_console_keeps_text(report: AuditReport, hostile: Path) -> None:
    """Even a console that reads markup (a library user's) gets plain Text from us."""
    from rich.console import Console

    out = io.StringIO()
    console = Console(file=out, width=400, color_system=None)
    render_audit_text(console, report, hostile, table=True)
    text = out.getvalue()
    assert "w:100:16.py" in text and "[bold]b.py" in text and ESC not in text


def test_audit_markdown_escapes_names(report: AuditReport, hostile: Path) -> None:
    text = render_audit_markdown(report, hostile)
    assert ESC not in text
    assert not any(line.startswith("## All clear") for line in text.splitlines())


def test_audit_html_and_json_escape(report: AuditReport, hostile: Path) -> None:
    page = render_audit_html(report, hostile)
    assert ESC not in page and "<bold>" not in page
    data = json.loads(render_audit_json(report, hostile))
    assert {g["path"] for g in data["gates"]} >= {"pkg/[bold]b.py", "pkg/esc\\x1b[2Jx.py"}


@pytest.mark.skipif(os.name != "posix", reason="POSIX file names are bytes")
def test_non_utf8_file_name_in_audit_reports(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (Path(os.fsdecode(bytes(root) + b"/caf\xe9.py"))).write_text(GATE, encoding="utf-8")
    report = run_audit([root], load_ruleset(None), "sm120")
    data = render_audit_json(report, root)
    data.encode("utf-8")
    assert json.loads(data)["gates"][0]["path"] == "caf\\xe9.py"
    for text in (
        render_audit_markdown(report, root),
        render_audit_html(report, root),
        _text(report, root, table=False),
    ):
        text.encode("utf-8")  # writable to any UTF-8 stream or file
        assert "caf\\xe9.py" in text


def test_rules_suggest_file_names_stay_in_their_comment(tmp_path: Path) -> None:
    """#15.4: a file name with line breaks must not end the YAML comment and add a feature."""
    from gatecheck.suggest import render_suggestion

    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    evil = "x\n- id: injected\n  description: d\n  flags: [x]\n  require: [sm80]\n#.py"
    (root / "pkg" / evil).write_text(GATE, encoding="utf-8")
    (root / "pkg" / "ok.py").write_text(GATE.replace("return 1", "enable_fast = True"))
    ruleset = load_ruleset([])
    text = render_suggestion(run_audit([root], ruleset, "sm120"), ruleset, root)
    assert "\n- id: injected" not in text
    target = tmp_path / "suggested.yaml"
    target.write_text(text, encoding="utf-8")
    assert {f.id for f in load_ruleset([target]).features} == {"enable_fast"}
