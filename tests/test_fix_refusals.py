"""The fixer's own refusals (after the planner: verification by re-analysis, edits of
several gates meeting in one place, a rule it does not fix), each a noop with its
reason, like the strategies' NOOPS."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.fixing.source import FAST_PATH, fix_source_report
from tests.conftest import FIXTURES

_CAP = "import torch\ncap = torch.cuda.get_device_capability()\n"
_USE = "def _use_fast():\n    return cap[0] in [9, 10]\n"

VERIFY_NOOPS = [
    # The helper also switches the feature off elsewhere: widening it drops sm120 there.
    pytest.param(
        _CAP + _USE + "def enabled(args):\n    return _use_fast() and args.go\n"
        "def later(args):\n    if _use_fast():\n        args.go = False\n",
        "the edit would drop sm120, sm121; file left untouched",
        ("sm120",),
        id="helper-also-disables",
    ),
    # Another gate reads the same helper and already admits sm120: it would gain sm121.
    pytest.param(
        _CAP + _USE + "def enabled(args):\n    return _use_fast() and args.go\n"
        "def other(args):\n    if _use_fast() or cap == (12, 0):\n        args.go = True\n",
        "the edit would change another gate (gate.other); file left untouched",
        ("sm90", "sm100", "sm120"),
        id="helper-widens-another-gate",
    ),
]


@pytest.mark.parametrize(("source", "reason", "require"), VERIFY_NOOPS)
def test_verification_refusals(source: str, reason: str, require: tuple[str, ...]) -> None:
    feature = dataclasses.replace(FAST_PATH, require=frozenset(require))
    report = fix_source_report(source, feature)
    assert report.text == source and not report.changed
    assert reason in report.refused, report.refused


UTILS = """\
import torch
def _cap():
    return torch.cuda.get_device_capability()
def is_sm90_supported():
    return _cap() == (9, 0)
def is_sm100_supported():
    return _cap() == (10, 0)
def is_sm110_supported():
    return _cap() == (11, 0)
def is_sm120_supported():
    return _cap() == (12, 0)
"""

TWO_FEATURES = """\
features:
  - id: fast-path
    description: a fast path
    flags: [go]
    require: [sm90, sm100, sm120]
  - id: thor-path
    description: another path, wanted on Thor
    flags: [go_thor]
    require: [sm90, sm100, sm110]
"""

GATES = """\
from pkg.utils import is_sm90_supported, is_sm100_supported
def enabled(args):
    return (is_sm90_supported() or is_sm100_supported()) and args.go
def thor(args):
    return (is_sm90_supported() or is_sm100_supported()) and args.go_thor
"""


def test_two_imports_at_one_place_conflict(tmp_path: Path) -> None:
    """Each feature's fix imports its sibling right after `is_sm100_supported`: the first
    is kept, the second meets it there and is refused (edits never overlap)."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "utils.py").write_text(UTILS)
    (root / "gate.py").write_text(GATES)
    (tmp_path / "rules.yaml").write_text(TWO_FEATURES)
    args = ["check", str(root), "--rules", str(tmp_path / "rules.yaml"), "--diff"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1
    assert "is_sm100_supported, is_sm120_supported\n" in result.stdout
    assert "is_sm110_supported" not in result.stdout
    assert "fixes conflict in this file (edits overlap at byte" in result.stderr
    assert (root / "gate.py").read_text() == GATES


def test_a_gate_admitting_too_much_is_not_narrowed(tmp_path: Path) -> None:
    """GC002 (admits what its kernels are not built for) is reported, never fixed."""
    from tests.test_kernels import OLD
    from tests.test_kernels import RULE as KERNEL_RULE

    root = tmp_path / "app"
    shutil.copytree(FIXTURES / "seed_alias", root)
    (tmp_path / "rules.yaml").write_text(KERNEL_RULE)
    base = ["check", str(root), "--rules", str(tmp_path / "rules.yaml")]
    base += ["--kernel-source", str(OLD)]
    assert CliRunner().invoke(cli, [*base, "--fix", "--force"]).exit_code == 0
    before = {p: p.read_bytes() for p in root.rglob("*.py")}
    report = json.loads(CliRunner().invoke(cli, [*base, "--format", "json"]).stdout)
    assert {f["rule"] for f in report["findings"]} == {"GC002"}
    result = CliRunner().invoke(cli, [*base, "--fix"])
    assert result.exit_code == 1
    assert "narrowing a gate is not automated; edit it by hand" in result.stderr
    assert {p: p.read_bytes() for p in root.rglob("*.py")} == before


def test_the_refusal_of_a_kernel_blocked_generation_names_force(tmp_path: Path) -> None:
    from tests.test_kernels import OLD
    from tests.test_kernels import RULE as KERNEL_RULE

    root = tmp_path / "app"
    shutil.copytree(FIXTURES / "seed_alias", root)
    (tmp_path / "rules.yaml").write_text(KERNEL_RULE)
    args = ["check", str(root), "--rules", str(tmp_path / "rules.yaml"), "--diff"]
    result = CliRunner().invoke(cli, [*args, "--kernel-source", str(OLD)])
    assert result.exit_code == 1 and not result.stdout
    assert "needs a version of flashinfer that builds for major 12 (use --force" in result.stderr


# The fixer's last guards, behind every strategy: an edit that would not parse (a
# strategy's bug; it caught the multi-line or-chain one) and a re-analysis that finds
# other gates. No strategy produces either now, so they are driven directly.


def test_an_edit_that_would_not_parse_is_refused() -> None:
    from gatecheck.findings import Edit
    from gatecheck.fixing.fixer import _edited
    from gatecheck.fixing.planner import Plan

    raw = b"def enabled(args):\n    return args.go\n"
    broken = Plan(Path("gate.py"), (Edit(Path("gate.py"), 30, 30, " or ("),), frozenset(), "")
    assert _edited(raw, "utf-8", [(None, None, broken)]) == (  # type: ignore[list-item]
        "the edit would not parse (invalid syntax); file left untouched"
    )


def test_a_reanalysis_with_other_gates_is_refused() -> None:
    from gatecheck.config.loader import load_registry
    from gatecheck.config.model import RuleSet
    from gatecheck.fixing.fixer import _verify
    from gatecheck.fixing.source import analyse_in_memory, memory_path

    ruleset = RuleSet(load_registry(), (FAST_PATH,))
    one = _CAP + "def enabled(args):\n    return cap[0] == 9 and args.go\n"
    two = one + "def again(args):\n    return cap[0] == 10 and args.go\n"
    before = analyse_in_memory({memory_path("gate"): one.encode()}, ruleset)
    after = analyse_in_memory({memory_path("gate"): two.encode()}, ruleset)
    assert _verify(before, after, memory_path("gate"), []) == (
        "re-analysis found a different set of gates after the edit; file left untouched"
    )
