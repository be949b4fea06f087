"""A built file's source is kept once (#20): its bytes come back from the text, and its
tree's positions are the parser's, whatever the encoding."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gatecheck.loading.project import Project, read_source
from gatecheck.loading.trees import ProjectBuilder


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        (b"x = 1\n", False),
        (b"x = 1\r\ny = 2\r\n", False),
        (b"\xef\xbb\xbfx = 1\n", False),  # UTF-8 with a byte-order mark
        ("s = 'é'\n".encode(), False),
        (b"# -*- coding: latin-1 -*-\ns = '\xe9'\n", False),
        (b"# -*- coding: cp1252 -*-\ns = '\x80'\n", False),
    ],
)
def test_raw_bytes_come_back(tmp_path: Path, raw: bytes, kept: bool) -> None:
    source = read_source(tmp_path / "m.py", raw)
    assert source.raw == raw
    assert (source.kept_raw is not None) is kept


def test_text_of_a_built_file_is_its_source_text(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("import os\nx = os.sep\n")
    project = Project([path], [tmp_path])
    before = project.text_of(path)
    module = project.module_at(path)
    assert module is not None
    source = project.source(path)
    assert source is not None
    assert project.text_of(path) == before
    assert project.text_of(path) is source.text  # one copy kept


def test_shared_line_numbers_are_the_parsers() -> None:
    text = "\n".join(f"v{i} = f(a[{i}], b.c)" for i in range(600)) + "\n"
    builder = ProjectBuilder()
    module = builder.string_build(text, "m", "m.py")
    expected = ast.parse(text).body
    assert [(s.lineno, s.end_lineno, s.col_offset, s.end_col_offset) for s in module.body] == [
        (e.lineno, e.end_lineno, e.col_offset, e.end_col_offset) for e in expected
    ]
    last = expected[-1]
    assert isinstance(last, ast.Assign)
    call, parsed = module.body[-1].value, last.value
    assert (call.lineno, call.col_offset, call.end_col_offset) == (
        parsed.lineno,
        parsed.col_offset,
        parsed.end_col_offset,
    )
    # One int object per line number (the parser makes one per node and position).
    assert call.lineno is module.body[-1].lineno is call.end_lineno
    assert module.file_bytes is None
