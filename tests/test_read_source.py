"""read_source's shortcut for plain UTF-8 files answers as the full PEP 263 reading does,
and read_regular reads every file whole however its size compares with what it asked for."""

from __future__ import annotations

import codecs
import os
import random
from pathlib import Path

import pytest

from gatecheck import safe_io
from gatecheck.loading.project import SourceFile, declared_source, read_source
from tests.conftest import FIXTURES


def _reference(path: Path, raw: bytes) -> SourceFile:
    """The reading without the shortcut: PEP 263's, for every file."""
    if b"\x00" in raw:
        raise ValueError("file contains NUL bytes")
    return declared_source(path, raw)


def _outcome(read: object, path: Path, raw: bytes) -> object:
    try:
        return read(path, raw)  # type: ignore[operator]
    except (ValueError, SyntaxError, LookupError) as err:
        return (type(err), str(err))


CASES = [
    b"",
    b"x = 1\n",
    b"x = 1",
    b"\n\nx = 1\n",
    b"# coding: latin-1\nx = '\xe9'\n",
    b"#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nx = 1\n",
    b"\n# vim: set fileencoding=cp1252 :\nx = '\x93'\n",
    b"x = 1\n# coding: latin-1\n",  # a third line: not a cookie
    b"x = '\xc3\xa9'\n",
    b"x = '\xe9'\n",  # not UTF-8
    b"# \xe9\nx = 1\n",  # first line not UTF-8: detect_encoding's SyntaxError
    b"\xef\xbb\xbfx = 1\n",
    b"\xef\xbb\xbf\xef\xbb\xbfx = 1\n",
    b"# coding: utf-8\n\xef\xbb\xbf",
    b"# coding: nonsense-codec\nx = 1\n",
    b"# encoding deprecated\nx = 1\n",
    b"x = 1\r# coding: latin-1\r",
    b"x = 1\x00\n",
    b"\xed\xa0\x80\n",  # an encoded surrogate: strict UTF-8 refuses it
]


@pytest.mark.parametrize("raw", CASES)
def test_shortcut_answers_as_pep_263(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "m.py"
    assert _outcome(read_source, path, raw) == _outcome(_reference, path, raw)


def test_shortcut_on_generated_texts(tmp_path: Path) -> None:
    rng = random.Random(263)
    pieces = [b"x", b" ", b"\n", b"\r", b"#", b"coding", b":", b"latin-1", b"utf-8", b"\xe9"]
    pieces += [b"\xc3\xa9", b"=", codecs.BOM_UTF8, b"\xed\xa0\x80", b"'"]
    path = tmp_path / "m.py"
    for _ in range(3000):
        raw = b"".join(rng.choice(pieces) for _ in range(rng.randrange(12)))
        assert _outcome(read_source, path, raw) == _outcome(_reference, path, raw), raw


def test_shortcut_on_every_fixture_file() -> None:
    for path in sorted(FIXTURES.rglob("*.py")):
        raw = path.read_bytes()
        assert _outcome(read_source, path, raw) == _outcome(_reference, path, raw), path


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 65536, 1_048_575, 1_048_576, 1_048_577])
def test_read_regular_reads_whole_files(tmp_path: Path, size: int) -> None:
    path = tmp_path / "f.py"
    data = bytes(random.Random(size).randrange(256) for _ in range(min(size, 4096)))
    data = (data * (size // max(len(data), 1) + 1))[:size]
    path.write_bytes(data)
    assert safe_io.read_regular(path, safe_io.SOURCE_BYTES) == data


@pytest.mark.parametrize(("size", "hint"), [(100, 10), (10, 100), (10, 10), (0, 5)])
def test_read_fd_reads_to_the_end_whatever_the_size_given(
    tmp_path: Path, size: int, hint: int
) -> None:
    """The size given is what it was when opened: a file grown or shrunk since is read to
    its end all the same."""
    path = tmp_path / "f.py"
    path.write_bytes(b"x" * size)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert safe_io.read_fd(fd, path, safe_io.SOURCE_BYTES, size_hint=hint) == b"x" * size
    finally:
        os.close(fd)


def test_read_fd_still_refuses_a_file_over_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "f.py"
    path.write_bytes(b"x" * 101)
    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(OSError, match="larger than"):
            safe_io.read_fd(fd, path, 100, size_hint=50)
    finally:
        os.close(fd)
