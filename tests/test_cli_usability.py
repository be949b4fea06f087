"""The CLI as a ruff / semgrep / pre-commit user tries it (#16, and #15.7, 21, 22, 24):
each numbered problem of issue 16 reproduced here, through the real command line."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.reporting.github import escape_property
from tests.conftest import FAST_THING_RULE, FIXTURES, REPO, corpus_package, write_tree

SEED = FIXTURES / "seed_alias"
ESC = "\x1b"

RULES = FAST_THING_RULE
# A gate that excludes sm120, with hostile text in its condition.
GATE = (
    "import torch\n"
    "\n"
    "def adjust(cfg):\n"
    "    major, _ = torch.cuda.get_device_capability()\n"
    f'    if major in (9, 10) and cfg.mode != "{ESC}[31m:smile:[/]:100:[bold]":\n'
    "        cfg.enable_fast_thing = True\n"
)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def project(root: Path, name: str = "args.py", pyproject: bool = True) -> Path:
    files = {"rules.yaml": RULES}
    if pyproject:
        files["pyproject.toml"] = '[tool.gatecheck]\nrules = ["rules.yaml"]\n'
    write_tree(root, files)
    (root / "pkg").mkdir(parents=True, exist_ok=True)
    (root / "pkg" / name).write_text(GATE, encoding="utf-8")
    return root


# --- 1. audit output in pipes and CI logs ----------------------------------------------------


def test_audit_piped_is_one_line_per_gate_paths_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    code, out, _ = invoke("audit", str(SEED), "--generation", "sm120")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 10  # 6 gates (3 of them the predicates' bindings), 3 vendor, summary
    assert lines[0] == (
        "fixtures/seed_alias/sglang/srt/layers/communicator.py:21:10  likely-gap  "
        "flashinfer-allreduce-fusion  admits: sm90, sm100, sm103"
    )
    assert lines[-1].startswith("9 gates for sm120: 2 likely gap")


def test_audit_subprocess_through_a_pipe(tmp_path: Path) -> None:
    """`gatecheck audit ... | cat`: a real pipe, no terminal, long paths stay whole."""
    deep = tmp_path / ("a_rather_long_folder_name_" * 3) / "srt" / "layers"
    shutil.copytree(SEED, deep / "seed")
    result = subprocess.run(
        [sys.executable, "-m", "gatecheck", "audit", ".", "--generation", "sm120", "--no-cache"],
        cwd=deep.parent.parent,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "40", "PYTHONPATH": str(REPO)},
    )
    assert result.returncode == 0, result.stderr
    gates = result.stdout.splitlines()[:-1]
    # Copied below `srt/layers/seed`, the seed's `from sglang.srt.utils import ...` names
    # the copy, a package vendored in the tree that imports itself by its own name
    # (loading/vendored.py): the 9 gates of the seed where it is the root.
    assert len(gates) == 9
    assert all(re.match(r"^\S+\.py:\d+:\d+  ", line) for line in gates)
    assert ESC not in result.stdout


# --- 2. plain text for what comes from the analysed code -----------------------------------


@pytest.mark.parametrize("name", ["w:100:16.py", "[bold]b.py", ":smile:.py", "[x].py"])
@pytest.mark.parametrize("output_format", ["text", "concise", "github", "markdown", "json"])
def test_check_reports_print_names_and_conditions_plainly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, output_format: str
) -> None:
    root = project(tmp_path / "proj", name)
    monkeypatch.chdir(root)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    code, out, _ = invoke("check", ".", "--output-format", output_format, "--color", "always")
    assert code == 1, out
    assert "💯" not in out and "😄" not in out
    shown = f"pkg/{name}"
    if output_format == "json":
        out = json.loads(out)["findings"][0]["path"]
    elif output_format == "github":
        shown = escape_property(shown)
    assert shown in out
    if output_format != "json":  # (JSON escapes ESC itself: \u001b)
        assert ESC + "[31m:smile:" not in out


@pytest.mark.skipif(os.name != "posix", reason="POSIX file names are bytes")
@pytest.mark.parametrize(
    "output_format", ["text", "concise", "json", "sarif", "github", "markdown"]
)
def test_non_utf8_file_name_in_every_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output_format: str
) -> None:
    """#15.7: `caf\\xe9.py` crashed json/sarif/github/markdown and --output."""
    root = project(tmp_path / "proj", os.fsdecode(b"caf\xe9.py"))
    monkeypatch.chdir(root)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    out_file = tmp_path / "report"
    code, _, err = invoke("check", ".", "--format", output_format, "--output", str(out_file))
    assert code == 1, err
    text = out_file.read_text(encoding="utf-8")
    if output_format == "sarif":
        uri = json.loads(text)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        assert uri["artifactLocation"]["uri"] == "pkg/caf%E9.py"
    elif output_format == "json":
        assert json.loads(text)["findings"][0]["path"] == "pkg/caf\\xe9.py"
    else:
        assert "caf\\xe9.py" in text


# --- 3. config found from the checked path ---------------------------------------------------


def test_config_is_found_from_the_checked_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path / "proj")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, out, err = invoke("check", str(root), "--format", "concise", "-v")
    assert code == 1, out + err
    assert "[fast-thing]" in out
    assert f"config: {root / 'pyproject.toml'}" in err
    # config show PATH says the same.
    code, out, _ = invoke("config", "show", str(root))
    assert code == 0 and f"# config file: {root / 'pyproject.toml'}" in out
    assert not (elsewhere / ".gatecheck_cache").exists()  # the cache goes with the project


def test_paths_under_different_configs_are_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = project(tmp_path / "a"), project(tmp_path / "b")
    monkeypatch.chdir(tmp_path)
    code, _, err = invoke("check", str(first), str(second))
    assert code == 2 and "check them in separate runs" in err


# --- 5. polarity and assumptions in the human reports ----------------------------------------

ASSUMED = """\
from vendor_lib import is_sm90_supported


def adjust(cfg):
    if is_sm90_supported():
        cfg.enable_fast_thing = True
"""


def test_text_and_markdown_show_polarity_and_assumptions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path / "proj")
    (root / "pkg" / "args.py").write_text(ASSUMED, encoding="utf-8")
    monkeypatch.chdir(root)
    code, out, _ = invoke("check", ".")
    assert code == 1
    assert "enables the feature when true" in out
    assert "assumed: " in out
    code, out, _ = invoke("check", ".", "--format", "markdown")
    assert "enables the feature when true" in out and "- assumed: " in out


# --- 7. what ruff users reach for ------------------------------------------------------------


def test_version() -> None:
    code, out, _ = invoke("--version")
    assert code == 0 and re.fullmatch(r"gatecheck, version \d+\.\d+\.\d+\n", out)


@pytest.mark.parametrize(
    "command",
    [
        ["check"],
        ["audit"],
        ["explain"],
        ["config"],
        ["config", "show"],
        ["rules"],
        ["rules", "suggest"],
        ["rules", "validate"],
        [],
    ],
)
def test_every_help_has_examples(command: list[str]) -> None:
    code, out, _ = invoke(*command, "--help")
    assert code == 0 and re.search(r"Examples:\n +gatecheck ", out), out


def test_output_format_is_an_alias_of_format(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    _, concise, _ = invoke("check", str(SEED), "--format", "concise")
    _, alias, _ = invoke("check", str(SEED), "--output-format", "concise")
    assert concise == alias and concise.count("GC001") == 2


def test_statistics(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    code, out, _ = invoke("check", str(SEED), "--statistics")
    assert code == 1
    assert out.splitlines()[:4] == [
        "by rule:",
        "2  GC001  gate-excludes-required-generation",
        "by feature:",
        "2  flashinfer-allreduce-fusion",
    ]
    code, out, _ = invoke("audit", str(SEED), "--generation", "sm120", "--statistics")
    assert code == 0
    assert out.splitlines() == [
        "by class:",
        "2  likely-gap",
        "2  probably-deliberate",
        "2  admits",
        "3  vendor",
        "by feature:",
        "2  flashinfer-allreduce-fusion  (2 likely-gap)",
        "1  _is_flashinfer_available  (1 vendor)",
        "1  is_sm100_supported  (1 probably-deliberate)",
        "1  is_sm120_supported  (1 admits)",
        "1  is_sm90_supported  (1 probably-deliberate)",
        "1  sglang.srt.server_args.ServerArgs._adjust_for_model  (1 admits)",
        "1  sglang.srt.utils._cuda_major_in  (1 vendor)",
        "1  sglang.srt.utils.is_flashinfer_available  (1 vendor)",
    ]


def test_audit_class_filter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    code, out, err = invoke("audit", str(SEED), "--generation", "sm120", "--class", "admits")
    assert code == 0
    assert [line.split("  ")[1] for line in out.splitlines()[:-1]] == ["admits", "admits"]
    assert "2 of 9 gates shown (--class admits)" in err


@pytest.mark.parametrize(("color", "escapes"), [("always", True), ("never", False)])
def test_color_option(monkeypatch: pytest.MonkeyPatch, color: str, escapes: bool) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("NO_COLOR", raising=False)
    for args in (["check", str(SEED), "--color", color], ["--color", color, "check", str(SEED)]):
        _, out, _ = invoke(*args)
        assert (ESC + "[" in out) is escapes


def test_all_checks_passed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "proj")
    (root / "pkg" / "args.py").write_text(GATE.replace("(9, 10)", "(9, 10, 12)"))
    monkeypatch.chdir(root)
    code, out, _ = invoke("check", ".")
    assert code == 0
    assert out.startswith("All checks passed! 0 findings in 1 gate (1 feature, ")


def test_summary_grammar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "proj")
    monkeypatch.chdir(root)
    _, out, _ = invoke("check", ".")
    assert "1 finding in 1 gate (1 feature, 1 file: 1 parsed," in out.splitlines()[-1]


def test_fix_and_diff_are_mutually_exclusive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    code, _, err = invoke("check", str(SEED), "--fix", "--diff")
    assert code == 2 and "--fix and --diff cannot be used together" in err


def test_diff_prints_only_the_diff(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "seed"
    shutil.copytree(SEED, root)
    monkeypatch.chdir(root)
    code, out, err = invoke("check", ".", "--diff")
    assert code == 1
    assert out.startswith("--- a/") and "GC001" not in out
    assert "would fix" in err
    # Nothing to diff (an unfixable gate): still no findings report on stdout.
    root2 = project(tmp_path / "proj")
    (root2 / "pkg" / "args.py").write_text(GATE.replace("major in (9, 10)", "9 <= major < 11"))
    monkeypatch.chdir(root2)
    code, out, err = invoke("check", ".", "--diff")
    assert out == "" and code == 1 and "0 would fix, 1 left" in err


def test_messages_name_only_the_required_vendor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`major == 9` admits gfx90a (ROCm reports capability (9, 0)); a CUDA feature's
    message should not say so."""
    root = project(tmp_path / "proj")
    (root / "pkg" / "args.py").write_text(GATE.replace("major in (9, 10)", "major == 9"))
    monkeypatch.chdir(root)
    _, out, _ = invoke("check", ".", "--format", "concise")
    assert "it admits only sm90" in out and "gfx" not in out


def test_explain_common_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "proj")
    (root / "pkg" / "vendored").mkdir()
    (root / "pkg" / "vendored" / "copy.py").write_text(GATE, encoding="utf-8")
    monkeypatch.chdir(root)
    target = tmp_path / "explain.json"
    code, _, err = invoke(
        "explain",
        "fast-thing",
        ".",
        "--exclude",
        "pkg/vendored/*",
        "--no-cache",
        "--output-format",
        "json",
        "--output",
        str(target),
    )
    assert code == 0, err
    data = json.loads(target.read_text(encoding="utf-8"))
    places = {g["path"] for g in data["auto_enable_gates"] + data["runtime_gates"]}
    assert places == {"pkg/args.py"}


# --- #15.21, 22, 24 ------------------------------------------------------------------------------


def test_a_diagnosed_file_fails_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "proj")
    (root / "pkg" / "args.py").write_text("enable_fast_thing = (\n", encoding="utf-8")
    monkeypatch.chdir(root)
    code, out, _ = invoke("check", ".")
    assert code == 1 and "GC900" in out and "All checks passed" not in out
    code, _, _ = invoke("check", ".", "--exit-zero")
    assert code == 0


@pytest.mark.parametrize(
    "command",
    [
        ["check", str(SEED)],
        ["check", str(SEED), "--format", "json"],
        ["audit", str(SEED), "--generation", "sm120"],
        ["audit", str(SEED), "--generation", "sm120", "--format", "html"],
        ["rules", "suggest", str(SEED), "--generation", "sm120"],
        ["explain", "flashinfer-allreduce-fusion", str(SEED)],
    ],
    ids=["check-text", "check-json", "audit-text", "audit-html", "suggest", "explain"],
)
@pytest.mark.parametrize("target", ["/nonexistent/r", "/dev/full"])
def test_unwritable_output_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch, command: list[str], target: str
) -> None:
    if target == "/dev/full" and not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    monkeypatch.chdir(REPO)
    code, _, err = invoke(*command, "--output", target)
    assert code == 2, err
    assert err.startswith(f"Error: cannot write report: {target}: "), err
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize(
    "command",
    [["check", str(SEED)], ["audit", str(SEED), "--generation", "sm120"], ["--version"]],
)
def test_stdout_on_a_full_disk(command: list[str]) -> None:
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "gatecheck", *command],
            cwd=REPO,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
    assert result.returncode == 2, result.stderr
    assert "cannot write report: <stdout>: No space left on device" in result.stderr
    assert "Traceback" not in result.stderr


def test_new_since_message_is_not_doubled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "proj")
    monkeypatch.chdir(root)
    code, _, err = invoke("check", ".", "--new-since", "main")
    assert code == 2
    assert err.count("--new-since") == 1, err


def test_python_m_ignores_modules_in_the_working_directory(tmp_path: Path) -> None:
    """#15.24: a `click.py` in the checked folder must not run under `python -m gatecheck`."""
    (tmp_path / "click.py").write_text("raise SystemExit('the checked folder ran')\n")
    (tmp_path / "yaml.py").write_text("raise SystemExit('the checked folder ran')\n")
    result = subprocess.run(
        [sys.executable, "-m", "gatecheck", "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},  # this checkout's gatecheck
    )
    assert result.returncode == 0, result.stderr
    assert "the checked folder ran" not in result.stderr + result.stdout


def test_hook_and_action_call_the_console_script() -> None:
    import yaml

    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert all(hook["entry"].startswith("gatecheck ") for hook in hooks)
    action = (REPO / "action.yml").read_text(encoding="utf-8")
    assert "python -m gatecheck" not in action and "gatecheck check --format github" in action


# --- 9. README -------------------------------------------------------------------------------


def test_readme_gives_no_tag_that_does_not_exist() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "rev: v0.1.0" not in readme and "@v0.1.0" not in readme


@pytest.mark.corpus
def test_sglang_059_audit_through_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    """Acceptance of #16: `gatecheck audit sglang --generation sm120 | cat` on sglang 0.5.9
    is one line per gate, every path whole (the wrapped table broke them in pieces)."""
    root = corpus_package("sglang==0.5.9")
    monkeypatch.chdir(root)
    code, out, _ = invoke("audit", ".", "--generation", "sm120")
    assert code == 0
    *gates, summary = out.splitlines()
    assert summary.startswith(f"{len(gates)} gates for sm120: ")
    for line in gates:
        place = line.split("  ", 1)[0]
        path, _line, _column = place.rsplit(":", 2)
        assert (root / path).is_file(), line
    assert any("moe_wna16.py:100:" in line for line in gates)


def test_explain_prints_names_and_conditions_plainly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path / "proj", "esc\x1b[2J:100:[bold].py")
    monkeypatch.chdir(root)
    code, out, _ = invoke("explain", "fast-thing", ".", "--color", "never")
    assert code == 0
    assert ESC not in out and "💯" not in out
    assert "pkg/esc\\x1b[2J:100:[bold].py:5" in out
