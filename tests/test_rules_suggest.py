"""`gatecheck rules suggest`: the audit turned into a rule skeleton that loads."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

from click.testing import CliRunner

from gatecheck.audit import run_audit
from gatecheck.cli import cli
from gatecheck.config.loader import load_ruleset
from gatecheck.suggest import render_suggestion
from tests.conftest import FIXTURES

MakeTree = Callable[[Mapping[str, str]], Path]

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/utils.py": """\
        import torch


        def is_sm90_supported():
            return torch.cuda.get_device_capability()[0] == 9


        def is_sm100_supported():
            return torch.cuda.get_device_capability()[0] == 10
        """,
    "pkg/args.py": """\
        from pkg.utils import is_sm90_supported, is_sm100_supported


        class Args:
            def post_init(self):
                if is_sm90_supported() or is_sm100_supported():
                    self.enable_fused_moe = True
                if is_sm100_supported():
                    self.use_tcgen05 = True
                # gatecheck: ignore[fp8] sm120 has no FP8 block-scale kernel here
                if is_sm90_supported() or is_sm100_supported():
                    self.enable_fp8_blockscale = True


        if is_sm90_supported() or is_sm100_supported():
            KERNELS = ["wgmma"]
        """,
}


def load_text(text: str, tmp_path: Path) -> dict[str, tuple[frozenset[str], dict[str, str]]]:
    target = tmp_path / "suggested.yaml"
    target.write_text(text, encoding="utf-8")
    loaded = load_ruleset([target])
    return {f.id: (f.require, dict(f.exclude)) for f in loaded.features}


def test_round_trip_on_a_project_without_rules(make_tree: MakeTree, tmp_path: Path) -> None:
    root = make_tree(PROJECT)
    ruleset = load_ruleset([])
    report = run_audit([root], ruleset, "sm120")
    text = render_suggestion(report, ruleset, root)
    features = load_text(text, tmp_path)
    assert features == {
        # likely gap: what its gate admits today, plus sm120.
        "enable_fused_moe": (frozenset({"sm90", "sm100", "sm103", "sm120"}), {}),
        # probably deliberate: what it admits today; the exclusion is left for a human.
        "use_tcgen05": (frozenset({"sm100", "sm103"}), {}),
        # decided inline: the reason goes into the ledger.
        "enable_fp8_blockscale": (
            frozenset({"sm90", "sm100", "sm103"}),
            {"sm120": "suppressed inline (line 10): sm120 has no FP8 block-scale kernel here"},
        ),
    }
    assert '# exclude: {sm120: "<why sm120 is left out>"}' in text
    # A module-level gate has no flag or function to anchor a rule: written commented out.
    assert "  # - id: pkg.args\n" in text
    assert "left commented out: no flag or gate function" in text
    assert "  #   likely gap: pkg/args.py:6 admits sm90, sm100, sm103\n" in text


def test_round_trip_keeps_rule_features(tmp_path: Path) -> None:
    seed = FIXTURES / "seed_alias"
    ruleset = load_ruleset(None)
    report = run_audit([seed], ruleset, "sm120")
    text = render_suggestion(report, ruleset, seed)
    features = load_text(text, tmp_path)
    assert features["flashinfer-allreduce-fusion"] == (
        frozenset({"sm90", "sm100", "sm103", "sm120"}),
        {},
    )
    assert "require: [sm90, sm100, sm103, sm120]  # sm120: likely gap, added by the audit" in text


def test_cli_writes_the_file(make_tree: MakeTree, tmp_path: Path) -> None:
    root = make_tree(PROJECT)
    target = tmp_path / "rules.yaml"
    args = ["rules", "suggest", str(root), "--generation", "sm120", "--output", str(target)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "enable_fused_moe" in load_text(target.read_text(encoding="utf-8"), tmp_path)


def test_suggestion_is_stable_text(make_tree: MakeTree) -> None:
    root = make_tree(PROJECT)
    ruleset = load_ruleset([])
    first = render_suggestion(run_audit([root], ruleset, "sm120"), ruleset, root)
    again = render_suggestion(run_audit([root], ruleset, "sm120"), ruleset, root)
    assert first == again
    assert textwrap.dedent(first) == first


def test_rules_validate_lists_shipped_features_and_reports_bad_files(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gatecheck.cli import cli

    ok = CliRunner().invoke(cli, ["rules", "validate"])
    assert (
        ok.exit_code == 0
        and "flashinfer-allreduce-fusion: requires sm90, sm100, sm120" in ok.output
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "features:\n  - id: x\n    description: y\n    flags: [f]\n    require: [sm12]\n"
    )
    result = CliRunner().invoke(cli, ["rules", "validate", str(bad)])
    assert result.exit_code == 2
    assert f"{bad}:5:15: unknown generation 'sm12'" in result.output
