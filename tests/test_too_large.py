"""A file too large to build is diagnosed and the run goes on; a very long line is cut
around the caret in the text report (#15 item 14)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.loading import project as loading
from gatecheck.loading.project import TooLarge, check_size
from tests.conftest import FAST_THING_RULE


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        pytest.param("x = 1\n", False, id="small"),
        pytest.param("x = [" + "1," * 10 + "]\n", True, id="list-over-bound"),
        pytest.param("# " + "a" * 100 + "\n", False, id="long-but-few-tokens"),
        pytest.param("s = '" + "word " * 30 + "'\n", True, id="words-in-a-string"),
    ],
)
def test_check_size(text: str, refused: bool) -> None:
    if refused:
        with pytest.raises(TooLarge, match=r"too large to analyse: [\d,]+ tokens, the bound is 20"):
            check_size(text, bound=20)
    else:
        check_size(text, bound=20)


SERVER = """import torch

class Args:
    enable_fast_thing: bool = False

    def adjust(self):
        major, minor = torch.cuda.get_device_capability()
        if major in (9, 10):
            self.enable_fast_thing = True
"""
RULE = FAST_THING_RULE


def test_huge_file_is_diagnosed_and_the_run_goes_on(make_tree) -> None:  # type: ignore[no-untyped-def]
    huge = "enable_fast_thing = [" + "1," * (loading.MAX_TOKENS // 2 + 1) + "]\n"
    root = make_tree(
        {"pkg/__init__.py": "", "pkg/args.py": SERVER, "pkg/huge.py": huge, "rules.yaml": RULE}
    )
    result = CliRunner().invoke(cli, ["check", str(root), "--rules", str(root / "rules.yaml")])
    assert result.exit_code == 1
    said = f"too large to analyse: {loading.MAX_TOKENS + 6:,} tokens, the bound is {loading.MAX_TOKENS:,}"
    assert f"huge.py:1:1: GC900 {said}" in result.output
    assert "GC001" in result.output, "the other file is still checked"


def test_long_line_is_cut_around_the_caret(make_tree) -> None:  # type: ignore[no-untyped-def]
    before, after = "x" * 5_000, "y" * 5_000
    gate = f'        if "{before}" and major in (9, 10) and "{after}":\n'
    server = SERVER.replace("        if major in (9, 10):\n", gate)
    root = make_tree({"pkg/__init__.py": "", "pkg/args.py": server, "rules.yaml": RULE})
    result = CliRunner().invoke(cli, ["check", str(root), "--rules", str(root / "rules.yaml")])
    assert "GC001" in result.output
    assert "x" * 200 not in result.output and "y" * 200 not in result.output
    (frame,) = [line for line in result.output.splitlines() if "major in (9, 10)" in line]
    caret = next(line for line in result.output.splitlines() if line.strip().endswith("^"))
    assert "...x" in frame and "y..." in frame
    assert caret.index("^") == frame.index("major in (9, 10)")
    assert caret.count("^") == len("major in (9, 10)")
