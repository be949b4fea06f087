"""A rule's `gate_functions` entry that names nothing in the scanned tree is a warning,
never a silent "0 gates" (issue #15, item 18)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli

MakeTree = Callable[[Mapping[str, str]], Path]

TREE = {
    "pkg/__init__.py": "",
    "pkg/comm.py": """\
        import torch


        def apply_fusion():
            return torch.cuda.get_device_capability()[0] in (9, 10)


        class Fuser:
            def enabled(self):
                return torch.cuda.get_device_capability()[0] == 9
        """,
}

RULE = """\
features:
  - id: fusion
    description: the fusion
    flags: [enable_fusion]
    gate_functions: [{name}]
    require: [sm90, sm100, sm120]
"""


@pytest.mark.parametrize(
    ("name", "warned"),
    [
        pytest.param("pkg.comm.apply_fusion", False, id="function"),
        pytest.param("pkg.comm.Fuser.enabled", False, id="method"),
        pytest.param("pkg.comm.apply_fusoin", True, id="misspelt-function"),
        pytest.param("pkg.comms.apply_fusion", True, id="no-such-module"),
        pytest.param("other.comm.apply_fusion", True, id="another-project"),
        pytest.param("pkg.comm.Fuser", True, id="a-class-is-not-a-function"),
    ],
)
@pytest.mark.parametrize("cached", [False, True], ids=["fresh", "cached"])
def test_unresolved_gate_function_warns(
    make_tree: MakeTree,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    warned: bool,
    cached: bool,
) -> None:
    root = make_tree(TREE)
    rules = root.parent / "rules.yaml"
    rules.write_text(RULE.format(name=name), encoding="utf-8")
    monkeypatch.chdir(root)
    args = ["check", str(root), "--rules", str(rules), "--format", "json"]
    if not cached:
        args.append("--no-cache")
    else:
        CliRunner().invoke(cli, args)  # the second run is answered from the cache
    result = CliRunner().invoke(cli, args)
    assert result.exit_code in (0, 1), result.output
    warning = (
        f"gatecheck: warning: gate function '{name}' of feature 'fusion' "
        f"({rules}:2:5) names nothing in the scanned tree: its gates are not checked\n"
    )
    assert result.stderr == (warning if warned else "")
    if not warned:  # the gate function's gate forgets sm120: it was checked
        assert '"rule": "GC001"' in result.stdout


@pytest.mark.parametrize(
    ("name", "before", "after", "warned_after"),
    [
        pytest.param(
            "pkg.comm.apply_fusion", "def apply_fusion", "def apply_other", True, id="def-removed"
        ),
        pytest.param(
            "pkg.comm.apply_fusoin", "def apply_fusion", "def apply_fusoin", False, id="def-added"
        ),
        pytest.param(
            "pkg.comm.Fuser.enabled", "class Fuser", "class Other", True, id="class-renamed"
        ),
    ],
)
def test_cached_warning_follows_an_edit(
    make_tree: MakeTree,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    before: str,
    after: str,
    warned_after: bool,
) -> None:
    """The answers stored with a cache entry (whether each gate function names a
    function) go stale with the module they read: after the edit, the cached run warns
    as a fresh run of the edited tree does."""
    root = make_tree(TREE)
    rules = root.parent / "rules.yaml"
    rules.write_text(RULE.format(name=name), encoding="utf-8")
    monkeypatch.chdir(root)
    args = ["check", str(root), "--rules", str(rules), "--format", "json"]
    first = CliRunner().invoke(cli, args)
    assert ("names nothing" in first.stderr) is not warned_after, first.stderr
    module = root / "pkg" / "comm.py"
    module.write_text(module.read_text(encoding="utf-8").replace(before, after), "utf-8")
    cached = CliRunner().invoke(cli, args)
    fresh = CliRunner().invoke(cli, [*args, "--no-cache"])
    assert ("names nothing" in cached.stderr) is warned_after, cached.stderr
    assert cached.stderr == fresh.stderr
