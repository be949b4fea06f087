"""A text report is written without rich (cli/check.py, reporting/styled.py) only where
rich itself would write no style (reporting/plain.takes_styles), and then byte for byte
what rich's console writes: here a clean tree's (the summary line alone); reports with
findings in tests/test_styled.py."""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from gatecheck.cli import cli
from gatecheck.reporting.plain import plain_console, takes_styles


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Closed(io.StringIO):
    def isatty(self) -> bool:
        raise ValueError("I/O operation on closed file")


ENVIRONS: list[Mapping[str, str]] = [
    {},
    {"FORCE_COLOR": "1"},
    {"FORCE_COLOR": ""},
    {"TTY_COMPATIBLE": "0"},
    {"TTY_COMPATIBLE": "1"},
    {"TTY_COMPATIBLE": "0", "FORCE_COLOR": "1"},
    {"TTY_COMPATIBLE": "2", "FORCE_COLOR": "1"},
    {"NO_COLOR": "1"},
]


@pytest.mark.parametrize("environ", ENVIRONS, ids=lambda e: ",".join(e) or "none")
@pytest.mark.parametrize("stream", [io.StringIO, _Tty, _Closed], ids=["pipe", "tty", "closed"])
@pytest.mark.parametrize("color", ["auto", "always", "never"])
def test_takes_styles_agrees_with_rich(
    monkeypatch: pytest.MonkeyPatch,
    environ: Mapping[str, str],
    stream: type[io.StringIO],
    color: str,
) -> None:
    """Where takes_styles says no, the console writes a styled line as the bare line
    (and where rich would style, takes_styles says so)."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    out = stream()
    console = plain_console(out, color=color)
    console.print("All checks passed! 2 gates (1 feature, 3 files)", style="green")
    styled = "\x1b[" in out.getvalue()
    says = takes_styles(out, color, environ)
    if not says:
        assert out.getvalue() == "All checks passed! 2 gates (1 feature, 3 files)\n"
    if styled:
        assert says
    if color != "never":  # `never` writes no style even on a terminal
        assert says is Console(file=stream(), force_terminal=None).is_terminal or (
            color == "always"
        )


TREE = {
    "pkg/__init__.py": "",
    "pkg/comm.py": (
        "import torch\n\n\n"
        "def apply_fusion():\n"
        "    return torch.cuda.get_device_capability()[0] in (9, 10, 12)\n"
    ),
}
RULE = """\
features:
  - id: fusion
    description: the fusion
    flags: [enable_fusion]
    gate_functions: [pkg.comm.apply_fusion]
    require: [sm90, sm100, sm120]
"""


@pytest.mark.parametrize("output_format", ["text", "concise"])
def test_clean_report_without_rich(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output_format: str
) -> None:
    """A clean tree's report is the summary line alone (concise: nothing), the same
    bytes through both paths, and the rich-free path imports no rich."""
    for rel, text in TREE.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    rules = tmp_path / "rules.yaml"
    rules.write_text(RULE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    args = ["check", "pkg", "--rules", str(rules), "--format", output_format, "--no-cache"]
    plain = CliRunner().invoke(cli, args)
    monkeypatch.setenv("FORCE_COLOR", "1")  # the console's path, with colour
    coloured = CliRunner().invoke(cli, args)
    assert plain.exit_code == coloured.exit_code == 0, plain.output
    assert ("\x1b[" in coloured.stdout) is (output_format == "text")
    assert plain.stdout == re.sub("\x1b\\[[0-9;]*m", "", coloured.stdout)
    if output_format == "text":
        assert plain.stdout.startswith("All checks passed! 0 findings in 1 gate (1 feature")
        assert plain.stdout.count("\n") == 1
    else:
        assert plain.stdout == ""
