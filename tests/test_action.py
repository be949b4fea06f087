"""The composite action's steps run here as GitHub would run them (bash, inputs as
environment variables, fake GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files), #16.8: arguments
are split like a shell splits them, fail-on-findings takes true/false in any case, the
sarif-file output is set only when a file was written, and every step is shellcheck-clean."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import FIXTURES, REPO

ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
RUN_STEP = next(step for step in STEPS if step.get("id") == "run")


def inputs(**given: str) -> dict[str, str]:
    values = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    values.update({name.replace("_", "-"): value for name, value in given.items()})
    return values


def run_step(project: Path, tmp_path: Path, **given: str) -> tuple[int, dict[str, str], str]:
    """Runs the 'run' step's script in `project`; returns exit code, outputs, stdout."""
    values = inputs(**given)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    output, summary = tmp_path / "github_output", tmp_path / "step_summary"
    output.write_text("")
    summary.write_text("")
    for name, expression in RUN_STEP["env"].items():
        # `${{ inputs.x }}` is the only expression the env uses.
        key = expression.strip().removeprefix("${{").removesuffix("}}").strip()
        env[name] = values[key.removeprefix("inputs.")]
    env |= {
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        # The step calls `gatecheck` and `python` from PATH, as after the install step.
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
    }
    result = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", RUN_STEP["run"]],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return result.returncode, parse_outputs(output.read_text()), result.stdout + result.stderr


def parse_outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT's two forms: `name=value` and `name<<DELIMITER ... DELIMITER`."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            for body in lines:
                if body == delimiter:
                    break
                value.append(body)
            outputs[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


@pytest.fixture
def seed(tmp_path: Path) -> Path:
    root = tmp_path / "seed project"
    shutil.copytree(FIXTURES / "seed_alias", root)
    return root


def test_findings_fail_the_step_and_write_sarif(seed: Path, tmp_path: Path) -> None:
    code, outputs, log = run_step(seed, tmp_path, sarif_file="out dir/g.sarif")
    assert code == 2, log  # the folder does not exist: gatecheck says it cannot write
    (seed / "out dir").mkdir()
    code, outputs, log = run_step(seed, tmp_path, sarif_file="out dir/g.sarif")
    assert code == 1, log
    assert outputs == {"exit-code": "1", "sarif-file": "out dir/g.sarif"}
    assert (seed / "out dir/g.sarif").is_file()
    assert log.count("::error file=") == 2
    assert (tmp_path / "step_summary").read_text().startswith("## gatecheck")


@pytest.mark.parametrize("value", ["false", "False", "FALSE"])
def test_fail_on_findings_false_in_any_case(seed: Path, tmp_path: Path, value: str) -> None:
    code, outputs, _ = run_step(seed, tmp_path, fail_on_findings=value)
    assert code == 0 and outputs["exit-code"] == "1"


def test_fail_on_findings_true_in_any_case(seed: Path, tmp_path: Path) -> None:
    code, _, _ = run_step(seed, tmp_path, fail_on_findings="True")
    assert code == 1


def test_fail_on_findings_refuses_other_words(seed: Path, tmp_path: Path) -> None:
    code, outputs, log = run_step(seed, tmp_path, fail_on_findings="yes")
    assert code == 2 and "fail-on-findings must be true or false" in log
    assert outputs == {}


def test_no_sarif_output_when_none_was_written(seed: Path, tmp_path: Path) -> None:
    # The action's output is the step's, not the input echoed back.
    assert ACTION["outputs"]["sarif-file"]["value"] == "${{ steps.run.outputs.sarif-file }}"
    code, outputs, _ = run_step(seed, tmp_path)
    assert code == 1 and "sarif-file" not in outputs


def test_args_are_split_like_a_shell(seed: Path, tmp_path: Path) -> None:
    """A quoted value with a space stays one argument (read -a split it in two)."""
    (seed / "sglang" / "srt" / "two words").mkdir()
    args = "--exclude 'sglang/srt/layers/*' --exclude \"sglang/srt/two words\""
    code, _, log = run_step(seed, tmp_path, args=args)
    assert code == 1, log
    assert log.count("::error file=") == 1 and "server_args.py" in log
    code, _, log = run_step(seed, tmp_path, args="--exclude 'unbalanced")
    assert code == 2 and "cannot split" in log


def test_paths_with_spaces(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    shutil.copytree(FIXTURES / "seed_alias", project / "a b")
    code, _, log = run_step(project, tmp_path, paths="'a b'")
    assert code == 1, log


def test_setup_python_is_pinned_to_a_commit() -> None:
    (setup,) = [s for s in STEPS if str(s.get("uses", "")).startswith("actions/setup-python@")]
    ref = setup["uses"].split("@", 1)[1]
    assert len(ref) == 40 and all(c in "0123456789abcdef" for c in ref)


def test_steps_are_shellcheck_clean(tmp_path: Path) -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("shellcheck is not installed (apt-get install -y shellcheck)")
        pytest.skip("shellcheck is not installed (apt-get install -y shellcheck)")
    scripts = [step["run"] for step in STEPS if "run" in step]
    assert scripts
    for number, script in enumerate(scripts):
        path = tmp_path / f"step{number}.sh"
        path.write_text("#!/usr/bin/env bash\n" + script, encoding="utf-8")
        result = subprocess.run(
            [shellcheck, "-s", "bash", str(path)], capture_output=True, text=True
        )
        assert result.returncode == 0, result.stdout
