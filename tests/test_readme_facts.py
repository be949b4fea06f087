"""What the README says about the cache and the diagnostics is what the code does."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from pathlib import Path

from gatecheck import cache
from gatecheck.containment import BOUND_HIT

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_stat_signature_fields_are_the_ones_the_cache_records() -> None:
    tree = ast.parse(textwrap.dedent(inspect.getsource(cache._stat_row)))
    spelt = {"ino": "inode"}
    read = [
        spelt.get(node.attr.removeprefix("st_"), node.attr.removeprefix("st_"))
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr.startswith("st_")
    ]
    said = re.search(r"stat signature \(([^)]*)\)", " ".join(README.split()))
    assert said is not None
    assert [field.strip() for field in said.group(1).split(",")] == read


def test_a_linked_cache_folder_is_said_to_be_refused() -> None:
    section = README.split("## Performance and the cache", 1)[1].split("\n## ", 1)[0]
    assert "symbolic link" in section and "refused" in section


def test_every_diagnostic_code_has_a_section() -> None:
    for code in ("GC900", BOUND_HIT):
        assert re.search(rf"^### {code} ", README, re.MULTILINE), code
