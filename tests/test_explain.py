"""Activation paths and `gatecheck explain`: multi-hop paths across modules, cycles,
gates behind helpers, unresolved calls; the real sglang 0.5.9 path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from tests.conftest import FIXTURES, corpus_package

RULE = """\
features:
  - id: fused-norm
    description: fused norm
    flags: [enable_fused_norm]
    require: [sm90, sm100, sm120]
"""

# flag (cli + field) -> auto-enable (args.py) -> runtime gate behind a helper (gate.py)
# -> wrapper (layer.py) -> model (model.py); wrapper <-> helper form a cycle.
PROJECT = {
    "app/__init__.py": "",
    "app/args.py": """\
import argparse
import dataclasses
import torch

@dataclasses.dataclass
class Args:
    enable_fused_norm: bool = False

    def adjust(self):
        if torch.cuda.get_device_capability()[0] in (9, 10):
            self.enable_fused_norm = True

def add_cli(parser: argparse.ArgumentParser):
    parser.add_argument("--enable-fused-norm", action="store_true")

ARGS = Args()
""",
    "app/gate.py": """\
import torch
from app.args import ARGS

def _arch_ok():
    return torch.cuda.get_device_capability()[0] >= 9

def use_fused_norm(n):
    return _arch_ok() and n > 0 and ARGS.enable_fused_norm
""",
    "app/layer.py": """\
from app.gate import use_fused_norm

def norm(x, depth=0):
    if use_fused_norm(len(x)):
        return x
    return norm(x, depth + 1) if depth < 2 else x

FUSED_BY_DEFAULT = use_fused_norm(1)
""",
    "app/model.py": """\
from app import layer

class Model:
    def forward(self, x):
        return layer.norm(x)

def unrelated(obj):
    return obj.norm(3)
""",
}


@pytest.fixture
def project(make_tree) -> Path:  # type: ignore[no-untyped-def]
    root = make_tree({**PROJECT, "rules.yaml": RULE})
    return root


def _explain(root: Path, *args: str) -> dict:  # type: ignore[type-arg]
    result = CliRunner().invoke(
        cli,
        [
            "explain",
            "fused-norm",
            str(root),
            "--rules",
            str(root / "rules.yaml"),
            "--format",
            "json",
            *args,
        ],
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_multi_hop_path(project: Path) -> None:
    data = _explain(project, "--generation", "sm120")
    assert [o["text"] for o in data["cli_options"]] == ["--enable-fused-norm"]
    assert data["settings_fields"][0]["path"].endswith("app/args.py")
    auto = data["auto_enable_gates"]
    assert len(auto) == 1 and auto[0]["admitted"] == [
        "sm90",
        "sm100",
        "sm103",
        "gfx90a",
        "gfx942",
        "gfx950",
    ]
    assert "sm120" in auto[0]["shut_out"]
    runtime = data["runtime_gates"]
    assert len(runtime) == 1 and "sm120" in runtime[0]["admitted"]
    callers = runtime[0]["callers"]
    kinds = sorted((c["kind"], Path(c["path"]).name, c["line"]) for c in callers)
    assert ("call-site", "layer.py", 4) in kinds
    assert ("module-constant", "layer.py", 8) in kinds
    norm_site = next(c for c in callers if c["line"] == 4)
    # norm() calls itself: reported as a cycle, not followed forever
    assert "cycle" in _kinds(norm_site)
    model = next(c for c in norm_site["callers"] if c["path"].endswith("model.py"))
    assert model["kind"] == "call-site" and model["qualname"] == "app.model.Model.forward"
    # obj.norm(3) has an unknown receiver: not bound by name, counted instead
    assert any(c["kind"] == "unresolved-calls" for c in norm_site["callers"])
    verdict = data["verdicts"]["sm120"]
    assert not verdict["auto_enable_passes"] and verdict["runtime_passes"]
    assert (
        "never auto-enabled" in verdict["text"]
        and "runs when enabled with --enable-fused-norm" in verdict["text"]
    )


def _kinds(node: dict) -> set[str]:  # type: ignore[type-arg]
    found = {node["kind"]}
    for child in node.get("callers", []):
        found |= _kinds(child)
    return found


def test_text_tree_and_verdict(project: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "explain",
            "fused-norm",
            str(project),
            "--rules",
            str(project / "rules.yaml"),
            "--generation",
            "sm90",
        ],
    )
    assert result.exit_code == 0
    assert "auto-enable gates" in result.output and "runtime gates" in result.output
    assert "verdict on sm90: auto-enabled when its other conditions hold" in result.output


def test_unknown_feature_is_a_usage_error(project: Path) -> None:
    result = CliRunner().invoke(
        cli, ["explain", "nope", str(project), "--rules", str(project / "rules.yaml")]
    )
    assert result.exit_code == 2 and "unknown feature 'nope'" in result.output


def test_findings_carry_the_path(project: Path) -> None:
    result = CliRunner().invoke(
        cli, ["check", str(project), "--rules", str(project / "rules.yaml"), "--format", "json"]
    )
    data = json.loads(result.output)
    # The feature's whole path once; each finding names it and carries its own route.
    (feature,) = data["activation_paths"]
    hops = data["activation_paths"][feature]
    assert [h["kind"] for h in hops][:3] == ["cli-option", "settings-field", "auto-enable"]
    assert any(h["kind"] == "call-site" for h in hops)
    for finding in data["findings"]:
        assert finding["activation_path"] == feature
        route = [h["kind"] for h in finding["path_hops"]]
        assert route[:2] == ["cli-option", "settings-field"]
        assert all(h in hops for h in finding["path_hops"])


def test_seed_fixture_explain() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "explain",
            "flashinfer-allreduce-fusion",
            str(FIXTURES / "seed_alias"),
            "--generation",
            "sm120",
        ],
    )
    assert result.exit_code == 0
    assert (
        "never auto-enabled" in result.output
        and "cannot run even when forced with --enable-flashinfer-allreduce-fusion" in result.output
    )


@pytest.mark.corpus
def test_sglang_059_explain() -> None:
    root = corpus_package("sglang==0.5.9")
    data = _explain_real(root, "sm120")
    assert [o["text"] for o in data["cli_options"]] == ["--enable-flashinfer-allreduce-fusion"]
    auto = data["auto_enable_gates"]
    runtime = data["runtime_gates"]
    assert [(g["shut_out"]["sm120"]["path"], g["shut_out"]["sm120"]["line"]) for g in auto] == [
        ("sglang/srt/server_args.py", 1691)
    ]
    assert [(g["shut_out"]["sm120"]["path"], g["shut_out"]["sm120"]["line"]) for g in runtime] == [
        ("sglang/srt/layers/communicator.py", 95)
    ]
    callers = runtime[0]["callers"]
    assert {(c["path"], c["line"]) for c in callers if c["kind"] == "call-site"} >= {
        ("sglang/srt/layers/communicator.py", 604),
        ("sglang/srt/layers/communicator.py", 810),
    }
    assert data["verdicts"]["sm120"]["text"] == (
        "on sm120: never auto-enabled (sglang/srt/server_args.py:1691); cannot run even when forced "
        "with --enable-flashinfer-allreduce-fusion (sglang/srt/layers/communicator.py:95)"
    )
    sm90 = _explain_real(root, "sm90")["verdicts"]["sm90"]
    assert sm90["auto_enable_passes"] and sm90["runtime_passes"]


def _explain_real(root: Path, generation: str) -> dict:  # type: ignore[type-arg]
    import os

    cwd = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(
            cli,
            [
                "explain",
                "flashinfer-allreduce-fusion",
                ".",
                "--generation",
                generation,
                "--format",
                "json",
            ],
        )
    finally:
        os.chdir(cwd)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)
