"""`check` over fixture mini-projects and the CLI contract (exit codes, output)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.config.model import RuleSet
from gatecheck.engine import analyse
from tests.conftest import FAST_THING_RULE, FIXTURES


def _summary(root: Path, ruleset: RuleSet) -> list[tuple[str, int, str]]:
    analysis = analyse([root], ruleset)
    return [
        (f.path.relative_to(root).as_posix(), f.start.line, f.culprit) for f in analysis.findings
    ]


@pytest.mark.parametrize("variant", ["seed_alias", "seed_utils_only"])
def test_seed_fixture_has_both_gates(variant: str, ruleset: RuleSet) -> None:
    summary = _summary(FIXTURES / variant, ruleset)
    assert [(path, culprit) for path, _line, culprit in summary] == [
        ("sglang/srt/layers/communicator.py", "_is_sm90_supported or _is_sm100_supported"),
        ("sglang/srt/server_args.py", "is_sm90_supported() or is_sm100_supported()"),
    ]


def test_defined_but_unused_note(ruleset: RuleSet) -> None:
    analysis = analyse([FIXTURES / "seed_alias"], ruleset)
    communicator = next(f for f in analysis.findings if f.path.name == "communicator.py")
    assert any("'_is_sm120_supported' is already defined" in n for n in communicator.notes)
    server_args = next(f for f in analysis.findings if f.path.name == "server_args.py")
    assert any("'is_sm120_supported' is already imported" in n for n in server_args.notes)


def test_utils_only_variant_has_no_local_predicate_note(ruleset: RuleSet) -> None:
    analysis = analyse([FIXTURES / "seed_utils_only"], ruleset)
    assert all(not f.notes for f in analysis.findings)


SERVER = """
import torch

class Args:
    enable_fast_thing: bool = False

    def adjust(self):
        major, minor = torch.cuda.get_device_capability()
        {gate}
"""
RULE = FAST_THING_RULE


@pytest.mark.parametrize(
    ("gate", "findings"),
    [
        pytest.param(
            "if major in (9, 10):\n            self.enable_fast_thing = True",
            1,
            id="enable-allowlist",
        ),
        pytest.param(
            "if major in (9, 10, 12):\n            self.enable_fast_thing = True", 0, id="enable-ok"
        ),
        pytest.param(
            "if major >= 9:\n            self.enable_fast_thing = True", 0, id="enable-range-ok"
        ),
        pytest.param(
            "if major == 12:\n            self.enable_fast_thing = False", 1, id="disable-on-sm120"
        ),
        pytest.param(
            "if major < 9:\n            self.enable_fast_thing = False", 0, id="disable-old-ok"
        ),
        pytest.param(
            "if self.enable_fast_thing and major not in (9, 10):\n            raise ValueError('unsupported')",
            1,
            id="raise-when-requested",
        ),
        # The feature being on skips this code: the feature's switch, not its gate.
        pytest.param(
            "if self.enable_fast_thing or major not in (9, 10):\n            return",
            0,
            id="skipped-when-on",
        ),
        pytest.param(
            "if self.enable_fast_thing is not None or major < 9:\n            return None",
            0,
            id="skipped-when-set",
        ),
        pytest.param(
            "if not self.enable_fast_thing or major not in (9, 10):\n            return",
            1,
            id="bail-out-when-off-or-old",
        ),
        pytest.param("self.enable_fast_thing = major == 9 and minor == 0", 1, id="flag-value"),
        pytest.param(
            "if major < 9:\n            pass\n        else:\n            self.enable_fast_thing = True",
            0,
            id="else-branch-ok",
        ),
        pytest.param(
            "if major == 9:\n            pass\n        else:\n            self.enable_fast_thing = True",
            1,
            id="else-branch-excludes-sm90",
        ),
        pytest.param(
            "if major != 9:\n            return\n        self.enable_fast_thing = True",
            1,
            id="early-exit",
        ),
        pytest.param(
            "if torch.version.cuda:\n            self.enable_fast_thing = True", 0, id="not-a-gate"
        ),
        # A dict of the settings, keyed by the flag's name (SGLang's
        # global_server_args_dict before 0.5.4): read and written like the field.
        pytest.param(
            "if major == 10 and SETTINGS['enable_fast_thing']:\n            fuse()",
            1,
            id="read-from-a-settings-dict",
        ),
        pytest.param(
            "if major == 10 and SETTINGS.get('enable_fast_thing'):\n            fuse()",
            1,
            id="got-from-a-settings-dict",
        ),
        pytest.param(
            "if major in (9, 10):\n            SETTINGS['enable_fast_thing'] = True",
            1,
            id="written-into-a-settings-dict",
        ),
        pytest.param(
            "if major == 10 and SETTINGS['enable_other_thing']:\n            fuse()",
            0,
            id="another-key-of-the-dict",
        ),
    ],
)
def test_gate_shapes(make_tree, gate: str, findings: int) -> None:  # type: ignore[no-untyped-def]
    root = make_tree(
        {"pkg/__init__.py": "", "pkg/args.py": SERVER.replace("{gate}", gate), "rules.yaml": RULE}
    )
    result = CliRunner().invoke(
        cli, ["check", str(root), "--rules", str(root / "rules.yaml"), "--format", "json"]
    )
    assert result.exit_code == (1 if findings else 0), result.output
    assert len(json.loads(result.output)["findings"]) == findings


def test_cli_exit_codes_and_formats() -> None:
    runner = CliRunner()
    target = str(FIXTURES / "seed_alias")
    assert runner.invoke(cli, ["check", target]).exit_code == 1
    assert runner.invoke(cli, ["check", target, "--exit-zero"]).exit_code == 0
    assert runner.invoke(cli, ["check", target, "--generation", "sm100"]).exit_code == 0
    bad = runner.invoke(cli, ["check", target, "--generation", "sm12"])
    assert bad.exit_code == 2 and "unknown generation 'sm12'" in bad.output
    missing = runner.invoke(cli, ["check", target, "--rules", "/nonexistent/rules.yaml"])
    assert missing.exit_code == 2
    assert "Traceback" not in missing.output
    concise = runner.invoke(cli, ["check", target, "--format", "concise"])
    lines = concise.output.strip().splitlines()
    assert len(lines) == 2 and all(
        ": GC001 [flashinfer-allreduce-fusion]" in line for line in lines
    )


def test_text_output_has_frame_and_note() -> None:
    result = CliRunner().invoke(cli, ["check", str(FIXTURES / "seed_alias")])
    assert "(_is_sm90_supported or _is_sm100_supported)" in result.output
    assert "^^^^" in result.output
    assert "already imported in this module" in result.output
    assert "2 findings" in result.output


def test_columns_are_code_points_on_non_ascii_lines(make_tree) -> None:  # type: ignore[no-untyped-def]
    # "é" is two UTF-8 bytes: astroid's byte offset 30 is code point 29 (1-based 30).
    gate = "self.enable_fast_thing = minor != 'é' and major in (9, 10)"
    source = SERVER.replace("{gate}", gate)
    root = make_tree({"pkg/__init__.py": "", "pkg/args.py": source, "rules.yaml": RULE})
    result = CliRunner().invoke(
        cli, ["check", str(root), "--rules", str(root / "rules.yaml"), "--format", "json"]
    )
    finding = json.loads(result.output)["findings"][0]
    line = source.splitlines()[finding["start"]["line"] - 1]
    assert line[finding["start"]["column"] - 1 :].startswith("major in (9, 10)")
    text = CliRunner().invoke(cli, ["check", str(root), "--rules", str(root / "rules.yaml")]).output
    assert f":{finding['start']['line']}:{finding['start']['column']}:" in text
    marker = next(row for row in text.splitlines() if "^^^" in row)
    code = next(row for row in text.splitlines() if "major in (9, 10)" in row and "|" in row)
    assert marker.index("^") == code.index("major in (9, 10)")
