"""A gate whose culprit is an argument-less helper (`if _use_fast():`) defined in another
module: the finding is at the allowlist in the helper's body, the gate stays on the
path as the caller hop, and `--diff` edits the allowlist (issue 18)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.config.loader import load_ruleset
from gatecheck.engine import analyse
from gatecheck.findings import HopKind
from tests.conftest import FAST_THING_RULE

CAPS = """import torch

cap = torch.cuda.get_device_capability()


def _use_fast():
    return cap[0] in [9, 10]
"""
ARGS = """from pkg.caps import _use_fast


class Args:
    enable_fast_thing: bool = False

    def adjust(self):
        if _use_fast():
            self.enable_fast_thing = True
"""
RULE = FAST_THING_RULE


def _project(make_tree) -> Path:  # type: ignore[no-untyped-def]
    return make_tree(
        {"pkg/__init__.py": "", "pkg/caps.py": CAPS, "pkg/args.py": ARGS, "rules.yaml": RULE}
    )


def test_finding_at_the_allowlist_with_the_caller_on_the_path(make_tree) -> None:  # type: ignore[no-untyped-def]
    root = _project(make_tree)
    (finding,) = analyse([root], load_ruleset([root / "rules.yaml"])).findings
    assert finding.path == root / "pkg" / "caps.py"
    assert (finding.start.line, finding.culprit) == (7, "cap[0] in [9, 10]")
    assert finding.condition == "_use_fast()", "the gate's own condition is kept"
    kinds = [(hop.kind, hop.path.name, hop.condition) for hop in finding.hops]
    caller = kinds.index((HopKind.AUTO_ENABLE, "args.py", "_use_fast()"))
    assert kinds[caller + 1 :] == [(HopKind.ALLOWLIST, "caps.py", "cap[0] in [9, 10]")]


def test_json_and_diff_point_at_the_allowlist(make_tree) -> None:  # type: ignore[no-untyped-def]
    root = _project(make_tree)
    rules = ["--rules", str(root / "rules.yaml")]
    report = CliRunner().invoke(cli, ["check", str(root), *rules, "--format", "json"])
    (finding,) = json.loads(report.output)["findings"]
    assert Path(finding["path"]).name == "caps.py", finding
    diff = CliRunner().invoke(cli, ["check", str(root), *rules, "--diff"])
    assert "-    return cap[0] in [9, 10]\n+    return cap[0] in [9, 10, 12]\n" in diff.output
    assert "args.py" not in diff.output
    assert (root / "pkg" / "caps.py").read_text() == CAPS, "--diff writes nothing"


METHOD = """import torch


class Args:
    enable_fast_thing: bool = False

    def __init__(self):
        self.capability = torch.cuda.get_device_capability()

    def _use_fast(self):
        return self.capability[0] in [9, 10]

    def adjust(self):
        if self._use_fast():
            self.enable_fast_thing = True
"""


def test_a_method_reading_its_objects_capability_is_followed(make_tree) -> None:  # type: ignore[no-untyped-def]
    """`self` is the call's receiver, not an argument: the allowlist in the method's body
    is where the finding and the fix are."""
    root = make_tree({"pkg/__init__.py": "", "pkg/args.py": METHOD, "rules.yaml": RULE})
    (finding,) = analyse([root], load_ruleset([root / "rules.yaml"])).findings
    assert (finding.start.line, finding.culprit) == (11, "self.capability[0] in [9, 10]")
    assert [h.kind for h in finding.hops][-2:] == [HopKind.AUTO_ENABLE, HopKind.ALLOWLIST]
    rules = ["--rules", str(root / "rules.yaml")]
    diff = CliRunner().invoke(cli, ["check", str(root), *rules, "--diff"])
    assert "+        return self.capability[0] in [9, 10, 12]" in diff.stdout
