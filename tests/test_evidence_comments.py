"""evidence.comments reads comments without making every token (audit/evidence.py's
scan): the same (line, text) list as `tokenize.generate_tokens`, including where
tokenize stops at an error, on a table of tricky sources; the table's expected lists
are tokenize's own (asserted too)."""

from __future__ import annotations

import random

import pytest

from gatecheck.audit import evidence
from tests.conftest import corpus_package

# (source, the COMMENT tokens tokenize gives: (line, text)).
SOURCES: dict[str, tuple[str, list[tuple[int, str]]]] = {
    "no-hash": ("x = 1\n", []),
    "hash-in-strings": ("a = '#no'\nb = \"#no\"  # yes\n", [(2, "# yes")]),
    "escaped-quote": ("a = 'it\\'s # no' # yes\n", [(1, "# yes")]),
    "prefixes": ("a = rb'\\' # no'  # yes\nb = f\"{x}#no\"\n", [(1, "# yes")]),
    "f-string-braces": ("x = f'{a!r:#x}'  # fmt\n", [(1, "# fmt")]),
    "triple-one-line": ("x = '''# no''' # yes\n", [(1, "# yes")]),
    "triple-over-lines": ('x = """\n# no\n"""  # yes\n# also\n', [(3, "# yes"), (4, "# also")]),
    "triple-with-quotes-inside": ("x = '''a '' b ' c''' # c\n", [(1, "# c")]),
    "empty-string-then-quote": ("x = '' + '#' # c\n", [(1, "# c")]),
    "comment-only-lines": (
        "  # indented\n\t# tab\n\n# top",
        [(1, "# indented"), (2, "# tab"), (4, "# top")],
    ),
    "in-brackets": ("f(\n    1,  # one\n  # two\n)\n", [(2, "# one"), (3, "# two")]),
    "backslash-continuation": ("x = 1 + \\\n  2  # c\n", [(2, "# c")]),
    "crlf": ("x = 1  # a\r\n# b\r\n", [(1, "# a"), (2, "# b")]),
    "trailing-blanks": ("# a\n   ", [(1, "# a")]),
    "no-final-newline": ("x = 1 # end", [(1, "# end")]),
    "unterminated-triple": ("# a\nx = '''\n# in\n", [(1, "# a")]),
    "unterminated-bracket": ("# a\nf(1,  # b\n", [(1, "# a"), (2, "# b")]),
    "bad-dedent-stops": (
        "if x:\n        y = 1  # a\n    z = 2  # lost\n# lost too\n",
        [(2, "# a")],
    ),
    "tab-indentation": ("if x:\n\ty = 1\n        z = 2  # same column\n", [(3, "# same column")]),
    "form-feed": ("if x:\n    y = 1\n\x0c    z = 2  # c\n", [(3, "# c")]),
    "negative-brackets": (")\n  # a\n    x  # b\n", [(2, "# a"), (3, "# b")]),
    "lone-backslash": ("x = 1 \\ 2  # c\n", [(1, "# c")]),
    "unterminated-string": ("x = 'abc  # c\ny = 1  # d\n", [(1, "# c"), (2, "# d")]),
    "string-continued-by-backslash": ("x = 'a\\\n# b' # c\n", [(2, "# c")]),
    "lone-cr": ("x = 1  # a\rb = 2\n", [(1, "# a")]),
    "unicode": ("é = 'ü#'  # ö\n", [(1, "# ö")]),
}


@pytest.mark.parametrize(("source", "expected"), list(SOURCES.values()), ids=list(SOURCES))
def test_comment_tokens_are_tokenizes(source: str, expected: list[tuple[int, str]]) -> None:
    assert evidence._tokenized_comments(source) == expected  # the table is right
    assert evidence.comment_tokens(source) == expected


@pytest.mark.parametrize(
    "name", ["unterminated-string", "string-continued-by-backslash", "lone-cr"]
)
def test_what_the_scan_leaves_to_tokenize(name: str) -> None:
    """An open string at a line end (an error token, or a backslash continuing it) and
    a lone CR: tokenize answers (the list above is its own)."""
    assert evidence._scanned_comments(SOURCES[name][0]) is None


def test_generated_sources_read_as_tokenize_reads_them() -> None:
    pieces = [
        "x",
        " ",
        "  ",
        "\t",
        "\n",
        "\n    ",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "'",
        '"',
        "'''",
        '"""',
        "#",
        "# c",
        "\\",
        "\\\n",
        "\r\n",
        "if a:\n",
        "f'",
        'rb"',
        "\x0c",
        "é",
    ]
    rnd = random.Random(20)
    for _ in range(4_000):
        source = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 30)))
        assert evidence.comment_tokens(source) == evidence._tokenized_comments(source), source


def test_a_note_over_consecutive_lines_is_one() -> None:
    found = evidence.comments("x = 1  # one\n# two\n\n# three\n")
    assert [(w.line, w.end, w.text) for w in found] == [(1, 2, "one\ntwo"), (4, 4, "three")]


@pytest.mark.corpus
def test_sglang_comments_read_as_tokenize_reads_them() -> None:
    """Every file of a real engine (the scan was checked once on every file of the 13
    cached corpora, and on truncated and mutated copies of sglang 0.5.9's)."""
    root = corpus_package("sglang==0.5.9")
    files = sorted(root.rglob("*.py"))
    assert len(files) > 100
    scanned = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        found = evidence._scanned_comments(text)
        if found is not None:
            scanned += 1
            assert found == evidence._tokenized_comments(text), path
    assert scanned > len(files) // 2  # the scan, not tokenize, answers most files
