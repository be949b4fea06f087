"""A bound hit while evaluating a gate condition is said (#15 item 17): a dropped gate
becomes a GC901 diagnostic, a reported one carries a note, never a silent "0 gates"."""

from __future__ import annotations

from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.config.loader import load_ruleset
from gatecheck.containment import BOUND_HIT
from gatecheck.engine import analyse
from gatecheck.semantics import bounds
from tests.conftest import FAST_THING_RULE

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
RULE = FAST_THING_RULE


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


def test_audit_says_it_too(make_tree) -> None:  # type: ignore[no-untyped-def]
    """The audit reads every condition without rules: one cut short by a bound is the
    same GC901 there, not a row dropped in silence."""
    from gatecheck.audit.run import run_audit

    # The audit reads only files that spell an arch idiom (its text prefilter).
    files = {
        "pkg/__init__.py": "",
        "pkg/chain.py": CHAIN,
        "pkg/args.py": "# the capability is read deep inside\n"
        + ARGS.format(depth=DEPTH, gate=f"p{DEPTH}()"),
        "rules.yaml": RULE,
    }
    root = make_tree(files)
    report = run_audit([root], load_ruleset([root / "rules.yaml"]), "sm120")
    hits = [d for d in report.diagnostics if d.code == BOUND_HIT]
    assert [(d.path.name, d.line) for d in hits] == [("args.py", 10)]
    assert "whether it is an architecture gate is unknown" in hits[0].message
