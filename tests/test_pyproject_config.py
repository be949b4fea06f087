"""`[tool.gatecheck]` in the nearest pyproject.toml, flags on top, `gatecheck config show`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.config.pyproject import _key_positions, find_pyproject
from tests.conftest import FAST_THING_RULE, write_tree

RULE = FAST_THING_RULE

ARGS = """
import torch


class Args:
    enable_fast_thing: bool = False

    def adjust(self):
        major, minor = torch.cuda.get_device_capability()
        if major in (9, 10):
            self.enable_fast_thing = True
"""


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = write_tree(
        tmp_path / "proj",
        {
            "pkg/__init__.py": "",
            "pkg/args.py": ARGS,
            "tests/test_args.py": ARGS,
            "config/rules.yaml": RULE,
        },
    )
    monkeypatch.chdir(root)
    return root


def pyproject(root: Path, body: str) -> None:
    (root / "pyproject.toml").write_text(body, encoding="utf-8")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def findings(*args: str) -> list[str]:
    code, output = run("check", *args, "--format", "json")
    assert code in (0, 1), output
    return sorted(f"{f['path']}:{f['rule']}" for f in json.loads(output)["findings"])


BOTH = ["pkg/args.py:GC001", "tests/test_args.py:GC001"]


def test_rules_from_pyproject_relative_to_it(proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pyproject(proj, '[tool.gatecheck]\nrules = ["config/rules.yaml"]\n')
    assert findings(".") == BOTH
    # From a sub-folder the same pyproject is found, and its rules path still resolves.
    monkeypatch.chdir(proj / "pkg")
    assert sorted(f.rsplit("/", 1)[-1] for f in findings(str(proj))) == [
        "args.py:GC001",
        "test_args.py:GC001",
    ]


def test_pyproject_without_the_table_does_not_stop_the_search(proj: Path) -> None:
    pyproject(proj, '[tool.gatecheck]\nrules = ["config/rules.yaml"]\n')
    (proj / "pkg" / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    assert find_pyproject(proj / "pkg") == (proj / "pyproject.toml").resolve()


def test_no_pyproject_means_defaults(proj: Path) -> None:
    # The shipped rules know nothing of fast-thing: nothing to report, and no error.
    code, output = run("check", ".")
    assert code == 0, output


def test_flags_override_pyproject(proj: Path) -> None:
    pyproject(proj, '[tool.gatecheck]\nrules = ["config/rules.yaml"]\ngenerations = ["sm90"]\n')
    assert findings(".") == []
    assert findings(".", "--generation", "sm120") == BOTH
    code, output = run("check", ".", "--rules", "missing.yaml")
    assert code == 2 and "no such file or directory" in output


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        pytest.param('select = ["GC101"]', [], id="select-rule"),
        pytest.param('select = ["fast-thing"]', BOTH, id="select-feature"),
        pytest.param('ignore = ["fast-thing"]', [], id="ignore-feature"),
        pytest.param('ignore = ["gate-excludes-required-generation"]', [], id="ignore-rule-name"),
        pytest.param('exclude = ["tests"]', ["pkg/args.py:GC001"], id="exclude"),
        pytest.param(
            '[tool.gatecheck.per-file-ignores]\n"tests/*" = ["GC001"]',
            ["pkg/args.py:GC001"],
            id="per-file-ignores",
        ),
        pytest.param(
            'per-file-ignores = {"pkg/*.py" = ["fast-thing"]}',
            ["tests/test_args.py:GC001"],
            id="per-file-ignores-inline",
        ),
    ],
)
def test_selection(proj: Path, table: str, expected: list[str]) -> None:
    pyproject(proj, f'[tool.gatecheck]\nrules = ["config/rules.yaml"]\n{table}\n')
    assert findings(".") == expected


def test_cli_select_and_ignore(proj: Path) -> None:
    pyproject(proj, '[tool.gatecheck]\nrules = ["config/rules.yaml"]\nignore = ["GC001"]\n')
    assert findings(".") == []
    assert findings(".", "--ignore", "GC102") == BOTH
    code, output = run("check", ".", "--select", "GC00l")
    assert code == 2 and "unknown rule or feature id 'GC00l'" in output


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param(
            '[tool.gatecheck]\nrules = ["config/rules.yaml"]\nexclud = ["x"]\n',
            "pyproject.toml:3:1: unknown key 'exclud' in [tool.gatecheck] (did you mean 'exclude'?)",
            id="unknown-key",
        ),
        pytest.param(
            '[tool.gatecheck]\nselect = "GC001"\n',
            "pyproject.toml:2:1: 'select' must be a list of strings",
            id="wrong-type",
        ),
        pytest.param(
            '[tool.gatecheck]\nrules = ["nope.yaml"]\n',
            "pyproject.toml:2:1: rules path 'nope.yaml' does not exist",
            id="missing-rules",
        ),
        pytest.param(
            '[tool.gatecheck]\ngenerations = ["sm12"]\n',
            "pyproject.toml:2:1: unknown generation 'sm12'",
            id="unknown-generation",
        ),
        pytest.param(
            '[tool.gatecheck]\n\n  ignore = ["nothing-like-this"]\n',
            "pyproject.toml:3:3: unknown rule or feature id 'nothing-like-this'",
            id="unknown-id",
        ),
        pytest.param(
            '[tool.gatecheck.per-file-ignores]\n"tests/*" = "GC001"\n',
            "pyproject.toml:2:1: 'per-file-ignores' entry 'tests/*' must be a list of strings",
            id="per-file-wrong-type",
        ),
        pytest.param(
            "[tool.gatecheck]\nrules = [\n", "pyproject.toml:3:1: invalid TOML", id="invalid-toml"
        ),
        pytest.param(
            "[tool]\ngatecheck.colour = 1\n",
            "pyproject.toml:2:1: unknown key 'colour'",
            id="dotted-key",
        ),
    ],
)
def test_invalid_pyproject_is_reported_at_the_line(proj: Path, body: str, message: str) -> None:
    pyproject(proj, body)
    code, output = run("check", ".")
    assert code == 2
    assert message in output, output
    assert "Traceback" not in output


def test_every_problem_is_reported_at_once(proj: Path) -> None:
    pyproject(proj, '[tool.gatecheck]\nfoo = 1\nbar = 2\nrules = "x"\n')
    code, output = run("check", ".")
    assert code == 2
    assert [line.split(": ")[0] for line in output.splitlines()] == [
        "pyproject.toml:2:1",
        "pyproject.toml:3:1",
        "pyproject.toml:4:1",
    ]


def test_config_show_names_each_origin(proj: Path) -> None:
    pyproject(
        proj, '[tool.gatecheck]\nrules = ["config/rules.yaml"]\ngenerations = ["sm90", "sm120"]\n'
    )
    code, output = run("config", "show", "--ignore", "GC102")
    assert code == 0, output
    lines = {line.split(" = ")[0]: line for line in output.splitlines() if " = " in line}
    assert f"# config file: {(proj / 'pyproject.toml').resolve()}" in output
    assert lines["rules"].endswith("# pyproject.toml:2:1")
    assert str(proj / "config" / "rules.yaml") in lines["rules"]
    assert lines["generations"] == 'generations = ["sm90", "sm120"]  # pyproject.toml:3:1'
    assert lines["ignore"] == 'ignore = ["GC102"]  # --ignore'
    assert lines["select"].startswith("select = []  # default")


def test_config_show_without_pyproject(proj: Path) -> None:
    code, output = run("config", "show")
    assert code == 0
    assert "[tool.gatecheck] not found" in output
    assert "default: the shipped rules" in output


def test_key_positions() -> None:
    text = '[tool.gatecheck]\nrules = ["a"]\nper-file-ignores = { "t/*" = ["x"] }\n[tool."gatecheck".sub]\nk=1\n'
    positions = _key_positions(text)
    assert positions[("tool", "gatecheck")] == (1, 1)
    assert positions[("tool", "gatecheck", "rules")] == (2, 1)
    assert positions[("tool", "gatecheck", "per-file-ignores", "t/*")] == (3, 22)
    assert positions[("tool", "gatecheck", "sub", "k")] == (5, 1)


def test_readme_configuration_example_is_valid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = readme.split("```toml\n", 1)[1].split("```", 1)[0]
    write_tree(tmp_path, {"gatecheck-rules/rules.yaml": RULE, "pyproject.toml": block})
    monkeypatch.chdir(tmp_path)
    code, output = run("config", "show")
    assert code == 0, output
    assert '"tests/*" = ["GC001"]' in output


# --- hostile and broken pyproject files (issue #15) -------------------------------------------

_POSITIONS_OF = """\
import sys
from gatecheck.config.pyproject import _key_positions
text = sys.stdin.read()
print(sorted((".".join(k), v) for k, v in _key_positions(text).items()))
"""


def _positions_in_a_subprocess(text: str) -> str:
    """A hang guard (the regex scan took 390 s on 8 KB): a timeout fails the test where
    in-process it would stall the whole run."""
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", _POSITIONS_OF],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            '[tool.gatecheck]\nnote = """\n[' + " " * 60_000 + ']x\n"""\nrules = []\n',
            "[('tool', (1, 1)), ('tool.gatecheck', (1, 1)), ('tool.gatecheck.note', (2, 1)), "
            "('tool.gatecheck.rules', (5, 1))]",
            id="header-look-alike-in-a-multi-line-string",
        ),
        pytest.param(
            "[tool.gatecheck]\nper-file-ignores = { " + "w" * 64_000 + ' = ["x"] }\n',
            f"[('tool', (1, 1)), ('tool.gatecheck', (1, 1)), ('tool.gatecheck.per-file-ignores', "
            f"(2, 1)), ('tool.gatecheck.per-file-ignores.{'w' * 64_000}', (2, 22))]",
            id="long-word-in-an-inline-table",
        ),
        pytest.param(
            "[tool.gatecheck]\nexclude = [" + '"a", ' * 20_000 + "]\n",
            "[('tool', (1, 1)), ('tool.gatecheck', (1, 1)), ('tool.gatecheck.exclude', (2, 1))]",
            id="long-array",
        ),
    ],
)
def test_key_positions_are_found_in_one_pass(text: str, expected: str) -> None:
    assert _positions_in_a_subprocess(text) == expected.replace("('tool', (1, 1)), ", "")


def test_key_positions_in_odd_but_valid_toml() -> None:
    text = (
        "[[tool.other]]\n"
        "a = 1  # comment with = and [brackets]\n"
        "[tool . 'gatecheck']\n"
        '"quoted.key" = "value with # and ="\n'
        "d.e = { f = [1, { g = 2 }], h = '''\nmulti\n'''}\n"
        "rules = []\n"
    )
    positions = _key_positions(text)
    assert positions[("tool", "other", "a")] == (2, 1)
    assert positions[("tool", "gatecheck")] == (3, 1)
    assert positions[("tool", "gatecheck", "quoted.key")] == (4, 1)
    assert positions[("tool", "gatecheck", "d", "e", "f")] == (5, 9)
    assert positions[("tool", "gatecheck", "d", "e", "h")] == (5, 29)
    assert positions[("tool", "gatecheck", "rules")] == (8, 1)
    assert ("tool", "gatecheck", "d", "e", "g") not in positions


def test_a_pyproject_that_is_not_utf8_is_an_error_not_absent(proj: Path) -> None:
    """A latin-1 byte made the file count as absent: `config show` said "not found" and
    `exclude` was silently dropped."""
    (proj / "pyproject.toml").write_bytes(b'[tool.gatecheck]\nexclude = ["caf\xe9/*"]\n')

    for command in (["config", "show"], ["check", "."]):
        code, output = run(*command)
        assert code == 2, output
        assert output == "pyproject.toml:2:16: not valid UTF-8 (TOML must be): byte 0xe9\n"


def test_a_pyproject_the_user_cannot_read_is_an_error() -> None:
    from tests.unprivileged import gatecheck_as_nobody, give_to_nobody, world_folder

    base = world_folder()
    (base / "pyproject.toml").write_text('[tool.gatecheck]\nexclude = ["tests/*"]\n')
    give_to_nobody(base)
    (base / "pyproject.toml").chmod(0o000)

    result = gatecheck_as_nobody(["config", "show"], base)

    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr == "pyproject.toml:1:1: cannot read: Permission denied\n"
