"""A `check` answered from the cache (pre-commit's usual case, issue #20: under 0.3 s
wall) imports none of the analysis: no astroid, no evaluator, no audit; and, its rules
coming from the cache too, no PyYAML or jsonschema, and no rich for a clean report. Checked in a
fresh interpreter, by the modules it loaded (a structural fact, not a time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TREE = {
    "pkg/__init__.py": "",
    "pkg/comm.py": """\
        import torch


        def use_fusion(enable_flashinfer_allreduce_fusion):
            if enable_flashinfer_allreduce_fusion and torch.cuda.get_device_capability()[0] == 9:
                return True
            return False
        """,
    "pkg/other.py": "X = 1\n",
}
PROBE = """\
import sys
sys.argv = ["gatecheck", "check", "--files-scope", "pkg/other.py"]
from gatecheck.cli.common import cli
try:
    cli(prog_name="gatecheck")
except SystemExit:
    pass
import json
print(json.dumps(sorted(sys.modules)))
"""
HEAVY = ("astroid", "gatecheck.semantics.evaluator", "gatecheck.engine", "gatecheck.audit")
# Nor the forked scan of every file a cold run starts (loading/prescan.py), and pickle
# with it.
SCAN = ("gatecheck.loading.prescan", "gatecheck.forking", "pickle")
# Nor what only reading rules afresh or laying out findings needs (the report of this
# clean file is one summary line, written without rich: tests/test_plain_summary.py).
READING = ("yaml", "jsonschema", "rich", "gatecheck.config.loader")


def test_cached_check_imports_no_analysis(make_tree: Callable[[Mapping[str, str]], Path]) -> None:
    root = make_tree(TREE)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = [sys.executable, "-c", PROBE]
    first = subprocess.run(run, cwd=root, env=env, capture_output=True, text=True, check=True)
    assert "astroid" in json.loads(first.stdout.splitlines()[-1])  # analysed: the cache is cold
    (root / "pkg" / "other.py").write_text("X = 2\n", encoding="utf-8")  # a file never parsed
    second = subprocess.run(run, cwd=root, env=env, capture_output=True, text=True, check=True)
    loaded = set(json.loads(second.stdout.splitlines()[-1]))
    assert not [m for m in HEAVY if m in loaded]
    assert not [m for m in READING if m in loaded]
    assert not [m for m in SCAN if m in loaded]
