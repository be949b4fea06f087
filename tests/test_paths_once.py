"""A feature's activation path is stored once, not repeated in every finding (issue #15,
item 13): with N failing gates, the JSON report and the cache entry hold O(N) hops, where
they held N² (every finding listed every gate of the feature)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli

MakeTree = Callable[[Mapping[str, str]], Path]

RULE = """\
features:
  - id: fast-thing
    description: the fast thing
    flags: [enable_fast_thing]
    require: [sm90, sm100, sm120]
"""


def gates(count: int) -> str:
    """A settings class whose flag is switched on by `count` gates that forget sm120."""
    lines = [
        "import argparse",
        "import torch",
        "",
        "parser = argparse.ArgumentParser()",
        "parser.add_argument('--enable-fast-thing', action='store_true')",
        "",
        "",
        "class Args:",
        "    enable_fast_thing: bool = False",
    ]
    for i in range(count):
        lines += [
            "",
            f"    def adjust_{i}(self):",
            "        major, minor = torch.cuda.get_device_capability()",
            f"        if major in (9, 10) and minor == {i}:",
            "            self.enable_fast_thing = True",
        ]
    return "\n".join(lines) + "\n"


def tree(make_tree: MakeTree, count: int) -> tuple[Path, Path]:
    root = make_tree({"args.py": gates(count)})
    rules = root.parent / "rules.yaml"
    rules.write_text(RULE, encoding="utf-8")
    return root, rules


def report(root: Path, rules: Path, *cache: str) -> dict:
    args = ["check", str(root), "--rules", str(rules), "--format", "json", *cache]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("cache", [("--no-cache",), ()], ids=["fresh", "cache-written"])
def test_path_is_stored_once_per_feature(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch, cache: tuple[str, ...]
) -> None:
    count = 30
    root, rules = tree(make_tree, count)
    monkeypatch.chdir(root)
    data = report(root, rules, *cache)
    findings = data["findings"]
    assert len(findings) == count
    path = data["activation_paths"]["fast-thing"]
    kinds = [h["kind"] for h in path]
    assert kinds == ["cli-option", "settings-field", *["auto-enable"] * count]
    for finding in findings:
        # Its route: the option, the field and its own gate, not the other 29 gates.
        assert finding["activation_path"] == "fast-thing"
        route = finding["path_hops"]
        assert [h["kind"] for h in route] == ["cli-option", "settings-field", "auto-enable"]
        assert route[2]["line"] == finding["start"]["line"]
    hops_in_findings = sum(len(f["path_hops"]) for f in findings)
    assert hops_in_findings == 3 * count  # linear: it was count * (count + 2)


def test_cached_run_reads_the_paths_back(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, rules = tree(make_tree, 5)
    monkeypatch.chdir(root)
    first = report(root, rules)
    assert first["activation_paths"]

    def no_fresh_analysis(*args: object, **kwargs: object) -> None:
        raise AssertionError("the second run must be answered from the cache")

    monkeypatch.setattr("gatecheck.engine.analyse", no_fresh_analysis)
    assert report(root, rules) == first
