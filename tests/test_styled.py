"""The text report's two printers (reporting/styled.py): written plain (no rich) to a
stream that takes no styles, it is byte for byte what rich's console writes there."""

from __future__ import annotations

import io
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.reporting.plain import plain_console
from gatecheck.reporting.styled import PlainPrinter, RichPrinter, Styled, expand_tabs
from tests.test_plain_summary import RULE  # the same one-feature rule

LINES: list[tuple[Styled | str, str]] = [
    ("", ""),
    ("plain", ""),
    (Styled(("bold", "bold"), " and ", ("red", "red")), ""),
    (Styled("whole line dim", base="dim"), ""),
    (Styled("a\tb\tc"), ""),
    (Styled("\tleading tab"), ""),
    (Styled("12345678\texact stop"), ""),
    (Styled("two\nlines\twith a tab\n"), ""),
    (Styled(("  12 | ", "dim"), "\tx = 1\n", ("     | ", "dim"), ("\t^^^", "bold red")), ""),
    (Styled("wide \u4e2d\u6587\ttab"), ""),
    (Styled("combining a\u0301\ttab"), ""),
    (Styled("emoji \U0001f600\ttab"), ""),
    (Styled("zero width \u200b\ttab"), ""),
    (Styled("frame ends with a newline\n"), "end"),
    ("a summary line", "style"),
]


def _both(line: Styled | str, how: str) -> tuple[str, str]:
    rich_out, plain_out = io.StringIO(), io.StringIO()
    printers = (RichPrinter(plain_console(rich_out)), PlainPrinter(plain_out))
    for printer in printers:
        if how == "end":
            printer.print(line, end="")
        elif how == "style":
            printer.print(line, style="bold")
        else:
            printer.print(line)
    return rich_out.getvalue(), plain_out.getvalue()


@pytest.mark.parametrize(("line", "how"), LINES, ids=lambda v: repr(getattr(v, "plain", v)))
def test_plain_printer_writes_what_rich_writes(
    monkeypatch: pytest.MonkeyPatch, line: Styled | str, how: str
) -> None:
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    through_rich, plain = _both(line, how)
    assert plain == through_rich


ALPHABET = "ab \t\n\u4e2d\u0301\U0001f600\u200b|^"


def test_plain_printer_on_random_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random mixes of tabs, wide, combining and zero-width characters and newlines."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    pick = random.Random(20261203)
    for _ in range(400):
        pieces: list[str | tuple[str, str]] = []
        for _ in range(pick.randint(0, 4)):
            text = "".join(pick.choice(ALPHABET) for _ in range(pick.randint(0, 12)))
            pieces.append((text, "bold red") if pick.random() < 0.5 else text)
        line = Styled(*pieces)
        through_rich, plain = _both(line, "")
        assert plain == through_rich, repr(line.plain)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ""),
        ("no tab", "no tab"),
        ("\t", " " * 8),
        ("a\tb", "a" + " " * 7 + "b"),
        ("12345678\t|", "12345678" + " " * 8 + "|"),
        ("a\n\tb", "a\n" + " " * 8 + "b"),
        ("\u4e2d\tb", "\u4e2d" + " " * 6 + "b"),  # a wide character takes two cells
        ("a\u0301\tb", "a\u0301" + " " * 7 + "b"),  # a combining mark takes none
    ],
)
def test_expand_tabs(text: str, expected: str) -> None:
    assert expand_tabs(text) == expected


TREE = {
    "pkg/__init__.py": "",
    "pkg/comm.py": (
        "import torch\n\n\n"
        "def apply_fusion():\n"
        "\treturn torch.cuda.get_device_capability()[0] in (9, 10)  # \u4e2d\u6587\n"
    ),
    "pkg/broken.py": "enable_fusion = 1\ndef f(:\n",
}


def _tree(root: Path, *, wide: bool = True) -> Path:
    for rel, text in TREE.items():
        if not wide:  # a tab after a wide character is counted with rich.cells
            text = text.replace("  # \u4e2d\u6587", "")
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    rules = root / "rules.yaml"
    rules.write_text(RULE, encoding="utf-8")
    return rules


@pytest.mark.parametrize("output_format", ["text", "concise"])
def test_report_with_findings_plain_and_through_rich(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output_format: str
) -> None:
    """A finding (code frame with a tab, wide characters) and a diagnostic: the plain
    report is the coloured one without its escape sequences."""
    rules = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    args = ["check", "pkg", "--rules", str(rules), "--format", output_format, "--no-cache"]
    plain = CliRunner().invoke(cli, args)
    monkeypatch.setenv("FORCE_COLOR", "1")
    coloured = CliRunner().invoke(cli, args)
    assert plain.exit_code == coloured.exit_code == 1, plain.output
    assert "\x1b[" in coloured.stdout and "\x1b[" not in plain.stdout
    assert plain.stdout == re.sub("\x1b\\[[0-9;]*m", "", coloured.stdout)
    assert "GC001 [fusion]" in plain.stdout and "GC900" in plain.stdout
    if output_format == "text":
        frame = [line for line in plain.stdout.splitlines() if "get_device_capability" in line]
        assert frame and "\t" not in frame[0]  # expanded, as rich expands it


@pytest.mark.parametrize("findings", [True, False], ids=["findings", "clean"])
def test_text_report_to_a_pipe_imports_no_rich(tmp_path: Path, findings: bool) -> None:
    """In a fresh interpreter: a text report to a pipe loads no rich, with findings (a
    finding and a diagnostic) or without (the summary line alone)."""
    rules = _tree(tmp_path, wide=False)
    if not findings:
        (tmp_path / "pkg" / "broken.py").unlink()
        (tmp_path / "pkg" / "comm.py").write_text(
            TREE["pkg/comm.py"].replace("(9, 10)", "(9, 10, 12)").replace("  # \u4e2d\u6587", ""),
            encoding="utf-8",
        )
    probe = (
        "import sys\n"
        "from gatecheck.cli import cli\n"
        "try:\n"
        "    cli.main(args=sys.argv[1:], standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'rich'}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    done = subprocess.run(
        [sys.executable, "-c", probe, "check", "pkg", "--rules", str(rules), "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    if findings:
        assert "GC001 [fusion]" in done.stdout, done.stdout + done.stderr
    else:
        assert done.stdout.startswith("All checks passed!"), done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "[]", done.stdout + done.stderr
