"""Bad rule files through the command line (issue #8): `gatecheck check <fixture> --rules
<bad>` exits 2 with exactly one `file:line:col: message` line per error on stderr, nothing
on stdout and never a traceback -- in-process (click's CliRunner) and as a real
`python -m gatecheck` subprocess. tests/test_config.py covers the loader's messages in
detail; this module covers the contract a user sees."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.config.loader import load_ruleset
from gatecheck.config.model import ConfigErrors
from tests.conftest import FIXTURES, REPO

ERROR_LINE = re.compile(r"^.+:\d+:\d+: .+$")
FIXTURE = FIXTURES / "seed_alias"

GOOD_FEATURE = """\
features:
  - id: demo
    description: d
    flags: [enable_demo]
    require: [sm90]
"""


def _nested_aliases(levels: int) -> str:
    """A few hundred bytes that expand to 9**levels values ("billion laughs")."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + f"\nfeatures: [*a{levels}]\n"


@dataclass(frozen=True)
class Case:
    """Files to write (relative path -> text or bytes), the words each error line must
    contain, in order (one line per error), and the --rules arguments."""

    files: dict[str, str | bytes]
    messages: tuple[str, ...]
    rules: tuple[str, ...] = ("rules.yaml",)


def _one(content: str | bytes, *messages: str) -> Case:
    return Case({"rules.yaml": content}, messages)


CASES = [
    pytest.param(
        _one("features:\n  - id: demo\n    description: a: b\n", "3:19: invalid YAML"),
        id="yaml-syntax-error",
    ),
    pytest.param(
        _one("features: [ {id: demo\n", "invalid YAML: while parsing a flow mapping"),
        id="yaml-unclosed-bracket",
    ),
    pytest.param(
        _one("features:\n\t- id: demo\n", "2:1: invalid YAML: while scanning for the next token"),
        id="yaml-tab-indent",
    ),
    pytest.param(
        _one(
            "features:\n  - id: demo\n---\nfeatures: []\n",
            "3:1: invalid YAML: expected a single document",
        ),
        id="yaml-two-documents",
    ),
    pytest.param(
        _one("features:\n  - id: 'demo\n", "invalid YAML: while scanning a quoted scalar"),
        id="yaml-unclosed-quote",
    ),
    pytest.param(
        _one("feature:\n  - id: demo\n", "1:1: unknown key 'feature'; did you mean 'features'?"),
        id="unknown-top-level-key",
    ),
    pytest.param(
        _one(
            GOOD_FEATURE + "    requires: [sm100]\n",
            "6:5: unknown key 'requires'; did you mean 'require'?",
        ),
        id="unknown-feature-key",
    ),
    pytest.param(
        _one(
            GOOD_FEATURE + "    gate_function: [pkg.mod.f]\n",
            "6:5: unknown key 'gate_function'; did you mean 'gate_functions'?",
        ),
        id="unknown-key-gate-function",
    ),
    pytest.param(
        _one(
            GOOD_FEATURE.replace("require: [sm90]", "require: sm90"),
            "5:14: expected a list for 'require', got a string",
        ),
        id="wrong-type-require-string",
    ),
    pytest.param(
        _one(
            GOOD_FEATURE.replace("flags: [enable_demo]", "flags: 5"),
            "4:12: expected a list for 'flags', got an integer",
        ),
        id="wrong-type-flags-int",
    ),
    pytest.param(
        _one(
            GOOD_FEATURE + "    exclude: [sm121]\n",
            "6:14: expected a mapping for 'exclude', got a list",
        ),
        id="wrong-type-exclude-list",
    ),
    pytest.param(
        _one(
            GOOD_FEATURE.replace("description: d", "description: [d]"),
            "3:18: expected a string for 'description', got a list",
        ),
        id="wrong-type-description-list",
    ),
    pytest.param(
        _one(
            GOOD_FEATURE.replace("[sm90]", "[sm90, sm12]"),
            "5:21: unknown generation 'sm12'; did you mean 'sm120'?",
        ),
        id="unknown-generation",
    ),
    pytest.param(
        _one(
            GOOD_FEATURE.replace("[sm90]", "[hopper]"),
            "5:15: unknown generation 'hopper'",
        ),
        id="unknown-generation-family-name",
    ),
    pytest.param(
        _one(
            GOOD_FEATURE + "    exclude: {sm_121: too new}\n",
            "6:15: unknown generation 'sm_121'; did you mean 'sm121'?",
        ),
        id="unknown-excluded-generation",
    ),
    pytest.param(
        _one(
            GOOD_FEATURE + GOOD_FEATURE.removeprefix("features:\n"),
            "6:9: duplicate feature id 'demo' (first defined at ",
        ),
        id="duplicate-feature-id",
    ),
    pytest.param(
        Case(
            {"rules/a.yaml": GOOD_FEATURE, "rules/b.yaml": GOOD_FEATURE},
            ("b.yaml:2:9: duplicate feature id 'demo' (first defined at ",),
            rules=("rules",),
        ),
        id="duplicate-feature-id-across-files",
    ),
    pytest.param(
        _one(
            GOOD_FEATURE + "    require: [sm100]\n",
            "6:5: duplicate key 'require' (first at line 5)",
        ),
        id="duplicate-key",
    ),
    pytest.param(_one("", "1:1: empty rule file"), id="empty-file"),
    pytest.param(_one("# todo\n\n# later\n", "1:1: empty rule file"), id="comments-only"),
    pytest.param(_one("---\n", "1:1: empty rule file"), id="empty-document"),
    pytest.param(
        _one("- id: demo\n", "1:1: expected a mapping at the top level, got a list"),
        id="top-level-list",
    ),
    pytest.param(
        _one("hello\n", "1:1: expected a mapping at the top level, got a string"),
        id="top-level-scalar",
    ),
    pytest.param(
        Case(
            {"rules/a.yaml": GOOD_FEATURE, "rules/notes.txt": "todo\n"},
            ("notes.txt:1:1: not a rule file: expected .yaml or .yml",),
            rules=("rules",),
        ),
        id="rules-folder-with-non-yaml-file",
    ),
    pytest.param(
        Case(
            {"rules/notes.txt": "todo\n", "rules/script.py": "x = 1\n"},
            (
                "rules:1:1: no rule files (*.yaml, *.yml) in directory",
                "notes.txt:1:1: not a rule file",
                "script.py:1:1: not a rule file",
            ),
            rules=("rules",),
        ),
        id="rules-folder-without-yaml",
    ),
    pytest.param(
        Case({}, ("missing.yaml:1:1: no such file or directory",), rules=("missing.yaml",)),
        id="missing-rules-file",
    ),
    pytest.param(
        _one(b"features:\n  - id: caf\xe9\n", "1:1: not valid UTF-8: byte 0xe9"),
        id="not-utf8",
    ),
    pytest.param(
        _one(b"\x89PNG\r\n\x1a\n\x00\x00", "1:1: not valid UTF-8: byte 0x89"),
        id="binary-file",
    ),
    pytest.param(
        _one(
            "features:\n  - !!python/object/apply:os.system ['touch {marker}']\n",
            "2:5: unsupported YAML tag '!!python/object/apply:os.system'",
        ),
        id="python-object-apply-tag",
    ),
    pytest.param(
        _one(
            "features: !!python/name:os.system\n",
            "1:11: unsupported YAML tag '!!python/name:os.system'",
        ),
        id="python-name-tag",
    ),
    pytest.param(
        _one("features:\n  - !include other.yaml\n", "2:5: unsupported YAML tag '!include'"),
        id="custom-tag",
    ),
    pytest.param(
        _one(
            GOOD_FEATURE + "    <<: {kernels: [k.gen]}\n",
            "6:5: merge keys ('<<') are not supported",
        ),
        id="merge-key",
    ),
    pytest.param(
        _one(
            "features:\n  - description: d\n    flags: [f]\n    require: [sm90]\n",
            "2:5: feature is missing required key 'id'",
        ),
        id="missing-id",
    ),
    pytest.param(
        _one(
            GOOD_FEATURE.replace("    flags: [enable_demo]\n", ""),
            "2:5: feature 'demo' needs at least one of 'flags' or 'gate_functions'",
        ),
        id="no-flags-nor-gate-functions",
    ),
    pytest.param(
        _one(
            "generations:\n  - {name: sm90, vendor: nvidia, capability: [9, 0], family: Hopper}\n",
            "2:12: duplicate generation 'sm90' (first defined at ",
        ),
        id="generation-name-clash",
    ),
    pytest.param(
        _one(_nested_aliases(11), "1:1: YAML aliases expand to more than 100,000 values"),
        id="billion-laughs",
    ),
    pytest.param(
        _one(
            "features: " + "[" * 200 + "]" * 200 + "\n",
            "1:1: nested deeper than 64 levels",
        ),
        id="deeply-nested-yaml",
    ),
    pytest.param(
        _one("a: &a [*a]\nfeatures: *a\n", "1:1: unknown key 'a'", "1:4: recursive YAML alias"),
        id="recursive-alias",
    ),
    pytest.param(
        _one(
            "features:\n"
            "  - id: Demo\n"
            "    description: d\n"
            "    flags: [f, 'not ok']\n"
            "    require: [sm90, sm12]\n",
            "2:9: invalid value 'Demo' for 'id'",
            "4:16: invalid value 'not ok' for item 2 of 'flags'",
            "5:21: unknown generation 'sm12'",
        ),
        id="several-errors-one-line-each",
    ),
]


def _setup(tmp_path: Path, case: Case) -> tuple[list[str], Path]:
    marker = tmp_path / "marker"
    for rel, content in case.files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content.replace("{marker}", str(marker)), encoding="utf-8")
    rules = [arg for rule in case.rules for arg in ("--rules", str(tmp_path / rule))]
    return ["check", str(FIXTURE), *rules], marker


def _assert_contract(code: int, stdout: str, stderr: str, case: Case, marker: Path) -> None:
    assert code == 2, (stdout, stderr)
    assert "Traceback" not in stderr + stdout
    assert stdout == ""
    lines = stderr.splitlines()
    assert len(lines) == len(case.messages), lines
    for line, message in zip(lines, case.messages, strict=True):
        assert ERROR_LINE.match(line), line
        assert message in line, line
    assert not marker.exists()


@pytest.mark.parametrize("case", CASES)
def test_bad_rules_in_process(tmp_path: Path, case: Case) -> None:
    args, marker = _setup(tmp_path, case)

    result = CliRunner().invoke(cli, args)

    assert result.exception is None or isinstance(result.exception, SystemExit)
    _assert_contract(result.exit_code, result.stdout, result.stderr, case, marker)


@pytest.mark.parametrize("case", CASES)
def test_bad_rules_in_a_subprocess(tmp_path: Path, case: Case) -> None:
    args, marker = _setup(tmp_path, case)
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    result = subprocess.run(
        [sys.executable, "-m", "gatecheck", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )

    _assert_contract(result.returncode, result.stdout, result.stderr, case, marker)


@pytest.mark.parametrize(
    "content",
    [
        pytest.param("features: " + "[" * 3000 + "]" * 3000 + "\n", id="flow"),
        pytest.param("features:\n" + "".join("  " * i + "-\n" for i in range(1, 1500)), id="block"),
    ],
)
@pytest.mark.usefixtures("default_recursion_limit")
def test_deep_yaml_at_the_default_recursion_limit(tmp_path: Path, content: str) -> None:
    """Library use keeps Python's default recursion limit: PyYAML's recursive composer
    fails, and that is a config error, not a RecursionError."""
    path = tmp_path / "rules.yaml"
    path.write_text(content)

    with pytest.raises(ConfigErrors) as raised:
        load_ruleset([path])

    [error] = raised.value.errors
    assert "nested" in error.message


def test_case_count() -> None:
    # The issue asks for at least 20 bad rule files through the CLI.
    assert len(CASES) >= 20


def test_good_rule_file_still_loads(tmp_path: Path) -> None:
    """The bar is not "everything fails": the shape every case breaks is valid."""
    path = tmp_path / "rules.yaml"
    path.write_text(GOOD_FEATURE)

    result = CliRunner().invoke(cli, ["check", str(FIXTURE), "--rules", str(path)])

    assert result.exit_code == 0, result.output
