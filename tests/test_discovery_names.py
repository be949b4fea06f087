"""Discovery spells each file's name as `str(path)` does, so the cache can compare and stat
by those names without building them from the Paths again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gatecheck.discovery import Discovery, discover
from tests.conftest import FIXTURES


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "sub" / "m.py").write_text("x = 1\n", encoding="utf-8")
    (root / "pkg" / "é ünicode.py").write_text("", encoding="utf-8")
    (root / "top.py").write_text("", encoding="utf-8")
    (root / "linked.py").symlink_to(root / "top.py")
    (root / "alias").symlink_to(root / "pkg", target_is_directory=True)
    (root / "pkg" / "outside.py").symlink_to(tmp_path / "nowhere.py")
    return root


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()))
def test_names_are_the_paths_strings_on_every_fixture(fixture: str) -> None:
    found = discover([FIXTURES / fixture])
    assert found.file_names() == tuple(str(f) for f in found.files)
    assert found.names == found.file_names()  # given by the walk, not rebuilt


@pytest.mark.parametrize(
    "given",
    ["the root", "the root with a trailing slash", "one file", "a folder and a file", "a link"],
)
def test_names_are_the_paths_strings(tmp_path: Path, given: str) -> None:
    root = _tree(tmp_path)
    paths = {
        "the root": [root],
        "the root with a trailing slash": [Path(f"{root}{os.sep}")],
        "one file": [root / "pkg" / "sub" / "m.py"],
        "a folder and a file": [root / "pkg", root / "top.py"],
        "a link": [root / "alias"],
    }[given]
    found = discover(paths)
    assert found.files
    assert found.names == tuple(str(f) for f in found.files)


def test_a_discovery_made_elsewhere_names_its_files() -> None:
    files = (Path("/a/b.py"), Path("/a/c.py"))
    made = Discovery((Path("/a"),), files)
    assert made.file_names() == ("/a/b.py", "/a/c.py")
    assert made == Discovery((Path("/a"),), files, names=made.file_names())


PATTERNS = [
    (),
    ("build",),
    ("*.py",),
    ("pkg/sub",),
    ("pkg/*",),
    ("[ab]*", "x?y", "literal.name"),
    ("a]b", "a\\b", "(paren)", "plus+", "dot.py"),
    ("*",),
]
NAMES = [
    ("build", "build"),
    ("m.py", "pkg/m.py"),
    ("sub", "pkg/sub"),
    ("a1", "a1"),
    ("xzy", "q/xzy"),
    ("literal.name", "literal.name"),
    ("literalXname", "literalXname"),
    ("a]b", "a]b"),
    ("a\\b", "a\\b"),
    ("(paren)", "(paren)"),
    ("plus+", "plus+"),
    ("dotXpy", "dotXpy"),
    ("Build", "Build"),
]


@pytest.mark.parametrize("patterns", PATTERNS)
def test_exclusions_match_as_fnmatch_does(patterns: tuple[str, ...]) -> None:
    import fnmatch

    from gatecheck.discovery import _exclusion_matcher

    excluded = _exclusion_matcher(patterns)
    for name, rel in NAMES:
        expected = any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(rel, p) for p in patterns)
        assert excluded(rel, name) is expected, (patterns, name, rel)
