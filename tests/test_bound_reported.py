"""A bound hit while evaluating a gate condition is said (#15 item 17): a dropped gate
becomes a GC901 diagnostic, a reported one carries a note, never a silent "0 gates"."""

from __future__ import annotations

from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.config.loader import load_ruleset
from gatecheck.engine import BOUND_HIT, analyse
from gatecheck.semantics import bounds

DEPTH = bounds.MAX_CALL_DEPTH + 1
# p{DEPTH} calls p{DEPTH-1} ... calls p0, which reads the device.
CHAIN = (
    "import torch\n\ndef p0():\n    return torch.cuda.get_device_capability()[0] in [9, 10]\n"
    + "".join(f"\ndef p{i}():\n    return p{i - 1}()\n" for i in range(1, DEPTH + 1))
)
ARGS = """from pkg.chain import p3, p{depth}
import torch


class Args:
    enable_fast_thing: bool = False

    def adjust(self):
        if {gate}:
            self.enable_fast_thing = True
"""
RULE = """
features:
  - id: fast-thing
    description: the fast thing
    flags: [enable_fast_thing]
    require: [sm90, sm100, sm120]
"""


def _tree(make_tree, gate: str):  # type: ignore[no-untyped-def]
    files = {
        "pkg/__init__.py": "",
        "pkg/chain.py": CHAIN,
        "pkg/args.py": ARGS.format(depth=DEPTH, gate=gate),
        "rules.yaml": RULE,
    }
    return make_tree(files)


def test_dropped_gate_is_diagnosed(make_tree) -> None:  # type: ignore[no-untyped-def]
    root = _tree(make_tree, f"p{DEPTH}()")
    analysis = analyse([root], load_ruleset([root / "rules.yaml"]))
    assert not analysis.findings
    (diagnostic,) = [d for d in analysis.project.diagnostics if d.code == BOUND_HIT]
    assert (diagnostic.path.name, diagnostic.line) == ("args.py", 9)
    assert bounds.CALL_DEPTH in diagnostic.message
    assert "'fast-thing'" in diagnostic.message
    text = CliRunner().invoke(cli, ["check", str(root), "--rules", str(root / "rules.yaml")])
    assert f"{BOUND_HIT} condition `p{DEPTH}()`" in text.output


def test_reported_gate_has_a_note(make_tree) -> None:  # type: ignore[no-untyped-def]
    gate = f"p{DEPTH}() and torch.cuda.get_device_capability()[0] == 9"
    root = _tree(make_tree, gate)
    (finding,) = analyse([root], load_ruleset([root / "rules.yaml"])).findings
    assert any(bounds.CALL_DEPTH in note for note in finding.notes), finding.notes


def test_shallow_chain_says_nothing(make_tree) -> None:  # type: ignore[no-untyped-def]
    root = _tree(make_tree, "p3()")
    analysis = analyse([root], load_ruleset([root / "rules.yaml"]))
    assert not [d for d in analysis.project.diagnostics if d.code == BOUND_HIT]
    (finding,) = analysis.findings
    assert not any("bound" in note for note in finding.notes)
